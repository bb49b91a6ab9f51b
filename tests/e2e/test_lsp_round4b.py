"""A fresh adversary's language-server findings on issue 23's round-4 work, over raw stdio
against the real runway-lsp (issue 23, item 3; docs/reliability.md, round-4 table).

- F1: a body that is valid JSON but holds an integer of more than 4,300 digits: CPython 3.11's
  ``json.loads`` raises a plain ``ValueError`` (the int max str digits limit,
  ``sys.get_int_max_str_digits()``, Python/Objects/longobject.c), not a ``JSONDecodeError``;
  the reader read ``exc.msg`` off it (AttributeError) and the server exited. Now a Parse
  error (-32700, JSON-RPC 2.0 §5.1) like any body that cannot be decoded, and the next request
  is answered.
- F2: a notification method sent with an ``id`` was never answered. JSON-RPC 2.0 §4: "The
  Server MUST reply with a Response" to a request; now Invalid Request (-32600).
- F3: ``runway/costs`` for a URI whose path is longer than Linux's PATH_MAX (4096) or holds a
  segment longer than NAME_MAX (255): a traceback (``OSError: [Errno 36]``), and for 50,000
  segments no answer at all. Now an empty answer, quickly, and no traceback.
- F4: a request pygls refuses with Invalid Params (-32602) put a traceback on stderr.

The reads' deadline (tests/lspclient.TIMEOUT) only detects a hang.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rawlsp import RawServer  # noqa: E402

BIG = "9" * 5000  # over CPython's 4,300-digit default (sys.int_info.default_max_str_digits)


@pytest.fixture
def server(tmp_path: Path):
    srv = RawServer(tmp_path)
    srv.initialize(tmp_path)
    yield srv
    rc, stderr = srv.close()
    assert rc == 0, stderr[-3000:]
    assert "Traceback" not in stderr and "Error in server" not in stderr, stderr[-3000:]


def _write(srv: RawServer, body: bytes) -> None:
    srv.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    srv.proc.stdin.flush()


def _next_answered(srv: RawServer) -> dict:
    srv.send({"jsonrpc": "2.0", "id": "next", "method": "workspace/symbol", "params": {"query": ""}})
    return srv.response("next")


@pytest.mark.parametrize("body, msg_id", [
    ('{"jsonrpc":"2.0","id":%s,"method":"workspace/symbol","params":{"query":""}}' % BIG, None),
    ('{"jsonrpc":"2.0","id":7,"method":"workspace/symbol","params":{"query":"","n":%s}}' % BIG, 7),
    ('{"jsonrpc":"2.0","id":3,"result":%s}' % BIG, None),
])
def test_an_integer_over_the_digit_limit_is_a_parse_error(server: RawServer, body: str, msg_id) -> None:
    _write(server, body.encode())
    assert "result" in _next_answered(server)
    if msg_id is not None:
        assert server.response(msg_id)["error"]["code"] == -32700


def test_an_id_over_the_digit_limit_is_an_invalid_request_under_id_null(server: RawServer) -> None:
    """The JSON is read; only its id is no LSP ``integer`` (3.17 base types: -2^31..2^31-1)
    nor a string: JSON-RPC 2.0 §5.1 Invalid Request (-32600), under id null (§5: "If there
    was an error in detecting the id in the Request object ... it MUST be Null"), as an id that
    is an object or a boolean is; not Parse error, which is for JSON that could not be read."""
    _write(server, ('{"jsonrpc":"2.0","id":%s,"method":"workspace/symbol","params":{"query":""}}' % BIG).encode())
    assert "result" in _next_answered(server)
    nulls = server.response(None)
    assert nulls["error"]["code"] == -32600 and BIG[:40] not in json.dumps(nulls), nulls


NOTIFICATIONS = ["$/cancelRequest", "$/setTrace", "$/progress", "textDocument/didSave", "textDocument/didOpen",
                 "textDocument/didChange", "textDocument/didClose", "workspace/didChangeConfiguration",
                 "workspace/didChangeWatchedFiles", "workspace/didChangeWorkspaceFolders", "initialized", "exit"]


@pytest.mark.parametrize("method", NOTIFICATIONS)
def test_a_notification_method_sent_as_a_request_is_answered(server: RawServer, method: str) -> None:
    server.send({"jsonrpc": "2.0", "id": 10, "method": method, "params": {"id": 10}})
    assert server.response(10)["error"]["code"] == -32600
    assert "result" in _next_answered(server)


def test_every_registered_notification_is_answered_as_a_request(server: RawServer) -> None:
    # Every notification method the server registers (pygls' built-in and runway's features),
    # so that one added later is covered too; which are notifications: lsprotocol's meta-model.
    from runway_lsp.server import create_server
    from runway_lsp.transport import notification_methods

    fm = create_server().protocol.fm
    methods = sorted((set(fm.builtin_features) | set(fm.features)) & notification_methods())
    assert {"textDocument/didSave", "textDocument/didOpen", "$/setTrace", "initialized", "exit"} <= set(methods), methods
    for i, method in enumerate(methods):
        server.send({"jsonrpc": "2.0", "id": 100 + i, "method": method, "params": {}})
    for i, method in enumerate(methods):
        assert server.response(100 + i)["error"]["code"] == -32600, method
    assert "result" in _next_answered(server)


@pytest.mark.parametrize("n", [2_100, 20_000, 100_000])
def test_costs_for_a_path_over_path_max_is_answered_empty(server: RawServer, n: int) -> None:
    uri = "file:///" + "a/" * n + "runway.yaml"
    server.send({"jsonrpc": "2.0", "id": "c", "method": "runway/costs", "params": {"uri": uri}})
    answer = server.response("c")
    assert answer["result"]["environments"] == [] and answer["result"]["root_uri"] is None
    assert "result" in _next_answered(server)


def test_costs_for_a_segment_over_name_max_is_answered_empty(server: RawServer) -> None:
    uri = "file:///" + "b" * 300 + "/runway.yaml"
    server.send({"jsonrpc": "2.0", "id": "c", "method": "runway/costs", "params": {"uri": uri}})
    assert server.response("c")["result"]["environments"] == []


@pytest.mark.parametrize("before_load", [False, True])
def test_invalid_params_leave_no_traceback(tmp_path: Path, before_load: bool) -> None:
    # before_load: the request is read with `initialize`, before runway's features (and the
    # log filter they brought) were loaded: pygls' "Exception occurred for message" traceback.
    srv = RawServer(tmp_path)
    srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
    if not before_load:
        srv.response("init")
    srv.send({"jsonrpc": "2.0", "id": 24, "method": "workspace/executeCommand",
              "params": {"command": "runway.applyFix", "arguments": []}})
    assert srv.response(24)["error"]["code"] == -32602
    assert "result" in _next_answered(srv)
    rc, stderr = srv.close()
    assert rc == 0 and "Traceback" not in stderr, stderr[-3000:]
    assert "answered with error -32602" in stderr


def test_a_document_opened_under_an_over_long_path_is_answered(server: RawServer) -> None:
    # didOpen, hover and codeLens: before, CPython's realpath (quadratic in the segments) in
    # the analysis, the usage-file read and the git baseline: no answer. Now the didOpen is
    # ignored and each request is Invalid Params (-32602), at once (docs/protocol.md).
    uri = "file:///" + "a/" * 100_000 + "runway.yaml"
    server.open(uri, "product: p\nregion: us-east-1\n")
    server.send({"jsonrpc": "2.0", "id": "h", "method": "textDocument/hover",
                 "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}})
    assert server.response("h")["error"]["code"] == -32602
    server.send({"jsonrpc": "2.0", "id": "l", "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}})
    assert server.response("l")["error"]["code"] == -32602
    assert "result" in _next_answered(server)
