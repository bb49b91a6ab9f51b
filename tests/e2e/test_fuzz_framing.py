"""A fuzzer for the stdio framing (issue 23, item 3), hypothesis with a fixed budget.

In process, on :class:`runway_lsp.transport.Framer`: random header-name case, CRLF or LF,
an optional ``Content-Type``, reads split at random points, one message's ``Content-Length``
off by ±k, random junk before the messages. Against the real runway-lsp over raw stdio: junk
of the same kinds, then a request, which must be answered (one answer per id), with no
traceback on stderr and exit 0 at the end. What counts as a frame is LSP 3.17 §"Base
Protocol" and vscode-jsonrpc 10.0.0's reader (header names lower-cased before lookup); the
answers are JSON-RPC 2.0 §5 (tests/lsp/test_framing.py has the fixed cases).

Budget: ``max_examples`` fixed, ``deadline=None`` (a loaded CI machine must not fail a test on
time), derandomised so CI runs the same examples every time; ~60 s in all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rawlsp import RawServer  # noqa: E402
from runway_lsp.transport import END, MAX_BODY_BYTES, Framer, FramingError  # noqa: E402

FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)


def _body(i: int, text: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "workspace/symbol", "params": {"query": text}}).encode()


@st.composite
def header_name(draw, name: str = "Content-Length") -> bytes:
    flips = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(name, flips)).encode()


@st.composite
def frame(draw, body: bytes, delta: int = 0) -> bytes:
    eol = draw(st.sampled_from([b"\r\n", b"\n"]))
    head = draw(header_name()) + b":" + draw(st.sampled_from([b"", b" ", b"  "])) + b"%d" % (len(body) + delta) + eol
    if draw(st.booleans()):
        ctype = draw(header_name("Content-Type")) + b": application/vscode-jsonrpc; charset=utf-8" + eol
        head = ctype + head if draw(st.booleans()) else head + ctype
    return head + eol + body


def _junk_piece():
    return st.one_of(
        st.binary(max_size=48),
        st.sampled_from([b"\r\n", b"\n", b"\r", b"{", b"}", b'"', b":", b"Content-Type: x\r\n", b"\r\n\r\n", b"[]", b"{}", b"null", b"Content-Length: 4\r\n\r\nnull"]),
        st.builds(lambda n, eol: b"Content-Length: %d" % n + eol, st.integers(0, 300), st.sampled_from([b"", b"\r\n", b"\n", b"\r\n\r\n"])),
        st.just(b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1)),
    )


junk = st.lists(_junk_piece(), max_size=8).map(b"".join)
#: After junk, enough empty lines to finish any body the junk declared (at most 300 bytes):
#: they end a swallowed body, which then fails to decode and reading resynchronises.
FILLER = b"\n" * 320


def _split_read(data: bytes, cuts: list[int]):
    points = sorted({c % (len(data) + 1) for c in cuts}) + [len(data)]
    pieces, at = [], 0
    for p in points:
        if p > at:
            pieces.append(data[at:p])
            at = p
    return lambda: pieces.pop(0) if pieces else b""


def _frames(data: bytes, cuts: list[int]) -> list:
    framer = Framer(_split_read(data, cuts))
    out = []
    while (item := framer.next()) is not END:
        out.append(item)
    return out


@settings(FUZZ, max_examples=200)
@given(st.data(), st.lists(st.text(max_size=30), min_size=1, max_size=5), st.lists(st.integers(0, 10_000), max_size=12))
def test_well_framed_messages_arrive_whole_whatever_the_case_line_ends_and_reads(data, texts, cuts) -> None:
    bodies = [_body(i, t) for i, t in enumerate(texts)]
    stream = b"".join(data.draw(frame(b)) for b in bodies)
    assert _frames(stream, cuts) == [json.loads(b) for b in bodies]


@settings(FUZZ, max_examples=400)
@given(st.data(), st.lists(st.text(max_size=30), min_size=2, max_size=5), st.lists(st.integers(0, 10_000), max_size=12))
def test_one_length_off_costs_that_message_alone(data, texts, cuts) -> None:
    bodies = [_body(i, t) for i, t in enumerate(texts)]
    bad = data.draw(st.integers(0, len(bodies) - 2))
    delta = data.draw(st.integers(-12, 60).filter(bool))
    stream = b"".join(data.draw(frame(b, delta if i == bad else 0)) for i, b in enumerate(bodies))
    items = _frames(stream, cuts)
    errors = [i for i in items if isinstance(i, FramingError)]
    good = [i for i in items if not isinstance(i, FramingError)]
    assert len(errors) <= 1  # one Parse error for the one bad frame (none when it still decodes)
    expected = [json.loads(b) for i, b in enumerate(bodies) if i != bad]
    assert [g for g in good if g != json.loads(bodies[bad])] == expected


@settings(FUZZ, max_examples=400)
@given(junk, st.lists(st.text(max_size=20), min_size=1, max_size=3), st.lists(st.integers(0, 10_000), max_size=12))
def test_after_any_junk_the_next_messages_are_read(junk_bytes, texts, cuts) -> None:
    bodies = [_body(1000 + i, t) for i, t in enumerate(texts)]
    stream = junk_bytes + FILLER + b"".join(b"Content-Length: %d\r\n\r\n" % len(b) + b for b in bodies)
    items = _frames(stream, cuts)
    assert items[-len(bodies):] == [json.loads(b) for b in bodies]
    # A junk frame's Parse error never carries one of the real messages' ids (no double answer).
    assert not [i for i in items if isinstance(i, FramingError) and i.msg_id in range(1000, 1010)]


def test_the_real_server_answers_after_any_junk(tmp_path: Path) -> None:
    srv = RawServer(tmp_path)
    srv.initialize(tmp_path)
    seen: list[str] = []

    @settings(FUZZ, max_examples=60)
    @given(junk, st.lists(st.integers(1, 400), max_size=4))
    def probe(junk_bytes: bytes, cuts: list[int]) -> None:
        msg_id = f"probe-{len(seen)}"
        seen.append(msg_id)
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/symbol", "params": {"query": ""}}).encode()
        data = junk_bytes + FILLER + b"Content-Length: %d\r\n\r\n" % len(body) + body
        at = 0
        for cut in sorted(set(cuts)) + [len(data)]:  # split writes: the reader sees pieces
            srv.proc.stdin.write(data[at:cut])
            srv.proc.stdin.flush()
            at = max(at, cut)
        assert "result" in srv.response(msg_id, timeout=5)

    try:
        probe()
        srv.drain(0.2)
        # One answer per id: no probe was also answered with a Parse error.
        assert not [m for m in srv.inbox if m.get("id") in seen]
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr and "Error in server" not in stderr, stderr[-3000:]
    assert len(seen) == 60 and stderr.count("a frame that cannot be trusted") > 20  # the junk did reach the framer
