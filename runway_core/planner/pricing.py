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

from ..catalog import Catalog
from ..money import cents
from ..usage import CATALOGUE_ASSUMPTION, NETWORK, RUNWAY_SIZE, UsageValue
from .items import LineItem
from .spec import PLATFORMS, EntrySpec, RunwaySpec

#: One line to price: (price key, description, quantity, where the quantity came from).
Spec = tuple[str, str, Decimal, str]

#: Fargate task sizes in ECS units (cpu units, MiB) by vCPU/GB, for the task definition.
_FARGATE_UNITS = {Decimal("0.25"): 256, Decimal("0.5"): 512, Decimal("1"): 1024, Decimal("2"): 2048, Decimal("4"): 4096, Decimal("8"): 8192, Decimal("16"): 16384}


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


def _usage(usage: Mapping[str, UsageValue], key: str, assumed: Decimal) -> tuple[Decimal, str, str]:
    """``(quantity, its source, its words)`` of usage ``key``: the usage file's value
    (``"400 M"``-style words without "assumed"), else the catalogue's ``assumed`` one."""
    v = usage.get(key)
    if v is None:
        return assumed, CATALOGUE_ASSUMPTION, "assumed "
    return v.quantity, v.source, ""


def _postgres(entry: EntrySpec, size: str, catalog: Catalog, pricer: _Pricer, usage: Mapping[str, UsageValue]) -> tuple[dict, list]:
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
        io, src, words = _usage(usage, "io_requests_millions", cap["io_requests_millions"])
        _note_usage(capacity, usage, "io_requests_millions")
        specs.append(("aurora:io:standard", f"Aurora I/O, {words}{io} M requests", io, src))
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


def _note_usage(capacity: dict, usage: Mapping[str, UsageValue], *keys: str) -> None:
    """Record the usage file's quantities for ``keys`` in ``capacity`` as ``usage_<key>``
    (hovers show them in place of the assumption, ``diff`` lists them as capacity changes).
    The line they came from is in the line items' ``quantity_source``, not here: moving a
    line of the usage file changes no plan."""
    for k in keys:
        if k in usage:
            capacity[f"usage_{k}"] = usage[k].quantity


