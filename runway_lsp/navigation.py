"""Navigation, symbols, document links and the initial workspace scan of the runway server.

Thin adapters (STYLE.md §2) over the pure queries of :mod:`runway_core.navigate`:
``textDocument/definition``, ``references``, ``prepareRename``, ``rename``,
``documentHighlight``, ``documentSymbol``, ``documentLink`` and ``workspace/symbol``. This
module is a protocol edge like :mod:`runway_lsp.convert`: it builds the lsprotocol values of
these features, and reuses ``convert`` for positions in the negotiated encoding.

On ``initialized`` it scans the workspace folders (bounded: :data:`SCAN_MAX_DEPTH`,
:data:`SCAN_MAX_FILES`, :data:`SCAN_MAX_DIRS`; hidden folders, ``node_modules`` and virtual
environments skipped) for root runways, analyses each and publishes the diagnostics of every
file of a root none of whose files is open (an open one is published by ``didOpen``). The
scan reports work-done progress (LSP 3.17 §"Server Initiated Progress") when the client
announces ``window.workDoneProgress``. The roots found, and the roots of open documents,
answer ``workspace/symbol``; that request waits for the scan (at most
:data:`SCAN_WAIT_S`) so a query sent right after start-up sees the whole workspace.

A refused rename (an implicit resource, an invalid or taken name) is answered with an LSP
``RequestFailed`` error carrying the reason, which clients show to the user; it is logged as
one line at INFO (``rename refused: ...``), never with a traceback. Every other failure is
logged and degrades to an empty result (STYLE.md §7).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from runway_core import navigate
from runway_core.analysis import ROOT_NAMES, Analysis
from runway_core.positions import LineIndex, Position, Range

from . import convert
from .guard import degrades

if TYPE_CHECKING:
    from .server import RunwayLanguageServer

log = logging.getLogger("runway_lsp")

#: Deepest folder level below a workspace folder searched for runway files (a monorepo keeps
#: services a few levels down: `services/<team>/<service>`).
SCAN_MAX_DEPTH = 6
#: Most runway files the scan reads; past that it stops and says so.
SCAN_MAX_FILES = 500
#: Most folders the scan visits, so a huge checkout cannot stall start-up.
SCAN_MAX_DIRS = 20_000
#: Folders never searched: dependencies, virtual environments, caches (and any hidden folder).
SCAN_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages", "bower_components"})
#: Longest a workspace/symbol request waits for the initial scan, in seconds.
SCAN_WAIT_S = 10.0

_SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "file": types.SymbolKind.File,
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "package": types.SymbolKind.Package,
    "class": types.SymbolKind.Class,
    "property": types.SymbolKind.Property,
    "field": types.SymbolKind.Field,
    "string": types.SymbolKind.String,
    "number": types.SymbolKind.Number,
    "boolean": types.SymbolKind.Boolean,
    "array": types.SymbolKind.Array,
    "object": types.SymbolKind.Object,
    "null": types.SymbolKind.Null,
}
#: Symbol kinds every client knows (LSP 3.17: without a valueSet, File up to Array).
_BASE_KINDS = frozenset(range(int(types.SymbolKind.File), int(types.SymbolKind.Array) + 1))
#: A flat outline (SymbolInformation) keeps sections, their entries and member uses; the
#: keys below an entry would bury them.
FLAT_OUTLINE_DEPTH = 2

_REQUEST_FAILED = -32803  # LSP 3.17 LSPErrorCodes.RequestFailed


# --------------------------------------------------------------------------------------
# Workspace scan (file system only; analysis happens on the server)
# --------------------------------------------------------------------------------------


@dataclass
class ScanResult:
    """Runway files found (real paths, in walk order) and whether a bound cut the walk."""

    files: list[str] = field(default_factory=list)
    truncated: bool = False


def find_runway_files(
    folders: Iterable[str],
    max_depth: int = SCAN_MAX_DEPTH,
    max_files: int = SCAN_MAX_FILES,
    max_dirs: int = SCAN_MAX_DIRS,
) -> ScanResult:
    """Every ``runway.yaml``/``runway.yml`` under ``folders``, at most ``max_depth`` folder
    levels down, skipping hidden folders and :data:`SCAN_SKIP_DIRS`, never following folder
    symlinks; stops after ``max_files`` files or ``max_dirs`` folders (``truncated``)."""
    result = ScanResult()
    seen: set[str] = set()
    dirs_seen = 0
    for folder in folders:
        base = os.path.realpath(folder)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirs_seen += 1
            if dirs_seen > max_dirs:
                result.truncated = True
                return result
            depth = 0 if dirpath == base else os.path.relpath(dirpath, base).count(os.sep) + 1
            if depth >= max_depth:
                dirnames[:] = []
            else:
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SCAN_SKIP_DIRS)
            for name in ROOT_NAMES:
                if name in filenames:
                    path = os.path.realpath(os.path.join(dirpath, name))
                    if path in seen:
                        continue
                    if len(result.files) >= max_files:
                        result.truncated = True
                        return result
                    seen.add(path)
                    result.files.append(path)
    return result


def _looks_like_member(text: str) -> bool:
    # The same test as runway_core.analysis.find_root: `member:` and no `product:`.
    head = "\n" + text[:4096]
    return "\nmember:" in head and "\nproduct:" not in head


class _Scan:
    """State of the initial scan: the roots found and a flag set when it is over."""

    def __init__(self) -> None:
        self.roots: list[str] = []
        self.done = asyncio.Event()
        self.task: asyncio.Task | None = None


def _folders(ls: "RunwayLanguageServer") -> list[str]:
    from .server import uri_to_path

    ws = ls.workspace
    uris = [f.uri for f in ws.folders.values()] or ([ws.root_uri] if ws.root_uri else [])
    return [uri_to_path(u) for u in uris if u.startswith("file:")]


def _publish_closed_group(ls: "RunwayLanguageServer", root: str, an: Analysis) -> int:
    """Push the diagnostics of every file of ``root``'s analysis; returns how many files.

    Only for a group with no open document: an open one is published by ``didOpen`` (and a
    pulling client must not get pushes for its open documents).
    """
    files = list(dict.fromkeys([*an.files, *an.diagnostics]))
    if any(p in ls.documents for p in files):
        return 0
    count = 0
    for path in files:
        if ls.group_of(path) != root:
            continue  # a nested root claims it
        diags = tuple(an.diagnostics.get(path, ()))
        src = an.files.get(path)
        lines = src.parsed.lines if src is not None else LineIndex("")
        # The server's publishing bookkeeping: who owns the file's diagnostics, what was sent.
        ls._owner[path] = root
        ls._last[path] = diags
        ls._push(path, None, convert.to_diagnostics(diags, lines, ls.encoding))
        count += 1
    return count


async def _scan(ls: "RunwayLanguageServer", state: _Scan, only: list[str] | None = None) -> None:
    """Scan the workspace folders (``only``: these folders, added at run time) for root
    runways, analyse each and push the diagnostics of those with no open document."""
    token: str | None = None
    try:
        caps = ls.client_capabilities
        if caps.window is not None and caps.window.work_done_progress:
            token = f"runway-scan-{uuid.uuid4()}"
            try:
                await ls.work_done_progress.create_async(token)
            except Exception:  # noqa: BLE001 - the client refused a token: scan without progress
                log.warning("window/workDoneProgress/create was refused; scanning without progress")
                token = None
        if token is not None:
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="Scanning runway files", cancellable=False, percentage=0))
        folders = only if only is not None else _folders(ls)
        found = await asyncio.get_running_loop().run_in_executor(None, find_runway_files, folders)
        roots: list[str] = []
        for path in found.files:
            try:
                group = ls.group_of(path)
                try:
                    member_alone = group == path and _looks_like_member(ls.read_live(path))
                except (OSError, UnicodeDecodeError):
                    member_alone = False  # unreadable: analysed as a root, which reports why (RW001)
                if group not in roots and not member_alone:
                    roots.append(group)
            except Exception:  # noqa: BLE001 - one unreadable file must not stop the scan
                log.exception("scanning %s failed", path)
        published = 0
        for i, root in enumerate(roots, start=1):
            try:
                an = ls.analysis(root)
                published += _publish_closed_group(ls, root, an)
                if root not in state.roots:
                    state.roots.append(root)
            except Exception:  # noqa: BLE001
                log.exception("analysing %s failed", root)
            if token is not None:
                ls.work_done_progress.report(
                    token, types.WorkDoneProgressReport(message=f"{_rel(root, folders)} ({i}/{len(roots)})", percentage=int(i * 100 / len(roots)))
                )
            await asyncio.sleep(0)  # let didOpen and requests in between two runways
        summary = f"{len(roots)} runway{'s' if len(roots) != 1 else ''} ({len(found.files)} files)"
        if found.truncated:
            summary += f"; stopped at {SCAN_MAX_FILES} files or {SCAN_MAX_DIRS} folders"
            log.warning("workspace scan stopped early: %s", summary)
        log.info("workspace scan: %s, diagnostics pushed for %d files", summary, published)
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=summary))
    except Exception:  # noqa: BLE001 - STYLE.md §7
        log.exception("workspace scan failed")
        if token is not None:
            try:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="scan failed; see the server log"))
            except Exception:  # noqa: BLE001
                log.exception("ending the scan's progress failed")
    finally:
        state.done.set()


def _rel(path: str, folders: list[str]) -> str:
    for f in folders:
        if path.startswith(os.path.join(f, "")):
            return os.path.relpath(path, f)
    return path


# --------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------


def _lines(an: Analysis, path: str) -> LineIndex:
    src = an.files.get(path)
    return src.parsed.lines if src is not None else LineIndex("")


def _uri(ls: "RunwayLanguageServer", path: str) -> str:
    from .server import path_to_uri

    doc = ls.documents.get(path)
    return doc.uri if doc is not None else path_to_uri(path)


def _range(ls: "RunwayLanguageServer", an: Analysis, path: str, rng: Range) -> types.Range:
    return convert.to_range(rng, _lines(an, path), ls.encoding)


def _location(ls: "RunwayLanguageServer", an: Analysis, loc: navigate.Location) -> types.Location:
    return types.Location(uri=_uri(ls, loc.file), range=_range(ls, an, loc.file, loc.range))


def _symbol_kind(kind: str, supported: frozenset[int]) -> types.SymbolKind:
    k = _SYMBOL_KINDS.get(kind, types.SymbolKind.Property)
    return k if int(k) in supported else types.SymbolKind.Property


def _supported_kinds(caps: types.ClientCapabilities, *path: str) -> frozenset[int]:
    node: Any = caps
    for part in path:
        node = getattr(node, part, None) if node is not None else None
    value_set = getattr(node, "value_set", None) if node is not None else None
    return frozenset(int(k) for k in value_set) if value_set else _BASE_KINDS


def _document_symbol(ls: "RunwayLanguageServer", an: Analysis, path: str, s: navigate.DocumentSymbol, kinds: frozenset[int]) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=s.name or "(empty)",
        kind=_symbol_kind(s.kind, kinds),
        detail=s.detail or None,
        range=_range(ls, an, path, s.range),
        selection_range=_range(ls, an, path, s.selection_range),
        children=[_document_symbol(ls, an, path, c, kinds) for c in s.children] or None,
    )


def _flat_symbols(ls: "RunwayLanguageServer", an: Analysis, path: str, symbols: list[navigate.DocumentSymbol], kinds: frozenset[int]) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    stack: list[tuple[navigate.DocumentSymbol, str | None, int]] = [(s, None, 1) for s in reversed(symbols)]
    uri = _uri(ls, path)
    while stack:
        s, container, depth = stack.pop()
        out.append(
            types.SymbolInformation(
                name=s.name or "(empty)",
                kind=_symbol_kind(s.kind, kinds),
                location=types.Location(uri=uri, range=_range(ls, an, path, s.selection_range)),
                container_name=container,
            )
        )
        if depth < FLAT_OUTLINE_DEPTH:
            stack.extend((c, s.name, depth + 1) for c in reversed(s.children))
    return out


def _request(ls: "RunwayLanguageServer", uri: str, position: types.Position) -> tuple[Analysis, str, Position] | None:
    """The analysis, path and core position of a request, or None for a file outside it."""
    from .server import uri_to_path

    path = uri_to_path(uri)
    an = ls.analysis_for(path)
    src = an.files.get(path)
    if src is None:
        return None
    return an, path, convert.from_position(position, src.parsed.lines, ls.encoding)


class Refusal(JsonRpcException):
    """A rename refused for a reason the user is told (an implicit resource, an invalid or
    taken name): answered with ``RequestFailed``; an ordinary answer, not a server failure."""


def _refuse(message: str) -> JsonRpcException:
    return Refusal(message=message, code=_REQUEST_FAILED)


class _OneLineRefusals(logging.Filter):
    """pygls logs every exception a handler raises with its traceback, at ERROR. A
    :class:`Refusal` is an answer, not an error: one line at INFO instead. So is any other
    protocol error meant for the client (InvalidParams for an unknown command in
    ``workspace/executeCommand``, MethodNotFound): one line at WARNING. An internal error keeps
    its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, Refusal):
            record.msg, record.args = "rename refused: %s", (exc.message,)
            level = logging.INFO
        elif isinstance(exc, JsonRpcException) and not isinstance(exc, JsonRpcInternalError):
            record.msg, record.args = "answered with error %s: %s", (exc.code, exc.message)
            level = logging.WARNING
        else:
            return True
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = level, logging.getLevelName(level)
        return True


