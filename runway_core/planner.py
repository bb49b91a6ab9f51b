"""The planner: one pure function from (runway, catalogue, environment) to a plan.

RUNWAY_FORMAT.md, "Plan (data, runs nothing)": per environment, every resource and workload
(declared or implicit) with kind, size, concrete capacity, monthly estimate with line items,
consumers and the variable names they receive; the total, the cap and the verdict. The same
plan feeds the editor, the CLI and the Pulumi program: there is one planner.

Money is ``decimal.Decimal`` in USD. Each line item is unit price x quantity (730 hours a
month, CATALOG.md), rounded half-up to cents; item and environment totals are sums of the
rounded line items, so every printed table adds up to the cent. Free tiers are ignored
(estimates are conservative). A unit price missing for the region is reported in
``missing_prices`` and never replaced by another region's price.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any, Iterable, Mapping

from .catalog import Catalog
from .model import DEFAULT_CAPS, DEFAULT_ENVIRONMENTS, ENGINE_MODELS, RESOURCE_KINDS

FORMAT_VERSION = 1
CENT = Decimal("0.01")

#: Injected variable suffixes per kind (RUNWAY_FORMAT.md, "Uses and injected variables").
VARIABLES: dict[str, tuple[str, ...]] = {
    "postgres": ("URL", "HOST", "PORT", "USER", "PASSWORD", "DATABASE"),
    "queue": ("URL", "ARN"),
    "topic": ("ARN",),
    "cache": ("URL", "HOST", "PORT"),
    "bucket": ("NAME", "ARN"),
    "workload": ("URL",),
}

#: Fargate task sizes in ECS units (cpu units, MiB) by vCPU/GB, for the task definition.
_FARGATE_UNITS = {Decimal("0.25"): 256, Decimal("0.5"): 512, Decimal("1"): 1024, Decimal("2"): 2048, Decimal("4"): 4096, Decimal("8"): 8192, Decimal("16"): 16384}


def env_prefix(name: str) -> str:
    """``main-db`` -> ``MAIN_DB`` (RUNWAY_FORMAT.md: names turn into env-var prefixes)."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


@lru_cache(maxsize=16384)  # pure; asked for every item of every environment (issue 6)
def injected_variables(name: str, kind: str) -> tuple[str, ...]:
    """Variable names a consumer of resource/workload ``name`` of ``kind`` receives."""
    prefix = env_prefix(name)
    return tuple(f"{prefix}_{s}" for s in VARIABLES.get(kind, ()))


def cents(x: Decimal) -> Decimal:
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


def cap_percent(total: Decimal, cap: Decimal | None) -> int | None:
    """``total`` as a whole percentage of ``cap``, rounded half up (the one rule every face
    uses: CLI, hover, code lens); None without a positive cap."""
    if cap is None or cap <= 0:
        return None
    return int((total * 100 / cap).quantize(Decimal(1), rounding=ROUND_HALF_UP))


# --------------------------------------------------------------------------------------
# Normalised input
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvSpec:
    """One environment: cap in USD per month (None = no cap) and shared pool sizes."""

    name: str
    cap: Decimal | None
    cap_source: str  # "set" | "default" | "none"
    shared: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EntrySpec:
    """A resource or workload after normalisation.

    ``kind`` is a resource kind or ``"workload"``; ``sizes`` maps env -> size (missing env =
    small); ``scales`` env -> task count (workloads; missing = 1); ``engine`` the validated
    engine options as a dict (defaults filled in); ``implicit`` marks ``shared-<kind>``.
    """

    name: str
    kind: str
    sizes: Mapping[str, str]
    default_size: str = "small"
    scales: Mapping[str, int] = field(default_factory=dict)
    default_scale: int = 1
    engine: Mapping[str, Any] = field(default_factory=dict)
    implicit: bool = False
    origin: str = "declared"
    # workload only
    image: str | None = None
    port: int | None = None
    health: Mapping[str, Any] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    expose: str = "internal"

    def size_in(self, env: str) -> str:
        return self.sizes.get(env, self.default_size)

    def scale_in(self, env: str) -> int:
        return self.scales.get(env, self.default_scale)


