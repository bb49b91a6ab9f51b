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

The catalogue is loaded once by the caller and passed in (STYLE.md §6).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import logging
import os
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from runway_core.analysis import ROOT_NAMES, Analysis, analyze, find_root, read_disk
from runway_core.catalog import Catalog
from runway_core.diagnostics import Diagnostic
from runway_core.hover import hover_at
from runway_core.positions import Encoding, LineIndex

from . import __version__, convert

log = logging.getLogger("runway_lsp")

#: Quiet time after the last edit before diagnostics are pushed, in seconds. Long enough to
#: coalesce a burst of keystrokes, short enough to feel immediate.
DEBOUNCE_S = 0.04

_DISK = "disk"  # the "version" of a file read from disk rather than from an open buffer


@dataclass
class Document:
    """An open buffer. ``path`` is the real path (the key analyses use)."""

    uri: str
    path: str
    text: str
    version: int | None


def uri_to_path(uri: str) -> str:
    """The key of a document: the real path of a ``file:`` URI, else an absolute pseudo-path."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return os.path.realpath(urllib.request.url2pathname(parsed.path))
    return os.path.abspath(uri)


def path_to_uri(path: str) -> str:
    try:
        return Path(path).as_uri()
    except ValueError:
        return path


class RunwayProtocol(LanguageServerProtocol):
    """pygls' protocol with two changes: the position encoding preference (utf-8 when
    offered, else utf-16) and open buffers kept by the server alone (pygls' workspace splits
    lines with ``str.splitlines``, which LSP does not: U+2028 would shift every edit)."""

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


class RunwayLanguageServer(LanguageServer):
    """Open buffers, cached analyses and the publishing state of one client session."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__("runway-lsp", __version__, protocol_cls=RunwayProtocol)
        self.catalog = catalog
        self.encoding: Encoding = "utf-16"
        self.pull = False  # the client pulls diagnostics (textDocument.diagnostic)
        self.refresh_support = False  # ... and accepts workspace/diagnostic/refresh
        self.documents: dict[str, Document] = {}
        # group key (root runway path, or a lone file) -> (analysis, versions it read)
        self._cache: dict[str, tuple[Analysis, dict[str, Any]]] = {}
        self._owner: dict[str, str] = {}  # path -> group whose diagnostics it last received
        self._pushed: set[str] = set()  # paths whose last push was non-empty
        self._last: dict[str, tuple[Diagnostic, ...]] = {}  # path -> last diagnostics computed
        self._dirty: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None

    # --- session ----------------------------------------------------------------------------

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
        try:
            st = os.stat(path)
        except OSError:
            return _DISK
        return (_DISK, st.st_mtime_ns, st.st_size)

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
        an = analyze(key, self.catalog, self._recording_reader(record))
        self._cache[key] = (an, record)
        return an

    def group_of(self, path: str) -> str:
        """The group ``path`` belongs to: itself for a root runway (it has ``product``);
        otherwise the nearest root above whose analysis lists it; otherwise itself, alone.

        A member with a loader fault (empty, a syntax error) may not look like a member; what
        decides is the root that lists it, as in :func:`runway_core.analysis.find_root`.
        """
        try:
            head = self.read_live(path)[:4096]
        except (OSError, UnicodeDecodeError):
            head = ""
        if "\nproduct:" in "\n" + head:
            return path
        folder = os.path.dirname(os.path.dirname(path))  # start above the file's own folder
        for _ in range(64):  # bounded: one step per root found above
            root = find_root(folder, self.read_live)
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

    def analysis_for(self, path: str) -> Analysis:
        return self.analysis(self.group_of(path))

    # --- scheduling -------------------------------------------------------------------------

    def touch(self, path: str) -> None:
        """Note a change of ``path`` and (re)start the debounce timer."""
        self._dirty.add(path)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(DEBOUNCE_S, self._flush)

    def _flush(self) -> None:
        self._timer = None
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
        uri = doc.uri if doc is not None else path_to_uri(path)
        self.text_document_publish_diagnostics(
            convert.publish_params(uri, version if isinstance(version, int) else None, diags)
        )
        if diags:
            self._pushed.add(path)
        else:
            self._pushed.discard(path)

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
            for p in sorted(owned_before | ({key} if key in self._pushed else set())):
                self._owner.pop(p, None)
                self._last.pop(p, None)
                self._push(p, None, [])
            self._cache.pop(key, None)
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
            converted = convert.to_diagnostics(diags, self._lines(an, path), self.encoding)
            self._push(path, record.get(path), converted)
        for path in sorted(owned_before - set(files)):
            self._owner.pop(path, None)
            self._last.pop(path, None)
            if path in self.documents:
                self.publish_group(self.group_of(path), changed | {path})
            else:
                self._push(path, None, [])
        if refresh and self.pull and self.refresh_support:
            self.workspace_diagnostic_refresh(None, callback=lambda _r: None)

    def opened(self, doc: Document) -> None:
        self.documents[doc.path] = doc
        if self.pull and doc.path in self._pushed:
            self._push(doc.path, None, [])  # from now on the client pulls it: no duplicates
        self.touch(doc.path)

    def pull_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        path = uri_to_path(uri)
        if os.path.basename(path) not in ROOT_NAMES and path not in self.documents:
            return []  # not a runway: never read a file the client did not give us
        an = self.analysis_for(path)
        diags = tuple(an.diagnostics.get(path, ()))
        self._last[path] = diags
        return convert.to_diagnostics(diags, self._lines(an, path), self.encoding)


