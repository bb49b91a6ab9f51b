"""``textDocument/completion``: a thin adapter over :func:`runway_core.ide.completion.completions_at`.

The handler fetches the group's analysis for the current buffers (while the user types:
:meth:`runway_lsp.session.Session.analysis_while_typing`), decodes the position in the
negotiated encoding, calls the pure query and converts its candidates
(:mod:`runway_lsp.convert.completion` says how: text edits, snippets, label details).
Imported on the first completion request, not at start-up (issue 6). The handler
(runway_lsp/server.py) catches, logs and answers an empty list: completion never crashes
the server. Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from runway_core.yamlsrc import parse_yaml

from . import convert
from .convert.completion import TRIGGER_CHARACTERS, CompletionSupport, empty_list, to_item, to_list
from .session import Session

log = logging.getLogger("runway_lsp")


def complete(session: Session, params: types.CompletionParams) -> types.CompletionList:
    """The completion list at ``params.position`` (empty when nothing fits)."""
    path = session.documents.request_path(params.text_document.uri)
    if path is None:
        return empty_list()  # never read (runway_lsp.documents.Buffers.request_path)
    an, parsed = session.analysis_while_typing(path)
    src = an.files.get(path)
    if src is None and parsed is None:
        doc = session.documents.get(path)
        if doc is None:
            return empty_list()
        parsed = parse_yaml(doc.text, path)  # an open buffer the analysis did not read
    lines = (parsed if parsed is not None else src.parsed).lines  # type: ignore[union-attr]
    pos = convert.from_position(params.position, lines, session.encoding)
    from runway_core.ide.completion import completions_at  # imported on first use: not at start-up (issue 6)

    cands = completions_at(an, path, pos, parsed=parsed)
    return to_list(cands, lines, session.encoding, CompletionSupport.of(session.capabilities))


__all__ = ["TRIGGER_CHARACTERS", "CompletionSupport", "complete", "to_item", "to_list"]
