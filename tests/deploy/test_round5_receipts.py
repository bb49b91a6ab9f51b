"""Round 5 (issue 23): the fresh adversary's findings against ``receipts`` and ``state check``
(docs/reliability.md, "Round 5").

- F01/F02: an AWS configuration botocore refuses (a profile that does not exist, an
  unparsable config file, a bogus ``AWS_DEFAULTS_MODE`` / ``AWS_REQUEST_CHECKSUM_CALCULATION``
  / ``AWS_ACCOUNT_ID_ENDPOINT_MODE``) was exit 70: the boto3 session and client were built
  outside the store's error handling. The exceptions are botocore's own (botocore/exceptions.py
  of the installed botocore: ``ProfileNotFound``, ``ConfigParseError``, ``InvalidDefaultsMode``,
  ``InvalidChecksumConfigError``, ``InvalidConfigError``, all ``BotoCoreError``), raised by
  ``boto3.session.Session(profile_name=...)`` and ``Session.client(...)``; botocore reads these
  variables from ``os.environ`` (botocore/configprovider.py,
  ``BOTOCORE_DEFAUT_SESSION_VARIABLES``), so the tests set them there.
- F03/F04: a receipt file the user cannot read (mode 000, the command run as uid 65534:
  tests/unprivileged.py) or a self-loop symlink (ELOOP) was exit 70.
- F07: an S3 endpoint dripping a valid ``ListObjectsV2`` answer kept ``receipts`` running
  for ever; each store operation now has a total deadline (``RUNWAY_STORE_TIMEOUT_S``).
- F10: a key not named like a receipt sorted after the receipts and took the ``--limit 1``
  slot of the newest one.
- F11: a receipt without ``exit_code`` was listed as ``exit None``; duplicate JSON keys were
  accepted silently (and so in a reviewed plan).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from test_deploy_cli import NETWORK, deploy, found_pulumi, orders  # noqa: F401
from unprivileged import run_as_nobody, unprivileged  # noqa: F401

T1 = datetime(2026, 11, 30, 9, 1, tzinfo=timezone.utc)
T2 = datetime(2026, 11, 30, 9, 2, tzinfo=timezone.utc)
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYround5SECRET"

pytestmark = pytest.mark.usefixtures("account_checks_pass")


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    """``os.environ`` without any AWS setting of the machine (botocore reads it directly), an
    empty AWS config file and credentials file; returns a setter for one test's variables."""
    for name in list(os.environ):
        if name.startswith("AWS_") or name.startswith("PULUMI_"):
            monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "aws-empty"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")

    def setenv(**values: str) -> dict[str, str]:
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        return dict(os.environ)

    return setenv


KEYS = {"AWS_ACCESS_KEY_ID": "AKIAROUND5EXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9"}

# (id, variables, the backend URL's query, what the message must name)
BAD_CONFIG = [
    ("AWS_PROFILE", {"AWS_PROFILE": "nosuch", "AWS_REGION": "us-east-1"}, "", ["AWS_PROFILE", "nosuch"]),
    ("url-profile", {"AWS_REGION": "us-east-1"}, "?profile=nosuch", ["profile=", "nosuch"]),
    ("AWS_CONFIG_FILE", {**KEYS, "AWS_CONFIG_FILE": "@garbage"}, "", ["AWS_CONFIG_FILE", "Unable to parse config file"]),
    ("AWS_DEFAULTS_MODE", {**KEYS, "AWS_DEFAULTS_MODE": "bogus"}, "", ["AWS_DEFAULTS_MODE", "bogus"]),
    ("AWS_REQUEST_CHECKSUM_CALCULATION", {**KEYS, "AWS_REQUEST_CHECKSUM_CALCULATION": "bogus"}, "",
     ["AWS_REQUEST_CHECKSUM_CALCULATION", "bogus"]),
    ("AWS_ACCOUNT_ID_ENDPOINT_MODE", {**KEYS, "AWS_ACCOUNT_ID_ENDPOINT_MODE": "bogus"}, "", ["AWS_ACCOUNT_ID_ENDPOINT_MODE", "bogus"]),
]