_ONE_LINE_REFUSALS = _OneLineRefusals()


def _workspace_edit(ls: "RunwayLanguageServer", an: Analysis, edits: dict[str, list[navigate.TextEdit]]) -> types.WorkspaceEdit:
    """``documentChanges`` (with the version of each open document, null for a closed file)
    when the client supports it, else ``changes`` (LSP 3.17 §"WorkspaceEdit")."""
    caps = ls.client_capabilities
    we = caps.workspace.workspace_edit if caps.workspace is not None else None
    converted = {
        path: [types.TextEdit(range=_range(ls, an, path, e.range), new_text=e.new_text) for e in file_edits]
        for path, file_edits in edits.items()
    }
    if we is not None and we.document_changes:
        changes = []
        for path, file_edits in converted.items():
            doc = ls.documents.get(path)
            ident = types.OptionalVersionedTextDocumentIdentifier(uri=_uri(ls, path), version=doc.version if doc is not None else None)
            changes.append(types.TextDocumentEdit(text_document=ident, edits=file_edits))
        return types.WorkspaceEdit(document_changes=changes)
    return types.WorkspaceEdit(changes={_uri(ls, path): file_edits for path, file_edits in converted.items()})


# --------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------


def _on_initialized(server: "RunwayLanguageServer", handler) -> None:
    """Register ``handler`` for ``initialized``, chained after a handler registered before
    (pygls keeps one handler per notification; another feature may need it too)."""
    fm = server.protocol.fm
    previous = fm.features.get(types.INITIALIZED)
    if previous is None:
        server.feature(types.INITIALIZED)(handler)
        return

    async def chained(params: types.InitializedParams) -> None:
        try:
            result = previous(params)
            if inspect.isawaitable(result):
                await result
        except Exception:  # noqa: BLE001
            log.exception("an initialized handler failed")
        await handler(params)

    fm.features[types.INITIALIZED] = chained


