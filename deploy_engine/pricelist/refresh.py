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

import csv
import io
import os
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from runway_core.catalog import PRICES_FILE, SIZES_FILE, load_catalog
from runway_core.workspace import MAX_JSON_BYTES, JsonDocumentError, loads_json

from .fetch import OFFER_INDEX_PATH, Progress, SourceError, check_source, join, open_stream
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


def _load_json(url: str, label: str, progress: Progress | None) -> Any:
    """An index document (the offer index, a region index: kilobytes), through the one bounded
    JSON reader: at most MAX_JSON_BYTES read, no NaN/Infinity, nesting bounded (RefreshError)."""
    with open_stream(url, label, progress) as stream:
        data = stream.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise RefreshError(f"{url}: over the {MAX_JSON_BYTES // (1024 * 1024)} MiB limit for an index document; not read further")
    try:
        return loads_json(data)
    except JsonDocumentError as exc:
        raise RefreshError(f"{url}: {exc}") from None


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        return None
    return value if value.is_finite() and value >= 0 else None


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
            return f"price {d.usd!r} is not a number"
        ranked.append((begin if begin is not None else Decimal(0), usd, d))
    ranked.sort(key=lambda t: (t[0], t[2].rate_code))
    for _begin, usd, d in ranked:
        if usd > 0:
            factor = Decimal(1) if units is None else units[d.unit.lower()]
            return usd * factor, d
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
    for p in chosen:
        got = price_of(p, selector)
        if isinstance(got, str):
            reasons.append(f"SKU {p.sku}: {got}")
        else:
            priced.append((p, got[0], got[1]))
    if not priced:
        return Missing(selector.key, region, "; ".join(reasons))
    values = sorted({usd for _, usd, _ in priced})
    if len(values) > 1:
        listed = ", ".join(f"{p.sku} ({_plain(usd)})" for p, usd, _ in priced)
        return Missing(selector.key, region, f"ambiguous: {len(priced)} matching SKUs disagree: {listed}")
    p, usd, dim = priced[0]
    return Found(selector, region, usd, p.sku, dim.rate_code, dim.usd, dim.unit, dim.begin, offer, len(priced))


def _sizes_bytes(catalog_dir: Path | None) -> bytes:
    if catalog_dir is None:
        return resources.files("catalog").joinpath(SIZES_FILE).read_bytes()
    return (Path(catalog_dir) / SIZES_FILE).read_bytes()


def refresh(
    source: str,
    regions: list[str],
    output: str | os.PathLike[str],
    *,
    catalog_dir: str | os.PathLike[str] | None = None,
    file_format: str = "json",
    progress: Progress | None = None,
) -> RefreshResult:
    """Refresh the catalogue into folder ``output`` from the Price List under ``source``.

    ``regions``: region codes, or ``["all"]`` for every region the needed offers publish.
    ``catalog_dir``: the folder whose ``sizes.toml`` is used and copied (default: the packaged
    catalogue). ``file_format``: ``"json"`` or ``"csv"`` offer files. ``progress`` receives
    one-line progress messages (the CLI prints them on stderr).

    Returns a :class:`RefreshResult`; ``output`` then holds ``sizes.toml`` and ``prices.csv``
    (written whole to a temporary file first, then renamed). Raises :class:`RefreshError` when
    nothing can be refreshed (bad source, unreachable or malformed offer index, invalid sizes,
    unwritable output) and ``ValueError`` for a bad argument.
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

    index_url = join(root, OFFER_INDEX_PATH)
    say(f"offer index: {index_url}")
    try:
        index = _load_json(index_url, "offer index", progress)
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
        url = join(root, str(url_path))
        try:
            data = _load_json(url, f"{offer} region index", progress)
        except (SourceError, RefreshError) as exc:
            offer_missing[offer] = f"{offer} region index unreadable: {exc}"
            continue
        regs = data.get("regions") if isinstance(data, dict) else None
        if not isinstance(regs, dict):
            offer_missing[offer] = f"{url}: no 'regions' object"
            continue
        region_indexes[offer] = regs

    if regions == ["all"]:
        wanted = sorted({r for regs in region_indexes.values() for r in regs if r != "global"})
    else:
        wanted = list(dict.fromkeys(regions))
    result = RefreshResult(regions=wanted)
    for key in unknown:
        for region in wanted:
            result.missing.append(Missing(key, region, "this engine has no selector for the key"))

    read_cache: dict[str, tuple[OfferFile, dict[str, Product]] | str] = {}
    for offer, sels in selectors.items():
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
            url = join(root, path)
            got = read_cache.get(url)
            if got is None:
                label = f"{offer} {file_region}"
                say(f"{label}: reading {url}")
                try:
                    with open_stream(url, label, progress) as stream:
                        got = read_offer(stream, lambda p, _s=sels, _r=region: any(s.rank(p, _r) is not None for s in _s))
                except (SourceError, OfferFormatError) as exc:
                    got = f"{url}: {exc}"
                read_cache[url] = got
                if not isinstance(got, str):
                    info, kept = got
                    say(f"{label}: {info.products_seen} products, {len(kept)} kept (offer version {info.version or '?'})")
                    result.files.append((offer, file_region, url, info.products_seen, len(kept)))
            if isinstance(got, str):
                result.missing.extend(Missing(s.key, region, got) for s in sels)
                continue
            info, kept = got
            for s in sels:
                outcome = select(s, region, kept.values(), info)
                (result.found if isinstance(outcome, Found) else result.missing).append(outcome)

    result.output = write_catalogue(output, sizes_bytes, result.found)
    # The written folder must load as a catalogue (the same validation as --catalog DIR).
    try:
        load_catalog(result.output)
    except Exception as exc:  # pragma: no cover - a bug in the writer
        raise RefreshError(f"the written catalogue does not load: {exc}") from None
    return result


def write_catalogue(output: str | os.PathLike[str], sizes_bytes: bytes, found: list[Found]) -> Path:
    """Write ``sizes.toml`` and ``prices.csv`` into folder ``output`` (created if needed);
    each file is written to a temporary file in the folder and renamed over the old one."""
    folder = Path(output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(_COLUMNS)
        for f in sorted(found, key=lambda f: (f.selector.key, f.region)):
            s = f.selector
            writer.writerow([s.key, s.service, s.item, f.region, s.unit, _plain(f.usd), CONFIDENCE, f.source(), f.seen()])
        for name, data in ((SIZES_FILE, sizes_bytes), (PRICES_FILE, buf.getvalue().encode("utf-8"))):
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, folder / name)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    except OSError as exc:
        raise RefreshError(f"cannot write {folder}: {exc.strerror or exc}") from None
    return folder
