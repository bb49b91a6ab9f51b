"""The size and unit-price catalogue behind every cost estimate.

This module loads and validates the two data files of a catalogue folder:

- ``sizes.toml``: what each named size of each kind means in AWS capacity (instance class,
  storage, assumed monthly usage...). Capacity only, never a price or a total.
- ``prices.csv``: AWS unit prices, one row per price, each with its unit, source, confidence
  level and the date the source states. Rows with a non-empty ``key`` column are the ones the
  planner uses; the others are kept for reference only (still validated).

The packaged default lives in the ``catalog`` package (shipped in the wheel); a settings
"catalogue override path" may point to another folder holding the same two files.

Every number comes back as ``decimal.Decimal`` (never ``float``) so estimates are exact.
A price is looked up per region and never falls back to another region: a missing price is a
gap the caller must report.

This module is pure: it imports only the standard library. It must NEVER import pygls,
lsprotocol or pulumi (nor anything from the editor or deploy layers), so the CLI, the language
server and the tests can all use it cheaply. It memoises nothing globally but the AWS region list (:func:`aws_regions`,
packaged data that does not change while running); callers cache the returned ``Catalog``
if they want to.

``aws_regions.json`` is the list of every AWS region (each partition's), generated from
botocore's endpoint data by ``python -m deploy_engine.pricelist.regions`` (botocore is not a
dependency of this package): :func:`aws_regions` reads it, so the checker tells "a valid AWS
region the catalogue does not price" (RW160) from "not an AWS region" (RW164).
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .files import NotRegularFile, open_regular
from .kinds import BOOL as _BOOL, BY_NAME as _KINDS, INT as _INT, NUM as _NUM, POS as _POS, POSINT as _POSINT, SIZED_KINDS, STR as _STR

__all__ = [
    "CONFIDENCE_LEVELS",
    "LOG_RETENTION_DAYS",
    "SIZES",
    "KINDS",
    "POSTGRES_FLAVORS",
    "CatalogError",
    "UnitPrice",
    "Catalog",
    "load_catalog",
    "aws_regions",
    "is_region_code",
    "AWS_REGIONS_FILE",
]

#: Confidence levels of a unit price, strongest first (docs/catalog.md).
CONFIDENCE_LEVELS: tuple[str, ...] = ("price-list", "aws-static", "secondary", "derived", "unverified")

#: The confidences whose prices no one checked against AWS: a capped verdict that their
#: stated uncertainty could flip is warned about (RW172, docs/catalog.md "Uncertainty").
UNCHECKED_CONFIDENCES: tuple[str, ...] = ("derived", "unverified")

#: The uncertainty (± percent) of a ``derived`` or ``unverified`` price whose row states none
#: in its ``uncertainty`` column (a catalogue folder without the column, a refreshed row).
#: derived: the largest spread of the shipped derivations' own checks (docs/catalog.md);
#: unverified: a best-known figure is taken to be within ±10%.
DEFAULT_UNCERTAINTY_PCT: dict[str, Decimal] = {"derived": Decimal(5), "unverified": Decimal(10)}

#: The size names every kind must define.
SIZES: tuple[str, ...] = ("small", "medium", "large")

#: Kinds that have a size table in ``sizes.toml``: those whose declaration in
#: :mod:`runway_core.kinds` has one, in its order.
KINDS: tuple[str, ...] = SIZED_KINDS

#: Flavors of ``postgres``; the first is the default.
POSTGRES_FLAVORS: tuple[str, ...] = _KINDS["postgres"].flavors

SIZES_FILE = "sizes.toml"
PRICES_FILE = "prices.csv"
PACKAGED_ORIGIN = "packaged default"
#: Every AWS region by partition, from botocore's endpoint data (module docstring).
AWS_REGIONS_FILE = "aws_regions.json"

_PRICE_COLUMNS = ("key", "service", "item", "region", "unit", "usd", "confidence", "source", "seen")
_REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d$")
_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9.:_-]*$")


def is_region_code(text: str) -> bool:
    """Whether ``text`` is a region code as ``prices.csv`` holds one (``eu-west-1``)."""
    return _REGION_RE.fullmatch(text) is not None
_SIZE_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")

#: The fields of each size table, by (kind, flavor or None): each kind's declaration.
_CAPACITY_SCHEMAS: dict[tuple[str, str | None], Mapping[str, str]] = {
    (k, flavor): fields for k in KINDS for flavor, fields in (_KINDS[k].size_fields or {}).items()
}

_ENVIRONMENT_SCHEMA: dict[str, str] = {
    "alb_lcu": _NUM,
    "alb_public_ipv4": _INT,
    "proxy_min_vcpus": _INT,
    "log_retention_days": _POSINT,
}

#: The retention periods a CloudWatch Logs log group accepts (``PutRetentionPolicy``,
#: ``retentionInDays``): ``log_retention_days`` must be one, since the program sets it.
LOG_RETENTION_DAYS: frozenset[int] = frozenset(
    {1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}
)

_TOP_LEVEL = ("hours_per_month", *KINDS, "environment")


class CatalogError(Exception):
    """Invalid catalogue data; the message names the file and the line (CSV) or key (TOML), and
    quotes a bad value through :func:`_cell` (at most :data:`_CELL_CHARS` of it). A catalogue is
    input someone else may have written (a mirror, a pull request): one 100,000-character cell
    put 100 KB on stderr (ninth adversary M5), so the whole message is bounded too."""

    def __init__(self, message: str) -> None:
        if len(message) > _MESSAGE_CHARS:
            message = message[:_MESSAGE_CHARS] + f"… ({len(message):,} characters, cut)"
        super().__init__(message)


#: Most characters of a catalogue value a message quotes, and of a whole message.
_CELL_CHARS = 60
_MESSAGE_CHARS = 1_000


def _cell(value: object) -> str:
    """``repr(value)`` for a message, cut to :data:`_CELL_CHARS` with its length said."""
    shown = repr(value)
    if len(shown) <= _CELL_CHARS:
        return shown
    length = len(value) if isinstance(value, (str, bytes, list, dict, tuple)) else len(shown)
    return f"{shown[:_CELL_CHARS]}… ({length:,} characters)"


@dataclass(frozen=True)
class UnitPrice:
    """One AWS unit price for one region.

    - ``key``: our stable price id, e.g. ``"rds:db.t4g.micro:single-az"``.
    - ``region``: a single AWS region, e.g. ``"us-east-1"`` (a CSV row covering
      ``"eu-west-1;eu-central-1"`` yields one ``UnitPrice`` per region).
    - ``service``, ``item``: human-readable names from the CSV.
    - ``unit``: what ``usd`` is per, e.g. ``"instance-hour"``, ``"GB-month"``, ``"1M requests"``.
    - ``usd``: non-negative US dollars per ``unit``.
    - ``confidence``: one of ``CONFIDENCE_LEVELS``.
    - ``source``: where the figure comes from (never empty).
    - ``seen``: the date the source states (free text such as ``"2026-09-24"`` or ``"2026-07"``).
    """

    key: str
    region: str
    service: str
    item: str
    unit: str
    usd: Decimal
    confidence: str
    source: str
    seen: str
    uncertainty_pct: Decimal | None = None

    @property
    def stated_uncertainty(self) -> Decimal:
        """± percent this price may be off: the row's ``uncertainty``, else the default of its
        confidence (:data:`DEFAULT_UNCERTAINTY_PCT`); 0 for a checked price (price-list,
        aws-static, secondary)."""
        if self.confidence not in UNCHECKED_CONFIDENCES:
            return Decimal(0)
        return self.uncertainty_pct if self.uncertainty_pct is not None else DEFAULT_UNCERTAINTY_PCT[self.confidence]


@dataclass(frozen=True)
class Catalog:
    """A loaded, validated catalogue. Immutable; build it with ``load_catalog``.

    - ``hours_per_month``: hours in a billing month (``Decimal("730")`` by default).
    - ``regions``: every region that has at least one keyed price.
    - ``origin``: where it was loaded from: the folder path, or ``"packaged default"``.
    - ``environment``: the ``[environment]`` table, read-only ``{name: Decimal}``:
      ``alb_lcu`` (average LCUs per public ALB), ``alb_public_ipv4`` (public IPv4 addresses per
      ALB), ``proxy_min_vcpus`` (minimum vCPUs billed per RDS Proxy target) and
      ``log_retention_days`` (days each workload's CloudWatch log group keeps its events, one
      of :data:`LOG_RETENTION_DAYS`).
    """

    hours_per_month: Decimal
    regions: frozenset[str]
    origin: str
    environment: Mapping[str, Decimal]
    _prices: Mapping[tuple[str, str], UnitPrice] = field(repr=False)
    # (kind, flavor or None) -> {size: read-only capacity mapping}
    _capacity: Mapping[tuple[str, str | None], Mapping[str, Mapping[str, Any]]] = field(repr=False)

    def price(self, key: str, region: str) -> UnitPrice | None:
        """The unit price ``key`` in ``region``, or ``None`` when the catalogue has none there.

        Never falls back to another region: ``None`` is a gap the caller must report.
        """
        return self._prices.get((key, region))

    def prices_for(self, region: str) -> tuple[UnitPrice, ...]:
        """Every keyed unit price of ``region``, sorted by key (empty for an unknown region)."""
        return tuple(sorted((p for (_, r), p in self._prices.items() if r == region), key=lambda p: p.key))

    def capacity(self, kind: str, size: str, flavor: str | None = None) -> Mapping[str, Any] | None:
        """What ``size`` of ``kind`` means in AWS capacity, as a read-only mapping.

        ``kind`` is one of ``KINDS``. ``flavor`` is only for ``postgres`` (``"rds"`` or
        ``"aurora"``; ``None`` means ``"rds"``). Values are ``Decimal`` for numbers, ``str`` for
        names and ``bool`` for flags. Fields per kind:

        - postgres/rds: instance_class (str), multi_az (bool), storage_gb (GB of gp3),
          vcpus (per instance, for RDS Proxy billing)
        - postgres/aurora: instance_class (str), instances, storage_gb (GB),
          io_requests_millions (assumed I/O requests per month), vcpus (per instance)
        - cache: node_type (str), nodes
        - queue: requests_millions (assumed per month)
        - topic: publishes_millions (assumed per month)
        - bucket: storage_gb, put_requests_thousands, get_requests_thousands (per month)
        - workload: vcpu, memory_gb, log_ingested_gb (assumed GB of CloudWatch Logs ingested
          per month), all per task

        Returns ``None`` for an unknown size or postgres flavor. Raises ``ValueError`` for an
        unknown kind, or a flavor given for a kind other than postgres.
        """
        table = self._capacity.get(_table_id(kind, flavor))
        if table is None:
            return None
        return table.get(size)

    def sizes(self, kind: str) -> tuple[str, ...]:
        """The size names of ``kind``: ``SIZES`` first, then any extra sizes in file order.

        For ``postgres`` every flavor has the same sizes. Raises ``ValueError`` for an unknown kind.
        """
        table = self._capacity[_table_id(kind, None)]
        return tuple(table)


def _table_id(kind: str, flavor: str | None) -> tuple[str, str | None]:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    flavors = _KINDS[kind].flavors
    if flavors:
        return (kind, flavors[0] if flavor is None else flavor)
    if flavor is not None:
        raise ValueError(f"kind {kind!r} has no flavors (got flavor {flavor!r})")
    return (kind, None)


# --------------------------------------------------------------------------------------------
# Loading


def load_catalog(path: str | os.PathLike[str] | None = None) -> Catalog:
    """Load and validate a catalogue.

    ``path=None`` loads the packaged default (:data:`PACKAGED_FOLDER`). Otherwise ``path`` is a folder holding ``sizes.toml`` and
    ``prices.csv`` (the settings "catalogue override path"); both files are required.

    Raises ``CatalogError`` (message names the file and the CSV line or TOML key) when the
    folder or a file is missing or unreadable, or the data is invalid: missing CSV columns,
    ``usd`` not a non-negative decimal, an unknown confidence, an empty source or unit, a
    malformed region, a duplicate (key, region), a kind missing one of ``SIZES``, a missing or
    negative capacity number, an unknown table or field, a non-positive ``hours_per_month``.
    Nothing is cached: every call reads the files again.
    """
    if path is None:
        root = PACKAGED_FOLDER
        origin = PACKAGED_ORIGIN
        sizes_name = f"catalog/{SIZES_FILE} ({PACKAGED_ORIGIN})"
        prices_name = f"catalog/{PRICES_FILE} ({PACKAGED_ORIGIN})"
        sizes_bytes = _read(root.joinpath(SIZES_FILE), sizes_name)
        prices_bytes = _read(root.joinpath(PRICES_FILE), prices_name)
    else:
        folder = Path(path)
        origin = str(folder)
        if not folder.is_dir():
            raise CatalogError(f"{folder}: catalogue override path is not a folder (it must hold {SIZES_FILE} and {PRICES_FILE})")
        sizes_name = str(folder / SIZES_FILE)
        prices_name = str(folder / PRICES_FILE)
        sizes_bytes = _read_file(folder / SIZES_FILE, sizes_name)
        prices_bytes = _read_file(folder / PRICES_FILE, prices_name)

    hours, capacity, environment = _parse_sizes(sizes_bytes, sizes_name)
    prices = _parse_prices(prices_bytes, prices_name)
    return Catalog(
        hours_per_month=hours,
        regions=frozenset(region for (_, region) in prices),
        origin=origin,
        environment=environment,
        _prices=MappingProxyType(prices),
        _capacity=capacity,
    )


@functools.lru_cache(maxsize=1)
def aws_regions() -> Mapping[str, str]:
    """Every AWS region name (``"eu-west-1"``) to its partition (``"aws"``, ``"aws-cn"``,
    ``"aws-us-gov"``, ...), from the packaged ``catalog/aws_regions.json`` (source:
    botocore's ``data/endpoints.json``, ``partitions[].regions``; the file names the botocore
    version). Read once. Raises ``CatalogError`` when the file is missing or malformed."""
    name = f"catalog/{AWS_REGIONS_FILE} ({PACKAGED_ORIGIN})"
    raw = _read(PACKAGED_FOLDER.joinpath(AWS_REGIONS_FILE), name)
    try:
        doc = json.loads(raw.decode("utf-8"))
        out = {str(r): str(part) for part, regions in doc["partitions"].items() for r in regions}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CatalogError(f"{name}: not a region list ({type(exc).__name__}); regenerate it: python -m deploy_engine.pricelist.regions") from None
    if not out:
        raise CatalogError(f"{name}: lists no region")
    return MappingProxyType(out)


def _read(resource: Any, name: str) -> bytes:
    try:
        return resource.read_bytes()
    except FileNotFoundError:
        raise CatalogError(f"{name}: file not found") from None
    except OSError as exc:
        raise CatalogError(f"{name}: cannot read: {exc}") from None


#: The packaged catalogue's folder: ``catalog/`` beside ``runway_core/`` (in site-packages, as
#: the wheel installs it, or in a source checkout). Found by path, never imported:
#: ``importlib.resources.files("catalog")`` imported a top-level package named ``catalog``,
#: and under ``python -m`` the current folder comes first on ``sys.path``, so a workspace's own
#: ``catalog/`` (a Django app, say) ran its ``__init__.py`` and priced with its files, or the
#: server exited (tenth adversary L2).
PACKAGED_FOLDER = Path(__file__).resolve().parent.parent / "catalog"

#: Largest catalogue file read, in bytes (docs/catalog.md). The packaged prices.csv is ~40 KB
#: and a refresh of every region a few MB; past this the catalogue is invalid (CLI exit 3),
#: never read whole (a prices.csv linked to /dev/zero grew to MemoryError: adversary S2).
MAX_CATALOG_FILE_BYTES = 16 * 1024 * 1024


def _read_file(path: Path, name: str) -> bytes:
    """A catalogue override file's bytes, read with :func:`runway_core.files.open_regular`: a
    FIFO, device (/dev/zero, /dev/urandom) or folder, also behind a symlink, is never
    opened or never read (a FIFO would block forever), and a file past
    :data:`MAX_CATALOG_FILE_BYTES` is refused. Raises CatalogError for each."""
    try:
        data, size = open_regular(str(path), MAX_CATALOG_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CatalogError(f"{name}: file not found") from None
    except NotRegularFile:
        raise CatalogError(f"{name}: not a regular file (a FIFO, device or folder); not read") from None
    except OSError as exc:
        raise CatalogError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_CATALOG_FILE_BYTES:
        raise CatalogError(f"{name}: file over the {MAX_CATALOG_FILE_BYTES:,}-byte limit of a catalogue file ({max(size, len(data)):,} bytes); not read")
    return data


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{name}: not UTF-8 text ({exc})") from None


# ---- prices.csv


def _parse_prices(data: bytes, name: str) -> dict[tuple[str, str], UnitPrice]:
    reader = csv.reader(io.StringIO(_decode(data, name), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise CatalogError(f"{name}: line 1: empty file; expected a header row with columns {', '.join(_PRICE_COLUMNS)}")
        header = [h.strip() for h in header]
        missing = [c for c in _PRICE_COLUMNS if c not in header]
        if missing:
            raise CatalogError(f"{name}: line 1: missing column(s) {', '.join(missing)} in the header")
        dupes = sorted({h for h in header if header.count(h) > 1})
        if dupes:
            raise CatalogError(f"{name}: line 1: duplicate column(s) {', '.join(_cell(d) for d in dupes)} in the header")
        index = {c: header.index(c) for c in _PRICE_COLUMNS}
        # Optional: the stated uncertainty of a derived or unverified price (docs/catalog.md).
        u_index = header.index("uncertainty") if "uncertainty" in header else None

        prices: dict[tuple[str, str], UnitPrice] = {}
        first_line: dict[tuple[str, str], int] = {}
        for row in reader:
            line = reader.line_num
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise CatalogError(f"{name}: line {line}: expected {len(header)} fields, got {len(row)}")
            cell = {c: row[i].strip() for c, i in index.items()}
            where = f"{name}: line {line}"

            key = cell["key"]
            if key and not _KEY_RE.fullmatch(key):
                raise CatalogError(f"{where}: invalid key {_cell(key)} (lower-case letters, digits and . : _ - only)")
            regions = [r.strip() for r in cell["region"].split(";")]
            for region in regions:
                if not _REGION_RE.fullmatch(region):
                    raise CatalogError(f"{where}: invalid region {_cell(region)} in {_cell(cell['region'])} (expected e.g. us-east-1; several separated by ';')")
            if len(set(regions)) != len(regions):
                raise CatalogError(f"{where}: region listed twice in {_cell(cell['region'])}")
            if not cell["unit"]:
                raise CatalogError(f"{where}: empty unit")
            usd = _parse_usd(cell["usd"], where)
            if cell["confidence"] not in CONFIDENCE_LEVELS:
                raise CatalogError(f"{where}: unknown confidence {_cell(cell['confidence'])}; expected one of {', '.join(CONFIDENCE_LEVELS)}")
            if not cell["source"]:
                raise CatalogError(f"{where}: empty source (every price needs one)")
            uncertainty = _parse_uncertainty(row[u_index].strip() if u_index is not None else "", cell["confidence"], where)
            if not key:
                continue  # reference row: validated, not indexed
            for region in regions:
                if (key, region) in prices:
                    raise CatalogError(f"{where}: duplicate price {_cell(key)} for region {region} (first on line {first_line[(key, region)]})")
                first_line[(key, region)] = line
                prices[(key, region)] = UnitPrice(
                    key=key,
                    region=region,
                    service=cell["service"],
                    item=cell["item"],
                    unit=cell["unit"],
                    usd=usd,
                    confidence=cell["confidence"],
                    source=cell["source"],
                    seen=cell["seen"],
                    uncertainty_pct=uncertainty,
                )
        return prices
    except csv.Error as exc:
        raise CatalogError(f"{name}: line {reader.line_num}: malformed CSV ({exc})") from None


#: The largest unit price a catalogue may give, USD per unit (AWS's dearest hourly instance is
#: a few hundred dollars an hour): a larger one (``1e400``, ``1E+30``, a 60-digit integer) is a
#: typo or hostile, and its products overflow the 28-digit decimal context (docs/catalog.md).
MAX_UNIT_USD = Decimal(1_000_000)
#: The largest capacity number in sizes.toml (``storage_gb``, ``memory_mb``, ``tasks``...):
#: RDS storage stops at 65,536 GB; ``1e300`` is refused like NaN or a negative number.
MAX_CAPACITY = Decimal(1_000_000_000)
#: At most this many significant digits in a catalogue number (a price to a millionth of a cent
#: has 14): more cannot be a figure from a price list.
MAX_DIGITS = 20
#: The smallest non-zero unit price a catalogue may hold (USD): AWS's smallest are about
#: $0.000000002 (a Lambda-style per-request price); a price of 0 stays allowed.
MIN_UNIT_USD = Decimal("1E-12")


def _parse_uncertainty(text: str, confidence: str, where: str) -> Decimal | None:
    """The ``uncertainty`` cell: empty (None), or ``5%`` / ``5`` (± percent, 0 to 100) on a
    derived or unverified row only (a checked price states no uncertainty)."""
    if not text:
        return None
    if confidence not in UNCHECKED_CONFIDENCES:
        raise CatalogError(f"{where}: an uncertainty on a {confidence} price (only derived and unverified prices state one)")
    try:
        value = Decimal(text.removesuffix("%").strip())
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value < 0 or value > 100:
        raise CatalogError(f"{where}: invalid uncertainty {_cell(text)} (a percentage from 0 to 100, e.g. 5%)")
    return value


def _parse_usd(text: str, where: str) -> Decimal:
    try:
        usd = Decimal(text)
    except InvalidOperation:
        raise CatalogError(f"{where}: usd {_cell(text)} is not a decimal number") from None
    if not usd.is_finite() or usd < 0:
        raise CatalogError(f"{where}: usd {_cell(text)} is not a non-negative decimal number")
    if usd > MAX_UNIT_USD or len(usd.as_tuple().digits) > MAX_DIGITS or (usd and usd < MIN_UNIT_USD) or not text.isascii():
        # Below MIN_UNIT_USD (`1e-30`, `1E-99999999`) a price is no AWS price, and `catalog
        # diff`'s percentage of it overflowed (exit 70: tenth adversary C6); `٣` (an
        # Arabic-Indic digit) was priced as 3, while a refresh writes ASCII decimals only.
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise CatalogError(
            f"{where}: usd {_cell(shown)} is not a plausible unit price (ASCII digits, 0 or from {MIN_UNIT_USD} to {MAX_UNIT_USD:,} USD, at most {MAX_DIGITS} significant digits)"
        )
    return usd


# ---- sizes.toml


def _parse_sizes(
    data: bytes, name: str
) -> tuple[Decimal, Mapping[tuple[str, str | None], Mapping[str, Mapping[str, Any]]], Mapping[str, Decimal]]:
    try:
        doc = tomllib.loads(_decode(data, name))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{name}: invalid TOML: {exc}") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively (Lib/tomllib/_parser.py,
        # parse_array -> parse_value): ~330 levels exhaust the interpreter's stack (round 5 A01).
        raise CatalogError(f"{name}: invalid TOML: arrays or inline tables nested too deeply") from None

    unknown = [k for k in doc if k not in _TOP_LEVEL]
    if unknown:
        raise CatalogError(f"{name}: unknown top-level key(s) {', '.join(map(repr, unknown))}; expected {', '.join(_TOP_LEVEL)}")
    for required in _TOP_LEVEL:
        if required not in doc:
            raise CatalogError(f"{name}: missing {'key' if required == 'hours_per_month' else 'table'} [{required}]")

    hours = _number(doc["hours_per_month"], _POS, f"{name}: hours_per_month")

    capacity: dict[tuple[str, str | None], Mapping[str, Mapping[str, Any]]] = {}
    for kind in KINDS:
        kind_table = _table(doc[kind], f"{name}: {kind}")
        flavors = _KINDS[kind].flavors
        if flavors:
            extra = [f for f in kind_table if f not in flavors]
            if extra:
                raise CatalogError(f"{name}: {kind}: unknown flavor(s) {', '.join(map(repr, extra))}; expected {', '.join(flavors)}")
            reference: tuple[str, ...] | None = None
            for flavor in flavors:
                if flavor not in kind_table:
                    raise CatalogError(f"{name}: missing table [{kind}.{flavor}]")
                sizes = _size_tables(kind_table[flavor], (kind, flavor), name, f"{kind}.{flavor}")
                if reference is not None and tuple(sizes) != reference:
                    raise CatalogError(
                        f"{name}: {kind}.{flavor}: sizes {', '.join(sizes)} differ from {kind}.{flavors[0]} ({', '.join(reference)})"
                    )
                reference = tuple(sizes)
                capacity[(kind, flavor)] = sizes
        else:
            capacity[(kind, None)] = _size_tables(kind_table, (kind, None), name, kind)

    env_table = _table(doc["environment"], f"{name}: environment")
    environment = MappingProxyType(_fields(env_table, _ENVIRONMENT_SCHEMA, name, "environment"))
    if int(environment["log_retention_days"]) not in LOG_RETENTION_DAYS:
        raise CatalogError(
            f"{name}: environment.log_retention_days: {environment['log_retention_days']} is not a CloudWatch Logs "
            f"retention period; expected one of {', '.join(map(str, sorted(LOG_RETENTION_DAYS)))}"
        )
    return hours, MappingProxyType(capacity), environment


def _size_tables(value: Any, schema_id: tuple[str, str | None], name: str, dotted: str) -> Mapping[str, Mapping[str, Any]]:
    table = _table(value, f"{name}: {dotted}")
    for size in SIZES:
        if size not in table:
            raise CatalogError(f"{name}: missing table [{dotted}.{size}] (every kind needs {', '.join(SIZES)})")
    for size in table:
        if not _SIZE_NAME_RE.fullmatch(size):
            raise CatalogError(f"{name}: {dotted}.{size}: invalid size name")
    ordered = [*SIZES, *(s for s in table if s not in SIZES)]
    schema = _CAPACITY_SCHEMAS[schema_id]
    result: dict[str, Mapping[str, Any]] = {}
    for size in ordered:
        where = f"{dotted}.{size}"
        fields = _table(table[size], f"{name}: {where}")
        result[size] = MappingProxyType(_fields(fields, schema, name, where))
    return MappingProxyType(result)


def _fields(table: Mapping[str, Any], schema: Mapping[str, str], name: str, dotted: str) -> dict[str, Any]:
    unknown = [k for k in table if k not in schema]
    if unknown:
        raise CatalogError(f"{name}: {dotted}: unknown field(s) {', '.join(map(repr, unknown))}; expected {', '.join(schema)}")
    out: dict[str, Any] = {}
    for field_name, kind in schema.items():
        where = f"{name}: {dotted}.{field_name}"
        if field_name not in table:
            raise CatalogError(f"{where}: missing (must be {kind})")
        value = table[field_name]
        if kind == _STR:
            if not isinstance(value, str) or not value.strip():
                raise CatalogError(f"{where}: must be {kind}, got {_cell(value)}")
            out[field_name] = value.strip()
        elif kind == _BOOL:
            if not isinstance(value, bool):
                raise CatalogError(f"{where}: must be {kind} (true or false), got {_cell(value)}")
            out[field_name] = value
        else:
            out[field_name] = _number(value, kind, where)
    return out


def _number(value: Any, kind: str, where: str) -> Decimal:
    """Turn a TOML number (or a decimal string such as "0.25") into a checked Decimal."""
    number: Decimal | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, (int, float)):
        number = Decimal(str(value))
    elif isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            number = None
    if number is None or not number.is_finite():
        raise CatalogError(f"{where}: must be {kind}, got {_cell(value)}")
    if number < 0 or (kind in (_POS, _POSINT) and number == 0):
        raise CatalogError(f"{where}: must be {kind}, got {_cell(value)}")
    if number > MAX_CAPACITY or len(number.as_tuple().digits) > MAX_DIGITS:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise CatalogError(f"{where}: must be {kind} of at most {MAX_CAPACITY:,} ({MAX_DIGITS} significant digits), got {shown}")
    if kind in (_INT, _POSINT) and number != number.to_integral_value():
        raise CatalogError(f"{where}: must be {kind}, got {_cell(value)}")
    return number


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CatalogError(f"{where}: must be a table, got {_cell(value)}")
    return value