def register(server: "RunwayLanguageServer") -> None:
    """Register the navigation, symbol and link features and the initial workspace scan."""
    state = _Scan()
    json_rpc_log = logging.getLogger("pygls.protocol.json_rpc")  # where pygls logs handler errors
    if _ONE_LINE_REFUSALS not in json_rpc_log.filters:
        json_rpc_log.addFilter(_ONE_LINE_REFUSALS)

    async def initialized(params: types.InitializedParams) -> None:
        # A task, not an await: the scan must not hold up an initialized handler chained after.
        state.task = asyncio.ensure_future(_scan(server, state))

    _on_initialized(server, initialized)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @degrades("workspace/didChangeWorkspaceFolders")
    def did_change_workspace_folders(ls: "RunwayLanguageServer", params: types.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated ls.workspace already. Removed folders: their runways leave
        # workspace/symbol and their diagnostics are cleared (open files keep theirs).
        from .server import uri_to_path

        removed = [uri_to_path(f.uri) for f in params.event.removed or () if f.uri.startswith("file:")]
        remaining = _folders(ls)

        def under(path: str, folders: list[str]) -> bool:
            return any(path == f or path.startswith(os.path.join(f, "")) for f in folders)

        for root in [r for r in state.roots if under(r, removed) and not under(r, remaining)]:
            state.roots.remove(root)
            ls._cache.pop(root, None)
            for path in [p for p, g in ls._owner.items() if g == root and p not in ls.documents]:
                ls._owner.pop(path, None)
                ls._last.pop(path, None)
                ls._push(path, None, [])
        added = [uri_to_path(f.uri) for f in params.event.added or () if f.uri.startswith("file:")]
        if added:
            state.done.clear()  # workspace/symbol waits for this scan too
            state.task = asyncio.ensure_future(_scan(ls, state, added))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @degrades("textDocument/definition")
    def definition(ls: "RunwayLanguageServer", params: types.DefinitionParams):
        req = _request(ls, params.text_document.uri, params.position)
        if req is None:
            return None
        an, path, pos = req
        return [_location(ls, an, loc) for loc in navigate.definition_at(an, path, pos)] or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @degrades("textDocument/references")
    def references(ls: "RunwayLanguageServer", params: types.ReferenceParams):
        req = _request(ls, params.text_document.uri, params.position)
        if req is None:
            return None
        an, path, pos = req
        include = bool(params.context.include_declaration) if params.context is not None else False
        return [_location(ls, an, loc) for loc in navigate.references_at(an, path, pos, include)] or None

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @degrades("textDocument/documentHighlight")
    def highlight(ls: "RunwayLanguageServer", params: types.DocumentHighlightParams):
        req = _request(ls, params.text_document.uri, params.position)
        if req is None:
            return None
        an, path, pos = req
        kinds = {"write": types.DocumentHighlightKind.Write, "read": types.DocumentHighlightKind.Read}
        return [
            types.DocumentHighlight(range=_range(ls, an, path, h.range), kind=kinds[h.kind])
            for h in navigate.highlights_at(an, path, pos)
        ] or None

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @degrades("textDocument/prepareRename")
    def prepare_rename(ls: "RunwayLanguageServer", params: types.PrepareRenameParams):
        req = _request(ls, params.text_document.uri, params.position)
        if req is None:
            return None
        an, path, pos = req
        found = navigate.prepare_rename_at(an, path, pos)
        if found is not None:
            return types.PrepareRenamePlaceholder(range=_range(ls, an, path, found.range), placeholder=found.placeholder)
        refusal = navigate.rename_refusal_at(an, path, pos)
        if refusal is not None:
            raise _refuse(refusal)  # clients show the message (LSP 3.17 §"Prepare Rename Request")
        return None

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    @degrades("textDocument/rename")
    def rename(ls: "RunwayLanguageServer", params: types.RenameParams):
        req = _request(ls, params.text_document.uri, params.position)
        if req is None:
            return None
        an, path, pos = req
        result = navigate.rename_at(an, path, pos, params.new_name)
        if isinstance(result, str):
            raise _refuse(result)  # a JsonRpcException: it reaches the client (guard.degrades)
        return _workspace_edit(ls, an, result)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @degrades("textDocument/documentSymbol")
    def document_symbol(ls: "RunwayLanguageServer", params: types.DocumentSymbolParams):
        from .server import uri_to_path

        path = uri_to_path(params.text_document.uri)
        an = ls.analysis_for(path)
        symbols = navigate.document_symbols(an, path)
        caps = ls.client_capabilities
        ds = caps.text_document.document_symbol if caps.text_document is not None else None
        kinds = _supported_kinds(caps, "text_document", "document_symbol", "symbol_kind")
        if ds is not None and ds.hierarchical_document_symbol_support:
            return [_document_symbol(ls, an, path, s, kinds) for s in symbols]
        return _flat_symbols(ls, an, path, symbols, kinds)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    @degrades("textDocument/documentLink")
    def document_link(ls: "RunwayLanguageServer", params: types.DocumentLinkParams):
        from .server import uri_to_path

        path = uri_to_path(params.text_document.uri)
        an = ls.analysis_for(path)
        root_dir = os.path.dirname(an.root_file)
        caps = ls.client_capabilities.text_document
        tooltips = bool(caps is not None and caps.document_link is not None and caps.document_link.tooltip_support)
        return [
            types.DocumentLink(
                range=_range(ls, an, path, link.range),
                target=_uri(ls, link.target),
                tooltip=f"Open the member runway {os.path.relpath(link.target, root_dir)}" if tooltips else None,
            )
            for link in navigate.document_links(an, path)
        ]

    @server.feature(types.WORKSPACE_SYMBOL)
    @degrades("workspace/symbol", list)
    async def workspace_symbol(ls: "RunwayLanguageServer", params: types.WorkspaceSymbolParams):
        if state.task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(state.done.wait()), SCAN_WAIT_S)
            except asyncio.TimeoutError:
                log.warning("workspace/symbol answered before the workspace scan ended")
        roots = list(state.roots)
        for path in list(ls.documents):
            group = ls.group_of(path)
            if group not in roots:
                roots.append(group)
        analyses = []
        for root in roots:
            try:
                analyses.append(ls.analysis(root))
            except Exception:  # noqa: BLE001 - one bad runway must not hide the others
                log.exception("analysing %s failed", root)
        kinds = _supported_kinds(ls.client_capabilities, "workspace", "symbol", "symbol_kind")
        lines = {p: src.parsed.lines for an in analyses for p, src in an.files.items()}
        return [
            types.SymbolInformation(
                name=s.name,
                kind=_symbol_kind(s.kind, kinds),
                location=types.Location(uri=_uri(ls, s.file), range=convert.to_range(s.range, lines.get(s.file, LineIndex("")), ls.encoding)),
                container_name=s.container,
            )
            for s in navigate.workspace_symbols(analyses, params.query)
        ]
