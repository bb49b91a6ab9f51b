"""Streaming readers of AWS Price List offer files, JSON and CSV, in bounded memory.

Both layouts are the ones AWS documents ("Reading the service price list file for an AWS
service"):

- **JSON**: one object with the file's details (``formatVersion``, ``disclaimer``,
  ``offerCode``, ``version``, ``publicationDate``), then ``products`` keyed by SKU (each
  ``{"sku", "productFamily", "attributes": {...}}``), then ``terms`` keyed by term type
  (``OnDemand``, ``Reserved``), each keyed by SKU, then by offer term code:
  ``{"offerTermCode", "sku", "effectiveDate", "priceDimensions": {rateCode: {"rateCode",
  "description", "beginRange", "endRange", "unit", "pricePerUnit": {"USD": "0.016"}}}}``.
- **CSV**: five metadata rows (``"FormatVersion","v1.0"``, ``"Disclaimer",...``,
  ``"Publication Date",...``, ``"Version",...``, ``"OfferCode",...``), then a header row
  (``SKU, OfferTermCode, RateCode, TermType, PriceDescription, EffectiveDate, StartingRange,
  EndingRange, Unit, PricePerUnit, Currency``, then the product columns: ``Product Family``,
  ``usageType``, ``Instance Type``, ``Database Engine``, ...), then one row per price dimension.

Offer files run to hundreds of MB (AmazonEC2 eu-west-1: 441 MB), so neither reader holds a file:
the JSON reader walks the known layout and decodes one product or one SKU's terms at a time with
the standard library's C decoder (``json.JSONDecoder.raw_decode``) over a sliding 1 MiB text
buffer; the CSV reader is the ``csv`` module over the stream. Memory is one chunk plus one value
(a value over :data:`MAX_VALUE_CHARS` is refused) plus what the caller keeps: the consumer keeps
only the products its selectors match (:mod:`deploy_engine.pricelist.refresh`).

Attribute names are compared *normalised*: spaces removed, lower case (``Instance Type`` in a
CSV header and ``instanceType`` in JSON are both ``instancetype``), see :func:`norm`.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterator

#: Text read per refill of the JSON buffer (characters).
CHUNK_CHARS = 1 << 20
#: The largest single value (a product, one SKU's terms, a metadata field) the JSON reader
#: decodes; a real one is a few KB. Larger is a malformed file, refused instead of buffered.
MAX_VALUE_CHARS = 16 << 20

#: The CSV price columns (AWS's names), normalised; every other column is a product attribute.
_CSV_PRICE_COLUMNS = {
    "sku", "offertermcode", "ratecode", "termtype", "pricedescription", "effectivedate",
    "startingrange", "endingrange", "unit", "priceperunit", "currency", "relatedto",
    "leasecontractlength", "purchaseoption", "offeringclass",
}
#: The CSV metadata rows (normalised first cell); the disclaimer is read and not kept.
_CSV_METADATA = {"formatversion", "disclaimer", "publicationdate", "version", "offercode"}
_CSV_INFO_FIELDS = {"formatversion": "format_version", "publicationdate": "publication_date", "version": "version", "offercode": "offer_code"}


class OfferFormatError(Exception):
    """The file is not an offer file of the documented layout (truncated, malformed, terms
    before products, a value too large); the message says where (character offset or CSV line)."""


def norm(name: str) -> str:
    """An attribute or column name normalised for comparison: ``"Instance Type"`` -> ``"instancetype"``."""
    return name.replace(" ", "").replace("_", "").lower()


@dataclass(frozen=True)
class Dimension:
    """One price dimension of an OnDemand term: ``usd`` (text, as published) per ``unit``
    from ``begin`` to ``end`` units (``end`` ``"Inf"`` for the last tier)."""

    rate_code: str
    offer_term_code: str
    unit: str
    usd: str
    begin: str
    end: str
    description: str


@dataclass
class Product:
    """One SKU: ``family`` (productFamily) and ``attributes`` keyed by normalised name
    (:func:`norm`); ``on_demand`` collects its OnDemand price dimensions."""

    sku: str
    family: str
    attributes: dict[str, str]
    on_demand: list[Dimension] = field(default_factory=list)
    #: Why this SKU cannot be trusted: listed twice in ``products`` with different attributes
    #: (a JSON member name repeated). A price is never chosen from it
    #: (:func:`deploy_engine.pricelist.refresh.select` reports a conflict).
    conflicts: list[str] = field(default_factory=list)


@dataclass
class OfferFile:
    """What a reader reports about the file itself (JSON top-level fields / CSV metadata rows)."""

    offer_code: str = ""
    version: str = ""
    publication_date: str = ""
    format_version: str = ""
    products_seen: int = 0


#: ``keep(product) -> bool``: whether the reader keeps a product (and later its OnDemand terms).
Keep = Callable[[Product], bool]


# ------------------------------------------------------------------------------------------
# JSON


class _Reader:
    """A sliding text buffer over a stream with the few primitives the layout walk needs."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        self.buf = ""
        self.pos = 0
        self.offset = 0  # characters dropped before buf[0]
        self.eof = False
        self._decoder = json.JSONDecoder()

    def _fill(self) -> bool:
        if self.eof:
            return False
        if self.pos > CHUNK_CHARS:
            self.offset += self.pos
            self.buf = self.buf[self.pos:]
            self.pos = 0
        try:
            chunk = self._text.read(CHUNK_CHARS)
        except UnicodeDecodeError as exc:  # found by tests/e2e/test_fuzz_pricelist.py: was exit 70
            raise OfferFormatError(f"not UTF-8 text near {self.where()} ({exc.reason})") from None
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def where(self) -> str:
        return f"character {self.offset + self.pos}"

    def peek(self) -> str:
        """The next non-blank character ('' at the end of the file), not consumed."""
        while True:
            buf, n = self.buf, len(self.buf)
            p = self.pos
            while p < n and buf[p] in " \t\r\n":
                p += 1
            self.pos = p
            if p < n:
                return buf[p]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        got = self.peek()
        if got != char:
            raise OfferFormatError(f"expected {char!r} at {self.where()}, found {got!r}" if got else f"file ends early at {self.where()} (expected {char!r}): truncated download?")
        self.pos += 1

    def value(self) -> Any:
        """Decode the next JSON value whole (a value is at most MAX_VALUE_CHARS)."""
        if not self.peek():
            raise OfferFormatError(f"file ends early at {self.where()}: truncated download?")
        while True:
            try:
                obj, end = self._decoder.raw_decode(self.buf, self.pos)
            except RecursionError:
                # A product's attributes nested 100,000 deep: the C decoder recurses per level.
                raise OfferFormatError(f"a value nested too deep to decode at {self.where()}; refused") from None
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_VALUE_CHARS:
                    raise OfferFormatError(f"malformed or oversized value at {self.where()}: {exc.msg}") from None
                if not self._fill():
                    raise OfferFormatError(f"malformed or truncated value at {self.where()}: {exc.msg}") from None
                continue
            # A number at the very end of the buffer may go on in the next chunk.
            if end == len(self.buf) and isinstance(obj, (int, float)) and self._fill():
                continue
            self.pos = end
            return obj

    def members(self) -> Iterator[str]:
        """Iterate an object's keys; the caller consumes each member's value before the next."""
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise OfferFormatError(f"expected a member name at {self.where()}")
            self.expect(":")
            yield key
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            if c == "}":
                self.pos += 1
                return
            raise OfferFormatError(f"expected ',' or '}}' at {self.where()}, found {c!r}" if c else f"file ends early at {self.where()}: truncated download?")


