"""runway_lsp.transport.top_level_id: the id of a message too deep for json.loads (adversary P1)."""

from __future__ import annotations

import pytest

from runway_lsp.transport import top_level_id

DEEP = b"[" * 50_000 + b"]" * 50_000


@pytest.mark.parametrize("body, expected", [
    (b'{"jsonrpc":"2.0","id":7,"params":' + DEEP + b"}", 7),
    (b'{"params":' + DEEP + b', "id" : "a\\"b"}', 'a"b'),
    (b'{"params":{"id":3,"x":' + DEEP + b'},"method":"m"}', None),  # an id inside params is not the message's
    (b'{"method":"x","params":' + DEEP + b"}", None),
    (b'{"id":true,"params":' + DEEP + b"}", None),
    (b'{"id":null}', None),
    (b'{"p":"[{\\"id\\":1","id":-2}', -2),
])
def test_top_level_id(body: bytes, expected) -> None:
    assert top_level_id(body) == expected
