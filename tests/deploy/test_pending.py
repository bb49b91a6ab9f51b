"""`up` reports truthfully what waits for the maintenance window (issue 24).

Outside disposable environments databases have ``apply_immediately`` off, so RDS holds a resize
or an engine upgrade in ``PendingModifiedValues`` until the window. The answers below are
checked by botocore's ``Stubber`` against botocore's own rds service model (DescribeDBInstances
/ DescribeDBClusters output shapes), so a field the model does not have fails the test.
"""

from __future__ import annotations

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.stub import Stubber  # noqa: E402

from deploy_engine.preflight import PreflightError, pending_modifications  # noqa: E402

ARN = "arn:aws:rds:us-east-1:123456789012:db:shop-production-main-db"
CLUSTER = "arn:aws:rds:us-east-1:123456789012:cluster:shop-production-ledger"


def _rds():
    return boto3.client("rds", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")


def test_a_pending_upgrade_is_reported_as_scheduled_never_as_done():
    rds = _rds()
    with Stubber(rds) as stub:
        stub.add_response("describe_db_instances", {"DBInstances": [{
            "DBInstanceIdentifier": "shop-production-main-db", "Engine": "postgres", "EngineVersion": "16.4",
            "DBInstanceClass": "db.m7g.large", "AllocatedStorage": 250,
            "PendingModifiedValues": {"EngineVersion": "17.2", "DBInstanceClass": "db.m7g.xlarge"},
        }]}, {"DBInstanceIdentifier": ARN})
        stub.add_response("describe_db_clusters", {"DBClusters": [{
            "DBClusterIdentifier": "shop-production-ledger", "Engine": "aurora-postgresql", "EngineVersion": "16.6",
            "PendingModifiedValues": {"EngineVersion": "17.4"},
        }]}, {"DBClusterIdentifier": CLUSTER})
        lines = pending_modifications(rds, {"main-db": ("rds", ARN), "ledger": ("aurora", CLUSTER)})
        stub.assert_no_pending_responses()
    assert lines == [
        "main-db: upgrade to 17.2 (now 16.4), instance class db.m7g.xlarge (now db.m7g.large) scheduled for the next maintenance window",
        "ledger: upgrade to 17.4 (now 16.6) scheduled for the next maintenance window",
    ]


def test_nothing_pending_says_nothing_and_a_refused_call_is_an_error():
    rds = _rds()
    with Stubber(rds) as stub:
        stub.add_response("describe_db_instances", {"DBInstances": [{"DBInstanceIdentifier": "x", "EngineVersion": "17.2",
                                                                     "PendingModifiedValues": {}}]}, {"DBInstanceIdentifier": ARN})
        stub.add_client_error("describe_db_instances", "AccessDenied", "not authorized", expected_params={"DBInstanceIdentifier": ARN})
        assert pending_modifications(rds, {"main-db": ("rds", ARN)}) == []
        with pytest.raises(PreflightError, match="rds:DescribeDBInstances: AccessDenied"):
            pending_modifications(rds, {"main-db": ("rds", ARN)})


def test_up_ends_with_the_pending_changes_in_its_last_word_and_its_receipt(monkeypatch):
    import types

    from deploy_engine import preflight
    from deploy_engine.pipeline import up
    from deploy_engine.secrets import Redactor

    monkeypatch.setattr(preflight, "aws_client", lambda *a, **k: _rds())
    monkeypatch.setattr(preflight, "pending_modifications",
                        lambda rds, dbs: [f"{n}: upgrade to 17.2 (now 16.4) scheduled for the next maintenance window" for n in dbs])
    ended: list[tuple] = []
    item = types.SimpleNamespace(name="main-db", kind="postgres")
    run = types.SimpleNamespace(plan=types.SimpleNamespace(disposable=False, items=[item]), receipt=types.SimpleNamespace(extra={}),
                                region="us-east-1", ctx=types.SimpleNamespace(environ={}), redactor=Redactor(),
                                finish=lambda code, outcome, reason=None: ended.append((code, outcome, reason)) or code)
    outputs = {"resources": {"main-db": {"arn": ARN, "flavor": "rds"}}}
    assert up._succeeded(run, outputs) == 0
    code, outcome, reason = ended[-1]
    assert outcome == "succeeded" and "pending for the next maintenance window" in reason and "upgrade to 17.2" in reason
    assert run.receipt.extra["pending"] == ["main-db: upgrade to 17.2 (now 16.4) scheduled for the next maintenance window"]
    run.plan.disposable = True  # applied at once: nothing waits, nothing asked
    assert up._succeeded(run, outputs) == 0 and ended[-1][2] is None and run.receipt.extra["pending"] == []
