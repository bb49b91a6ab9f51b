"""Changes AWS refuses, at check time (issue 24; runway_core.changes, RW190-RW193).

What AWS refuses, from AWS's own rules: RDS ModifyDBInstance "you can't reduce the amount of
storage for a DB instance" (RDS User Guide, "Increasing DB instance storage capacity"); RDS and
ElastiCache engine versions only go up in place (ModifyDBInstance / ModifyReplicationGroup:
"downgrades are not supported"; terraform-provider-aws elasticache/replication_group.go marks a
lower engine_version ForceNew in CustomizeDiff, customizeDiffEngineVersionForceNewOnDowngrade);
a region is the provider's: every resource is created again there.
"""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal
from pathlib import Path

from runway_core.analysis import analyze
from runway_core.changes import deployed_from_records, refused_changes, side_of_deployed, with_recorded_changes
from runway_core.diagnostics import Severity
from runway_core.plan_diff import side_of_json
from runway_core.planner import Plan, plan_json

RUNWAY = textwrap.dedent("""\
    runway: 1
    product: shop
    region: us-east-1
    environments:
      dev: {}
      prod:
        limits: {monthly: 5000}
      preview:
        disposable: true
        limits: {monthly: 5000}
    resources:
      main-db:
        kind: postgres
        engine: {version: "17"}
        size: {prod: large, preview: large}
      sessions:
        kind: cache
        size: {prod: medium}
    """)


def _analyse(tmp_path: Path, text: str, catalog):
    f = tmp_path / "runway.yaml"
    f.write_text(text)
    return analyze(str(f), catalog)


def _side(an):
    doc = plan_json(Plan(an.spec.product, an.spec.region, tuple(an.plans.values()), an.catalog.origin))
    return side_of_json(json.loads(json.dumps(doc), parse_float=Decimal))


def _codes(diags, env=None):
    return sorted((d.code, d.data["environment"], d.severity.name) for d in diags if env is None or d.data["environment"] == env)


def test_no_change_no_diagnostic(tmp_path, catalog):
    an = _analyse(tmp_path, RUNWAY, catalog)
    assert not an.has_errors()
    assert refused_changes(an, _side(an), "the base side") == []


def test_storage_shrink_is_refused_where_it_shrinks_and_positioned_on_the_resource(tmp_path, catalog):
    before = _side(_analyse(tmp_path, RUNWAY, catalog))
    an = _analyse(tmp_path, RUNWAY.replace("size: {prod: large, preview: large}", "size: {prod: medium, preview: medium}"), catalog)
    diags = refused_changes(an, before, "the base side")
    # large -> medium lowers allocated storage 250 -> 100 GB (docs/catalog.md): refused even in a
    # disposable environment, it is an in-place modification RDS rejects.
    assert _codes(diags) == [("RW191", "preview", "ERROR"), ("RW191", "prod", "ERROR")]
    d = diags[0]
    assert d.data["from_gb"] == 250 and d.data["to_gb"] == 100
    line = RUNWAY.splitlines().index("  main-db:")
    assert (d.range.start.line, d.range.start.character) == (line, 2)
    # Keeping the storage with engine.storage_gb is no shrink.
    kept = _analyse(tmp_path, RUNWAY.replace('engine: {version: "17"}', 'engine: {version: "17", storage_gb: 250}').replace(
        "size: {prod: large, preview: large}", "size: {prod: medium, preview: medium}"), catalog)
    assert refused_changes(kept, before, "the base side") == []


def test_region_move_refused_outside_disposable_environments(tmp_path, catalog):
    before = _side(_analyse(tmp_path, RUNWAY, catalog))
    an = _analyse(tmp_path, RUNWAY.replace("region: us-east-1", "region: eu-west-1"), catalog)
    diags = refused_changes(an, before, "the deployed plan")
    assert _codes(diags) == [("RW190", "dev", "WARNING"), ("RW190", "preview", "WARNING"), ("RW190", "prod", "ERROR")]
    prod = next(d for d in diags if d.data["environment"] == "prod")
    assert prod.range.start.line == 2 and "main-db" in prod.message and "sessions" in prod.message
    assert "Moving to another region" in prod.message


def test_engine_downgrade_and_flavor_switch(tmp_path, catalog):
    before = _side(_analyse(tmp_path, RUNWAY, catalog))
    down = _analyse(tmp_path, RUNWAY.replace('version: "17"', 'version: "16"'), catalog)
    assert {c for c, _, _ in _codes(refused_changes(down, before, "x"))} == {"RW192"}
    switched = _analyse(tmp_path, RUNWAY.replace('engine: {version: "17"}', 'engine: {version: "17", flavor: aurora}'), catalog)
    codes = _codes(refused_changes(switched, before, "x"))
    assert ("RW193", "prod", "ERROR") in codes and ("RW193", "dev", "WARNING") in codes
    up = _analyse(tmp_path, RUNWAY.replace('version: "17"', 'version: "17"'), catalog)
    assert refused_changes(up, before, "x") == []


def test_deployed_plan_from_the_records_of_the_embedded_backend(tmp_path, catalog):
    """The newest succeeded `up` receipt names its plan digest; the reviewed plan stored under it
    is the deployed plan (docs/deploy.md "The reviewed plan": `plans/<env>/<digest>.json`)."""
    an = _analyse(tmp_path, RUNWAY, catalog)
    env = an.plans["prod"]
    digest = "ab" * 32
    env_doc = plan_json(Plan("shop", "us-east-1", (env,), an.catalog.origin))["environments"][0]
    record = {"format_version": 1, "plan_digest": digest, "env_values": "sha256",
              "plan": {"format_version": 1, "product": "shop", "region": "us-east-1", "environment": env_doc}}
    (tmp_path / ".runway/plans/prod").mkdir(parents=True)
    (tmp_path / f".runway/plans/prod/{digest}.json").write_text(json.dumps(record))
    (tmp_path / ".runway/receipts/prod").mkdir(parents=True)
    (tmp_path / ".runway/receipts/prod/20261130T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))
    # A newer failed `up` is not what is deployed.
    (tmp_path / ".runway/receipts/prod/20261201T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "failed", "plan_digest": "cd" * 32}))
    side, read = deployed_from_records(str(tmp_path))
    assert [e.name for e in side.environments] == ["prod"] and side.region == "us-east-1" and read
    assert side_of_deployed(record).environments[0].name == "prod"
    shrunk = _analyse(tmp_path, RUNWAY.replace("size: {prod: large, preview: large}", "size: {prod: medium, preview: large}"), catalog)
    with_recorded_changes(shrunk)
    found = [d for d in shrunk.all_diagnostics() if d.code == "RW191"]
    assert len(found) == 1 and found[0].severity == Severity.ERROR and "last deployed plan" in found[0].message
    # No records at all: nothing added, nothing raised.
    empty = tmp_path / "other"
    empty.mkdir()
    assert deployed_from_records(str(empty)) is None


def test_protection_follows_disposable_not_the_name(tmp_path, catalog):
    an = _analyse(tmp_path, RUNWAY, catalog)
    assert {n: p.disposable for n, p in an.plans.items()} == {"dev": True, "prod": False, "preview": True}
    kept_dev = _analyse(tmp_path, RUNWAY.replace("  dev: {}", "  dev: {disposable: false}"), catalog)
    assert kept_dev.plans["dev"].disposable is False
