"""Reliability of the real runway-lsp over stdio (issue 7; docs/reliability.md).

- **Edit sequences**: 4 sessions x 2,500 seeded random incremental edits (10,000 in total),
  utf-16 and utf-8 clients, push and pull. Each edit is applied to a client-side copy (with
  this module's own LSP line and position arithmetic, never the server's) and sent as
  ``didChange`` (sometimes several changes in one notification). At every checkpoint (every
  500 edits and at seeded random points) the server's buffer equals the client's (the
  test-only request ``runway/_documentText``, enabled by ``RUNWAY_LSP_TEST_HOOKS=1``, returns
  its sha256), the newest version's diagnostics arrive (push) or are pulled, and every publish
  so far lies inside the text of the version it names, versions never going back. The
  server's stderr holds no traceback at the end.
- **Cancellation**: ``$/cancelRequest`` on a request waiting for the client (code lenses wait
  for ``workspace/configuration``) answers RequestCancelled or the result, and the server
  goes on.
- **Close** clears diagnostics.
- **Invalid requests** (negative or huge positions, garbage types, no params, an unknown
  method, malformed JSON, invalid notifications), sent as raw JSON-RPC: every request gets an
  error answer (InvalidParams, MethodNotFound), never silence, and the server keeps serving.
- **URIs** with spaces, percent signs in folder names (``a%20b%C3%A9``), non-ASCII folders
  (``ørders é``), lowercase percent-encoding and unencoded non-ASCII: open, diagnostics,
  hover, definition and rename work.

Waits are on messages (never sleeps); wall-clock limits only detect a hung server.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import re
import shutil
import sys
import tempfile
import urllib.parse
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

from rawlsp import RawServer, sha256
from lspclient import EXAMPLES, TIMEOUT, codes, did_close, did_open, init, last_version, make_client, neovim_caps, pull, until, vscode_caps

#: Server stderr goes to this file (appended), so that a test can read what the server logged.
STDERR_LOG = Path(tempfile.gettempdir()) / f"runway-lsp-reliability-{os.getpid()}.log"
SERVER = ["sh", "-c", 'exec "$0" -m runway_lsp --stdio 2>>"$RUNWAY_TEST_STDERR"', sys.executable]
SERVER_ENV = {**os.environ, "RUNWAY_LSP_TEST_HOOKS": "1", "RUNWAY_TEST_STDERR": str(STDERR_LOG)}
DOCUMENT_TEXT = "runway/_documentText"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env=SERVER_ENV))
async def hooked(lsp_client: LanguageClient):
    """A real runway-lsp with the test hooks enabled and its stderr in :data:`STDERR_LOG`."""
    yield
    await lsp_client.shutdown_session()


def stderr_mark() -> int:
    return STDERR_LOG.stat().st_size if STDERR_LOG.exists() else 0


def stderr_since(mark: int) -> str:
    if not STDERR_LOG.exists():
        return ""
    with open(STDERR_LOG, "rb") as fh:
        fh.seek(mark)
        return fh.read().decode("utf-8", "replace")


# --------------------------------------------------------------------------------------
# The client's own LSP text arithmetic (independent of runway_core.positions)
# --------------------------------------------------------------------------------------

BREAK = re.compile(r"\r\n|\r|\n")  # LSP 3.17: the only line terminators (U+2028 is not one)


def units(s: str, enc: str) -> int:
    return len(s.encode("utf-8")) if enc == "utf-8" else len(s.encode("utf-16-le")) // 2


class Text:
    """A document's text with its LSP line starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in BREAK.finditer(text)]

    def bounds(self, line: int) -> tuple[int, int]:
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        while end > start and self.text[end - 1] in "\r\n":
            end -= 1
        return start, end

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def position(self, offset: int, enc: str) -> tuple[tuple[int, int], int]:
        """(line, units) of ``offset`` snapped into its line, and the snapped offset."""
        line = self.line_of(offset)
        start, end = self.bounds(line)
        offset = min(offset, end)
        return (line, units(self.text[start:offset], enc)), offset

    def inside(self, start: types.Position, end: types.Position, enc: str) -> bool:
        for p in (start, end):
            if not 0 <= p.line < len(self.starts):
                return False
            s, e = self.bounds(p.line)
            if not 0 <= p.character <= units(self.text[s:e], enc):
                return False
        return (start.line, start.character) <= (end.line, end.character)


