"""``catalog refresh``: build a catalogue folder from the AWS Price List Bulk API.

The walk is the one AWS documents ("Getting price list files using the AWS Price List Bulk
API"): the offer index ``/offers/v1.0/aws/index.json`` -> each needed offer's
``currentRegionIndexUrl`` (``region_index.json``: ``regions[code].currentVersionUrl``) -> the
offer file of each region asked, JSON (or CSV with ``file_format="csv"``: the same URL ending in
``.csv``). Each offer file is read once, streamed (:mod:`deploy_engine.pricelist.offers`), for
every key of that offer.

The output folder gets ``sizes.toml`` (a byte-for-byte copy of the capacity tables used) and
``prices.csv`` (the catalogue's columns: one row per key and region found, confidence
``price-list``, the source naming offer code, offer version, publication date, SKU and rate
code). A key the files do not have is *reported* (:class:`Missing`), never filled from another
region or invented; the planner then reports it as a missing price (and refuses a capped
environment, docs/catalog.md).
"""

from __future__ import annotations

import contextlib
import csv
import decimal
import io
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable

from runway_core.catalog import MAX_DIGITS, MAX_UNIT_USD, PACKAGED_FOLDER, PRICES_FILE, SIZES_FILE, is_region_code, load_catalog
from runway_core.workspace import MAX_JSON_BYTES, JsonDocumentError, loads_json

from ..folders import make_folders
from .fetch import DEADLINE_S, OFFER_INDEX_PATH, Progress, SourceError, check_source, join, open_stream, public
from .offers import OfferFile, OfferFormatError, Product, read_offer
from .selectors import Selector, catalogue_keys, selector_for

CONFIDENCE = "price-list"
_COLUMNS = ("key", "service", "item", "region", "unit", "usd", "confidence", "source", "seen")


class RefreshError(Exception):
    """The refresh cannot run at all: the source or its offer index is unreachable or not of
    the layout, the sizes are invalid, or the output folder cannot be written."""


@dataclass(frozen=True)
class Found:
    """One price read from an offer file: ``usd`` in the catalogue's unit (AWS's
    ``aws_usd`` per ``aws_unit`` x the selector's factor)."""

    selector: Selector
    region: str
    usd: Decimal
    sku: str
    rate_code: str
    aws_usd: str
    aws_unit: str
    begin: str
    offer: OfferFile
    agreeing: int  # how many SKUs matched at the best rank with this same price

    def source(self) -> str:
        s = self.selector
        tier = f", tier from {self.begin} {self.aws_unit}" if self.begin not in ("0", "0.0", "") else ""
        agree = f"; {self.agreeing} matching SKUs agree" if self.agreeing > 1 else ""
        scope = " (a global price, the same in every region)" if s.scope == "global" else ""
        return (
            f"AWS Price List, {self.offer.offer_code or s.offer} offer version {self.offer.version or '?'}, "
            f"{'global' if s.scope == 'global' else self.region} file published {self.offer.publication_date or '?'}, "
            f"SKU {self.sku} ({s.what}; OnDemand rate code {self.rate_code}: {self.aws_usd} USD per {self.aws_unit}{tier}){agree}{scope}; "
            "read by runway-deploy catalog refresh"
        )

    def seen(self) -> str:
        return (self.offer.publication_date or "")[:10]


@dataclass(frozen=True)
class Missing:
    """A key without a price in ``region`` and why (no product matched, ambiguous, no file...)."""

    key: str
    region: str
    reason: str


@dataclass
class RefreshResult:
    """What a refresh found and wrote: ``found`` and ``missing`` per key and region,
    ``regions`` priced, ``files`` read as ``(offer, region, url, products seen, kept)``."""

    regions: list[str]
    found: list[Found] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    files: list[tuple[str, str, str, int, int]] = field(default_factory=list)
    output: Path | None = None


