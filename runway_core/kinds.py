"""The resource kinds: one declaration per kind, and everything that knows a kind reads it here.

A :class:`Kind` says what a kind is in every face of the tooling: its words (the hover label,
the completion line, the name hints of a quick fix), what its consumers receive (the injected
variable suffixes), whether it sits in the environment's VPC, its size table (the fields of
its rows in ``catalog/sizes.toml``), how one size becomes priced line items (the price keys and
quantities), the catalogue keys it may ask for, its capacity in one line of text, and the type
token of the Pulumi component the deploy side registers for it (``deploy_engine.program``
registers the component class itself: the core imports no Pulumi).

:data:`REGISTRY` lists every kind in declaration order (the order of ``RESOURCE_KINDS`` in
messages); the workload is a kind too (``resource=False``: it is declared under
``workloads:``, not ``resources:``). A kind whose declaration lacks a size table or its
quantities is **not estimated**: the planner marks its items, RW122 is an error at each, and a
capped environment's plan is refused (fail closed, docs/format.md "Plan").
``tests/deploy/test_kinds.py`` walks the registry and names every piece a kind lacks (size table,
price keys in every catalogue region, component, botocore-checked inputs, docs).

To add a field every kind has (CPU architectures, usage keys, replacement-forcing
properties), add it to :class:`Kind` with a default and give it in the declarations that need
another value; the completeness test is where a missing value is named.

A leaf: imports only the standard library. Pure; nothing happens at import time but building
the frozen declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

# Field types of the size tables (the catalogue's messages name them: "must be a positive number").
STR = "a non-empty string"
BOOL = "a boolean"
NUM = "a non-negative number"
POS = "a positive number"
INT = "a non-negative whole number"
POSINT = "a positive whole number"

#: (price key, description, quantity[, where the quantity came from]): one line item before its
#: unit price is looked up (without a source: the runway's size, ``usage.RUNWAY_SIZE``).
LineSpec = tuple


@dataclass(frozen=True)
class Sizing:
    """What one entry's line items in one environment are computed from.

    - ``capacity``: the size's row of ``sizes.toml`` (numbers ``Decimal``, names ``str``);
    - ``engine``: the entry's engine options, defaults filled in;
    - ``hours``: hours in a billing month (``Catalog.hours_per_month``, 730);
    - ``environment``: the catalogue's ``[environment]`` table (``proxy_min_vcpus``,
      ``log_retention_days``...);
    - ``tasks``: the entry's task count in the environment (workloads; 1 otherwise);
    - ``entry``: the planner's ``EntrySpec`` (a workload's image, port, expose...);
    - ``usage``: the usage file's quantities for the entry in the environment (key ->
      ``runway_core.usage.UsageValue``), in place of the catalogue's assumptions;
    - ``assumed``: the source a catalogue assumption is recorded with (``usage.CATALOGUE_ASSUMPTION``).
    """

    capacity: Mapping[str, Any]
    engine: Mapping[str, Any]
    hours: Decimal
    environment: Mapping[str, Decimal]
    tasks: Decimal
    entry: Any
    usage: Mapping[str, Any] = field(default_factory=dict)
    assumed: str = "catalogue assumption"

    def used(self, key: str, assumed: Decimal) -> tuple[Decimal, str, str]:
        """``(quantity, its source, its words)`` of usage ``key``: the usage file's value
        (``"400 M"``-style words without "assumed"), else the catalogue's ``assumed`` one."""
        v = self.usage.get(key)
        if v is None:
            return assumed, self.assumed, "assumed "
        return v.quantity, v.source, ""

    def note(self, capacity: dict, *keys: str) -> None:
        """Record the usage file's quantities for ``keys`` in ``capacity`` as ``usage_<key>``
        (hovers show them in place of the assumption, ``diff`` lists them as capacity changes).
        The line they came from is in the line items' ``quantity_source``, not here: moving a
        line of the usage file changes no plan."""
        for k in keys:
            if k in self.usage:
                capacity[f"usage_{k}"] = self.usage[k].quantity


#: ``Sizing -> (the item's plan capacity, its line specs)``.
Quantities = Callable[[Sizing], tuple[dict[str, Any], list[LineSpec]]]
#: ``(size rows by flavor: {flavor or None: [row, ...]}) -> every price key the kind may ask for``.
PriceKeys = Callable[[Mapping[str | None, Iterable[Mapping[str, Any]]]], Iterable[str]]
#: ``(a plan item's capacity, a quantity formatter) -> one line of text``.
Describe = Callable[[Mapping[str, Any], Callable[[Any], str]], str]