FRAGMENTS = ["a", "x", "z9", " ", "  ", "\n", "\n", "\r\n", "\r", "\t", ":", ": ", "- ", "[", "]", "{", "}", ",", "'", '"', "#",
             "&a ", "*a", "<<: ", "!Ref ", "😀", "𝔘", "é", "漢", "\u2028", "main-db", "kind: postgres\n", "  size: large\n",
             "env: {A: b}\n", "secrets: [A, A]\n", "  - queue\n", "---\n", "1e3", "0755", "on", "-0.0", "uses: [", "order-events"]


def random_edit(r: random.Random, doc: Text, enc: str) -> tuple[tuple[int, int], tuple[int, int], str, int, int]:
    """One random change: (start, end) in ``enc`` units, the new text, and the offsets it
    replaces (computed here with LSP's clamping: a line past the end is the end of the text,
    a character past a line's end is the line's end)."""
    n = len(doc.text)
    roll = r.random()
    if roll < 0.02:
        start, o1 = (len(doc.starts) + r.randrange(3), r.randrange(6)), n  # past the last line
    else:
        line = r.randrange(len(doc.starts))
        ls, le = doc.bounds(line)
        if roll < 0.06:
            start, o1 = (line, units(doc.text[ls:le], enc) + 1 + r.randrange(4)), le  # past the end of the line
        else:
            o = ls + r.randrange(le - ls + 1)
            start, o1 = (line, units(doc.text[ls:o], enc)), o
    big = n > 7000
    span = r.randrange(400) if big else (0 if r.random() < 0.5 else r.randrange(12))
    if o1 + span > n or start[0] >= len(doc.starts):
        end, o2 = start, o1
    else:
        end, o2 = doc.position(o1 + span, enc)
        if o2 < o1:
            end, o2 = start, o1
    new = "" if big else "".join(r.choice(FRAGMENTS) for _ in range(r.choice((0, 1, 1, 2, 3))))
    return start, end, new, o1, o2


# --------------------------------------------------------------------------------------
# An edit session
# --------------------------------------------------------------------------------------


@dataclass
class Doc:
    path: Path
    uri: str
    text: Text
    version: int = 1
    history: dict[int, str] = field(default_factory=dict)  # version -> text, until published past it


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


async def request(client: LanguageClient, method: str, params):
    return await asyncio.wait_for(client.protocol.send_request_async(method, params), TIMEOUT)


def field_of(obj, name: str):
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class Session:
    def __init__(self, client: LanguageClient, enc: str, pulls: bool, docs: list[Doc]) -> None:
        self.client, self.enc, self.pulls, self.docs = client, enc, pulls, docs
        self.audited = 0  # publishes checked so far
        self.published: dict[str, int] = {}  # uri -> newest version published
        self.checkpoints = 0

    def send(self, doc: Doc, changes: list[tuple[tuple[int, int], tuple[int, int], str]]) -> None:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=types.Position(line=s[0], character=s[1]), end=types.Position(line=e[0], character=e[1])), text=t)
                    for s, e, t in changes
                ],
            )
        )

    def edit(self, r: random.Random, doc: Doc) -> None:
        changes = []
        for _ in range(1 if r.random() < 0.9 else r.randrange(2, 4)):  # sometimes several changes in one didChange
            start, end, new, o1, o2 = random_edit(r, doc.text, self.enc)
            doc.text = Text(doc.text.text[:o1] + new + doc.text.text[o2:])
            changes.append((start, end, new))
        doc.version += 1
        doc.history[doc.version] = doc.text.text
        self.send(doc, changes)

    def audit(self) -> None:
        """Every publish so far: its version is a version we sent, versions never go back, and
        every range lies inside the text of that version."""
        by_uri = {d.uri: d for d in self.docs}
        publishes = self.client.published[self.audited:]  # type: ignore[attr-defined]
        self.audited += len(publishes)
        for p in publishes:
            doc = by_uri.get(p.uri)
            if doc is None or p.version is None:
                assert doc is None or not p.diagnostics or self.pulls, f"an unversioned publish for an open document: {p.uri}"
                continue
            assert p.version >= self.published.get(p.uri, 0), f"{p.uri}: version {p.version} after {self.published[p.uri]}"
            self.published[p.uri] = p.version
            text = Text(doc.history[p.version])
            for d in p.diagnostics:
                assert text.inside(d.range.start, d.range.end, self.enc), (p.version, d)
        for doc in self.docs:  # versions older than the newest published are no longer needed
            newest = self.published.get(doc.uri, 0)
            for v in [v for v in doc.history if v < newest]:
                del doc.history[v]

    async def checkpoint(self) -> None:
        self.checkpoints += 1
        for doc in self.docs:
            got = await request(self.client, DOCUMENT_TEXT, {"uri": doc.uri})
            assert got is not None, f"{doc.uri} is not open on the server"
            assert (field_of(got, "version"), field_of(got, "sha256"), field_of(got, "length")) == (doc.version, sha(doc.text.text), len(doc.text.text)), (
                f"the server's text of {doc.path.name} differs from the client's at version {doc.version}")
        if self.pulls:
            for doc in self.docs:
                for d in await pull(self.client, doc.path):
                    assert doc.text.inside(d.range.start, d.range.end, self.enc), d
        else:
            await until(self.client, lambda: all(last_version(self.client, d.path) == d.version for d in self.docs))
        self.audit()


