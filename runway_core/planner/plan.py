"""One environment's plan: every entry priced (declared, implicit ``shared-<kind>``), the
per-environment items (the ALB, the Cloud Map namespace), the total, the cap and the verdict
(docs/format.md, "Plan (data, runs nothing)"). Pure; raises nothing for valid specs.

Pricing goes through the :mod:`~runway_core.planner.pricing` module's attributes (not
names copied here), so that the benchmarks can undo one memo at a time.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable

from .. import kinds
from ..catalog import Catalog
from ..model import DEFAULT_CAPS
from ..text import redact
from . import pricing
from .items import EnvironmentPlan, ItemPlan, Plan
from .verdict import cap_verdict
from .spec import EntrySpec, EnvSpec, RunwaySpec, injected_variables
from ..usage import CATALOGUE_ASSUMPTION, NETWORK

#: The plan's note on the network, without and with a usage file's network quantities.
NETWORK_NOTE = "network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated"
NETWORK_NOTE_USAGE = "network: only the NAT data processed and data transfer out the usage file gives are estimated (VPC, NAT gateway hours, endpoints are not)"

#: (spec, its consumers): the spec's environments share it. An immutable pair read once and
#: replaced whole, as ``pricing._LAST_PRICED`` (the loop and the analysis thread both plan).
_LAST_CONSUMERS: tuple[Any, Any] = (None, None)


def _consumers(spec: RunwaySpec) -> dict[str, list[str]]:
    global _LAST_CONSUMERS
    last = _LAST_CONSUMERS  # one read: another thread may swap the pair meanwhile
    if last[0] is spec:
        return last[1]
    out = _consumers_of(spec)
    _LAST_CONSUMERS = (spec, out)
    return out


def _consumers_of(spec: RunwaySpec) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {n: [] for n in spec.entries}
    for c in spec.consumers:
        for u in c.uses:
            if u in out and c.name not in out[u]:
                out[u].append(c.name)
    return out


def plan_environment(spec: RunwaySpec, catalog: Catalog, env: str, previous: tuple[RunwaySpec, EnvironmentPlan] | None = None) -> EnvironmentPlan:
    """Plan one environment of ``spec``. Pure; raises nothing for valid specs.

    Returns an :class:`EnvironmentPlan` whose items are the entries in declaration order
    (implicit ``shared-<kind>`` after declared resources, workloads next), then the
    per-environment items ``alb`` and ``service-discovery`` when needed. Figures: USD per
    month from ``catalog`` unit prices (sources in catalog/prices.csv), 730 h a month.

    ``previous`` (the spec and this environment's plan of an earlier run with the same
    ``catalog``) lets an item be reused when its entry and consumers are equal to what they
    were: the result is the same, computed only for what changed (issue 6: an editor re-plans
    after every keystroke).
    """
    envspec = spec.env(env) or EnvSpec(env, DEFAULT_CAPS.get(env), "default" if env in DEFAULT_CAPS else "none")
    pricer = pricing._Pricer(catalog, spec.region)
    consumers = _consumers(spec)
    reuse = _reusable(spec, env, previous)
    items: list[ItemPlan] = []
    internal_tasks = 0
    any_internal = False
    any_public = False
    for entry in spec.entries.values():
        old = reuse.get(entry.name) if reuse else None
        if (old is not None and old[1].kind == entry.kind and (old[0] is entry or old[0] == entry) and old[1].consumers == tuple(consumers.get(entry.name, ()))
                and previous is not None and previous[0].usage_of(env, entry.name) == spec.usage_of(env, entry.name)):
            item = old[1]
            for key in item.missing_prices:
                if key not in pricer.missing:
                    pricer.missing.append(key)
            if entry.kind == "workload":
                if entry.expose == "public":
                    any_public = True
                else:
                    any_internal = True
                    internal_tasks += entry.scale_in(env)
            items.append(item)
            continue
        size, capacity, lines, missing = pricing._priced_entry(spec, entry, env, catalog, pricer)
        notes: list[str] = []
        estimated = pricing.estimable(entry.kind)
        if not estimated:
            # A kind the registry declares without a size table or quantities: never $0 "ok"
            # (fail closed: RW122, and a capped environment's plan is refused).
            notes.append(f"not estimated: kind {entry.kind!r} has no price (no size table or quantities in runway_core/kinds.py)")
        elif size is None:
            notes.append(redact(f"size {entry.size_in(env)!r} is not in the catalogue; not estimated"))
        variables = injected_variables(entry.name, entry.kind)
        if entry.kind == "workload":
            tasks = entry.scale_in(env)
            if entry.expose == "public":
                any_public = True
            else:
                any_internal = True
                internal_tasks += tasks
        items.append(
            ItemPlan(
                name=entry.name,
                kind=entry.kind,
                size=size,
                implicit=entry.implicit,
                origin=entry.origin,
                capacity=capacity,
                line_items=lines,
                monthly_usd=sum((li.monthly_usd for li in lines), Decimal("0.00")),
                consumers=tuple(consumers.get(entry.name, ())),
                variables=variables,
                infisical_path=kinds.infisical_path(env, entry.name),
                ssm_parameters={v: kinds.ssm_parameter(spec.product, env, entry.name, v) for v in variables},
                missing_prices=missing,
                notes=tuple(notes),
                estimated=estimated,
            )
        )
    h = pricer.hours
    envd = catalog.environment
    if any_public:
        lcu = envd.get("alb_lcu", Decimal(1))
        ips = envd.get("alb_public_ipv4", Decimal(2))
        lines, missing = pricing._collect(
            pricer,
            [
                ("alb:hour", f"Application Load Balancer, {h} h", h),
                ("alb:lcu", f"ALB capacity units, assumed {lcu} LCU x {h} h", lcu * h, CATALOGUE_ASSUMPTION),
                ("vpc:public-ipv4", f"{ips} public IPv4 addresses x {h} h", ips * h),
            ],
        )
        publics = tuple(e.name for e in spec.entries.values() if e.kind == "workload" and e.expose == "public")
        items.append(
            ItemPlan("alb", "load-balancer", None, True, "environment", {"type": "application", "scheme": "internet-facing", "listener_port": 80, "lcu_assumed": lcu, "public_ipv4": int(ips)},
                     lines, sum((li.monthly_usd for li in lines), Decimal("0.00")), consumers=publics, missing_prices=missing,
                     notes=("one ALB per environment when any workload is public",))
        )
    if any_internal:
        lines, missing = pricing._collect(
            pricer,
            [
                ("route53:private-zone", "Route 53 private hosted zone of the Cloud Map namespace", Decimal(1)),
                ("cloudmap:instance", f"Cloud Map registered instances ({internal_tasks} internal task(s))", Decimal(internal_tasks)),
            ],
        )
        internals = tuple(e.name for e in spec.entries.values() if e.kind == "workload" and e.expose != "public")
        items.append(
            ItemPlan("service-discovery", "service-discovery", None, True, "environment",
                     {"namespace": f"{env}.{spec.product}.internal", "type": "private-dns", "registered_instances": internal_tasks},
                     lines, sum((li.monthly_usd for li in lines), Decimal("0.00")), consumers=internals, missing_prices=missing,
                     notes=("one Cloud Map private DNS namespace per environment when any workload is internal",))
        )
    network = spec.usage_of(env, NETWORK)
    if network:
        # Only what the usage file states: the network itself (VPC, NAT gateway hours,
        # endpoints) stays outside the runway (docs/catalog.md).
        specs = []
        if "nat_processed_gb" in network:
            v = network["nat_processed_gb"]
            specs.append(("nat:gb", f"NAT gateway data processed, {v.quantity} GB", v.quantity, v.source))
        if "data_transfer_out_gb" in network:
            v = network["data_transfer_out_gb"]
            specs.append(("transfer:internet-out", f"Data transfer out to the internet, {v.quantity} GB", v.quantity, v.source))
        lines, missing = pricing._collect(pricer, specs)
        items.append(
            ItemPlan("network", "network", None, True, "environment", {k: v.quantity for k, v in network.items()},
                     lines, sum((li.monthly_usd for li in lines), Decimal("0.00")), missing_prices=missing,
                     notes=("the network's usage from the usage file; the VPC, NAT gateway hours and endpoints are not estimated",))
        )
    total = sum((i.monthly_usd for i in items), Decimal("0.00"))
    # A capped environment whose estimate misses a price, or an item of a kind that has no
    # price at all, cannot be shown to be under its cap: refused, never "ok" on a lower bound
    # (fail closed, ADR 0493 §3; issues 13 and 21). The one rule: planner/verdict.py.
    verdict = cap_verdict(envspec.cap, total, bool(pricer.missing), items)
    return EnvironmentPlan(
        name=env,
        cap=envspec.cap,
        cap_source=envspec.cap_source,
        cap_error=envspec.cap_error,
        items=tuple(items),
        total=total,
        verdict=verdict,
        missing_prices=tuple(pricer.missing),
        notes=(NETWORK_NOTE_USAGE if network else NETWORK_NOTE, "free tiers are ignored: estimates are conservative"),
        disposable=envspec.is_disposable,
        unpriced=spec.unpriced,
    )


def clear_memos() -> None:
    """Forget the memoised line items and variable names (benchmarks measure a cold start)."""
    pricing._LINE_MEMO.clear()
    injected_variables.cache_clear()
    global _LAST_CONSUMERS
    _LAST_CONSUMERS = (None, None)
    pricing._LAST_PRICED = (None, None, {})


def _reusable(spec: RunwaySpec, env: str, previous: tuple[RunwaySpec, EnvironmentPlan] | None) -> dict[str, tuple[EntrySpec, ItemPlan]]:
    """name -> (entry, item) of a previous plan of ``env`` whose items may be reused: same
    product and region (they are in every item); environment-level items are never reused."""
    if previous is None:
        return {}
    old_spec, old_plan = previous
    if old_plan.name != env or old_spec.product != spec.product or old_spec.region != spec.region:
        return {}
    entries = old_spec.entries
    out = {}
    for item in old_plan.items:
        if item.origin != "environment" and (e := entries.get(item.name)) is not None:
            out[item.name] = (e, item)
    return out


def plan_all(spec: RunwaySpec, catalog: Catalog, envs: Iterable[str] | None = None) -> Plan:
    """Plan every environment of ``spec`` (or only ``envs``, in the given order)."""
    names = list(envs) if envs is not None else [e.name for e in spec.environments]
    return Plan(spec.product, spec.region, tuple(plan_environment(spec, catalog, n) for n in names), catalog.origin)
