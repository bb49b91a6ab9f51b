"""Navigation, symbols and document links of the runway server.

Thin adapters (docs/architecture.md §2) over the pure queries of :mod:`runway_core.ide.navigation`:
``textDocument/definition``, ``references``, ``prepareRename``, ``rename``,
``documentHighlight``, ``documentSymbol`` and ``documentLink`` (``workspace/symbol`` and the
workspace scan: runway_lsp/scan.py). Protocol values are built by
:mod:`runway_lsp.convert.navigation`, positions in the negotiated encoding.

A refused rename (an implicit resource, an invalid or taken name) is answered with an LSP
``RequestFailed`` error carrying the reason, which clients show to the user; it is logged as
one line at INFO (``rename refused: ...``), never with a traceback
(:func:`install_log_filter`). Every other failure is logged and degrades to an empty result
(docs/architecture.md §7).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging
import os

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from runway_core.ide import navigation as navigate
from runway_core.analysis import Analysis
from runway_core.positions import LineIndex, Position, Range

from . import convert
from .convert import navigation as convert_nav
from .convert import redacted
from .guard import degrades
from .session import Session

log = logging.getLogger("runway_lsp")

#: A flat outline (SymbolInformation) keeps sections, their entries and member uses; the
#: keys below an entry would bury them.
FLAT_OUTLINE_DEPTH = 2

_REQUEST_FAILED = -32803  # LSP 3.17 LSPErrorCodes.RequestFailed


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _lines(an: Analysis, path: str) -> LineIndex:
    src = an.files.get(path)
    return src.parsed.lines if src is not None else LineIndex("")


def _range(ls: Session, an: Analysis, path: str, rng: Range) -> types.Range:
    return convert.to_range(rng, _lines(an, path), ls.encoding)


def _location(ls: Session, an: Analysis, loc: navigate.Location) -> types.Location:
    return convert_nav.location(ls.uri_of(loc.file), _range(ls, an, loc.file, loc.range))


def _document_symbol(ls: Session, an: Analysis, path: str, s: navigate.DocumentSymbol, kinds: frozenset[int]) -> types.DocumentSymbol:
    return convert_nav.document_symbol(
        s.name or "(empty)",
        convert_nav.symbol_kind(s.kind, kinds),
        s.detail or None,
        _range(ls, an, path, s.range),
        _range(ls, an, path, s.selection_range),
        [_document_symbol(ls, an, path, c, kinds) for c in s.children] or None,
    )


def _flat_symbols(ls: Session, an: Analysis, path: str, symbols: list[navigate.DocumentSymbol], kinds: frozenset[int]) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    stack: list[tuple[navigate.DocumentSymbol, str | None, int]] = [(s, None, 1) for s in reversed(symbols)]
    uri = ls.uri_of(path)
    while stack:
        s, container, depth = stack.pop()
        out.append(convert_nav.symbol_information(
            s.name or "(empty)", convert_nav.symbol_kind(s.kind, kinds), uri, _range(ls, an, path, s.selection_range), container))
        if depth < FLAT_OUTLINE_DEPTH:
            stack.extend((c, s.name, depth + 1) for c in reversed(s.children))
    return out


def _request(ls: Session, uri: str, position: types.Position) -> tuple[Analysis, str, Position] | None:
    """The analysis, path and core position of a request, or None for a file outside it."""
    path = ls.documents.request_path(uri)
    if path is None:
        return None  # never read (runway_lsp.documents.Buffers.request_path)
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
    """pygls logs every exception a handler raises with its traceback, at ERROR, and warns
    about every ``$/cancelRequest`` that comes after its answer (DEBUG here instead). A
    :class:`Refusal` is an answer, not an error: one line at INFO instead. So is any other
    protocol error meant for the client (InvalidParams for an unknown command in
    ``workspace/executeCommand``, MethodNotFound): one line at WARNING. An internal error keeps
    its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == _UNKNOWN_CANCEL:
            # VS Code cancels requests it no longer needs, often after the answer went out;
            # LSP 3.17 §"Cancellation Support": a request already answered is simply not
            # cancelled. Not news for the output channel (issue 26): DEBUG.
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return True
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


