"""The ninth fresh adversary's CLI findings (issue 23, round 5; /work/adv9c-report).

- C7: a ``REV:PATH`` side naming a member folder was read alone (RW154, no plan) and compared
  as an empty product: exit 0 past a cap and ``--max-increase 0``; a typo'd head ``REV:PATH``
  was "product removed", exit 0. A member at REV now resolves to its root in REV's tree, a lone
  member is refused (exit 3) as ``plan`` refuses it, and an absent head side is exit 3.
- C8: a lease file whose ``taken_at`` or ``expires_at`` is a valid ISO time at the edge of
  datetime's range (``0001-01-01T00:00:00+14:00``: ``astimezone(timezone.utc)`` raises
  OverflowError) made ``destroy``/``up`` exit 70; it is a malformed lease (LeaseError).
- M9: ``RUNWAY_LEASE_SECONDS`` (and an RDS engine version, a stack output's port,
  ``GITHUB_RUN_ID``) took non-ASCII digits (``٣٠``, ``²``) through ``str.isdigit``.
- M11: ``receipts --env prodd`` (undeclared, no receipts) was exit 0 "0 receipt(s)".
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deploy_engine.cli import main
from deploy_engine.leases import LeaseError, acquire, lease_path, lease_ttl, read_lease

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
T0 = datetime(2026, 12, 4, 19, 0, tzinfo=timezone.utc)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ={})
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


# --------------------------------------------------------------------------------------
# C7
# --------------------------------------------------------------------------------------


@pytest.fixture
def overcap_repo(tmp_path, monkeypatch) -> Path:
    """A git work tree holding ``orders/`` (the example: a root and two members); HEAD~1 as
    the example, HEAD with production's cap at $25 (over it)."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    shutil.copytree(ORDERS, ws / "orders")
    root = ws / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")
    root.write_text(root.read_text(encoding="utf-8").replace("      monthly: 2500\n", "      monthly: 25\n", 1), encoding="utf-8")
    git(ws, "commit", "-qam", "production over its cap")
    monkeypatch.chdir(ws)
    return ws


def test_a_rev_member_side_resolves_to_its_root_in_the_revisions_tree(overcap_repo):
    expected = run("diff", "HEAD~1:orders", "HEAD:orders", "--format", "json", "--max-increase", "0")
    assert expected[0] == 2
    for base, head in [("HEAD~1:orders/services/billing", "HEAD:orders/services/billing"),
                       ("HEAD~1:orders/services/billing/runway.yaml", "HEAD:orders/services/checkout"),
                       ("HEAD~1:orders", "HEAD:orders/services/billing")]:
        rc, out, err = run("diff", base, head, "--format", "json", "--max-increase", "0")
        assert rc == 2, (base, head, err)
        doc, want = json.loads(out), json.loads(expected[1])
        assert doc["environments"] == want["environments"] and doc["head_region"] == "us-east-1", (base, head)
    # The working tree's root against the member at HEAD: the same product, no change at all.
    rc, out, err = run("diff", "orders", "HEAD:orders/services/billing", "--format", "json")
    doc = json.loads(out)
    assert rc == 2 and doc["head_region"] == doc["base_region"] == "us-east-1", err
    assert all(e["delta_monthly_usd"] == 0 and e["head_verdict"] for e in doc["environments"]), doc["environments"]
    # --base and the working-tree member agree with it.
    assert run("diff", "orders/services/billing", "--base", "HEAD~1", "--max-increase", "0")[0] == 2


def test_a_rev_member_with_no_root_above_is_refused_as_plan_refuses_it(overcap_repo):
    ws = overcap_repo
    lone = ws / "lone"
    lone.mkdir()
    shutil.copy(ORDERS / "services" / "billing" / "runway.yaml", lone / "runway.yaml")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "a member no root lists")
    assert run("plan", "lone")[0] == 3
    for argv in (["HEAD:lone", "HEAD:orders"], ["HEAD:orders", "HEAD:lone"], ["orders", "lone"]):
        rc, out, err = run("diff", *argv, "--max-increase", "0")
        assert rc == 3 and "no plan: a member runway alone has none" in err, (argv, rc, out, err)


def test_a_head_rev_path_that_does_not_exist_is_exit_3_never_a_removal(overcap_repo):
    rc, out, err = run("diff", "orders", "HEAD:ordrs", "--max-increase", "0")
    assert rc == 3 and "HEAD:ordrs: no such file or folder at HEAD" in err and out == "", (rc, out, err)
    # The base role keeps its documented meaning: a product the change adds.
    rc, out, err = run("diff", "HEAD:ordrs", "HEAD:orders", "--format", "json")
    assert rc == 2 and "counts as added" in err and json.loads(out)["change"] == "added"


# --------------------------------------------------------------------------------------
# C8
# --------------------------------------------------------------------------------------


EDGE_TIMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00.000001+00:01"]


def _lease_doc(**times: str) -> dict:
    doc = {"format_version": 1, "product": "orders", "environment": "dev", "holder": "someone", "pid": 1, "host": "vm",
           "token": "362ddb74adaf4ca0b44754f191be3981", "taken_at": "2026-12-04T18:49:44.209710Z",
           "expires_at": "2026-12-04T19:49:44.209710Z", "takeover": None}
    doc.update(times)
    return doc