def _bad_env(aws_env, tmp_path: Path, variables: dict[str, str]) -> dict[str, str]:
    variables = dict(variables)
    if variables.get("AWS_CONFIG_FILE") == "@garbage":
        garbage = tmp_path / "aws-garbage"
        garbage.write_text("[profile x\nfoo")  # botocore's ConfigParseError: "Unable to parse config file: <path>"
        variables["AWS_CONFIG_FILE"] = str(garbage)
    return aws_env(**variables)


@pytest.mark.parametrize("what, variables, query, named", BAD_CONFIG, ids=[c[0] for c in BAD_CONFIG])
def test_an_aws_configuration_botocore_refuses_is_exit_3_naming_the_setting(capsys, tmp_path, aws_env, what, variables, query, named):
    root = orders(tmp_path)
    environ = _bad_env(aws_env, tmp_path, variables)
    url = f"s3://state-bucket/orders{query}"
    for argv in (["receipts", str(root), "--backend", url], ["state", "check", "--backend", url]):
        rc, out, err = deploy(capsys, *argv, environ=environ)
        assert rc == 3, (argv, err)
        assert "internal error" not in err and "Traceback" not in err, err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err  # one clear line
        assert all(n in lines[0] for n in named), (named, lines[0])
        assert "AWS configuration" in lines[0], lines[0]
        assert SECRET not in out + err
        rc, out, err = deploy(capsys, *argv, "--format", "json", environ=environ)
        assert rc == 3 and json.loads(out)["error"]["exit_code"] == 3, out
        assert SECRET not in out + err


def test_preview_with_an_unusable_aws_profile_for_its_s3_records_is_exit_3(capsys, tmp_path, aws_env):
    """The records store is opened when a deploy starts (deploy_engine/pipeline/run.py): a profile
    botocore cannot find is a configuration problem, exit 3, like every other."""
    root = orders(tmp_path)
    environ = aws_env(AWS_PROFILE="nosuch", AWS_REGION="us-east-1", PULUMI_CONFIG_PASSPHRASE="x", **NETWORK)
    rc, _, err = deploy(capsys, "preview", str(root), "--env", "dev", "--backend", "s3://state-bucket/orders",
                        environ=environ, which=found_pulumi)
    assert rc == 3, err
    assert "internal error" not in err and "configuration:" in err and "AWS_PROFILE" in err and "nosuch" in err, err


def test_the_pre_flight_clients_go_through_the_same_helper(aws_env, monkeypatch):
    from deploy_engine import preflight

    environ = aws_env(AWS_PROFILE="nosuch")
    with pytest.raises(preflight.PreflightError, match="AWS_PROFILE"):
        preflight.aws_client("ec2", "us-east-1", environ)
    monkeypatch.delenv("AWS_PROFILE")  # botocore reads it from os.environ too
    environ = aws_env(AWS_DEFAULTS_MODE="bogus", **KEYS)
    with pytest.raises(preflight.PreflightError, match="AWS_DEFAULTS_MODE"):
        preflight.aws_client("rds", "us-east-1", environ)


# --------------------------------------------------------------------------------------
# F03 / F04: receipt files that cannot be read
# --------------------------------------------------------------------------------------


def _file_receipt(capsys, root: Path, clock: datetime) -> Path:
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ={}, clock=lambda: clock)
    assert rc == 4, err  # not the protected job: refused, its receipt written under .runway/
    return max((root / ".runway" / "receipts" / "dev").glob("*.json"))


