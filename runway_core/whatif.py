"""What-if pricing: the plans and costs a runway would have with entries resized or scaled.

The editor's choices are priced here, never by the editor queries themselves: completion's
size candidates (:func:`resized`), quick fixes' titles and the "fit under the cap" search
(:class:`Choices`, :func:`fit_under_cap`), the over-cap hover's lowest reachable total
(:func:`smallest_total`). An entry's cost does not depend on the other entries
(:func:`runway_core.planner.entry_cost`), so each choice is priced alone and only a winner
is re-planned. Pure; money is ``Decimal`` USD per month.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping, Sequence

from .catalog import Catalog
from .money import cents
from .planner import EntrySpec, EnvironmentPlan, RunwaySpec, entry_cost, plan_environment

#: How many items the "fit under the cap" search considers for sets of two or more changes:
#: those that can save the most (a single change is searched over every item). Exact over
#: them (branch and bound), a few milliseconds.
FIT_CANDIDATES = 8


def resized(spec: RunwaySpec, entry: EntrySpec, size: str, env: str | None = None) -> RunwaySpec:
    """``spec`` with ``entry`` sized ``size`` in environment ``env`` (in every environment when
    ``env`` is None: ``size: medium``). ``entry`` is added when ``spec`` lacks it (an entry
    still being written). Pure; plan the result with :func:`planner.plan_environment`."""
    new = resized_entry(entry, size, env)
    return dataclasses.replace(spec, entries={**spec.entries, entry.name: new})


def resized_entry(entry: EntrySpec, size: str, env: str | None) -> EntrySpec:
    """``entry`` sized ``size`` in ``env`` (in every environment when ``env`` is None)."""
    if env is None:
        return dataclasses.replace(entry, sizes={}, default_size=size)
    return dataclasses.replace(entry, sizes={**entry.sizes, env: size})


def resized_plan(spec: RunwaySpec, catalog: Catalog, env: str, sizes: Mapping[str, str], scales: Mapping[str, int] | None = None,
                 previous: EnvironmentPlan | None = None) -> EnvironmentPlan:
    """The plan of ``env`` with entries resized (and workloads scaled) there.

    ``sizes`` maps an entry name of ``spec.entries`` (declared or implicit) to its new size in
    ``env``, ``scales`` a workload's name to its new task count there; other entries and
    other environments are unchanged. Pure: returns a new :class:`EnvironmentPlan` (USD per
    month, like every plan). Raises KeyError for a name that is not an entry. ``previous``,
    the plan of ``env`` computed from ``spec`` with ``catalog``, lends its unchanged items.
    """
    entries = dict(spec.entries)
    for name, size in sizes.items():
        e = entries[name]
        entries[name] = dataclasses.replace(e, sizes={**e.sizes, env: size})
    for name, count in (scales or {}).items():
        e = entries[name]
        entries[name] = dataclasses.replace(e, scales={**e.scales, env: count})
    return plan_environment(dataclasses.replace(spec, entries=entries), catalog, env, (spec, previous) if previous is not None else None)


@dataclass(frozen=True)
class Downsize:
    """One cheaper choice for one item in one environment: a catalogue ``size`` and, for a
    workload, a task count (``scale``; None when unchanged); ``monthly_usd`` is the item's
    cost with it and ``saves`` how much the environment's total drops (the item's saving,
    plus the Cloud Map registrations an internal workload no longer runs)."""

    name: str
    size: str
    monthly_usd: Decimal
    scale: int | None = None
    saves: Decimal = Decimal("0.00")


def fewer_tasks(scale: int) -> list[int]:
    """The task counts below ``scale`` the over-cap search considers, most first: every one
    up to 6 tasks, else a bounded spread (``scale - 1`` ... 1)."""
    if scale <= 1:
        return []
    if scale <= 6:
        return list(range(scale - 1, 0, -1))
    return sorted({scale - 1, scale - 2, (3 * scale) // 4, scale // 2, scale // 4, 2, 1} - {0}, reverse=True)


class Choices:
    """The cheaper choices of the items of one environment's plan, each priced on its own
    (:func:`runway_core.planner.entry_cost`: an entry's cost does not depend on the other
    entries), never by re-planning the environment per candidate."""

    def __init__(self, spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan) -> None:
        self.spec, self.catalog, self.plan = spec, catalog, plan
        self.items = {i.name: i for i in plan.items}
        self._memo: dict[tuple[str, bool, bool], list[Downsize]] = {}
        # Cloud Map bills each registered internal task: scaling one down saves that too.
        self.unit: Decimal | None = None
        self.tasks = Decimal(0)
        sd = self.items.get("service-discovery")
        for li in sd.line_items if sd is not None and sd.origin == "environment" else ():
            if li.price_key == "cloudmap:instance":
                self.unit, self.tasks = li.unit_usd, li.quantity

    def _discovery(self, entry: EntrySpec, count: int | None) -> Decimal:
        if count is None or entry.kind != "workload" or entry.expose == "public" or self.unit is None:
            return Decimal("0.00")
        fewer = entry.scale_in(self.plan.name) - count
        return cents(self.tasks * self.unit) - cents(max(self.tasks - fewer, Decimal(0)) * self.unit)

    def of(self, name: str, sizes: bool = True, scales: bool = True) -> list[Downsize]:
        """Every cheaper (size, task count) of item ``name``: other sizes at the current
        task count (``scale`` None) when ``sizes``, and fewer tasks (:func:`fewer_tasks`) at
        each size that costs no more when ``scales``. Empty for an item that is not an
        entry (``alb``) or has no estimate."""
        key = (name, sizes, scales)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        out: list[Downsize] = []
        item, entry = self.items.get(name), self.spec.entries.get(name)
        if item is not None and entry is not None and item.size is not None:
            try:
                catalogue = self.catalog.sizes(entry.kind)
            except (ValueError, KeyError):
                catalogue = ()
            env = self.plan.name
            counts = fewer_tasks(entry.scale_in(env)) if scales and entry.kind == "workload" else []
            for size in catalogue:
                cost = item.monthly_usd if size == item.size else entry_cost(self.spec, self.catalog, env, name, size)
                if sizes and size != item.size and cost < item.monthly_usd:
                    out.append(Downsize(name, size, cost, None, item.monthly_usd - cost))
                if cost <= item.monthly_usd and (sizes or size == item.size):
                    for n in counts:
                        c = entry_cost(self.spec, self.catalog, env, name, size, n)
                        saves = item.monthly_usd - c + self._discovery(entry, n)
                        if saves > 0:
                            out.append(Downsize(name, size, c, n, saves))
        out.sort(key=lambda d: (d.scale is not None, -d.monthly_usd, -(d.scale or 0)))
        self._memo[key] = out
        return out

    def restrict(self, name: str, sizes: bool, scales: bool) -> None:
        """From now on, :meth:`of` ``name`` (both kinds of change) offers only cheaper sizes
        (when ``sizes``) and fewer tasks (when ``scales``): what can be edited in place."""
        self._memo[(name, True, True)] = self.of(name, sizes=sizes, scales=scales)


def cheaper_sizes(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan, name: str) -> list[Downsize]:
    """Every catalogue size of item ``name`` that costs less in ``plan``'s environment than
    its current size (task count unchanged), most expensive first (the smallest change
    first). Empty for items that are not entries (``alb``, ``service-discovery``) or have
    no estimate. Each is priced alone, without re-planning the environment."""
    return Choices(spec, catalog, plan).of(name, scales=False)


#: Most search steps of the "fit under the cap" search (a bound, never reached in practice:
#: the branch-and-bound search over :data:`FIT_CANDIDATES` items visits a few hundred).
FIT_STEPS = 200_000


def fit_under_cap(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan, names: Sequence[str], *, scales: bool = True, _choices: "Choices | None" = None) -> tuple[dict[str, Downsize], EnvironmentPlan] | None:
    """The smallest set of changes among items ``names`` (pass them costliest first) that
    brings ``plan`` within its cap: cheaper sizes and, with ``scales``, fewer tasks.

    Fewest items changed first; among those, the least money saved (the most capacity kept,
    a total closest under the cap); then name order. One change is searched over every item
    of ``names``; two and more, exactly over the :data:`FIT_CANDIDATES` items that can save
    the most. Item costs are independent of each other, so each choice is priced alone
    (:func:`runway_core.planner.entry_cost`) and only the winner is re-planned to confirm.
    Returns ({name: Downsize}, the new plan) in ``names`` order, or None when no set fits
    (or there is no cap, or the plan is within it).
    """
    cap = plan.cap
    if cap is None or plan.total <= cap:
        return None
    ch = _choices or Choices(spec, catalog, plan)
    need = plan.total - cap
    opts = {n: ch.of(n, scales=scales) for n in dict.fromkeys(names)}
    opts = {n: sorted(o, key=lambda d: d.saves) for n, o in opts.items() if o}

    def tag(d: Downsize) -> str:
        return f"{d.name}\0{d.size}\0{d.scale if d.scale is not None else ''}"

    best: tuple[Decimal, tuple[str, ...]] | None = None
    chosen: list[Downsize] | None = None
    for ds in opts.values():  # one change: every item
        d = next((d for d in ds if d.saves >= need), None)
        if d is not None and (best is None or (d.saves, (tag(d),)) < best):
            best, chosen = (d.saves, (tag(d),)), [d]
    if chosen is None:
        ranked = sorted(opts, key=lambda n: -opts[n][-1].saves)[:FIT_CANDIDATES]
        most = [opts[n][-1].saves for n in ranked]
        steps = 0

        def search(i: int, left: int, saved: Decimal, picked: list[Downsize]) -> None:
            nonlocal best, chosen, steps
            steps += 1
            if steps > FIT_STEPS:
                return
            if left == 0:
                key = (saved, tuple(tag(d) for d in picked))
                if saved >= need and (best is None or key < best):
                    best, chosen = key, list(picked)
                return
            if len(ranked) - i < left or saved + sum(most[i : i + left]) < need:
                return  # too few items left, or even their largest savings fall short
            if best is not None and saved >= best[0]:
                return  # savings only grow from here
            for d in opts[ranked[i]]:
                picked.append(d)
                search(i + 1, left - 1, saved + d.saves, picked)
                picked.pop()
            search(i + 1, left, saved, picked)

        for k in range(2, len(ranked) + 1):
            search(0, k, Decimal(0), [])
            if chosen is not None:
                break
    if chosen is None:
        return None
    order = {n: i for i, n in enumerate(names)}
    choice = {d.name: d for d in sorted(chosen, key=lambda d: order.get(d.name, len(order)))}
    sizes = {n: d.size for n, d in choice.items() if ch.items[n].size != d.size}
    counts = {n: d.scale for n, d in choice.items() if d.scale is not None}
    new = resized_plan(spec, catalog, plan.name, sizes, counts)
    return (choice, new) if new.total <= cap else None


def smallest_total(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan) -> Decimal:
    """The lowest total ``plan``'s environment can reach by resizing every entry to its
    cheapest size and running each workload as one task (USD per month; the per-environment
    items stay). What an over-cap hover says when no set of changes fits the cap."""
    ch = Choices(spec, catalog, plan)
    saved = Decimal(0)
    for name in spec.entries:
        ds = ch.of(name, scales=True)
        if ds:
            saved += max(d.saves for d in ds)
    return plan.total - saved


__all__ = [
    "FIT_CANDIDATES",
    "FIT_STEPS",
    "Downsize",
    "Choices",
    "resized",
    "resized_entry",
    "resized_plan",
    "fewer_tasks",
    "cheaper_sizes",
    "fit_under_cap",
    "smallest_total",
]
