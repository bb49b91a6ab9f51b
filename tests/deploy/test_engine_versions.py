"""Engine versions resolved to a full version AWS accepts for the operation (issue 24).

Every answer goes through botocore's ``Stubber``, which validates it against botocore's rds
service model (``DescribeDBEngineVersions``: ``DBEngineVersions[].EngineVersion``,
``ValidUpgradeTarget[].{EngineVersion, IsMajorVersionUpgrade}``; ``DescribeDBInstances``) and
checks the parameters each call is made with.
"""

from __future__ import annotations

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.stub import Stubber  # noqa: E402

from deploy_engine.engine_versions import NoUpgradePath, resolve_all, resolve_version  # noqa: E402


def _rds():
    return boto3.client("rds", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")


def test_a_new_database_gets_the_default_version_of_its_major():
    rds = _rds()
    with Stubber(rds) as stub:
        stub.add_response("describe_db_engine_versions", {"DBEngineVersions": [{"Engine": "postgres", "EngineVersion": "16.6"}]},
                          {"Engine": "postgres", "EngineVersion": "16", "DefaultOnly": True})
        assert resolve_version(rds, "rds", "16", None) == "16.6"


def test_the_same_major_keeps_the_running_version_and_a_major_upgrade_takes_a_valid_target():
    rds = _rds()
    assert resolve_version(rds, "rds", "16", "16.4") == "16.4"  # no call: minor versions are RDS's own
    with Stubber(rds) as stub:
        stub.add_response("describe_db_engine_versions", {"DBEngineVersions": [{
            "Engine": "postgres", "EngineVersion": "16.4", "ValidUpgradeTarget": [
                {"Engine": "postgres", "EngineVersion": "16.8", "IsMajorVersionUpgrade": False},
                {"Engine": "postgres", "EngineVersion": "17.1", "IsMajorVersionUpgrade": True},
                {"Engine": "postgres", "EngineVersion": "17.2", "IsMajorVersionUpgrade": True},
            ]}]}, {"Engine": "postgres", "EngineVersion": "16.4"})
        assert resolve_version(rds, "rds", "17", "16.4") == "17.2"
    with Stubber(rds) as stub:
        stub.add_response("describe_db_engine_versions", {"DBEngineVersions": [{
            "Engine": "aurora-postgresql", "EngineVersion": "14.3", "ValidUpgradeTarget": [
                {"Engine": "aurora-postgresql", "EngineVersion": "15.2", "IsMajorVersionUpgrade": True}]}]},
            {"Engine": "aurora-postgresql", "EngineVersion": "14.3"})
        with pytest.raises(NoUpgradePath, match="no valid upgrade target in 17"):
            resolve_version(rds, "aurora", "17", "14.3")
    with pytest.raises(NoUpgradePath, match="never downgrades"):
        resolve_version(rds, "rds", "15", "16.4")


def test_resolve_all_reads_the_running_version_or_none():
    rds = _rds()
    with Stubber(rds) as stub:
        stub.add_client_error("describe_db_instances", "DBInstanceNotFound", "DBInstance shop-production-new-db not found",
                              expected_params={"DBInstanceIdentifier": "shop-production-new-db"})
        stub.add_response("describe_db_engine_versions", {"DBEngineVersions": [{"EngineVersion": "17.2"}]},
                          {"Engine": "postgres", "EngineVersion": "17", "DefaultOnly": True})
        stub.add_response("describe_db_instances", {"DBInstances": [{"DBInstanceIdentifier": "shop-production-main-db", "EngineVersion": "16.4"}]},
                          {"DBInstanceIdentifier": "shop-production-main-db"})
        found = resolve_all(rds, {"new-db": ("rds", "shop-production-new-db", "17"), "main-db": ("rds", "shop-production-main-db", "16")})
    assert found == {"new-db": "17.2", "main-db": "16.4"}


def test_the_program_declares_the_resolved_version(catalog):
    pytest.importorskip("pulumi")
    from deploy_engine.resources import declared_resources
    from deploy_engine.settings import NetworkSettings
    from runway_core.planner import EntrySpec, EnvSpec, RunwaySpec, engine_defaults, plan_environment

    entry = EntrySpec("main-db", "postgres", {"production": "small"}, engine=engine_defaults("postgres", {"version": "17"}))
    plan = plan_environment(RunwaySpec("shop", "us-east-1", (EnvSpec("production", None, "none"),), {"main-db": entry}, ()), catalog, "production")
    network = NetworkSettings("vpc-0a1b2c3d4e5f60718", ("subnet-0a000000000000001", "subnet-0a000000000000002"), ())
    doc = declared_resources(plan, product="shop", region="us-east-1", network=network)
    (db,) = [r for r in doc["resources"] if r["type"] == "aws:rds/instance:Instance"]
    assert db["inputs"]["engineVersion"] == "17"  # nothing resolved: the plan's major (what RDS takes at create)
    doc = declared_resources(plan, product="shop", region="us-east-1", network=network, engine_versions={"main-db": "17.2"})
    (db,) = [r for r in doc["resources"] if r["type"] == "aws:rds/instance:Instance"]
    assert db["inputs"]["engineVersion"] == "17.2"