#: pygls' warning for a ``$/cancelRequest`` whose request is no longer pending (json_rpc.py).
_UNKNOWN_CANCEL = 'Cancel notification for unknown message id "%s"'

_ONE_LINE_REFUSALS = _OneLineRefusals()


def install_log_filter() -> None:
    """Log protocol errors meant for the client in one line (see :class:`_OneLineRefusals`)."""
    json_rpc_log = logging.getLogger("pygls.protocol.json_rpc")  # where pygls logs handler errors
    if _ONE_LINE_REFUSALS not in json_rpc_log.filters:
        json_rpc_log.addFilter(_ONE_LINE_REFUSALS)


def _workspace_edit(ls: Session, an: Analysis, edits: dict[str, list[navigate.TextEdit]], impact: navigate.RenameImpact | None = None) -> types.WorkspaceEdit:
    """``documentChanges`` (with the version of each open document, null for a closed file)
    when the client supports it, else ``changes`` (LSP 3.17 §"WorkspaceEdit"). With a rename
    ``impact`` and a client that supports change annotations, see :func:`_annotated_rename`."""
    if impact is not None and convert.supports_change_annotations(ls.capabilities):
        return _annotated_rename(ls, an, edits, impact)
    per_file = []
    for path, file_edits in edits.items():
        doc = ls.documents.get(path)
        per_file.append((ls.uri_of(path), doc.version if doc is not None else None, convert.text_edits(file_edits, _lines(an, path), ls.encoding)))
    return convert.workspace_edit(per_file, convert.supports_document_changes(ls.capabilities))


def _annotated_rename(ls: Session, an: Analysis, edits: dict[str, list[navigate.TextEdit]], impact: navigate.RenameImpact) -> types.WorkspaceEdit:
    """A rename whose consumers are injected variables that change: each consumer's ``uses``
    edits under one annotation naming it and its variables (``checkout reads MAIN_DB_* (URL,
    …) → PRIMARY_DB_*``), which needs confirmation: its running code reads the old names.
    The declaration (and any other edit) under ``Rename main-db to primary-db``, which does
    not. VS Code's Refactor Preview (src/vs/workbench/contrib/bulkEdit/browser/preview/
    bulkEditPreview.ts, ``BulkFileOperations._init``) starts an edit ticked unless its
    annotation needs confirmation, puts the categories that need it first, and groups them by
    ``label``; Apply applies the ticked edits. Before issue 26 every edit needed confirmation
    under one label, so every row started unticked and Apply with nothing ticked did nothing."""
    declaration_id = f"{convert.RENAME_ANNOTATION}.declaration"
    annotations = {
        declaration_id: convert.change_annotation(
            label=f"Rename {impact.old} to {impact.new}",
            needs_confirmation=False,
            description=f"The name of the {impact.kind or 'item'}; the variables its consumers are injected change with it (the groups above).",
        )
    }
    reader_of = {(file, rng): consumer for consumer, file, rng in impact.uses}
    per_file = []
    for path, file_edits in edits.items():
        doc = ls.documents.get(path)
        lines = _lines(an, path)
        paired = []
        for e in file_edits:
            consumer = reader_of.get((path, e.range))
            aid = declaration_id
            if consumer is not None:
                aid = f"{convert.RENAME_ANNOTATION}.reads.{consumer}"
                annotations.setdefault(
                    aid,
                    convert.change_annotation(
                        label=impact.reads(consumer),
                        needs_confirmation=True,
                        description=f"{consumer}'s code must read the new names: " + ", ".join(f"{a} → {b}" for a, b in impact.variables) + ".",
                    ),
                )
            paired.append((convert.text_edits([e], lines, ls.encoding)[0], aid))
        per_file.append((ls.uri_of(path), doc.version if doc is not None else None, paired))
    return convert.annotated_workspace_edit(per_file, annotations)


