"""The usage file: the team's own usage quantities, in place of the catalogue's assumptions.

``runway.usage.yaml`` beside the root runway (or the file ``--usage`` / the server's
``usagePath`` names; docs/format.md, "Usage file") gives, per environment and item, the usage
quantities each kind has: requests or publishes per month, GB stored, requests by tier, GB of
logs per task; and per environment the network's NAT data processed and data transfer out.
The same idea as Infracost's usage file (``infracost-usage.yml``: ``resource_usage`` per
resource address, one key per usage quantity, generated with ``--sync-usage-file``)::

    usage: 1
    environments:
      production:
        items:
          orders: {requests_millions: 400}     # a queue
          media: {storage_gb: 5000}            # a bucket
        network:
          nat_processed_gb: 200

:data:`USAGE_KEYS` declares each kind's keys, units and the catalogue field holding its
assumption, once (the kind registry's ``usage`` field when it lands); :func:`parse_usage`
reads a file's text into positioned values and shape diagnostics (RW200); which items and
keys exist is checked by the analysis against the runway (RW201, RW202).

Imports only leaves and :mod:`runway_core.yamlsrc`. Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Mapping

from .diagnostics import Diagnostic, Severity
from .positions import Position, Range
from .yamlsrc import ParsedYaml, YMap, YNode, YScalar, parse_yaml

#: The file name beside the root runway that the analysis reads when it exists.
USAGE_FILE_NAME = "runway.usage.yaml"

#: The format version a usage file declares (``usage: 1``).
USAGE_VERSION = 1

#: The largest usage quantity (the catalogue's own bound on capacity numbers,
#: ``runway_core.catalog.MAX_CAPACITY``): ``1e300`` is refused like a negative number.
MAX_USAGE = Decimal(1_000_000_000)

#: The "item" under which an environment's network quantities are kept in
#: :attr:`UsageFile.environments` (no item can be named so: names are DNS labels).
NETWORK = "(network)"

#: Where a quantity comes from when no usage file gives it (docs/format.md, "Usage file").
CATALOGUE_ASSUMPTION = "catalogue assumption"
#: Where a quantity comes from when it follows from the runway's size and scale (hours,
#: instances, the GB a postgres size provisions), not from usage.
RUNWAY_SIZE = "runway size"


@dataclass(frozen=True)
class UsageKey:
    """One usage quantity of a kind: ``key`` as written in the usage file, its ``unit``
    (per month), what it counts, and ``assumption``: the ``sizes.toml`` field of the size's
    table holding the catalogue's assumption (None: not estimated without a usage file)."""

    key: str
    unit: str
    what: str
    assumption: str | None


#: kind -> its usage keys (docs/format.md, "Usage file"). A self-contained table so that it
#: can become the kind registry's ``usage`` field (issue 21). Kinds without usage (cache:
#: node-hours only) have no keys.
USAGE_KEYS: Mapping[str, tuple[UsageKey, ...]] = {
    "postgres": (UsageKey("io_requests_millions", "M requests/month", "Aurora I/O requests (flavor: aurora only)", "io_requests_millions"),),
    "cache": (),
    "queue": (UsageKey("requests_millions", "M requests/month", "SQS requests", "requests_millions"),),
    "topic": (
        UsageKey("publishes_millions", "M publishes/month", "SNS publishes", "publishes_millions"),
        UsageKey("payload_gb", "GB/month", "SNS FIFO payload data (fifo: true only)", None),
    ),
    "bucket": (
        UsageKey("storage_gb", "GB-month", "S3 Standard storage", "storage_gb"),
        UsageKey("put_requests_thousands", "k requests/month", "PUT, COPY, POST and LIST requests", "put_requests_thousands"),
        UsageKey("get_requests_thousands", "k requests/month", "GET and other requests", "get_requests_thousands"),
    ),
    "workload": (UsageKey("log_ingested_gb", "GB/month per task", "CloudWatch Logs ingested per task", "log_ingested_gb"),),
}

#: The per-environment network quantities (``environments.<env>.network``): not estimated
#: without a usage file (the network is outside the runway, docs/catalog.md).
NETWORK_KEYS: tuple[UsageKey, ...] = (
    UsageKey("nat_processed_gb", "GB/month", "data processed by the network's NAT gateways (when it uses NAT)", None),
    UsageKey("data_transfer_out_gb", "GB/month", "data transfer out to the internet", None),
)


def usage_keys(kind: str) -> tuple[UsageKey, ...]:
    """The usage keys of ``kind`` (:data:`USAGE_KEYS`), or of the network for :data:`NETWORK`."""
    return NETWORK_KEYS if kind == NETWORK else USAGE_KEYS.get(kind, ())


@dataclass(frozen=True)
class UsageValue:
    """One usage quantity as written: ``quantity`` in its key's unit, ``line`` 0-based."""

    quantity: Decimal
    line: int

    @property
    def source(self) -> str:
        """Where the quantity came from, as every face prints it: ``usage file L12``."""
        return f"usage file L{self.line + 1}"