@pytest.mark.parametrize("field", ["expires_at", "taken_at"])
@pytest.mark.parametrize("when", EDGE_TIMES)
def test_a_lease_time_utc_cannot_hold_is_a_malformed_lease_never_an_overflow(tmp_path, field, when):
    path = lease_path(tmp_path, "orders", "dev")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_lease_doc(**{field: when})))
    with pytest.raises(LeaseError, match="not a lease file .*delete it if no deploy is running"):
        read_lease(path)
    with pytest.raises(LeaseError, match="not a lease file"):
        acquire(tmp_path, "orders", "dev", holder="bob", clock=lambda: T0)
    assert json.loads(path.read_text())[field] == when  # never taken over blindly


def test_a_lease_at_the_last_utc_second_is_still_a_lease(tmp_path):
    path = lease_path(tmp_path, "orders", "dev")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_lease_doc(expires_at="9999-12-31T23:59:59Z")))
    lease = read_lease(path)
    assert lease is not None and lease.expires_at == datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)


NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0123456789abcdef2,subnet-0123456789abcdef3",
}
INFISICAL_OK = {"INFISICAL_CLIENT_ID": "id", "INFISICAL_CLIENT_SECRET": "client-secret-value-1", "INFISICAL_PROJECT_ID": "p1"}


@pytest.mark.usefixtures("account_checks_pass")
@pytest.mark.parametrize("command", ["up", "destroy"])
def test_up_and_destroy_refuse_an_edge_time_lease_as_not_a_lease_never_exit_70(capsys, tmp_path, monkeypatch, command):
    from deploy_engine import automation

    root = tmp_path / "orders"
    shutil.copytree(ORDERS, root)
    text = (root / "runway.yaml").read_text(encoding="utf-8")
    (root / "runway.yaml").write_text(text.replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    path = lease_path(root, "orders", "dev")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_lease_doc(expires_at="0001-01-01T00:00:00+14:00")))

    def must_not_run(*a, **k):
        raise AssertionError("Pulumi must not run past a lease that cannot be read")

    monkeypatch.setattr(automation, command, must_not_run)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}
    rc = main([command, str(root), "--env", "dev"], environ=environ, clock=lambda: T0,
              which=lambda name, path=None: "/opt/pulumi/bin/pulumi")
    _, err = capsys.readouterr()
    assert rc == 6 and "internal error" not in err, err  # refused as a lease that cannot be read, never 70
    assert "not a lease file" in err and "delete it if no deploy is running" in err, err


# --------------------------------------------------------------------------------------
# M9
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["\u0663\u0660", "\uff13\uff10", "\u00b3", "3\u0660"])
def test_lease_seconds_take_ascii_digits_only(raw):
    with pytest.raises(ValueError, match="RUNWAY_LEASE_SECONDS must be a whole number of seconds"):
        lease_ttl({"RUNWAY_LEASE_SECONDS": raw})
    assert lease_ttl({"RUNWAY_LEASE_SECONDS": " 30 "}) == timedelta(seconds=30)


def test_other_digit_tests_on_input_take_ascii_digits_only():
    """M9's audit: an RDS engine version, a stack output's ``host:port`` and ``GITHUB_RUN_ID``
    read through ``str.isdigit`` took ``²`` (then int() raised) or ``٣``."""
    from deploy_engine.engine_versions import _key
    from deploy_engine.stack_outputs import POSTGRES_PORT, postgres_endpoint

    assert _key("16.\u00b2") == (16, -1) and _key("\u0661\u0666.1") == (-1, 1) and _key("16.4") == (16, 4)
    outputs = {"resources": {"main-db": {"endpoint": "db.example:\u00b2"}}}
    assert postgres_endpoint(outputs, "main-db") == ("db.example", POSTGRES_PORT)
    outputs = {"resources": {"main-db": {"endpoint": "db.example:6543"}}}
    assert postgres_endpoint(outputs, "main-db") == ("db.example", 6543)
    from deploy_engine.cli.formats.sarif import sarif_log

    ids = [sarif_log([], {"GITHUB_RUN_ID": rid})["runs"][0].get("automationDetails", {}).get("id", "") for rid in ("\u0663", "42")]
    assert not ids[0].endswith("\u0663") and ids[1].endswith("/42"), ids


# --------------------------------------------------------------------------------------
# M11
# --------------------------------------------------------------------------------------