@dataclass(frozen=True)
class Kind:
    """One kind, declared once.

    - ``name``: as written in ``kind:`` (``postgres``), and the ``shared-<name>`` pool's suffix;
    - ``label``: the hover's kind line (``postgres (RDS / Aurora PostgreSQL)``);
    - ``service``: the AWS service in the model's field description (``RDS or Aurora``);
    - ``summary``: completion's one line (docs/format.md, "Resource kinds");
    - ``synonyms``: words of a name that hint at this kind (a quick fix creating a resource
      named after a ``uses`` item), checked in :data:`HINT_ORDER`;
    - ``variables``: the suffixes of the variables a consumer receives (``URL``: ``MAIN_DB_URL``),
      each also an SSM parameter ``/runway/<product>/<env>/<name>/<VAR>`` and an Infisical
      secret under ``<env>:/runtime/<name>/`` (:func:`ssm_parameter`, :func:`infisical_path`);
    - ``in_vpc``: reached inside the environment's VPC (security groups decide who may);
    - ``holds_data``: its resource keeps data a re-creation loses (a database's rows, a
      cache's keys, a bucket's objects, a queue's messages): a region move of an environment
      with one is refused outside disposable environments (RW190, ``runway_core.changes``), and
      with ``in_vpc`` a VPC move too (``deploy_engine.pipeline.credentials.check_vpc``);
    - ``credentials``: the deploy generates an admin password for it (written blind to Infisical);
    - ``component``: the Pulumi type token of its component (``runway:aws:Postgres``); the
      class is registered by ``deploy_engine.program`` under :attr:`name`;
    - ``flavors``: variants with a size table each (postgres ``rds``, ``aurora``; the first is
      the default), ``()`` for one table; ``flavor_key``: the engine option naming one;
    - ``size_fields``: ``{flavor or None: {field: field type}}``, the rows of its size table;
      None: the kind has no size table (not estimated);
    - ``quantities``: how a size becomes line items (None: not estimated);
    - ``price_keys``: every catalogue key ``quantities`` may ask for, given the size rows;
    - ``describe``: its plan capacity in one line (hover, completion);
    - ``resource``: declared under ``resources:`` (False: the workload);
    - ``upgraded_in_place_by``: the AWS service that upgrades its ``engine_version`` in place
      and never downgrades it (``RDS``, ``ElastiCache``): a lower version than the deployed
      one is RW192 (``runway_core.changes``); None for a kind without engine versions;
    - ``billed_by``: for a kind without usage quantities (``runway_core.usage.USAGE_KEYS``),
      the unit its price follows, as a usage file's RW202 message says it (``node-hour``).
    """

    name: str
    label: str
    service: str
    summary: str
    synonyms: tuple[str, ...]
    variables: tuple[str, ...]
    in_vpc: bool
    holds_data: bool
    component: str
    size_fields: Mapping[str | None, Mapping[str, str]] | None = None
    quantities: Quantities | None = None
    price_keys: PriceKeys | None = None
    describe: Describe | None = None
    flavors: tuple[str, ...] = ()
    flavor_key: str | None = None
    credentials: bool = False
    resource: bool = True
    upgraded_in_place_by: str | None = None
    billed_by: str | None = None

    @property
    def estimated(self) -> bool:
        """Whether the planner can price it: it has a size table and its quantities."""
        return self.size_fields is not None and self.quantities is not None

    def flavor_of(self, engine: Mapping[str, Any]) -> str | None:
        """The flavor ``engine`` selects (the default when unset), None for a kind without flavors."""
        if not self.flavors:
            return None
        chosen = engine.get(self.flavor_key) if self.flavor_key else None
        return chosen or self.flavors[0]


def ssm_parameter(product: str, env: str, name: str, variable: str) -> str:
    """The SSM parameter a consumer reads ``variable`` from: ``/runway/<product>/<env>/<name>/<VAR>``
    (ADR 0493 §4; filled by the Infisical -> SSM sync)."""
    return f"/runway/{product}/{env}/{name}/{variable}"


def infisical_path(env: str, name: str) -> str:
    """Where the deploy writes ``name``'s values, blind: ``<env>:/runtime/<name>/`` (ADR 0493 §4)."""
    return f"{env}:/runtime/{name}/"


