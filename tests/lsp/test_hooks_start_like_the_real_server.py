"""A server started with the test hooks (RUNWAY_LSP_TEST_HOOKS=1) starts like the real one
(ninth adversary L14; issue 23).

Registering the hooks read ``server.session``, which built the session before ``initialize``
had arrived, so ``initializationOptions`` were never read: no warning for an unknown setting,
``inlayHints.environment`` not applied. Every test that uses the hooks (tests/e2e's reliability
and edit-sequence tiers) therefore ran a server unlike the one editors start. Raw JSON-RPC over
pipes, with and without the hooks: the same warning, and the hook still answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rawlsp import RawServer

TEXT = "runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  dev: {}\nresources:\n  q: {kind: queue}\n"


@pytest.mark.parametrize("hooks", [False, True], ids=["plain", "with-hooks"])
def test_initialization_options_are_read_with_or_without_the_hooks(tmp_path: Path, hooks: bool):
    folder = tmp_path.resolve()
    (folder / "runway.yaml").write_text(TEXT, encoding="utf-8")
    srv = RawServer(folder, hooks=hooks)
    try:
        srv.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": folder.as_uri(), "capabilities": {},
            "initializationOptions": {"runway": {"bogusKey": 1}}}})
        srv.response(1)
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        uri = (folder / "runway.yaml").as_uri()
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": TEXT}}})
        srv.send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}})
        srv.response(2)  # answered after initialize's options were applied
        shown = [m["params"]["message"] for m in srv.notifications("window/showMessage")]
        assert any("`runway.bogusKey` is not a setting" in m for m in shown), shown
        if hooks:
            srv.send({"jsonrpc": "2.0", "id": 3, "method": "runway/_documentText", "params": {"uri": uri}})
            assert srv.response(3)["result"]["length"] == len(TEXT)  # the hooks still work on the real session
    finally:
        srv.close()
