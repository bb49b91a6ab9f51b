"""Issue 23: a client is input too. A ``runway.catalogPath`` holding a URL with a credential
or a path with a secret-shaped token is quoted, redacted, in every message about it: the
``window/showMessage`` warning, the stderr log (raw JSON-RPC, so that nothing tidies the
messages; the stderr is read whole)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lspclient import EXAMPLES
from rawlsp import RawServer

#: A GitHub personal access token shape (ghp_ + 36 characters), as runway_core.text knows it.
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"

#: (setting value, the secret in it, what the warning says): a URL is refused as a value (a
#: folder is asked for); a path is resolved and then found not to load.
HOSTILE = [
    ("https://user:HUNTER2SECRET@mirror.example/cat", "HUNTER2SECRET", "not a URL"),
    ("http://deploy:HUNTER2SECRET@10.0.0.1:8080/x?y=1", "HUNTER2SECRET", "not a URL"),
    (f"/srv/catalogues/{TOKEN}/cat", TOKEN, "cannot be loaded"),
    (f"cats/{TOKEN}", TOKEN, "cannot be loaded"),
    (f"~/{TOKEN}", TOKEN, "cannot be loaded"),
    ("cats/postgres://app:HUNTER2SECRET@db/x", "HUNTER2SECRET", "cannot be loaded"),
]


@pytest.mark.parametrize("value, secret, says", HOSTILE)
def test_a_catalog_path_holding_a_credential_is_never_echoed(tmp_path: Path, value: str, secret: str, says: str) -> None:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    srv = RawServer(ws)
    try:
        # A client that cannot be asked (no workspace.configuration): the settings come from
        # initializationOptions (runway_lsp/settings.py).
        srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                  "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": {},
                             "initializationOptions": {"runway": {"catalogPath": value}}}})
        srv.response("init")
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        warning = srv.wait_message(lambda m: m.get("method") == "window/showMessage" and "catalogPath" in m["params"]["message"])
        srv.drain(0.3)
        wire = json.dumps(srv.inbox)
    finally:
        rc, stderr = srv.close()
    assert says in warning["params"]["message"]
    assert rc == 0
    assert secret not in wire, warning
    assert secret not in stderr, stderr
