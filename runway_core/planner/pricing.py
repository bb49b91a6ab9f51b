"""Pricing one entry in one environment: its concrete capacity from the catalogue's sizes
and its line items from the catalogue's unit prices (docs/catalog.md: 730 hours a month,
each line rounded half up to cents, a price missing for the region reported and never
replaced by another region's).

Line items are memoised per (catalogue, region, quantities), and an entry's pricing per
spec (issue 6: an editor re-plans after every keystroke); :func:`runway_core.planner.plan.clear_memos`
forgets both.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any, Iterable, Mapping

from .. import kinds
from ..catalog import Catalog
from ..money import cents
from ..usage import CATALOGUE_ASSUMPTION, NETWORK, RUNWAY_SIZE, UsageValue
from .items import LineItem
from .spec import EntrySpec, RunwaySpec

#: One line to price: (price key, description, quantity, where the quantity came from).
Spec = tuple[str, str, Decimal, str]


class _Pricer:
    def __init__(self, catalog: Catalog, region: str) -> None:
        self.catalog = catalog
        self.region = region
        self.hours = catalog.hours_per_month
        self.missing: list[str] = []

    def line(self, key: str, description: str, quantity: Decimal, quantity_source: str = RUNWAY_SIZE) -> LineItem | None:
        price = self.catalog.price(key, self.region)
        if price is None:
            if key not in self.missing:
                self.missing.append(key)
            return None
        return LineItem(description, quantity, price.unit, price.usd, cents(quantity * price.usd), price.source, price.confidence, key, quantity_source,
                        price.stated_uncertainty)


#: Line items priced per (catalogue, region, quantities): entries of one kind and size in one
#: environment have the same line items, so most items of a plan reuse them (issue 6).
#: ``id(catalog) -> (catalog, {(region, specs): (line items, missing keys)})``; holding the
#: catalogue keeps its id from being reused while its prices are remembered.
_LINE_MEMO: dict[int, tuple[Catalog, dict[tuple, tuple[tuple[LineItem, ...], tuple[str, ...]]]]] = {}
_LINE_MEMO_MAX = 4096


def _collect(pricer: _Pricer, specs: Iterable[tuple[str, str, Decimal] | Spec]) -> tuple[tuple[LineItem, ...], tuple[str, ...]]:
    """The line items of ``specs`` and the keys without a price (``pricer.missing`` grows as
    if each were priced here), LineItems are immutable: equal specs share them."""
    specs = tuple(specs)
    entry = _LINE_MEMO.get(id(pricer.catalog))
    if entry is None or entry[0] is not pricer.catalog:
        if len(_LINE_MEMO) >= 4:
            _LINE_MEMO.clear()
        entry = _LINE_MEMO[id(pricer.catalog)] = (pricer.catalog, {})
    memo = entry[1]
    key = (pricer.region, specs)
    hit = memo.get(key)
    if hit is None:
        hit = _price_specs(pricer, specs)
        if len(memo) >= _LINE_MEMO_MAX:
            memo.clear()
        memo[key] = hit
    else:
        for k in hit[1]:
            if k not in pricer.missing:
                pricer.missing.append(k)
    return hit


def _price_specs(pricer: _Pricer, specs: Iterable[tuple[str, str, Decimal] | Spec]) -> tuple[tuple[LineItem, ...], tuple[str, ...]]:
    items = []
    missing = []
    for key, desc, qty, *src in specs:
        li = pricer.line(key, desc, qty, *src)
        if li is None:
            missing.append(key)
        else:
            items.append(li)
    return tuple(items), tuple(missing)


def _entry_specs(entry: EntrySpec, env: str, catalog: Catalog, pricer: _Pricer, usage: Mapping[str, UsageValue] | None = None) -> tuple[str | None, dict, list]:
    """``(size, plan capacity, line specs)`` of ``entry`` in ``env``, by its kind's declaration
    (:attr:`runway_core.kinds.Kind.quantities`); ``(None, {}, [])`` when it is not estimated:
    a size the catalogue lacks (RW130), or a kind without a size table or quantities
    (:func:`estimable` is False: RW122). ``usage`` is the usage file's quantities for it
    (:meth:`RunwaySpec.usage_of`), in place of the catalogue's assumptions."""
    size = entry.size_in(env)
    kind = kinds.get(entry.kind)
    if kind is None or not kind.estimated:
        return None, {}, []
    cap = catalog.capacity(kind.name, size, kind.flavor_of(entry.engine))
    if cap is None:
        return None, {}, []
    tasks = Decimal(entry.scale_in(env)) if not kind.resource else Decimal(1)
    capacity, specs = kind.quantities(kinds.Sizing(cap, entry.engine, pricer.hours, catalog.environment, tasks, entry,
                                                              usage or {}, CATALOGUE_ASSUMPTION))
    return size, capacity, specs


