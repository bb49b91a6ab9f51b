"""Adversary report row L7: the server's stderr (VS Code's "Runway" output channel) quoted
credentials the client sent — settings values and keys, unknown method and command names,
unopened URIs — while every protocol message was redacted. The real runway-lsp over raw
JSON-RPC; its whole stderr is checked (runway_lsp.log_redaction)."""

from __future__ import annotations

import shutil
from pathlib import Path

from rawlsp import RawServer

REPO = Path(__file__).resolve().parents[2]
GITHUB = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def test_the_stderr_log_never_quotes_a_credential(tmp_path):
    folder = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", folder)
    settings = {"catalogPath": f"/tmp/{GITHUB}", "inlayHints": {"environment": AWS_ID}, "AKIAIOSFODNN7EXAMPLF": 1,
                "codeLens": {"enabled": OPENAI}}
    srv = RawServer(folder)
    srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}, "initializationOptions": {"runway": settings}}})
    srv.response("init")
    srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {"runway": settings}}})
    srv.send({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": f"file:///tmp/{AWS_ID}/runway.yaml"}, "position": {"line": 0, "character": 0}}})
    srv.response(1)
    srv.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": f"file:///tmp/{GITHUB}/runway.yaml", "version": 2}, "contentChanges": [{"text": "x"}]}})
    srv.send({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": {"command": GITHUB, "arguments": []}})
    srv.response(2)
    srv.send({"jsonrpc": "2.0", "id": 3, "method": f"{GITHUB}/x", "params": {}})
    srv.response(3)
    srv.send({"jsonrpc": "2.0", "method": f"{GITHUB}/n", "params": {}})
    srv.drain(0.5)
    rc, stderr = srv.close()
    assert rc == 0
    assert "runway settings" in stderr  # the settings were logged (the lines exist, redacted)
    for secret in (GITHUB[:12], AWS_ID[:16], "AKIAIOSFODNN7EXAMPLF", OPENAI[:12]):
        assert secret not in stderr, (secret, stderr[-3000:])
    assert not any(secret in str(m) for m in srv.inbox for secret in (GITHUB, AWS_ID, OPENAI))


def test_stray_writes_to_stderr_are_redacted(tmp_path):
    """Round 3 (issue 16): a warning from a library, a print(), a write to sys.stderr, an
    exception uncaught in a thread and one in a ``__del__`` reached stderr without the log
    formatter, credentials verbatim. The test hook ``runway/_strayOutput`` makes the real
    runway-lsp write each (runway_lsp/server.py); its whole stderr is checked."""
    folder = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", folder)
    srv = RawServer(folder, hooks=True)
    srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}})
    srv.response("init")
    srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    text = f"{GITHUB} and {AWS_ID} and postgres://app:my secret pw@db.example.com:5432/x"
    srv.send({"jsonrpc": "2.0", "id": 1, "method": "runway/_strayOutput", "params": {"text": text}})
    assert srv.response(1).get("result", "no result") is None
    rc, stderr = srv.close()
    assert rc == 0
    for what in ("a library warns about", "a stray write to stdout", "a stray write to stderr", "a thread failed on",
                 "a finaliser failed on"):
        assert what in stderr, (what, stderr[-3000:])  # each was written, redacted
    for secret in (GITHUB[:12], AWS_ID[:16], "my secret"):
        assert secret not in stderr, (secret, stderr[-3000:])
    assert stderr.count("<a value that looks like a secret>") >= 15  # 3 per write, 5 writes