def _product(sku: str, raw: Any, where: str) -> Product:
    if not isinstance(raw, dict):
        raise OfferFormatError(f"product {sku!r} is not an object ({where})")
    attrs = raw.get("attributes") or {}
    if not isinstance(attrs, dict):
        raise OfferFormatError(f"product {sku!r}: attributes is not an object ({where})")
    return Product(
        sku=str(raw.get("sku") or sku),
        family=str(raw.get("productFamily") or ""),
        attributes={norm(k): str(v) for k, v in attrs.items()},
    )


def _dimensions(term_code: str, term: Any) -> Iterator[Dimension]:
    if not isinstance(term, dict):
        return
    dims = term.get("priceDimensions") or {}
    if not isinstance(dims, dict):
        return
    for rate_code, d in dims.items():
        if not isinstance(d, dict):
            continue
        price = d.get("pricePerUnit") or {}
        usd = price.get("USD") if isinstance(price, dict) else None
        if usd is None:
            continue  # priced in another currency only (CNY offers): not a USD price
        yield Dimension(
            rate_code=str(d.get("rateCode") or rate_code),
            offer_term_code=str(term.get("offerTermCode") or term_code),
            unit=str(d.get("unit") or ""),
            usd=str(usd),
            begin=str(d.get("beginRange") if d.get("beginRange") is not None else "0"),
            end=str(d.get("endRange") if d.get("endRange") is not None else "Inf"),
            description=str(d.get("description") or ""),
        )