SESSIONS = [  # (name, capabilities, encoding, pulls, seed)
    ("vscode-utf16-pull", vscode_caps, "utf-16", True, 7001),
    ("neovim-utf16-push", neovim_caps, "utf-16", False, 7002),
    ("neovim-utf8-push", lambda: neovim_caps(utf8=True), "utf-8", False, 7003),
    ("vscode-utf8-pull", lambda: _utf8(vscode_caps()), "utf-8", True, 7004),
]
EDITS_PER_SESSION = 2_500  # 4 sessions: 10,000 edits


def _utf8(caps: types.ClientCapabilities) -> types.ClientCapabilities:
    caps.general = types.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"])
    return caps


@pytest.mark.parametrize(("caps", "enc", "pulls", "seed"), [s[1:] for s in SESSIONS], ids=[s[0] for s in SESSIONS])
async def test_random_edit_sequences_keep_the_server_in_step(hooked: LanguageClient, tmp_path: Path, caps, enc, pulls, seed):
    mark = stderr_mark()
    root = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", root)
    result = await init(hooked, caps(), root)
    assert result.capabilities.position_encoding == enc
    paths = [root / "runway.yaml", root / "services" / "checkout" / "runway.yaml"]
    docs = [Doc(p, p.as_uri(), Text(p.read_text(encoding="utf-8")), 1, {1: p.read_text(encoding="utf-8")}) for p in paths]
    for d in docs:
        did_open(hooked, d.path)
    session = Session(hooked, enc, pulls, docs)
    await session.checkpoint()

    r = random.Random(seed)
    for i in range(1, EDITS_PER_SESSION + 1):
        session.edit(r, docs[0] if r.random() < 0.75 else docs[1])
        if i % 500 == 0 or r.random() < 1 / 400:
            await session.checkpoint()
    await session.checkpoint()

    assert sum(d.version - 1 for d in docs) >= EDITS_PER_SESSION
    assert session.checkpoints >= EDITS_PER_SESSION // 500 + 1
    log = stderr_since(mark)
    assert "Traceback" not in log and " ERROR " not in log, log[-4000:]


# --------------------------------------------------------------------------------------
# Cancellation
# --------------------------------------------------------------------------------------


def slow_config_client() -> LanguageClient:
    """A client that holds every ``workspace/configuration`` answer until ``client.release``
    is set: requests that wait for the settings (code lenses) are then slow."""
    client = make_client()
    client.release = asyncio.Event()  # type: ignore[attr-defined]

    async def configuration(ls: LanguageClient, params: types.ConfigurationParams):
        await ls.release.wait()  # type: ignore[attr-defined]
        return [None for _ in params.items]

    client.protocol.fm.features.pop(types.WORKSPACE_CONFIGURATION, None)
    register_lsp_features(client, {types.WORKSPACE_CONFIGURATION: configuration})
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=slow_config_client, server_env=SERVER_ENV))
async def slow_client(lsp_client: LanguageClient):
    yield
    lsp_client.release.set()  # type: ignore[attr-defined]
    await lsp_client.shutdown_session()


