"""The runway language server: diagnostics and hovers for runway.yaml over LSP (pygls 2).

A thin adapter (STYLE.md §1-2): it keeps the open buffers, runs
:func:`runway_core.analysis.analyze` with a reader where open buffers take precedence over
the disk, and turns the result into protocol messages through :mod:`runway_lsp.convert`.

- A member runway is analysed with its root (found by walking up, open buffers included), so
  editing a member refreshes the root's diagnostics and the reverse. A runway with no root
  above that lists it is analysed alone.
- Diagnostics are pushed (``textDocument/publishDiagnostics``, with the document version) for
  every file of the analysis, and answered on pull (``textDocument/diagnostic``). A client
  that pulls gets no push for its open documents (VS Code would show them twice) and a
  ``workspace/diagnostic/refresh`` when another open document's diagnostics change.
- Pushes are debounced (:data:`DEBOUNCE_S`) and computed from the newest text: analysis runs
  synchronously on the event loop at publish time (a few milliseconds for a runway), so no
  result computed for an older version is ever sent.
- Handlers catch, log (stderr) and degrade to an empty result: no input crashes the server.
  A request whose params do not fit its method is answered with InvalidParams, never
  left unanswered (:class:`RunwayProtocol`). ``RUNWAY_LSP_TEST_HOOKS=1`` adds the test-only
  request ``runway/_documentText`` (docs/reliability.md).

The catalogue is loaded once by the caller and passed in (STYLE.md §6).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from runway_core.analysis import ROOT_NAMES, Analysis, analyze, find_root, parse_file, read_disk
from runway_core.catalog import Catalog
from runway_core.diagnostics import Diagnostic
from runway_core.positions import Encoding, LineIndex
from runway_core.yamlsrc import ParsedYaml

from . import __version__, convert
from .guard import degrades

log = logging.getLogger("runway_lsp")

#: Quiet time after the last edit before diagnostics are pushed, in seconds; it is part of
#: every keystroke's latency (issue 6). What it must coalesce is a burst an editor sends at
#: once (a multi-cursor edit, a paste and its reformat, an undo group): those messages arrive
#: within a millisecond or two (pygls reads each one through a thread hop of ~0.1 ms). Human
#: keystrokes come 80 ms or more apart even from fast typists, so no debounce shorter than
#: that coalesces them, and a longer one only delays every result; edits that arrive while an
#: analysis runs (key repeat) are coalesced anyway: analysis runs on the event loop and the
#: next flush reads the newest text. Measured: 40 ms -> 10 ms took ~30 ms off the median
#: didChange -> publishDiagnostics (benchmarks/RESULTS.md).
DEBOUNCE_S = 0.01

#: With ``idle_gc`` (runway-lsp turns the cyclic garbage collector off, see __main__), garbage
#: in reference cycles is collected once no edit came for this many seconds, so that no
#: collection pauses typing (issue 6: they added ~10 ms to a completion right after a
#: keystroke). Analyses make no cycles; pygls and asyncio make a few.
IDLE_GC_S = 2.0
#: ... and at once, edits or not, past this many objects allocated since the last collection
#: (a client that is never quiet still has its memory bounded).
GC_BACKSTOP = 1_000_000

_DISK = "disk"  # the "version" of a file read from disk rather than from an open buffer


@dataclass
class Document:
    """An open buffer. ``path`` is the real path (the key analyses use)."""

    uri: str
    path: str
    text: str
    version: int | None
    #: False after a didChange that could not be read: the buffer no longer matches the
    #: editor's, so incremental edits are not applied (they would land in the wrong place)
    #: until a full-text change or a reopen brings the text back (issue 7).
    in_sync: bool = True


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (JSON ``"\\ud800"`` decodes to one; no UTF-8 can hold
    it) replaced by U+FFFD: one code point and one UTF-16 unit for one, so positions hold."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


if os.name == "nt":  # what urllib.request.url2pathname is, without importing urllib.request (10 ms at start-up)
    from nturl2path import url2pathname as _url2pathname
else:
    _url2pathname = urllib.parse.unquote


def uri_to_path(uri: str) -> str:
    """The key of a document: the real path of a ``file:`` URI, else an absolute pseudo-path."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return os.path.realpath(_url2pathname(parsed.path))
    return os.path.abspath(uri)


