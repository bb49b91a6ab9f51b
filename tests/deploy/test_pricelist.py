"""``catalog refresh`` (deploy_engine.pricelist) against real Price List layouts.

A mirror in AWS's layout (tests/pricelist_mirror.py: offer index, region indexes, JSON and CSV
offer files with OnDemand and Reserved terms and decoy SKUs) is served by a real
``http.server`` on 127.0.0.1 started here, and read through ``file://`` too. The refreshed
folder is then priced by ``runway-deploy plan --catalog DIR``: every line item must carry the
mirror's exact price.
"""

from __future__ import annotations

import csv
import functools
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from decimal import Decimal
from pathlib import Path

import pytest

import pricelist_mirror as mirror
from deploy_engine.pricelist import command, offers
from deploy_engine.pricelist.refresh import refresh
from deploy_engine.pricelist.selectors import selector_for, usage_matches

REPO = Path(__file__).resolve().parents[2]
D = Decimal

#: Made-up prices in AWS units (per hour, GB-Mo, request, IO), distinct per region.
BASE = {
    "rds:db.t4g.micro:single-az": "0.0161", "rds:db.t4g.micro:multi-az": "0.0322", "rds:db.t4g.medium:single-az": "0.0651",
    "rds:db.t4g.medium:multi-az": "0.1302", "rds:db.m7g.large:single-az": "0.1681", "rds:db.m7g.large:multi-az": "0.3371",
    "rds:db.t4g.small:single-az": "0.0321", "rds:db.t4g.small:multi-az": "0.0651", "rds:db.r7g.large:single-az": "0.2391",
    "rds:db.r7g.large:multi-az": "0.4781",
    "rds:gp3:single-az": "0.1151", "rds:gp3:multi-az": "0.2301", "aurora:db.t4g.medium:standard": "0.0731",
    "aurora:db.r7g.large:standard": "0.2761", "aurora:storage:standard": "0.1001", "aurora:io:standard": "0.0000002001",
    "rds-proxy:vcpu": "0.0151", "valkey:cache.t4g.micro": "0.0129", "valkey:cache.t4g.small": "0.0257",
    "valkey:cache.m7g.large": "0.1265", "sqs:standard": "0.00000041", "sqs:fifo": "0.00000051", "sns:standard": "0.00000051",
    "sns:fifo": "0.00000031", "sns:fifo:payload": "0.0171", "s3:storage": "0.0231", "s3:tier1": "0.0000051", "s3:tier2": "0.00000041",
    "fargate:arm:vcpu": "0.03239", "fargate:arm:memory": "0.003561", "fargate:x86:vcpu": "0.04049", "fargate:x86:memory": "0.004446",
    "alb:hour": "0.02251", "alb:lcu": "0.0081", "vpc:public-ipv4": "0.0051", "cloudmap:instance": "0.11",
    "secretsmanager:secret": "0.41", "logs:ingestion": "0.51", "logs:storage": "0.031", "nat:hour": "0.0451", "nat:gb": "0.0452", "transfer:internet-out": "0.091",
}
#: The factor from AWS's unit to the catalogue's ("1M requests", "1,000 requests").
FACTOR = {"aurora:io:standard": D(1_000_000), "sqs:standard": D(1_000_000), "sqs:fifo": D(1_000_000), "sns:standard": D(1_000_000),
          "sns:fifo": D(1_000_000), "s3:tier1": D(1000), "s3:tier2": D(1000)}
ZONE = "0.5"


def region_prices(region: str) -> dict[str, str]:
    bump = {"us-east-1": D(0), "eu-west-1": D("0.0000000001"), "eu-central-1": D("0.0000000002")}[region]
    return {k: f"{D(v) * (1 if region == 'us-east-1' else D('1.1')) + bump:.10f}" for k, v in BASE.items()}


def expected(region: str, key: str) -> Decimal:
    """What prices.csv must hold: the mirror's price x the unit factor, exactly."""
    return D(region_prices(region)[key]) * FACTOR.get(key, D(1))