@dataclass(frozen=True)
class ConsumerSpec:
    """A member or workload that uses entries (``type`` is "member" or "workload")."""

    name: str
    type: str
    uses: tuple[str, ...]


@dataclass(frozen=True)
class RunwaySpec:
    """Everything the planner needs, already validated (see :func:`analysis.analyze`)."""

    product: str
    region: str
    environments: tuple[EnvSpec, ...]
    entries: Mapping[str, EntrySpec]
    consumers: tuple[ConsumerSpec, ...]

    def env(self, name: str) -> EnvSpec | None:
        for e in self.environments:
            if e.name == name:
                return e
        return None


def default_environments() -> tuple[EnvSpec, ...]:
    return tuple(
        EnvSpec(n, DEFAULT_CAPS.get(n), "default" if n in DEFAULT_CAPS else "none") for n in DEFAULT_ENVIRONMENTS
    )


def engine_defaults(kind: str, engine: Mapping[str, Any] | None) -> dict[str, Any]:
    """Engine options with defaults; invalid options fall back to defaults (rules report them)."""
    model = ENGINE_MODELS.get(kind)
    if model is None:
        return dict(engine or {})
    try:
        return model.model_validate(engine or {}).model_dump()
    except Exception:  # noqa: BLE001 - shape errors are diagnostics elsewhere; plan with defaults
        return model.model_validate({}).model_dump()


# --------------------------------------------------------------------------------------
# Plan output
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineItem:
    """One priced quantity: ``monthly_usd = cents(quantity x unit_usd)``."""

    description: str
    quantity: Decimal
    unit: str
    unit_usd: Decimal
    monthly_usd: Decimal
    source: str
    confidence: str
    price_key: str


@dataclass(frozen=True)
class ItemPlan:
    """One resource, workload or per-environment item in one environment.

    ``monthly_usd`` is USD per month (sum of the line items). ``missing_prices`` names the
    price keys the catalogue lacks for the region (the estimate is then a lower bound).
    """

    name: str
    kind: str
    size: str | None
    implicit: bool
    origin: str
    capacity: Mapping[str, Any]
    line_items: tuple[LineItem, ...]
    monthly_usd: Decimal
    consumers: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()
    infisical_path: str | None = None
    ssm_parameters: Mapping[str, str] = field(default_factory=dict)
    missing_prices: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvironmentPlan:
    """One environment's plan; ``verdict`` is ``ok``, ``over-cap`` (refused) or ``no-cap`` (warn)."""

    name: str
    cap: Decimal | None
    cap_source: str
    items: tuple[ItemPlan, ...]
    total: Decimal
    verdict: str
    missing_prices: tuple[str, ...]
    notes: tuple[str, ...]

    def item(self, name: str) -> ItemPlan | None:
        # An index built on first use (completion and hovers ask for every item by name).
        index = self.__dict__.get("_by_name")
        if index is None:
            index = {}
            for i in self.items:
                index.setdefault(i.name, i)
            object.__setattr__(self, "_by_name", index)
        return index.get(name)

    def top_contributors(self, n: int = 3) -> list[ItemPlan]:
        return sorted(self.items, key=lambda i: (-i.monthly_usd, i.name))[:n]


@dataclass(frozen=True)
class Plan:
    product: str
    region: str
    environments: tuple[EnvironmentPlan, ...]
    catalog_origin: str = "packaged default"


# --------------------------------------------------------------------------------------
# Pricing
# --------------------------------------------------------------------------------------


