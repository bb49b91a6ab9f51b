"""Hostile input from outside the editor's buffers (issue 16), against the real runway-lsp
over raw JSON-RPC (tests/rawlsp.py):

- a FIFO named ``runway.yaml`` is never opened: not in the start-up workspace scan, not as
  the parent folder's runway of an opened member, not on a watched-file "created" event, not
  on a pull for an unopened path (opening one blocks until a writer comes: the server froze);
- ``$/cancelRequest`` with a list or object id, and ``%00`` in a URI: no "Error in server";
- ``shutdown`` + ``exit`` right after edits: exit 0, no "I/O operation on closed file";
- cancellation: of ten code-lens requests on a 2,000-workload root with nine cancelled at
  once, the nine answer RequestCancelled (-32800) and never run; a request superseded by a
  newer edit of its document answers ContentModified (-32801).

No timed asserts: every read has a deadline that only a hang reaches (tests/lspclient.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rawlsp import RawServer  # noqa: E402

ROOT = "runway: 1\nproduct: shop\nregion: us-east-1\nmembers:\n  - svc\nenvironments:\n  dev: {}\n"
MEMBER = "runway: 1\nmember: svc\n"
LONE = "runway: 1\nproduct: lone\nregion: us-east-1\nenvironments:\n  dev: {}\n"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


def _hover(server: RawServer, uri: str, msg_id: str) -> dict:
    server.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
                 "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 10}}})
    return server.response(msg_id)


def _still_serving(server: RawServer, folder: Path, tag: str, pull: bool = False) -> None:
    """An unrelated open document is still served: the loop is not blocked on a FIFO."""
    lone = folder / f"elsewhere-{tag}" / "runway.yaml"
    lone.parent.mkdir()
    lone.write_text(LONE)
    server.open(lone.as_uri(), LONE)
    assert "error" not in _hover(server, lone.as_uri(), f"alive-{tag}")
    if pull:
        server.send({"jsonrpc": "2.0", "id": f"pulled-{tag}", "method": "textDocument/diagnostic",
                     "params": {"textDocument": {"uri": lone.as_uri()}}})
        assert server.response(f"pulled-{tag}")["result"]["kind"] == "full"
    else:
        server.wait_publish(lone.as_uri(), 1)


def _finish(server: RawServer) -> str:
    rc, stderr = server.close()
    assert rc == 0, stderr
    assert "Traceback" not in stderr and "Error in server" not in stderr, stderr
    return stderr


def test_fifo_in_the_startup_scan_is_never_opened(tmp_path: Path) -> None:
    (tmp_path / "svc").mkdir()
    os.mkfifo(tmp_path / "svc" / "runway.yaml")
    os.mkfifo(tmp_path / "runway.yml")
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    _still_serving(server, tmp_path, "scan")
    # The FIFOs are not runway files: no diagnostics are published for them.
    assert not server.publishes((tmp_path / "svc" / "runway.yaml").as_uri())
    _finish(server)


def test_fifo_as_the_parent_runway_of_an_opened_member_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "runway.yaml")
    member = tmp_path / "svc" / "runway.yaml"
    member.parent.mkdir()
    member.write_text(MEMBER)
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    server.open(member.as_uri(), MEMBER)
    assert "error" not in _hover(server, member.as_uri(), "member")
    published = server.wait_publish(member.as_uri(), 1)
    assert published["diagnostics"], "a member no root lists is told so"
    _still_serving(server, tmp_path, "member")
    _finish(server)


def test_fifo_on_a_watched_file_created_event_is_never_opened(tmp_path: Path) -> None:
    (tmp_path / "runway.yaml").write_text(ROOT)
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "runway.yaml").write_text(MEMBER)
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    server.open((tmp_path / "runway.yaml").as_uri(), ROOT)
    server.wait_publish((tmp_path / "runway.yaml").as_uri(), 1)
    new = tmp_path / "new" / "runway.yaml"
    new.parent.mkdir()
    os.mkfifo(new)
    server.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
                 "params": {"changes": [{"uri": new.as_uri(), "type": 1}]}})
    _still_serving(server, tmp_path, "watched")
    _finish(server)


def test_fifo_pulled_while_not_open_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "runway.yaml"
    os.mkfifo(fifo)
    server = RawServer(tmp_path)
    server.initialize(tmp_path, {"textDocument": {"diagnostic": {}}})
    server.send({"jsonrpc": "2.0", "id": "pull", "method": "textDocument/diagnostic",
                 "params": {"textDocument": {"uri": fifo.as_uri()}}})
    answer = server.response("pull")
    assert answer["result"]["kind"] == "full", answer
    _still_serving(server, tmp_path, "pull", pull=True)
    _finish(server)


def test_cancel_request_with_a_list_or_object_id_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "runway.yaml").write_text(LONE)
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    for bad in ([1, 2], {"id": 1}, None, True, 1.5):
        server.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": bad}})
    _still_serving(server, tmp_path, "cancel")
    shown = [m for m in server.notifications("window/showMessage") if m["params"]["type"] == 1]
    assert not shown, shown  # no "Error in server" pop-up
    stderr = _finish(server)
    assert "ignoring $/cancelRequest" in stderr


def test_nul_in_a_uri_is_an_ordinary_buffer(tmp_path: Path) -> None:
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    uri = (tmp_path / "a").as_uri() + "%00b/runway.yaml"
    server.open(uri, LONE)
    assert "error" not in _hover(server, uri, "nul")
    server.wait_publish(uri, 1)
    server.send({"jsonrpc": "2.0", "id": "pull-nul", "method": "textDocument/diagnostic",
                 "params": {"textDocument": {"uri": (tmp_path / "c").as_uri() + "%00/runway.yaml"}}})
    assert "result" in server.response("pull-nul")
    shown = [m for m in server.notifications("window/showMessage") if m["params"]["type"] == 1]
    assert not shown, shown
    _finish(server)


def test_shutdown_and_exit_right_after_edits_exit_cleanly(tmp_path: Path) -> None:
    """The debounced publication of the last edits was still scheduled when ``exit`` closed
    stdout (2 in 40 runs: "I/O operation on closed file"). Twelve runs, each ending in a
    burst of edits, a pending code-lens request, ``shutdown`` and ``exit`` written at once."""
    root = tmp_path / "runway.yaml"
    root.write_text(LONE)
    for run in range(12):
        server = RawServer(tmp_path)
        server.initialize(tmp_path)
        server.open(root.as_uri(), LONE)
        server.wait_publish(root.as_uri(), 1)
        burst = []
        for v in range(2, 8):
            burst.append({"jsonrpc": "2.0", "method": "textDocument/didChange",
                          "params": {"textDocument": {"uri": root.as_uri(), "version": v},
                                     "contentChanges": [{"text": LONE + f"# edit {v}\n"}]}})
        burst.append({"jsonrpc": "2.0", "id": "lens", "method": "textDocument/codeLens", "params": {"textDocument": {"uri": root.as_uri()}}})
        burst.append({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        burst.append({"jsonrpc": "2.0", "method": "exit"})
        data = b"".join(b"Content-Length: %d\r\n\r\n" % len(b) + b for b in (__import__("json").dumps(m).encode() for m in burst))
        server.proc.stdin.write(data)
        server.proc.stdin.flush()
        server.proc.stdin.close()
        rc = server.proc.wait(30)
        server.stderr.seek(0)
        stderr = server.stderr.read().decode("utf-8", "replace")
        assert rc == 0, (run, stderr)
        assert "closed file" not in stderr and "Traceback" not in stderr, (run, stderr)


def _big_root(workloads: int) -> str:
    lines = ["runway: 1", "product: big", "region: us-east-1", "environments:", "  dev:", "    limits: {monthly: 100000000}", "workloads:"]
    for i in range(workloads):
        lines += [f"  w{i}:", f"    image: ghcr.io/acme/w{i}:1.0.0", "    port: 8080", "    health: {path: /health}",
                  "    expose: internal", "    reason: \"no-managed-fit: a service of ours\""]
    return "\n".join(lines) + "\n"


def test_nine_of_ten_cancelled_code_lens_requests_never_run(tmp_path: Path) -> None:
    root = tmp_path / "runway.yaml"
    text = _big_root(2000)
    root.write_text(text)
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    server.open(root.as_uri(), text)
    server.wait_publish(root.as_uri(), 1, timeout=120)
    td = {"textDocument": {"uri": root.as_uri()}}
    msgs = [{"jsonrpc": "2.0", "id": f"lens-{i}", "method": "textDocument/codeLens", "params": td} for i in range(10)]
    msgs += [{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": f"lens-{i}"}} for i in range(9)]
    import json

    server.proc.stdin.write(b"".join(b"Content-Length: %d\r\n\r\n" % len(b) + b for b in (json.dumps(m).encode() for m in msgs)))
    server.proc.stdin.flush()
    answers = [server.response(f"lens-{i}", timeout=120) for i in range(10)]
    cancelled = [a for a in answers[:9] if a.get("error", {}).get("code") == -32800]
    # Each lens request costs the same: had the cancelled ones run, they would have answered
    # lenses. At most the first may have started before its cancellation was read.
    assert len(cancelled) >= 8, answers[:9]
    assert isinstance(answers[9].get("result"), list) and answers[9]["result"], answers[9]
    # Superseded: a lens request, then an edit of its document in the same write.
    end = text.count("\n")
    edit = {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": root.as_uri(), "version": 2},
                       "contentChanges": [{"range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}}, "text": "# edited\n"}]}}
    stale = {"jsonrpc": "2.0", "id": "stale", "method": "textDocument/codeLens", "params": td}
    fresh = {"jsonrpc": "2.0", "id": "fresh", "method": "textDocument/codeLens", "params": td}
    server.proc.stdin.write(b"".join(b"Content-Length: %d\r\n\r\n" % len(b) + b for b in (json.dumps(m).encode() for m in (stale, edit, fresh))))
    server.proc.stdin.flush()
    assert server.response("stale", timeout=120).get("error", {}).get("code") == -32801  # ContentModified
    assert server.response("fresh", timeout=120).get("result")
    _finish(server)
