"""The planner against docs/catalog.md's worked checks and the unit-price arithmetic."""

from decimal import Decimal

import pytest

from runway_core.analysis import analyze
from runway_core.money import cents
from runway_core.planner import EntrySpec, EnvSpec, RunwaySpec, plan_environment, plan_json


def spec(*entries, region="us-east-1", envs=None):
    envs = envs or (EnvSpec("dev", Decimal(150), "default"),)
    return RunwaySpec("p", region, envs, {e.name: e for e in entries}, ())


def test_worked_check_postgres_small_rds_proxy(catalog):
    # docs/catalog.md: 11.68 + 2.30 + 21.90 + 0.40 = $36.28 / month
    plan = plan_environment(spec(EntrySpec("db", "postgres", {}, engine={"flavor": "rds", "proxy": True})), catalog, "dev")
    item = plan.item("db")
    assert [li.monthly_usd for li in item.line_items] == [Decimal("11.68"), Decimal("2.30"), Decimal("21.90"), Decimal("0.40")]
    assert item.monthly_usd == Decimal("36.28")
    assert item.capacity["instance_class"] == "db.t4g.micro" and item.capacity["multi_az"] is False
    assert all(li.source for li in item.line_items)


def test_worked_check_workload_small_two_tasks(catalog):
    # docs/catalog.md: (0.25 x 0.03238 + 0.5 x 0.00356) x 730 x 2 = $14.42 / month of Fargate,
    # plus its log group: 1.5 GB x 2 tasks ingested x $0.50 = 1.50, 3 GB kept 30 days x $0.03 = 0.09.
    plan = plan_environment(spec(EntrySpec("w", "workload", {}, scales={}, default_scale=2, image="x@sha256:" + "0" * 64, port=80)), catalog, "dev")
    item = plan.item("w")
    assert [li.price_key for li in item.line_items] == ["fargate:arm:vcpu", "fargate:arm:memory", "logs:ingestion", "logs:storage"]
    assert sum(li.monthly_usd for li in item.line_items[:2]) == Decimal("14.42")
    logs = item.line_items[2:]
    assert [(li.quantity, li.unit_usd, li.monthly_usd) for li in logs] == [(Decimal("3.0"), Decimal("0.50"), Decimal("1.50")), (Decimal("3"), Decimal("0.03"), Decimal("0.09"))]
    assert logs[0].description == "CloudWatch Logs ingestion, assumed 1.5 GB x 2 task(s)"
    assert logs[1].description == "CloudWatch Logs storage, assumed 3 GB kept 30 days"
    assert all(li.source and li.confidence == "secondary" for li in logs)
    assert item.monthly_usd == Decimal("16.01")
    assert item.capacity["assumed_log_ingested_gb"] == Decimal("1.5") and item.capacity["log_retention_days"] == 30
    assert item.capacity["cpu_units"] == 256 and item.capacity["memory_mib"] == 512 and item.capacity["tasks"] == 2
    # Internal workload -> Cloud Map namespace (zone $0.50 + 2 tasks x $0.10).
    assert plan.item("service-discovery").monthly_usd == Decimal("0.70")


@pytest.mark.parametrize(
    "size, expected",
    [
        # instance 0.129 x 730 + 100 GB x 0.23 + proxy 21.90 + secret 0.40
        ("medium", cents(Decimal("0.129") * 730) + Decimal("23.00") + Decimal("21.90") + Decimal("0.40")),
        ("large", cents(Decimal("0.337") * 730) + Decimal("57.50") + Decimal("21.90") + Decimal("0.40")),
    ],
)
def test_postgres_multi_az_sizes(catalog, size, expected):
    plan = plan_environment(spec(EntrySpec("db", "postgres", {"dev": size}, engine={"flavor": "rds", "proxy": True})), catalog, "dev")
    assert plan.item("db").monthly_usd == expected
    assert plan.item("db").capacity["multi_az"] is True


def test_aurora_medium(catalog):
    plan = plan_environment(spec(EntrySpec("db", "postgres", {"dev": "medium"}, engine={"flavor": "aurora", "proxy": True})), catalog, "dev")
    item = plan.item("db")
    expected = cents(Decimal("0.276") * 2 * 730) + cents(Decimal("0.10") * 100) + cents(Decimal("0.20") * 50) + cents(Decimal("0.015") * 4 * 730) + Decimal("0.40")
    assert item.monthly_usd == expected
    assert item.capacity["instances"] == 2 and item.capacity["proxy_vcpus"] == 4


def test_proxy_off_drops_proxy_and_secret(catalog):
    plan = plan_environment(spec(EntrySpec("db", "postgres", {}, engine={"flavor": "rds", "proxy": False})), catalog, "dev")
    assert plan.item("db").monthly_usd == Decimal("13.98")


def test_queue_topic_cache_bucket(catalog):
    entries = (
        EntrySpec("q", "queue", {"dev": "medium"}, engine={"fifo": True}),
        EntrySpec("t", "topic", {}, engine={"fifo": False}),
        EntrySpec("c", "cache", {"dev": "medium"}, engine={}),
        EntrySpec("b", "bucket", {"dev": "large"}, engine={"versioning": True}),
    )
    plan = plan_environment(spec(*entries), catalog, "dev")
    assert plan.item("q").monthly_usd == Decimal("12.50")  # 25 M x 0.50 FIFO
    assert plan.item("t").monthly_usd == Decimal("0.50")
    assert plan.item("c").monthly_usd == cents(Decimal("0.0256") * 2 * 730)
    assert plan.item("b").monthly_usd == Decimal("115.00") + Decimal("50.00") + Decimal("40.00")
    assert plan.total == sum(i.monthly_usd for i in plan.items)