def _uri_in(params: Any) -> str | None:
    """``params.textDocument.uri`` of a raw message, if it is there and a string."""
    td = params.get("textDocument") if isinstance(params, dict) else None
    uri = td.get("uri") if isinstance(td, dict) else None
    return uri if isinstance(uri, str) else None


def path_to_uri(path: str) -> str:
    try:
        return Path(path).as_uri()
    except ValueError:
        return path


@dataclass
class _UnreadableRequest:
    """A request whose params (or id) do not fit its method: answered with an error, never
    dropped (pygls 2 raises while decoding it, so the client would wait forever)."""

    id: Any
    method: str
    error: Exception
    jsonrpc: str = "2.0"


class _NotAMessage:
    """A JSON object with "jsonrpc" but neither "method" nor "result"/"error"."""


@dataclass
class _UnreadableNotification:
    """A notification whose params do not fit its method: there is no one to answer, so it
    is logged in one line (no traceback, no "Error in server" pop-up) and dropped; an
    unreadable didChange also marks its document out of sync (:attr:`Document.in_sync`)."""

    method: str
    uri: str | None
    jsonrpc: str = "2.0"


class RunwayProtocol(LanguageServerProtocol):
    """pygls' protocol with three changes: the position encoding preference (utf-8 when
    offered, else utf-16), open buffers kept by the server alone (pygls' workspace splits
    lines with ``str.splitlines``, which LSP does not: U+2028 would shift every edit), and
    requests with invalid params (a negative position, a string where an object belongs)
    answered with a JSON-RPC error, InvalidParams (-32602), instead of no answer at all."""

    _initialize_seen = False

    def structure_message(self, data: dict[str, Any]):
        if isinstance(data, dict) and "jsonrpc" in data and "method" not in data and "result" not in data and "error" not in data:
            return _NotAMessage()  # neither a request, a notification nor a response
        if not (isinstance(data, dict) and "jsonrpc" in data and "method" in data and "error" not in data and "result" not in data):
            return super().structure_message(data)  # a nested object or a response
        method = data["method"]
        is_request = "id" in data
        # The same decoding as pygls' structure_message, without its logged traceback: a
        # message that does not fit is the client's mistake, answered or noted in one line.
        known = self.get_message_type(method) if isinstance(method, str) else None
        fallback = JsonRPCRequestMessage if is_request else JsonRPCNotification
        try:
            return self._converter.structure(data, known or fallback)
        except Exception as exc:  # noqa: BLE001 - cattrs ClassValidationError and friends
            if is_request:
                msg_id = data["id"] if isinstance(data["id"], (int, str)) and not isinstance(data["id"], bool) else None
                log.warning("answering %s request %r with InvalidParams: its params do not fit the method", method, msg_id)
                return _UnreadableRequest(msg_id, str(method), exc)
            return _UnreadableNotification(str(method), _uri_in(data.get("params")))

    def handle_message(self, message: Any):
        if isinstance(message, _NotAMessage) or not hasattr(message, "jsonrpc"):
            # JSON, but no JSON-RPC message: `[]`, `42`, `null`, an object without "jsonrpc".
            # JSON-RPC 2.0 §5: Invalid Request (-32600), answered when an id can be read.
            msg_id = message.get("id") if isinstance(message, dict) else None
            if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) and "method" in message:
                self._send_data(types.ResponseErrorMessage(id=msg_id, error=types.ResponseError(code=-32600, message="not a JSON-RPC 2.0 request")))
            log.warning("ignoring a message that is not JSON-RPC 2.0 (%s)", type(message).__name__)
            return None
        if isinstance(message, _UnreadableRequest):
            from pygls.exceptions import JsonRpcInvalidParams

            error = JsonRpcInvalidParams(f"invalid params for {message.method}: they do not match the LSP specification").to_response_error()
            self._send_data(types.ResponseErrorMessage(id=message.id, error=error))
            return None
        if isinstance(message, _UnreadableNotification):
            log.warning("ignoring a %s notification: its params do not fit the method", message.method)
            if message.method == types.TEXT_DOCUMENT_DID_CHANGE and message.uri is not None:
                self._server.lost_change(message.uri)
            return None
        method = getattr(message, "method", None)
        if method is not None and method != types.EXIT:
            # The lifecycle of LSP 3.17 §"Initialize Request" and §"Shutdown Request": pygls
            # drops such requests silently, and a client waiting for the answer hangs.
            is_request = getattr(message, "id", None) is not None
            refusal = None
            if self._shutdown:
                refusal = (-32600, f"{method} after shutdown: the server is shutting down")  # InvalidRequest
            elif method == types.INITIALIZE:
                if self._initialize_seen:
                    refusal = (-32600, "initialize may only be sent once")  # InvalidRequest
                self._initialize_seen = True
            elif not self._initialize_seen:
                refusal = (-32002, f"{method} before initialize")  # ServerNotInitialized
            if refusal is not None:
                if is_request:
                    self._send_data(types.ResponseErrorMessage(id=message.id, error=types.ResponseError(code=refusal[0], message=refusal[1])))
                log.warning("refused %s %s", "request" if is_request else "notification", refusal[1])
                return None
        return super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        offered = general.position_encodings if general is not None else None
        if general is not None and offered:
            # pygls picks the client's first supported encoding; state ours instead.
            general.position_encodings = [convert.preferred_encoding(offered)]
        result = yield from super().lsp_initialize(params)
        try:
            self._server.set_client(params.capabilities, result.capabilities.position_encoding)
        except Exception:  # noqa: BLE001 - odd capabilities: keep the defaults (utf-16, push)
            log.exception("reading client capabilities failed")
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class _UnreadableJsonFilter(logging.Filter):
    """pygls logs a message body that is not JSON (or not UTF-8) with a full traceback; it is
    the client's mistake and nothing in the server failed, so it becomes one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ValueError):  # json.JSONDecodeError, UnicodeDecodeError
            record.msg, record.args = "ignoring a message that is not JSON-RPC: %s", (type(exc).__name__,)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True


class RunwayLanguageServer(LanguageServer):
    """Open buffers, cached analyses and the publishing state of one client session."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__("runway-lsp", __version__, protocol_cls=RunwayProtocol)
        pygls_log = logging.getLogger("pygls.server")
        if not any(isinstance(f, _UnreadableJsonFilter) for f in pygls_log.filters):
            pygls_log.addFilter(_UnreadableJsonFilter())
        self.catalog = catalog
        self.encoding: Encoding = "utf-16"
        self.pull = False  # the client pulls diagnostics (textDocument.diagnostic)
        self.refresh_support = False  # ... and accepts workspace/diagnostic/refresh
        #: path -> the open buffer analyses read: of the URIs open on that file, the one
        #: opened or edited last (one file can be open under two URIs: a symlinked folder).
        self.documents: dict[str, Document] = {}
        self._views: dict[str, dict[str, Document]] = {}  # path -> uri -> every open buffer
        self._published_uri: dict[str, str] = {}  # path -> the URI its diagnostics went to
        # group key (root runway path, or a lone file) -> (analysis, versions it read)
        self._cache: dict[str, tuple[Analysis, dict[str, Any]]] = {}
        self._owner: dict[str, str] = {}  # path -> group whose diagnostics it last received
        self._pushed: set[str] = set()  # paths whose last push was non-empty
        self._last: dict[str, tuple[Diagnostic, ...]] = {}  # path -> last diagnostics computed
        self._dirty: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.idle_gc = False  # see IDLE_GC_S
        self._gc_timer: asyncio.TimerHandle | None = None
        self._last_edit = 0.0
        # Within one flush (one synchronous callback: no buffer changes in between), a closed
        # file's disk version and each file's group are looked up once, not once per file
        # per check (issue 6: ~1,000 stat calls per keystroke on a 20-member workspace).
        self._stat_memo: dict[str, Any] | None = None
        self._group_memo: dict[str, str] | None = None
        self._root_memo: dict[str, str | None] | None = None  # folder -> find_root(folder)
        # path -> (version, diagnostics with their data) last pushed by publish_group: an
        # unchanged file is not pushed again after every keystroke in another one.
        self._sent: dict[str, tuple[Any, tuple]] = {}

    # --- session ----------------------------------------------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows "Error in server: ..." for out-of-band errors. A message body that is
        not JSON is no server error (and its id is unknown, so there is nothing to answer):
        it is only logged (:class:`_UnreadableJsonFilter`). Everything else keeps pygls' pop-up."""
        if isinstance(error, ValueError) and not isinstance(error, JsonRpcException):
            return
        super().report_server_error(error, source)

    def set_client(self, caps: types.ClientCapabilities, encoding: Any) -> None:
        self.encoding = convert.encoding_of(encoding)
        td = caps.text_document
        self.pull = td is not None and td.diagnostic is not None
        ws = caps.workspace
        self.refresh_support = bool(ws is not None and ws.diagnostics is not None and ws.diagnostics.refresh_support)
        log.info("client: position encoding %s, pull diagnostics %s, refresh %s", self.encoding, self.pull, self.refresh_support)

    # --- reading ----------------------------------------------------------------------------

    def read_live(self, path: str) -> str:
        """Text of ``path``: the open buffer if any, else the disk (may raise OSError)."""
        doc = self.documents.get(os.path.realpath(path))
        return doc.text if doc is not None else read_disk(path)

    def _version(self, path: str) -> Any:
        """An open buffer's version, else the file's (mtime, size) on disk: a file changed on
        disk (a save in another editor, a git checkout) invalidates analyses that read it."""
        doc = self.documents.get(path)
        if doc is not None:
            return doc.version
        memo = self._stat_memo
        if memo is not None and path in memo:
            return memo[path]
        try:
            st = os.stat(path)
        except OSError:
            version: Any = _DISK
        else:
            version = (_DISK, st.st_mtime_ns, st.st_size)
        if memo is not None:
            memo[path] = version
        return version

    def _recording_reader(self, record: dict[str, Any]) -> Callable[[str], str]:
        def read(path: str) -> str:
            real = os.path.realpath(path)
            record[real] = self._version(real)
            return self.read_live(real)

        return read

    # --- analyses ---------------------------------------------------------------------------

    def analysis(self, key: str) -> Analysis:
        """The analysis of group ``key`` for the current buffers (cached while they hold)."""
        hit = self._cache.get(key)
        if hit is not None and all(self._version(p) == v for p, v in hit[1].items()):
            return hit[0]
        record: dict[str, Any] = {}
        # The previous analysis of the group only saves work (plan items that did not change).
        an = analyze(key, self.catalog, self._recording_reader(record), previous=hit[0] if hit is not None else None)
        self._cache[key] = (an, record)
        return an

    def group_of(self, path: str) -> str:
        """The group ``path`` belongs to: itself for a root runway (it has ``product``);
        otherwise the nearest root above whose analysis lists it; otherwise itself, alone.

        A member with a loader fault (empty, a syntax error) may not look like a member; what
        decides is the root that lists it, as in :func:`runway_core.analysis.find_root`.
        """
        memo = self._group_memo
        if memo is not None:
            group = memo.get(path)
            if group is None:
                group = memo[path] = self._group_of(path)
            return group
        return self._group_of(path)

    def _group_of(self, path: str) -> str:
        try:
            head = self.read_live(path)[:4096]
        except (OSError, UnicodeDecodeError):
            head = ""
        if "\nproduct:" in "\n" + head:
            return path
        folder = os.path.dirname(os.path.dirname(path))  # start above the file's own folder
        for _ in range(64):  # bounded: one step per root found above
            root = self._find_root(folder)
            if root is None:
                break
            root = os.path.realpath(root)
            if path in self.analysis(root).files:
                return root
            above = os.path.dirname(os.path.dirname(root))
            if above == os.path.dirname(root):
                break  # the file system's root
            folder = above
        return path

    def _find_root(self, folder: str) -> str | None:
        memo = self._root_memo
        if memo is None:
            return find_root(folder, self.read_live)
        if folder not in memo:
            memo[folder] = find_root(folder, self.read_live)  # members of one folder share it
        return memo[folder]

    def analysis_for(self, path: str) -> Analysis:
        return self.analysis(self.group_of(path))

    def analysis_while_typing(self, path: str) -> tuple[Analysis, ParsedYaml | None]:
        """For a request sent while the user types (completion right after a keystroke):
        ``(analysis, parse)``. When the last analysis of the file's product is stale only
        because of this file's newest keystrokes, it is returned with a fresh parse of the
        buffer (``parse_file``: the analysis that follows reuses it), so the answer waits for
        a parse, not for the whole product's analysis (issue 6: 37 -> ~15 ms on a
        3,100-line root with 70 members). Names, sizes and costs are then those of the
        last analysis, at most the keystrokes since it old; diagnostics are unaffected.
        Otherwise ``(analysis_for(path), None)``."""
        doc = self.documents.get(path)
        key = self._owner.get(path) or path
        hit = self._cache.get(key)
        if doc is not None and hit is not None and path in hit[1] and hit[1][path] != doc.version:
            if all(p == path or self._version(p) == v for p, v in hit[1].items()):
                return hit[0], parse_file(doc.text, path)
        return self.analysis_for(path), None

    # --- scheduling -------------------------------------------------------------------------

    def touch(self, path: str) -> None:
        """Note a change of ``path`` and (re)start the debounce timer."""
        self._dirty.add(path)
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(DEBOUNCE_S, self._flush)
        self._last_edit = loop.time()
        if self.idle_gc and self._gc_timer is None:
            self._gc_timer = loop.call_later(IDLE_GC_S, self._gc_tick)

    def _gc_tick(self) -> None:
        """Every IDLE_GC_S: collect garbage when no edit came since the last tick, or past
        GC_BACKSTOP; then check again later."""
        loop = asyncio.get_running_loop()
        pending = gc.get_count()[0]
        if pending > GC_BACKSTOP or (pending > 1000 and loop.time() - self._last_edit >= IDLE_GC_S):
            gc.collect()
        self._gc_timer = loop.call_later(IDLE_GC_S, self._gc_tick)

    def _flush(self) -> None:
        self._timer = None
        self._stat_memo, self._group_memo, self._root_memo = {}, {}, {}
        try:
            self._flush_dirty()
        finally:
            self._stat_memo = self._group_memo = self._root_memo = None

    def _flush_dirty(self) -> None:
        dirty, self._dirty = self._dirty, set()
        try:
            groups: list[str] = []
            for path in sorted(dirty):
                for key in (self._owner.get(path), self.group_of(path)):
                    if key is not None and key not in groups:
                        groups.append(key)
        except Exception:  # noqa: BLE001 - STYLE.md §7: log and degrade
            log.exception("finding the runways of %s failed", sorted(dirty))
            return
        for key in groups:
            try:
                self.publish_group(key, dirty)
            except Exception:  # noqa: BLE001 - one bad group must not starve the others
                log.exception("publishing diagnostics of %s failed", key)

    # --- publishing -------------------------------------------------------------------------

    def _push(self, path: str, version: Any, diags: list[types.Diagnostic]) -> None:
        doc = self.documents.get(path)
        before = self._published_uri.get(path)
        # An open file under the client's URI for it; a closed one where its diagnostics went
        # (so closing a file opened through a symlinked folder clears them there).
        uri = doc.uri if doc is not None else before or path_to_uri(path)
        if before is not None and before != uri:
            # The file was published under another URI (its other editor, now inactive).
            self.text_document_publish_diagnostics(convert.publish_params(before, None, []))
        self._published_uri[path] = uri
        self.text_document_publish_diagnostics(
            convert.publish_params(uri, version if isinstance(version, int) else None, diags)
        )
        if diags:
            self._pushed.add(path)
        else:
            self._pushed.discard(path)
        self._sent.pop(path, None)  # publish_group notes what it pushed after this call

    def _lines(self, an: Analysis, path: str) -> LineIndex:
        src = an.files.get(path)
        if src is not None:
            return src.parsed.lines
        doc = self.documents.get(path)
        return LineIndex(doc.text if doc is not None else "")

    def publish_group(self, key: str, changed: set[str]) -> None:
        """Push the diagnostics of every file of group ``key``; clear files that left it.

        With no open document left in the group, its files are cleared instead: nothing
        watches them any more.
        """
        an = self.analysis(key)
        record = self._cache[key][1]
        files = list(dict.fromkeys([*an.files, *an.diagnostics]))
        owned_before = {p for p, g in self._owner.items() if g == key}
        if not any(p in self.documents for p in files):
            self._cache.pop(key, None)
            for p in sorted(owned_before | ({key} if key in self._pushed else set())):
                self._owner.pop(p, None)
                self._last.pop(p, None)
                if p in self.documents and p not in files:
                    # An open file this group no longer holds (its root was deleted or stopped
                    # listing it): it gets its own group's diagnostics now, not nothing.
                    self.publish_group(self.group_of(p), changed | {p})
                else:
                    self._push(p, None, [])
            return
        refresh = False
        for path in files:
            if self.group_of(path) != key:
                continue  # another group claims it (a nested root, or a root that now lists it)
            if record.get(path, _DISK) != self._version(path):
                continue  # never send results computed for an older text
            diags = tuple(an.diagnostics.get(path, ()))
            open_doc = path in self.documents
            if open_doc and path not in changed and self._last.get(path) != diags:
                refresh = True
            self._last[path] = diags
            self._owner[path] = key
            if self.pull and open_doc:
                if path in self._pushed:
                    self._push(path, None, [])  # the pull now owns it: no duplicates
                continue
            sent = (record.get(path), tuple((d, d.data) for d in diags))
            if self._sent.get(path) == sent:
                continue  # the client has exactly these for this version
            converted = convert.to_diagnostics(diags, self._lines(an, path), self.encoding)
            self._push(path, record.get(path), converted)
            self._sent[path] = sent
        for path in sorted(owned_before - set(files)):
            self._owner.pop(path, None)
            self._last.pop(path, None)
            if path in self.documents:
                self.publish_group(self.group_of(path), changed | {path})
            else:
                self._push(path, None, [])
        if refresh and self.pull and self.refresh_support:
            self.workspace_diagnostic_refresh(None, callback=lambda _r: None)

    def lost_change(self, uri: str) -> None:
        """A didChange for ``uri`` could not be read: its open buffer no longer matches the
        editor's. Its diagnostics, costs and edits stay those of the last version read (edits
        carry that version, so an editor refuses them) until the file is reopened or the
        editor sends its whole text; the user is told once."""
        try:
            doc = self.view(uri, uri_to_path(uri))
        except Exception:  # noqa: BLE001 - an odd URI: nothing open under it
            return
        if doc is None or not doc.in_sync:
            return
        doc.in_sync = False
        name = os.path.basename(doc.path)
        self.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"runway: the editor sent an edit to {name} that could not be read; its diagnostics and costs "
                    f"are paused at the last version read. Close and reopen {name} to resume."))

    def opened(self, doc: Document) -> None:
        self._views.setdefault(doc.path, {})[doc.uri] = doc
        self.activate(doc)
        if self.pull and doc.path in self._pushed:
            self._push(doc.path, None, [])  # from now on the client pulls it: no duplicates
        self.touch(doc.path)

    def view(self, uri: str, path: str) -> Document | None:
        """The open buffer of ``uri`` (``path`` is its real path), if open."""
        views = self._views.get(path)
        return views.get(uri) if views is not None else None

    def activate(self, doc: Document) -> None:
        """Make ``doc`` the buffer analyses read for its file (it was opened or edited last)."""
        before = self.documents.get(doc.path)
        self.documents[doc.path] = doc
        if before is not None and before is not doc:
            # Versions are per URI: an analysis of the other buffer may carry the same number.
            self._cache.clear()
            self._sent.pop(doc.path, None)

    def closed(self, uri: str, path: str) -> None:
        views = self._views.get(path, {})
        doc = views.pop(uri, None)
        if not views:
            self._views.pop(path, None)
            self.documents.pop(path, None)
        elif doc is not None and self.documents.get(path) is doc:
            self.activate(next(reversed(views.values())))  # the file is still open elsewhere
        self.touch(path)

    def pull_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        path = uri_to_path(uri)
        if os.path.basename(path) not in ROOT_NAMES and path not in self.documents:
            return []  # not a runway: never read a file the client did not give us
        active = self.documents.get(path)
        if active is not None and active.uri != uri and uri in self._views.get(path, {}):
            return []  # the file's other URI holds the buffer analysed: its ranges are that text's
        an = self.analysis_for(path)
        diags = tuple(an.diagnostics.get(path, ()))
        self._last[path] = diags
        return convert.to_diagnostics(diags, self._lines(an, path), self.encoding)