# ---- postgres (RDS for PostgreSQL or Aurora PostgreSQL, RDS Proxy in front)


def _postgres(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    eng, cap, h = s.engine, s.capacity, s.hours
    proxy = bool(eng.get("proxy", True))
    storage = Decimal(eng["storage_gb"]) if eng.get("storage_gb") else cap["storage_gb"]
    specs: list[LineSpec] = []
    min_vcpus = s.environment.get("proxy_min_vcpus", Decimal(2))
    if (eng.get("flavor") or "rds") == "aurora":
        n = cap["instances"]
        capacity: dict[str, Any] = {
            "engine": "aurora-postgresql",
            "flavor": "aurora",
            "instance_class": cap["instance_class"],
            "instances": int(n),
            "storage_gb": int(storage),
            "assumed_io_requests_millions": cap["io_requests_millions"],
        }
        specs.append((f"aurora:{cap['instance_class']}:standard", f"{int(n)} x {cap['instance_class']} (Aurora Standard), {h} h", n * h))
        specs.append(("aurora:storage:standard", f"Aurora storage, {int(storage)} GB", storage))
        io, src, words = s.used("io_requests_millions", cap["io_requests_millions"])
        s.note(capacity, "io_requests_millions")
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


def _postgres_keys(rows: Mapping[str | None, Iterable[Mapping[str, Any]]]) -> Iterable[str]:
    # Both deployment options for every RDS class: an override catalogue may change multi_az.
    keys = {"rds:gp3:single-az", "rds:gp3:multi-az", "aurora:storage:standard", "aurora:io:standard", "rds-proxy:vcpu", "secretsmanager:secret"}
    for row in rows.get("rds", ()):
        keys.update((f"rds:{row['instance_class']}:single-az", f"rds:{row['instance_class']}:multi-az"))
    for row in rows.get("aurora", ()):
        keys.add(f"aurora:{row['instance_class']}:standard")
    return keys


def _used(c: Mapping[str, Any], key: str, q: Callable[[Any], str]) -> str:
    """A usage quantity of a capacity: the usage file's (``400 (usage file)``) when the plan
    has one (``usage_<key>``), else the catalogue's (``assumed 25``)."""
    if c.get(f"usage_{key}") is not None:
        return f"{q(c[f'usage_{key}'])} (usage file)"
    return f"assumed {q(c.get(f'assumed_{key}'))}"


def _postgres_text(c: Mapping[str, Any], q: Callable[[Any], str]) -> str:
    if c.get("flavor") == "aurora":
        text = f"{c.get('instances')} x {c.get('instance_class')} (Aurora PostgreSQL Standard), {c.get('storage_gb')} GB storage, {_used(c, 'io_requests_millions', q)} M I/O requests"
    else:
        text = f"{c.get('instance_class')}, {'Multi-AZ' if c.get('multi_az') else 'Single-AZ'}, {c.get('storage_gb')} GB gp3"
    text += f", PostgreSQL {c.get('engine_version')}"
    if c.get("proxy"):
        text += f", RDS Proxy ({c.get('proxy_vcpus')} vCPU billed)"
    text += f", backups {c.get('backup_retention_days')} days"
    return text


# ---- queue (SQS), topic (SNS)


def _queue(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    fifo = bool(s.engine.get("fifo"))
    cap = s.capacity
    capacity = {
        "fifo": fifo,
        "assumed_requests_millions": cap["requests_millions"],
        "visibility_timeout_s": s.engine.get("visibility_timeout_s"),
        "dead_letter": s.engine.get("dead_letter"),
    }
    key = "sqs:fifo" if fifo else "sqs:standard"
    n, src, words = s.used("requests_millions", cap["requests_millions"])
    s.note(capacity, "requests_millions")
    return capacity, [(key, f"SQS {'FIFO' if fifo else 'Standard'} requests, {words}{n} M", n, src)]


def _topic(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    fifo = bool(s.engine.get("fifo"))
    cap = s.capacity
    capacity = {"fifo": fifo, "assumed_publishes_millions": cap["publishes_millions"]}
    key = "sns:fifo" if fifo else "sns:standard"
    n, src, words = s.used("publishes_millions", cap["publishes_millions"])
    s.note(capacity, "publishes_millions", "payload_gb")
    lines: list[LineSpec] = [(key, f"SNS {'FIFO' if fifo else 'Standard'} publishes, {words}{n} M", n, src)]
    if fifo and "payload_gb" in s.usage:
        # SNS FIFO also bills the payload data published (per GB); no catalogue
        # assumption: priced only when the usage file gives it (docs/catalog.md).
        payload = s.usage["payload_gb"]
        lines.append(("sns:fifo:payload", f"SNS FIFO payload data, {payload.quantity} GB", payload.quantity, payload.source))
    return capacity, lines


# ---- cache (ElastiCache for Valkey)


def _cache(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    cap, h = s.capacity, s.hours
    n = cap["nodes"]
    capacity = {"engine": "valkey", "node_type": cap["node_type"], "nodes": int(n), "engine_version": s.engine.get("version") or "8.0"}
    return capacity, [(f"valkey:{cap['node_type']}", f"{int(n)} x {cap['node_type']} node, {h} h", n * h)]


# ---- bucket (S3 Standard)


def _bucket(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    cap = s.capacity
    capacity = {
        "storage_class": "STANDARD",
        "versioning": bool(s.engine.get("versioning")),
        "assumed_storage_gb": cap["storage_gb"],
        "assumed_put_requests_thousands": cap["put_requests_thousands"],
        "assumed_get_requests_thousands": cap["get_requests_thousands"],
    }
    gb, gb_src, gb_words = s.used("storage_gb", cap["storage_gb"])
    put, put_src, put_words = s.used("put_requests_thousands", cap["put_requests_thousands"])
    get, get_src, get_words = s.used("get_requests_thousands", cap["get_requests_thousands"])
    s.note(capacity, "storage_gb", "put_requests_thousands", "get_requests_thousands")
    return capacity, [
        ("s3:storage", f"S3 Standard storage, {gb_words}{gb} GB", gb, gb_src),
        ("s3:tier1", f"PUT/COPY/POST/LIST requests, {put_words}{put}k", put, put_src),
        ("s3:tier2", f"GET and other requests, {get_words}{get}k", get, get_src),
    ]


def _bucket_text(c: Mapping[str, Any], q: Callable[[Any], str]) -> str:
    return (
        f"S3 Standard, {_used(c, 'storage_gb', q)} GB stored, "
        f"{_used(c, 'put_requests_thousands', q)}k PUT-class and "
        f"{_used(c, 'get_requests_thousands', q)}k GET-class requests/month"
        + (", versioning on" if c.get("versioning") else "")
    )


# ---- workload (ECS Fargate Linux, ARM64 or x86 by its platform, per task x scale: docs/catalog.md)

#: A workload's ``platform`` -> (ECS ``cpuArchitecture``, the Fargate price family of its
#: keys ``fargate:<family>:vcpu|memory``); the first is the default (docs/format.md "Workloads").
WORKLOAD_PLATFORMS: Mapping[str, tuple[str, str]] = MappingProxyType({"linux/arm64": ("ARM64", "arm"), "linux/amd64": ("X86_64", "x86")})

#: Fargate task sizes in ECS units (cpu units, MiB) by vCPU/GB, for the task definition.
FARGATE_UNITS = {Decimal("0.25"): 256, Decimal("0.5"): 512, Decimal("1"): 1024, Decimal("2"): 2048, Decimal("4"): 4096, Decimal("8"): 8192, Decimal("16"): 16384}


def _gb(value: Decimal) -> str:
    """A stored volume for a description: at most 2 decimals, no trailing zeros."""
    q = value.quantize(Decimal("0.01"))
    return f"{q.normalize():f}" if q != q.to_integral_value() else str(int(q))


def _workload(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    cap, h, tasks, entry = s.capacity, s.hours, s.tasks, s.entry
    vcpu, mem = cap["vcpu"], cap["memory_gb"]
    logs_gb, logs_src, logs_words = s.used("log_ingested_gb", cap["log_ingested_gb"])
    retention = s.environment["log_retention_days"]
    platform = entry.platform if entry.platform in WORKLOAD_PLATFORMS else next(iter(WORKLOAD_PLATFORMS))
    architecture, price = WORKLOAD_PLATFORMS[platform]
    # Steady state of a log group kept `retention` days: that many days of ingestion stored,
    # in 30-day months (a 730 h month is 30.4 days: rounding the month down is conservative).
    stored_gb = logs_gb * tasks * retention / 30
    capacity = {
        "launch_type": "FARGATE",
        "architecture": architecture,
        "platform": platform,
        "vcpu": vcpu,
        "memory_gb": mem,
        "cpu_units": FARGATE_UNITS.get(vcpu, int(vcpu * 1024)),
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
    s.note(capacity, "log_ingested_gb")
    return capacity, [
        (f"fargate:{price}:vcpu", f"Fargate {price.upper()} vCPU, {vcpu} vCPU x {int(tasks)} task(s) x {h} h", vcpu * tasks * h),
        (f"fargate:{price}:memory", f"Fargate {price.upper()} memory, {mem} GB x {int(tasks)} task(s) x {h} h", mem * tasks * h),
        ("logs:ingestion", f"CloudWatch Logs ingestion, {logs_words}{logs_gb} GB x {int(tasks)} task(s)", logs_gb * tasks, logs_src),
        ("logs:storage", f"CloudWatch Logs storage, {logs_words}{_gb(stored_gb)} GB kept {int(retention)} days", stored_gb, logs_src),
    ]


def _workload_text(c: Mapping[str, Any], q: Callable[[Any], str]) -> str:
    tasks = c.get("tasks")
    return (
        f"Fargate {c.get('architecture', 'ARM64')}, {q(c.get('vcpu'))} vCPU, {q(c.get('memory_gb'))} GB memory per task, "
        f"{tasks} task{'s' if tasks != 1 else ''}, {c.get('expose')}"
        + (f", {_used(c, 'log_ingested_gb', q)} GB logs/month per task ({c.get('log_retention_days')}-day retention)"
           if c.get("assumed_log_ingested_gb") is not None else "")
    )


def _fixed(*keys: str) -> PriceKeys:
    return lambda _rows: keys


def _frozen(tables: Mapping[str | None, Mapping[str, str]]) -> Mapping[str | None, Mapping[str, str]]:
    return MappingProxyType({k: MappingProxyType(dict(v)) for k, v in tables.items()})


#: Every kind, in declaration order (resources first, then the workload).
REGISTRY: tuple[Kind, ...] = (
    Kind(
        name="postgres",
        label="postgres (RDS / Aurora PostgreSQL)",
        service="RDS or Aurora",
        summary="RDS for PostgreSQL (or Aurora PostgreSQL), RDS Proxy in front",
        synonyms=("db", "pg", "postgres", "postgresql", "sql", "database", "rds", "aurora"),
        variables=("URL", "HOST", "PORT", "USER", "PASSWORD", "DATABASE"),
        in_vpc=True,
        holds_data=True,
        credentials=True,
        component="runway:aws:Postgres",
        flavors=("rds", "aurora"),
        flavor_key="flavor",
        size_fields=_frozen({
            "rds": {"instance_class": STR, "multi_az": BOOL, "storage_gb": NUM, "vcpus": POSINT},
            "aurora": {"instance_class": STR, "instances": POSINT, "storage_gb": NUM, "io_requests_millions": NUM, "vcpus": POSINT},
        }),
        quantities=_postgres,
        price_keys=_postgres_keys,
        describe=_postgres_text,
        upgraded_in_place_by="RDS",
    ),
    Kind(
        name="queue",
        label="queue (SQS)",
        service="SQS",
        summary="Amazon SQS queue",
        synonyms=("queue", "queues", "q", "sqs", "jobs", "job", "tasks", "work", "worker"),
        variables=("URL", "ARN"),
        in_vpc=False,
        holds_data=True,
        component="runway:aws:Queue",
        size_fields=_frozen({None: {"requests_millions": NUM}}),
        quantities=_queue,
        price_keys=_fixed("sqs:standard", "sqs:fifo"),
        describe=lambda c, q: f"SQS {'FIFO' if c.get('fifo') else 'Standard'}, {_used(c, 'requests_millions', q)} M requests/month",
    ),
    Kind(
        name="topic",
        label="topic (SNS)",
        service="SNS",
        summary="Amazon SNS topic",
        synonyms=("topic", "topics", "sns", "events", "event", "notifications", "notify", "pubsub", "fanout"),
        variables=("ARN",),
        in_vpc=False,
        holds_data=False,
        component="runway:aws:Topic",
        size_fields=_frozen({None: {"publishes_millions": NUM}}),
        quantities=_topic,
        price_keys=_fixed("sns:standard", "sns:fifo", "sns:fifo:payload"),
        describe=lambda c, q: (f"SNS {'FIFO' if c.get('fifo') else 'Standard'}, {_used(c, 'publishes_millions', q)} M publishes/month"
                               + (f", {q(c['usage_payload_gb'])} GB payload (usage file)" if c.get("usage_payload_gb") is not None else "")),
    ),
    Kind(
        name="cache",
        label="cache (ElastiCache for Valkey)",
        service="ElastiCache for Valkey",
        summary="ElastiCache for Valkey",
        synonyms=("cache", "redis", "valkey", "memcache", "memcached", "sessions", "session"),
        variables=("URL", "HOST", "PORT"),
        in_vpc=True,
        holds_data=True,
        component="runway:aws:Cache",
        size_fields=_frozen({None: {"node_type": STR, "nodes": POSINT}}),
        quantities=_cache,
        price_keys=lambda rows: {f"valkey:{row['node_type']}" for row in rows.get(None, ())},
        describe=lambda c, q: f"{c.get('nodes')} x {c.get('node_type')} node(s), Valkey {c.get('engine_version')}",
        upgraded_in_place_by="ElastiCache",
        billed_by="node-hour",
    ),
    Kind(
        name="bucket",
        label="bucket (S3)",
        service="S3",
        summary="Amazon S3 bucket (Standard)",
        synonyms=("bucket", "buckets", "s3", "files", "storage", "assets", "uploads", "media", "blobs", "objects", "static"),
        variables=("NAME", "ARN"),
        in_vpc=False,
        holds_data=True,
        component="runway:aws:Bucket",
        size_fields=_frozen({None: {"storage_gb": NUM, "put_requests_thousands": NUM, "get_requests_thousands": NUM}}),
        quantities=_bucket,
        price_keys=_fixed("s3:storage", "s3:tier1", "s3:tier2"),
        describe=_bucket_text,
    ),
    Kind(
        name="workload",
        label="workload (ECS Fargate)",
        service="ECS Fargate",
        summary="a container workload on ECS Fargate",
        synonyms=(),
        variables=("URL",),
        in_vpc=True,
        holds_data=False,
        component="runway:aws:Workload",
        size_fields=_frozen({None: {"vcpu": POS, "memory_gb": POS, "log_ingested_gb": NUM}}),
        quantities=_workload,
        price_keys=_fixed(*(f"fargate:{family}:{what}" for _arch, family in WORKLOAD_PLATFORMS.values() for what in ("vcpu", "memory")),
                          "logs:ingestion", "logs:storage"),
        describe=_workload_text,
        resource=False,
    ),
)

#: name -> declaration.
BY_NAME: Mapping[str, Kind] = MappingProxyType({k.name: k for k in REGISTRY})
#: The kinds a ``resources:`` entry may have, in declaration order.
RESOURCE_KINDS: tuple[str, ...] = tuple(k.name for k in REGISTRY if k.resource)
#: The kinds with a size table in ``sizes.toml`` (resources, then the workload).
SIZED_KINDS: tuple[str, ...] = tuple(k.name for k in REGISTRY if k.size_fields is not None)
#: The kinds whose resources keep data a re-creation loses (``Kind.holds_data``).
DATA_KINDS: tuple[str, ...] = tuple(k.name for k in REGISTRY if k.holds_data)
#: The kinds whose data lives in the VPC (``holds_data`` and ``in_vpc``).
VPC_DATA_KINDS: tuple[str, ...] = tuple(k.name for k in REGISTRY if k.holds_data and k.in_vpc)
#: The kind a new resource gets when its name hints at none (a quick fix's guess).
DEFAULT_GUESS = "postgres"
#: The order name hints are tried in: the default guess last, so a name hinting at another
#: kind too (``events-db``) gets that one.
HINT_ORDER: tuple[Kind, ...] = tuple(sorted((k for k in REGISTRY if k.synonyms), key=lambda k: k.name == DEFAULT_GUESS))


def get(name: str | None) -> Kind | None:
    """The declaration of ``name``, or None for a name no kind has."""
    return BY_NAME.get(name) if isinstance(name, str) else None


__all__ = [
    "BY_NAME", "DATA_KINDS", "DEFAULT_GUESS", "WORKLOAD_PLATFORMS", "FARGATE_UNITS", "HINT_ORDER", "Kind", "LineSpec", "REGISTRY", "RESOURCE_KINDS", "SIZED_KINDS",
    "Sizing", "VPC_DATA_KINDS", "get", "infisical_path", "ssm_parameter",
]
