"""catalog/aws_regions.json (the region list RW164 checks against, runway_core/catalog.py
``aws_regions``) matches the installed botocore's endpoint data
(``botocore/data/endpoints.json``, ``partitions[].regions``): regenerate it with
``python -m deploy_engine.pricelist.regions`` when botocore is upgraded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from botocore.session import get_session

from deploy_engine.pricelist.regions import DEFAULT_OUTPUT, regions_document
from runway_core.catalog import aws_regions

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_region_list_is_botocores():
    shipped = json.loads((REPO / "catalog" / "aws_regions.json").read_text(encoding="utf-8"))
    assert DEFAULT_OUTPUT == REPO / "catalog" / "aws_regions.json"
    assert shipped["source"].startswith("botocore/data/endpoints.json")
    fresh = regions_document()
    # Regions are only ever added: every shipped region is still botocore's, in the same
    # partition, whatever botocore CI installs (a newer one may know regions the file lacks).
    for partition, regions in shipped["partitions"].items():
        assert set(regions) <= set(fresh["partitions"].get(partition, {})), partition
    if fresh["botocore_version"] == shipped["botocore_version"]:
        assert shipped["partitions"] == fresh["partitions"], (
            "catalog/aws_regions.json is stale against botocore "
            f"{fresh['botocore_version']}: python -m deploy_engine.pricelist.regions")


def test_every_region_botocore_serves_ecs_in_is_known():
    # The other way in: botocore's public API, per partition, for the service runway deploys to.
    # Only against the botocore the file was generated from (a newer one may add regions).
    shipped = json.loads((REPO / "catalog" / "aws_regions.json").read_text(encoding="utf-8"))
    if regions_document()["botocore_version"] != shipped["botocore_version"]:
        pytest.skip(f"installed botocore is not {shipped['botocore_version']}, the one catalog/aws_regions.json was generated from")
    session = get_session()
    for partition in session.get_available_partitions():
        for region in session.get_available_regions("ecs", partition_name=partition):
            assert aws_regions().get(region) == partition, region


def test_check_mode_exits_0_on_the_shipped_file_and_1_on_a_stale_one(tmp_path):
    shipped = json.loads((REPO / "catalog" / "aws_regions.json").read_text(encoding="utf-8"))
    if regions_document()["botocore_version"] == shipped["botocore_version"]:  # else a newer botocore may add regions
        ok = subprocess.run([sys.executable, "-m", "deploy_engine.pricelist.regions", "--check"], capture_output=True, text=True, cwd=REPO)
        assert ok.returncode == 0, ok.stderr
    stale = tmp_path / "aws_regions.json"
    doc = regions_document()
    doc["partitions"]["aws"].pop("eu-west-1")
    stale.write_text(json.dumps(doc), encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "deploy_engine.pricelist.regions", "--check", "--output", str(stale)],
                         capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 1 and "stale against botocore" in bad.stderr