class _Pricer:
    def __init__(self, catalog: Catalog, region: str) -> None:
        self.catalog = catalog
        self.region = region
        self.hours = catalog.hours_per_month
        self.missing: list[str] = []

    def line(self, key: str, description: str, quantity: Decimal) -> LineItem | None:
        price = self.catalog.price(key, self.region)
        if price is None:
            if key not in self.missing:
                self.missing.append(key)
            return None
        return LineItem(description, quantity, price.unit, price.usd, cents(quantity * price.usd), price.source, price.confidence, key)


#: Line items priced per (catalogue, region, quantities): entries of one kind and size in one
#: environment have the same line items, so most items of a plan reuse them (issue 6).
#: ``id(catalog) -> (catalog, {(region, specs): (line items, missing keys)})``; holding the
#: catalogue keeps its id from being reused while its prices are remembered.
_LINE_MEMO: dict[int, tuple[Catalog, dict[tuple, tuple[tuple[LineItem, ...], tuple[str, ...]]]]] = {}
_LINE_MEMO_MAX = 4096


def _collect(pricer: _Pricer, specs: Iterable[tuple[str, str, Decimal]]) -> tuple[tuple[LineItem, ...], tuple[str, ...]]:
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


def _price_specs(pricer: _Pricer, specs: Iterable[tuple[str, str, Decimal]]) -> tuple[tuple[LineItem, ...], tuple[str, ...]]:
    items = []
    missing = []
    for key, desc, qty in specs:
        li = pricer.line(key, desc, qty)
        if li is None:
            missing.append(key)
        else:
            items.append(li)
    return tuple(items), tuple(missing)


def _postgres(entry: EntrySpec, size: str, catalog: Catalog, pricer: _Pricer) -> tuple[dict, list]:
    eng = entry.engine
    flavor = eng.get("flavor") or "rds"
    cap = catalog.capacity("postgres", size, flavor)
    if cap is None:
        return {}, []
    h = pricer.hours
    proxy = bool(eng.get("proxy", True))
    storage = Decimal(eng["storage_gb"]) if eng.get("storage_gb") else cap["storage_gb"]
    specs: list[tuple[str, str, Decimal]] = []
    min_vcpus = catalog.environment.get("proxy_min_vcpus", Decimal(2))
    if flavor == "aurora":
        n = cap["instances"]
        capacity = {
            "engine": "aurora-postgresql",
            "flavor": "aurora",
            "instance_class": cap["instance_class"],
            "instances": int(n),
            "storage_gb": int(storage),
            "assumed_io_requests_millions": cap["io_requests_millions"],
        }
        specs.append((f"aurora:{cap['instance_class']}:standard", f"{int(n)} x {cap['instance_class']} (Aurora Standard), {h} h", n * h))
        specs.append(("aurora:storage:standard", f"Aurora storage, {int(storage)} GB", storage))
        specs.append(("aurora:io:standard", f"Aurora I/O, assumed {cap['io_requests_millions']} M requests", cap["io_requests_millions"]))
        vcpus = cap["vcpus"] * n
    else:
        multi = bool(cap["multi_az"])
        az = "multi-az" if multi else "single-az"
        capacity = {
            "engine": "postgres",
            "flavor": "rds",
            "instance_class": cap["instance_class"],
            "multi_az": multi,
            "storage_type": "gp3",
            "storage_gb": int(storage),
        }
        specs.append((f"rds:{cap['instance_class']}:{az}", f"{cap['instance_class']} {'Multi-AZ' if multi else 'Single-AZ'}, {h} h", h))
        specs.append((f"rds:gp3:{az}", f"gp3 storage {'Multi-AZ' if multi else 'Single-AZ'}, {int(storage)} GB", storage))
        vcpus = cap["vcpus"]
    capacity["engine_version"] = eng.get("version") or "16"
    capacity["proxy"] = proxy
    capacity["backup_retention_days"] = eng.get("backup_retention_days") if eng.get("backup_retention_days") is not None else 7
    if proxy:
        billed = max(vcpus, min_vcpus)
        capacity["proxy_vcpus"] = int(billed)
        specs.append(("rds-proxy:vcpu", f"RDS Proxy, {int(billed)} vCPU x {h} h (minimum {int(min_vcpus)} vCPU)", billed * h))
        # The proxy logs in only through Secrets Manager (ADR 0493 §4): one secret-month.
        specs.append(("secretsmanager:secret", "Secrets Manager secret (RDS Proxy admin login)", Decimal(1)))
    return capacity, specs


