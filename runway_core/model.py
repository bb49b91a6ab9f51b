"""Pydantic v2 models of root and member runways (docs/format.md, "Root runway", "Member runway").

The models check *shape*: types, required keys, unknown keys, ranges. Everything with a
stable rule code of its own (kinds, sizes, names, digests, reasons, uses, caps) is a rule in
:mod:`runway_core.rules`, so that the model stays lenient where a rule explains better.
Field descriptions double as hover documentation for keys.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .kinds import REGISTRY

#: Kinds ADR 0493 §5 reserves: the schema refuses them with why and what brings them back.
RESERVED_KINDS = {
    "kafka": "deferred by ADR 0227; it returns with the event-bus trigger (0142) and a new ADR",
    "opensearch": "deferred by ADR 0227; it returns with the search trigger (0221) and a new ADR",
}
REASON_GROUNDS = ("no-managed-fit", "residency", "on-prem-parity")
DEFAULT_ENVIRONMENTS = ("dev", "staging", "production")
#: Default caps, USD per month (ADR 0493 §3): dev $150, staging $500, others none.
DEFAULT_CAPS: dict[str, Decimal] = {"dev": Decimal(150), "staging": Decimal(500)}
#: Most environments one product reads (docs/format.md "Limits", RW156). Real products have
#: fewer than 20; every environment is priced for every entry, so 400 environments x 400
#: resources (13 KB) froze the editor for 17 s (adversary S1). Past this: RW156 (an error) at
#: the first environment left out, which is not validated, planned nor checked.
MAX_ENVIRONMENTS = 50
#: Most (environment, resource or workload) pairs one product prices (docs/format.md
#: "Limits", RW156): fewer environments are read when the entries are many (2,500 entries:
#: 5 environments). 50 environments x 1,000 resources still took 5 s per hover; a real
#: product prices a few hundred pairs, and the largest generated benchmark workspace
#: (benchmarks/generate.py x8: 2,400 entries x 5 environments) stays inside.
MAX_PRICED_ITEMS = 12_500
#: Most resources and workloads together one product reads (docs/format.md "Limits", RW157),
#: counted resources first, then workloads, in written order. Past this: RW157 (an error) at
#: the first entry left out, which is not validated, planned nor checked. Room for the
#: x8 benchmark workspace (2,400 entries), which measures linear scaling.
MAX_ENTRIES = 2500
EXPOSE_VALUES = ("internal", "public")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


def _version_to_str(v: Any) -> Any:
    # `version: 16` (an int in YAML 1.2) means the same as `version: "16"`.
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    return v


#: The error type of a map with bad entries: its context lists every bad entry, and the
#: analysis reports each at its own key (``runway_core.analysis.validation_diagnostics``).
ENTRIES_ERROR = "runway_entries"


def _bad_entries(entries: list[tuple[str, str]]) -> PydanticCustomError:
    """One pydantic error for every bad entry of a map: ``entries`` is ``[(key, message)]``."""
    return PydanticCustomError(ENTRIES_ERROR, "{message}", {"message": entries[0][1], "entries": entries})


def _check_size_spec(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, dict):
        bad = [(str(k), "the size must be a size name (small, medium, large)") for k, s in v.items() if not isinstance(s, str)]
        if bad:
            raise _bad_entries(bad)
        return v
    raise ValueError("size must be one size name (small, medium, large) or a map {environment: size}")


def _check_scale_spec(v: Any) -> Any:
    if v is None:
        return v
    if isinstance(v, bool):
        raise ValueError("scale must be a task count or a map {environment: count}")
    if isinstance(v, int):
        if not 0 <= v <= 1000:
            raise ValueError("scale must be a task count from 0 to 1000")
        return v
    if isinstance(v, dict):
        bad = [
            (str(k), "the scale must be a task count from 0 to 1000")
            for k, n in v.items()
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 1000
        ]
        if bad:
            raise _bad_entries(bad)
        return v
    raise ValueError("scale must be a task count or a map {environment: count}")


def _check_env(v: Any) -> Any:
    # One clear error per bad entry instead of one per member of the value union (str, int,
    # float, bool); every bad entry is reported, each at its own key.
    if isinstance(v, dict):
        bad = [(str(k), "the value must be a plain string, number or boolean (not a list, a mapping or null)") for k, x in v.items() if x is None or isinstance(x, (dict, list))]
        if bad:
            raise _bad_entries(bad)
    return v


#: Largest accepted `limits.monthly`, USD per month: no runway costs a billion a month, and a
#: larger figure is a typo (docs/format.md "Environments", docs/diagnostics.md RW100).
MAX_CAP_USD = Decimal(1_000_000_000)


class Limits(_Strict):
    monthly: Decimal | None = Field(
        None,
        ge=0,
        # A cap above MAX_CAP_USD caps nothing and overflows money formatting (1e26): a range
        # error, RW100 (docs/format.md "Environments").
        le=MAX_CAP_USD,
        allow_inf_nan=False,
        description="Cap on the environment's monthly estimate, in USD per month (0 to 1,000,000,000). "
        "A plan over its cap is refused before anything is created; `null` means no cap (the environment only "
        "warns with its estimate). Defaults: dev $150, staging $500, others no cap.",
    )

    @field_validator("monthly", mode="before")
    @classmethod
    def _a_number(cls, v: Any) -> Any:
        # pydantic's Decimal reads "100" and "1_000" as numbers; YAML 1.2 reads them as
        # strings, and every other number of the format refuses them (docs/format.md).
        if isinstance(v, (str, bool)):
            raise PydanticCustomError("decimal_type", "Input should be a number (USD per month)")
        return v

    @field_validator("monthly")
    @classmethod
    def _no_negative_zero(cls, v: Decimal | None) -> Decimal | None:
        # `monthly: -0.0` is a cap of zero (YAML reads it as the float -0.0): never "$-0.00".
        return v.copy_abs() if v is not None and v.is_zero() else v


class Environment(_Strict):
    limits: Limits | None = Field(None, description="Limits of this environment: `monthly` is the USD cap on the plan's estimate.")
    disposable: StrictBool | None = Field(
        None,
        description="A disposable environment's data may be lost: no deletion protection, final snapshots or `protect`, changes applied "
        "at once. Default: true for `dev`, false for every other environment.",
    )
    shared: dict[str, str] = Field(
        default_factory=dict,
        description="Sizes of the shared pools, per kind (`cache: small`). Each kind named here or "
        "required by a member becomes the implicit resource `shared-<kind>` (default size small).",
    )


class PostgresEngine(_Strict):
    flavor: Literal["rds", "aurora"] = Field("rds", description="`rds` (RDS for PostgreSQL, default) or `aurora` (Aurora PostgreSQL, Standard).")
    version: str | None = Field(None, description="PostgreSQL major version, 14 to 17.")
    proxy: StrictBool = Field(True, description="Put RDS Proxy in front (default true); the proxy logs in through a Secrets Manager secret.")
    storage_gb: StrictInt | None = Field(None, ge=20, le=65536, description="Allocated gp3 storage in GB; default from the size.")
    backup_retention_days: StrictInt | None = Field(None, ge=0, le=35, description="Automated backup retention in days (0 to 35).")

    _v = field_validator("version", mode="before")(lambda v: _version_to_str(v))

    @field_validator("version")
    @classmethod
    def _major(cls, v: str | None) -> str | None:
        if v is not None and v not in ("14", "15", "16", "17"):
            raise ValueError("version must be a PostgreSQL major version from 14 to 17")
        return v


class DeadLetter(_Strict):
    max_receives: StrictInt = Field(5, ge=1, le=1000, description="Receives before a message moves to the dead-letter queue.")


class QueueEngine(_Strict):
    fifo: StrictBool = Field(False, description="FIFO queue (exactly-once, ordered); priced at the FIFO request rate.")
    visibility_timeout_s: StrictInt | None = Field(None, ge=0, le=43200, description="Visibility timeout in seconds (0 to 43,200).")
    dead_letter: DeadLetter | None = Field(None, description="Add a dead-letter queue with a redrive policy.")


class TopicEngine(_Strict):
    fifo: StrictBool = Field(False, description="FIFO topic; priced at the FIFO publish rate.")


class CacheEngine(_Strict):
    version: str | None = Field(None, description="Valkey engine version (for example \"8.0\").")

    _v = field_validator("version", mode="before")(lambda v: _version_to_str(v) if not isinstance(v, float) else str(v))


class BucketEngine(_Strict):
    versioning: StrictBool = Field(False, description="Keep object versions.")


ENGINE_MODELS: dict[str, type[_Strict]] = {
    "postgres": PostgresEngine,
    "queue": QueueEngine,
    "topic": TopicEngine,
    "cache": CacheEngine,
    "bucket": BucketEngine,
}


def _kinds_in_words() -> str:
    """``postgres (RDS or Aurora), queue (SQS), ... or bucket (S3)``, from the kinds' declarations."""
    words = [f"{k.name} ({k.service})" for k in REGISTRY if k.resource]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