def test_receipts_of_an_undeclared_env_are_64_unless_it_has_receipts_then_listed_with_a_warning(tmp_path):
    root = tmp_path / "orders"
    shutil.copytree(ORDERS, root)
    text = (root / "runway.yaml").read_text(encoding="utf-8")
    (root / "runway.yaml").write_text(text.replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    for env, hint in (("prodd", "did you mean production?"), ("DEV", "did you mean dev?")):
        for argv in (["receipts", str(root)], ["receipts", "export", "--to", str(tmp_path / "mirror"), str(root)]):
            rc, out, err = run(*argv, "--env", env)
            assert rc == 64 and f"--env {env}: no such environment in runway.yaml (declared: dev, staging, production)" in err, err
            assert hint in err and "0 receipt(s)" not in out
    assert not (tmp_path / "mirror").exists()
    rc, out, _ = run("receipts", str(root), "--env", "dev")
    assert rc == 0 and "0 receipt(s)" in out  # declared, none yet: nothing to say
    # An environment since removed from the runway: its receipts stay listable (7 years).
    folder = root / ".runway" / "receipts" / "qa"
    folder.mkdir(parents=True)
    (folder / "20260101T000000.000000Z.json").write_text("{}", encoding="utf-8")
    rc, out, err = run("receipts", str(root), "--env", "qa")
    assert rc == 0 and "1 receipt(s) of orders" in out, (out, err)
    assert "warning: --env qa is not declared in runway.yaml (declared: dev, staging, production)" in err


def test_a_rev_member_over_the_size_limit_stops_the_walk_and_never_passes(overcap_repo):
    """find_root never walks past a broken file to a root above; neither does the tree walk:
    a member runway of 1 MiB and more at REV is analysed itself (RW011), an invalid side."""
    ws = overcap_repo
    big = ws / "orders" / "services" / "billing" / "runway.yaml"
    big.write_text(big.read_text(encoding="utf-8") + "# " + "x" * (1024 * 1024) + "\n", encoding="utf-8")
    git(ws, "commit", "-qam", "a member over 1 MiB")
    rc, out, err = run("diff", "HEAD~1:orders", "HEAD:orders/services/billing", "--max-increase", "0")
    assert rc in (1, 3) and "removed" not in out, (rc, out, err)


# --------------------------------------------------------------------------------------
# Tenth adversary C4: a lease's fields are of their own type, its pid one the kernel can have
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("field, value", [("pid", 2**70), ("pid", "4000000"), ("pid", True), ("pid", 4000000.7), ("pid", 0), ("pid", -5),
                                          ("host", None), ("host", 123), ("token", ["t"]), ("holder", {"a": 1})])
def test_a_lease_field_of_another_type_is_not_a_lease_never_coerced_or_exit_70(tmp_path, field, value):
    """`"pid": 2**70` reached `os.kill` (OverflowError: exit 70 in `up`/`destroy`); a string pid
    of a gone process was coerced and taken over before its expiry; `host: null` became the host
    "None". docs/deploy.md "Lease": a field missing or mistyped is never taken over."""
    path = lease_path(tmp_path, "orders", "dev")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_lease_doc(**{field: value})))
    with pytest.raises(LeaseError, match="not a lease file .*delete it if no deploy is running"):
        read_lease(path)
    with pytest.raises(LeaseError, match="not a lease file"):
        acquire(tmp_path, "orders", "dev", holder="bob", clock=lambda: T0)
    assert json.loads(path.read_text())[field] == value  # never taken over


def test_pid_alive_never_raises_for_a_pid_the_kernel_cannot_have():
    from deploy_engine.leases import pid_alive

    assert pid_alive(2**70) is True  # not provably gone: never taken over on its word


# --------------------------------------------------------------------------------------
# Tenth adversary C9: the job's credentials are scrubbed by every deploy command
# --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("account_checks_pass")
@pytest.mark.parametrize("command", ["destroy", "drift", "preview"])
def test_the_infisical_client_secret_never_reaches_the_output_or_the_receipt_of_any_command(capsys, tmp_path, monkeypatch, command):
    """Only `up` registered INFISICAL_CLIENT_SECRET with the redactor, yet every command's Pulumi
    subprocess inherits it: a Pulumi error holding the environment's values (here the stack's
    selection failing with it in its message) put the 64-hex secret on stderr, in the JSON
    result and in the receipt kept 7 years."""
    from deploy_engine import automation

    secret = "9f" * 32
    root = tmp_path / "orders"
    shutil.copytree(ORDERS, root)
    text = (root / "runway.yaml").read_text(encoding="utf-8")
    (root / "runway.yaml").write_text(text.replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")

    def fails_saying_it(target, *a, **k):  # the stack's selection failing as Pulumi reports it, through the real scrubbing
        raise automation._failure("stack selection", RuntimeError(f"error: provider said infisical={secret} passphrase=pp-{secret[:20]}"),
                                  target.redactor)

    monkeypatch.setattr(automation, "open_stack", fails_saying_it)
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK, "INFISICAL_CLIENT_SECRET": secret,
               "PULUMI_CONFIG_PASSPHRASE": f"pp-{secret[:20]}"}
    rc = main([command, str(root), "--env", "dev", "--format", "json"], environ=environ, clock=lambda: T0,
              which=lambda name, path=None: "/opt/pulumi/bin/pulumi")
    out, err = capsys.readouterr()
    assert "provider said" in out + err, (rc, out, err)  # the failure reached the output, scrubbed
    stored = "".join(p.read_text(encoding="utf-8") for p in (root / ".runway").rglob("*.json"))
    for where, text in (("stdout", out), ("stderr", err), ("records", stored)):
        assert secret not in text and f"pp-{secret[:20]}" not in text, where