def read_json(stream: IO[bytes], keep: Keep) -> tuple[OfferFile, dict[str, Product]]:
    """Read a JSON offer file from ``stream``: the file's details and the kept products (by SKU)
    with their OnDemand dimensions. Reserved (and any other) terms are walked and dropped.

    Raises :class:`OfferFormatError` for a file that is not of the layout (``products`` must come
    before ``terms``, as AWS publishes them: a product is only kept if seen first).
    """
    r = _Reader(stream)
    info = OfferFile()
    kept: dict[str, Product] = {}
    seen_products = False
    if r.peek() != "{":
        raise OfferFormatError("not a JSON offer file: it does not start with '{'")
    for key in r.members():
        if key == "products":
            seen_products = True
            for sku in r.members():
                where = r.where()
                product = _product(sku, r.value(), where)
                info.products_seen += 1
                if keep(product):
                    first = kept.get(product.sku)
                    if first is not None:
                        # JSON allows a repeated member name and json keeps the last; AWS
                        # lists a SKU once. When the two differ, which is the product is
                        # unknowable. (OnDemand terms given twice add their dimensions: two
                        # prices for one tier are a conflict in refresh.price_of.)
                        if (first.family, first.attributes) != (product.family, product.attributes):
                            first.conflicts.append(f"SKU {product.sku} is listed twice in products, differently")
                        continue
                    kept[product.sku] = product
        elif key == "terms":
            if not seen_products:
                raise OfferFormatError("terms precede products: not the documented layout (products first), refused")
            for term_type in r.members():
                for sku in r.members():
                    terms = r.value()
                    product = kept.get(sku)
                    if product is None or term_type != "OnDemand" or not isinstance(terms, dict):
                        continue
                    for code, term in terms.items():
                        product.on_demand.extend(_dimensions(code, term))
        else:
            value = r.value()
            if isinstance(value, (str, int, float)):
                if key == "offerCode":
                    info.offer_code = str(value)
                elif key == "version":
                    info.version = str(value)
                elif key == "publicationDate":
                    info.publication_date = str(value)
                elif key == "formatVersion":
                    info.format_version = str(value)
    if r.peek():
        raise OfferFormatError(f"unexpected data after the offer object at {r.where()}")
    if not seen_products:
        raise OfferFormatError("no products section: not an offer file")
    return info, kept


# ------------------------------------------------------------------------------------------
# CSV