@pytest.fixture(scope="module")
def mirror_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mirror")
    prices = {r: region_prices(r) for r in ("us-east-1", "eu-west-1", "eu-central-1")}
    del prices["eu-central-1"]["valkey:cache.m7g.large"]  # a key the eu-central-1 file does not have
    return mirror.write_mirror(root, prices, global_prices={"route53:private-zone": ZONE})


@pytest.fixture(scope="module")
def http_source(mirror_root):
    """A real http.server on 127.0.0.1 (a free port) serving the mirror; stopped after the module."""
    handler = functools.partial(_QuietHandler, directory=str(mirror_root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        _QuietHandler.requests.append(self.path)


def read_prices(folder: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (folder / "prices.csv").open(encoding="utf-8", newline="") as fh:
        return {(row["key"], row["region"]): row for row in csv.DictReader(fh)}


def run_refresh(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return command.main(list(argv), stderr=err), err.getvalue()


def test_refresh_over_http_yields_exactly_the_mirrors_prices(http_source, tmp_path):
    source, _server = http_source
    _QuietHandler.requests.clear()
    code, err = run_refresh("--source", source, "--region", "eu-west-1", "--region", "eu-central-1", "--output", str(tmp_path / "out"))
    rows = read_prices(tmp_path / "out")
    for region in ("eu-west-1", "eu-central-1"):
        for key in BASE:
            if (key, region) == ("valkey:cache.m7g.large", "eu-central-1"):
                assert (key, region) not in rows  # reported, not invented
                continue
            row = rows[(key, region)]
            assert D(row["usd"]) == expected(region, key), (key, region)
            assert row["confidence"] == "price-list"
            assert row["seen"] == "2026-11-20"
            src = row["source"]
            # offer code, offer version, publication date and the very SKU of the real product
            assert selector_for(key).offer in src and mirror.VERSION in src and mirror.PUBLISHED in src
            assert f"SKU {mirror.sku(region, key)}" in src, (key, src)
            assert "fixture" not in src.lower()
        assert D(rows[("route53:private-zone", region)]["usd"]) == D(ZONE)
        assert "global" in rows[("route53:private-zone", region)]["source"]
    # The missing key is named on stderr with its region and the exit code says "incomplete".
    assert code == command.EXIT_INCOMPLETE
    assert "no eu-central-1 price for valkey:cache.m7g.large" in err
    # Progress went to stderr; the walk was index -> region index -> offer file, over HTTP.
    assert "/offers/v1.0/aws/index.json" in _QuietHandler.requests
    assert "/offers/v1.0/aws/AmazonRDS/current/region_index.json" in _QuietHandler.requests
    assert f"/offers/v1.0/aws/AmazonRDS/{mirror.VERSION}/eu-west-1/index.json" in _QuietHandler.requests
    assert "AmazonRDS eu-west-1: reading" in err
    # The Route 53 global file is read once for both regions.
    assert _QuietHandler.requests.count(f"/offers/v1.0/aws/AmazonRoute53/{mirror.VERSION}/global/index.json") == 1
    # sizes.toml is copied byte for byte.
    assert (tmp_path / "out" / "sizes.toml").read_bytes() == (REPO / "catalog" / "sizes.toml").read_bytes()


def test_csv_offer_files_and_file_urls_give_the_same_prices(mirror_root, http_source, tmp_path):
    source, _ = http_source
    run_refresh("--source", source, "--region", "us-east-1", "--output", str(tmp_path / "json"))
    code, err = run_refresh("--source", mirror_root.as_uri(), "--region", "us-east-1", "--offer-format", "csv", "--output", str(tmp_path / "csv"))
    assert code == command.EXIT_OK, err
    a, b = read_prices(tmp_path / "json"), read_prices(tmp_path / "csv")
    assert a.keys() == b.keys()
    for k in a:
        assert D(a[k]["usd"]) == D(b[k]["usd"]) == (expected("us-east-1", k[0]) if k[0] in BASE else D(ZONE))
        assert a[k]["source"].split("SKU ")[1][:16] == b[k]["source"].split("SKU ")[1][:16]


def test_refreshed_folder_priced_through_plan_catalog(http_source, tmp_path):
    """The refreshed folder, given to `runway-deploy plan --catalog DIR`, prices every line
    item of an eu-west-1 runway at the mirror's exact price (no missing price)."""
    source, _ = http_source
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "catalog", "refresh", "--source", source, "--region", "eu-west-1",
                           "--output", str(tmp_path / "cat")], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "catalog refresh: wrote" in proc.stderr and proc.stdout == ""
    product = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", product)
    root = product / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace("region: us-east-1", "region: eu-west-1"), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "plan", str(product), "--catalog", str(tmp_path / "cat"), "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    doc = json.loads(proc.stdout)
    assert doc["region"] == "eu-west-1" and doc["catalog"] == str(tmp_path / "cat")
    seen = set()
    for env_plan in doc["environments"]:
        assert env_plan["missing_prices"] == []
        for item in env_plan["items"]:
            for li in item["line_items"]:
                key = li["price_key"]
                want = D(ZONE) if key == "route53:private-zone" else expected("eu-west-1", key)
                assert D(str(li["unit_usd"])) == want, key
                assert li["confidence"] == "price-list"
                seen.add(key)
    assert {"rds:db.t4g.micro:single-az", "rds:db.m7g.large:multi-az", "valkey:cache.m7g.large", "fargate:arm:vcpu", "rds-proxy:vcpu"} <= seen


def test_decoys_are_never_selected(mirror_root, tmp_path):
    """MySQL, Extended Support, readable-standby, I/O-Optimized, Redis, Spot and NLB SKUs sit
    beside every real product: the chosen SKU is always the real one."""
    result = refresh(mirror_root.as_uri(), ["eu-west-1"], tmp_path / "out")
    for f in result.found:
        if f.selector.key in BASE:
            assert f.sku == mirror.sku("eu-west-1", f.selector.key), f.selector.key


def test_disagreeing_matches_are_ambiguous_not_guessed(tmp_path):
    prices = {"eu-west-1": {"alb:hour": "0.0252"}}
    root = mirror.write_mirror(tmp_path / "m", prices)
    # A second Application Load Balancer SKU with the same usage type and another price.
    path = root / "offers/v1.0/aws/AWSELB" / mirror.VERSION / "eu-west-1" / "index.json"
    items = mirror.region_items("eu-west-1", prices["eu-west-1"])["AWSELB"]
    items.append(mirror.Item("TWINSKU000000001", "Load Balancer-Application",
                             {"usagetype": "EU-LoadBalancerUsage", "regionCode": "eu-west-1"}, [("0", "Inf", "Hrs", "0.0300")]))
    path.write_text(mirror.offer_json("AWSELB", items), encoding="utf-8")
    result = refresh(root.as_uri(), ["eu-west-1"], tmp_path / "out")
    missing = {m.key: m.reason for m in result.missing}
    assert "alb:hour" in missing and "ambiguous" in missing["alb:hour"] and "TWINSKU000000001" in missing["alb:hour"]
    assert all(f.selector.key != "alb:hour" for f in result.found)


def test_a_region_the_offers_do_not_publish_is_reported_for_every_key(mirror_root, tmp_path):
    code, err = run_refresh("--source", mirror_root.as_uri(), "--region", "ap-southeast-2", "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE
    assert "no ap-southeast-2 price for rds:db.t4g.micro:single-az: offer AmazonRDS publishes no file for ap-southeast-2" in err
    rows = read_prices(tmp_path / "out")
    # Route 53 is global: the one price that holds in ap-southeast-2 too. Nothing else is borrowed.
    assert set(rows) == {("route53:private-zone", "ap-southeast-2")}


def test_region_all_prices_every_published_region(mirror_root, tmp_path):
    result = refresh(mirror_root.as_uri(), ["all"], tmp_path / "out")
    assert result.regions == ["eu-central-1", "eu-west-1", "us-east-1"]


def test_truncated_offer_file_is_an_error_for_its_keys_only(tmp_path):
    root = mirror.write_mirror(tmp_path / "m", {"eu-west-1": region_prices("eu-west-1")}, global_prices={"route53:private-zone": ZONE})
    path = root / "offers/v1.0/aws/AmazonElastiCache" / mirror.VERSION / "eu-west-1" / "index.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    result = refresh(root.as_uri(), ["eu-west-1"], tmp_path / "out")
    bad = {m.key: m.reason for m in result.missing}
    assert set(bad) == {"valkey:cache.t4g.micro", "valkey:cache.t4g.small", "valkey:cache.m7g.large"}
    assert all("truncated" in r for r in bad.values())
    assert any(f.selector.key == "rds:db.t4g.micro:single-az" for f in result.found)


def test_unreachable_source_and_bad_arguments(tmp_path):
    code, err = run_refresh("--source", (tmp_path / "nothing").as_uri(), "--region", "eu-west-1", "--output", str(tmp_path / "o"))
    assert code == command.EXIT_NO_INPUT and "index.json" in err and "Traceback" not in err
    code, err = run_refresh("--source", "ftp://example.invalid", "--region", "eu-west-1", "--output", str(tmp_path / "o"))
    assert code == command.EXIT_USAGE and "http://" in err
    code, err = run_refresh("--source", "http://127.0.0.1:1", "--region", "eu-west-1", "--output", str(tmp_path / "o"))
    assert code == command.EXIT_NO_INPUT
    code, err = run_refresh("--region", "all", "--region", "eu-west-1", "--output", str(tmp_path / "o"))
    assert code == command.EXIT_USAGE


def test_http_error_status_is_named(http_source, tmp_path):
    source, _ = http_source
    code, err = run_refresh("--source", source + "/no-such-mirror", "--region", "eu-west-1", "--output", str(tmp_path / "o"))
    assert code == command.EXIT_NO_INPUT and "HTTP 404" in err


# ---- the streaming readers


def _offer_bytes(region: str = "eu-west-1") -> bytes:
    items = mirror.region_items(region, region_prices(region))["AmazonRDS"]
    return mirror.offer_json("AmazonRDS", items).encode()


def test_json_reader_is_chunk_boundary_proof(monkeypatch):
    """Any chunk size gives the same products and dimensions (values span refills)."""
    data = _offer_bytes()
    keep = lambda p: p.family == "Database Instance"  # noqa: E731
    info, whole = offers.read_json(io.BytesIO(data), keep)
    for chunk in (1, 7, 64, 1000):
        monkeypatch.setattr(offers, "CHUNK_CHARS", chunk)
        info2, part = offers.read_json(io.BytesIO(data), keep)
        assert info2 == info and part == whole
    assert info.offer_code == "AmazonRDS" and info.version == mirror.VERSION and info.publication_date == mirror.PUBLISHED
    # Reserved terms were walked and dropped: only OnDemand dimensions are kept.
    assert all(d.offer_term_code == mirror.OD_CODE for p in whole.values() for d in p.on_demand)


def test_json_reader_refuses_terms_before_products_and_garbage():
    with pytest.raises(offers.OfferFormatError, match="precede"):
        offers.read_json(io.BytesIO(b'{"terms": {"OnDemand": {}}, "products": {}}'), lambda p: True)
    with pytest.raises(offers.OfferFormatError):
        offers.read_json(io.BytesIO(b'{"products": {"A": {"sku": "A"} "B": 1}}'), lambda p: True)
    with pytest.raises(offers.OfferFormatError, match="no products"):
        offers.read_json(io.BytesIO(b'{"offerCode": "X"}'), lambda p: True)
    with pytest.raises(offers.OfferFormatError):
        offers.read_offer(io.BytesIO(b"<html>404</html>"), lambda p: True)


def test_csv_reader_reads_the_metadata_rows_and_on_demand_rows_only():
    items = mirror.region_items("eu-west-1", region_prices("eu-west-1"))["AmazonElastiCache"]
    data = mirror.offer_csv("AmazonElastiCache", items).encode()
    info, kept = offers.read_csv(io.BytesIO(data), lambda p: p.attributes.get("cacheengine") == "Valkey")
    assert (info.offer_code, info.version, info.publication_date, info.format_version) == ("AmazonElastiCache", mirror.VERSION, mirror.PUBLISHED, "v1.0")
    assert info.products_seen == len(items)
    assert all(p.attributes["cacheengine"] == "Valkey" for p in kept.values())
    assert all(len(p.on_demand) == 1 for p in kept.values())  # the Reserved row is dropped
    for cut in (40, 400):  # inside a quoted field, and a row short of fields: both truncated
        with pytest.raises(offers.OfferFormatError):
            offers.read_csv(io.BytesIO(data[: len(data) - cut]), lambda p: True)


@pytest.mark.parametrize(("usagetype", "usage", "ok"), [
    ("InstanceUsage:db.t4g.micro", "InstanceUsage:db.t4g.micro", True),
    ("EU-InstanceUsage:db.t4g.micro", "InstanceUsage:db.t4g.micro", True),
    ("EUC1-Multi-AZUsage:db.t4g.micro", "Multi-AZUsage:db.t4g.micro", True),
    ("Multi-AZUsage:db.t4g.micro", "Multi-AZUsage:db.t4g.micro", True),
    ("EU-ExtendedSupport-InstanceUsage:db.t4g.micro", "InstanceUsage:db.t4g.micro", False),
    ("EU-InstanceUsageIOOptimized:db.r7g.large", "InstanceUsage:db.r7g.large", False),
    ("EU-SpotUsage-Fargate-ARM-vCPU-Hours:perCPU", "Fargate-ARM-vCPU-Hours:perCPU", False),
    ("EU-Fargate-vCPU-Hours:perCPU", "Fargate-ARM-vCPU-Hours:perCPU", False),
])
def test_usage_type_region_prefix(usagetype, usage, ok):
    assert usage_matches(usagetype, usage) is ok


def test_second_standard_queue_product_and_local_zone_without_region_code(tmp_path):
    """Issue 25: the SQS offer publishes more than one Standard-queue product (another usage
    type: a higher tier), and an offer file may hold a product without `regionCode` whose usage
    type names a Local Zone (`PER1-`, Perth) or another region. The selector goes by usage type
    (Requests-Tier1), and a product without regionCode is the region's only when its usage
    type's location prefix is the region's billing code (AWS "Region billing codes": APS2 for
    ap-southeast-2). Layout: the Price List offer file, products then OnDemand terms."""
    prices = {"ap-southeast-2": {"sqs:standard": "0.00000040", "logs:ingestion": "0.76", "transfer:internet-out": "0.114",
                                 "sns:fifo:payload": "0.0204"}}
    root = mirror.write_mirror(tmp_path / "m", prices)
    base = root / "offers/v1.0/aws"
    sqs = mirror.region_items("ap-southeast-2", prices["ap-southeast-2"])["AWSQueueService"]
    sqs.append(mirror.Item("SQSTIER2STANDARD", "API Request",
                           {"location": "Asia Pacific (Sydney)", "locationType": "AWS Region", "regionCode": "ap-southeast-2",
                            "usagetype": "APS2-Requests-Tier2", "queueType": "Standard", "group": "SQS-APIRequest-Tier2"},
                           [("0", "Inf", "Requests", "0.00000030")]))
    (base / "AWSQueueService" / mirror.VERSION / "ap-southeast-2" / "index.json").write_text(mirror.offer_json("AWSQueueService", sqs), encoding="utf-8")
    cw = mirror.region_items("ap-southeast-2", prices["ap-southeast-2"])["AmazonCloudWatch"]
    # Without regionCode: a Perth Local Zone row, an eu-west-1 row, and (last) the region's own.
    for name, usage, usd in (("LOCALZONEPER1LOG", "PER1-DataProcessing-Bytes", "0.99"), ("OTHERREGIONLOGS1", "EU-DataProcessing-Bytes", "0.57")):
        cw.insert(0, mirror.Item(name, "Data Payload", {"location": "Asia Pacific (Perth)", "locationType": "AWS Local Zone", "usagetype": usage},
                                 [("0", "Inf", "GB", usd)]))
    for item in cw:
        if item.sku == mirror.sku("ap-southeast-2", "logs:ingestion"):
            item.attributes.pop("regionCode")  # the region's own row, told apart by its APS2- prefix alone
    (base / "AmazonCloudWatch" / mirror.VERSION / "ap-southeast-2" / "index.json").write_text(mirror.offer_json("AmazonCloudWatch", cw), encoding="utf-8")
    result = refresh(root.as_uri(), ["ap-southeast-2"], tmp_path / "out")
    found = {f.selector.key: f for f in result.found}
    assert found["sqs:standard"].sku == mirror.sku("ap-southeast-2", "sqs:standard")
    assert found["logs:ingestion"].sku == mirror.sku("ap-southeast-2", "logs:ingestion")
    assert found["transfer:internet-out"].sku == mirror.sku("ap-southeast-2", "transfer:internet-out")
    assert found["sns:fifo:payload"].sku == mirror.sku("ap-southeast-2", "sns:fifo:payload")
    rows = read_prices(tmp_path / "out")
    assert Decimal(rows[("sqs:standard", "ap-southeast-2")]["usd"]) == Decimal("0.40")  # per 1M requests
    assert Decimal(rows[("logs:ingestion", "ap-southeast-2")]["usd"]) == Decimal("0.76")
    assert Decimal(rows[("transfer:internet-out", "ap-southeast-2")]["usd"]) == Decimal("0.114")  # the first paid tier
    assert not any(m.key in found for m in result.missing)


@pytest.mark.parametrize(("product_region", "usagetype", "region", "ok"), [
    ("eu-west-1", "EU-NatGateway-Hours", "eu-west-1", True),
    ("eu-west-1", "EUC1-NatGateway-Hours", "eu-west-1", False),  # names another region
    (None, "EU-DataTransfer-Out-Bytes", "eu-west-1", True),
    (None, "PER1-DataProcessing-Bytes", "ap-southeast-2", False),  # a Local Zone
    (None, "DataProcessing-Bytes", "eu-west-1", False),  # no location: us-east-1's style
    (None, "Requests-Tier1", "us-east-1", True),
    (None, "USE1-Requests-Tier1", "us-east-1", True),
    ("us-west-2-lax-1", "USW2-LAX1-InstanceUsage:db.t4g.micro", "us-west-2", False),
    (None, "APS2-Requests-Tier1", "xx-test-1", False),  # a region without a billing code: fail closed
])
def test_a_product_is_the_regions_own(product_region, usagetype, region, ok):
    from deploy_engine.pricelist.selectors import in_region

    assert in_region(product_region, usagetype, region) is ok


def test_catalog_refresh_selects_the_x86_fargate_prices_too(catalog):
    """Issue 24: a workload may be `platform: linux/amd64`, priced with the x86 rows; `catalog
    refresh` selects them from the AmazonECS offer (usagetype `<prefix>-Fargate-vCPU-Hours:perCPU`,
    `<prefix>-Fargate-GB-Hours`, not the `ARM-` ones)."""
    from deploy_engine.pricelist.selectors import catalogue_keys, selector_for, usage_matches

    keys = catalogue_keys(catalog)
    assert {"fargate:x86:vcpu", "fargate:x86:memory", "fargate:arm:vcpu", "fargate:arm:memory"} <= set(keys)
    vcpu = selector_for("fargate:x86:vcpu")
    assert vcpu.usage == "Fargate-vCPU-Hours:perCPU" and usage_matches("USE1-Fargate-vCPU-Hours:perCPU", vcpu.usage)
    assert not usage_matches("USE1-Fargate-ARM-vCPU-Hours:perCPU", vcpu.usage)