async def test_cancel_request_is_honoured_and_the_server_goes_on(slow_client: LanguageClient, orders: Path):
    mark = stderr_mark()
    client = slow_client
    caps = vscode_caps()
    caps.workspace.configuration = True
    await init(client, caps, orders)
    root = orders / "runway.yaml"
    did_open(client, root)
    uri = root.as_uri()
    outcomes = []
    for n in range(3):
        # pygls' own send_request writes the request now (pytest-lsp's async wrapper would
        # write it only once awaited, after the cancellation below).
        fut = asyncio.wrap_future(client.protocol.send_request(
            types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)), msg_id=f"slow-{n}"))
        if n:  # the second and third: cancelled once the server is surely waiting in the handler
            hover = await request(client, types.TEXT_DOCUMENT_HOVER, types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)))
            assert hover is None or hover.contents
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=f"slow-{n}"))
        try:
            got = await asyncio.wait_for(fut, TIMEOUT)
            outcomes.append(("result", got))
        except JsonRpcException as exc:
            assert exc.code == -32800, exc  # RequestCancelled
            outcomes.append(("cancelled", None))
    assert all(kind == "cancelled" or isinstance(got, (list, tuple)) for kind, got in outcomes), outcomes
    assert [k for k, _ in outcomes].count("cancelled") >= 1, outcomes
    # Cancelling what was already answered, or what never existed, is harmless.
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="never-sent"))
    client.release.set()  # type: ignore[attr-defined]
    lenses = await request(client, types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses
    assert [d.code for d in await pull(client, root)] == ["RW140"]
    log = stderr_since(mark)
    assert "Traceback" not in log, log[-4000:]


# --------------------------------------------------------------------------------------
# Close: the workspace mode keeps the disk's problems; outside the workspace, cleared
# --------------------------------------------------------------------------------------


async def test_close_keeps_the_disk_problems_in_the_workspace_mode_and_clears_a_file_outside_it(client: LanguageClient, tmp_path: Path):
    broken = tmp_path.resolve() / "broken"
    shutil.copytree(EXAMPLES / "broken", broken)
    await init(client, neovim_caps(), broken)
    root, member = broken / "runway.yaml", broken / "services" / "misspelled" / "runway.yaml"
    did_open(client, root)
    did_open(client, member)
    await until(client, lambda: "RW170" in codes(client, root) and "RW102" in codes(client, member))
    other = broken / "services" / "tabs" / "runway.yaml"  # published from disk, never opened
    await until(client, lambda: codes(client, other) == ["RW006"])
    did_close(client, member)
    await until(client, lambda: last_version(client, member) is None and "RW102" in codes(client, member))  # now from disk
    did_close(client, root)
    # The workspace mode (the default): every file keeps the problems of its text on disk.
    await until(client, lambda: last_version(client, root) is None and "RW170" in codes(client, root))
    assert "RW102" in codes(client, member) and codes(client, other) == ["RW006"]
    lone = tmp_path.resolve() / "alone" / "runway.yaml"
    lone.parent.mkdir()
    did_open(client, lone, "runway: [\n")
    await until(client, lambda: codes(client, lone) == ["RW001"])
    did_close(client, lone)
    await until(client, lambda: codes(client, lone) == [])


# --------------------------------------------------------------------------------------
# Invalid requests, as raw JSON-RPC
# --------------------------------------------------------------------------------------


def test_invalid_requests_are_answered_with_errors_and_the_server_goes_on(tmp_path: Path):
    folder = tmp_path.resolve()
    uri = (folder / "runway.yaml").as_uri()
    srv = RawServer(folder)
    try:
        srv.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}})
        assert "capabilities" in srv.response(0)["result"]
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                                                                    "text": "runway: 1\nproduct: shop\n"}}})
        td = {"uri": uri}
        invalid = {  # id -> params of textDocument/hover (or another method) that do not fit
            "negative-line": ("textDocument/hover", {"textDocument": td, "position": {"line": -1, "character": 0}}),
            "negative-character": ("textDocument/definition", {"textDocument": td, "position": {"line": 0, "character": -5}}),
            "huge-character": ("textDocument/hover", {"textDocument": td, "position": {"line": 0, "character": 2 ** 40}}),
            "string-position": ("textDocument/hover", {"textDocument": td, "position": "garbage"}),
            "no-params": ("textDocument/hover", None),
            "list-params": ("textDocument/completion", [1, 2, 3]),
            "no-text-document": ("textDocument/documentSymbol", {}),
            "bad-range": ("textDocument/codeAction", {"textDocument": td, "range": {"start": {"line": 0}}, "context": {"diagnostics": []}}),
            "bad-diagnostic-pull": ("textDocument/diagnostic", {"textDocument": None}),
            42: ("textDocument/hover", {"textDocument": td, "position": {"line": -1, "character": -1}}),
        }
        lenient = {  # the decoder reads these as valid (0.5 -> 0, "0" -> 0, 42 -> "42"): an answer either way
            "float-line": ("textDocument/references", {"textDocument": td, "position": {"line": 0.5, "character": 0}, "context": {"includeDeclaration": True}}),
            "string-line": ("textDocument/hover", {"textDocument": td, "position": {"line": "0", "character": "0"}}),
            "uri-number": ("textDocument/definition", {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}),
            "number-new-name": ("textDocument/rename", {"textDocument": td, "position": {"line": 0, "character": 0}, "newName": 42}),
            "extra-fields": ("textDocument/hover", {"textDocument": td, "position": {"line": 0, "character": 0}, "x": [1, {"y": None}]}),
        }
        for msg_id, (method, params) in lenient.items():
            srv.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            answer = srv.response(msg_id)
            assert "result" in answer or isinstance(answer["error"]["code"], int), (msg_id, answer)
        for msg_id, (method, params) in invalid.items():
            srv.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            answer = srv.response(msg_id)
            assert answer.get("error", {}).get("code") == -32602, (msg_id, answer)  # InvalidParams
            # ... and the next valid request is served.
            srv.send({"jsonrpc": "2.0", "id": f"ok-{msg_id}", "method": "textDocument/hover",
                      "params": {"textDocument": td, "position": {"line": 1, "character": 2}}})
            assert "result" in srv.response(f"ok-{msg_id}")
        srv.send({"jsonrpc": "2.0", "id": "unknown", "method": "runway/noSuchMethod", "params": {}})
        assert srv.response("unknown")["error"]["code"] == -32601  # MethodNotFound
        # Invalid notifications get no answer (there is none to give) and break nothing.
        for note in (
            {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": "x"}},
            {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 3},
                                                                            "contentChanges": [{"range": {"start": {"line": -3, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri}}},
            {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "never-sent"}},
            b'{"jsonrpc": "2.0", "id": "broken-json", "method": ',
            b"\xff\xfe not json at all",
            # JSON, but no JSON-RPC message (a reviewer's second pass: each made an error pop-up)
            b"[]", b"{}", b"42", b'"str"', b"null", b'{"method": "x"}', b'{"jsonrpc": "2.0", "params": {}}', b'{"jsonrpc": "2.0", "id": 1}',
        ):
            srv.send(note)
        srv.send({"jsonrpc": "2.0", "id": "after", "method": "textDocument/diagnostic", "params": {"textDocument": td}})
        answer = srv.response("after")
        assert answer["result"]["kind"] == "full"
        assert all(d["code"] in ("RW171",) for d in answer["result"]["items"])  # the text of version 1, untouched
        # No error pop-up: an unreadable notification is the client's mistake, noted in the log.
        errors = [m for m in srv.inbox if m.get("method") == "window/showMessage" and m["params"]["type"] == 1]
        assert errors == []
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0, stderr[-4000:]
    assert "Traceback" not in stderr, stderr[-4000:]
    assert "ignoring a textDocument/didChange notification: its params do not fit the method" in stderr
    # docs/protocol.md, "Framing and JSON-RPC errors": a body that is not JSON is a Parse error.
    assert "a frame that cannot be trusted: the body is not one JSON value" in stderr


def test_an_unreadable_edit_pauses_the_buffer_until_the_editor_resends_the_text(tmp_path: Path):
    """A didChange that cannot be read leaves the server's buffer behind the editor's: the
    incremental edits after it would land in the wrong place, so they are not applied (and
    code actions keep the old version, which editors refuse) until a full-text change or a
    reopen; the user is told once, as a warning."""
    folder = tmp_path.resolve()
    uri = (folder / "runway.yaml").as_uri()
    text = "runway: 1\nproduct: shop\n"
    srv = RawServer(folder, hooks=True)
    try:
        srv.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}})
        srv.response(0)
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}})

        def buffer(msg_id):
            srv.send({"jsonrpc": "2.0", "id": msg_id, "method": DOCUMENT_TEXT, "params": {"uri": uri}})
            return srv.response(msg_id)["result"]

        def change(version, changes):
            srv.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}})

        at = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
        change(2, [{"range": at, "text": "# a\n"}])
        assert buffer("v2")["version"] == 2
        change(3, [{"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "lost"}])  # unreadable
        change(4, [{"range": at, "text": "# b\n"}])  # the editor's text now differs: not applied
        paused = buffer("v4")
        assert (paused["version"], paused["sha256"]) == (2, sha256("# a\n" + text))
        warnings = [m for m in srv.inbox if m.get("method") == "window/showMessage"]
        assert [m["params"]["type"] for m in warnings] == [2]  # one Warning, no Error
        assert "Close and reopen runway.yaml" in warnings[0]["params"]["message"]
        # A full-text change in a batch brings the buffer back (the edits after it apply).
        change(5, [{"range": at, "text": "ignored"}, {"text": "# whole\n" + text}, {"range": at, "text": "# c\n"}])
        resumed = buffer("v5")
        assert (resumed["version"], resumed["sha256"]) == (5, sha256("# c\n# whole\n" + text))
        # ... and so does a reopen, after another unreadable edit.
        change(6, "not a list")
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 7, "text": text}}})
        change(8, [{"range": at, "text": "# d\n"}])
        reopened = buffer("v8")
        assert (reopened["version"], reopened["sha256"]) == (8, sha256("# d\n" + text))
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0, stderr[-4000:]
    assert "Traceback" not in stderr, stderr[-4000:]


