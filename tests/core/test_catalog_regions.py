"""The shipped catalogue holds in every region it lists (issue 13).

For every kind x size (x flavor / FIFO / exposure), a runway in us-east-1, eu-west-1 and
eu-central-1 plans with no missing price, and each EU total is at least the us-east-1 total of
the same runway minus 5% (EU list prices are at or above us-east-1's: a lower EU estimate would
mean a missing or wrong price).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from runway_core.catalog import SIZES, load_catalog
from runway_core.planner import EntrySpec, EnvSpec, RunwaySpec, plan_environment

REGIONS = ("us-east-1", "eu-west-1", "eu-central-1")
EU = ("eu-west-1", "eu-central-1")
IMAGE = "example/app@sha256:" + "0" * 64

#: (label, kind, engine options, workload exposure)
VARIANTS = (
    ("postgres rds", "postgres", {"flavor": "rds", "proxy": True}, None),
    ("postgres rds, no proxy", "postgres", {"flavor": "rds", "proxy": False}, None),
    ("postgres aurora", "postgres", {"flavor": "aurora", "proxy": True}, None),
    ("cache", "cache", {}, None),
    ("queue", "queue", {"fifo": False}, None),
    ("queue fifo", "queue", {"fifo": True}, None),
    ("topic", "topic", {"fifo": False}, None),
    ("topic fifo", "topic", {"fifo": True}, None),
    ("bucket", "bucket", {}, None),
    ("workload internal", "workload", {}, "internal"),
    ("workload public", "workload", {}, "public"),
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _plan(catalog, kind: str, size: str, engine: dict, expose: str | None, region: str):
    extra = {"image": IMAGE, "port": 8080, "expose": expose, "default_scale": 2} if kind == "workload" else {}
    entry = EntrySpec("x", kind, {"dev": size}, engine=engine, **extra)
    spec = RunwaySpec("p", region, (EnvSpec("dev", Decimal(150), "default"),), {"x": entry}, ())
    return plan_environment(spec, catalog, "dev")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("label", "kind", "engine", "expose"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_every_kind_and_size_is_priced_in_every_region(catalog, label, kind, engine, expose, size):
    totals = {}
    for region in REGIONS:
        plan = _plan(catalog, kind, size, engine, expose, region)
        assert plan.missing_prices == (), (label, size, region, plan.missing_prices)
        assert plan.total > 0
        # Every line item is priced with that region's own row.
        for item in plan.items:
            for li in item.line_items:
                assert catalog.price(li.price_key, region).usd == li.unit_usd
        totals[region] = plan.total
    for region in EU:
        assert totals[region] >= totals["us-east-1"] * Decimal("0.95"), (label, size, region, totals)


def test_global_prices_hold_in_every_region(catalog):
    for key, usd in (("vpc:public-ipv4", "0.005"), ("route53:private-zone", "0.50"), ("secretsmanager:secret", "0.40")):
        for region in REGIONS:
            price = catalog.price(key, region)
            assert price is not None and price.usd == Decimal(usd), (key, region)


def test_issue_13_runway_in_eu_west_1_is_fully_priced(catalog):
    """The issue's runway: a Multi-AZ postgres, a large cache and a public workload in eu-west-1
    is now fully priced (no missing price) and over the $150 dev cap, as in us-east-1."""
    entries = {
        "db": EntrySpec("db", "postgres", {"dev": "medium"}, engine={"flavor": "rds", "proxy": True}),
        "cache": EntrySpec("cache", "cache", {"dev": "large"}),
        "web": EntrySpec("web", "workload", {}, image=IMAGE, port=8080, expose="public"),
    }
    totals = {}
    for region in ("us-east-1", "eu-west-1"):
        spec = RunwaySpec("p", region, (EnvSpec("dev", Decimal(150), "default"),), entries, ())
        plan = plan_environment(spec, catalog, "dev")
        assert plan.missing_prices == ()
        assert plan.verdict == "over-cap"
        totals[region] = plan.total
    assert totals["eu-west-1"] >= totals["us-east-1"]
