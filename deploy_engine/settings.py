"""Network settings of a deploy: the VPC and subnets the Pulumi program places resources in.

The network (VPC, subnets, NAT, endpoints) is outside the runway (docs/catalog.md, "Per-environment
items"): the runway never names it, so a deploy reads it from the environment or from a JSON
file, typed once here (docs/architecture.md §8). Ids are never invented: a missing or malformed value is a
:class:`SettingsError` that names the variable (or file key) to set.

Environment variables (each overrides the same key of the file):

- ``RUNWAY_VPC_ID``: ``vpc-...``;
- ``RUNWAY_PRIVATE_SUBNET_IDS``: comma-separated ``subnet-...``, at least two (an RDS subnet
  group spans two Availability Zones); tasks, databases, caches and the RDS Proxy go here;
- ``RUNWAY_PUBLIC_SUBNET_IDS``: comma-separated, needed only when a workload is
  ``expose: public`` (the ALB's subnets, at least two);
- ``RUNWAY_ALLOWED_CIDR``: optional IPv4 CIDR also allowed to reach databases, caches and
  internal workloads (a peered network or the VPC's own range), besides the workloads;
- ``RUNWAY_PUBLIC_DOMAIN``: optional DNS domain of public workloads (``<workload>.<domain>``),
  needed when more than one workload is public (see :mod:`deploy_engine.program`);
- ``RUNWAY_CERTIFICATE_ARN``: optional ACM certificate of the ALB (``arn:aws:acm:...``): HTTPS
  on 443 and a redirect from HTTP on 80. Without it, the ALB listens on HTTP only, which
  :func:`plan_network_check` refuses in production unless ``RUNWAY_ALLOW_HTTP=1``;
- ``RUNWAY_HOSTED_ZONE_ID``: optional Route 53 hosted zone (``Z...``) of ``RUNWAY_PUBLIC_DOMAIN``:
  an alias record ``<workload>.<domain>`` -> the ALB per public workload;
- ``RUNWAY_AWS_ACCOUNT_IDS``: optional comma-separated 12-digit account ids: the program's AWS
  provider refuses to run against any other account (``allowed_account_ids``);
- ``RUNWAY_HEALTH_PROBE_IMAGE``: optional image (``name@sha256:<64 hex>``) of the health probe
  sidecar of internal workloads with ``health.path`` (default
  :data:`deploy_engine.program.workload.HEALTH_PROBE_IMAGE`), e.g. a copy in private ECR for
  private subnets without a NAT gateway.

File (``path``, e.g. ``.runway/network.json``): a JSON object with the keys ``vpc_id``,
``private_subnet_ids``, ``public_subnet_ids`` (lists or comma-separated strings),
``allowed_cidr``, ``public_domain``, ``certificate_arn``, ``hosted_zone_id``, ``allowed_account_ids``,
``health_probe_image``.

The program reads the same settings from the stack configuration (namespace ``runway``,
:func:`config_values` / :func:`settings_from_config`), so a stack can be previewed with plain
``pulumi preview`` too.

:func:`plan_network_check` checks the settings against one environment's plan (public subnets
for public workloads, a public domain for several, the certificate rule): the CLI runs it in
its configuration guard (exit 3), before Pulumi, so the program never meets a gap.

Must not import pulumi (the CLI's pure commands may read settings).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from runway_core import kinds
from runway_core.planner import DISPOSABLE_BY_DEFAULT
from runway_core.workspace import JsonDocumentError, read_json

_VPC_ID = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_DOMAIN = re.compile(r"^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
_CERTIFICATE_ARN = re.compile(r"^arn:aws(-[a-z]+)*:acm:[a-z0-9-]+:\d{12}:certificate/[A-Za-z0-9-]+$")
_HOSTED_ZONE_ID = re.compile(r"^Z[A-Z0-9]{1,31}$")
_ACCOUNT_ID = re.compile(r"^\d{12}$")
#: An image pinned by digest, as docs/format.md requires of every workload image.
_PINNED_IMAGE = re.compile(r"^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$")

#: (settings field, environment variable) pairs, in the order errors are reported.
ENV_VARS = {
    "vpc_id": "RUNWAY_VPC_ID",
    "private_subnet_ids": "RUNWAY_PRIVATE_SUBNET_IDS",
    "public_subnet_ids": "RUNWAY_PUBLIC_SUBNET_IDS",
    "allowed_cidr": "RUNWAY_ALLOWED_CIDR",
    "public_domain": "RUNWAY_PUBLIC_DOMAIN",
    "certificate_arn": "RUNWAY_CERTIFICATE_ARN",
    "hosted_zone_id": "RUNWAY_HOSTED_ZONE_ID",
    "allowed_account_ids": "RUNWAY_AWS_ACCOUNT_IDS",
    "health_probe_image": "RUNWAY_HEALTH_PROBE_IMAGE",
}
#: Settings field -> stack configuration key (namespace ``runway``): what the program reads.
CONFIG_KEYS = {
    "vpc_id": "vpcId",
    "private_subnet_ids": "privateSubnetIds",
    "public_subnet_ids": "publicSubnetIds",
    "allowed_cidr": "allowedCidr",
    "public_domain": "publicDomain",
    "certificate_arn": "certificateArn",
    "hosted_zone_id": "hostedZoneId",
    "allowed_account_ids": "allowedAccountIds",
    "health_probe_image": "healthProbeImage",
}
_LIST_FIELDS = ("private_subnet_ids", "public_subnet_ids", "allowed_account_ids")
#: ``1`` lets a production environment serve its public workloads over plain HTTP (no certificate).
ALLOW_HTTP_VARIABLE = "RUNWAY_ALLOW_HTTP"
#: Environments whose public workloads must be served over HTTPS (or ``RUNWAY_ALLOW_HTTP=1``).
PRODUCTION_ENVIRONMENTS = frozenset({"production"})
#: Environments where data may be destroyed with the stack (no deletion protection, no final
#: snapshot, no ``protect``, a postgres flavor may switch). Every other environment keeps them.
#: The default only: an environment's own ``disposable`` key decides (the plan's ``disposable``).
DISPOSABLE_ENVIRONMENTS = DISPOSABLE_BY_DEFAULT


class SettingsError(ValueError):
    """A network setting is missing or malformed; the message names what to set."""


@dataclass(frozen=True)
class NetworkSettings:
    """Where one environment's resources go. Ids are AWS ids, never invented.

    ``private_subnet_ids`` holds at least two subnets; ``public_subnet_ids`` may be empty
    (then no workload may be public); ``allowed_cidr``, ``public_domain`` and
    ``certificate_arn`` (an ACM certificate for the ALB's HTTPS listener) are optional.
    """

    vpc_id: str
    private_subnet_ids: tuple[str, ...]
    public_subnet_ids: tuple[str, ...] = ()
    allowed_cidr: str | None = None
    public_domain: str | None = None
    certificate_arn: str | None = None
    hosted_zone_id: str | None = None
    allowed_account_ids: tuple[str, ...] = ()
    #: The health probe sidecar's image (None: the program's pinned default).
    health_probe_image: str | None = None

    def __post_init__(self) -> None:
        # Tuples whatever the caller passed, so that settings stay immutable and hashable.
        for name in _LIST_FIELDS:
            object.__setattr__(self, name, tuple(getattr(self, name)))
        problems = _problems(self)
        if problems:
            raise SettingsError("invalid network settings: " + "; ".join(problems))


def _problems(s: NetworkSettings) -> list[str]:
    out: list[str] = []
    if not _VPC_ID.fullmatch(s.vpc_id or ""):
        out.append(f"{ENV_VARS['vpc_id']}: {s.vpc_id!r} is not a VPC id (vpc-<hex>)")
    for field, ids, minimum in (
        ("private_subnet_ids", s.private_subnet_ids, 2),
        ("public_subnet_ids", s.public_subnet_ids, 0),
    ):
        bad = [i for i in ids if not _SUBNET_ID.fullmatch(i)]
        if bad:
            out.append(f"{ENV_VARS[field]}: {', '.join(repr(b) for b in bad)} not a subnet id (subnet-<hex>)")
        if len(set(ids)) != len(ids):
            out.append(f"{ENV_VARS[field]}: a subnet is listed twice")
        if len(ids) < minimum:
            out.append(f"{ENV_VARS[field]}: needs at least {minimum} subnets in different Availability Zones, got {len(ids)}")
        if 0 < len(ids) < 2 and field == "public_subnet_ids":
            out.append(f"{ENV_VARS[field]}: an Application Load Balancer needs at least 2 subnets, got {len(ids)}")
    overlap = set(s.private_subnet_ids) & set(s.public_subnet_ids)
    if overlap:
        out.append(f"{', '.join(sorted(overlap))} listed as both private and public")
    if s.allowed_cidr is not None:
        try:
            net = ipaddress.ip_network(s.allowed_cidr, strict=True)
        except ValueError:
            out.append(f"{ENV_VARS['allowed_cidr']}: {s.allowed_cidr!r} is not a CIDR block (e.g. 10.0.0.0/16)")
        else:
            if net.version != 4 or net.prefixlen == 0:
                out.append(f"{ENV_VARS['allowed_cidr']}: {s.allowed_cidr!r} must be an IPv4 range narrower than /0")
    if s.public_domain is not None and not _DOMAIN.fullmatch(s.public_domain):
        out.append(f"{ENV_VARS['public_domain']}: {s.public_domain!r} is not a lowercase DNS domain")
    if s.certificate_arn is not None and not _CERTIFICATE_ARN.fullmatch(s.certificate_arn):
        out.append(f"{ENV_VARS['certificate_arn']}: {s.certificate_arn!r} is not an ACM certificate ARN "
                   "(arn:aws:acm:<region>:<account>:certificate/<id>)")
    if s.hosted_zone_id is not None:
        if not _HOSTED_ZONE_ID.fullmatch(s.hosted_zone_id):
            out.append(f"{ENV_VARS['hosted_zone_id']}: {s.hosted_zone_id!r} is not a Route 53 hosted zone id (Z<letters and digits>)")
        if s.public_domain is None:
            out.append(f"{ENV_VARS['hosted_zone_id']} needs {ENV_VARS['public_domain']} (the records are <workload>.<domain>)")
    bad_accounts = [a for a in s.allowed_account_ids if not _ACCOUNT_ID.fullmatch(a)]
    if bad_accounts:
        out.append(f"{ENV_VARS['allowed_account_ids']}: {', '.join(repr(a) for a in bad_accounts)} not a 12-digit AWS account id")
    if s.health_probe_image is not None and not _PINNED_IMAGE.fullmatch(s.health_probe_image):
        out.append(f"{ENV_VARS['health_probe_image']}: {s.health_probe_image!r} is not an image pinned by digest "
                   "(name@sha256:<64 hex>); it must offer wget (BusyBox's or GNU's) on the task's platform")
    return out


def _ids(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        raise SettingsError(f"{where}: expected a list of ids or a comma-separated string")
    return tuple(p.strip() for p in parts if p.strip())


def _read_file(path: str | Path) -> dict[str, Any]:
    try:
        # The one bounded reader: regular file only (a FIFO would block), size and depth capped.
        doc = read_json(str(path))
    except JsonDocumentError as exc:
        raise SettingsError(f"network settings file {path}: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"network settings file {path}: cannot read it ({exc.strerror or exc})") from None
    if not isinstance(doc, dict):
        raise SettingsError(f"network settings file {path}: expected a JSON object")
    unknown = sorted(set(doc) - set(ENV_VARS))
    if unknown:
        raise SettingsError(f"network settings file {path}: unknown key(s) {', '.join(unknown)} (known: {', '.join(ENV_VARS)})")
    return doc


def load_network_settings(environ: Mapping[str, str], path: str | Path | None = None) -> NetworkSettings:
    """Read :class:`NetworkSettings` from ``environ`` and, if given, the JSON file at ``path``.

    A non-empty environment variable overrides the file's key. Raises :class:`SettingsError`
    naming every missing required value (``RUNWAY_VPC_ID``, ``RUNWAY_PRIVATE_SUBNET_IDS``) or
    malformed one, and when ``path`` is given but unreadable or not a JSON object.
    """
    doc = _read_file(path) if path is not None else {}
    where = f" (or {{key}} in {path})" if path is not None else ""
    values: dict[str, Any] = {}
    for field, var in ENV_VARS.items():
        raw = environ.get(var)
        if raw is not None and raw.strip():
            values[field] = raw.strip()
        elif doc.get(field) not in (None, "", []):
            values[field] = doc[field]
    missing = [f"{ENV_VARS[f]}{where.format(key=f)}" for f in ("vpc_id", "private_subnet_ids") if f not in values]
    if missing:
        raise SettingsError("missing network settings: set " + " and ".join(missing) + "; runway never invents network ids")
    return _settings(values, lambda f: ENV_VARS[f])


def _settings(values: Mapping[str, Any], where: Any) -> NetworkSettings:
    for field in ENV_VARS:
        if field not in _LIST_FIELDS and field in values and not isinstance(values[field], str):
            raise SettingsError(f"{where(field)}: expected a string")
    return NetworkSettings(
        vpc_id=values["vpc_id"],
        private_subnet_ids=_ids(values["private_subnet_ids"], where("private_subnet_ids")),
        public_subnet_ids=_ids(values.get("public_subnet_ids"), where("public_subnet_ids")),
        allowed_cidr=values.get("allowed_cidr"),
        public_domain=values.get("public_domain"),
        certificate_arn=values.get("certificate_arn"),
        hosted_zone_id=values.get("hosted_zone_id"),
        allowed_account_ids=_ids(values.get("allowed_account_ids"), where("allowed_account_ids")),
        health_probe_image=values.get("health_probe_image"),
    )


def config_values(network: NetworkSettings) -> dict[str, str]:
    """The stack configuration (``runway:<key>`` -> string) that :func:`settings_from_config` reads back.

    Lists are comma-separated; unset optional settings are left out. Nothing here is secret.
    """
    out: dict[str, str] = {}
    for field, key in CONFIG_KEYS.items():
        value = getattr(network, field)
        if field in _LIST_FIELDS:
            if value:
                out[key] = ",".join(value)
        elif value is not None:
            out[key] = value
    return out


def settings_from_config(get: Any) -> NetworkSettings:
    """:class:`NetworkSettings` from stack configuration: ``get(key)`` returns ``runway:<key>`` or None.

    Raises :class:`SettingsError` naming ``runway:vpcId`` / ``runway:privateSubnetIds`` when missing.
    """
    values: dict[str, Any] = {}
    for field, key in CONFIG_KEYS.items():
        raw = get(key)
        if raw not in (None, ""):
            values[field] = raw
    missing = [f"runway:{CONFIG_KEYS[f]}" for f in ("vpc_id", "private_subnet_ids") if f not in values]
    if missing:
        raise SettingsError("missing stack configuration: set " + " and ".join(missing) + " (`pulumi config set`)")
    return _settings(values, lambda f: f"runway:{CONFIG_KEYS[f]}")


@dataclass(frozen=True)
class NetworkCheck:
    """What :func:`plan_network_check` found: ``problems`` refuse the deploy (exit 3, each names
    the variable to set), ``warnings`` are printed and the deploy goes on."""

    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def plan_network_check(network: NetworkSettings, plan: Any, environ: Mapping[str, str]) -> NetworkCheck:
    """Check ``network`` against what one environment's plan (an ``EnvironmentPlan``) needs.

    Problems: a public workload without ``RUNWAY_PUBLIC_SUBNET_IDS`` (the ALB's subnets); two or
    more public workloads without ``RUNWAY_PUBLIC_DOMAIN`` (they share the ALB and are routed by
    host name); a public workload in a production environment (:data:`PRODUCTION_ENVIRONMENTS`)
    without ``RUNWAY_CERTIFICATE_ARN``, unless ``RUNWAY_ALLOW_HTTP=1``. Warnings: plain HTTP in
    another environment (or allowed in production); a certificate without a public domain
    (``<W>_URL`` is then the ALB's DNS name, which the certificate does not cover); a database
    or cache used by members and no ``RUNWAY_ALLOWED_CIDR`` (members do not run in this
    environment's ECS, so only that range can reach it).
    """
    env = plan.name
    workloads = [i for i in plan.items if i.kind == "workload"]
    public = [w.name for w in workloads if (w.capacity or {}).get("expose") == "public"]
    problems: list[str] = []
    warnings: list[str] = []
    if public:
        names = ", ".join(public)
        if not network.public_subnet_ids:
            problems.append(f"{env}: public workload(s) {names} need the ALB's subnets: set {ENV_VARS['public_subnet_ids']}")
        if len(public) > 1 and not network.public_domain:
            problems.append(f"{env}: {len(public)} public workloads ({names}) share one ALB and are routed by host name "
                            f"(<workload>.<domain>): set {ENV_VARS['public_domain']}")
        if not network.certificate_arn:
            allowed = (environ.get(ALLOW_HTTP_VARIABLE) or "").strip() == "1"
            if env in PRODUCTION_ENVIRONMENTS and not allowed:
                problems.append(f"{env}: public workload(s) {names} would be served over plain HTTP: set "
                                f"{ENV_VARS['certificate_arn']} (an ACM certificate: HTTPS on 443, HTTP redirected), "
                                f"or {ALLOW_HTTP_VARIABLE}=1 to accept HTTP")
            else:
                warnings.append(f"{env}: no {ENV_VARS['certificate_arn']}: public workload(s) {names} are served over plain HTTP "
                                "(port 80); set it for HTTPS")
        elif not network.public_domain:
            warnings.append(f"{env}: {ENV_VARS['certificate_arn']} is set but {ENV_VARS['public_domain']} is not: "
                            "<W>_URL is https://<ALB DNS name>, which the certificate does not cover")
    workload_names = {w.name for w in workloads}
    if not network.allowed_cidr:
        for item in plan.items:
            kind = kinds.get(item.kind)
            if kind is None or not kind.resource or not kind.in_vpc:
                continue  # only what sits in the VPC is reached through its security groups
            members = [c for c in item.consumers if c not in workload_names]
            if members:
                warnings.append(f"{env}: {item.name} is used by member(s) {', '.join(members)}, which do not run in this environment's ECS: "
                                f"only its workloads' security groups can reach it; set {ENV_VARS['allowed_cidr']} to the members' network")
    return NetworkCheck(tuple(problems), tuple(warnings))


__all__ = [
    "ALLOW_HTTP_VARIABLE",
    "ENV_VARS",
    "NetworkCheck",
    "NetworkSettings",
    "CONFIG_KEYS",
    "DISPOSABLE_ENVIRONMENTS",
    "PRODUCTION_ENVIRONMENTS",
    "SettingsError",
    "config_values",
    "settings_from_config",
    "load_network_settings",
    "plan_network_check",
]
