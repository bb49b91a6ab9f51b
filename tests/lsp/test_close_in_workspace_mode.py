"""Closing a file in the ``workspace`` diagnostic mode (the default) keeps the problems the
scan reported for the product's files on disk (round 3, a fresh reviewer: opening and closing
a member without an edit erased the root's RW140 until the next scan, in a client without
code lenses). Raw JSON-RPC, the reviewer's capabilities."""

from __future__ import annotations

import shutil
from pathlib import Path

from lspclient import EXAMPLES
from rawlsp import RawServer

CAPS = {"textDocument": {"synchronization": {"didSave": True}, "publishDiagnostics": {"versionSupport": True},
                         "hover": {"contentFormat": ["markdown", "plaintext"]}},
        "workspace": {"workspaceFolders": True}, "general": {"positionEncodings": ["utf-16"]}}


def _codes(srv: RawServer, path: Path) -> list[str]:
    got = srv.publishes(path.as_uri())
    return sorted(d.get("code") for d in got[-1]["diagnostics"]) if got else []


def _open_and_close(tmp_path: Path, opened: str) -> tuple[list[str], list[str]]:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    root, path = ws / "runway.yaml", ws / opened
    srv = RawServer(ws)
    try:
        srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                  "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": CAPS,
                             "workspaceFolders": [{"uri": ws.as_uri(), "name": "orders"}]}})
        srv.response("init")
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        srv.send({"jsonrpc": "2.0", "id": "sym", "method": "workspace/symbol", "params": {"query": ""}})
        srv.response("sym")  # answered once the start-up scan is over
        srv.drain(0.5)
        scanned = _codes(srv, root)
        srv.open(path.as_uri(), path.read_text(encoding="utf-8"))
        srv.wait_publish(path.as_uri(), 1)
        srv.drain(0.5)
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": path.as_uri()}}})
        srv.drain(1.0)
        closed = _codes(srv, root)
    finally:
        rc, log = srv.close()
    assert rc == 0 and "Traceback" not in log, log[-2000:]
    return scanned, closed


def test_closing_a_member_keeps_the_roots_problems(tmp_path):
    assert _open_and_close(tmp_path, "services/billing/runway.yaml") == (["RW140"], ["RW140"])


def test_closing_the_root_keeps_its_problems(tmp_path):
    assert _open_and_close(tmp_path, "runway.yaml") == (["RW140"], ["RW140"])
