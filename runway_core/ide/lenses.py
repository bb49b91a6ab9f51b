"""Cost in view: code lenses, inlay hints and cost deltas, as pure queries over an analysis.

Two queries the language server only converts (docs/architecture.md §2):

- :func:`code_lenses` — on each environment key of the root runway, its total against its
  cap (``dev $126.88 / $150 · 85%``), with the change since the last save and against git
  HEAD when baselines are given (``+$103.19/mo vs HEAD``, ``−$3.00/mo since save``); on each
  resource and workload key, its monthly cost per environment in whole dollars
  (``dev $36.28 · staging $139 · production $326``) and who uses it (``used by 4`` / ``unused``).
- :func:`inlay_hints` — after each size value, that environment's monthly cost of the item
  (``≈ $139.47/mo``); after each ``limits.monthly`` cap, the share of it used (``≈ 52% used``).

The deltas themselves (current minus baseline, per environment and item) are
:func:`runway_core.baseline.cost_deltas`; their text is :mod:`runway_core.ide._deltas`'s.

Conventions (what a user sees):

- Money is ``Decimal`` USD per month. Totals and deltas are shown to the cent
  (:func:`runway_core.money.usd`). Per-environment costs in a resource lens follow one rule
  (:func:`runway_core.money.whole_usd`): under $100 to the cent (``$0.40``, ``$8.01``, ``$36.28``), from $100 in
  whole dollars, half up (``$139.47`` → ``$139``, ``$325.81`` → ``$326``), to fit one line.
  A cap that is a whole number of dollars shows without cents (``$150``). Percentages are
  rounded half up to a whole percent.
- A total that misses a unit price for the region is a lower bound and is prefixed ``≥``.
- A capped total under its cap with an entry not estimated (an unknown size, RW130; a
  definition the analysis dropped: a schema error, a kind typo, a duplicate key) ends in
  ``not estimated: fix the errors``: a lower bound proves nothing (the shown verdict
  ``invalid``, runway_core/planner/verdict.py).
- A negative delta uses the minus sign U+2212 (``−$3.00``); a delta that is zero to the cent
  is left out of a lens (the hover says "no change").
- Implicit ``shared-<kind>`` resources get their lens on the first ``environments.<env>.
  shared.<kind>`` key of the root, in environment order; one required only by members has no
  key in the root and so no lens (its cost shows in the environment hovers).
- A workload no other workload uses gets no "used by" lens: a workload serves its users, so
  "unused" would be wrong.
- A member runway declares no environment, resource or workload: its lenses are on its
  ``requires`` items, the implicit ``shared-<kind>`` each brings with its cost per
  environment and its users (``shared-queue: dev $0.40 · staging $0.40 · production $10.00``),
  and an inlay hint after each prices it in the selected environment (``≈ $0.40/mo in dev``).

Never raises: an unexpected problem yields an empty list. Must not import pygls, lsprotocol
or pulumi.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping

from ..baseline import Baselines
from ..money import cap_percent, cap_usd, usd, usd_over, whole_usd
from ..planner import EnvironmentPlan, ItemPlan, not_estimated, shown_verdict
from ..positions import Position, Range
from ..yamlsrc import YMap, YNode, YScalar
from ._deltas import delta_parts

if TYPE_CHECKING:
    from ..facts import Analysis


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lens:
    """One code lens: ``title`` shown above ``range`` (code points, the key it belongs to).

    ``data`` says what it is about: ``{"env": name}`` for an environment lens,
    ``{"name": item}`` for a resource or workload lens (the server passes it to its
    ``runway.showCost`` command). ``tooltip`` is a longer plain-text explanation.
    """

    range: Range
    title: str
    data: Mapping[str, Any]
    tooltip: str | None = None


@dataclass(frozen=True, slots=True)
class Hint:
    """One inlay hint: ``label`` shown at ``position`` (code points, just after a value)."""

    position: Position
    label: str
    tooltip: str | None = None


def _total_text(plan: EnvironmentPlan) -> str:
    return ("≥" if plan.missing_prices else "") + usd(plan.total)


# --------------------------------------------------------------------------------------
# Code lenses
# --------------------------------------------------------------------------------------


def code_lenses(an: "Analysis", file: str, baseline: Baselines | None = None) -> list[Lens]:
    """The code lenses of ``file`` (a path as keyed in ``an.files``), sorted by position.

    Environment lenses come from ``an.plans`` (``dev $126.88 / $150 · 85%``; ``dev $80.00 ·
    no cap``; ``dev $180.00 / $150 · 120% · over cap by $30.00``), followed by the deltas
    against ``baseline`` when given. Resource and workload lenses list the item's monthly
    cost in each environment (whole dollars) and its consumers. Empty for a member runway,
    for a runway without plans (errors prevent planning) and on any internal error.
    """
    try:
        return _code_lenses(an, os.path.abspath(file), baseline)
    except Exception:  # noqa: BLE001 - docs/architecture.md §7: a lens is never worth a crash
        return []


def _requires_items(an: "Analysis", root: YMap) -> list[tuple[YScalar, str, list[tuple[str, ItemPlan]]]]:
    """A member runway's ``requires`` items with the implicit ``shared-<kind>`` they bring and
    its plan in each environment."""
    out = []
    seq = root.get("requires")
    for it in getattr(seq, "items", ()) or ():
        if isinstance(it, YScalar) and isinstance(it.value, str) and it.value:
            name = f"shared-{it.value}"
            items = [(p.name, i) for p in an.plans.values() if (i := p.item(name)) is not None and i.implicit]
            if items:
                out.append((it, name, items))
    return out


def _code_lenses(an: "Analysis", file: str, baseline: Baselines | None) -> list[Lens]:
    src = an.files.get(file)
    if src is not None and src.role == "member" and isinstance(src.parsed.root, YMap) and an.plans:
        # A member declares no environment or resource: what its `requires` cost (issue 15).
        lenses = [lens for it, name, items in _requires_items(an, src.parsed.root) for lens in _item_lenses(name, it.range, items, is_workload=False, implicit=True)]
        return sorted(lenses, key=lambda lens: (lens.range.start, lens.range.end))
    if src is None or src.role != "root" or not isinstance(src.parsed.root, YMap) or not an.plans:
        return []
    root = src.parsed.root
    out: list[Lens] = []
    # Environments: on each declared key; with the defaults (no `environments:` written),
    # on the `environments` or `product` key so that the totals are still in view.
    anchor = None
    if not an.env_keys:
        for top in ("environments", "product"):
            if (k := root.key_node(top)) is not None:
                anchor = k.range
                break
    for env, plan in an.plans.items():
        rng = an.env_keys.get(env, anchor)
        if rng is not None:
            out.append(_env_lens(env, plan, rng, an.plans, baseline))
    # Resources and workloads.
    for sect, is_workload in (("resources", False), ("workloads", True)):
        node = root.get(sect)
        if not isinstance(node, YMap):
            continue
        for key, _value in node.entries:
            items = _items_of(an, key.text, is_workload)
            if items:
                out.extend(_item_lenses(key.text, key.range, items, is_workload, implicit=False))
    # Implicit shared-<kind> resources: the first `shared.<kind>` key, in environment order.
    envs = root.get("environments")
    placed: set[str] = set()
    if isinstance(envs, YMap):
        for _ek, ev in envs.entries:
            shared = ev.get("shared") if isinstance(ev, YMap) else None
            if not isinstance(shared, YMap):
                continue
            for kk, _kv in shared.entries:
                name = f"shared-{kk.text}"
                if name in placed:
                    continue
                items = [(p.name, i) for p in an.plans.values() if (i := p.item(name)) is not None and i.implicit]
                if items:
                    placed.add(name)
                    out.extend(_item_lenses(name, kk.range, items, is_workload=False, implicit=True))
    out.sort(key=lambda lens: (lens.range.start, lens.range.end))
    return out


def _env_lens(env: str, plan: EnvironmentPlan, rng: Range, plans: Mapping[str, EnvironmentPlan], baseline: Baselines | None) -> Lens:
    parts = [f"{env} {_total_text(plan)}"]
    tip = [f"{env}: {usd(plan.total)} per month"]
    if plan.cap is None and plan.cap_source == "invalid":
        parts[0] += " · cap invalid"
        code, why = plan.cap_error or ("RW100", "limits.monthly must be a number from 0 to 1,000,000,000")
        tip.append(f"cap invalid ({code}): {why}")
    elif plan.cap is None:
        parts[0] += " · no cap"
        tip.append("no cap (set limits.monthly to cap it)")
    else:
        parts[0] += f" / {cap_usd(plan.cap)}"
        pct = cap_percent(plan.total, plan.cap)
        if pct is not None:
            parts.append(f"{pct}%")
        if plan.verdict == "over-cap":
            parts.append(f"over cap by {usd_over(plan.total - plan.cap)}")
        elif plan.verdict == "unpriced":
            parts.append("cap unchecked: prices missing")
        elif shown_verdict(plan) == "invalid":
            # A lower bound under the cap proves nothing (runway_core/planner/verdict.py).
            parts.append("not estimated: fix the errors")
        tip[0] += f" of a {usd(plan.cap)} {'default ' if plan.cap_source == 'default' else ''}cap"
    if plan.missing_prices:
        tip.append(f"a lower bound: no price for {', '.join(plan.missing_prices)}")
    if (unknown := not_estimated(plan)):
        tip.append(f"a lower bound: not estimated: {', '.join(unknown)}")
    parts.extend(delta_parts(env, plans, baseline))
    if baseline is not None:
        for base, what in ((baseline.head, "at git HEAD"), (baseline.saved, "as last saved")):
            if base is not None and env in base:
                tip.append(f"{usd(base[env].total)} {what}")
    return Lens(rng, " · ".join(parts), {"env": env}, "; ".join(tip))


def _items_of(an: "Analysis", name: str, is_workload: bool) -> list[tuple[str, ItemPlan]]:
    out = []
    for p in an.plans.values():
        i = p.item(name)
        # A workload named like a resource (RW112) is not planned: the resource keeps the name.
        if i is not None and not i.implicit and (i.kind == "workload") == is_workload:
            out.append((p.name, i))
    return out


def _item_cost(item: ItemPlan) -> str:
    if item.size is None:
        return "—"  # a size the catalogue lacks: RW130 says so
    return ("≥" if item.missing_prices else "") + whole_usd(item.monthly_usd)


def _item_lenses(name: str, rng: Range, items: list[tuple[str, ItemPlan]], is_workload: bool, implicit: bool) -> list[Lens]:
    costs = " · ".join(f"{env} {_item_cost(i)}" for env, i in items)
    title = f"{name}: {costs}" if implicit else costs
    tip = "; ".join(f"{env}: {i.size or 'unknown size'}, {usd(i.monthly_usd)} per month" for env, i in items)
    out = [Lens(rng, title, {"name": name}, tip)]
    consumers = list(items[0][1].consumers)
    if consumers:
        out.append(Lens(rng, f"used by {len(consumers)}", {"name": name}, ", ".join(consumers)))
    elif not is_workload:
        out.append(Lens(rng, "unused", {"name": name}, "no workload or member uses it (RW180)"))
    return out


# --------------------------------------------------------------------------------------
# Inlay hints
# --------------------------------------------------------------------------------------


def inlay_hints(an: "Analysis", file: str, range: Range | None = None, env: str | None = None) -> list[Hint]:
    """Inlay hints of ``file`` whose position lies in ``range`` (all when None).

    - After each value of a size map (``size: {staging: medium}``) and of
      ``environments.<env>.shared.<kind>``: that environment's monthly cost of the item,
      ``≈ $139.47/mo``.
    - After a single size (``size: medium``): its cost in ``env``, or in the first
      environment when ``env`` is None or not an environment of the runway, naming it:
      ``≈ $32.02/mo in dev``.
    - After ``environments.<env>.limits.monthly``: the share of the cap the plan uses,
      ``≈ 52% used``.

    No hint for a size the catalogue lacks or an undeclared environment (diagnostics say
    why), nor in a member runway. Never raises: an internal error yields an empty list.
    """
    try:
        return _inlay_hints(an, os.path.abspath(file), range, env)
    except Exception:  # noqa: BLE001 - docs/architecture.md §7
        return []


def _inlay_hints(an: "Analysis", file: str, rng: Range | None, env: str | None) -> list[Hint]:
    src = an.files.get(file)
    if src is not None and src.role == "member" and isinstance(src.parsed.root, YMap) and an.plans:
        chosen_env = env if env in an.plans else next(iter(an.plans))
        hints = []
        for it, name, items in _requires_items(an, src.parsed.root):
            item = dict(items).get(chosen_env)
            pos = it.range.end
            if item is None or item.size is None or not (rng is None or rng.start <= pos <= rng.end):
                continue
            cost = ("≥" if item.missing_prices else "") + usd(item.monthly_usd)
            hints.append(Hint(pos, f"≈ {cost}/mo in {chosen_env}", f"{name} in {chosen_env}: {item.size}, {cost} per month (shared with {', '.join(item.consumers)})"))
        return hints
    if src is None or src.role != "root" or not isinstance(src.parsed.root, YMap) or not an.plans:
        return []
    root = src.parsed.root
    chosen = env if env in an.plans else next(iter(an.plans))
    out: list[Hint] = []

    def add(key: YScalar, value: YNode, label: str, tooltip: str) -> None:
        # An aliased value is the anchor's node, elsewhere in the file: no hint after it.
        if value.range.start < key.range.end:
            return
        pos = value.range.end
        if rng is None or rng.start <= pos <= rng.end:
            out.append(Hint(pos, label, tooltip))

    def item_hint(key: YScalar, value: YNode, name: str, env_name: str, is_workload: bool, implicit: bool, single: bool) -> None:
        plan = an.plans.get(env_name)
        item = plan.item(name) if plan is not None else None
        if item is None or item.size is None or item.implicit != implicit or (item.kind == "workload") != is_workload:
            return
        cost = ("≥" if item.missing_prices else "") + usd(item.monthly_usd)
        label = f"≈ {cost}/mo" + (f" in {env_name}" if single else "")
        tasks = item.capacity.get("tasks")
        detail = f", {tasks} task{'s' if tasks != 1 else ''}" if is_workload and tasks is not None else ""
        add(key, value, label, f"{name} in {env_name}: {item.size}{detail}, {usd(item.monthly_usd)} per month")

    for sect, is_workload in (("resources", False), ("workloads", True)):
        node = root.get(sect)
        if not isinstance(node, YMap):
            continue
        for name_key, entry in node.entries:
            if not isinstance(entry, YMap):
                continue
            size_key, size = entry.key_node("size"), entry.get("size")
            if size_key is None or size is None:
                continue
            if isinstance(size, YScalar) and isinstance(size.value, str):
                item_hint(size_key, size, name_key.text, chosen, is_workload, False, single=True)
            elif isinstance(size, YMap):
                for k, v in size.entries:
                    if isinstance(v, YScalar) and isinstance(v.value, str):
                        item_hint(k, v, name_key.text, k.text, is_workload, False, single=False)
    envs = root.get("environments")
    if isinstance(envs, YMap):
        for ek, ev in envs.entries:
            if not isinstance(ev, YMap):
                continue
            shared = ev.get("shared")
            if isinstance(shared, YMap):
                for k, v in shared.entries:
                    if isinstance(v, YScalar) and isinstance(v.value, str):
                        item_hint(k, v, f"shared-{k.text}", ek.text, False, True, single=False)
            limits = ev.get("limits")
            cap_key = limits.key_node("monthly") if isinstance(limits, YMap) else None
            cap_node = limits.get("monthly") if isinstance(limits, YMap) else None
            plan = an.plans.get(ek.text)
            if (
                cap_key is not None
                and isinstance(cap_node, YScalar)
                and isinstance(cap_node.value, (int, float, Decimal))
                and not isinstance(cap_node.value, bool)
                and plan is not None
                and plan.cap is not None
            ):
                pct = cap_percent(plan.total, plan.cap)
                if pct is not None:
                    add(cap_key, cap_node, f"≈ {pct}% used", f"{ek.text}: {_total_text(plan)} of a {usd(plan.cap)} cap")
    out.sort(key=lambda h: h.position)
    return out


__all__ = ["Lens", "Hint", "code_lenses", "inlay_hints"]
