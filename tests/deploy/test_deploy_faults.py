"""Deploy faults (issue 7, deliverable 5; docs/deploy.md "Lease", "The reviewed plan").

- Two concurrent ``up`` of one environment, as real processes started together: exactly one
  runs, the other is refused by the lease (exit 6) and its receipt names the holder.
- A crash mid-``up``: ``kill -9`` of the child holding the lease leaves the lease behind; the
  next run takes it over and its receipt records the dead holder. A hung holder (alive,
  stopped) blocks until the lease expires; after expiry the next run takes over and records
  it. SIGTERM mid-``up``: the run's own receipt records the failure and the lease is released.
- Over the cap: nothing is declared: the CLI refuses before the program runs (Pulumi mocks
  record zero resources) and the program itself refuses an over-cap plan.
- A plan that is not the reviewed one (the runway changed after review, another
  environment's digest) is refused with exit 8 before anything runs; a malformed digest is a
  usage error (64).

The child processes run ``runway-deploy up`` through a small driver that replaces only the
Automation API calls (no Pulumi CLI exists here): its ``up`` writes a "started" file (the
lease is then held) and, in ``block`` mode, waits for a "go" file. Waits are on files and
process exits; wall-clock limits only detect a hang.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deploy_engine import automation, engine_events, stack_outputs
from deploy_engine.engine_events import UpSummary
from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
HANG = 60.0  # seconds: only a hung child gets near this
ENVIRON = {
    "RUNWAY_DEPLOY_JOB": "protected",
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "PULUMI_CONFIG_PASSPHRASE": "test-passphrase-not-secret",
    "INFISICAL_CLIENT_ID": "id",
    "INFISICAL_CLIENT_SECRET": "client-secret-value-1",
    "INFISICAL_PROJECT_ID": "p1",
}
#: A product with no database: `up` needs no Infisical write, so the faults are the lease's.
PRODUCT = """runway: 1
product: faults
environments:
  dev: {}
  staging: {}
  production:
    limits: { monthly: 2500 }
resources:
  jobs:
    kind: queue
  files:
    kind: bucket
    size: { dev: small }
"""

DRIVER = r"""
import os, sys, time
from datetime import datetime, timedelta, timezone
from pathlib import Path
sys.path.insert(0, os.environ["DRIVER_REPO"])
from deploy_engine import automation, cli, engine_events, preflight, stack_outputs
# The account checks pass here (they run against moto_server in tests/deploy/test_preflight.py).
preflight.network_problems = lambda *a, **k: preflight.NetworkReport()
preflight.wait_for_parameters = lambda *a, **k: preflight.ParameterWait()

started, go = Path(os.environ["DRIVER_STARTED"]), Path(os.environ["DRIVER_GO"])
automation.stored_state = lambda target: stack_outputs.StoredState()

def up(target, on_output):
    started.write_text(str(os.getpid()))
    if os.environ.get("DRIVER_MODE") == "block":
        while not go.exists():  # the test creates it: a file, not a timer, decides
            time.sleep(0.01)
    return engine_events.UpSummary({"create": 2}, ("urn:pulumi:faults-dev::runway-faults::aws:sqs/queue:Queue::dev-jobs",), {})

automation.up = up
offset = timedelta(hours=float(os.environ.get("DRIVER_CLOCK_OFFSET_H", "0")))
rc = cli.main(sys.argv[1:], environ=dict(os.environ), clock=lambda: datetime.now(timezone.utc) + offset,
              which=lambda *a, **k: "/opt/pulumi/bin/pulumi")