def _entry_specs(entry: EntrySpec, env: str, catalog: Catalog, pricer: _Pricer) -> tuple[str | None, dict, list]:
    size = entry.size_in(env)
    kind = entry.kind
    h = pricer.hours
    if kind == "postgres":
        cap, specs = _postgres(entry, size, catalog, pricer)
        return (size if cap else None), cap, specs
    cap = catalog.capacity(kind, size) if kind in ("cache", "queue", "topic", "bucket", "workload") else None
    if cap is None:
        return None, {}, []
    eng = entry.engine
    if kind == "cache":
        n = cap["nodes"]
        capacity = {"engine": "valkey", "node_type": cap["node_type"], "nodes": int(n), "engine_version": eng.get("version") or "8.0"}
        return size, capacity, [(f"valkey:{cap['node_type']}", f"{int(n)} x {cap['node_type']} node, {h} h", n * h)]
    if kind == "queue":
        fifo = bool(eng.get("fifo"))
        capacity = {
            "fifo": fifo,
            "assumed_requests_millions": cap["requests_millions"],
            "visibility_timeout_s": eng.get("visibility_timeout_s"),
            "dead_letter": eng.get("dead_letter"),
        }
        key = "sqs:fifo" if fifo else "sqs:standard"
        return size, capacity, [(key, f"SQS {'FIFO' if fifo else 'Standard'} requests, assumed {cap['requests_millions']} M", cap["requests_millions"])]
    if kind == "topic":
        fifo = bool(eng.get("fifo"))
        capacity = {"fifo": fifo, "assumed_publishes_millions": cap["publishes_millions"]}
        key = "sns:fifo" if fifo else "sns:standard"
        return size, capacity, [(key, f"SNS {'FIFO' if fifo else 'Standard'} publishes, assumed {cap['publishes_millions']} M", cap["publishes_millions"])]
    if kind == "bucket":
        capacity = {
            "storage_class": "STANDARD",
            "versioning": bool(eng.get("versioning")),
            "assumed_storage_gb": cap["storage_gb"],
            "assumed_put_requests_thousands": cap["put_requests_thousands"],
            "assumed_get_requests_thousands": cap["get_requests_thousands"],
        }
        return size, capacity, [
            ("s3:storage", f"S3 Standard storage, assumed {cap['storage_gb']} GB", cap["storage_gb"]),
            ("s3:tier1", f"PUT/COPY/POST/LIST requests, assumed {cap['put_requests_thousands']}k", cap["put_requests_thousands"]),
            ("s3:tier2", f"GET and other requests, assumed {cap['get_requests_thousands']}k", cap["get_requests_thousands"]),
        ]
    # workload: ECS Fargate Linux/ARM64, per task x scale (CATALOG.md)
    tasks = Decimal(entry.scale_in(env))
    vcpu, mem = cap["vcpu"], cap["memory_gb"]
    capacity = {
        "launch_type": "FARGATE",
        "architecture": "ARM64",
        "vcpu": vcpu,
        "memory_gb": mem,
        "cpu_units": _FARGATE_UNITS.get(vcpu, int(vcpu * 1024)),
        "memory_mib": int(mem * 1024),
        "tasks": int(tasks),
        "expose": entry.expose,
        "image": entry.image,
        "port": entry.port,
        # The container's own settings, so the Pulumi program declares it from the plan alone
        # (secret *names* only, never values: RUNWAY_FORMAT.md "Workloads").
        "health": dict(entry.health or {}),
        "env": dict(entry.env),
        "secrets": tuple(entry.secrets),
        "uses": tuple(entry.uses),
    }
    return size, capacity, [
        ("fargate:arm:vcpu", f"Fargate ARM vCPU, {vcpu} vCPU x {int(tasks)} task(s) x {h} h", vcpu * tasks * h),
        ("fargate:arm:memory", f"Fargate ARM memory, {mem} GB x {int(tasks)} task(s) x {h} h", mem * tasks * h),
    ]


