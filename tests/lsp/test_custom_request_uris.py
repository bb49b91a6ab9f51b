"""Issue 23: the ``uri`` of ``runway/costs`` and ``runway/plan`` is client input. One that is not
an absolute ``file:`` URI (another scheme, relative, malformed, missing) is answered with a
JSON-RPC error, InvalidParams (-32602, JSON-RPC 2.0 §5.1), whose message says what a valid URI
is (docs/protocol.md, "The `uri` of a custom request"): not a crash, a traceback on stderr, or
a null. Raw JSON-RPC (tests/rawlsp.py), so that stderr is read whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lspclient import EXAMPLES
from rawlsp import RawServer
from runway_lsp.uris import FILE_URI_RULE, NotAFileUri, request_file_uri

INVALID = [
    "untitled:Untitled-1",
    "http://h/x/runway.yaml",
    "https://user:HUNTER2SECRET@h/runway.yaml",
    "runway.yaml",
    "orders/runway.yaml",
    "file:runway.yaml",
    "file://[::1/runway.yaml",
    "file://fileserver/share/runway.yaml",
    "file://localhost:99999/runway.yaml",
    "file:///tmp/run\x00way.yaml",
    "",
    None,
    42,
    {"path": "/tmp/runway.yaml"},
]

VALID = ["file:///tmp/orders/runway.yaml", "file:/tmp/orders/runway.yaml", "file://localhost/tmp/orders/runway.yaml", "FILE:///tmp/x"]


@pytest.mark.parametrize("uri", INVALID, ids=repr)
def test_the_uri_rule_refuses_what_is_not_an_absolute_file_uri(uri) -> None:
    with pytest.raises(NotAFileUri) as caught:
        request_file_uri(uri)
    assert FILE_URI_RULE in str(caught.value) and "HUNTER2SECRET" not in str(caught.value)


@pytest.mark.parametrize("uri", VALID)
def test_the_uri_rule_takes_absolute_file_uris(uri: str) -> None:
    assert request_file_uri(uri) == uri


def test_custom_requests_answer_invalid_params_for_a_uri_that_is_not_a_file_uri(tmp_path: Path) -> None:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    srv = RawServer(ws)
    answers: dict[str, dict] = {}
    try:
        srv.initialize(ws)
        srv.open("untitled:Untitled-1", (ws / "runway.yaml").read_text(encoding="utf-8"))  # an open, unsaved runway
        n = 0
        for method in ("runway/costs", "runway/plan"):
            for uri in INVALID:
                n += 1
                srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": {"uri": uri} if uri is not None else {}})
                answers[f"{method} #{INVALID.index(uri)}"] = srv.response(n)
            n += 1
            srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": {"uri": (ws / "runway.yaml").as_uri()}})
            good = srv.response(n)
            assert "error" not in good and good["result"]["environments"], good  # the server goes on
    finally:
        rc, stderr = srv.close()
    for what, answer in answers.items():
        assert "result" not in answer, what
        assert answer["error"]["code"] == -32602, (what, answer)
        assert FILE_URI_RULE in answer["error"]["message"], (what, answer)
    assert "HUNTER2SECRET" not in repr(answers) + stderr
    assert rc == 0 and "Traceback" not in stderr, stderr
