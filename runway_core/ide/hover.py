"""Hover: what the editor shows over a name, a size, an environment or a key of a runway.

One pure query, :func:`hover_at`, over an :class:`~runway_core.analysis.Analysis`; the
language server only converts its result (docs/architecture.md §2). Markdown is built here because the
content (costs side by side, line items with their price sources) is the product; the server
only decides the markup kind and position encoding.

What is shown (docs/format.md, docs/catalog.md):

- over a resource or workload name (its declaring key, a `uses` item, a member's `requires`
  item, an environment's `shared` key): kind, implicit marker and origin, one column per
  environment (size, monthly USD, tasks), consumers, injected variables, Infisical path and
  missing-price warnings;
- over a size (or scale) value: that environment's capacity and line items, each with
  quantity x unit price, monthly USD and the price's source and confidence;
- over an environment key or its `limits.monthly` value: total against cap, verdict, top
  contributors;
- over any other key (or a plain value): the key's documentation from the model.

Never raises: any unexpected problem yields ``None`` (no hover). Money is USD per month.
Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from pydantic import BaseModel

from .. import markdown
from ..baseline import Baselines
from ..catalog import SIZES
from .. import kinds
from ..kinds import RESOURCE_KINDS
from ..model import EXPOSE_VALUES, REASON_GROUNDS, RESERVED_KINDS, MemberRunway, Resource, RootRunway, Workload, field_doc, model_for
from ..money import cap_percent, usd, usd_over
from ..planner import EnvironmentPlan, ItemPlan, injected_variables, not_estimated, refresh_command, shown_verdict
from ..positions import Position, Range
from ..whatif import smallest_total
from ..yamlsrc import YMap, YNode, YScalar
from ._cursor import cursor_at
from ._deltas import with_cost_delta
from ._usage import usage_hover
from ._render import capacity_text, cell, confidence_line, quantity, source_brief, unit_price

if TYPE_CHECKING:
    from ..facts import Analysis, SourceFile

#: How many items the environment hover lists as top contributors.
TOP_CONTRIBUTORS = 5

#: Plain words for the catalogue's confidence levels (docs/catalog.md), so users
#: know how far to trust a figure.
CONFIDENCE_WORDS = {
    "price-list": "AWS Price List",
    "aws-static": "AWS static table",
    "secondary": "secondary source",
    "derived": "derived (computed from other figures)",
    "unverified": "unverified",
}

_FREE_TIER = "Free tiers are ignored: estimates are conservative."
_NETWORK = "Network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated."


@dataclass(frozen=True, slots=True)
class HoverResult:
    """Markdown to show, and the range (code points) of the hovered key or value."""

    markdown: str
    range: Range


def hover_at(analysis: "Analysis", file: str, pos: Position, baseline: "Baselines | None" = None) -> HoverResult | None:
    """The hover at ``pos`` (code points) of ``file`` (a path as keyed in ``analysis.files``).

    With ``baseline`` (:class:`runway_core.baseline.Baselines`), an environment's hover also
    shows its change since the last save and against git HEAD (``+$103.19/mo vs HEAD``).
    Returns None when there is nothing to say (no node there, a file outside the analysis)
    and on any internal error: a hover is never worth a crash.
    """
    try:
        result = _hover(analysis, os.path.abspath(file), pos)
        if result is not None and baseline is not None:
            result = with_cost_delta(analysis, os.path.abspath(file), pos, result, baseline)
        return result
    except Exception:  # noqa: BLE001 - docs/architecture.md §7: degrade, never crash a handler
        return None


# --------------------------------------------------------------------------------------
# Dispatch on the YAML path under the cursor
# --------------------------------------------------------------------------------------


def _hover(an: "Analysis", file: str, pos: Position) -> HoverResult | None:
    src = an.files.get(file)
    if src is None or src.parsed.root is None:
        return None
    if src.role == "usage":
        found = usage_hover(an, src.parsed.lines.all_lines(), pos)
        return HoverResult(found[0], found[1]) if found is not None else None
    cur = cursor_at(src.parsed.root, pos)
    if cur is None:
        return None
    chain, parts, node, key, on_key = cur
    target_range = key.range if on_key else node.range
    member = src.role == "member"
    md: str | None = None
    if member:
        md = _member_hover(an, parts, node, on_key)
    else:
        md = _root_hover(an, parts, node, on_key)
    if md is None:
        md, target_range = _key_doc(an, src, chain, pos, on_key) or (None, target_range)
    if not md:
        return None
    return HoverResult(md, target_range)


def _scalar_text(node: YNode | None) -> str | None:
    return node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None


def _member_hover(an: "Analysis", parts: tuple, node: YNode, on_key: bool) -> str | None:
    if len(parts) == 2 and not on_key and isinstance(parts[1], int):
        name = _scalar_text(node)
        if name is None:
            return None
        if parts[0] == "uses":
            return _entity(an, name)
        if parts[0] == "requires":
            return _entity(an, f"shared-{name}")
    return None


def _root_hover(an: "Analysis", parts: tuple, node: YNode, on_key: bool) -> str | None:
    n = len(parts)
    sect = parts[0]
    if sect in ("resources", "workloads"):
        if n == 2 and on_key:
            return _entity(an, str(parts[1]))
        name = str(parts[1]) if n >= 2 else None
        if name is None:
            return None
        if sect == "workloads" and n == 4 and parts[2] == "uses" and not on_key:
            target = _scalar_text(node)
            return _entity(an, target) if target else None
        if n >= 3 and parts[2] in ("size", "scale"):
            if n == 3 and not on_key:
                if isinstance(node, YScalar):
                    return _size(an, name, None)
                return None
            if n == 4:
                return _size(an, name, str(parts[3]))
        return None
    if sect == "environments" and n >= 2:
        env = str(parts[1])
        if n == 2 and on_key:
            return _environment(an, env)
        if n == 4 and parts[2] == "limits" and parts[3] == "monthly" and not on_key:
            return _environment(an, env)
        if n == 4 and parts[2] == "shared":
            kind = str(parts[3])
            if on_key:
                return _entity(an, f"shared-{kind}")
            return _size(an, f"shared-{kind}", env)
    return None


# --------------------------------------------------------------------------------------
# Formatting helpers
# --------------------------------------------------------------------------------------


def _plans(an: "Analysis") -> list[EnvironmentPlan]:
    return list(an.plans.values())


def _rel(an: "Analysis", path: str) -> str:
    try:
        return os.path.relpath(path, os.path.dirname(an.root_file))
    except ValueError:
        return path


def _kind_label(kind: str | None, implicit: bool, typ: str | None) -> str:
    declared = kinds.get("workload" if typ == "workload" else kind)
    if declared is not None and not declared.resource:
        return declared.label
    label = declared.label if declared is not None else (kind or "unknown kind")
    return ("implicit " if implicit else "") + label


def _missing_lines(an: "Analysis", missing_by_env: dict[str, tuple[str, ...]]) -> list[str]:
    region = an.spec.region if an.spec is not None else "the region"
    by_key: dict[str, list[str]] = {}
    for env, keys in missing_by_env.items():
        for key in keys:
            by_key.setdefault(key, []).append(env)
    return [
        f"⚠ No {region} price for `{key}` ({', '.join(envs)}): left out of the estimate, which is a lower bound (never another region's price)."
        for key, envs in sorted(by_key.items())
    ]


def _footer(plan: EnvironmentPlan | None) -> list[str]:
    notes = list(plan.notes) if plan is not None and plan.notes else [_NETWORK, _FREE_TIER]
    return [f"*{n[:1].upper()}{n[1:].rstrip('.')}.*  " for n in notes if n]


# --------------------------------------------------------------------------------------
# Names: resources, workloads, implicit shared-<kind>
# --------------------------------------------------------------------------------------


def _origin_text(an: "Analysis", kind: str | None, origins: Iterable[tuple[str, Range]]) -> str:
    members: list[str] = []
    envs: list[str] = []
    for path, _rng in origins:
        if path == an.root_file:
            continue
        src = an.files.get(path)
        name = (src.member_name if src is not None else None) or os.path.basename(os.path.dirname(path))
        if name not in members:
            members.append(name)
    if an.spec is not None and kind:
        envs = [e.name for e in an.spec.environments if kind in e.shared]
    bits = []
    if members:
        bits.append(f"`requires: [{kind}]` in {', '.join(members)}")
    if envs:
        bits.append(", ".join(f"`environments.{e}.shared.{kind}`" for e in envs))
    return " and ".join(bits) if bits else "the shared pools"


def _entity(an: "Analysis", name: str) -> str | None:
    sym = an.symbols.get(name)
    plans = _plans(an)
    items = [(p, p.item(name)) for p in plans]
    items = [(p, i) for p, i in items if i is not None]
    if sym is None and not items:
        return None
    kind = sym.kind if sym is not None else items[0][1].kind
    implicit = sym is not None and sym.type == "implicit"
    typ = sym.type if sym is not None else None
    out = [f"### {name}", "", f"**{_kind_label(kind, implicit, typ)}**"]
    if implicit:
        out[-1] += f" — one shared pool, from {_origin_text(an, kind, sym.origins)}; size per environment from `environments.<env>.shared.{kind}` (default small)."
    if not items:
        out.append("")
        out.append("*No estimate: fix the errors in this runway first.*")
        return "\n".join(out)
    is_workload = kind == "workload"
    out.append("")
    rows = [["size", *(i.size or "—" for _, i in items)]]
    if is_workload:
        rows.append(["tasks", *(str(i.capacity.get("tasks", "—")) for _, i in items)])
    # An item whose kind has no price (RW122) is not estimated, never $0.00.
    rows.append(["monthly", *((usd(i.monthly_usd) + ("*" if i.missing_prices else "")) if i.estimated else "not estimated" for _, i in items)])
    out.extend(markdown.table(["", *(p.name for p, _ in items)], rows, right=range(1, len(items) + 1)))
    out.append("")
    first = items[0][1]
    consumers = list(first.consumers)
    out.append(f"- **Used by:** {', '.join(consumers)}" if consumers else "- **Used by:** nobody yet")
    if is_workload:
        wl = an.spec.entries.get(name) if an.spec is not None else None
        if wl is not None and wl.uses:
            out.append(f"- **Uses:** {', '.join(wl.uses)}")
    variables = first.variables or injected_variables(name, kind or "")
    if variables:
        what = "its consumers receive" if is_workload else "each consumer receives"
        out.append(f"- **Injected variables** ({what}): {', '.join(f'`{v}`' for v in variables)}")
    out.append(f"- **Infisical:** `{kinds.infisical_path('<env>', name)}` (values written blind by the deploy job, never shown)")
    if an.spec is not None:
        out.append(f"- **SSM parameters:** `{kinds.ssm_parameter(an.spec.product, '<env>', name, '<VAR>')}`")
    missing = {p.name: i.missing_prices for p, i in items if i.missing_prices}
    if missing:
        out.append("")
        out.extend(_missing_lines(an, missing))
    for _p, i in items[:1]:
        for note in i.notes:
            out.append(f"*{note}*")
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# Sizes: capacity and line items
# --------------------------------------------------------------------------------------


def _line_items_table(item: ItemPlan) -> list[str]:
    sources: list[str] = []
    rows = []
    for li in item.line_items:
        if li.source not in sources:
            sources.append(li.source)
        n = sources.index(li.source) + 1
        # A quantity the usage file gives names its line (docs/format.md, "Usage file").
        origin = f" ({li.quantity_source})" if li.quantity_source.startswith("usage file") else ""
        rows.append([cell(li.description), f"{quantity(li.quantity)} x {unit_price(li.unit_usd)} / {cell(li.unit)}{origin}", usd(li.monthly_usd),
                     f"{CONFIDENCE_WORDS.get(li.confidence, li.confidence)} [{n}]"])
    rows.append(["**total**", "", f"**{usd(item.monthly_usd)}**", ""])
    out = markdown.table(["item", "quantity x unit price", "monthly", "price source"], rows, right={2})
    out.append("")
    # Each source briefly (offer, SKU, date), the full texts behind a details block, so a size
    # hover fits on one screen (issue 13).
    out.extend(f"[{i}] {cell(source_brief(s))}  " for i, s in enumerate(sources, 1))
    out.append("")
    out.append("<details><summary>Price sources in full</summary>")
    out.append("")
    out.extend(f"[{i}] {cell(s)}  " for i, s in enumerate(sources, 1))
    out.append("")
    out.append("</details>")
    return out


def _size(an: "Analysis", name: str, env: str | None) -> str | None:
    plans = [p for p in _plans(an) if env is None or p.name == env]
    items = [(p, p.item(name)) for p in plans]
    items = [(p, i) for p, i in items if i is not None]
    if not items:
        if env is not None and name in an.symbols and env not in an.plans:
            return f"`{env}` is not an environment of this runway; `{name}` has no size there."
        return None
    # Environments whose item is the same (same capacity and line items) share one section.
    groups: list[tuple[list[str], ItemPlan, EnvironmentPlan]] = []
    for p, i in items:
        for g in groups:
            if g[1].capacity == i.capacity and g[1].line_items == i.line_items and g[1].size == i.size:
                g[0].append(p.name)
                break
        else:
            groups.append(([p.name], i, p))
    out: list[str] = []
    for envs, item, plan in groups:
        if out:
            out.append("")
            out.append("---")
        size = item.size or "not in the catalogue"
        out.append(f"### {name} in {', '.join(envs)}: {size}, {usd(item.monthly_usd)}/month")
        out.append("")
        out.append(f"**Capacity:** {capacity_text(item)}")
        out.append("")
        if item.line_items:
            out.extend(_line_items_table(item))
        if item.missing_prices:
            out.append("")
            out.extend(_missing_lines(an, {e: item.missing_prices for e in envs}))
        for note in item.notes:
            out.append(f"*{note}*")
    out.append("")
    out.extend(_footer(groups[0][2]))
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# Environments: total against cap
# --------------------------------------------------------------------------------------


def _environment(an: "Analysis", env: str) -> str | None:
    plan = an.plans.get(env)
    if plan is None:
        return f"### {env}\n*No estimate: fix the errors in this runway first.*" if env in an.env_keys else None
    out = [f"### {env}", ""]
    total = usd(plan.total)
    if plan.cap is None and plan.cap_source == "invalid":
        # RW100 on the cap: never the default in its place (docs/format.md "Cap maximum").
        code, why = plan.cap_error or ("RW100", f"`environments.{env}.limits.monthly` must be a number from 0 to 1,000,000,000")
        out.append(f"**{total}/month**, cap invalid ({code}): {why}.")
    elif plan.cap is None:
        out.append(f"**{total}/month**, no cap. Set `environments.{env}.limits.monthly` to cap it.")
    else:
        pct = cap_percent(plan.total, plan.cap)
        share = f", {pct}%" if pct is not None else ""
        src = " (default cap)" if plan.cap_source == "default" else ""
        out.append(f"**{total} of {usd(plan.cap)} cap{share}**{src}")
    out.append("")
    verdict = {
        "ok": "✓ within its cap: the plan may proceed.",
        "over-cap": f"✗ over its cap by {usd_over(plan.total - plan.cap) if plan.cap is not None else ''}: the plan is refused before anything is created.",
        "unpriced": f"✗ the cap cannot be checked: {', '.join(plan.missing_prices)} "
                    f"{'has' if len(plan.missing_prices) == 1 else 'have'} no {an.spec.region if an.spec else ''} price, "
                    f"so the plan is refused (run `{refresh_command(an.spec.region) if an.spec else 'runway-deploy catalog refresh'}`).",
        "no-cap": "✗ the cap is invalid: nothing is checked against it until it is fixed." if plan.cap_source == "invalid"
                  else "⚠ no cap: the plan proceeds with a warning.",
        # The verdict every view shows (runway_core/planner/verdict.py): a total that leaves
        # something out is a lower bound, which proves nothing under a cap (ninth adversary L7).
        "invalid": f"✗ not estimated: {', '.join(not_estimated(plan))}; the total is a lower bound, so nothing is proven "
                   f"against the cap: fix the errors first.",
    }.get(shown_verdict(plan), plan.verdict)
    out.append(verdict)
    out.append("")
    out.append(confidence_line(plan))
    if plan.verdict_could_flip():
        # RW172: the verdict could turn around within the stated uncertainty of its prices.
        named = ", ".join(f"`{k}` ({c} ±{pct.normalize():f}%)" for k, c, pct, _usd in plan.unchecked_prices()[:3])
        out.append("")
        out.append(f"⚠ within ±{usd(plan.uncertainty_usd())} of its derived and unverified prices, the verdict could flip: refresh {named} "
                   f"(`{refresh_command(an.spec.region) if an.spec else 'runway-deploy catalog refresh'}`).")
    if plan.verdict == "over-cap" and plan.cap is not None and an.spec is not None:
        least = smallest_total(an.spec, an.catalog, plan)
        if least > plan.cap:
            out.append(f"Even at its smallest (every item at its cheapest size, one task per workload) {env} costs {usd(least)}, "
                       f"over its cap by {usd_over(least - plan.cap)}: no resize fits; raise `limits.monthly` or remove items.")
        elif least < plan.total:
            out.append(f"At its smallest (every item at its cheapest size, one task per workload) {env} costs {usd(least)}.")
    top = [i for i in plan.top_contributors(TOP_CONTRIBUTORS) if i.monthly_usd > 0]
    if top:
        out.append("")
        rows = [[i.name + (" (implicit)" if i.implicit and i.origin == "shared" else ""), i.size or "—", usd(i.monthly_usd)] for i in top]
        out.extend(markdown.table(["top contributors", "size", "monthly"], rows, right={2}))
    missing = {env: plan.missing_prices} if plan.missing_prices else {}
    if missing:
        out.append("")
        out.extend(_missing_lines(an, missing))
    out.append("")
    out.extend(_footer(plan))
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# Key documentation
# --------------------------------------------------------------------------------------


def _resource_kind(an: "Analysis", src: "SourceFile", name: str) -> str | None:
    sym = an.symbols.get(name)
    if sym is not None and sym.kind:
        return sym.kind
    root = src.parsed.root
    res = root.get("resources") if isinstance(root, YMap) else None
    entry = res.get(name) if isinstance(res, YMap) else None
    return _scalar_text(entry.get("kind")) if isinstance(entry, YMap) else None


def _literal_values(annotation: Any) -> list[str]:
    out: list[str] = []
    stack = [annotation]
    while stack:
        a = stack.pop()
        if typing.get_origin(a) is typing.Literal:
            out.extend(str(v) for v in typing.get_args(a))
        else:
            stack.extend(typing.get_args(a))
    return out


def _allowed(an: "Analysis", model: type[BaseModel], name: str) -> str | None:
    if (model, name) == (Resource, "kind"):
        return ", ".join(f"`{k}`" for k in RESOURCE_KINDS) + f" (reserved, refused: {', '.join(RESERVED_KINDS)})"
    if name == "size" and model in (Resource, Workload):
        return ", ".join(f"`{s}`" for s in SIZES)
    if (model, name) == (Workload, "expose"):
        return ", ".join(f"`{v}`" for v in EXPOSE_VALUES)
    if (model, name) == (Workload, "reason"):
        return "a text naming one of " + ", ".join(f"`{g}`" for g in REASON_GROUNDS)
    if (model, name) == (MemberRunway, "requires"):
        return ", ".join(f"`{k}`" for k in RESOURCE_KINDS)
    if (model, name) == (RootRunway, "region"):
        regions = sorted(an.catalog.regions)
        return ", ".join(f"`{r}`" for r in regions) + " (regions the catalogue prices)" if regions else None
    field = model.model_fields.get(name)
    if field is None:
        return None
    lits = _literal_values(field.annotation)
    if lits:
        return ", ".join(f"`{v}`" for v in lits)
    if field.annotation is bool:
        return "`true`, `false`"
    return None


def _key_doc(an: "Analysis", src: "SourceFile", chain: list, pos: Position, on_key: bool) -> tuple[str, Range] | None:
    """Documentation of the key at (or, for a value, owning) the cursor."""
    member = src.role == "member"
    # The innermost mapping key in the chain: the hovered key, or the key owning the value.
    idx = len(chain) - 1
    while idx >= 0 and chain[idx][2] is None:
        idx -= 1
    if idx < 0:
        return None
    key_name = str(chain[idx][0])
    key_node = chain[idx][2]
    parent = tuple(str(p) for p, _n, _k in chain[:idx])
    if any(isinstance(p, int) for p, _n, _k in chain[:idx]):
        return None
    kind = _resource_kind(an, src, parent[1]) if len(parent) == 3 and parent[0] == "resources" else None
    model = model_for(parent, member, kind)
    extra = ""
    if model is None:
        if not member and len(parent) == 3 and parent[0] == "environments" and parent[2] == "shared":
            return (
                f"**shared.{key_name}**: size of the implicit `shared-{key_name}` pool in `{parent[1]}`: "
                + ", ".join(f"`{s}`" for s in SIZES),
                key_node.range if on_key else chain[-1][1].range,
            )
        return None
    doc = field_doc(model, key_name)
    if doc is None:
        return None
    allowed = _allowed(an, model, key_name)
    if allowed:
        extra = f"\n\nAllowed: {allowed}"
    where = ".".join(parent + (key_name,))
    rng = key_node.range if on_key else chain[-1][1].range
    return f"**{where}**\n\n{doc}{extra}", rng


__all__ = ["HoverResult", "hover_at", "CONFIDENCE_WORDS", "TOP_CONTRIBUTORS"]