_LAST_CONSUMERS: list[Any] = [None, None]  # (spec, its consumers): the spec's environments share it
#: (spec, catalog, {(entry name, size, tasks): (size, capacity, line items, missing keys)}):
#: an entry at the same size and task count costs the same in every environment of one spec,
#: so a spec's environments price it once (issue 6: 7 environments, 215 entries).
_LAST_PRICED: list[Any] = [None, None, {}]


def _priced_entry(spec: RunwaySpec, entry: EntrySpec, env: str, catalog: Catalog, pricer: _Pricer) -> tuple[str | None, dict, tuple[LineItem, ...], tuple[str, ...]]:
    """``_entry_specs`` then ``_collect`` for ``entry`` in ``env``, shared across the
    environments of ``spec`` (the result holds no environment name; the capacity dict is
    copied, so no two items share one)."""
    if _LAST_PRICED[0] is not spec or _LAST_PRICED[1] is not catalog:
        _LAST_PRICED[:] = [spec, catalog, {}]
    memo = _LAST_PRICED[2]
    key = (entry.name, entry.size_in(env), entry.scale_in(env) if entry.kind == "workload" else None)
    hit = memo.get(key)
    if hit is None:
        size, capacity, specs = _entry_specs(entry, env, catalog, pricer)
        lines, missing = _collect(pricer, specs)
        hit = memo[key] = (size, capacity, lines, missing)
    else:
        for k in hit[3]:
            if k not in pricer.missing:
                pricer.missing.append(k)
    return hit[0], dict(hit[1]), hit[2], hit[3]


def _consumers(spec: RunwaySpec) -> dict[str, list[str]]:
    if _LAST_CONSUMERS[0] is spec:
        return _LAST_CONSUMERS[1]
    out = _consumers_of(spec)
    _LAST_CONSUMERS[:] = [spec, out]
    return out


