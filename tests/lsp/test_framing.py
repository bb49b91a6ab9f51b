"""runway_lsp.transport's framing and JSON-RPC envelope, in process (issue 23, item 3).

What is accepted is taken from the peers, not from our reader: LSP 3.17 §"Base Protocol"
(``Content-Length`` required, fields ended by ``\\r\\n``, an empty line before the body),
vscode-jsonrpc 10.0.0 ``lib/common/messageReader.js`` (``tryReadHeaders(true)``: header names
compared lower-cased; "Header must provide a Content-Length property"), JSON-RPC 2.0 §4-§6
(id a string or a number; ``jsonrpc`` exactly "2.0"; Parse error -32700; Invalid Request
-32600 with id null when no id can be read; ``[]`` and ``[1]`` each answered with Invalid
Request). pygls 2.0's own loop (``pygls.io_.run_async``) matched ``^Content-Length: (\\d+)\\r\\n$``
only and never resynchronised: every case below marked "pygls" went deaf there.
"""

from __future__ import annotations

import json

import pytest

from runway_lsp.transport import END, MAX_BODY_BYTES, Framer, FramingError, TooDeep, refusal


def _msg(i) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "workspace/symbol", "params": {"query": ""}}).encode()


def _frame(body: bytes, n: int | None = None, name: bytes = b"Content-Length", eol: bytes = b"\r\n") -> bytes:
    return name + b": %d" % (len(body) if n is None else n) + eol + eol + body


def _read_all(data: bytes, chunk: int = 1 << 16) -> list:
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    framer = Framer(lambda: pieces.pop(0) if pieces else b"")
    out = []
    while (item := framer.next()) is not END:
        out.append(item)
    return out


def _ids(items: list) -> list:
    return [i["id"] if isinstance(i, dict) else type(i).__name__ for i in items]


@pytest.mark.parametrize("first", [
    _frame(_msg(1), name=b"content-length"),  # pygls: deaf
    _frame(_msg(1), name=b"CONTENT-LENGTH"),
    _frame(_msg(1), eol=b"\n"),  # pygls: deaf
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:%d\r\n\r\n" % len(_msg(1)) + _msg(1),
    b"\r\n\n" + _frame(_msg(1)),  # empty lines between messages
])
def test_header_case_and_line_ends_are_accepted(first: bytes) -> None:
    for chunk in (1, 7, 1 << 16):  # split reads: one byte at a time, odd pieces, one read
        assert _ids(_read_all(first + _frame(_msg(2)), chunk)) == [1, 2]


@pytest.mark.parametrize("k", [-3, -1, 1, 3, 5, 30, 200])
def test_a_length_a_few_bytes_off_is_a_parse_error_and_the_next_message_is_read(k: int) -> None:
    # pygls: one warning, then the next message read into the body or skipped as headers.
    items = _read_all(_frame(_msg(1), len(_msg(1)) + k) + _frame(_msg(2)) + _frame(_msg(3)) + _frame(_msg(4)))
    assert isinstance(items[0], FramingError) and items[0].msg_id == 1  # the failed request's id
    assert _ids(items[1:]) == [2, 3, 4]  # even when the length runs past the next message (k=200)


@pytest.mark.parametrize("bad, why", [
    (b"Content-Length: 12x\r\n\r\n", "not a number"),
    (b"Content-Length: -5\r\n\r\n", "not a number"),
    (b"Content-Type: text/plain\r\n\r\n", "without Content-Length"),
    (b"Content-Length: 3\r\nContent-Length: 4\r\n\r\n", "two different"),
    (b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1), "over the"),
    (b"garbage without a colon\r\n\r\n", "not 'Name: value'"),
    (b"X" * 9000, "no end of the header part"),
])
def test_a_header_part_that_cannot_be_trusted_is_reported_and_skipped(bad: bytes, why: str) -> None:
    items = _read_all(bad + _frame(_msg(2)))
    assert isinstance(items[0], FramingError) and why in str(items[0]), items
    assert _ids(items)[-1] == 2


def test_a_body_that_is_not_utf8_is_a_parse_error_under_its_id() -> None:
    body = b'{"jsonrpc":"2.0","id":"u","method":"workspace/symbol","params":{"query":"\xff"}}'
    items = _read_all(_frame(body) + _frame(_msg(2)))
    assert isinstance(items[0], FramingError) and "not UTF-8" in str(items[0]) and items[0].msg_id == "u"
    assert _ids(items[1:]) == [2]


def test_a_swallowed_message_is_not_answered_twice() -> None:
    # A frame whose length runs into the next message: the failed body starts with the next
    # header, so no id is read from it (the next message is answered when it is framed).
    items = _read_all(b"Content-Length: 60\r\n\r\n" + _frame(_msg("p")) + b"\n" * 80)
    assert isinstance(items[0], FramingError) and items[0].msg_id is None
    assert _ids(items[1:]) == ["p"]
    items = _read_all(b'Content-Length: 70\r\n\r\n{"x":1}' + _frame(_msg("p")) + b"\n" * 80)
    assert items[0].msg_id is None and _ids(items[1:]) == ["p"]


def test_too_deep_is_its_own_item() -> None:
    deep = b'{"jsonrpc":"2.0","id":9,"method":"x","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    items = _read_all(_frame(deep) + _frame(_msg(2)))
    assert isinstance(items[0], TooDeep) and _ids(items[1:]) == [2]


@pytest.mark.parametrize("value, answers", [
    ([], [None]),  # JSON-RPC 2.0 §7: "rpc call with an empty Array"
    ([1, 2, 3], [None]),  # §7 answers each element; one id-null refusal says the same here
    ([json.loads(_msg("a")), json.loads(_msg("b"))], ["a", "b"]),
    ({"jsonrpc": "1.0", "id": "v", "method": "m"}, ["v"]),
    ({"id": 3, "method": "m"}, [3]),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "m"}, [None]),
    ({"jsonrpc": "2.0", "id": [1], "method": "m"}, [None]),
    ({"jsonrpc": "2.0", "id": True, "method": "m"}, [None]),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "m"}, [None]),
    ({"jsonrpc": "2.0", "method": 1, "params": "bar"}, [None]),  # §7's "invalid Request object"
    ({"jsonrpc": "2.0", "id": 4, "method": "m", "result": 1}, [4]),
    ({"jsonrpc": "2.0", "id": 5}, [5]),
    ("foo", [None]),
    ({"jsonrpc": "2.0", "result": 1}, []),  # a response without id: dropped, never answered
    ({"jsonrpc": "2.0", "id": {"x": 1}, "result": 1}, []),
    ({"jsonrpc": "1.0", "id": 1, "result": 1}, []),
])
def test_invalid_messages_are_refused(value, answers) -> None:
    refused = refusal(value)
    assert refused is not None and refused[0] == answers


@pytest.mark.parametrize("value", [
    json.loads(_msg(1)), json.loads(_msg("x" * 1_000_000)),
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "id": 7, "result": None},
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},  # §5: a client's parse error of ours
])
def test_valid_messages_pass(value) -> None:
    assert refusal(value) is None


def test_a_body_of_null_is_a_message_not_the_end_of_input() -> None:
    # JSON `null` decodes to None: the end of input is its own sentinel (END), or the server
    # took `null` for the end of stdin and exited (tests/e2e/test_lsp_reliability.py).
    assert _read_all(_frame(b"null") + _frame(_msg(2)))[0] is None
    assert _ids(_read_all(_frame(b"null") + _frame(_msg(2)))[1:]) == [2]
    assert refusal(None) == ([None], "a JSON null, not an object")
