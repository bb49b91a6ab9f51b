"""Quick fixes over LSP: ``textDocument/codeAction`` as a thin adapter over
:func:`runway_core.ide.fixes.fixes_for` (docs/architecture.md §2).

- the diagnostics the client sends back in ``context.diagnostics`` (ours: source ``runway``)
  are decoded into the core's positions and matched to the current analysis by code and
  range (then message); a client that sends none gets the fixes of our diagnostics touching
  the requested range (LSP 3.17 §"Code Action Request": the context is the client's view);
- each :class:`~runway_core.ide.fixes.Fix` becomes a ``quickfix`` CodeAction naming the client's
  own diagnostic, with a WorkspaceEdit: ``documentChanges`` (TextDocumentEdit with the
  open document's version, null for a file that is not open) when the client supports it
  (``workspace.workspaceEdit.documentChanges``), else ``changes``. Positions use the
  negotiated encoding (:mod:`runway_lsp.convert`);
- a client without code action literals (``codeActionLiteralSupport``) expects Commands,
  which a quick fix is not: it gets an empty list.

Imported on the first code action request, not at start-up (issue 6). The handler
(runway_lsp/server.py) catches, logs and returns an empty list. Must not import pulumi or
deploy_engine.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from runway_core.analysis import Analysis
from runway_core.diagnostics import Diagnostic, Severity

from . import convert
from .convert import actions
from .session import Session

if TYPE_CHECKING:
    from runway_core.ide.fixes import Fix

log = logging.getLogger("runway_lsp")


def code_actions(session: Session, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The quick fixes for ``params`` (see the module docstring); an empty list when none."""
    if not actions.wants_quickfix(params.context.only) or not actions.literal_support(session.capabilities):
        return []
    path = session.documents.request_path(params.text_document.uri)
    if path is None:
        return []  # never read (runway_lsp.documents.Buffers.request_path)
    an = session.analysis_for(path)
    src = an.files.get(path)
    if src is None:
        return []
    lines = src.parsed.lines
    enc = session.encoding
    sent: dict[tuple[str, object], types.Diagnostic] = {}
    core: list[Diagnostic] = []
    for d in params.context.diagnostics or ():
        if d.source not in (None, convert.SOURCE) or not isinstance(d.code, str):
            continue
        rng = convert.from_range(d.range, lines, enc)
        sent.setdefault((d.code, rng), d)
        core.append(Diagnostic(path, rng, Severity(int(d.severity or 1)), d.code, d.message, d.data if isinstance(d.data, dict) else None))
    from runway_core.ide.fixes import fixes_for  # imported on first use: not at start-up (issue 6)

    fixes = fixes_for(an, path, core) if core else fixes_for(an, path, convert.from_range(params.range, lines, enc))
    doc_changes = convert.supports_document_changes(session.capabilities)
    out = []
    offered: set[tuple] = set()
    for fix in fixes:
        # One action per edit: "Fit dev under its cap: resize main-db to small" and "Resize
        # main-db in dev to small" are the same change (issue 15); the first (preferred) stays.
        edit_key = tuple(sorted((p, tuple((e.range, e.new_text) for e in edits)) for p, edits in fix.edits.items()))
        if edit_key in offered:
            continue
        offered.add(edit_key)
        diag = sent.get((fix.diagnostic.code, fix.diagnostic.range)) or convert.to_diagnostic(fix.diagnostic, lines, enc)
        out.append(actions.quick_fix(fix.title, diag, fix.is_preferred, workspace_edit(session, an, fix, doc_changes)))
    return out


def workspace_edit(session: Session, an: Analysis, fix: Fix, document_changes: bool) -> types.WorkspaceEdit:
    """``fix``'s edits for the client: ``documentChanges`` with versions, or ``changes``."""
    per_file = []
    for path, edits in fix.edits.items():
        lines = an.files[path].parsed.lines  # the text the edits were computed on
        doc = session.documents.get(path)
        per_file.append((session.uri_of(path), doc.version if doc is not None else None, convert.text_edits(edits, lines, session.encoding)))
    return convert.workspace_edit(per_file, document_changes)
