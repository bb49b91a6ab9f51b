"""``runway-deploy preview|up|drift`` (deploy_engine/cli/, pipeline.py, automation.py; docs/deploy.md).

Exit codes are the interface: each guard is tested in its documented order (invalid 1, over
cap 2, not the protected job 4, no Pulumi CLI 5, configuration 3, lease held 6, deploy failed
7) and so are the receipts every ``up`` writes. No test fakes the Pulumi CLI: without the
binary, tests that must get past the CLI check pass ``which`` in (the lookup, docs/architecture.md §6) and
stop at a later guard, or replace the Automation API calls (``automation.stored_state`` /
``up`` / ``preview`` / ``drift``, or ``open_stack`` with :class:`OpenedStack`) with stubs that
return or raise what the real ones would: :class:`FakeStack` keeps the non-secret stack
outputs an ``up`` would leave (``resources``) and reads them back through the real
``stack_outputs.state_from_outputs``. Infisical is a recording server on 127.0.0.1
(tests/deploy/test_infisical.py). The one test that runs the Automation API for real needs the
``pulumi`` binary and is skipped without it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deploy_engine import automation, backend, cli, engine_events, stack_outputs
from deploy_engine.automation import PulumiFailed
from deploy_engine.engine_events import DriftReport, PreviewSummary, Step, UpSummary
from deploy_engine.cli import main
from deploy_engine.leases import acquire, lease_path, read_lease
from deploy_engine.secrets import PREVIEW_PLACEHOLDER, postgres_resources

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
T0 = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc)
NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0123456789abcdef2,subnet-0123456789abcdef3",
}
INFISICAL_OK = {"INFISICAL_CLIENT_ID": "id", "INFISICAL_CLIENT_SECRET": "client-secret-value-1", "INFISICAL_PROJECT_ID": "p1"}
NO_SECRETS_FOR = ("client-secret-value-1",)

# The AWS account checks pass here (tests/conftest.py); they run against moto_server in test_preflight.py.
pytestmark = pytest.mark.usefixtures("account_checks_pass")



def found_pulumi(name, path=None):
    """A ``which`` that reports a pulumi binary; for tests that stop before Pulumi would run."""
    return "/opt/pulumi/bin/pulumi"


def orders(tmp_path: Path, dev_cap: int | None = None) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    if dev_cap is not None:
        text = text.replace("  dev:                      # default cap: $150/month\n", f"  dev:\n    limits:\n      monthly: {dev_cap}\n")
    root.write_text(text, encoding="utf-8")
    return dest


def empty_path(tmp_path: Path) -> str:
    d = tmp_path / "empty-bin"
    d.mkdir(exist_ok=True)
    return str(d)


def deploy(capsys, *argv: str, environ: dict, **kw) -> tuple[int, str, str]:
    rc = main(list(argv), environ=environ, clock=kw.pop("clock", lambda: T0), **kw)
    out, err = capsys.readouterr()
    return rc, out, err


def receipts(root: Path, env: str = "dev") -> list[dict]:
    folder = root / ".runway" / "receipts" / env
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


def bucket_receipts(moto_server, bucket: str, env: str = "dev") -> list[dict]:
    """The receipts an ``s3://<bucket>/orders`` backend keeps in the bucket (moto_server)."""
    from deploy_engine.receipts import list_receipts
    from deploy_engine.records import open_store

    store = open_store(f"s3://{bucket}/orders", "/nonexistent", moto_server.env())
    return [store.read(k).json() for k in list_receipts(store, "orders", env, [env])]


def assert_no_secret(texts, secrets) -> None:
    for t in texts:
        for s in secrets:
            assert s not in t


# --------------------------------------------------------------------------------------
# Guards, in order
# --------------------------------------------------------------------------------------

PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
from deploy_engine.cli import main
rc = main(sys.argv[1:], environ={environ!r})
leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'pulumi_aws', 'infisical_sdk', 'grpc'))
print(json.dumps({{'rc': rc, 'leaked': leaked}}))
"""


@pytest.mark.parametrize("command", ["up", "preview", "drift"])
def test_over_cap_exits_2_and_never_imports_pulumi(tmp_path, command):
    root = orders(tmp_path, dev_cap=100)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", "PATH": os.environ.get("PATH", ""), **NETWORK, **INFISICAL_OK}
    code = PROBE.format(repo=str(REPO), environ=environ)
    proc = subprocess.run([sys.executable, "-c", code, command, str(root), "--env", "dev"], capture_output=True, text=True, timeout=120)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"rc": 2, "leaked": []}
    assert "refused: dev is over its cap ($126.88/month > $100.00); nothing was declared" in proc.stderr
    assert not (root / ".runway" / "state").exists()  # no backend touched
    if command == "up":
        (r,) = receipts(root)
        assert r["outcome"] == "refused" and r["exit_code"] == 2 and r["estimate"]["verdict"] == "over-cap"
    else:
        assert receipts(root) == []


def test_invalid_runway_exits_1_before_the_cap(capsys):
    rc, out, err = deploy(capsys, "up", str(ORDERS), "--env", "dev", environ={"RUNWAY_DEPLOY_JOB": "protected"})
    assert rc == 1 and "error RW140" in err and "the runway has errors; nothing was run" in err
    assert not (ORDERS / ".runway").exists()


def test_undeclared_environment_is_a_usage_error(capsys, tmp_path):
    rc, _, err = deploy(capsys, "preview", str(orders(tmp_path)), "--env", "qa", environ={})
    assert rc == 64 and "--env qa: no such environment" in err


def test_env_is_required(capsys, tmp_path):
    rc, _, err = deploy(capsys, "up", str(orders(tmp_path)), environ={})
    assert rc == 64 and "--env" in err


@pytest.mark.parametrize("value", [None, "", "yes", "PROTECTED"])
def test_up_outside_the_protected_job_exits_4_even_before_the_pulumi_check(capsys, tmp_path, value):
    root = orders(tmp_path)
    environ = {"PATH": empty_path(tmp_path)}  # no pulumi either: 4 comes first
    if value is not None:
        environ["RUNWAY_DEPLOY_JOB"] = value
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ)
    assert rc == 4
    assert "refused: `up` runs only in a protected deploy job (RUNWAY_DEPLOY_JOB=protected" in err
    (r,) = receipts(root)
    assert r["outcome"] == "refused" and r["exit_code"] == 4 and r["lease"] == {"status": "not-taken"}


def test_preview_and_drift_need_no_protected_job(capsys, tmp_path):
    root = orders(tmp_path)
    for command in ("preview", "drift"):
        rc, _, err = deploy(capsys, command, str(root), "--env", "dev", environ={"PATH": empty_path(tmp_path)})
        assert rc == 5 and "RUNWAY_DEPLOY_JOB" not in err


@pytest.mark.parametrize("command", ["up", "preview", "drift"])
def test_pulumi_missing_exits_5_with_install_instructions(capsys, tmp_path, command):
    root = orders(tmp_path)
    environ = {"PATH": empty_path(tmp_path), "RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, out, err = deploy(capsys, command, str(root), "--env", "dev", environ=environ)
    assert rc == 5
    assert "the Pulumi CLI (`pulumi`) is not on PATH" in err
    assert "curl -fsSL https://get.pulumi.com | sh" in err and "https://www.pulumi.com/docs/install/" in err
    assert not (root / ".runway" / "state").exists()  # checked before any workspace or backend
    if command == "up":
        (r,) = receipts(root)
        assert r["outcome"] == "failed" and r["exit_code"] == 5 and "not on PATH" in r["reason"]


def test_pulumi_missing_in_a_subprocess_with_a_sanitized_path(tmp_path):
    root = orders(tmp_path)
    env = {"PATH": empty_path(tmp_path), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), **NETWORK}
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "preview", str(root), "--env", "dev"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 5, proc.stderr
    assert "curl -fsSL https://get.pulumi.com | sh" in proc.stderr


def test_missing_configuration_exits_3_naming_every_variable(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", f"s3://{bucket}/orders",
                          environ={"RUNWAY_DEPLOY_JOB": "protected", **moto_server.env()}, which=found_pulumi)
    assert rc == 3
    for name in ("RUNWAY_VPC_ID", "RUNWAY_PRIVATE_SUBNET_IDS", "INFISICAL_CLIENT_ID", "INFISICAL_CLIENT_SECRET",
                 "INFISICAL_PROJECT_ID", "PULUMI_CONFIG_PASSPHRASE"):
        assert name in err
    assert receipts(root) == []  # the s3:// backend keeps its receipts in the bucket
    (r,) = bucket_receipts(moto_server, bucket)
    assert r["outcome"] == "failed" and r["exit_code"] == 3
    # preview needs no Infisical: only the network is missing.
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={"PULUMI_CONFIG_PASSPHRASE": "x" * 12}, which=found_pulumi)
    assert rc == 3 and "RUNWAY_VPC_ID" in err and "INFISICAL" not in err


def test_unsupported_backend_is_configuration(capsys, tmp_path):
    rc, _, err = deploy(capsys, "preview", str(orders(tmp_path)), "--env", "dev", "--backend", "ftp://x",
                        environ={**NETWORK}, which=found_pulumi)
    assert rc == 3 and "use file://<folder> or s3://<bucket>" in err


def test_up_with_the_embedded_backend_on_a_github_hosted_runner_is_refused(capsys, tmp_path, monkeypatch):
    """GitHub sets RUNNER_ENVIRONMENT=github-hosted on its own runners (GitHub docs, "Variables",
    default environment variables; `self-hosted` on others): the embedded file:// state is gone
    when the job ends, so an `up` there (an unset `PULUMI_BACKEND_URL: ${{ secrets.X }}`, or
    `--backend ""`) would create every resource again next time. Refused before Pulumi (exit 3);
    a self-hosted runner keeps the embedded default (docs/deploy.md, Backend)."""
    def must_not_run(*a, **k):
        raise AssertionError("Pulumi must not run")

    monkeypatch.setattr(automation, "up", must_not_run)
    root = orders(tmp_path)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK, "RUNNER_ENVIRONMENT": "github-hosted",
               "PULUMI_BACKEND_URL": ""}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi, clock=lambda: T0)
    assert rc == 3 and "embedded file:// backend on a GitHub-hosted runner" in err and "PULUMI_BACKEND_URL" in err, err
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", "", environ=environ, which=found_pulumi)
    assert rc == 64 and "--backend URL is empty" in err, err


def test_lease_held_exits_6_and_the_receipt_names_the_holder(capsys, tmp_path, monkeypatch):
    root = orders(tmp_path)
    acquire(root, "orders", "dev", holder="alice (github-actions run 7)", clock=lambda: T0)

    def must_not_run(*a, **k):
        raise AssertionError("Pulumi must not run while another deploy holds the lease")

    monkeypatch.setattr(automation, "up", must_not_run)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ,
                          which=found_pulumi, clock=lambda: T0 + timedelta(minutes=5))
    assert rc == 6 and "is being deployed by alice (github-actions run 7)" in err
    doc = json.loads(out)
    assert doc["outcome"] == "refused" and doc["exit_code"] == 6
    assert doc["lease"]["status"] == "held-by-another" and doc["lease"]["holder"] == "alice (github-actions run 7)"
    assert receipts(root)[0] == {k: v for k, v in doc.items() if k != "receipt"}
    # The embedded backend and its generated passphrase were set up (0600, ignored by git).
    passphrase = root / ".runway" / "pulumi-passphrase"
    assert stat.S_IMODE(passphrase.stat().st_mode) == 0o600
    assert "pulumi-passphrase" in (root / ".runway" / ".gitignore").read_text()
    assert (root / ".runway" / "state").is_dir()
    assert_no_secret([out, err, json.dumps(receipts(root))], [passphrase.read_text().strip(), *NO_SECRETS_FOR])


def test_a_group_readable_passphrase_file_is_refused(capsys, tmp_path):
    root = orders(tmp_path)
    (root / ".runway").mkdir()
    f = root / ".runway" / "pulumi-passphrase"
    f.write_text("abc\n")
    f.chmod(0o644)
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={**NETWORK}, which=found_pulumi)
    assert rc == 3 and "chmod 600" in err


# --------------------------------------------------------------------------------------
# up past the guards (Automation API calls stubbed; the real one is at the end)
# --------------------------------------------------------------------------------------

PROXY = "main-db.proxy-x.us-east-1.rds.amazonaws.com"
INSTANCE = "db.abc.us-east-1.rds.amazonaws.com"
MAIN_DB = {"endpoint": INSTANCE, "proxy_endpoint": PROXY, "port": 5432, "flavor": "rds",
           "arn": "arn:aws:rds:us-east-1:123456789012:db:orders-dev-main-db"}


class Captured:
    target = None


class FakeStack:
    """The stack in its backend, as far as runway-deploy reads it: the **non-secret** outputs of
    the last successful ``up`` (``resources``: endpoints, flavor). ``stored_state`` parses them
    with the real ``state_from_outputs``; :meth:`program_ran` keeps what the real program
    exports. ``received`` lists, per run, the passwords the program got, and ``set`` the
    resources whose password it was told to set (no ``ignore_changes``)."""

    def __init__(self, monkeypatch) -> None:
        self.outputs: dict = {}
        self.received: list[dict[str, str]] = []
        self.set: list[tuple[str, ...]] = []
        self.phases: list[str] = []
        monkeypatch.setattr(automation, "stored_state", self.stored_state)

    def stored_state(self, target):
        return stack_outputs.state_from_outputs(self.outputs, postgres_resources(target.plan))

    def program_ran(self, target, resources: dict | None = None, keep: bool = True) -> dict[str, str]:
        passwords = {name: c.password.reveal() for name, c in target.credentials.items()}
        self.phases.append("data" if target.exclude else "all")
        if target.exclude:  # phase 1 of an up (workloads held back): recorded once, at the full update
            return passwords
        self.received.append(passwords)
        self.set.append(tuple(target.set_passwords))
        if keep:
            self.outputs = {"resources": resources or {}}
        return passwords


@pytest.fixture
def stack(monkeypatch) -> FakeStack:
    return FakeStack(monkeypatch)


@contextlib.contextmanager
def infisical(monkeypatch, **extra):
    """A recording Infisical on 127.0.0.1 (tests/deploy/test_infisical.py) and the environment of a protected up."""
    from test_infisical import CLIENT_ID, CLIENT_SECRET, PROJECT, FakeInfisical

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    srv = FakeInfisical()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, "INFISICAL_HOST": srv.url, "INFISICAL_CLIENT_ID": CLIENT_ID,
               "INFISICAL_CLIENT_SECRET": CLIENT_SECRET, "INFISICAL_PROJECT_ID": PROJECT, **extra}
    try:
        yield srv, environ
    finally:
        srv.shutdown()
        srv.server_close()


def echoing_up(stack: FakeStack, host: str = PROXY, created: tuple[str, ...] = ()):
    """An ``up`` that, like a careless provider, echoes the password it got, then leaves its outputs."""

    def up(target, on_output):
        resources = {"main-db": {**MAIN_DB, "proxy_endpoint": host}}
        passwords = stack.program_ran(target, resources)
        on_output(f"  + aws:rds/instance:Instance password={passwords['main-db']}")
        return UpSummary({"update": 1}, ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",),
                         {"resources": resources}, created)

    return up


def writes(srv) -> list[dict]:
    return [r for r in srv.requests if r["path"].startswith("/api/v3/secrets/raw/")]


def test_pulumi_failure_exits_7_redacts_and_releases_the_lease(capsys, tmp_path, monkeypatch, stack, moto_server):
    from deploy_engine.leases import current_lease
    from deploy_engine.records import open_store

    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    seen = Captured()

    def failing_up(target, on_output):
        seen.target = target
        pw = target.credentials["main-db"].password.reveal()
        on_output(f"error: creating RDS instance: password {pw} rejected")  # as if Pulumi echoed it
        raise PulumiFailed(f"pulumi up failed: InvalidParameterValue: MasterUserPassword {pw}", ["urn:pulumi:orders-dev::runway-orders::a"])

    monkeypatch.setattr(automation, "up", failing_up)
    with infisical(monkeypatch, PULUMI_CONFIG_PASSPHRASE="team-passphrase-123", GITHUB_RUN_ID="99", GITHUB_ACTOR="octocat",
                   **moto_server.env()) as (srv, environ):
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", f"s3://{bucket}/orders", environ=environ, which=found_pulumi)
    assert rc == 7
    password = seen.target.credentials["main-db"].password.reveal()
    assert len(password) >= 32
    assert "password [redacted] rejected" in err and "MasterUserPassword [redacted]" in err
    (r,) = bucket_receipts(moto_server, bucket)
    assert r["outcome"] == "failed" and r["exit_code"] == 7 and r["resources"] == ["urn:pulumi:orders-dev::runway-orders::a"]
    assert r["ci"]["run_id"] == "99" and r["actor"] == "octocat" and r["backend"] == f"s3://{bucket}/orders"
    assert r["lease"]["status"] == "held" and r["lease"]["holder"] == "octocat (github-actions run 99)"
    assert current_lease(open_store(f"s3://{bucket}/orders", root, moto_server.env()), "orders", "dev") is None  # released
    assert receipts(root) == [] and read_lease(lease_path(root, "orders", "dev")) is None
    assert_no_secret([out, err, json.dumps(r)], [password, "team-passphrase-123", "client-secret-that-must-never-print"])


def test_backend_stack_lock_is_lease_held(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}  # the database exists: nothing to write, no login

    def locked(target, on_output):
        raise automation.StackLocked("pulumi up: the stack is locked by another update in the backend: error: the stack is currently locked by 1 lock(s)")

    monkeypatch.setattr(automation, "up", locked)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 6 and "locked by another update" in err
    (r,) = receipts(root)
    assert r["outcome"] == "refused" and r["exit_code"] == 6


def test_an_expired_lease_is_taken_over_and_the_receipt_says_so(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    acquire(root, "orders", "dev", holder="crashed-job", clock=lambda: T0 - timedelta(hours=3))
    monkeypatch.setattr(automation, "up", lambda target, on_output: (_ for _ in ()).throw(PulumiFailed("pulumi up failed: x")))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "took over the expired lease of crashed-job" in err
    (r,) = receipts(root)
    assert r["lease"]["status"] == "held" and r["lease"]["takeover"]["previous_holder"] == "crashed-job"
    assert r["lease"]["takeover"]["reason"] == "expired"
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_a_lease_of_a_dead_process_on_this_host_is_taken_over_at_once(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    dead_pid = int(gone.stdout)  # exited and reaped: no such process any more
    acquire(root, "orders", "dev", holder="killed-job", clock=lambda: T0, pid=dead_pid)  # this host, not expired
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi, clock=lambda: T0 + timedelta(minutes=1))
    assert rc == 0, err
    assert f"took over the lease of killed-job: holder process gone (pid {dead_pid} on" in err
    (r,) = receipts(root)
    assert r["lease"]["takeover"]["previous_pid"] == dead_pid and r["lease"]["takeover"]["reason"].startswith("holder process gone")
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_a_bug_during_up_still_writes_a_receipt_and_releases_the_lease(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}

    def buggy_up(target, on_output):
        raise KeyError("something")

    monkeypatch.setattr(automation, "up", buggy_up)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 70 and "internal error (KeyError)" in err
    (r,) = receipts(root)
    assert r["outcome"] == "failed" and r["reason"] == "internal error (KeyError)" and r["exit_code"] == 70
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_successful_up_writes_secrets_blind_and_a_receipt(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    seen = Captured()

    def good_up(target, on_output):
        seen.target = target
        on_output("Updating (orders-dev):")
        return UpSummary(
            {"create": 2} if target.exclude else {"create": 3, "same": 2},  # phase 1: data resources; then the services
            ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",),
            {"resources": {"main-db": {"endpoint": INSTANCE, "proxy_endpoint": PROXY}}},
            ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",),
        )

    monkeypatch.setattr(automation, "up", good_up)
    with infisical(monkeypatch) as (srv, environ):
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 0, err
    password = seen.target.credentials["main-db"].password.reveal()
    assert seen.target.set_passwords == ("main-db",)  # a new database: its password is set
    assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == password
    assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_URL")].endswith(f":{password}@{PROXY}:5432/main_db?sslmode=require")
    assert all(r["method"] != "GET" for r in srv.requests)
    # The login came first, before pulumi up ran: recorded before any write.
    assert srv.requests[0]["path"] == "/api/v1/auth/universal-auth/login"
    doc = json.loads(out)
    assert doc["outcome"] == "succeeded" and doc["exit_code"] == 0 and doc["changes"] == {"create": 5, "same": 2}
    assert doc["resources"] == ["urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance"]
    assert "dev:/runtime/main-db/MAIN_DB_PASSWORD" in doc["secrets_written"] and len(doc["secrets_written"]) == 6
    assert doc["credentials"] == {"main-db": "generated"}
    assert doc["receipt"].startswith(".runway/receipts/dev/20261130T090000.000000Z")
    assert read_lease(lease_path(root, "orders", "dev")) is None
    assert_no_secret([out, err, json.dumps(receipts(root))], [password, "client-secret-that-must-never-print"])


def test_missing_endpoint_output_fails_without_writing_secrets(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", lambda target, on_output: UpSummary({}, (), {}))
    with infisical(monkeypatch) as (srv, environ):
        rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "exported no endpoint for main-db" in err
    assert receipts(root)[0]["secrets_written"] == [] and writes(srv) == []


# --------------------------------------------------------------------------------------
# Credentials: set only by the up that needs one, written to Infisical, never read back
# --------------------------------------------------------------------------------------


def test_first_up_generates_and_writes_the_second_sets_nothing_and_writes_nothing(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    with infisical(monkeypatch) as (srv, environ):
        rc, out1, err1 = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0, err1
        password = stack.received[0]["main-db"]
        assert len(password) >= 32 and password != PREVIEW_PLACEHOLDER
        assert stack.set[0] == ("main-db",)
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == password
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_URL")].endswith(f":{password}@{PROXY}:5432/main_db?sslmode=require")
        first = json.loads(out1)
        assert first["credentials"] == {"main-db": "generated"} and len(first["secrets_written"]) == 6
        assert "main-db: new database: setting a new password (generated)" in err1
        assert "main-db: generated credential: wrote 6 values to Infisical at dev:/runtime/main-db/" in err1
        assert "password=[redacted]" in err1
        requests_after_first = len(srv.requests)

        # The second up: the stack's non-secret outputs say main-db exists. Its password is left
        # alone (ignore_changes): the program gets a throwaway value, and Infisical is untouched.
        rc, out2, err2 = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi,
                                clock=lambda: T0 + timedelta(minutes=1))
        assert rc == 0, err2
        assert stack.set[1] == ()
        throwaway = stack.received[1]["main-db"]
        assert throwaway != password and len(throwaway) >= 32
        assert len(srv.requests) == requests_after_first  # no login, no write
        second = json.loads(out2)
        assert second["outcome"] == "succeeded" and second["credentials"] == {"main-db": "unchanged"}
        assert second["secrets_written"] == []
        assert "password=[redacted]" in err2  # the throwaway is scrubbed like any generated value
    assert_no_secret([out1, err1, out2, err2, json.dumps(receipts(root))], [password, throwaway, "client-secret-that-must-never-print"])
    assert [r["credentials"] for r in receipts(root)] == [{"main-db": "generated"}, {"main-db": "unchanged"}]


def test_rotate_credentials_generates_a_new_one_and_writes_it(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    with infisical(monkeypatch) as (srv, environ):
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        old = stack.received[0]["main-db"]
        before = len(writes(srv))
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--rotate-credentials", "--format", "json",
                              environ=environ, which=found_pulumi)
        assert rc == 0, err
        new = stack.received[1]["main-db"]
        assert new != old and len(new) >= 32 and stack.set[1] == ("main-db",)  # ignore_changes lifted for this run
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == new
        assert [r["method"] for r in writes(srv)[before:]] == ["PATCH"] * 6  # updated in place, never read
        doc = json.loads(out)
        assert doc["credentials"] == {"main-db": "rotated"} and len(doc["secrets_written"]) == 6
        assert "main-db: --rotate-credentials: setting a new password (rotated)" in err
        # The next up leaves the rotated password alone.
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert stack.set[2] == () and len(writes(srv)) == before + 6
    assert_no_secret([out, err, json.dumps(receipts(root))], [old, new])


def test_adding_the_proxy_rotates_the_password_its_secret_needs(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": {"endpoint": INSTANCE, "port": 5432, "flavor": "rds"}}}  # deployed without a proxy
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    with infisical(monkeypatch) as (srv, environ):
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 0, err
    assert stack.set[0] == ("main-db",)
    assert json.loads(out)["credentials"] == {"main-db": "rotated"}
    assert "main-db: RDS Proxy added: its login secret needs the password" in err
    assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_HOST")] == PROXY


def test_a_database_created_unawares_fails_loudly(capsys, tmp_path, monkeypatch, stack):
    """The stack said main-db exists, yet the engine created its instance (replaced outside
    runway's knowledge): it got the throwaway password. Exit 7, and the way out is a rotation."""
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    created = ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",)
    monkeypatch.setattr(automation, "up", echoing_up(stack, created=created))
    with infisical(monkeypatch) as (srv, environ):
        rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "main-db: this up created or replaced the database or its proxy secret" in err
    assert "runway-deploy up --rotate-credentials" in err and writes(srv) == []


def test_an_endpoint_change_of_an_unchanged_database_fails_with_advice(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    moved = "main-db.proxy-y.us-east-1.rds.amazonaws.com"
    monkeypatch.setattr(automation, "up", echoing_up(stack, host=moved))
    with infisical(monkeypatch) as (srv, environ):
        rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and f"the endpoint of main-db ({PROXY}:5432 -> {moved}:5432) changed" in err
    assert "--rotate-credentials" in err and writes(srv) == []


def test_infisical_login_fails_before_pulumi_up_runs(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", lambda target, on_output: pytest.fail("pulumi up must not run"))
    with infisical(monkeypatch, INFISICAL_CLIENT_SECRET="a-wrong-client-secret") as (srv, environ):
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 7 and "login to" in err and "nothing was deployed" in err
    assert [r["path"] for r in srv.requests] == ["/api/v1/auth/universal-auth/login"]
    doc = json.loads(out)
    assert doc["outcome"] == "failed" and doc["secrets_written"] == [] and doc["credentials"] == {"main-db": "unchanged"}
    assert "a-wrong-client-secret" not in out + err
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_infisical_environment_slug_mapping(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    with infisical(monkeypatch, INFISICAL_ENVIRONMENT_DEV="development") as (srv, environ):
        srv.folders.add(("development", "/"))
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 0, err
    assert {k[:2] for k in srv.secrets} == {("development", "/runtime/main-db")}
    assert "wrote 6 values to Infisical at development:/runtime/main-db/" in err
    assert all(s.startswith("development:/runtime/main-db/") for s in json.loads(out)["secrets_written"])


@pytest.mark.parametrize("host", ["http://infisical.example.com", "ftp://127.0.0.1"])
def test_a_plain_http_infisical_host_is_refused_as_configuration(capsys, tmp_path, host):
    root = orders(tmp_path)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK, "INFISICAL_HOST": host}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 3 and "INFISICAL_HOST" in err


def test_preview_and_drift_generate_nothing_write_nothing_and_set_no_password(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    seen: list = []

    def preview(target, on_output):
        seen.append((stack.program_ran(target, keep=False), tuple(target.set_passwords)))  # a preview keeps no outputs
        on_output(f"  ~ password={target.credentials['main-db'].password.reveal()}")
        return PreviewSummary({"create": 1}, ())

    def drift(target, on_output):
        seen.append((stack.program_ran(target, keep=False), tuple(target.set_passwords)))
        return DriftReport((), 3)

    monkeypatch.setattr(automation, "preview", preview)
    monkeypatch.setattr(automation, "drift", drift)
    with infisical(monkeypatch) as (srv, environ):  # Infisical configured, and never called
        # No database in the stack yet: a placeholder stands in, so the preview shows a create.
        rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0, err
        assert seen[-1] == ({"main-db": PREVIEW_PLACEHOLDER}, ("main-db",)) and stack.outputs == {}
        assert json.loads(out)["credentials"] == {"main-db": "placeholder"}
        assert "main-db: new database: previewed with a placeholder password; `up` will generate one" in err
        assert deploy(capsys, "drift", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert seen[-1] == ({"main-db": PREVIEW_PLACEHOLDER}, ())

        # Once an up has created it, preview passes the placeholder under ignore_changes: no diff.
        monkeypatch.setattr(automation, "up", echoing_up(stack))
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        password = stack.received[-1]["main-db"]
        kept = dict(stack.outputs)
        requests = len(srv.requests)
        rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0 and seen[-1] == ({"main-db": PREVIEW_PLACEHOLDER}, ()) and json.loads(out)["credentials"] == {"main-db": "unchanged"}
        assert "placeholder password" not in err
        assert deploy(capsys, "drift", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert seen[-1] == ({"main-db": PREVIEW_PLACEHOLDER}, ())
        assert stack.outputs == kept and len(srv.requests) == requests
    assert len(receipts(root)) == 1  # the up's only
    assert_no_secret([out, err], [password])


def test_rotate_credentials_is_an_up_option_only(capsys, tmp_path):
    rc, _, err = deploy(capsys, "preview", str(orders(tmp_path)), "--env", "dev", "--rotate-credentials", environ={})
    assert rc == 64 and "--rotate-credentials" in err


def test_a_failed_up_after_generating_says_how_to_recover(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)

    def failing(target, on_output):
        stack.program_ran(target, keep=False)
        raise PulumiFailed("pulumi up failed: InvalidSubnet")

    monkeypatch.setattr(automation, "up", failing)
    with infisical(monkeypatch) as (srv, environ):
        rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "InvalidSubnet; the credentials of main-db may now be set on the database but not in Infisical" in err
    assert "runway-deploy up --rotate-credentials" in err
    (r,) = receipts(root)
    assert r["credentials"] == {"main-db": "generated"} and r["secrets_written"] == [] and "--rotate-credentials" in r["reason"]


def test_an_unreadable_stack_fails_before_pulumi_up_runs(capsys, tmp_path, monkeypatch):
    root = orders(tmp_path)

    def unreadable(target):
        raise PulumiFailed("pulumi stack output failed: error: could not read the stack")

    monkeypatch.setattr(automation, "stored_state", unreadable)
    monkeypatch.setattr(automation, "up", lambda target, on_output: pytest.fail("Pulumi must not run"))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "could not read the stack" in err
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_preview_and_drift_output_as_text_and_json(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    urn = "urn:pulumi:orders-dev::runway-orders::aws:sqs/queue:Queue::dev-shared-queue-queue"
    monkeypatch.setattr(automation, "preview", lambda t, o: PreviewSummary({"create": 1, "same": 0}, (Step(urn, "aws:sqs/queue:Queue", "create"),)))
    monkeypatch.setattr(automation, "drift", lambda t, o: DriftReport((engine_events.DriftItem(urn, "aws:sqs/queue:Queue", "updated", ("visibilityTimeoutSeconds",)),), 9))
    environ = {**NETWORK}
    rc, out, _ = deploy(capsys, "preview", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 0 and out.splitlines()[0] == "preview of orders-dev ($126.88 / $150.00, ok): create 1"
    rc, out, _ = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    doc = json.loads(out)
    assert doc["command"] == "preview" and doc["stack"] == "orders-dev" and doc["project"] == "runway-orders"
    assert doc["steps"] == [{"urn": urn, "type": "aws:sqs/queue:Queue", "op": "create"}] and doc["backend"].startswith("file://")
    assert doc["credentials"] == {"main-db": "placeholder"}
    rc, out, _ = deploy(capsys, "drift", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 0 and out.splitlines() == [
        "drift of orders-dev: 1 of 9 resources changed outside Pulumi",
        f"  updated  aws:sqs/queue:Queue  {urn} (visibilityTimeoutSeconds)",
    ]
    rc, out, _ = deploy(capsys, "drift", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    doc = json.loads(out)
    assert doc["drifted"] == [{"urn": urn, "type": "aws:sqs/queue:Queue", "change": "updated", "properties": ["visibilityTimeoutSeconds"]}]
    assert doc["checked"] == 9 and receipts(root) == []  # only `up` writes receipts


class OpenedStack:
    """What ``automation.open_stack`` returns, as far as preview and drift use it: the real
    ``automation.preview`` / ``drift`` / ``stored_state`` run against it. ``outputs()`` and
    ``export_stack()`` (both pass ``--show-secrets`` in the Automation API) fail the test; the
    masked ``pulumi stack output --json`` goes through ``workspace.pulumi_command.run``."""

    name = "orders-dev"

    def __init__(self, outputs: dict) -> None:
        from pulumi.automation._cmd import CommandResult

        self.commands: list[list[str]] = []
        stack = self

        class Command:
            def run(self, args, cwd, env, on_output=None, on_error=None):
                stack.commands.append(list(args))
                return CommandResult(stdout=json.dumps(outputs), stderr="", code=0)

        self.workspace = type("Workspace", (), {"pulumi_command": Command(), "work_dir": "/tmp", "pulumi_home": None,
                                                "env_vars": {"PULUMI_CONFIG_PASSPHRASE": "p"}})()

    def outputs(self):
        pytest.fail("Stack.outputs() passes --show-secrets: preview and drift must never call it")

    def export_stack(self):
        pytest.fail("Stack.export_stack() passes --show-secrets: preview and drift must never call it")

    def preview(self, **kw):
        from pulumi.automation import PreviewResult

        return PreviewResult(stdout="", stderr="", change_summary={"same": 3})

    def preview_refresh(self, **kw):
        from pulumi.automation import PreviewResult

        return PreviewResult(stdout="", stderr="", change_summary={})


@pytest.mark.parametrize("command", ["preview", "drift"])
def test_preview_and_drift_never_request_secret_outputs(capsys, tmp_path, monkeypatch, command):
    root = orders(tmp_path)
    opened = OpenedStack({"resources": {"main-db": MAIN_DB}, "runway_credentials": "[secret]"})
    monkeypatch.setattr(automation, "open_stack", lambda target: opened)
    rc, out, err = deploy(capsys, command, str(root), "--env", "dev", "--format", "json", environ={**NETWORK}, which=found_pulumi)
    assert rc == 0, err
    assert all("--show-secrets" not in c for c in opened.commands)
    if command == "preview":
        assert opened.commands == [["stack", "output", "--json", "--stack", "orders-dev"]]
        assert json.loads(out)["credentials"] == {"main-db": "unchanged"}
    else:
        assert opened.commands == []  # drift reads no output at all


@pytest.mark.parametrize("command", ["preview", "drift"])
def test_preview_and_drift_print_a_json_error_object_when_they_fail(capsys, tmp_path, monkeypatch, command):
    root = orders(tmp_path)
    rc, out, err = deploy(capsys, command, str(root), "--env", "dev", "--format", "json", environ={"PATH": empty_path(tmp_path)})
    assert rc == 5 and json.loads(out) == {"error": {"exit_code": 5, "message": json.loads(out)["error"]["message"]}}
    assert "not on PATH" in json.loads(out)["error"]["message"]
    monkeypatch.setattr(automation, command, lambda t, o: (_ for _ in ()).throw(PulumiFailed(f"pulumi {command} failed: boom")))
    monkeypatch.setattr(automation, "stored_state", lambda t: stack_outputs.StoredState())
    rc, out, _ = deploy(capsys, command, str(root), "--env", "dev", "--format", "json", environ={**NETWORK}, which=found_pulumi)
    assert rc == 7 and json.loads(out) == {"error": {"exit_code": 7, "message": f"pulumi {command} failed: boom"}}
    rc, out, _ = deploy(capsys, command, str(root), "--env", "dev", "--format", "json", environ={}, which=found_pulumi)
    assert rc == 3 and json.loads(out)["error"]["exit_code"] == 3
    rc, out, _ = deploy(capsys, command, str(ORDERS), "--env", "dev", "--format", "json", environ={})
    assert rc == 1 and json.loads(out)["error"]["exit_code"] == 1  # the example's digest error
    rc, out, _ = deploy(capsys, command, str(tmp_path / "nowhere"), "--env", "dev", "--format", "json", environ={})
    assert rc == 3 and "no such file or folder" in json.loads(out)["error"]["message"]


# --------------------------------------------------------------------------------------
# The network guard: public subnets, public domain, HTTPS (exit 3, before Pulumi)
# --------------------------------------------------------------------------------------

CERT = "arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
PRIVATE_ONLY = {k: v for k, v in NETWORK.items() if k != "RUNWAY_PUBLIC_SUBNET_IDS"}


def two_public(tmp_path: Path) -> Path:
    root = orders(tmp_path)
    f = root / "runway.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("    expose: internal\n    reason: \"on-prem-parity", "    expose: public\n    reason: \"on-prem-parity"), encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["preview", "drift", "up"])
def test_network_gaps_are_configuration_errors_before_pulumi(capsys, tmp_path, monkeypatch, command):
    monkeypatch.setattr(automation, "open_stack", lambda target: pytest.fail("Pulumi must not be reached"))
    base = {"RUNWAY_DEPLOY_JOB": "protected", **INFISICAL_OK}
    root = orders(tmp_path)
    rc, _, err = deploy(capsys, command, str(root), "--env", "dev", environ={**base, **PRIVATE_ONLY}, which=found_pulumi)
    assert rc == 3 and "public workload(s) zitadel need the ALB's subnets: set RUNWAY_PUBLIC_SUBNET_IDS" in err
    root2 = two_public(tmp_path / "two")
    rc, _, err = deploy(capsys, command, str(root2), "--env", "dev", environ={**base, **NETWORK}, which=found_pulumi)
    assert rc == 3 and "2 public workloads (metabase, zitadel) share one ALB" in err and "set RUNWAY_PUBLIC_DOMAIN" in err
    rc, _, err = deploy(capsys, command, str(root), "--env", "production", environ={**base, **NETWORK}, which=found_pulumi)
    assert rc == 3 and "production: public workload(s) zitadel would be served over plain HTTP: set RUNWAY_CERTIFICATE_ARN" in err
    assert "RUNWAY_ALLOW_HTTP=1" in err
    if command == "up":
        assert [r["exit_code"] for r in receipts(root, "production")] == [3]


def test_http_in_production_needs_the_explicit_allowance_and_elsewhere_warns(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "preview", lambda t, o: PreviewSummary({}, ()))
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "production", environ={**NETWORK, "RUNWAY_ALLOW_HTTP": "1"}, which=found_pulumi)
    assert rc == 0, err
    assert "warning: production: no RUNWAY_CERTIFICATE_ARN: public workload(s) zitadel are served over plain HTTP" in err
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={**NETWORK}, which=found_pulumi)
    assert rc == 0 and "warning: dev: no RUNWAY_CERTIFICATE_ARN" in err
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "production",
                        environ={**NETWORK, "RUNWAY_CERTIFICATE_ARN": CERT, "RUNWAY_PUBLIC_DOMAIN": "orders.example.com"}, which=found_pulumi)
    assert rc == 0 and "RUNWAY_CERTIFICATE_ARN" not in err
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "production",
                        environ={**NETWORK, "RUNWAY_CERTIFICATE_ARN": "arn:aws:iam::123:server-certificate/x"}, which=found_pulumi)
    assert rc == 3 and "is not an ACM certificate ARN" in err


def test_members_only_databases_warn_without_an_allowed_cidr(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "preview", lambda t, o: PreviewSummary({}, ()))
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={**NETWORK}, which=found_pulumi)
    assert rc == 0 and "warning: dev: shared-cache is used by member(s) checkout" in err
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={**NETWORK, "RUNWAY_ALLOWED_CIDR": "10.0.0.0/16"}, which=found_pulumi)
    assert rc == 0 and "is used by member(s)" not in err


# --------------------------------------------------------------------------------------
# The backend URL's user info is never printed
# --------------------------------------------------------------------------------------


def test_backend_user_info_is_never_printed(capsys, tmp_path, monkeypatch, stack, moto_server):
    root = orders(tmp_path)
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", "--backend", "https://alice:hunter2-secret@state.example.com/x?token=tok-123",
                          environ={**NETWORK}, which=found_pulumi)
    assert rc == 3 and "'https://***@state.example.com/x'" in err
    assert "hunter2-secret" not in out + err and "alice" not in out + err and "tok-123" not in out + err

    def echoing_preview(target, on_output):
        on_output(f"error: backend {target.backend.url} is slow")  # as if Pulumi quoted it
        return PreviewSummary({}, ())

    monkeypatch.setattr(automation, "preview", echoing_preview)
    bucket = moto_server.bucket()
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", "--backend", f"s3://AKIA:wJalr-secret-key@{bucket}/orders",
                          environ={**NETWORK, "PULUMI_CONFIG_PASSPHRASE": "x" * 12, **moto_server.env()}, which=found_pulumi)
    assert rc == 0, err
    assert json.loads(out)["backend"] == f"s3://***@{bucket}/orders"
    assert "wJalr-secret-key" not in out + err and "[redacted]" in err