def read_csv(stream: IO[bytes], keep: Keep) -> tuple[OfferFile, dict[str, Product]]:
    """Read a CSV offer file from ``stream`` (metadata rows, header, one row per dimension):
    the file's details and the kept products with their OnDemand dimensions (rows of other
    ``TermType`` are dropped). Raises :class:`OfferFormatError` for another layout."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    reader = csv.reader(text, strict=True)  # strict: a quote left open at the end (truncated) is an error
    info = OfferFile()
    header: list[str] | None = None
    try:
        for row in reader:
            if not row or all(not c.strip() for c in row):
                continue
            first = norm(row[0])
            if first in _CSV_METADATA and len(row) >= 2 and header is None:
                attr = _CSV_INFO_FIELDS.get(first)
                if attr is not None:
                    setattr(info, attr, row[1].strip())
                continue
            if first == "sku" and header is None:
                header = [norm(h) for h in row]
                break
            raise OfferFormatError(f"line {reader.line_num}: expected the five metadata rows and then the header row (SKU, OfferTermCode, ...)")
        if header is None:
            raise OfferFormatError("no header row (SKU, OfferTermCode, RateCode, TermType, ...): not a CSV offer file")
        col = {name: i for i, name in enumerate(header)}
        for needed in ("sku", "termtype", "unit", "priceperunit", "currency"):
            if needed not in col:
                raise OfferFormatError(f"the header row has no {needed!r} column")
        attr_cols = [(i, name) for i, name in enumerate(header) if name not in _CSV_PRICE_COLUMNS and name != "productfamily"]
        fam = col.get("productfamily")
        kept: dict[str, Product] = {}
        width = len(header)
        # Nothing is remembered per rejected SKU (a file has ~10^5-10^6 of them): a row's
        # SKU is decided again unless it is the previous row's (AWS writes a SKU's rows
        # together) or a kept one. products_seen counts runs of rows of one SKU.
        last_sku: str | None = None
        wanted = False
        for row in reader:
            if not row:
                continue
            if len(row) != width:
                raise OfferFormatError(f"line {reader.line_num}: expected {width} fields, got {len(row)}: truncated download?")
            sku = row[col["sku"]]
            if sku != last_sku:
                last_sku = sku
                info.products_seen += 1
                if sku in kept:
                    wanted = True
                else:
                    product = Product(sku=sku, family=row[fam] if fam is not None else "",
                                      attributes={name: row[i] for i, name in attr_cols if row[i] != ""})
                    wanted = keep(product)
                    if wanted:
                        kept[sku] = product
            if not wanted or norm(row[col["termtype"]]) != "ondemand" or row[col["currency"]].strip().upper() != "USD":
                continue
            kept[sku].on_demand.append(Dimension(
                rate_code=row[col["ratecode"]] if "ratecode" in col else "",
                offer_term_code=row[col["offertermcode"]] if "offertermcode" in col else "",
                unit=row[col["unit"]],
                usd=row[col["priceperunit"]],
                begin=(row[col["startingrange"]] if "startingrange" in col else "") or "0",
                end=(row[col["endingrange"]] if "endingrange" in col else "") or "Inf",
                description=row[col["pricedescription"]] if "pricedescription" in col else "",
            ))
        return info, kept
    except csv.Error as exc:
        raise OfferFormatError(f"line {reader.line_num}: malformed CSV ({exc})") from None
    except UnicodeDecodeError as exc:
        raise OfferFormatError(f"not UTF-8 text ({exc.reason})") from None


def read_offer(stream: IO[bytes], keep: Keep) -> tuple[OfferFile, dict[str, Product]]:
    """Read a JSON or CSV offer file, whichever ``stream`` holds (JSON starts with ``{``)."""
    buffered = stream if hasattr(stream, "peek") else io.BufferedReader(stream)  # type: ignore[arg-type]
    head = buffered.peek(64)[:64].lstrip(b"\xef\xbb\xbf \t\r\n")  # type: ignore[union-attr]
    if head.startswith(b"{"):
        return read_json(buffered, keep)
    return read_csv(buffered, keep)
