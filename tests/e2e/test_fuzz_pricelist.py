"""A fuzzer for the Price List reader (issue 23, item 4), hypothesis with a fixed budget.

Random offer documents in AWS's JSON and CSV layouts (tests/deploy/pricelist_mirror.py, from
"Reading the service price list file for an AWS service"): the real product of a key among
the mirror's decoys (other engines, Extended Support, readable standbys...) and random decoys
of our own (the real usage type with a suffix, another product family, another region), its
price drawn from well-formed and hostile numbers (exponents, 2,000 digits, signs, hex), and
sometimes its OnDemand terms given a second time with another price. The oracle is the
documented rule (docs/cli.md, "catalog refresh"), not the reader: a plain decimal within the
limits is found exactly (price x the unit factor) on the real SKU; anything else is refused for
the key; a SKU priced twice is a conflict; a decoy is never chosen; what is written loads.
Random bytes given to the reader are an OfferFormatError or a document, never another error.

Budget: ``max_examples`` fixed, ``deadline=None``, derandomised; ~30 s in all (one check found
that an offer file that is not UTF-8 escaped as UnicodeDecodeError: exit 70).
"""

from __future__ import annotations

import io
import json
import re
import sys
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "deploy"))

import pricelist_mirror as mirror  # noqa: E402
from deploy_engine.pricelist.offers import OfferFormatError, read_offer  # noqa: E402
from deploy_engine.pricelist.refresh import Found, select, write_catalogue  # noqa: E402
from deploy_engine.pricelist.selectors import selector_for  # noqa: E402
from runway_core.catalog import MAX_DIGITS, MAX_UNIT_USD, load_catalog  # noqa: E402

FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
REGION = "eu-west-1"
KEYS = ["alb:hour", "rds:db.t4g.micro:single-az", "sqs:standard", "valkey:cache.t4g.micro"]
#: docs/cli.md: "a plain decimal (no sign or exponent, at most 12 integer and 20 fractional digits)".
PLAIN = re.compile(r"[0-9]{1,12}(\.[0-9]{1,20})?")

prices = st.one_of(
    st.decimals(min_value=Decimal("0.0000000001"), max_value=Decimal(50), places=10).map(lambda d: format(d, "f")),
    st.sampled_from(["1E+999999999", "1e308", "9" * 2000, "0." + "1" * 2000, "-0.5", "0x10", "NaN", "Infinity", "", "1,5",
                     "7" * 13, "0.000000000000000000001", "0", "0.0000000", "12.5E3", "\u0661\u0662"]),
    st.text(max_size=12),
)


@st.composite
def decoys(draw, real: mirror.Item, sel) -> list[mirror.Item]:
    """Products beside the real one that differ from it in one attribute its selector reads
    (docs/catalog.md, "Refreshing prices": family, the usage type compared whole, the listed
    attributes, the region)."""
    out = []
    kinds = ["family", "region"] + (["suffix"] if sel.usage is not None else []) + (["attr"] if sel.attrs else [])
    for n in range(draw(st.integers(0, 4))):
        attrs = dict(real.attributes)
        how = draw(st.sampled_from(kinds))
        family = real.family
        if how == "suffix":
            attrs["usagetype"] = attrs["usagetype"] + draw(st.sampled_from(["-Spot", ":x", "IOOptimized", "2"]))
        elif how == "attr":
            name = sel.attrs[0][0]
            original = next(k for k in attrs if k.replace(" ", "").replace("_", "").lower() == name)
            attrs[original] = attrs[original] + " (decoy)"
        elif how == "family":
            family = family + " (decoy)"
        else:
            attrs["regionCode"] = "us-west-2"
        usd = draw(st.decimals(min_value=Decimal("0.0001"), max_value=Decimal(9), places=4).map(str))
        out.append(mirror.Item(mirror.sku(REGION, "fuzz-decoy", str(n), how), family, attrs, [("0", "Inf", real.tiers[0][2], usd)]))
    return out