# --------------------------------------------------------------------------------------
# SIGTERM (what CI sends on cancel or timeout) ends a run like Ctrl-C
# --------------------------------------------------------------------------------------

SIGTERM_CHILD = """
import json, sys, time
sys.path.insert(0, {repo!r})
sys.path.insert(0, {tests!r})
from deploy_engine import automation, cli, preflight, stack_outputs
preflight.network_problems = lambda *a, **k: preflight.NetworkReport()  # the account checks pass (tests/deploy/test_preflight.py)
from deploy_engine import images
def _offline(url, headers):
    raise images.RegistryUnreadable("no registry in these tests")
images.http_fetch = _offline  # the image check runs against a fake registry in test_image_platforms.py
from deploy_engine.engine_events import PreviewSummary

def blocking(target, on_output):
    print("RUNNING", flush=True)  # the parent sends SIGTERM once it reads this
    while True:
        time.sleep(0.05)

from deploy_engine.secrets import KnownDatabase
automation.stored_state = lambda target: stack_outputs.StoredState({{"main-db": KnownDatabase("rds", True, ("main-db.proxy", 5432))}})
automation.up = blocking
automation.preview = blocking
rc = cli.main(sys.argv[1:], environ={environ!r}, which=lambda name, path=None: "/opt/pulumi/bin/pulumi")
print("EXIT", rc, flush=True)
sys.exit(rc)
"""