def test_an_unreadable_receipt_file_is_listed_unreadable_and_the_run_goes_on(capsys, unprivileged):
    """Root reads a mode-000 file, so the listing runs as uid 65534 (tests/unprivileged.py) in
    a folder that user can reach; the other receipt is still listed (exit 0)."""
    from test_permissions import deploy_cli, product

    root = product(unprivileged)
    good = _file_receipt(capsys, root, T1)
    hidden = good.with_name("20261130T090300.000000Z.json")
    shutil.copy(good, hidden)
    for p in [root / ".runway", *(root / ".runway").rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    hidden.chmod(0o000)
    got = run_as_nobody(deploy_cli("receipts", str(root), "--env", "dev", "--format", "json"), unprivileged)
    assert got.returncode == 0, (got.returncode, got.stderr)
    assert "internal error" not in got.stderr
    rows = {Path(r["key"]).name: r for r in json.loads(got.stdout)["receipts"]}
    assert rows[good.name].get("receipt", {}).get("outcome") == "refused", rows
    error = rows[hidden.name]["error"]
    assert error.startswith("unreadable: ") and "Permission denied" in error, error


# A05: a folder of the store this user cannot search or list (uid 65534: tests/unprivileged.py)
# was exit 70 (`.runway/` mode 0700: pathlib's is_dir raises PermissionError for EACCES) or a
# silent "0 receipt(s)" and an empty SHA256SUMS export (`receipts/dev/` mode 0700: scandir's
# error was skipped). Either is exit 3 naming the folder.


def _unsearchable(capsys, unprivileged: Path, which: str) -> tuple[Path, Path]:
    from test_permissions import product

    root = product(unprivileged)
    _file_receipt(capsys, root, T1)
    for p in [root / ".runway", *(root / ".runway").rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    blocked = root / ".runway" if which == "store" else root / ".runway" / "receipts" / "dev"
    blocked.chmod(0o700)  # root's: uid 65534 can neither search nor list it
    return root, blocked


@pytest.mark.parametrize("which", ["store", "environment"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_store_folder_the_user_cannot_list_is_exit_3_naming_it(capsys, unprivileged, which, fmt):
    from test_permissions import deploy_cli

    root, blocked = _unsearchable(capsys, unprivileged, which)
    got = run_as_nobody(deploy_cli("receipts", str(root), "--env", "dev", "--format", fmt), unprivileged)
    assert got.returncode == 3, (got.returncode, got.stdout, got.stderr)
    assert "internal error" not in got.stderr and "Traceback" not in got.stderr, got.stderr
    assert str(blocked) in got.stderr and "Permission denied" in got.stderr, got.stderr
    assert "0 receipt(s)" not in got.stdout
    if fmt == "json":
        assert json.loads(got.stdout)["error"]["exit_code"] == 3


@pytest.mark.parametrize("which", ["store", "environment"])
def test_an_export_from_a_store_folder_the_user_cannot_list_writes_nothing(capsys, unprivileged, which):
    from test_permissions import deploy_cli

    root, blocked = _unsearchable(capsys, unprivileged, which)
    out = unprivileged / "audit"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    got = run_as_nobody(deploy_cli("receipts", "export", "--to", str(out), str(root), "--env", "dev"), unprivileged)
    assert got.returncode == 3, (got.returncode, got.stdout, got.stderr)
    assert str(blocked) in got.stderr, got.stderr
    assert not (out / "SHA256SUMS").exists() and list(out.iterdir()) == []


def test_a_self_loop_symlink_among_the_receipts_is_listed_unreadable(capsys, tmp_path):
    root = orders(tmp_path)
    good = _file_receipt(capsys, root, T1)
    loop = good.with_name("20261130T090300.000000Z.json")
    os.symlink(loop.name, loop)  # ln -s x.json x.json: ELOOP on open
    for fmt in ("text", "json"):
        rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", "--format", fmt, environ={})
        assert rc == 0, err
        assert "internal error" not in err
        assert "unreadable" in out and "Too many levels of symbolic links" in out, out
    rows = json.loads(out)["receipts"]
    assert [("error" in r) for r in rows] == [False, True], rows


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_fifo_or_folder_under_a_receipt_name_is_unreadable_and_fails_the_export(capsys, tmp_path, kind):
    """Third adversary, round 5 (T5): a FIFO or a folder named like a receipt was left out of
    the listing (`0 receipt(s)` beside the good one's absence of a warning) and `export` exited
    0 without it; read() refuses both, so the listing now names it and export fails (exit 3)."""
    root = orders(tmp_path)
    good = _file_receipt(capsys, root, T1)
    odd = good.with_name("20261130T090300.000000Z.json")
    if kind == "fifo":
        os.mkfifo(odd)
    else:
        odd.mkdir()
        (odd / "inner.json").write_text("{}")
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", "--format", "json", environ={})
    assert rc == 0, err
    rows = {Path(r["key"]).name: r for r in json.loads(out)["receipts"]}
    assert set(rows) == {good.name, odd.name}, rows
    assert rows[odd.name]["error"].startswith("unreadable: ") and "not a regular file" in rows[odd.name]["error"], rows
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", environ={})
    assert rc == 0 and "unreadable" in out, out
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "audit"), environ={})
    assert rc == 3 and odd.name in err, err


@pytest.mark.parametrize("which", ["env folder", "receipts folder"])
def test_a_receipts_folder_linked_out_of_the_store_is_exit_3_never_zero_receipts(capsys, tmp_path, which):
    """Fifth adversary: `.runway/receipts/dev -> elsewhere` (or `.runway/receipts` itself) was
    skipped in silence: `0 receipt(s)`, and an export with an empty SHA256SUMS, exit 0."""
    root = orders(tmp_path)
    good = _file_receipt(capsys, root, T1)
    linked = good.parent if which == "env folder" else good.parent.parent
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(linked), str(elsewhere))
    os.symlink(elsewhere, linked)
    for fmt in ("text", "json"):
        rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", "--format", fmt, environ={})
        assert rc == 3 and "not followed" in err and str(linked) in err, (rc, out, err)
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "audit"), environ={})
    assert rc == 3 and "not followed" in err, err
    assert not (tmp_path / "audit" / "SHA256SUMS").exists()


