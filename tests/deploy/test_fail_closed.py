"""Fail closed on a missing price (issue 13): a capped environment whose estimate misses a unit
price for the region cannot be shown to be under its cap, so ``plan``, ``preview`` and ``up``
refuse it (exit 2, verdict ``unpriced``), the editor gets an error on the region (RW162) and on
each unpriced item (RW163), and no other region's price is ever used. Without a cap it stays a
warning (RW161). An unknown region (ap-southeast-2) is refused the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import catalog_without
from deploy_engine.cli import main
from runway_core.analysis import analyze

REPO = Path(__file__).resolve().parents[2]
IMAGE = "registry.example.com/web@sha256:" + "0" * 64

#: Issue 13's runway: a Multi-AZ postgres, a large cache and a public workload, dev capped at
#: its default $150.
ISSUE_RUNWAY = f"""runway: 1
product: residency
region: {{region}}
environments:
  dev: {{{{}}}}
  production: {{{{}}}}
resources:
  main-db:
    kind: postgres
    size: medium
  sessions:
    kind: cache
    size: large
workloads:
  web:
    image: {IMAGE}
    port: 8080
    health: {{{{ path: /health }}}}
    expose: public
    uses: [main-db, sessions]
    reason: "residency: customer data stays in the EU"
"""

EU_GAPS = {("rds:db.t4g.medium:multi-az", "eu-west-1"), ("rds-proxy:vcpu", "eu-west-1"), ("valkey:cache.m7g.large", "eu-west-1")}
NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0123456789abcdef2,subnet-0123456789abcdef3",
}


def product(tmp_path: Path, region: str) -> Path:
    folder = tmp_path / f"p-{region}"
    folder.mkdir()
    (folder / "runway.yaml").write_text(ISSUE_RUNWAY.format(region=region), encoding="utf-8")
    return folder


@pytest.fixture
def gap_catalog(tmp_path: Path) -> Path:
    catalog_without(tmp_path / "gaps", EU_GAPS)
    return tmp_path / "gaps"


def plan(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["plan", *argv], environ={"NO_COLOR": "1"})
    out, err = capsys.readouterr()
    return rc, out, err


def test_eu_west_1_with_a_gap_is_refused_not_ok_on_a_lower_bound(capsys, tmp_path, gap_catalog):
    root = product(tmp_path, "eu-west-1")
    rc, out, err = plan(capsys, str(root), "--catalog", str(gap_catalog))
    assert rc == 2
    assert ("runway-deploy: dev: refused: cannot check the cap: no eu-west-1 price for rds:db.t4g.medium:multi-az, "
            "rds-proxy:vcpu, valkey:cache.m7g.large; run `runway-deploy catalog refresh --region eu-west-1`") in err
    assert "dev — at least $" in out and "REFUSED: cannot check the cap" in out
    assert " — ok" not in out.split("production")[0]
    assert "error RW162: cannot check the cap of dev" in err and "error RW163: `main-db`" in err and "error RW163: `sessions`" in err
    assert "warning RW161" in err  # production has no cap: a warning, its total a lower bound
    # JSON: the verdict says it; the missing keys are listed; nothing priced from another region.
    rc, out, _ = plan(capsys, str(root), "--catalog", str(gap_catalog), "--format", "json")
    doc = json.loads(out)
    dev, production = doc["environments"]
    assert rc == 2 and dev["verdict"] == "unpriced" and production["verdict"] == "no-cap"
    assert sorted(dev["missing_prices"]) == sorted(k for k, _ in EU_GAPS)
    for env in doc["environments"]:
        for item in env["items"]:
            assert all(li["price_key"] not in dev["missing_prices"] for li in item["line_items"])


def test_the_same_runway_with_the_packaged_catalogue_is_fully_priced(capsys, tmp_path):
    """The packaged catalogue prices every key in eu-west-1: the issue's runway is priced in
    full, over dev's $150 cap, refused as over-cap (as in us-east-1), never "ok"."""
    totals = {}
    for region in ("eu-west-1", "us-east-1"):
        rc, out, err = plan(capsys, str(product(tmp_path, region)), "--format", "json")
        doc = json.loads(out)
        dev = doc["environments"][0]
        assert rc == 2 and dev["verdict"] == "over-cap" and dev["missing_prices"] == []
        totals[region] = dev["total_monthly_usd"]
    assert totals["eu-west-1"] >= totals["us-east-1"]


def test_unknown_region_is_refused_the_same_way(capsys, tmp_path):
    rc, out, err = plan(capsys, str(product(tmp_path, "ap-southeast-2")))
    assert rc == 2
    assert "runway-deploy: dev: refused: cannot check the cap: no ap-southeast-2 price for" in err
    assert "run `runway-deploy catalog refresh --region ap-southeast-2`" in err
    assert "warning RW160: region `ap-southeast-2` has no prices in the catalogue" in err


def test_without_a_cap_a_missing_price_only_warns(capsys, tmp_path, gap_catalog):
    root = product(tmp_path, "eu-west-1")
    text = (root / "runway.yaml").read_text(encoding="utf-8").replace("  dev: {}\n", "  dev: { limits: { monthly: null } }\n")
    (root / "runway.yaml").write_text(text, encoding="utf-8")
    rc, out, err = plan(capsys, str(root), "--catalog", str(gap_catalog))
    assert rc == 0
    assert "RW162" not in err and "RW163" not in err and "warning RW161" in err
    assert "dev — at least $" in out and "no cap" in out


def test_the_editor_gets_errors_on_the_region_and_each_unpriced_item(tmp_path, gap_catalog):
    from runway_core.catalog import load_catalog

    root = product(tmp_path, "eu-west-1") / "runway.yaml"
    an = analyze(str(root), load_catalog(gap_catalog))
    lines = root.read_text(encoding="utf-8").splitlines()
    errors = [(lines[d.range.start.line].strip(), d.code) for d in an.all_diagnostics() if d.severity.label == "error"]
    assert ("region: eu-west-1", "RW162") in errors
    assert ("main-db:", "RW163") in errors and ("sessions:", "RW163") in errors
    assert all(code in ("RW162", "RW163") for _, code in errors)
    # The cost view keeps the lower bound.
    assert an.plans["dev"].verdict == "unpriced" and an.plans["dev"].total > 0


PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
from deploy_engine.cli import main
rc = main(sys.argv[1:], environ={environ!r})
leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'pulumi_aws', 'infisical_sdk', 'grpc'))
print(json.dumps({{'rc': rc, 'leaked': leaked}}))
"""


@pytest.mark.parametrize("command", ["preview", "up"])
def test_preview_and_up_refuse_an_unpriced_plan_before_pulumi(tmp_path, gap_catalog, command):
    root = product(tmp_path, "eu-west-1")
    environ = {"RUNWAY_DEPLOY_JOB": "protected", "PATH": os.environ.get("PATH", ""), **NETWORK,
               "INFISICAL_CLIENT_ID": "id", "INFISICAL_CLIENT_SECRET": "s", "INFISICAL_PROJECT_ID": "p1"}
    code = PROBE.format(repo=str(REPO), environ=environ)
    proc = subprocess.run([sys.executable, "-c", code, command, str(root), "--env", "dev", "--catalog", str(gap_catalog)],
                          capture_output=True, text=True, timeout=120)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"rc": 2, "leaked": []}, proc.stderr
    assert "refused: dev: cannot check the cap: no eu-west-1 price for" in proc.stderr
    assert "run `runway-deploy catalog refresh --region eu-west-1`" in proc.stderr and "nothing was declared" in proc.stderr
    assert not (root / ".runway" / "state").exists()
