"""The records store against the sixth fresh adversary's inputs (issue 23, round 5).

- F7: an "S3-compatible" endpoint whose GetObject answer has no ``ETag`` (S3 always sends one:
  Amazon S3 API Reference, GetObject "Response Syntax"). The endpoint is a real HTTP server on
  127.0.0.1 speaking the two calls ``receipts`` makes (ListObjectsV2, GetObject) as S3's REST API
  documents them; botocore parses its answers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from test_deploy_cli import orders  # noqa: F401

KEY = "orders/runway/receipts/orders/dev/20261203T181808.734108Z.json"
RECEIPT = (b'{"format_version":1,"command":"up","product":"orders","environment":"dev","outcome":"failed",'
           b'"exit_code":5,"started_at":"2026-12-03T18:18:08.734108Z"}')


class _NoETag(BaseHTTPRequestHandler):
    """ListObjectsV2 lists one receipt under dev/; GetObject returns it without an ETag header."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if "list-type=2" in self.path:
            contents = (f"<Contents><Key>{KEY}</Key><Size>{len(RECEIPT)}</Size></Contents>"
                        if "receipts%2Forders%2Fdev" in self.path or "receipts/orders/dev" in self.path else "")
            body = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                    f"<Name>state-bucket</Name><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>").encode()
        else:
            body = RECEIPT
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def no_etag_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NoETag)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_getobject_answer_without_an_etag_is_an_unreadable_receipt_never_exit_70(tmp_path, no_etag_endpoint):
    # Before: `receipts` exited 70 (KeyError: 'ETag' in s3_store._read).
    root = orders(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PULUMI_", "RUNWAY_"))}
    env.update(AWS_ACCESS_KEY_ID="AKIAADV6EXAMPLE", AWS_SECRET_ACCESS_KEY="adv6-not-a-secret", AWS_REGION="us-east-1",
               AWS_ENDPOINT_URL_S3=no_etag_endpoint, AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
               NO_PROXY="127.0.0.1,localhost", RUNWAY_STORE_TIMEOUT_S="10")
    got = subprocess.run([sys.executable, "-m", "deploy_engine", "receipts", str(root), "--env", "dev",
                          "--backend", "s3://state-bucket/orders"], env=env, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, (got.returncode, got.stderr)
    assert "internal error" not in got.stderr
    assert "unreadable: read s3://state-bucket/" in got.stdout and "answered without an ETag" in got.stdout, got.stdout
    # The export names it and refuses (exit 3), writing no receipt.
    out = tmp_path / "mirror"
    got = subprocess.run([sys.executable, "-m", "deploy_engine", "receipts", "export", str(root), "--to", str(out),
                          "--backend", "s3://state-bucket/orders"], env=env, capture_output=True, text=True, timeout=60)
    assert got.returncode == 3 and "answered without an ETag" in got.stderr, (got.returncode, got.stderr)
    assert not out.exists() or not list(out.rglob("*.json"))


# --------------------------------------------------------------------------------------
# F5: amounts and seconds in ASCII digits only
# --------------------------------------------------------------------------------------

NOT_ASCII = ["\u0661\u0660\u0660", "\uff11\uff10\uff10", "1_00", "1e2", "inf", "nan", "\u0665"]


@pytest.mark.parametrize("value", NOT_ASCII)
def test_max_increase_is_ascii_digits_only(value):
    # `١٠٠` (Arabic-Indic) and `１００` (full-width) were read as 100 (re's \d is Unicode);
    # action.yml checks `max-increase` with `[0-9]`, so the action and the CLI disagreed.
    from deploy_engine.cli.commands.diff import _usd

    with pytest.raises(Exception, match="is not an amount in USD"):
        _usd(value)
    assert str(_usd("$1,000.50")) == "1000.50" and str(_usd("100")) == "100"


@pytest.mark.parametrize("value", NOT_ASCII)
def test_timeouts_are_ascii_digits_only(value):
    import argparse

    from deploy_engine.pricelist.command import _seconds
    from deploy_engine.records.s3_store import StoreConfigError, store_deadline

    with pytest.raises(argparse.ArgumentTypeError, match="is not a number of seconds"):
        _seconds(value)
    with pytest.raises(StoreConfigError, match="RUNWAY_STORE_TIMEOUT_S must be a number of seconds"):
        store_deadline({"RUNWAY_STORE_TIMEOUT_S": value})
    assert _seconds("2.5") == 2.5 and _seconds(".5") == 0.5 and store_deadline({"RUNWAY_STORE_TIMEOUT_S": " 30 "}) == 30.0


# --------------------------------------------------------------------------------------
# F10: SIGTERM during `diff --base` removes the revision's tree
# --------------------------------------------------------------------------------------


def _diff_base_held_in_extraction(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository with the orders product committed, and (TMPDIR, environment) for a `diff
    --base` whose `git` on PATH waits before `cat-file --batch`: the run is held inside the
    extraction of REV's tree, with `waiting` touched in ``tmp_path`` once it is."""
    repo = tmp_path / "repo"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "orders", repo / "products" / "orders")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    shim = tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    (shim / "git").write_text(f'#!/bin/sh\ncase " $* " in *" cat-file --batch "*) touch "{tmp_path}/waiting"; exec sleep 30;; esac\nexec {real} "$@"\n')
    (shim / "git").chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PATH": f"{shim}:{os.environ['PATH']}", "TMPDIR": str(temp), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return temp, env


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_sigterm_during_diff_base_removes_the_revisions_tree_and_exits_143(tmp_path):
    # Before: SIGTERM (what CI sends on cancel or timeout) killed the process with Python's
    # default action, leaving `runway-diff-*` (the product's whole tree at REV) in $TMPDIR.
    # A `git` on PATH that waits before `cat-file` holds the run inside the extraction.
    import signal
    import time

    temp, env = _diff_base_held_in_extraction(tmp_path)
    repo = tmp_path / "repo"
    proc = subprocess.Popen([sys.executable, "-m", "deploy_engine", "diff", "products/orders", "--base", "HEAD"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 50
        while not (tmp_path / "waiting").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert (tmp_path / "waiting").exists() and list(temp.glob("runway-diff-*")), "the run never reached the extraction"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=50)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143 and "terminated (SIGTERM)" in err, (proc.returncode, err)
    assert list(temp.iterdir()) == [], list(temp.iterdir())


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(("signals", "code", "said"), [(("SIGHUP",), 129, "terminated (SIGHUP)"), (("SIGQUIT",), 131, "terminated (SIGQUIT)"),
                                                       (("SIGINT", "SIGINT"), 130, "interrupted"), (("SIGTERM", "SIGHUP"), 143, "terminated (SIGTERM)")],
                         ids=["hup", "quit", "int-twice", "term-then-hup"])
def test_other_ending_signals_during_diff_base_remove_the_revisions_tree(tmp_path, signals, code, said):
    """Tenth adversary C5: SIGHUP (a closed terminal or ssh session), SIGQUIT, or a second
    Ctrl-C 20 ms after the first killed the run with the signal's default action, leaving the
    product's tree at REV (196 MB in the report) in $TMPDIR. They now end it as SIGTERM does:
    exit 128 + the signal, the tree removed; a signal during that cleanup is ignored."""
    import signal
    import time

    temp, env = _diff_base_held_in_extraction(tmp_path)
    repo = tmp_path / "repo"
    proc = subprocess.Popen([sys.executable, "-m", "deploy_engine", "diff", "products/orders", "--base", "HEAD"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 50
        while not (tmp_path / "waiting").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert (tmp_path / "waiting").exists() and list(temp.glob("runway-diff-*")), "the run never reached the extraction"
        for i, name in enumerate(signals):
            if i:
                time.sleep(0.02)
            proc.send_signal(getattr(signal, name))
        out, err = proc.communicate(timeout=50)
    finally:
        if proc.poll() is None:
            proc.kill()
    # A second signal that comes after the cleanup, while the interpreter is exiting (Python
    # restores the default handlers as it finalizes), may still end the process by its default
    # action: what matters is that the tree was removed and the first signal's message said.
    late = -getattr(signal, signals[-1]) if len(signals) > 1 else None
    assert proc.returncode in (code, late) and said in err, (proc.returncode, err)
    assert list(temp.iterdir()) == [], list(temp.iterdir())