# --------------------------------------------------------------------------------------
# F07: an endpoint that drips its answer
# --------------------------------------------------------------------------------------

# A ListObjectsV2 answer as S3 sends it (Amazon S3 API Reference, "ListObjectsV2", Response
# Syntax: ListBucketResult in the 2006-03-01 namespace): valid, and sent 1 byte every 2 s.
LIST_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
             b'<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>state-bucket</Name>'
             b'<Prefix>orders/runway/receipts/orders/dev/</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys>'
             b'<IsTruncated>false</IsTruncated></ListBucketResult>')


class _Drip(BaseHTTPRequestHandler):
    stop = threading.Event()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(LIST_BODY)))
        self.send_header("x-amz-request-id", "ROUND5DRIP")
        self.end_headers()
        for i in range(len(LIST_BODY)):
            if self.stop.wait(2.0):
                return
            try:
                self.wfile.write(LIST_BODY[i:i + 1])
                self.wfile.flush()
            except OSError:
                return

    do_HEAD = do_POST = do_GET  # EC2, RDS, ECS and SSM requests are POSTs (query and JSON protocols)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def dripping_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    server.daemon_threads = True
    _Drip.stop.clear()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        _Drip.stop.set()
        server.shutdown()
        server.server_close()


def _drip_env(endpoint: str, timeout: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PULUMI_", "RUNWAY_"))}
    env.update(KEYS, AWS_ENDPOINT_URL_S3=endpoint, AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
               NO_PROXY="127.0.0.1,localhost", RUNWAY_STORE_TIMEOUT_S=timeout)
    return env


def _timed(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """The CLI in a child process, bounded: before the deadline existed the drip (277 bytes, 2 s
    each: ~9 minutes) made this raise TimeoutExpired after 40 s (the child is killed)."""
    start = time.monotonic()
    got = subprocess.run([sys.executable, "-m", "deploy_engine", *argv], env=env, capture_output=True, text=True,
                         timeout=40, check=False)
    return got, time.monotonic() - start


def test_a_dripping_s3_endpoint_ends_at_the_store_deadline_with_exit_3(tmp_path, dripping_endpoint):
    root = orders(tmp_path)
    env = _drip_env(dripping_endpoint, "3")
    argv = ["receipts", str(root), "--env", "dev", "--backend", "s3://state-bucket/orders"]
    got, took = _timed(argv, env)
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert "RUNWAY_STORE_TIMEOUT_S" in got.stderr and "3 s" in got.stderr, got.stderr
    assert "internal error" not in got.stderr and SECRET not in got.stderr
    assert took < 30, took  # a 3 s deadline plus the interpreter's start
    for bad in ("0", "-1", "soon", "nan"):
        got, _ = _timed(argv, {**env, "RUNWAY_STORE_TIMEOUT_S": bad})
        assert got.returncode == 3 and "RUNWAY_STORE_TIMEOUT_S" in got.stderr, (bad, got.stderr)


def test_state_check_ends_at_the_store_deadline_too(dripping_endpoint):
    got, took = _timed(["state", "check", "--backend", "s3://state-bucket/orders"], _drip_env(dripping_endpoint, "2"))
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert "RUNWAY_STORE_TIMEOUT_S" in got.stderr and "internal error" not in got.stderr, got.stderr
    assert took < 30, took


# --------------------------------------------------------------------------------------
# F10 / F11: names and fields of a receipt
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("service", ["ec2", "ssm", "rds", "ecs"])
def test_a_dripping_aws_endpoint_ends_the_pre_flight_at_its_deadline(aws_env, dripping_endpoint, service):
    """The pre-flight's EC2/RDS/ECS/SSM calls (deploy_engine.preflight) had botocore's timeouts
    only, which restart with every byte (round 5 leftover): the drip kept `preview`/`up` in
    the pre-flight for ~9 minutes. Each call now has the store's total deadline."""
    from deploy_engine import preflight

    environ = aws_env(**KEYS, **{f"AWS_ENDPOINT_URL_{service.upper()}": dripping_endpoint}, RUNWAY_STORE_TIMEOUT_S="2",
                      NO_PROXY="127.0.0.1,localhost")
    client = preflight.aws_client(service, "us-east-1", environ)
    # The calls each pre-flight check makes first, through preflight._call as they do (this
    # module's account_checks_pass replaces the checks themselves; their moto runs are in
    # test_preflight.py).
    calls = {
        "ec2": lambda: preflight._call("ec2:DescribeVpcs", client.describe_vpcs),
        "ssm": lambda: preflight._call("ssm:DescribeParameters", client.describe_parameters),
        "rds": lambda: preflight._call("rds:DescribeDBClusters", client.describe_db_clusters, DBClusterIdentifier="x"),
        "ecs": lambda: preflight._call("ecs:DescribeServices", client.describe_services, cluster="orders-dev", services=["api"]),
    }
    start = time.monotonic()
    with pytest.raises(preflight.PreflightError, match="deadline of an AWS call") as caught:
        calls[service]()
    took = time.monotonic() - start
    assert took < 30, took  # the drip lasts ~9 minutes: the bound proves the deadline, not a speed
    assert "RUNWAY_STORE_TIMEOUT_S" in str(caught.value) and SECRET not in str(caught.value)


def test_a_bad_store_deadline_is_a_pre_flight_error(aws_env):
    from deploy_engine import preflight

    with pytest.raises(preflight.PreflightError, match="RUNWAY_STORE_TIMEOUT_S"):
        preflight.aws_client("ec2", "us-east-1", aws_env(**KEYS, RUNWAY_STORE_TIMEOUT_S="soon"))


def test_a_junk_key_never_takes_the_limit_slot_of_the_newest_receipt(capsys, tmp_path):
    root = orders(tmp_path)
    _file_receipt(capsys, root, T1)
    newest = _file_receipt(capsys, root, T2)
    folder = newest.parent
    for junk in ("zzz-junk.json", "20261399T000000.000000Z.json", "latest.json"):
        shutil.copy(newest, folder / junk)  # a whole receipt, under a name that is no UTC time
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", "--limit", "1", "--format", "json", environ={})
    assert rc == 0, err
    doc = json.loads(out)
    good = [r for r in doc["receipts"] if "error" not in r]
    assert [Path(r["key"]).name for r in good] == [newest.name], doc["receipts"]
    bad = {Path(r["key"]).name: r["error"] for r in doc["receipts"] if "error" in r}
    assert set(bad) == {"zzz-junk.json", "20261399T000000.000000Z.json", "latest.json"}, bad
    assert all(e.startswith("unreadable: ") and "UTC" in e for e in bad.values()), bad
    assert doc["omitted"] == 1  # the older real receipt, not a junk key
    rc, out, _ = deploy(capsys, "receipts", str(root), "--env", "dev", "--limit", "1", environ={})
    assert newest.name in out.splitlines()[-2] and "exit 4" in out.splitlines()[-2], out  # the last row: the newest


def test_pruning_skips_a_name_that_is_no_time():
    """``parse_stamp`` took ``20261399T...`` for a time and ``strptime`` raised ValueError."""
    from deploy_engine.records.kinds import parse_stamp

    assert parse_stamp("20261399T000000.000000Z.json") is None
    assert parse_stamp("20261130T090100.000000Z.json") == T1


def _receipt_doc(capsys, root: Path) -> tuple[Path, dict]:
    path = _file_receipt(capsys, root, T1)
    return path, json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("what, change, reason", [
    ("no exit_code", lambda d: d.pop("exit_code"), "no exit_code"),
    ("exit_code null", lambda d: d.__setitem__("exit_code", None), "exit_code must be an integer"),
    ("no command", lambda d: d.pop("command"), "no command"),
    ("no product", lambda d: d.pop("product"), "no product"),
    # Past the bugs list of round 5: a shared bucket's writer could claim these, and both were
    # shown as receipts (exit 2**70; "succeeded" with exit 7, which pipeline/guards.py would take
    # for the last successful up). An exit status is 0-255 (POSIX WEXITSTATUS, the low 8 bits).
    ("exit_code 2**70", lambda d: d.__setitem__("exit_code", 2 ** 70), "exit_code must be a process exit status, 0 to 255"),
    ("exit_code -1", lambda d: d.__setitem__("exit_code", -1), "exit_code must be a process exit status, 0 to 255"),
    ("succeeded with exit 7", lambda d: d.update(outcome="succeeded", exit_code=7), "outcome succeeded with exit_code 7"),
    ("failed with exit 0", lambda d: d.update(outcome="failed", exit_code=0), "outcome failed with exit_code 0"),
])
def test_a_receipt_missing_a_required_field_is_unreadable_with_the_reason(capsys, tmp_path, what, change, reason):
    root = orders(tmp_path)
    path, doc = _receipt_doc(capsys, root)
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", environ={})
    assert rc == 0, err
    assert "exit None" not in out and f"unreadable: {reason}" in out, out


def test_a_receipt_with_a_duplicate_key_is_unreadable(capsys, tmp_path):
    root = orders(tmp_path)
    path, doc = _receipt_doc(capsys, root)
    text = path.read_text(encoding="utf-8")
    # The outcome said twice: which one is true? (json.loads keeps the last one silently.)
    path.write_text(text.replace('"outcome": "refused",', '"outcome": "refused",\n  "outcome": "succeeded",', 1), encoding="utf-8")
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", environ={})
    assert rc == 0, err
    assert "unreadable: invalid JSON (duplicate key 'outcome' in the object at line 1 column 1, of which JSON keeps only the last)" in out and "succeeded" not in out, out


def test_a_reviewed_plan_with_a_duplicate_key_is_refused_the_same_way(tmp_path):
    from deploy_engine.records import open_store
    from deploy_engine.reviewed import StoredPlanInvalid, load_reviewed_plan, plan_key

    root = orders(tmp_path)
    store = open_store("", root, {})
    digest = "ab" * 32
    text = '{"format_version": 1, "plan_digest": "%s", "env_values": "sha256", "plan": {}, "plan": {"region": "x"}}' % digest
    store.create(plan_key(store, "orders", "dev", digest), text.encode())
    with pytest.raises(StoredPlanInvalid, match="duplicate key 'plan'"):
        load_reviewed_plan(store, "orders", "dev", digest)