class Resource(_Strict):
    kind: str = Field(description=f"Managed kind: {_kinds_in_words()}.")
    engine: dict[str, Any] | None = Field(None, description="Engine options of the kind (all optional).")
    size: Any = Field(
        None,
        description="`small`, `medium` or `large` for every environment, or a map `{environment: size}`; "
        "an environment it does not name runs small.",
    )

    _size = field_validator("size", mode="before")(lambda v: _check_size_spec(v))


class Health(_Strict):
    path: str | None = Field(None, description="HTTP health-check path, starting with `/`. Exactly one of `path` and `command`.")
    interval_s: StrictInt | None = Field(None, ge=5, le=300, description="Seconds between health checks (5 to 300).")
    timeout_s: StrictInt | None = Field(None, ge=2, le=120, description="Seconds before a check fails (2 to 120).")
    command: list[str] | None = Field(None, description="A command health check, e.g. `[CMD-SHELL, curl -f localhost/health]`. Exactly one of `path` and `command`.")

    @field_validator("path")
    @classmethod
    def _slash(cls, v: str | None) -> str | None:
        # A field validator, so that it is reported together with other fields' errors.
        if v is not None and not v.startswith("/"):
            raise ValueError("the health-check path must start with `/`")
        return v

    @model_validator(mode="after")
    def _one_of(self) -> "Health":
        if (self.path is None) == (self.command is None):
            raise ValueError("health needs exactly one of `path` (HTTP) or `command`")
        if self.command is not None and not self.command:
            raise ValueError("health.command must not be empty")
        return self