#: The most regions one region index may list, and one refresh price (issue 23, F09): AWS's
#: region indexes list one entry per region, about 40. A region index listing more is malformed (its offer's keys are missing, as for a
#: region index without ``regions``); ``--region all`` gathering more from the region indexes
#: together refuses the refresh (exit 3), more given as ``--region`` is a usage error.
MAX_REGIONS = 1000

#: Progress and missing-price lines are listed one by one for at most this many regions (each
#: offer's files, the missing prices); beyond, one summary line says how many more there are
#: (a 1,000-region refresh prints thousands of lines, not the ~45,000 of a line per key).
LISTED_REGIONS = 100


def _load_json(url: str, label: str, progress: Progress | None, timeout_s: float = DEADLINE_S, root: str | None = None) -> Any:
    """An index document (the offer index, a region index: kilobytes), through the one bounded
    JSON reader: at most MAX_JSON_BYTES read, no NaN/Infinity, nesting bounded (RefreshError);
    :class:`SourceError` past its deadline or short of its Content-Length, or when it or a
    redirect leaves the mirror ``root``."""
    with open_stream(url, label, progress, timeout_s, root=root) as stream:
        data = stream.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise RefreshError(f"{url}: over the {MAX_JSON_BYTES // (1024 * 1024)} MiB limit for an index document; not read further")
    try:
        return loads_json(data)
    except JsonDocumentError as exc:
        raise RefreshError(f"{url}: {exc}") from None


#: A price or range as AWS publishes them ("0.0160000000", "10240", "Inf" for an open end):
#: plain decimals, no sign or exponent, at most 12 integer and 20 fractional digits. Anything
#: else (``1E+999999999``, ``1e308``, a 2,000-digit number) is refused before arithmetic.
_PLAIN_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,20})?")
#: Enough precision that a price times its unit factor is exact (12 + 20 digits, times a
#: factor of at most a few digits), checked against the catalogue's own limits afterwards.
_EXACT = decimal.Context(prec=60, Emax=99, Emin=-99, traps=[decimal.Overflow, decimal.InvalidOperation, decimal.Inexact])


def _decimal(text: str) -> Decimal | None:
    """A published price or range as a Decimal, or None when it is not a plain decimal
    within :data:`_PLAIN_DECIMAL`'s limits."""
    text = text.strip() if isinstance(text, str) else ""
    return Decimal(text) if _PLAIN_DECIMAL.fullmatch(text) else None


def _shown(text: str) -> str:
    """A published value quoted in a message, cut to 24 characters (a 2,000-digit price)."""
    return repr(text if len(text) <= 24 else text[:24] + "...") + ("" if len(text) <= 24 else f" ({len(text):,} characters)")


