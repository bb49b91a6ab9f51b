"""``runway-deploy preview|up|drift`` (deploy_engine/cli.py, automation.py; docs/deploy.md).

Exit codes are the interface: each guard is tested in its documented order (invalid 1, over
cap 2, not the protected job 4, no Pulumi CLI 5, configuration 3, lease held 6, deploy failed
7) and so are the receipts every ``up`` writes. No test fakes the Pulumi CLI: without the
binary, tests that must get past the CLI check pass ``which`` in (the lookup, STYLE.md §6) and
stop at a later guard, or replace the Automation API calls (``automation.stored_state`` /
``up`` / ``preview`` / ``drift``) with stubs that return or raise what the real ones would:
:class:`FakeStack` keeps the stack outputs an ``up`` would leave (the secret
``runway_credentials`` and ``resources``) and reads them back through the real
``automation.state_from_outputs``. The one test that runs the Automation API for real needs the
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

from deploy_engine import automation, cli
from deploy_engine.automation import DriftReport, PreviewSummary, PulumiFailed, Step, UpSummary
from deploy_engine.cli import main
from deploy_engine.leases import acquire, lease_path, read_lease
from deploy_engine.secrets import PREVIEW_PLACEHOLDER, postgres_resources

REPO = Path(__file__).resolve().parent.parent
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
    assert "refused: dev is over its cap ($122.10/month > $100.00); nothing was declared" in proc.stderr
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
    assert "refused: `up` runs only in the production-protected deploy job (RUNWAY_DEPLOY_JOB=protected" in err
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


def test_missing_configuration_exits_3_naming_every_variable(capsys, tmp_path):
    root = orders(tmp_path)
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", "s3://state-bucket/orders",
                          environ={"RUNWAY_DEPLOY_JOB": "protected"}, which=found_pulumi)
    assert rc == 3
    for name in ("RUNWAY_VPC_ID", "RUNWAY_PRIVATE_SUBNET_IDS", "INFISICAL_CLIENT_ID", "INFISICAL_CLIENT_SECRET",
                 "INFISICAL_PROJECT_ID", "PULUMI_CONFIG_PASSPHRASE"):
        assert name in err
    (r,) = receipts(root)
    assert r["outcome"] == "failed" and r["exit_code"] == 3
    # preview needs no Infisical: only the network is missing.
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", environ={"PULUMI_CONFIG_PASSPHRASE": "x" * 12}, which=found_pulumi)
    assert rc == 3 and "RUNWAY_VPC_ID" in err and "INFISICAL" not in err


def test_unsupported_backend_is_configuration(capsys, tmp_path):
    rc, _, err = deploy(capsys, "preview", str(orders(tmp_path)), "--env", "dev", "--backend", "ftp://x",
                        environ={**NETWORK}, which=found_pulumi)
    assert rc == 3 and "use file://<folder> or s3://<bucket>" in err


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


class Captured:
    target = None


class FakeStack:
    """The stack in its backend, as far as runway-deploy reads it: the outputs of the last
    successful ``up``. ``stored_state`` parses them with the real ``state_from_outputs``;
    :meth:`program_ran` keeps what the real program exports (the passwords it received, as the
    secret ``runway_credentials``, and ``resources``). ``received`` lists, per run, the
    passwords the program got (preview and drift included; they keep nothing)."""

    def __init__(self, monkeypatch) -> None:
        from pulumi.automation import OutputValue

        self._value = OutputValue
        self.outputs: dict = {}
        self.received: list[dict[str, str]] = []
        monkeypatch.setattr(automation, "stored_state", self.stored_state)

    def stored_state(self, target):
        return automation.state_from_outputs(self.outputs, target.redactor, postgres_resources(target.plan))

    def program_ran(self, target, resources: dict | None = None, keep: bool = True) -> dict[str, str]:
        passwords = {name: c.password.reveal() for name, c in target.credentials.items()}
        self.received.append(passwords)
        if keep:
            self.outputs = {
                "resources": self._value(resources or {}, False),
                automation.CREDENTIALS_OUTPUT: self._value(dict(passwords), True),
            }
        return passwords


@pytest.fixture
def stack(monkeypatch) -> FakeStack:
    return FakeStack(monkeypatch)


def test_pulumi_failure_exits_7_redacts_and_releases_the_lease(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    seen = Captured()

    def failing_up(target, on_output):
        seen.target = target
        pw = target.credentials["main-db"].password.reveal()
        on_output(f"error: creating RDS instance: password {pw} rejected")  # as if Pulumi echoed it
        raise PulumiFailed(f"pulumi up failed: InvalidParameterValue: MasterUserPassword {pw}", ["urn:pulumi:orders-dev::runway-orders::a"])

    monkeypatch.setattr(automation, "up", failing_up)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", "PULUMI_CONFIG_PASSPHRASE": "team-passphrase-123", **NETWORK, **INFISICAL_OK,
               "GITHUB_RUN_ID": "99", "GITHUB_ACTOR": "octocat"}
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", "s3://state/orders", environ=environ, which=found_pulumi)
    assert rc == 7
    password = seen.target.credentials["main-db"].password.reveal()
    assert len(password) >= 32
    assert "password [redacted] rejected" in err and "MasterUserPassword [redacted]" in err
    (r,) = receipts(root)
    assert r["outcome"] == "failed" and r["exit_code"] == 7 and r["resources"] == ["urn:pulumi:orders-dev::runway-orders::a"]
    assert r["ci"]["run_id"] == "99" and r["actor"] == "octocat" and r["backend"] == "s3://state/orders"
    assert r["lease"]["status"] == "held" and r["lease"]["holder"] == "octocat (github-actions run 99)"
    assert read_lease(lease_path(root, "orders", "dev")) is None  # released
    assert_no_secret([out, err, json.dumps(r)], [password, "team-passphrase-123", *NO_SECRETS_FOR])


def test_backend_stack_lock_is_lease_held(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)

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
    acquire(root, "orders", "dev", holder="crashed-job", clock=lambda: T0 - timedelta(hours=3))
    monkeypatch.setattr(automation, "up", lambda target, on_output: (_ for _ in ()).throw(PulumiFailed("pulumi up failed: x")))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "took over the expired lease of crashed-job" in err
    (r,) = receipts(root)
    assert r["lease"]["status"] == "held" and r["lease"]["takeover"]["previous_holder"] == "crashed-job"
    assert read_lease(lease_path(root, "orders", "dev")) is None


def test_a_bug_during_up_still_writes_a_receipt_and_releases_the_lease(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)

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
    from test_infisical import FakeInfisical

    root = orders(tmp_path)
    seen = Captured()

    def good_up(target, on_output):
        seen.target = target
        on_output("Updating (orders-dev):")
        return UpSummary(
            {"create": 2},
            ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",),
            {"resources": {"main-db": {"endpoint": "db.abc.us-east-1.rds.amazonaws.com", "proxy_endpoint": "main-db.proxy-x.us-east-1.rds.amazonaws.com"}}},
        )

    monkeypatch.setattr(automation, "up", good_up)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    srv = FakeInfisical()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, "INFISICAL_HOST": srv.url, "INFISICAL_CLIENT_ID": "machine-identity-id",
                   "INFISICAL_CLIENT_SECRET": "client-secret-that-must-never-print", "INFISICAL_PROJECT_ID": "proj-123"}
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    finally:
        srv.shutdown()
        srv.server_close()
    assert rc == 0, err
    password = seen.target.credentials["main-db"].password.reveal()
    assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == password
    assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_URL")].endswith(
        f":{password}@main-db.proxy-x.us-east-1.rds.amazonaws.com:5432/main_db?sslmode=require")
    assert all(r["method"] != "GET" for r in srv.requests)
    doc = json.loads(out)
    assert doc["outcome"] == "succeeded" and doc["exit_code"] == 0 and doc["changes"] == {"create": 2}
    assert doc["resources"] == ["urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance"]
    assert "dev:/runtime/main-db/MAIN_DB_PASSWORD" in doc["secrets_written"] and len(doc["secrets_written"]) == 6
    assert doc["receipt"].startswith(".runway/receipts/dev/20261130T090000.000000Z")
    assert read_lease(lease_path(root, "orders", "dev")) is None
    assert_no_secret([out, err, json.dumps(receipts(root))], [password, "client-secret-that-must-never-print"])


def test_missing_endpoint_output_fails_without_writing_secrets(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", lambda target, on_output: UpSummary({}, (), {}))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "exported no endpoint for main-db" in err
    assert receipts(root)[0]["secrets_written"] == []


# --------------------------------------------------------------------------------------
# Credentials: generated once, kept in the stack, written to Infisical only when new
# --------------------------------------------------------------------------------------

PROXY = "main-db.proxy-x.us-east-1.rds.amazonaws.com"
INSTANCE = "db.abc.us-east-1.rds.amazonaws.com"


@contextlib.contextmanager
def infisical(monkeypatch):
    """A recording Infisical on 127.0.0.1 (tests/test_infisical.py) and the environment of a protected up."""
    from test_infisical import CLIENT_ID, CLIENT_SECRET, PROJECT, FakeInfisical

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    srv = FakeInfisical()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, "INFISICAL_HOST": srv.url, "INFISICAL_CLIENT_ID": CLIENT_ID,
               "INFISICAL_CLIENT_SECRET": CLIENT_SECRET, "INFISICAL_PROJECT_ID": PROJECT}
    try:
        yield srv, environ
    finally:
        srv.shutdown()
        srv.server_close()


def echoing_up(stack: FakeStack, host: str = PROXY):
    """An ``up`` that, like a careless provider, echoes the password it got, then leaves its outputs."""

    def up(target, on_output):
        passwords = stack.program_ran(target, {"main-db": {"endpoint": INSTANCE, "proxy_endpoint": host}})
        on_output(f"  + aws:rds/instance:Instance password={passwords['main-db']}")
        return UpSummary({"update": 1}, ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db-instance",),
                         {"resources": {"main-db": {"endpoint": INSTANCE, "proxy_endpoint": host}}})

    return up


def writes(srv) -> list[dict]:
    return [r for r in srv.requests if r["path"].startswith("/api/v3/secrets/raw/")]


def test_first_up_generates_and_writes_the_second_reuses_and_writes_nothing(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    monkeypatch.setattr(automation, "up", echoing_up(stack))
    with infisical(monkeypatch) as (srv, environ):
        rc, out1, err1 = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0, err1
        password = stack.received[0]["main-db"]
        assert len(password) >= 32 and password != PREVIEW_PLACEHOLDER
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == password
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_URL")].endswith(f":{password}@{PROXY}:5432/main_db?sslmode=require")
        first = json.loads(out1)
        assert first["credentials"] == {"main-db": "generated"} and len(first["secrets_written"]) == 6
        assert "main-db: new credential: wrote 6 values to Infisical at dev:/runtime/main-db/" in err1
        assert "password=[redacted]" in err1
        requests_after_first = len(srv.requests)

        # The second up: a new process as far as the CLI knows (a new redactor), same stack.
        rc, out2, err2 = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi,
                                clock=lambda: T0 + timedelta(minutes=1))
        assert rc == 0, err2
        assert stack.received[1] == {"main-db": password}  # the same value went to the program
        assert len(srv.requests) == requests_after_first  # no login, no write: Infisical untouched
        second = json.loads(out2)
        assert second["outcome"] == "succeeded" and second["credentials"] == {"main-db": "stored"}
        assert second["secrets_written"] == []
        # The value read back from the stack is scrubbed like a generated one.
        assert "password=[redacted]" in err2
    assert_no_secret([out1, err1, out2, err2, json.dumps(receipts(root))], [password, "client-secret-that-must-never-print"])
    assert [r["credentials"] for r in receipts(root)] == [{"main-db": "generated"}, {"main-db": "stored"}]


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
        assert new != old and len(new) >= 32
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == new
        assert [r["method"] for r in writes(srv)[before:]] == ["PATCH"] * 6  # updated in place, never read
        doc = json.loads(out)
        assert doc["credentials"] == {"main-db": "rotated"} and len(doc["secrets_written"]) == 6
        assert "main-db: rotated credential: wrote 6 values" in err
        # The rotated value is what the stack keeps: the next up reuses it.
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert stack.received[2] == {"main-db": new} and len(writes(srv)) == before + 6
    assert_no_secret([out, err, json.dumps(receipts(root))], [old, new])


def test_an_endpoint_change_rewrites_the_same_password(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    with infisical(monkeypatch) as (srv, environ):
        monkeypatch.setattr(automation, "up", echoing_up(stack))
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        password = stack.received[0]["main-db"]
        moved = "main-db.proxy-y.us-east-1.rds.amazonaws.com"
        monkeypatch.setattr(automation, "up", echoing_up(stack, host=moved))
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0, err
        assert stack.received[1] == {"main-db": password}
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == password  # not rotated
        assert srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_HOST")] == moved
        doc = json.loads(out)
        assert doc["credentials"] == {"main-db": "stored"} and len(doc["secrets_written"]) == 6
        assert "main-db: endpoint changed: wrote 6 values" in err
    assert_no_secret([out, err], [password])


def test_preview_and_drift_generate_nothing_and_write_nothing(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    seen: list = []

    def preview(target, on_output):
        seen.append(stack.program_ran(target, keep=False))  # a preview keeps no outputs
        on_output(f"  ~ password={target.credentials['main-db'].password.reveal()}")
        return PreviewSummary({"create": 1}, ())

    def drift(target, on_output):
        seen.append(stack.program_ran(target, keep=False))
        return DriftReport((), 3)

    monkeypatch.setattr(automation, "preview", preview)
    monkeypatch.setattr(automation, "drift", drift)
    with infisical(monkeypatch) as (srv, environ):  # Infisical configured, and never called
        # No credential in the stack yet: a placeholder stands in, so the preview shows a create.
        rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0, err
        assert seen[-1] == {"main-db": PREVIEW_PLACEHOLDER} and stack.outputs == {}
        assert json.loads(out)["credentials"] == {"main-db": "placeholder"}
        assert "main-db has no credential in the stack yet: previewed with a placeholder; `up` will generate it" in err
        assert deploy(capsys, "drift", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert seen[-1] == {"main-db": PREVIEW_PLACEHOLDER} and stack.outputs == {}

        # Once an up has stored one, preview and drift use it, unchanged (no diff on the password).
        monkeypatch.setattr(automation, "up", echoing_up(stack))
        assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        password = stack.received[-1]["main-db"]
        kept = dict(stack.outputs)
        requests = len(srv.requests)
        rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
        assert rc == 0 and seen[-1] == {"main-db": password} and json.loads(out)["credentials"] == {"main-db": "stored"}
        assert "~ password=[redacted]" in err and "placeholder" not in err
        assert deploy(capsys, "drift", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0
        assert seen[-1] == {"main-db": password}
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
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "InvalidSubnet; the credentials of main-db may now be in the stack but not in Infisical" in err
    assert "runway-deploy up --rotate-credentials" in err
    (r,) = receipts(root)
    assert r["credentials"] == {"main-db": "generated"} and r["secrets_written"] == [] and "--rotate-credentials" in r["reason"]


def test_an_unreadable_stored_state_fails_before_pulumi_runs(capsys, tmp_path, monkeypatch, stack):
    from pulumi.automation import OutputValue

    root = orders(tmp_path)
    stack.outputs = {automation.CREDENTIALS_OUTPUT: OutputValue("not-a-mapping-value", True)}
    monkeypatch.setattr(automation, "up", lambda target, on_output: pytest.fail("Pulumi must not run"))
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 7 and "is not a mapping of resource names to passwords" in err
    assert read_lease(lease_path(root, "orders", "dev")) is None
    assert_no_secret([out, err, json.dumps(receipts(root))], ["not-a-mapping-value"])


def test_preview_and_drift_output_as_text_and_json(capsys, tmp_path, monkeypatch, stack):
    root = orders(tmp_path)
    urn = "urn:pulumi:orders-dev::runway-orders::aws:sqs/queue:Queue::dev-shared-queue-queue"
    monkeypatch.setattr(automation, "preview", lambda t, o: PreviewSummary({"create": 1, "same": 0}, (Step(urn, "aws:sqs/queue:Queue", "create"),)))
    monkeypatch.setattr(automation, "drift", lambda t, o: DriftReport((automation.DriftItem(urn, "aws:sqs/queue:Queue", "updated", ("visibilityTimeoutSeconds",)),), 9))
    environ = {**NETWORK}
    rc, out, _ = deploy(capsys, "preview", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 0 and out.splitlines()[0] == "preview of orders-dev ($122.10 / $150.00, ok): create 1"
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
    report = automation.drift_from_events([
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
    assert automation.steps_from_events(events) == (Step(a, "aws:sqs/queue:Queue", "create"),)
    assert automation.urns_from_events(events) == (a,)


def test_postgres_endpoint_prefers_the_proxy():
    outputs = {"resources": {"main-db": {"endpoint": "inst.rds", "proxy_endpoint": "proxy.rds"}, "other": {"endpoint": "h:6543"}}}
    assert automation.postgres_endpoint(outputs, "main-db") == ("proxy.rds", 5432)
    assert automation.postgres_endpoint(outputs, "other") == ("h", 6543)
    assert automation.postgres_endpoint(outputs, "missing") is None


# --------------------------------------------------------------------------------------
# The credential decision, as pure functions (an injected store: a mapping of stored values)
# --------------------------------------------------------------------------------------


@pytest.fixture
def dev_plan(tmp_path):
    """The dev plan of examples/orders: one postgres resource, ``main-db``."""
    from runway_core.analysis import analyze
    from runway_core.catalog import load_catalog

    return analyze(str(orders(tmp_path) / "runway.yaml"), load_catalog()).plans["dev"]


def counter_token():
    n = iter(range(1, 1000))
    return lambda nbytes: f"{next(n):03d}" + "t" * 40


def test_plan_credentials_generates_only_what_the_store_lacks(dev_plan):
    from deploy_engine.secrets import SecretValue, plan_credentials

    plan = dev_plan
    token = counter_token()
    first = plan_credentials(plan, {}, generate=True, token=token)
    assert first.sources == {"main-db": "generated"} and first.new == ("main-db",)
    value = first.credentials["main-db"].password
    assert value.reveal() == "001" + "t" * 40
    assert first.credentials["main-db"].username == "runway_admin" and first.credentials["main-db"].database == "main_db"

    store = {"main-db": value, "gone-db": SecretValue("x" * 43)}  # values of removed resources are ignored
    again = plan_credentials(plan, store, generate=True, token=token)
    assert again.sources == {"main-db": "stored"} and again.new == ()
    assert again.credentials["main-db"].password == value and list(again.credentials) == ["main-db"]

    rotated = plan_credentials(plan, store, generate=True, rotate=True, token=token)
    assert rotated.sources == {"main-db": "rotated"} and rotated.new == ("main-db",)
    assert rotated.credentials["main-db"].password.reveal() == "002" + "t" * 40

    # An empty stored value is no value: a new one is generated.
    assert plan_credentials(plan, {"main-db": SecretValue("")}, generate=True, token=token).sources == {"main-db": "generated"}


def test_plan_credentials_for_preview_never_generates(dev_plan):
    from deploy_engine.secrets import SecretValue, plan_credentials

    plan = dev_plan

    def no_token(nbytes):
        raise AssertionError("preview and drift never generate")

    empty = plan_credentials(plan, {}, generate=False, token=no_token)
    assert empty.sources == {"main-db": "placeholder"} and empty.new == () and empty.placeholders == ("main-db",)
    assert empty.credentials["main-db"].password.reveal() == PREVIEW_PLACEHOLDER
    assert empty.secret_credentials() == {}
    stored = plan_credentials(plan, {"main-db": SecretValue("s" * 43)}, generate=False, token=no_token)
    assert stored.sources == {"main-db": "stored"} and stored.credentials["main-db"].password.reveal() == "s" * 43
    with pytest.raises(ValueError, match="only `up` rotates"):
        plan_credentials(plan, {}, generate=False, rotate=True)
    with pytest.raises(TypeError):
        plan_credentials(plan, {"main-db": "plain string"}, generate=True)


def test_state_from_outputs_registers_every_value_read_with_the_redactor():
    from pulumi.automation import OutputValue

    from deploy_engine.secrets import Redactor

    redactor = Redactor()
    outputs = {
        automation.CREDENTIALS_OUTPUT: OutputValue({"main-db": "stored-password-value-0123456789abcdef"}, True),
        "other_secret": OutputValue({"nested": ["another-secret-value-xyz"]}, True),
        "resources": OutputValue({"main-db": {"endpoint": "i.rds:5432", "proxy_endpoint": "p.rds"}}, False),
        "region": OutputValue("us-east-1", False),
    }
    state = automation.state_from_outputs(outputs, redactor, ["main-db", "other-db"])
    assert state.credentials["main-db"].reveal() == "stored-password-value-0123456789abcdef"
    assert state.endpoints == {"main-db": ("p.rds", 5432)}
    line = "pw stored-password-value-0123456789abcdef and another-secret-value-xyz in us-east-1"
    assert redactor.scrub(line) == "pw [redacted] and [redacted] in us-east-1"  # plain outputs stay readable
    assert automation.state_from_outputs({}, Redactor(), ["main-db"]) == automation.StoredState()


@pytest.mark.parametrize("value, secret, message", [
    ({"main-db": "a-password-that-was-not-secret"}, False, "is not a secret"),
    ("a-password-that-was-not-secret", True, "is not a mapping"),
    ({"main-db": 42}, True, "is not a mapping"),
    ({"main-db": ""}, True, "is not a mapping"),
])
def test_state_from_outputs_refuses_a_credential_store_it_did_not_write(value, secret, message):
    from pulumi.automation import OutputValue

    from deploy_engine.secrets import Redactor

    redactor = Redactor()
    with pytest.raises(PulumiFailed, match=message) as info:
        automation.state_from_outputs({automation.CREDENTIALS_OUTPUT: OutputValue(value, secret)}, redactor, ["main-db"])
    assert "a-password-that-was-not-secret" not in str(info.value)
    if isinstance(value, str) or value == {"main-db": "a-password-that-was-not-secret"}:
        assert redactor.leaks("x a-password-that-was-not-secret x")


def test_redactor_add_tree_takes_values_not_keys():
    from deploy_engine.secrets import Redactor, SecretValue

    r = Redactor()
    r.add_tree({"main-db": "value-one", "list": ["value-two", {"k": SecretValue("value-three")}], "n": 3, "none": None})
    assert r.scrub("main-db value-one value-two value-three 3") == "main-db [redacted] [redacted] [redacted] 3"


def stack_target(plan, **kw):
    from deploy_engine.secrets import Redactor, SecretValue

    base = dict(product="orders", environment="dev", region="us-east-1", plan=plan, network=None, credentials={},
                backend=automation.Backend("file:///tmp/x"), passphrase=SecretValue("p" * 20), redactor=Redactor())
    base.update(kw)
    return automation.StackTarget(**base)


def test_stored_state_reads_the_opened_stack_and_never_quotes_its_stdout(dev_plan):
    from pulumi.automation import OutputValue
    from pulumi.automation._cmd import CommandResult
    from pulumi.automation.errors import CommandError

    class OpenedStack:
        def __init__(self, result):
            self.result = result

        def outputs(self):
            if isinstance(self.result, Exception):
                raise self.result
            return self.result

    target = stack_target(dev_plan)
    target._stack = OpenedStack({automation.CREDENTIALS_OUTPUT: OutputValue({"main-db": "kept-in-the-stack-0123456789"}, True)})
    state = automation.stored_state(target)
    assert state.credentials["main-db"].reveal() == "kept-in-the-stack-0123456789"
    assert target.redactor.leaks("kept-in-the-stack-0123456789")

    leaked = '{"runway_credentials": {"main-db": "half-printed-secret-987654321"}}'
    target = stack_target(dev_plan)
    target._stack = OpenedStack(CommandError(CommandResult(stdout=leaked, stderr="error: could not decrypt", code=255)))
    with pytest.raises(PulumiFailed) as info:
        automation.stored_state(target)
    assert "pulumi stack output failed: error: could not decrypt" in str(info.value)
    assert "half-printed-secret" not in str(info.value)


def test_up_refuses_a_preview_placeholder_before_opening_the_stack(dev_plan):
    from deploy_engine.secrets import plan_credentials

    target = stack_target(dev_plan)
    target.credentials = plan_credentials(target.plan, {}, generate=False).credentials
    with pytest.raises(ValueError, match="placeholder"):
        automation.up(target, print)
    assert target._stack is None


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