class Workload(_Strict):
    image: str = Field(description="Container image pinned by digest: `name@sha256:<64 hex digits>`. A tag alone is an error.")
    port: StrictInt = Field(ge=1, le=65535, description="Container port, 1 to 65535.")
    health: Health = Field(description="Health check: `{ path, interval_s?, timeout_s? }` (HTTP) or `{ command: [...] }`.")
    env: dict[str, Union[str, int, float, bool]] = Field(
        default_factory=dict, description="Plain environment variables. A name that collides with an injected variable is an error."
    )
    secrets: list[str] = Field(default_factory=list, description="Secret names (UPPER_SNAKE); values come from Infisical, never from this file.")
    size: Any = Field(None, description="`small`, `medium` or `large` (ECS Fargate task), or a map `{environment: size}`; default small.")
    scale: Any = Field(None, description="Task count, or a map `{environment: count}`; default 1.")
    uses: list[str] = Field(default_factory=list, description="Resources (or other workloads) this workload uses; each injects fixed variable names.")
    expose: Literal["internal", "public"] = Field("internal", description="`internal` (Cloud Map service discovery, default) or `public` (behind the environment's ALB).")
    platform: Literal["linux/arm64", "linux/amd64"] = Field(
        "linux/arm64",
        description="The image's OCI platform: `linux/arm64` (Fargate Graviton, default) or `linux/amd64` (Fargate x86, priced as such).",
    )
    reason: str | None = Field(
        None,
        description="Required. Why this is a workload and not a managed resource: `no-managed-fit`, `residency` or `on-prem-parity` (ADR 0493 §5).",
    )

    _size = field_validator("size", mode="before")(lambda v: _check_size_spec(v))
    _scale = field_validator("scale", mode="before")(lambda v: _check_scale_spec(v))
    _env = field_validator("env", mode="before")(lambda v: _check_env(v))


class RootRunway(_Strict):
    runway: StrictInt = Field(description="Format version; only `1` exists today.")
    product: str = Field(description="The product's DNS label (`^[a-z][a-z0-9-]{0,30}[a-z0-9]$`); prefixes every AWS name.")
    region: str = Field("us-east-1", description="AWS region used for prices and provisioning (default us-east-1).")
    members: list[str] = Field(default_factory=list, description="Folders (relative paths) holding member runways.")
    environments: dict[str, Environment | None] | None = Field(
        None, description="Environments with their limits and shared pool sizes; default dev, staging, production."
    )
    resources: dict[str, Resource | None] = Field(default_factory=dict, description="Managed resources by name (DNS labels).")
    workloads: dict[str, Workload | None] = Field(default_factory=dict, description="Container workloads by name; each needs a reason.")


class MemberRunway(_Strict):
    runway: StrictInt = Field(description="Format version; only `1` exists today.")
    member: str | None = Field(None, description="The member's name; default: its folder's name.")
    requires: list[str] = Field(default_factory=list, description="Engines this member requires; each becomes a use of the shared pool `shared-<kind>`.")
    uses: list[str] = Field(default_factory=list, description="Resources of the root runway this member uses.")


# --- key tables (shared by unknown-key suggestions, hover docs and completion) ----------

#: Model class for a path pattern; '*' matches any name. The engine table depends on kind.
ROOT_SHAPES: dict[tuple[str, ...], type[BaseModel]] = {
    (): RootRunway,
    ("environments", "*"): Environment,
    ("environments", "*", "limits"): Limits,
    ("resources", "*"): Resource,
    ("resources", "*", "engine", "dead_letter"): DeadLetter,
    ("workloads", "*"): Workload,
    ("workloads", "*", "health"): Health,
}
MEMBER_SHAPES: dict[tuple[str, ...], type[BaseModel]] = {(): MemberRunway}


def model_for(path: tuple[str | int, ...], member: bool, kind: str | None = None) -> type[BaseModel] | None:
    """The model whose keys are valid at mapping ``path`` (None when free-form or unknown)."""
    shapes = MEMBER_SHAPES if member else ROOT_SHAPES
    if not member and len(path) == 3 and path[0] == "resources" and path[2] == "engine":
        return ENGINE_MODELS.get(kind or "")
    for pattern, model in shapes.items():
        if len(pattern) == len(path) and all(p == "*" or p == q for p, q in zip(pattern, path)):
            return model
    return None


def field_doc(model: type[BaseModel], name: str) -> str | None:
    """The description of one field, for hovers and completion."""
    f = model.model_fields.get(name)
    return f.description if f is not None else None