def create_server(catalog: Catalog) -> RunwayLanguageServer:
    """A server with every feature registered; start it with ``start_io()``."""
    server = RunwayLanguageServer(catalog)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @degrades("textDocument/didOpen")
    def did_open(ls: RunwayLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        path = uri_to_path(td.uri)
        ls.opened(Document(td.uri, path, without_lone_surrogates(td.text), td.version))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @degrades("textDocument/didChange")
    def did_change(ls: RunwayLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        doc = ls.view(params.text_document.uri, path)
        if doc is None:
            log.warning("didChange for a document that is not open: %s", params.text_document.uri)
            return
        ls.activate(doc)
        changes = params.content_changes
        if not doc.in_sync:
            # Only a full-text change can bring a buffer that missed an edit back; the
            # incremental ones before it would land in the wrong place (issue 7).
            full = [i for i, c in enumerate(changes) if isinstance(c, types.TextDocumentContentChangeWholeDocument)]
            if not full:
                log.warning("didChange for %s ignored: the buffer is out of sync since an unreadable edit", doc.uri)
                return
            changes = changes[full[-1]:]
            doc.in_sync = True
        try:
            for change in changes:
                doc.text = convert.apply_change(doc.text, change, ls.encoding)
                if _SURROGATE.search(change.text):
                    doc.text = without_lone_surrogates(doc.text)
        except Exception:  # noqa: BLE001 - an edit half applied: the buffer is no longer the editor's
            log.exception("textDocument/didChange failed")
            ls.lost_change(doc.uri)
            return
        doc.version = params.text_document.version
        ls.touch(path)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @degrades("textDocument/didSave")
    def did_save(ls: RunwayLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        doc = ls.view(params.text_document.uri, path)
        if doc is not None and params.text is not None:
            doc.text = without_lone_surrogates(params.text)
            doc.in_sync = True  # the editor's whole text: whatever was missed is back
        ls._cache.clear()  # a save is when other files on disk may have changed too
        ls.touch(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @degrades("textDocument/didClose")
    def did_close(ls: RunwayLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.closed(params.text_document.uri, uri_to_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, convert.diagnostic_options())
    @degrades("textDocument/diagnostic", lambda: convert.full_report([]))
    def diagnostic(ls: RunwayLanguageServer, params: types.DocumentDiagnosticParams):
        return convert.full_report(ls.pull_diagnostics(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @degrades("textDocument/hover")
    def hover(ls: RunwayLanguageServer, params: types.HoverParams):
        path = uri_to_path(params.text_document.uri)
        an = ls.analysis_for(path)
        src = an.files.get(path)
        if src is None:
            return None
        lines = src.parsed.lines
        # Costs (with "+$103.19/mo vs HEAD"), also while a syntax error is being typed.
        from .cost_view import view_hover

        result = view_hover(ls, path, convert.from_position(params.position, lines, ls.encoding))
        return convert.to_hover(result, lines, ls.encoding) if result is not None else None

    from . import navigation
    navigation.register(server)
    from . import cost_view, settings
    settings.register(server)
    cost_view.register(server)
    from . import code_actions
    code_actions.register(server)
    from . import completion
    completion.register(server)
    from . import custom  # runway/costs, runway/plan, runway/costsChanged (docs/protocol.md)
    custom.register(server)
    _register_file_watching(server)
    if os.environ.get(TEST_HOOKS_VARIABLE) == "1":
        _register_test_hooks(server)
    return server


#: What the server asks the client to watch: every runway file of the workspace.
WATCHED_FILES = "**/runway.{yaml,yml}"


def _register_file_watching(server: RunwayLanguageServer) -> None:
    """Runway files changed on disk by something else than the editor's buffers (a deleted
    member, a ``git checkout``, another editor): ``workspace/didChangeWatchedFiles``
    re-analyses their products, so a deleted member's diagnostics are cleared and its root
    reports RW151 at once rather than at the next edit. The server registers the watcher
    when the client allows dynamic registration (VS Code does; Neovim 0.7 does not, and
    such a client's notifications are honoured all the same)."""
    from .settings import chain_feature, log_failure

    def initialized(ls: RunwayLanguageServer, params: types.InitializedParams) -> None:
        ws = ls.client_capabilities.workspace
        watched = ws.did_change_watched_files if ws is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        registration = types.Registration(
            id="runway-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=WATCHED_FILES)]),
        )
        future = ls.client_register_capability(types.RegistrationParams(registrations=[registration]))
        future.add_done_callback(log_failure("registering for didChangeWatchedFiles"))

    chain_feature(server, types.INITIALIZED, degrades("initialized: watching runway files")(initialized))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @degrades("workspace/didChangeWatchedFiles")
    def did_change_watched_files(ls: RunwayLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [uri_to_path(change.uri) for change in params.changes]
        # Not a runway, or open: the editor's buffer wins over the disk.
        changed = [p for p in paths if os.path.basename(p) in ROOT_NAMES and p not in ls.documents]
        if changed:
            ls._cache.clear()  # once: analyses are rebuilt from what is open and on disk
        for path in changed:
            ls.touch(path)


#: Set to ``1`` to register the test-only requests below (docs/reliability.md). Never set by
#: an editor: without it the server does not know these methods (MethodNotFound).
TEST_HOOKS_VARIABLE = "RUNWAY_LSP_TEST_HOOKS"
#: ``runway/_documentText`` (test hook): ``{uri}`` -> ``{uri, version, sha256, length}`` of the
#: server's buffer (UTF-8 sha256 of the text; length in code points), or null when not open.
DOCUMENT_TEXT_HOOK = "runway/_documentText"


def _register_test_hooks(server: RunwayLanguageServer) -> None:
    import hashlib

    @server.feature(DOCUMENT_TEXT_HOOK)
    def document_text(ls: RunwayLanguageServer, params: Any):
        uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
        doc = ls.view(uri, uri_to_path(uri)) if isinstance(uri, str) else None
        if doc is None:
            return None
        digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()
        return {"uri": doc.uri, "version": doc.version, "sha256": digest, "length": len(doc.text)}