# --------------------------------------------------------------------------------------
# Requests (runway_lsp/server.py registers them)
# --------------------------------------------------------------------------------------


@degrades("textDocument/definition")
def definition(ls: Session, params: types.DefinitionParams) -> list[types.Location] | None:
    req = _request(ls, params.text_document.uri, params.position)
    if req is None:
        return None
    an, path, pos = req
    return [_location(ls, an, loc) for loc in navigate.definition_at(an, path, pos)] or None


@degrades("textDocument/references")
def references(ls: Session, params: types.ReferenceParams) -> list[types.Location] | None:
    req = _request(ls, params.text_document.uri, params.position)
    if req is None:
        return None
    an, path, pos = req
    include = bool(params.context.include_declaration) if params.context is not None else False
    return [_location(ls, an, loc) for loc in navigate.references_at(an, path, pos, include)] or None


@degrades("textDocument/documentHighlight")
def highlight(ls: Session, params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
    req = _request(ls, params.text_document.uri, params.position)
    if req is None:
        return None
    an, path, pos = req
    return [convert_nav.highlight(_range(ls, an, path, h.range), h.kind) for h in navigate.highlights_at(an, path, pos)] or None


@degrades("textDocument/prepareRename")
def prepare_rename(ls: Session, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
    req = _request(ls, params.text_document.uri, params.position)
    if req is None:
        return None
    an, path, pos = req
    found = navigate.prepare_rename_at(an, path, pos)
    if found is not None:
        return convert_nav.rename_placeholder(_range(ls, an, path, found.range), found.placeholder)
    refusal = navigate.rename_refusal_at(an, path, pos)
    if refusal is not None:
        raise _refuse(refusal)  # clients show the message (LSP 3.17 §"Prepare Rename Request")
    return None


@degrades("textDocument/rename")
def rename(ls: Session, params: types.RenameParams) -> types.WorkspaceEdit | None:
    req = _request(ls, params.text_document.uri, params.position)
    if req is None:
        return None
    an, path, pos = req
    result = navigate.rename_at(an, path, pos, params.new_name)
    if isinstance(result, str):
        raise _refuse(result)  # a JsonRpcException: it reaches the client (guard.degrades)
    return _workspace_edit(ls, an, result, navigate.rename_impact(an, path, pos, params.new_name) if result else None)


@degrades("textDocument/documentSymbol")
def document_symbol(ls: Session, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    path = ls.documents.request_path(params.text_document.uri)
    if path is None:
        return []  # never read (runway_lsp.documents.Buffers.request_path)
    an = ls.analysis_for(path)
    symbols = navigate.document_symbols(an, path)
    caps = ls.capabilities
    ds = caps.text_document.document_symbol if caps.text_document is not None else None
    kinds = convert_nav.supported_kinds(caps, "text_document", "document_symbol", "symbol_kind")
    if ds is not None and ds.hierarchical_document_symbol_support:
        return redacted.symbols(_document_symbol(ls, an, path, s, kinds) for s in symbols)  # not walked again at send
    return _flat_symbols(ls, an, path, symbols, kinds)


@degrades("textDocument/documentLink")
def document_link(ls: Session, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
    path = ls.documents.request_path(params.text_document.uri)
    if path is None:
        return []  # never read (runway_lsp.documents.Buffers.request_path)
    an = ls.analysis_for(path)
    root_dir = os.path.dirname(an.root_file)
    caps = ls.capabilities.text_document
    tooltips = bool(caps is not None and caps.document_link is not None and caps.document_link.tooltip_support)
    return [
        convert_nav.document_link(
            _range(ls, an, path, link.range),
            ls.uri_of(link.target),
            f"Open the member runway {os.path.relpath(link.target, root_dir)}" if tooltips else None,
        )
        for link in navigate.document_links(an, path)
    ]