@pytest.mark.parametrize("command", ["up", "preview"])
def test_sigterm_writes_the_receipt_releases_the_lease_and_exits_143(tmp_path, command):
    import signal

    root = orders(tmp_path)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK, "PATH": os.environ.get("PATH", "")}
    code = SIGTERM_CHILD.format(repo=str(REPO), tests=str(REPO / "tests"), environ=environ)
    # The database exists (the lease is taken, nothing to write): the child blocks in `pulumi up`.
    argv = [sys.executable, "-c", code, command, str(root), "--env", "dev", "--format", "json"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "RUNNING"
        if command == "up":
            held = read_lease(lease_path(root, "orders", "dev"))
            assert held is not None and held.pid == proc.pid
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert "runway-deploy: terminated (SIGTERM)" in err
    assert read_lease(lease_path(root, "orders", "dev")) is None  # released
    doc = json.loads(out[: out.rindex("EXIT")])
    if command == "up":
        (r,) = receipts(root)
        assert r["outcome"] == "cancelled" and r["exit_code"] == 143 and r["reason"] == "cancelled: terminated (SIGTERM)"
        assert doc["outcome"] == "cancelled"
    else:
        assert doc == {"error": {"exit_code": 143, "message": "cancelled: terminated (SIGTERM)"}} and receipts(root) == []


# --------------------------------------------------------------------------------------
# Drift as data: the engine's refresh events classified (real pulumi.automation event types)
# --------------------------------------------------------------------------------------


def refresh_event(op: str, urn: str, rtype: str, old: dict | None, new: dict | None, diffs=None, outputs_event=True):
    from pulumi.automation import events as ev

    md = ev.StepEventMetadata.from_json({
        "op": op, "urn": urn, "type": rtype, "provider": "",
        **({"old": {"type": rtype, "urn": urn, "custom": True, "delete": False, "id": "i", "parent": "", "provider": "", "outputs": old}} if old is not None else {}),
        **({"new": {"type": rtype, "urn": urn, "custom": True, "delete": False, "id": "i", "parent": "", "provider": "", "outputs": new}} if new is not None else {}),
        **({"diffs": diffs} if diffs else {}),
    })
    wrapper = ev.ResOutputsEvent(md) if outputs_event else ev.ResourcePreEvent(md)
    return ev.EngineEvent(sequence=1, timestamp=0, **({"res_outputs_event": wrapper} if outputs_event else {"resource_pre_event": wrapper}))


def test_drift_classifies_refresh_steps_as_the_engine_does():
    q = "urn:pulumi:s::p::aws:sqs/queue:Queue::q"
    b = "urn:pulumi:s::p::aws:s3/bucket:Bucket::b"
    t = "urn:pulumi:s::p::aws:sns/topic:Topic::t"
    r = "urn:pulumi:s::p::aws:rds/instance:Instance::db"
    report = engine_events.drift_from_events([
        refresh_event("refresh", "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s", "pulumi:pulumi:Stack", {}, {"x": 1}),
        refresh_event("refresh", q, "aws:sqs/queue:Queue", {"delay": 0}, {"delay": 5}),  # changed, no diff sent
        refresh_event("refresh", b, "aws:s3/bucket:Bucket", {"acl": "private"}, None),  # gone
        refresh_event("refresh", t, "aws:sns/topic:Topic", {"name": "t"}, {"name": "t"}),  # same
        refresh_event("update", r, "aws:rds/instance:Instance", {}, {}, diffs=["allocatedStorage"], outputs_event=False),
    ])
    assert report.checked == 4
    assert [(i.urn, i.change, i.properties) for i in report.items] == [  # sorted by URN
        (r, "updated", ("allocatedStorage",)),
        (b, "deleted", ()),
        (q, "updated", ("delay",)),
    ]


def test_preview_steps_and_urns_from_events():
    a = "urn:pulumi:s::p::aws:sqs/queue:Queue::a"
    events = [
        refresh_event("create", a, "aws:sqs/queue:Queue", None, {}, outputs_event=False),
        refresh_event("same", "urn:x", "aws:sns/topic:Topic", {}, {}, outputs_event=False),
        refresh_event("create", a, "aws:sqs/queue:Queue", None, {}),
    ]
    assert engine_events.steps_from_events(events) == (Step(a, "aws:sqs/queue:Queue", "create"),)
    assert engine_events.urns_from_events(events) == (a,)


def test_postgres_endpoint_prefers_the_proxy():
    outputs = {"resources": {"main-db": {"endpoint": "inst.rds", "proxy_endpoint": "proxy.rds"}, "other": {"endpoint": "h:6543"}}}
    assert stack_outputs.postgres_endpoint(outputs, "main-db") == ("proxy.rds", 5432)
    assert stack_outputs.postgres_endpoint(outputs, "other") == ("h", 6543)
    assert stack_outputs.postgres_endpoint(outputs, "missing") is None


# --------------------------------------------------------------------------------------
# The credential decision, as pure functions (what the stack's non-secret outputs say exists)
# --------------------------------------------------------------------------------------


@pytest.fixture
def dev_plan(tmp_path):
    """The dev plan of examples/orders: one postgres resource, ``main-db`` (rds, with a proxy)."""
    from runway_core.analysis import analyze
    from runway_core.catalog import load_catalog

    return analyze(str(orders(tmp_path) / "runway.yaml"), load_catalog()).plans["dev"]


def counter_token():
    n = iter(range(1, 1000))
    return lambda nbytes: f"{next(n):03d}" + "t" * 40


def test_plan_credentials_sets_a_password_only_where_the_database_needs_one(dev_plan):
    from deploy_engine.secrets import KnownDatabase, plan_credentials

    token = counter_token()
    first = plan_credentials(dev_plan, {}, generate=True, token=token)
    assert first.sources == {"main-db": "generated"} and first.new == ("main-db",) and first.set_passwords == ("main-db",)
    assert first.reasons == {"main-db": "new database"}
    assert first.credentials["main-db"].password.reveal() == "001" + "t" * 40
    assert first.credentials["main-db"].username == "runway_admin" and first.credentials["main-db"].database == "main_db"

    exists = {"main-db": KnownDatabase("rds", True, ("p.rds", 5432)), "gone-db": KnownDatabase("rds")}  # removed resources are ignored
    again = plan_credentials(dev_plan, exists, generate=True, token=token)
    assert again.sources == {"main-db": "unchanged"} and again.new == () and again.set_passwords == ()
    assert again.credentials["main-db"].password.reveal() == "002" + "t" * 40  # a throwaway: ignored, never written
    assert list(again.credentials) == ["main-db"]

    rotated = plan_credentials(dev_plan, exists, generate=True, rotate=True, token=token)
    assert rotated.sources == {"main-db": "rotated"} and rotated.set_passwords == ("main-db",)
    assert rotated.reasons == {"main-db": "--rotate-credentials"}

    no_proxy = plan_credentials(dev_plan, {"main-db": KnownDatabase("rds", False)}, generate=True, token=token)
    assert no_proxy.sources == {"main-db": "rotated"} and "RDS Proxy added" in no_proxy.reasons["main-db"]
    aurora = plan_credentials(dev_plan, {"main-db": KnownDatabase("aurora", True)}, generate=True, token=token)
    assert aurora.sources == {"main-db": "generated"} and aurora.reasons["main-db"] == "flavor aurora -> rds: a new database"
    unknown_flavor = plan_credentials(dev_plan, {"main-db": KnownDatabase(None, True)}, generate=True, token=token)
    assert unknown_flavor.sources == {"main-db": "unchanged"}


def test_plan_credentials_for_preview_never_generates(dev_plan):
    from deploy_engine.secrets import KnownDatabase, plan_credentials

    def no_token(nbytes):
        raise AssertionError("preview and drift never generate")

    empty = plan_credentials(dev_plan, {}, generate=False, token=no_token)
    assert empty.sources == {"main-db": "placeholder"} and empty.new == () and empty.placeholders == ("main-db",)
    assert empty.set_passwords == ("main-db",)  # the preview shows what up would set
    assert empty.credentials["main-db"].password.reveal() == PREVIEW_PLACEHOLDER
    assert empty.secret_credentials() == {}
    known = plan_credentials(dev_plan, {"main-db": KnownDatabase("rds", True)}, generate=False, token=no_token)
    assert known.sources == {"main-db": "unchanged"} and known.set_passwords == ()
    assert known.credentials["main-db"].password.reveal() == PREVIEW_PLACEHOLDER
    with pytest.raises(ValueError, match="only `up` rotates"):
        plan_credentials(dev_plan, {}, generate=False, rotate=True)
    with pytest.raises(TypeError):
        plan_credentials(dev_plan, {"main-db": "a password"}, generate=True)


def test_state_from_outputs_reads_databases_and_skips_secret_outputs():
    from pulumi.automation import OutputValue

    from deploy_engine.secrets import KnownDatabase

    masked = {
        "runway_credentials": "[secret]",  # an earlier version's credential store: never read
        "resources": {"main-db": {"endpoint": "i.rds:5432", "proxy_endpoint": "p.rds", "flavor": "rds"},
                      "old-db": {"endpoint": "c.rds", "arn": "arn:aws:rds:us-east-1:1:cluster:x"},
                      "queue": {"url": "https://sqs"}},
    }
    state = stack_outputs.state_from_outputs(masked, ["main-db", "old-db", "other-db"])
    assert state.databases == {"main-db": KnownDatabase("rds", True, ("p.rds", 5432)), "old-db": KnownDatabase("aurora", False, ("c.rds", 5432))}
    assert state.endpoints == {"main-db": ("p.rds", 5432), "old-db": ("c.rds", 5432)}
    # OutputValue objects too: a secret one is skipped unread.
    values = {"resources": OutputValue({"main-db": {"endpoint": "h"}}, True)}
    assert stack_outputs.state_from_outputs(values, ["main-db"]) == stack_outputs.StoredState()
    assert stack_outputs.state_from_outputs({}, ["main-db"]) == stack_outputs.StoredState()


def test_stored_state_runs_stack_output_without_show_secrets_and_never_quotes_its_stdout(dev_plan):
    from pulumi.automation._cmd import CommandResult
    from pulumi.automation.errors import CommandError

    opened = OpenedStack({"resources": {"main-db": MAIN_DB}})
    target = stack_target(dev_plan)
    target._stack = opened
    state = automation.stored_state(target)
    assert list(state.databases) == ["main-db"] and state.databases["main-db"].proxy is True
    assert opened.commands == [["stack", "output", "--json", "--stack", "orders-dev"]]

    class Failing:
        def run(self, args, cwd, env, on_output=None, on_error=None):
            raise CommandError(CommandResult(stdout='{"half-printed": "value-987654321"}', stderr="error: could not read", code=255))

    opened.workspace.pulumi_command = Failing()
    target = stack_target(dev_plan)
    target._stack = opened
    with pytest.raises(PulumiFailed) as info:
        automation.stored_state(target)
    assert "pulumi stack output failed: error: could not read" in str(info.value)
    assert "value-987654321" not in str(info.value)


def test_redactor_add_tree_takes_values_not_keys():
    from deploy_engine.secrets import Redactor, SecretValue

    r = Redactor()
    r.add_tree({"main-db": "value-one", "list": ["value-two", {"k": SecretValue("value-three")}], "n": 3, "none": None})
    assert r.scrub("main-db value-one value-two value-three 3") == "main-db [redacted] [redacted] [redacted] 3"


def stack_target(plan, **kw):
    from deploy_engine.secrets import Redactor, SecretValue

    base = dict(product="orders", environment="dev", region="us-east-1", plan=plan, network=None, credentials={},
                backend=backend.Backend("file:///tmp/x"), passphrase=SecretValue("p" * 20), redactor=Redactor())
    base.update(kw)
    return automation.StackTarget(**base)


def test_up_refuses_a_preview_placeholder_before_opening_the_stack(dev_plan):
    from deploy_engine.secrets import plan_credentials

    target = stack_target(dev_plan)
    target.credentials = plan_credentials(target.plan, {}, generate=False).credentials
    with pytest.raises(ValueError, match="placeholder"):
        automation.up(target, print)
    assert target._stack is None


def test_created_urns_and_password_holders():
    a = "urn:pulumi:s::p::aws:rds/instance:Instance::dev-main-db-instance"
    b = "urn:pulumi:s::p::aws:sqs/queue:Queue::dev-q-queue"
    events = [
        refresh_event("create-replacement", a, "aws:rds/instance:Instance", {}, {}, outputs_event=False),
        refresh_event("update", b, "aws:sqs/queue:Queue", {}, {}, outputs_event=False),
        refresh_event("create", b, "aws:sqs/queue:Queue", None, {}),  # an outputs event: not a step
    ]
    assert engine_events.created_from_events(events) == (a,)
    assert engine_events.password_holders("dev", "main-db") == ("dev-main-db-instance", "dev-main-db-cluster", "dev-main-db-proxy-secret-version")


def test_the_program_and_the_job_agree_on_the_admin_login():
    from deploy_engine import program, secrets

    assert program.ADMIN_USERNAME == secrets.POSTGRES_USER


def test_stack_and_project_names():
    assert automation.stack_name("orders", "dev") == "orders-dev"
    assert automation.project_name("orders") == "runway-orders"


def test_exit_codes_are_distinct():
    codes = [cli.EXIT_OK, cli.EXIT_INVALID, cli.EXIT_REFUSED, cli.EXIT_CONFIG, cli.EXIT_NOT_PROTECTED,
             cli.EXIT_PULUMI_MISSING, cli.EXIT_LEASE_HELD, cli.EXIT_DEPLOY_FAILED, cli.EXIT_USAGE, cli.EXIT_INTERNAL]
    assert codes == [0, 1, 2, 3, 4, 5, 6, 7, 64, 70]


# --------------------------------------------------------------------------------------
# The Automation API for real
# --------------------------------------------------------------------------------------


def test_automation_api_preview_for_real(capsys, tmp_path):
    if shutil.which("pulumi") is None:
        pytest.skip("no pulumi CLI on this machine: the Automation API needs it; mock-tested program in test_program_mocks.py")
    root = orders(tmp_path)
    environ = {
        **os.environ, **NETWORK,
        "PULUMI_CONFIG_PASSPHRASE": "test-passphrase-not-secret-1",
        "PULUMI_HOME": str(tmp_path / "pulumi-home"),
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    }
    environ.pop("PULUMI_BACKEND_URL", None)
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ)
    # The stack exists in the embedded backend whatever AWS said about the dummy credentials.
    stacks = list((root / ".runway" / "state").rglob("orders-dev.json*"))
    assert stacks, err
    assert rc in (0, 7), err
    if rc == 0:
        doc = json.loads(out)
        assert doc["stack"] == "orders-dev" and any(s["op"] == "create" for s in doc["steps"])
    assert "test-passphrase-not-secret-1" not in out + err