def _twin_terms(text: str, sku: str, usd: str) -> str:
    """The JSON document with the SKU's OnDemand terms given again (a repeated member name)."""
    doc = json.loads(text)
    twin = json.loads(json.dumps(doc["terms"]["OnDemand"][sku]))
    for term in twin.values():
        for dim in term["priceDimensions"].values():
            dim["pricePerUnit"]["USD"] = usd
    head = '"OnDemand": {'
    text = json.dumps(doc)
    return text.replace(head, head + json.dumps(sku) + ": " + json.dumps(twin) + ", ", 1)


@settings(FUZZ, max_examples=400)
@given(st.sampled_from(KEYS), prices, st.data(), st.sampled_from(["json", "csv"]), st.one_of(st.none(), prices))
def test_random_offer_documents_with_decoys(tmp_path_factory, key, price, data, layout, twin_price) -> None:
    sel = selector_for(key)
    items = mirror.region_items(REGION, {key: "0.5"})[sel.offer]
    real = next(i for i in items if i.sku == mirror.sku(REGION, key))
    real.tiers = [(b, e, u, price) for b, e, u, _ in real.tiers]
    items += data.draw(decoys(real, sel))
    if layout == "json":
        text = mirror.offer_json(sel.offer, items)
        if twin_price is not None:
            text = _twin_terms(text, real.sku, twin_price)
    else:
        twin = [mirror.Item(real.sku, real.family, real.attributes, [(b, e, u, twin_price) for b, e, u, _ in real.tiers], None)] \
            if twin_price is not None else []
        text = mirror.offer_csv(sel.offer, items + twin)  # the SKU's rows again, after the others
    info, kept = read_offer(io.BytesIO(text.encode("utf-8")), lambda p: sel.rank(p, REGION) is not None)
    outcome = select(sel, REGION, kept.values(), info)

    # The oracle: docs/cli.md's rules, computed from the drawn texts alone.
    factor = Decimal(1) if sel.units is None else sel.units[real.tiers[0][2].lower()]
    published = [price] + ([twin_price] if twin_price is not None else [])
    if not all(PLAIN.fullmatch(t.strip()) for t in published):
        assert not isinstance(outcome, Found) and "refused" in outcome.reason, outcome  # a bad number refuses the key
    else:
        paid = {Decimal(t) for t in published if Decimal(t) > 0}
        if len(paid) > 1:
            assert not isinstance(outcome, Found) and "conflict" in outcome.reason, outcome  # never a silent pick
        elif not paid:
            assert not isinstance(outcome, Found), outcome
        else:
            value = paid.pop() * factor
            if value <= MAX_UNIT_USD and len(value.normalize().as_tuple().digits) <= MAX_DIGITS:
                assert isinstance(outcome, Found) and outcome.sku == real.sku and outcome.usd == value, outcome  # never a decoy
            else:
                assert not isinstance(outcome, Found) and "plausible" in outcome.reason, outcome
    if not isinstance(outcome, Found):
        assert len(outcome.reason) < 2000  # a 2,000-digit price is cut when quoted
    out = tmp_path_factory.mktemp("cat")
    write_catalogue(out / "c", mirror_sizes(), [outcome] if isinstance(outcome, Found) else [])
    load_catalog(out / "c")  # what is written always loads


def mirror_sizes() -> bytes:
    return (Path(__file__).resolve().parents[2] / "catalog" / "sizes.toml").read_bytes()


@settings(FUZZ, max_examples=300)
@given(st.one_of(st.binary(max_size=400),
                 st.builds(lambda head, tail: head + tail, st.sampled_from([b"{", b'{"products": {', b'{"products": {}, "terms": {"OnDemand": {',
                                                                            b'"FormatVersion","v1.0"\n"SKU","TermType"\n', b"\xef\xbb\xbf{"]),
                           st.binary(max_size=200))))
def test_random_bytes_are_a_format_error_or_a_document(data: bytes) -> None:
    try:
        read_offer(io.BytesIO(data), lambda p: True)
    except OfferFormatError:
        pass