def test_public_workload_adds_alb(catalog):
    w = EntrySpec("w", "workload", {}, image="x@sha256:" + "0" * 64, port=80, expose="public")
    plan = plan_environment(spec(w), catalog, "dev")
    assert plan.item("alb").monthly_usd == Decimal("16.43") + Decimal("5.84") + Decimal("7.30")
    assert plan.item("service-discovery") is None


def test_missing_region_price_is_a_gap_never_another_region(tmp_path):
    from conftest import catalog_without

    catalog = catalog_without(tmp_path / "cat", {("rds:db.t4g.medium:multi-az", "eu-central-1")})
    db = EntrySpec("db", "postgres", {"dev": "medium"}, engine={"flavor": "rds", "proxy": True})
    plan = plan_environment(spec(db, region="eu-central-1"), catalog, "dev")
    item = plan.item("db")
    assert "rds:db.t4g.medium:multi-az" in item.missing_prices
    assert all(li.price_key not in item.missing_prices for li in item.line_items)
    assert "rds:db.t4g.medium:multi-az" in plan.missing_prices


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "eu-central-1"])
def test_a_missing_logs_price_fails_closed_under_a_cap(tmp_path, region):
    """Without a region's CloudWatch Logs storage price the workload is a lower bound, the
    capped environment is refused (``unpriced``) and no other region's price is used."""
    from conftest import catalog_without

    catalog = catalog_without(tmp_path / "cat", {("logs:storage", region)})
    w = EntrySpec("w", "workload", {}, scales={}, default_scale=1, image="x@sha256:" + "0" * 64, port=80)
    capped = plan_environment(spec(w, region=region, envs=(EnvSpec("dev", Decimal(1000), "set"),)), catalog, "dev")
    item = capped.item("w")
    assert item.missing_prices == ("logs:storage",) and capped.missing_prices == ("logs:storage",)
    assert [li.price_key for li in item.line_items] == ["fargate:arm:vcpu", "fargate:arm:memory", "logs:ingestion"]
    assert capped.verdict == "unpriced" and capped.refused
    uncapped = plan_environment(spec(w, region=region, envs=(EnvSpec("dev", None, "none"),)), catalog, "dev")
    assert uncapped.verdict == "no-cap"


@pytest.mark.parametrize("region, ingestion, storage", [("eu-west-1", "0.57", "0.03"), ("eu-central-1", "0.63", "0.0324")])
def test_logs_are_priced_in_the_runways_region(catalog, region, ingestion, storage):
    w = EntrySpec("w", "workload", {"dev": "large"}, scales={}, default_scale=3, image="x@sha256:" + "0" * 64, port=80)
    item = plan_environment(spec(w, region=region), catalog, "dev").item("w")
    logs = {li.price_key: li for li in item.line_items if li.price_key.startswith("logs:")}
    assert logs["logs:ingestion"].quantity == Decimal(72) and logs["logs:ingestion"].unit_usd == Decimal(ingestion)
    assert logs["logs:storage"].quantity == Decimal(72) and logs["logs:storage"].unit_usd == Decimal(storage)
    assert logs["logs:ingestion"].monthly_usd == cents(Decimal(72) * Decimal(ingestion))
    assert logs["logs:storage"].monthly_usd == cents(Decimal(72) * Decimal(storage))
    assert item.monthly_usd == sum(li.monthly_usd for li in item.line_items)


def test_verdicts(catalog):
    db = EntrySpec("db", "postgres", {"dev": "large"}, engine={"flavor": "rds", "proxy": True})
    assert plan_environment(spec(db), catalog, "dev").verdict == "over-cap"
    assert plan_environment(spec(db, envs=(EnvSpec("dev", None, "none"),)), catalog, "dev").verdict == "no-cap"
    assert plan_environment(spec(db, envs=(EnvSpec("dev", Decimal(1000), "set"),)), catalog, "dev").verdict == "ok"


def test_orders_example_totals_and_wiring(catalog, orders_root):
    an = analyze(str(orders_root), catalog)
    dev = an.plans["dev"]
    assert dev.total == Decimal("126.88") and dev.cap == Decimal(150) and dev.verdict == "ok"
    assert [an.plans[e].total for e in ("staging", "production")] == [Decimal("258.11"), Decimal("828.03")]
    main_db = dev.item("main-db")
    assert set(main_db.consumers) == {"metabase", "zitadel", "checkout", "billing"}
    assert main_db.variables == ("MAIN_DB_URL", "MAIN_DB_HOST", "MAIN_DB_PORT", "MAIN_DB_USER", "MAIN_DB_PASSWORD", "MAIN_DB_DATABASE")
    assert main_db.ssm_parameters["MAIN_DB_URL"] == "/runway/orders/dev/main-db/MAIN_DB_URL"
    assert main_db.infisical_path == "dev:/runtime/main-db/"
    shared = {i.name: i for i in dev.items if i.implicit and i.origin == "shared"}
    assert set(shared) == {"shared-queue", "shared-cache"}
    assert an.plans["production"].item("shared-cache").size == "large"
    assert an.plans["staging"].item("shared-queue").size == "small"  # staging's shared names no queue
    doc = plan_json(type("P", (), {"product": "orders", "region": "us-east-1", "environments": (dev,), "catalog_origin": "x"})())
    assert doc["environments"][0]["total_monthly_usd"] == 126.88