@dataclass(frozen=True)
class UsageEntry:
    """One item (or the network, :data:`NETWORK`) of one environment in the usage file, with
    the ranges of its environment and item keys and of each usage key."""

    env: str
    env_range: Range
    item: str
    item_range: Range
    values: tuple[tuple[str, Range, UsageValue], ...]


@dataclass
class UsageFile:
    """A usage file as read: its parse, its entries and its shape diagnostics (RW200, and the
    parser's own RW001...)."""

    path: str
    parsed: ParsedYaml
    entries: list[UsageEntry] = field(default_factory=list)
    #: every environment the file names, with its key's range (an empty one too)
    environments: list[tuple[str, Range]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _quantity(node: YNode) -> Decimal | None:
    """A non-negative finite number up to :data:`MAX_USAGE`, read exactly from its text."""
    if not isinstance(node, YScalar) or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    try:
        q = Decimal(str(node.value)) if isinstance(node.value, int) else Decimal(node.text.replace("_", ""))
    except InvalidOperation:
        try:
            q = Decimal(repr(node.value))
        except InvalidOperation:
            return None
    if not q.is_finite() or q < 0 or q > MAX_USAGE:
        return None
    if q.as_tuple().exponent > 0:  # type: ignore[operator]
        # `1e3` is 1000 (bounded by MAX_USAGE): without this, line items read "1E+3k requests"
        # (ninth adversary M2); the value is the same.
        q = q.quantize(Decimal(1))
    return q


def parse_usage(text: str, path: str) -> UsageFile:
    """Read a usage file's ``text``: its entries and every shape problem as a positioned RW200
    (or the YAML parser's diagnostics). Never raises for bad input."""
    parsed = parse_yaml(text, path)
    out = UsageFile(path, parsed, diagnostics=list(parsed.diagnostics))

    def bad(node: YNode | Range, message: str) -> None:
        rng = node if isinstance(node, Range) else node.range
        out.diagnostics.append(Diagnostic(path, rng, Severity.ERROR, "RW200", message))

    root = parsed.root
    if parsed.partial or root is None:
        return out
    if not isinstance(root, YMap):
        bad(root, "a usage file is a mapping: `usage: 1` and `environments:`")
        return out
    for key, value in root.entries:
        if key.value not in ("usage", "environments"):
            bad(key, f"unknown key `{key.value}` in a usage file (expected `usage` and `environments`)")
    version = root.get("usage")
    if version is None:
        # A missing top-level key is reported at the file's first key (docs/diagnostics.md).
        bad(root.entries[0][0].range if root.entries else Range(Position(0, 0), Position(0, 0)),
            f"missing `usage: {USAGE_VERSION}` (the usage file format's version)")
    elif not (isinstance(version, YScalar) and version.value == USAGE_VERSION and not isinstance(version.value, bool)):
        bad(version, f"`usage` must be {USAGE_VERSION}")
    envs = root.get("environments")
    if envs is None:
        return out
    if not isinstance(envs, YMap):
        bad(envs, "`environments` maps each environment to its `items` and `network`")
        return out
    for env_key, env_node in envs.entries:
        env = str(env_key.value)
        out.environments.append((env, env_key.range))
        if not isinstance(env_node, YMap):
            if not (isinstance(env_node, YScalar) and env_node.value is None):
                bad(env_node, f"`{env}` maps `items` (item -> usage keys) and `network` (network usage keys)")
            continue
        for sect_key, sect in env_node.entries:
            if sect_key.value == "network":
                out.entries.append(_entry(env, env_key.range, NETWORK, sect_key.range, sect, bad))
            elif sect_key.value == "items":
                if isinstance(sect, YScalar) and sect.value is None:
                    continue
                if not isinstance(sect, YMap):
                    bad(sect, "`items` maps each resource or workload to its usage keys")
                    continue
                for item_key, item_node in sect.entries:
                    out.entries.append(_entry(env, env_key.range, str(item_key.value), item_key.range, item_node, bad))
            else:
                bad(sect_key, f"unknown key `{sect_key.value}` under environment `{env}` (expected `items` and `network`)")
    return out


def _entry(env: str, env_range: Range, item: str, item_range: Range, node: YNode, bad) -> UsageEntry:
    values: list[tuple[str, Range, UsageValue]] = []
    if isinstance(node, YMap):
        for k, v in node.entries:
            q = _quantity(v)
            if q is None:
                bad(v, f"`{k.value}` must be a number from 0 to {MAX_USAGE:,} (a quantity per month)")
                continue
            values.append((str(k.value), k.range, UsageValue(q, v.range.start.line)))
    elif not (isinstance(node, YScalar) and node.value is None):
        bad(node, f"`{item if item != NETWORK else 'network'}` maps usage keys to quantities (e.g. `requests_millions: 400`)")
    return UsageEntry(env, env_range, item, item_range, tuple(values))


__all__ = [
    "USAGE_FILE_NAME",
    "USAGE_VERSION",
    "USAGE_KEYS",
    "NETWORK_KEYS",
    "NETWORK",
    "MAX_USAGE",
    "CATALOGUE_ASSUMPTION",
    "RUNWAY_SIZE",
    "UsageKey",
    "UsageValue",
    "UsageEntry",
    "UsageFile",
    "usage_keys",
    "parse_usage",
]