def _plain(d: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: Decimal('0.0160000000') -> '0.016'."""
    text = format(d.normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".") or "0"


def price_of(product: Product, selector: Selector) -> tuple[Decimal, Any] | str:
    """The product's first paid OnDemand tier in an accepted unit, as ``(usd in the catalogue
    unit, dimension)``, or a reason string. Free tiers (price 0) are skipped: estimates ignore
    free allowances (docs/catalog.md)."""
    dims = product.on_demand
    if not dims:
        return "no OnDemand price"
    units = selector.units
    usable = [d for d in dims if units is None or d.unit.lower() in units]
    if not usable:
        return f"no OnDemand price in {'/'.join(sorted(units or ()))} (the file has {', '.join(sorted({d.unit for d in dims}))})"
    ranked = []
    for d in usable:
        usd, begin = _decimal(d.usd), _decimal(d.begin)
        if usd is None:
            return f"price {_shown(d.usd)} is not a plain decimal of at most 12 integer and 20 fractional digits; refused"
        ranked.append((begin if begin is not None else Decimal(0), usd, d))
    ranked.sort(key=lambda t: (t[0], t[2].rate_code))
    for begin, usd, d in ranked:
        if usd > 0:
            # The same tier priced twice (a SKU's terms repeated, two CSV rows): never a pick.
            rivals = sorted({u for b, u, _ in ranked if b == begin and u > 0})
            if len(rivals) > 1:
                return f"conflict: SKU {product.sku} has {len(rivals)} OnDemand prices for one tier ({', '.join(_plain(u) for u in rivals)})"
            factor = Decimal(1) if units is None else units[d.unit.lower()]
            try:
                value = _EXACT.multiply(usd, factor)
            except decimal.DecimalException:
                value = None
            # The catalogue's own limits (runway_core.catalog._parse_usd): a price the written
            # catalogue would refuse to load is refused here, for this key alone.
            if value is None or value > MAX_UNIT_USD or len(value.normalize().as_tuple().digits) > MAX_DIGITS:
                return (f"price {_shown(d.usd)} per {d.unit} is not a plausible unit price (at most {MAX_UNIT_USD:,} USD and "
                        f"{MAX_DIGITS} significant digits in the catalogue's unit); refused")
            return value, d
    return "only free tiers (price 0)"


def select(selector: Selector, region: str, products: Iterable[Product], offer: OfferFile) -> Found | Missing:
    """Choose the price of ``selector`` in ``region`` among ``products`` (those of its offer
    file that it matches): the best-ranked matches must agree on one price."""
    matches: list[tuple[tuple[int, ...], Product]] = []
    for p in products:
        rank = selector.rank(p, region)
        if rank is not None:
            matches.append((rank, p))
    if not matches:
        return Missing(selector.key, region, f"no {selector.offer} product matches ({selector.what})")
    best = min(r for r, _ in matches)
    chosen = sorted((p for r, p in matches if r == best), key=lambda p: p.sku)
    priced: list[tuple[Product, Decimal, Any]] = []
    reasons = []
    conflicts = [c for p in chosen for c in p.conflicts]
    for p in chosen:
        got = price_of(p, selector)
        if isinstance(got, str):
            reasons.append(f"SKU {p.sku}: {got}")
            if got.startswith("conflict:"):
                conflicts.append(got[len("conflict: "):])
        else:
            priced.append((p, got[0], got[1]))
    if conflicts:
        # A best match that cannot be trusted makes the key's price unknowable, even when
        # another match has a clean price (the conflicted one might be the right one).
        return Missing(selector.key, region, "conflict: " + "; ".join(dict.fromkeys(conflicts)))
    if not priced:
        return Missing(selector.key, region, "; ".join(reasons))
    values = sorted({usd for _, usd, _ in priced})
    if len(values) > 1:
        listed = ", ".join(f"{p.sku} ({_plain(usd)})" for p, usd, _ in priced)
        return Missing(selector.key, region, f"ambiguous: {len(priced)} matching SKUs disagree: {listed}")
    p, usd, dim = priced[0]
    return Found(selector, region, usd, p.sku, dim.rate_code, dim.usd, dim.unit, dim.begin, offer, len(priced))


def _about(url: str, exc: Exception) -> str:
    """A download's failure for a message: ``url: why``, the URL once (a :class:`SourceError`
    already starts with it; before, ``url: url: not read within ...``)."""
    text = str(exc)
    return text if text.startswith(f"{url}: ") else f"{url}: {text}"


def _sizes_bytes(catalog_dir: Path | None) -> bytes:
    if catalog_dir is None:
        return PACKAGED_FOLDER.joinpath(SIZES_FILE).read_bytes()
    return (Path(catalog_dir) / SIZES_FILE).read_bytes()


def refresh(
    source: str,
    regions: list[str],
    output: str | os.PathLike[str],
    *,
    catalog_dir: str | os.PathLike[str] | None = None,
    file_format: str = "json",
    progress: Progress | None = None,
    timeout_s: float = DEADLINE_S,
) -> RefreshResult:
    """Refresh the catalogue into folder ``output`` from the Price List under ``source``.

    ``regions``: region codes, or ``["all"]`` for every region the needed offers publish.
    ``catalog_dir``: the folder whose ``sizes.toml`` is used and copied (default: the packaged
    catalogue). ``file_format``: ``"json"`` or ``"csv"`` offer files. ``progress`` receives
    one-line progress messages (the CLI prints them on stderr). ``timeout_s``: the total
    deadline of each download (:data:`deploy_engine.pricelist.fetch.DEADLINE_S`).

    Returns a :class:`RefreshResult`; ``output`` then holds ``sizes.toml`` and ``prices.csv``,
    written to a temporary folder beside ``output``, loaded as a catalogue, and only then
    moved in (:func:`write_catalogue`). Raises :class:`RefreshError` when nothing can be
    refreshed (bad source, unreachable, truncated or malformed offer index, invalid sizes,
    unwritable output, a written catalogue that does not load, an offer file whose download failed
    midway: the refresh stops at the first, fetching no other): ``output`` is then as it was.
    ``ValueError`` for a bad argument.
    """
    say = progress or (lambda _m: None)
    root = check_source(source)
    if file_format not in ("json", "csv"):
        raise ValueError(f"--format {file_format!r}: expected json or csv")
    try:
        sizes = load_catalog(catalog_dir)
        sizes_bytes = _sizes_bytes(Path(catalog_dir) if catalog_dir is not None else None)
    except Exception as exc:  # CatalogError or OSError: the message names the file
        raise RefreshError(f"sizes: {exc}") from None

    # Every key the planner can ask for, and every key the source catalogue already prices.
    keys = sorted(set(catalogue_keys(sizes)) | {p.key for r in sizes.regions for p in sizes.prices_for(r)})
    selectors: dict[str, list[Selector]] = {}
    unknown: list[str] = []
    for key in keys:
        sel = selector_for(key)
        if sel is None:
            unknown.append(key)
        else:
            selectors.setdefault(sel.offer, []).append(sel)

    try:
        index_url = join(root, OFFER_INDEX_PATH)
        say(f"offer index: {index_url}")
        index = _load_json(index_url, "offer index", progress, timeout_s, root)
    except SourceError as exc:
        raise RefreshError(str(exc)) from None
    offers = index.get("offers") if isinstance(index, dict) else None
    if not isinstance(offers, dict):
        raise RefreshError(f"{index_url}: no 'offers' object: not a Price List offer index")

    region_indexes: dict[str, dict[str, Any]] = {}
    offer_missing: dict[str, str] = {}
    for offer in selectors:
        entry = offers.get(offer)
        url_path = entry.get("currentRegionIndexUrl") if isinstance(entry, dict) else None
        if not url_path:
            offer_missing[offer] = f"offer {offer} is not in the offer index (or has no currentRegionIndexUrl)"
            continue
        try:
            url = join(root, str(url_path))
            data = _load_json(url, f"{offer} region index", progress, timeout_s, root)
        except (SourceError, RefreshError) as exc:
            offer_missing[offer] = f"{offer} region index unreadable: {exc}"
            continue
        regs = data.get("regions") if isinstance(data, dict) else None
        if not isinstance(regs, dict):
            offer_missing[offer] = f"{url}: no 'regions' object"
            continue
        if len(regs) > MAX_REGIONS:
            offer_missing[offer] = (f"{url}: lists {len(regs):,} regions, more than the {MAX_REGIONS:,} a region index may "
                                    "(AWS's list about 40): not a Price List region index")
            continue
        # A key that is no region code (``eu-west-1``, or AWS's ``global``) would reach the
        # written prices.csv and fail its load only after every download, naming the staging
        # folder (fifth adversary F-B): the index is malformed, as one without ``regions``.
        bad = next((str(code) for code in regs if code != "global" and not is_region_code(str(code))), None)
        if bad is not None:
            offer_missing[offer] = (f"{url}: lists {bad[:60]!r}, which is no region code (e.g. eu-west-1): "
                                    "not a Price List region index")
            continue
        region_indexes[offer] = regs

    if regions == ["all"]:
        wanted = sorted({r for regs in region_indexes.values() for r in regs if r != "global"})
        if len(wanted) > MAX_REGIONS:
            raise RefreshError(f"{public(root)}: the region indexes list {len(wanted):,} regions together, more than the "
                               f"{MAX_REGIONS:,} a refresh prices (AWS's list about 40): not a Price List mirror; "
                               f"{Path(output)} left as it was")
    else:
        wanted = list(dict.fromkeys(regions))
        if len(wanted) > MAX_REGIONS:
            raise ValueError(f"--region: {len(wanted):,} regions, more than the {MAX_REGIONS:,} a refresh prices")
    result = RefreshResult(regions=wanted)
    for key in unknown:
        for region in wanted:
            result.missing.append(Missing(key, region, "this engine has no selector for the key"))

    read_cache: dict[str, tuple[OfferFile, dict[str, Product]] | str] = {}
    for offer, sels in selectors.items():
        tried = quiet = 0  # this offer's files opened; those beyond the LISTED_REGIONS announced one by one
        for region in wanted:
            if offer in offer_missing:
                result.missing.extend(Missing(s.key, region, offer_missing[offer]) for s in sels)
                continue
            regs = region_indexes[offer]
            entry = regs.get(region)
            file_region = region
            if entry is None and all(s.scope == "global" for s in sels):
                entry, file_region = regs.get("global"), "global"
            if not isinstance(entry, dict) or not entry.get("currentVersionUrl"):
                result.missing.extend(Missing(s.key, region, f"offer {offer} publishes no file for {region}") for s in sels)
                continue
            path = str(entry["currentVersionUrl"])
            if file_format == "csv" and path.endswith(".json"):
                path = path[: -len(".json")] + ".csv"
            try:
                url = join(root, path)
            except SourceError as exc:
                result.missing.extend(Missing(s.key, region, str(exc)) for s in sels)
                continue
            got = read_cache.get(url)
            if got is None:
                label = f"{offer} {file_region}"
                listed = tried < LISTED_REGIONS
                tried += 1
                if listed:
                    say(f"{label}: reading {url}")
                else:
                    quiet += 1
                try:
                    opened = open_stream(url, label, progress, timeout_s, root=root)
                except SourceError as exc:  # not there (HTTP 404, no such file): its keys
                    got = _about(url, exc)
                else:
                    try:
                        with opened as stream:
                            got = read_offer(stream, lambda p, _s=sels, _r=region: any(s.rank(p, _r) is not None for s in _s))
                    except SourceError as exc:
                        # The download failed midway (truncated, corrupt gzip, past its
                        # deadline): the refresh has failed, --output is not touched (issue 23).
                        # The outcome is decided, so the refresh stops here: every other offer
                        # file would cost up to its own deadline for nothing (fourth
                        # adversary, F02: 28 files x --timeout before the same exit 3).
                        raise RefreshError(f"an offer file could not be read whole ({_about(url, exc)}); the refresh stops "
                                           f"there, the other offer files were not fetched; {Path(output)} left as it was") from None
                    except OfferFormatError as exc:
                        got = f"{url}: {exc}"
                read_cache[url] = got
                if not isinstance(got, str):
                    info, kept = got
                    if listed:
                        say(f"{label}: {info.products_seen} products, {len(kept)} kept (offer version {info.version or '?'})")
                    result.files.append((offer, file_region, url, info.products_seen, len(kept)))
            if isinstance(got, str):
                result.missing.extend(Missing(s.key, region, got) for s in sels)
                continue
            info, kept = got
            for s in sels:
                outcome = select(s, region, kept.values(), info)
                (result.found if isinstance(outcome, Found) else result.missing).append(outcome)
        if quiet:
            say(f"{offer}: {quiet:,} more offer file(s) asked for, not listed one by one (the first {LISTED_REGIONS} are)")

    result.output = write_catalogue(output, sizes_bytes, result.found)
    return result


def _replace_all(staging: Path, folder: Path, names: list[str]) -> None:
    """Move each of ``names`` from ``staging`` into ``folder`` as one change: every target is
    checked first (a folder, FIFO or device under the name is refused before anything moves),
    the files it replaces are kept in ``staging`` (a hard link, else a copy), and when a later
    move fails the earlier ones are undone, so ``folder`` never holds a new ``sizes.toml`` with
    the old ``prices.csv`` (third adversary, round 5: ``prices.csv`` a folder left exactly that).
    Raises :class:`RefreshError` (the refusal) or ``OSError`` (after the undo)."""
    kept: dict[str, Path | None] = {}
    for name in names:
        target = folder / name
        try:
            mode = os.lstat(target).st_mode
        except FileNotFoundError:
            kept[name] = None
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise RefreshError(f"cannot write {target}: not a regular file (a folder, FIFO or device); {folder} left as it was")
        previous = staging / f"{name}.previous"
        try:
            os.link(target, previous, follow_symlinks=False)
        except OSError:
            shutil.copy2(target, previous, follow_symlinks=False)
        kept[name] = previous
    moved: list[str] = []
    try:
        for name in names:
            os.replace(staging / name, folder / name)
            moved.append(name)
    except OSError:
        for name in reversed(moved):
            previous = kept[name]
            with contextlib.suppress(OSError):
                if previous is None:
                    os.unlink(folder / name)
                else:
                    os.replace(previous, folder / name)
        raise


def write_catalogue(output: str | os.PathLike[str], sizes_bytes: bytes, found: list[Found]) -> Path:
    """Write ``sizes.toml`` and ``prices.csv`` into folder ``output`` (created if needed).

    Fail closed: both files are written into a new temporary folder beside ``output`` (the
    same file system), that folder is loaded as a catalogue (the validation ``--catalog DIR``
    gets), and only then are the files renamed into ``output`` (each rename atomic), or the
    folder itself renamed to ``output`` when there was none. A catalogue that does not load
    (a price the loader refuses, a bug in the writer) raises :class:`RefreshError` and leaves
    ``output`` as it was (issue 23: a ``1e308`` price was written, then found not to load).
    """
    folder = Path(output)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_COLUMNS)
    for f in sorted(found, key=lambda f: (f.selector.key, f.region)):
        s = f.selector
        writer.writerow([s.key, s.service, s.item, f.region, s.unit, _plain(f.usd), CONFIDENCE, f.source(), f.seen()])
    files = ((SIZES_FILE, sizes_bytes), (PRICES_FILE, buf.getvalue().encode("utf-8")))
    try:
        parent = folder.absolute().parent
        make_folders(parent)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name or 'catalog'}.refresh-", dir=parent))
    except OSError as exc:
        raise RefreshError(f"cannot write {folder}: {exc.strerror or exc}") from None
    try:
        for name, data in files:
            # Buffered (a short write is written again, ENOSPC raised) and on disk before
            # anything is renamed over the catalogue the user had.
            with open(staging / name, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        try:
            load_catalog(staging)
        except Exception as exc:  # CatalogError: the message names the file and row
            raise RefreshError(f"the refreshed catalogue does not load ({exc}); {folder} left as it was") from None
        if not folder.exists() and not folder.is_symlink():
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(staging, 0o777 & ~umask)  # as mkdir would have made it (mkdtemp: 0700)
            os.rename(staging, folder)
            return folder
        if not folder.is_dir():
            raise RefreshError(f"cannot write {folder}: not a folder")
        _replace_all(staging, folder, [name for name, _data in files])
        return folder
    except OSError as exc:
        raise RefreshError(f"cannot write {folder}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