# --------------------------------------------------------------------------------------
# URIs: spaces, percent signs, non-ASCII
# --------------------------------------------------------------------------------------


def lower_hex(uri: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), uri)


def raw_unicode(uri: str) -> str:
    """The URI with non-ASCII characters left unencoded (some clients send them so)."""
    return re.sub(r"(?:%[0-9A-Fa-f]{2})+", lambda m: _decode_utf8_run(m.group(0)), uri)


def _decode_utf8_run(run: str) -> str:
    raw = urllib.parse.unquote_to_bytes(run)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return run
    # Keep ASCII escapes (%20, %25) encoded; only non-ASCII characters go raw.
    return "".join(c if ord(c) > 127 else urllib.parse.quote(c, safe="") for c in text)


def uri_path(uri: str) -> str:
    return os.path.realpath(urllib.parse.unquote(urllib.parse.urlparse(uri).path))


URI_FORMS = [("as-uri", lambda u: u), ("lowercase-hex", lower_hex), ("raw-unicode", raw_unicode)]


@pytest.mark.parametrize("form", [f for _n, f in URI_FORMS], ids=[n for n, _f in URI_FORMS])
@pytest.mark.parametrize(("caps", "enc"), [(vscode_caps, "utf-16"), (lambda: neovim_caps(utf8=True), "utf-8")], ids=["vscode", "neovim-utf8"])
async def test_uris_with_spaces_percent_signs_and_non_ascii_folders(client: LanguageClient, tmp_path: Path, form, caps, enc):
    product = tmp_path.resolve() / "ørders é" / "a%20b%C3%A9 x" / "orders"
    shutil.copytree(EXAMPLES / "orders", product)
    await init(client, caps(), product)
    root, checkout = product / "runway.yaml", product / "services" / "checkout" / "runway.yaml"
    root_uri, checkout_uri = form(root.as_uri()), form(checkout.as_uri())
    assert "%25" in root.as_uri() and "%20" in root.as_uri()
    for path, uri in ((root, root_uri), (checkout, checkout_uri)):
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="yaml", version=1, text=path.read_text(encoding="utf-8"))))

    if enc == "utf-16":  # VS Code pulls
        report = await asyncio.wait_for(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=root_uri))), TIMEOUT)
        assert [d.code for d in report.items] == ["RW140"]
    else:
        await until(client, lambda: [d.code for d in client.diagnostics.get(root_uri, [])] == ["RW140"])

    text = root.read_text(encoding="utf-8")
    line = next(i for i, s in enumerate(text.splitlines()) if s.startswith("  main-db:"))
    hover = await request(client, types.TEXT_DOCUMENT_HOVER, types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=root_uri), position=types.Position(line=line, character=4)))
    assert hover is not None and "main-db" in hover.contents.value

    ctext = checkout.read_text(encoding="utf-8")
    cline = next(i for i, s in enumerate(ctext.splitlines()) if "main-db" in s)
    at = types.Position(line=cline, character=units(ctext.splitlines()[cline][: ctext.splitlines()[cline].index("main-db") + 2], enc))
    defs = await request(client, types.TEXT_DOCUMENT_DEFINITION, types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=checkout_uri), position=at))
    defs = defs if isinstance(defs, list) else [defs]
    assert [uri_path(d.uri) for d in defs] == [str(root)] and defs[0].range.start.line == line

    edit = await request(client, types.TEXT_DOCUMENT_RENAME, types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=checkout_uri), position=at, new_name="primary-db"))
    uris = [c.text_document.uri for c in edit.document_changes] if edit.document_changes else list(edit.changes)
    assert {uri_path(u) for u in uris} >= {str(root), str(checkout)}
    assert root_uri in uris and checkout_uri in uris  # open documents are named as the client named them