def _entry_specs(entry: EntrySpec, env: str, catalog: Catalog, pricer: _Pricer, usage: Mapping[str, UsageValue] | None = None) -> tuple[str | None, dict, list]:
    """The size, the capacity and the line specs of ``entry`` in ``env``; ``usage`` is the
    usage file's quantities for it (:meth:`RunwaySpec.usage_of`), in place of the catalogue's
    assumptions."""
    size = entry.size_in(env)
    kind = entry.kind
    h = pricer.hours
    usage = usage or {}
    if kind == "postgres":
        cap, specs = _postgres(entry, size, catalog, pricer, usage)
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
        n, src, words = _usage(usage, "requests_millions", cap["requests_millions"])
        _note_usage(capacity, usage, "requests_millions")
        return size, capacity, [(key, f"SQS {'FIFO' if fifo else 'Standard'} requests, {words}{n} M", n, src)]
    if kind == "topic":
        fifo = bool(eng.get("fifo"))
        capacity = {"fifo": fifo, "assumed_publishes_millions": cap["publishes_millions"]}
        key = "sns:fifo" if fifo else "sns:standard"
        n, src, words = _usage(usage, "publishes_millions", cap["publishes_millions"])
        _note_usage(capacity, usage, "publishes_millions", "payload_gb")
        lines = [(key, f"SNS {'FIFO' if fifo else 'Standard'} publishes, {words}{n} M", n, src)]
        if fifo and "payload_gb" in usage:
            # SNS FIFO also bills the payload data published (per GB); no catalogue
            # assumption: priced only when the usage file gives it (docs/catalog.md).
            lines.append(("sns:fifo:payload", f"SNS FIFO payload data, {usage['payload_gb'].quantity} GB", usage["payload_gb"].quantity, usage["payload_gb"].source))
        return size, capacity, lines
    if kind == "bucket":
        capacity = {
            "storage_class": "STANDARD",
            "versioning": bool(eng.get("versioning")),
            "assumed_storage_gb": cap["storage_gb"],
            "assumed_put_requests_thousands": cap["put_requests_thousands"],
            "assumed_get_requests_thousands": cap["get_requests_thousands"],
        }
        gb, gb_src, gb_words = _usage(usage, "storage_gb", cap["storage_gb"])
        put, put_src, put_words = _usage(usage, "put_requests_thousands", cap["put_requests_thousands"])
        get, get_src, get_words = _usage(usage, "get_requests_thousands", cap["get_requests_thousands"])
        _note_usage(capacity, usage, "storage_gb", "put_requests_thousands", "get_requests_thousands")
        return size, capacity, [
            ("s3:storage", f"S3 Standard storage, {gb_words}{gb} GB", gb, gb_src),
            ("s3:tier1", f"PUT/COPY/POST/LIST requests, {put_words}{put}k", put, put_src),
            ("s3:tier2", f"GET and other requests, {get_words}{get}k", get, get_src),
        ]
    # workload: ECS Fargate Linux, ARM64 or x86 by its platform, per task x scale (docs/catalog.md)
    architecture, price = PLATFORMS.get(entry.platform, PLATFORMS["linux/arm64"])
    tasks = Decimal(entry.scale_in(env))
    vcpu, mem = cap["vcpu"], cap["memory_gb"]
    logs_gb, logs_src, logs_words = _usage(usage, "log_ingested_gb", cap["log_ingested_gb"])
    retention = catalog.environment["log_retention_days"]
    # Steady state of a log group kept `retention` days: that many days of ingestion stored,
    # in 30-day months (a 730 h month is 30.4 days: rounding the month down is conservative).
    stored_gb = logs_gb * tasks * retention / 30
    capacity = {
        "launch_type": "FARGATE",
        "architecture": architecture,
        "platform": entry.platform if entry.platform in PLATFORMS else "linux/arm64",
        "vcpu": vcpu,
        "memory_gb": mem,
        "cpu_units": _FARGATE_UNITS.get(vcpu, int(vcpu * 1024)),
        "memory_mib": int(mem * 1024),
        "tasks": int(tasks),
        "assumed_log_ingested_gb": logs_gb,
        "log_retention_days": int(retention),
        "expose": entry.expose,
        "image": entry.image,
        "port": entry.port,
        # The container's own settings, so the Pulumi program declares it from the plan alone
        # (secret *names* only, never values: docs/format.md "Workloads").
        "health": dict(entry.health or {}),
        "env": dict(entry.env),
        "secrets": tuple(entry.secrets),
        "uses": tuple(entry.uses),
    }
    _note_usage(capacity, usage, "log_ingested_gb")
    return size, capacity, [
        (f"fargate:{price}:vcpu", f"Fargate {price.upper()} vCPU, {vcpu} vCPU x {int(tasks)} task(s) x {h} h", vcpu * tasks * h),
        (f"fargate:{price}:memory", f"Fargate {price.upper()} memory, {mem} GB x {int(tasks)} task(s) x {h} h", mem * tasks * h),
        ("logs:ingestion", f"CloudWatch Logs ingestion, {logs_words}{logs_gb} GB x {int(tasks)} task(s)", logs_gb * tasks, logs_src),
        ("logs:storage", f"CloudWatch Logs storage, {logs_words}{_gb(stored_gb)} GB kept {int(retention)} days", stored_gb, logs_src),
    ]


def _gb(value: Decimal) -> str:
    """A stored volume for a description: at most 2 decimals, no trailing zeros."""
    q = value.quantize(Decimal("0.01"))
    return f"{q.normalize():f}" if q != q.to_integral_value() else str(int(q))


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