def create_server(catalog: Catalog) -> RunwayLanguageServer:
    """A server with every feature registered; start it with ``start_io()``."""
    server = RunwayLanguageServer(catalog)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RunwayLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        try:
            td = params.text_document
            path = uri_to_path(td.uri)
            ls.opened(Document(td.uri, path, td.text, td.version))
        except Exception:  # noqa: BLE001
            log.exception("didOpen failed")

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RunwayLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        try:
            path = uri_to_path(params.text_document.uri)
            doc = ls.documents.get(path)
            if doc is None:
                log.warning("didChange for a document that is not open: %s", params.text_document.uri)
                return
            for change in params.content_changes:
                doc.text = convert.apply_change(doc.text, change, ls.encoding)
            doc.version = params.text_document.version
            ls.touch(path)
        except Exception:  # noqa: BLE001
            log.exception("didChange failed")

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RunwayLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        try:
            path = uri_to_path(params.text_document.uri)
            doc = ls.documents.get(path)
            if doc is not None and params.text is not None:
                doc.text = params.text
            ls._cache.clear()  # a save is when other files on disk may have changed too
            ls.touch(path)
        except Exception:  # noqa: BLE001
            log.exception("didSave failed")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RunwayLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        try:
            path = uri_to_path(params.text_document.uri)
            ls.documents.pop(path, None)
            ls.touch(path)
        except Exception:  # noqa: BLE001
            log.exception("didClose failed")

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, convert.diagnostic_options())
    def diagnostic(ls: RunwayLanguageServer, params: types.DocumentDiagnosticParams):
        try:
            return convert.full_report(ls.pull_diagnostics(params.text_document.uri))
        except Exception:  # noqa: BLE001
            log.exception("textDocument/diagnostic failed")
            return convert.full_report([])

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: RunwayLanguageServer, params: types.HoverParams):
        try:
            path = uri_to_path(params.text_document.uri)
            an = ls.analysis_for(path)
            src = an.files.get(path)
            if src is None:
                return None
            lines = src.parsed.lines
            from .cost_view import hover_baseline  # the "+$103.19/mo vs HEAD" line of environment hovers

            result = hover_at(an, path, convert.from_position(params.position, lines, ls.encoding), baseline=hover_baseline(ls, path))
            return convert.to_hover(result, lines, ls.encoding) if result is not None else None
        except Exception:  # noqa: BLE001
            log.exception("textDocument/hover failed")
            return None

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
    return server