def _consumers_of(spec: RunwaySpec) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {n: [] for n in spec.entries}
    for c in spec.consumers:
        for u in c.uses:
            if u in out and c.name not in out[u]:
                out[u].append(c.name)
    return out


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
    _size, _capacity, specs = _entry_specs(entry, env, catalog, pricer)
    lines, _missing = _collect(pricer, specs)
    return sum((li.monthly_usd for li in lines), Decimal("0.00"))


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
    pricer = _Pricer(catalog, spec.region)
    consumers = _consumers(spec)
    reuse = _reusable(spec, env, previous)
    items: list[ItemPlan] = []
    internal_tasks = 0
    any_internal = False
    any_public = False
    for entry in spec.entries.values():
        old = reuse.get(entry.name) if reuse else None
        if old is not None and old[1].kind == entry.kind and (old[0] is entry or old[0] == entry) and old[1].consumers == tuple(consumers.get(entry.name, ())):
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
        size, capacity, lines, missing = _priced_entry(spec, entry, env, catalog, pricer)
        notes: list[str] = []
        if size is None:
            from .rules import redact  # local: rules imports this module's users; a rare path

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
                infisical_path=f"{env}:/runtime/{entry.name}/",
                ssm_parameters={v: f"/runway/{spec.product}/{env}/{entry.name}/{v}" for v in variables},
                missing_prices=missing,
                notes=tuple(notes),
            )
        )
    h = pricer.hours
    envd = catalog.environment
    if any_public:
        lcu = envd.get("alb_lcu", Decimal(1))
        ips = envd.get("alb_public_ipv4", Decimal(2))
        lines, missing = _collect(
            pricer,
            [
                ("alb:hour", f"Application Load Balancer, {h} h", h),
                ("alb:lcu", f"ALB capacity units, assumed {lcu} LCU x {h} h", lcu * h),
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
        lines, missing = _collect(
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
    total = sum((i.monthly_usd for i in items), Decimal("0.00"))
    if envspec.cap is None:
        verdict = "no-cap"
    elif total > envspec.cap:
        verdict = "over-cap"
    else:
        verdict = "ok"
    return EnvironmentPlan(
        name=env,
        cap=envspec.cap,
        cap_source=envspec.cap_source,
        items=tuple(items),
        total=total,
        verdict=verdict,
        missing_prices=tuple(pricer.missing),
        notes=("network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated", "free tiers are ignored: estimates are conservative"),
    )


def clear_memos() -> None:
    """Forget the memoised line items and variable names (benchmarks measure a cold start)."""
    _LINE_MEMO.clear()
    injected_variables.cache_clear()
    _LAST_CONSUMERS[:] = [None, None]
    _LAST_PRICED[:] = [None, None, {}]


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


# --------------------------------------------------------------------------------------
# JSON (docs/cli.md, format_version 1)
# --------------------------------------------------------------------------------------


def _num(x: Any) -> Any:
    if isinstance(x, Decimal):
        return float(x) if x != x.to_integral_value() else int(x)
    if isinstance(x, dict):
        return {k: _num(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_num(v) for v in x]
    return x


def _money(x: Decimal) -> float:
    return float(cents(x))


def environment_json(p: EnvironmentPlan) -> dict[str, Any]:
    return {
        "name": p.name,
        "cap_monthly_usd": None if p.cap is None else _num(p.cap),
        "cap_source": p.cap_source,
        "total_monthly_usd": _money(p.total),
        "verdict": p.verdict,
        "missing_prices": list(p.missing_prices),
        "notes": list(p.notes),
        "items": [
            {
                "name": i.name,
                "kind": i.kind,
                "size": i.size,
                "implicit": i.implicit,
                "origin": i.origin,
                "capacity": _num(dict(i.capacity)),
                "monthly_usd": _money(i.monthly_usd),
                "line_items": [
                    {
                        "description": li.description,
                        "quantity": _num(li.quantity),
                        "unit": li.unit,
                        "unit_usd": _num(li.unit_usd),
                        "monthly_usd": _money(li.monthly_usd),
                        "source": li.source,
                        "confidence": li.confidence,
                        "price_key": li.price_key,
                    }
                    for li in i.line_items
                ],
                "consumers": list(i.consumers),
                "variables": list(i.variables),
                "infisical_path": i.infisical_path,
                "ssm_parameters": dict(i.ssm_parameters),
                "missing_prices": list(i.missing_prices),
                "notes": list(i.notes),
            }
            for i in p.items
        ],
    }


def plan_json(plan: Plan) -> dict[str, Any]:
    """The plan as the documented JSON document (docs/cli.md, ``format_version`` 1)."""
    return {
        "format_version": FORMAT_VERSION,
        "product": plan.product,
        "region": plan.region,
        "catalog": plan.catalog_origin,
        "environments": [environment_json(e) for e in plan.environments],
    }


def plan_digest(env_plan: EnvironmentPlan, product: str, region: str) -> str:
    """sha256 of the canonical JSON of one environment's plan (for receipts)."""
    doc = {"format_version": FORMAT_VERSION, "product": product, "region": region, "environment": environment_json(env_plan)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


__all__ = [
    "FORMAT_VERSION",
    "VARIABLES",
    "RESOURCE_KINDS",
    "EnvSpec",
    "EntrySpec",
    "ConsumerSpec",
    "RunwaySpec",
    "LineItem",
    "ItemPlan",
    "EnvironmentPlan",
    "Plan",
    "plan_environment",
    "entry_cost",
    "plan_all",
    "plan_json",
    "plan_digest",
    "injected_variables",
    "env_prefix",
    "engine_defaults",
    "default_environments",
    "cents",
    "cap_percent",
]
