"""Receipts of ``up`` (deploy_engine/receipts.py): content, atomic write, and never a secret."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from deploy_engine.leases import acquire
from deploy_engine.receipts import Receipt, actor, ci_run, git_commit, lease_json, public_backend_url, url_secrets, write_receipt
from deploy_engine.secrets import Redactor, generate_credentials
from runway_core.analysis import analyze
from runway_core.planner import plan_digest

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders" / "runway.yaml"
T0 = datetime(2026, 11, 30, 9, 15, 2, 123456, tzinfo=timezone.utc)
T1 = datetime(2026, 11, 30, 9, 21, 40, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def dev_plan(catalog):
    an = analyze(str(ORDERS), catalog)
    return an.plans["dev"]


def make_receipt(plan, **kw) -> Receipt:
    base = dict(product="orders", environment="dev", region="us-east-1", stack="orders-dev", plan=plan, started_at=T0)
    base.update(kw)
    return Receipt(**base)


def test_receipt_holds_what_the_format_promises(tmp_path, dev_plan):
    lease = acquire(tmp_path, "orders", "dev", holder="octocat", clock=lambda: T0)
    r = make_receipt(
        dev_plan,
        backend="s3://runway-state/orders?region=us-east-1",
        outcome="succeeded",
        exit_code=0,
        finished_at=T1,
        git_commit="a" * 40,
        ci={"provider": "github-actions", "run_id": "42"},
        actor="octocat",
        resources=["urn:pulumi:orders-dev::runway-orders::aws:sqs/queue:Queue::dev-shared-queue-queue", "urn:b", "urn:b"],
        changes={"create": 3},
        lease=lease_json(lease, "held"),
        secrets_written=["dev:/runtime/main-db/MAIN_DB_PASSWORD"],
    )
    path = write_receipt(tmp_path, r, Redactor())
    assert path.parent == tmp_path / ".runway" / "receipts" / "dev"
    assert path.name == "20261130T091502.123456Z.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["plan_digest"] == plan_digest(dev_plan, "orders", "us-east-1")
    assert doc["outcome"] == "succeeded" and doc["exit_code"] == 0
    assert doc["git_commit"] == "a" * 40 and doc["ci"]["run_id"] == "42" and doc["actor"] == "octocat"
    assert doc["estimate"] == {"total_monthly_usd": 126.88, "cap_monthly_usd": 150.0, "verdict": "ok", "text": "$126.88 / $150.00"}
    assert doc["resources"] == sorted({"urn:b", r.resources[0]})
    assert doc["lease"]["status"] == "held" and doc["lease"]["holder"] == "octocat"
    assert doc["lease"]["expires_at"] == "2026-11-30T10:15:02.123456Z"
    assert doc["started_at"] == "2026-11-30T09:15:02.123456Z" and doc["finished_at"] == "2026-11-30T09:21:40Z"
    assert doc["backend"] == "s3://runway-state/orders"  # no query, no credentials
    assert doc["secrets_written"] == ["dev:/runtime/main-db/MAIN_DB_PASSWORD"]
    assert not list(path.parent.glob(".tmp-*"))


def test_receipts_never_overwrite_each_other(tmp_path, dev_plan):
    a = write_receipt(tmp_path, make_receipt(dev_plan, outcome="refused"), Redactor())
    b = write_receipt(tmp_path, make_receipt(dev_plan, outcome="failed"), Redactor())
    assert a != b and b.name == "20261130T091502.123456Z-1.json"
    assert json.loads(a.read_text())["outcome"] == "refused"


def test_no_secret_survives_in_a_receipt(tmp_path, dev_plan):
    creds = generate_credentials(dev_plan)
    password = creds["main-db"].password.reveal()
    url = creds["main-db"].url("db.example.internal", 5432).reveal()
    redactor = Redactor()
    redactor.add_credentials(creds)
    r = make_receipt(
        dev_plan,
        outcome="failed",
        reason=f"pulumi up failed: password authentication failed for {url} ({password})",
        resources=[f"urn:{password}"],
    )
    path = write_receipt(tmp_path, r, redactor)
    text = path.read_text(encoding="utf-8")
    assert password not in text
    # The connection string keeps its shape, without the password.
    assert "postgresql://runway_admin:[redacted]@db.example.internal:5432/main_db" in text
    assert '"urn:[redacted]"' in text


def test_a_receipt_that_still_holds_a_secret_is_not_written(tmp_path, dev_plan):
    class Broken(Redactor):
        def scrub_doc(self, doc):  # a bug in redaction must not leak: write_receipt checks again
            return doc

    redactor = Broken(["s3cr3t-value-123"])
    with pytest.raises(ValueError, match="still holds a secret"):
        write_receipt(tmp_path, make_receipt(dev_plan, reason="boom s3cr3t-value-123"), redactor)
    assert not list((tmp_path / ".runway" / "receipts" / "dev").glob("*.json"))


def test_unknown_outcome_is_a_bug(tmp_path, dev_plan):
    with pytest.raises(ValueError):
        write_receipt(tmp_path, make_receipt(dev_plan, outcome="maybe"), Redactor())


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_commit_of_a_repository_and_of_a_plain_folder(tmp_path):
    assert git_commit(tmp_path) is None
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    assert git_commit(tmp_path) is None  # no commit yet
    (tmp_path / "runway.yaml").write_text("runway: 1\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "-m", "x"], check=True, env=env)
    sha = git_commit(tmp_path)
    assert sha is not None and re.fullmatch(r"[0-9a-f]{40}", sha)


def test_git_missing_is_no_commit(tmp_path):
    def no_git(*a, **k):
        raise FileNotFoundError("git")

    assert git_commit(tmp_path, run=no_git) is None


def test_ci_run_and_actor_from_the_environment():
    gh = {"GITHUB_RUN_ID": "123", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_REPOSITORY": "acme/orders",
          "GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKFLOW": "deploy", "GITHUB_JOB": "up", "GITHUB_ACTOR": "octocat"}
    run = ci_run(gh)
    assert run["provider"] == "github-actions" and run["run_id"] == "123" and run["run_attempt"] == "2"
    assert run["url"] == "https://github.com/acme/orders/actions/runs/123/attempts/2"
    assert actor(gh) == "octocat"
    gl = {"CI_JOB_ID": "9", "CI_PIPELINE_ID": "8", "CI_JOB_URL": "https://gitlab.example/j/9", "GITLAB_USER_LOGIN": "dev"}
    assert ci_run(gl)["job_id"] == "9" and actor(gl) == "dev"
    assert ci_run({}) is None
    assert actor({}, user=lambda: "local-user") == "local-user"


def test_backend_urls_lose_credentials():
    assert public_backend_url("s3://bucket/prefix?region=eu-west-1&profile=x") == "s3://bucket/prefix"
    assert public_backend_url("https://user:token@api.example.com/state") == "https://***@api.example.com/state"
    assert public_backend_url("https://user:p@ss@host:8443/x#frag") == "https://***@host:8443/x"
    assert public_backend_url("s3://AKIAEXAMPLE@bucket") == "s3://***@bucket"
    assert public_backend_url("file:///work/orders/.runway/state") == "file:///work/orders/.runway/state"
    assert public_backend_url("not a url user:pw@host") == "***"  # never raises, never shows user info
    assert url_secrets("https://user:token-123@api.example.com/state?sig=abc") == ["user:token-123", "token-123", "sig=abc", "abc"]
    assert url_secrets("s3://bucket/prefix") == []


def test_a_receipt_in_a_new_repository_writes_the_runway_gitignore(tmp_path, dev_plan):
    write_receipt(tmp_path, make_receipt(dev_plan, outcome="cancelled", exit_code=143, reason="cancelled: terminated (SIGTERM)"), Redactor())
    assert "leases/" in (tmp_path / ".runway" / ".gitignore").read_text(encoding="utf-8")
    (path,) = (tmp_path / ".runway" / "receipts" / "dev").glob("*.json")
    assert json.loads(path.read_text())["outcome"] == "cancelled"


def test_a_lease_in_a_new_repository_writes_the_runway_gitignore(tmp_path):
    acquire(tmp_path, "orders", "dev", holder="alice", clock=lambda: T0)
    text = (tmp_path / ".runway" / ".gitignore").read_text(encoding="utf-8")
    assert "pulumi-passphrase" in text and "leases/" in text
    # An existing .gitignore is the product's: never overwritten.
    (tmp_path / ".runway" / ".gitignore").write_text("# mine\n", encoding="utf-8")
    write_receipt(tmp_path, make_receipt(dev_plan_of(), outcome="refused"), Redactor())
    assert (tmp_path / ".runway" / ".gitignore").read_text(encoding="utf-8") == "# mine\n"


def dev_plan_of():
    from runway_core.catalog import load_catalog

    return analyze(str(ORDERS), load_catalog()).plans["dev"]