sys.exit(rc)
"""

# The AWS account checks pass here (tests/conftest.py); they run against moto_server in test_preflight.py.
pytestmark = pytest.mark.usefixtures("account_checks_pass")



def product(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "faults"
    root.mkdir()
    (root / "runway.yaml").write_text(PRODUCT, encoding="utf-8")
    return root


def receipts(root: Path, env: str = "dev") -> list[dict]:
    folder = root / ".runway" / "receipts" / env
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


def lease_file(root: Path) -> Path:
    return root / ".runway" / "leases" / "faults-dev.json"


class Driver:
    """One ``runway-deploy up PATH --env dev`` child process."""

    def __init__(self, root: Path, name: str, mode: str = "fast", clock_offset_h: float = 0.0) -> None:
        self.started = root.parent / f"{name}.started"
        self.go = root.parent / f"{name}.go"
        self.log = root.parent / f"{name}.stderr"
        script = root.parent / "driver.py"
        script.write_text(DRIVER, encoding="utf-8")
        env = {**os.environ, **ENVIRON, "DRIVER_REPO": str(REPO), "DRIVER_STARTED": str(self.started), "DRIVER_GO": str(self.go),
               "DRIVER_MODE": mode, "DRIVER_CLOCK_OFFSET_H": str(clock_offset_h), "GITHUB_ACTOR": name}
        self.err = open(self.log, "wb")
        self.proc = subprocess.Popen([sys.executable, str(script), "up", str(root), "--env", "dev", "--format", "json"],
                                     stdout=subprocess.PIPE, stderr=self.err, env=env, cwd=root.parent)

    def wait_started(self) -> None:
        deadline = time.monotonic() + HANG
        while not self.started.exists():
            assert self.proc.poll() is None, f"the driver exited early ({self.proc.returncode}): {self.stderr()}"
            assert time.monotonic() < deadline, "the driver never reached `up` (hung?)"
            time.sleep(0.01)

    def finish(self) -> tuple[int, dict | None]:
        out, _ = self.proc.communicate(timeout=HANG)
        self.err.close()
        try:
            return self.proc.returncode, json.loads(out)
        except ValueError:
            return self.proc.returncode, None

    def stderr(self) -> str:
        if not self.err.closed:
            self.err.flush()
        return self.log.read_text(encoding="utf-8", errors="replace")


def test_two_concurrent_ups_one_is_refused_by_the_lease(tmp_path):
    root = product(tmp_path)
    a, b = Driver(root, "alice", "block"), Driver(root, "bob", "block")
    deadline = time.monotonic() + HANG
    while a.proc.poll() is None and b.proc.poll() is None:  # the loser ends on its own
        assert time.monotonic() < deadline, "neither up ended: both hold the lease?"
        time.sleep(0.01)
    loser, winner = (a, b) if a.proc.poll() is not None else (b, a)
    winner.wait_started()
    winner.go.touch()
    (rc_w, doc_w), (rc_l, doc_l) = winner.finish(), loser.finish()
    assert (rc_w, rc_l) == (0, 6), (winner.stderr(), loser.stderr())
    assert not loser.started.exists(), "the refused up reached Pulumi"
    assert doc_w["outcome"] == "succeeded" and doc_w["lease"]["status"] == "held"
    assert doc_l["outcome"] == "refused" and doc_l["exit_code"] == 6
    assert doc_l["lease"]["status"] == "held-by-another" and doc_l["lease"]["pid"] == winner.proc.pid
    assert "is being deployed by" in loser.stderr()
    assert sorted(r["outcome"] for r in receipts(root)) == ["refused", "succeeded"]
    assert not lease_file(root).exists()  # released by the winner


def test_kill_9_mid_up_leaves_the_lease_and_the_next_run_takes_it_over_and_records_it(tmp_path):
    root = product(tmp_path)
    crashed = Driver(root, "crashed", "block")
    crashed.wait_started()
    held = json.loads(lease_file(root).read_text(encoding="utf-8"))
    assert held["pid"] == crashed.proc.pid
    crashed.proc.send_signal(signal.SIGKILL)
    rc, _ = crashed.finish()
    assert rc == -signal.SIGKILL and receipts(root) == []  # killed: no receipt of its own, the lease stays
    assert json.loads(lease_file(root).read_text(encoding="utf-8"))["token"] == held["token"]

    rc, doc = Driver(root, "next").finish()
    assert rc == 0 and doc["outcome"] == "succeeded"
    takeover = doc["lease"]["takeover"]
    assert takeover["previous_pid"] == crashed.proc.pid and takeover["previous_holder"] == held["holder"]
    assert takeover["previous_token"] == held["token"]
    assert receipts(root)[0]["lease"]["takeover"] == takeover
    assert not lease_file(root).exists()


def test_a_hung_holder_blocks_until_the_lease_expires_then_the_next_run_takes_over(tmp_path):
    root = product(tmp_path)
    hung = Driver(root, "hung", "block")
    hung.wait_started()
    hung.proc.send_signal(signal.SIGSTOP)  # alive but making no progress
    try:
        rc, doc = Driver(root, "early").finish()
        assert rc == 6 and doc["outcome"] == "refused" and doc["lease"]["pid"] == hung.proc.pid
        rc, doc = Driver(root, "later", clock_offset_h=2).finish()  # two hours on: the 1-hour lease has expired
        assert rc == 0 and doc["outcome"] == "succeeded", doc
        takeover = doc["lease"]["takeover"]
        assert takeover["previous_pid"] == hung.proc.pid and takeover.get("reason", "expired") == "expired"
    finally:
        hung.proc.send_signal(signal.SIGCONT)
        hung.go.touch()
    rc, doc = hung.finish()
    assert rc in (0, 6, 7), hung.stderr()  # whatever it reports, it must not crash
    assert not lease_file(root).exists()  # the late holder's release never removes another's lease (nothing left here)
    outcomes = [r["outcome"] for r in receipts(root)]
    assert outcomes.count("refused") == 1 and "succeeded" in outcomes


def test_sigterm_mid_up_writes_a_failed_receipt_and_releases_the_lease(tmp_path):
    root = product(tmp_path)
    run = Driver(root, "cancelled", "block")
    run.wait_started()
    run.proc.send_signal(signal.SIGTERM)
    rc, doc = run.finish()
    assert rc == 143, run.stderr()
    (r,) = receipts(root)
    assert r["outcome"] in ("cancelled", "failed") and r["exit_code"] == 143 and r["lease"]["status"] == "held"
    assert not lease_file(root).exists()


# --------------------------------------------------------------------------------------
# Over the cap: nothing declared
# --------------------------------------------------------------------------------------


def test_over_the_cap_nothing_is_declared(tmp_path, monkeypatch, catalog):
    pulumi = pytest.importorskip("pulumi", reason="the Pulumi program part needs the [deploy] extra")
    pytest.importorskip("pulumi_aws", reason="the Pulumi program part needs the [deploy] extra")
    from deploy_engine.program import declare_environment
    from deploy_engine.resources import run_under_mocks
    from deploy_engine.settings import NetworkSettings
    from runway_core.analysis import analyze

    root = product(tmp_path)
    text = PRODUCT.replace("  dev: {}\n", "  dev:\n    limits: { monthly: 1 }\n").replace("size: { dev: small }", "size: { dev: large }")
    (root / "runway.yaml").write_text(text, encoding="utf-8")
    calls: list[str] = []
    records: list[dict] = []

    def up(target, on_output):  # would run the real program under the mocks
        calls.append("up")
        records.extend(run_under_mocks(target.program(), product="faults", environment="dev", region="us-east-1")[0])
        return UpSummary({}, ())

    monkeypatch.setattr(automation, "up", up)
    monkeypatch.setattr(automation, "preview", lambda target, on_output: calls.append("preview"))
    monkeypatch.setattr(automation, "stored_state", lambda target: calls.append("stored_state") or stack_outputs.StoredState())
    for command in ("up", "preview"):
        out, err = io.StringIO(), io.StringIO()
        rc = main([command, str(root), "--env", "dev"], stdout=out, stderr=err, environ=dict(ENVIRON), which=lambda *a, **k: "/opt/pulumi/bin/pulumi")
        assert rc == 2 and "nothing was declared" in err.getvalue(), err.getvalue()
    assert calls == [] and records == []
    assert [r["outcome"] for r in receipts(root)] == ["refused"]

    # Whoever calls the program with an over-cap plan: refused before any resource.
    plan = analyze(str(root / "runway.yaml"), catalog).plans["dev"]
    assert plan.verdict == "over-cap"
    network = NetworkSettings("vpc-0a1b2c3d4e5f60718", ("subnet-0a000000000000001", "subnet-0a000000000000002"), ())

    with pytest.raises(ValueError, match="over its cap"):
        records.extend(run_under_mocks(lambda: declare_environment(plan, product="faults", region="us-east-1", network=network, credentials={}),
                                       product="faults", environment="dev", region="us-east-1")[0])
    assert records == []


# --------------------------------------------------------------------------------------
# The reviewed plan: --plan-digest
# --------------------------------------------------------------------------------------


def test_a_plan_that_is_not_the_reviewed_one_is_refused(tmp_path, monkeypatch):
    root = product(tmp_path)
    ran: list[str] = []
    monkeypatch.setattr(automation, "stored_state", lambda target: stack_outputs.StoredState())
    monkeypatch.setattr(automation, "up", lambda target, on_output: ran.append("up") or UpSummary({"create": 2}, ()))
    monkeypatch.setattr(automation, "preview", lambda target, on_output: ran.append("preview") or engine_events.PreviewSummary({}, ()))

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        rc = main(list(argv), stdout=out, stderr=err, environ=dict(ENVIRON), which=lambda *a, **k: "/opt/pulumi/bin/pulumi")
        return rc, out.getvalue(), err.getvalue()

    rc, out, _ = run("plan", str(root), "--format", "json")
    digests = {e["name"]: e["plan_digest"] for e in json.loads(out)["environments"]}
    assert len(set(digests.values())) == 3 and all(len(d) == 64 for d in digests.values())

    # The reviewed plan: deployed; the receipt holds both digests.
    rc, out, err = run("up", str(root), "--env", "dev", "--plan-digest", digests["dev"].upper(), "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["plan_digest"] == doc["reviewed_plan_digest"] == digests["dev"] and ran == ["up"]

    # Another environment's digest, then the runway changed after the review: refused, nothing runs.
    for digest, change in ((digests["staging"], None), (digests["dev"], ("size: { dev: small }", "size: { dev: medium }"))):
        if change is not None:
            (root / "runway.yaml").write_text(PRODUCT.replace(*change), encoding="utf-8")
        for command in ("up", "preview"):
            rc, out, err = run(command, str(root), "--env", "dev", "--plan-digest", digest)
            assert rc == 8, err
            assert "is not the reviewed one" in err and digest in err
    assert ran == ["up"]
    refused = [r for r in receipts(root) if r["outcome"] == "refused"]
    assert len(refused) == 2 and all(r["exit_code"] == 8 and r["reviewed_plan_digest"] != r["plan_digest"] for r in refused)

    # A malformed digest is a usage error: nothing runs, no receipt.
    before = len(receipts(root))
    for bad in ("abc", "0" * 63, "g" * 64, "0" * 65, ""):
        rc, _, err = run("up", str(root), "--env", "dev", "--plan-digest", bad)
        assert rc == 64 and "64 hex digits" in err, (bad, err)
    assert len(receipts(root)) == before and ran == ["up"]
