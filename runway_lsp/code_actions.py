"""Quick fixes over LSP: ``textDocument/codeAction`` as a thin adapter over
:func:`runway_core.fixes.fixes_for` (STYLE.md §2).

The protocol edge of this feature (like :mod:`runway_lsp.convert` for the others):

- the diagnostics the client sends back in ``context.diagnostics`` (ours: source ``runway``)
  are decoded into the core's positions and matched to the current analysis by code and
  range (then message); a client that sends none gets the fixes of our diagnostics touching
  the requested range (LSP 3.17 §"Code Action Request": the context is the client's view);
- each :class:`~runway_core.fixes.Fix` becomes a ``quickfix`` CodeAction naming the client's
  own diagnostic, with a WorkspaceEdit: ``documentChanges`` (TextDocumentEdit with the
  open document's version, null for a file that is not open) when the client supports it
  (``workspace.workspaceEdit.documentChanges``), else ``changes``. Positions use the
  negotiated encoding through :func:`runway_lsp.convert.to_range`;
- a client without code action literals (``codeActionLiteralSupport``) expects Commands,
  which a quick fix is not: it gets an empty list.

Handlers catch, log and return an empty list. Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from runway_core.analysis import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.positions import Range

from . import convert
from .guard import degrades
from .server import RunwayLanguageServer, path_to_uri, uri_to_path

if TYPE_CHECKING:
    from runway_core.fixes import Fix

log = logging.getLogger("runway_lsp")


def options() -> types.CodeActionOptions:
    return types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False)


def register(server: RunwayLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options())
    @degrades("textDocument/codeAction", list)
    def code_action(ls: RunwayLanguageServer, params: types.CodeActionParams):
        return code_actions(ls, params)


def _wants_quickfix(only: Any) -> bool:
    # Kinds are hierarchical ("quickfix" is under "" and matches "quickfix" itself).
    return not only or any(getattr(k, "value", k) in ("", types.CodeActionKind.QuickFix.value) for k in only)


def _literal_support(ls: RunwayLanguageServer) -> bool:
    caps = ls.client_capabilities
    td = caps.text_document if caps is not None else None
    ca = td.code_action if td is not None else None
    return ca is not None and ca.code_action_literal_support is not None


def _document_changes(ls: RunwayLanguageServer) -> bool:
    caps = ls.client_capabilities
    ws = caps.workspace if caps is not None else None
    we = ws.workspace_edit if ws is not None else None
    return bool(we is not None and we.document_changes)


def code_actions(ls: RunwayLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The quick fixes for ``params`` (see the module docstring); an empty list when none."""
    if not _wants_quickfix(params.context.only) or not _literal_support(ls):
        return []
    path = uri_to_path(params.text_document.uri)
    an = ls.analysis_for(path)
    src = an.files.get(path)
    if src is None:
        return []
    lines = src.parsed.lines
    enc = ls.encoding

    def decode(r: types.Range) -> Range:
        return Range(convert.from_position(r.start, lines, enc), convert.from_position(r.end, lines, enc))

    sent: dict[tuple[str, Range], types.Diagnostic] = {}
    core: list[Diagnostic] = []
    for d in params.context.diagnostics or ():
        if d.source not in (None, convert.SOURCE) or not isinstance(d.code, str):
            continue
        rng = decode(d.range)
        sent.setdefault((d.code, rng), d)
        core.append(Diagnostic(path, rng, Severity(int(d.severity or 1)), d.code, d.message, d.data if isinstance(d.data, dict) else None))
    from runway_core.fixes import fixes_for  # imported on first use: not at start-up (issue 6)

    fixes = fixes_for(an, path, core) if core else fixes_for(an, path, decode(params.range))
    doc_changes = _document_changes(ls)
    out = []
    for fix in fixes:
        diag = sent.get((fix.diagnostic.code, fix.diagnostic.range)) or convert.to_diagnostic(fix.diagnostic, lines, enc)
        out.append(
            types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True if fix.is_preferred else None,
                edit=workspace_edit(ls, an, fix, doc_changes),
            )
        )
    return out


def workspace_edit(ls: RunwayLanguageServer, an: Analysis, fix: Fix, document_changes: bool) -> types.WorkspaceEdit:
    """``fix``'s edits for the client: ``documentChanges`` with versions, or ``changes``."""
    per_file: list[tuple[str, int | None, list[types.TextEdit]]] = []
    for path, edits in fix.edits.items():
        lines = an.files[path].parsed.lines  # the text the edits were computed on
        doc = ls.documents.get(path)
        uri = doc.uri if doc is not None else path_to_uri(path)
        version = doc.version if doc is not None else None
        per_file.append((uri, version, [types.TextEdit(range=convert.to_range(e.range, lines, ls.encoding), new_text=e.new_text) for e in edits]))
    if document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)
                for uri, version, edits in per_file
            ]
        )
    return types.WorkspaceEdit(changes={uri: edits for uri, _v, edits in per_file})
