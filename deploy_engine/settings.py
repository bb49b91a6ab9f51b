"""Network settings of a deploy: the VPC and subnets the Pulumi program places resources in.

The network (VPC, subnets, NAT, endpoints) is outside the runway (CATALOG.md, "Per-environment
items"): the runway never names it, so a deploy reads it from the environment or from a JSON
file, typed once here (STYLE.md §8). Ids are never invented: a missing or malformed value is a
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
  needed when more than one workload is public (see :mod:`deploy_engine.program`).

File (``path``, e.g. ``.runway/network.json``): a JSON object with the keys ``vpc_id``,
``private_subnet_ids``, ``public_subnet_ids`` (lists or comma-separated strings),
``allowed_cidr``, ``public_domain``.

Must not import pulumi (the CLI's pure commands may read settings).
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

_VPC_ID = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_DOMAIN = re.compile(r"^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")

#: (settings field, environment variable) pairs, in the order errors are reported.
ENV_VARS = {
    "vpc_id": "RUNWAY_VPC_ID",
    "private_subnet_ids": "RUNWAY_PRIVATE_SUBNET_IDS",
    "public_subnet_ids": "RUNWAY_PUBLIC_SUBNET_IDS",
    "allowed_cidr": "RUNWAY_ALLOWED_CIDR",
    "public_domain": "RUNWAY_PUBLIC_DOMAIN",
}


class SettingsError(ValueError):
    """A network setting is missing or malformed; the message names what to set."""


@dataclass(frozen=True)
class NetworkSettings:
    """Where one environment's resources go. Ids are AWS ids, never invented.

    ``private_subnet_ids`` holds at least two subnets; ``public_subnet_ids`` may be empty
    (then no workload may be public); ``allowed_cidr`` and ``public_domain`` are optional.
    """

    vpc_id: str
    private_subnet_ids: tuple[str, ...]
    public_subnet_ids: tuple[str, ...] = ()
    allowed_cidr: str | None = None
    public_domain: str | None = None

    def __post_init__(self) -> None:
        # Tuples whatever the caller passed, so that settings stay immutable and hashable.
        object.__setattr__(self, "private_subnet_ids", tuple(self.private_subnet_ids))
        object.__setattr__(self, "public_subnet_ids", tuple(self.public_subnet_ids))
        problems = _problems(self)
        if problems:
            raise SettingsError("invalid network settings: " + "; ".join(problems))


def _problems(s: NetworkSettings) -> list[str]:
    out: list[str] = []
    if not _VPC_ID.match(s.vpc_id or ""):
        out.append(f"{ENV_VARS['vpc_id']}: {s.vpc_id!r} is not a VPC id (vpc-<hex>)")
    for field, ids, minimum in (
        ("private_subnet_ids", s.private_subnet_ids, 2),
        ("public_subnet_ids", s.public_subnet_ids, 0),
    ):
        bad = [i for i in ids if not _SUBNET_ID.match(i)]
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
    if s.public_domain is not None and not _DOMAIN.match(s.public_domain):
        out.append(f"{ENV_VARS['public_domain']}: {s.public_domain!r} is not a lowercase DNS domain")
    return out


def _ids(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        raise SettingsError(f"{where}: expected a list of subnet ids or a comma-separated string")
    return tuple(p.strip() for p in parts if p.strip())


def _read_file(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"network settings file {path}: cannot read it ({exc.strerror or exc})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"network settings file {path}: not JSON (line {exc.lineno}: {exc.msg})") from None
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
    for field in ("vpc_id", "allowed_cidr", "public_domain"):
        if field in values and not isinstance(values[field], str):
            raise SettingsError(f"{ENV_VARS[field]}: expected a string")
    return NetworkSettings(
        vpc_id=values["vpc_id"],
        private_subnet_ids=_ids(values["private_subnet_ids"], ENV_VARS["private_subnet_ids"]),
        public_subnet_ids=_ids(values.get("public_subnet_ids"), ENV_VARS["public_subnet_ids"]),
        allowed_cidr=values.get("allowed_cidr"),
        public_domain=values.get("public_domain"),
    )


__all__ = ["ENV_VARS", "NetworkSettings", "SettingsError", "load_network_settings"]
