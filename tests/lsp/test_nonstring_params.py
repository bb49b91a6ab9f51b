"""A JSON value that is no string where LSP puts a string (``text`` of didOpen and didChange,
``newName`` of rename) is refused like any other params that do not fit their method (eighth
adversary F1): lsprotocol's converter took ``str(value)``, so ``"text": null`` became the
buffer ``None`` and ``newName: ["x"]`` the name ``['x']``. Raw JSON-RPC: no client library
sends such a message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lspclient import EXAMPLES
from rawlsp import RawServer, sha256

NOT_STRINGS = [None, 12345, ["runway: 1"], {"a": 1}, True]


def _server(tmp_path: Path) -> tuple[RawServer, Path]:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    srv = RawServer(ws, hooks=True)
    srv.initialize(ws)
    return srv, ws


@pytest.mark.parametrize("value", NOT_STRINGS, ids=repr)
def test_didopen_with_a_non_string_text_opens_no_buffer(tmp_path: Path, value) -> None:
    srv, ws = _server(tmp_path)
    try:
        uri = (ws / "other" / "runway.yaml").as_uri()
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                  "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": value}}})
        srv.send({"jsonrpc": "2.0", "id": "t", "method": "runway/_documentText", "params": {"uri": uri}})
        answer = srv.response("t")
        # no buffer was opened: the document is unknown (no text of str(value))
        result = answer.get("result")
        assert result is None or result.get("sha256") != sha256(str(value)), answer
    finally:
        rc, err = srv.close()
    assert rc == 0
    assert "ignoring a textDocument/didOpen notification: its params do not fit the method" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("value", NOT_STRINGS, ids=repr)
def test_didchange_with_a_non_string_text_leaves_the_buffer(tmp_path: Path, value) -> None:
    srv, ws = _server(tmp_path)
    try:
        path = ws / "runway.yaml"
        text = path.read_text(encoding="utf-8")
        srv.open(path.as_uri(), text)
        srv.wait_publish(path.as_uri(), 1)
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                  "params": {"textDocument": {"uri": path.as_uri(), "version": 2}, "contentChanges": [{"text": value}]}})
        srv.send({"jsonrpc": "2.0", "id": "t", "method": "runway/_documentText", "params": {"uri": path.as_uri()}})
        result = srv.response("t")["result"]
        assert result["sha256"] == sha256(text)
        assert result["sha256"] != sha256(str(value))
    finally:
        rc, err = srv.close()
    assert rc == 0
    assert "ignoring a textDocument/didChange notification: its params do not fit the method" in err


@pytest.mark.parametrize("value", [None, ["abc"], {"x": "y"}, 7], ids=repr)
def test_rename_with_a_non_string_new_name_is_invalid_params(tmp_path: Path, value) -> None:
    srv, ws = _server(tmp_path)
    try:
        path = ws / "runway.yaml"
        srv.open(path.as_uri(), path.read_text(encoding="utf-8"))
        srv.wait_publish(path.as_uri(), 1)
        srv.send({"jsonrpc": "2.0", "id": "r", "method": "textDocument/rename",
                  "params": {"textDocument": {"uri": path.as_uri()}, "position": {"line": 0, "character": 0}, "newName": value}})
        answer = srv.response("r")
        assert answer.get("error", {}).get("code") == -32602, answer
    finally:
        rc, _ = srv.close()
    assert rc == 0


def test_optional_strings_still_take_null(tmp_path: Path) -> None:
    """``rootUri: null`` and ``clientInfo.version`` absent/null are what the spec allows."""
    ws = tmp_path.resolve()
    srv = RawServer(ws)
    try:
        srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "clientInfo": {"name": "x", "version": None},
                             "locale": None, "capabilities": {}}})
        assert "capabilities" in srv.response("init")["result"]
    finally:
        rc, _ = srv.close()
    assert rc == 0