def estimable(kind: str) -> bool:
    """Whether the planner can price an entry of ``kind``: it is declared with a size table
    (which the catalogue then must have) and its quantities (docs/format.md, "Plan": otherwise not estimated)."""
    k = kinds.get(kind)
    return k is not None and k.estimated


#: (spec, catalog, {(entry name, size, tasks): (size, capacity, line items, missing keys)}):
#: an entry at the same size and task count costs the same in every environment of one spec,
#: so a spec's environments price it once (issue 6: 7 environments, 215 entries). An immutable
#: tuple, read once and replaced whole: the server's event loop and its analysis thread both
#: plan (docs/architecture.md, "Threads of the server"), and a planner that checked the spec
#: and then read the memo in two steps could price one spec from another's entries.
_LAST_PRICED: tuple[Any, Any, dict] = (None, None, {})


def _priced_entry(spec: RunwaySpec, entry: EntrySpec, env: str, catalog: Catalog, pricer: _Pricer) -> tuple[str | None, dict, tuple[LineItem, ...], tuple[str, ...]]:
    """``_entry_specs`` then ``_collect`` for ``entry`` in ``env``, shared across the
    environments of ``spec`` (the result holds no environment name; the capacity dict is
    copied, so no two items share one)."""
    global _LAST_PRICED
    last = _LAST_PRICED  # one read: another thread may swap the tuple meanwhile
    if last[0] is not spec or last[1] is not catalog:
        last = _LAST_PRICED = (spec, catalog, {})
    memo = last[2]
    usage = spec.usage_of(env, entry.name)
    key = (entry.name, entry.size_in(env), entry.scale_in(env) if entry.kind == "workload" else None, tuple(sorted(usage.items())))
    hit = memo.get(key)
    if hit is None:
        size, capacity, specs = _entry_specs(entry, env, catalog, pricer, usage)
        lines, missing = _collect(pricer, specs)
        hit = memo[key] = (size, capacity, lines, missing)
    else:
        for k in hit[3]:
            if k not in pricer.missing:
                pricer.missing.append(k)
    return hit[0], dict(hit[1]), hit[2], hit[3]


def entry_cost(spec: RunwaySpec, catalog: Catalog, env: str, name: str, size: str | None = None, scale: int | None = None) -> Decimal:
    """The monthly USD of entry ``name`` alone in ``env``, at ``size`` and ``scale`` tasks
    (default: as ``spec`` has them): the ``monthly_usd`` its item would have in
    :func:`plan_environment`, priced the same way, without planning the environment.

    An entry's cost does not depend on the other entries; only the per-environment items
    (``alb``, ``service-discovery``) depend on the workloads' ``expose`` and task counts.
    A size the catalogue lacks costs 0 (not estimated). Raises KeyError for an unknown name.
    """
    entry = spec.entries[name]
    if size is not None or scale is not None:
        entry = dataclasses.replace(
            entry,
            sizes={**entry.sizes, env: size} if size is not None else entry.sizes,
            scales={**entry.scales, env: scale} if scale is not None else entry.scales,
        )
    pricer = _Pricer(catalog, spec.region)
    _size, _capacity, specs = _entry_specs(entry, env, catalog, pricer, spec.usage_of(env, name))
    lines, _missing = _collect(pricer, specs)
    return sum((li.monthly_usd for li in lines), Decimal("0.00"))