@pytest.mark.parametrize("command", ["preview", "up"])
def test_a_flavor_switch_outside_dev_is_refused_before_pulumi_with_the_migration_path(capsys, tmp_path, monkeypatch, stack, command):
    """orders' main-db is `flavor: rds`; the stack says staging deployed it as Aurora. Outside dev
    that would be a new, empty database and the old one stuck behind deletion protection (the
    half-done up of issue 12): refused before anything runs. In dev the switch goes ahead."""
    root = orders(tmp_path)
    stack.outputs = {"resources": {"main-db": {**MAIN_DB, "flavor": "aurora"}}}
    ran: list[str] = []
    monkeypatch.setattr(automation, "up", lambda target, on_output: ran.append("up") or UpSummary({}, ()))
    monkeypatch.setattr(automation, "preview", lambda target, on_output: ran.append("preview") or PreviewSummary({}, ()))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK, "RUNWAY_CERTIFICATE_ARN":
               "arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", "RUNWAY_PUBLIC_DOMAIN": "example.com"}
    rc, _, err = deploy(capsys, command, str(root), "--env", "staging", environ=environ, which=found_pulumi)
    assert rc == 1, err
    assert "postgres flavor changed against the deployed stack: main-db (aurora -> rds)" in err
    assert "add a new resource with `flavor: rds`" in err and "Switching flavor" in err
    assert ran == []
    if command == "up":
        (r,) = receipts(root, "staging")
        assert r["outcome"] == "refused" and r["exit_code"] == 1
    # dev is disposable: the switch is a new database with a new password (generated), no refusal.
    with infisical(monkeypatch) as (srv, env_dev):
        rc, _, err = deploy(capsys, command, str(root), "--env", "dev", environ=env_dev, which=found_pulumi)
    assert "flavor changed" not in err
