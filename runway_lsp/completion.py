"""``textDocument/completion``: a thin adapter over :func:`runway_core.complete.completions_at`.

The handler fetches the group's analysis for the current buffers, decodes the position in
the negotiated encoding, calls the pure query and converts its candidates (this module is a
protocol edge like :mod:`runway_lsp.convert`, for completion only):

- each candidate becomes a ``CompletionItem`` whose ``textEdit`` replaces the half-typed word
  (a single-line range containing the cursor, LSP 3.17 §"Completion Request");
- a snippet is sent only to clients that declare ``completionItem.snippetSupport``; others get
  the candidate's plain text (``InsertTextFormat.PlainText``);
- multi-line texts carry their own indentation, so they are sent with
  ``insertTextMode: asIs`` (VS Code would otherwise re-indent them a second time);
- the cost of a size goes to ``detail`` and, for clients with ``labelDetailsSupport``, also to
  ``labelDetails.description`` so it shows beside the label;
- the list is incomplete (``isIncomplete``) when a snippet embeds the typed name, so that the
  client asks again as the user types.

Handlers catch, log and answer an empty list: completion never crashes the server.
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from runway_core.positions import Encoding, LineIndex
from runway_core.yamlsrc import parse_yaml

from . import convert
from .guard import degrades
from .server import RunwayLanguageServer, uri_to_path

if TYPE_CHECKING:
    from runway_core.complete import CompletionCandidate

log = logging.getLogger("runway_lsp")

#: Typing one of these asks for completion: after `key:` and a space (values), at `[` `,`
#: `{` (flow collections), and `-` (a new list item).
TRIGGER_CHARACTERS = [":", " ", "[", ",", "{", "-"]

_KINDS = {
    "key": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.Value,
    "kind": types.CompletionItemKind.Class,
    "size": types.CompletionItemKind.Unit,
    "environment": types.CompletionItemKind.Module,
    "reference": types.CompletionItemKind.Reference,
    "snippet": types.CompletionItemKind.Snippet,
    "enum": types.CompletionItemKind.EnumMember,
}


@dataclass(frozen=True, slots=True)
class CompletionSupport:
    """What the client's ``textDocument.completion`` capabilities allow."""

    snippets: bool = False
    label_details: bool = False
    markdown: bool = True

    @staticmethod
    def of(caps: types.ClientCapabilities | None) -> "CompletionSupport":
        td = caps.text_document if caps is not None else None
        comp = td.completion if td is not None else None
        item = comp.completion_item if comp is not None else None
        if item is None:
            return CompletionSupport()
        formats = item.documentation_format
        return CompletionSupport(
            snippets=bool(item.snippet_support),
            label_details=bool(item.label_details_support),
            markdown=formats is None or types.MarkupKind.Markdown in formats,
        )


def to_item(c: CompletionCandidate, lines: LineIndex, enc: Encoding, support: CompletionSupport) -> types.CompletionItem:
    """One candidate as a ``CompletionItem`` with a ``textEdit`` in ``enc`` units."""
    use_snippet = support.snippets and c.snippet is not None
    text = c.snippet if use_snippet else c.new_text
    doc = None
    if c.documentation:
        kind = types.MarkupKind.Markdown if support.markdown else types.MarkupKind.PlainText
        doc = types.MarkupContent(kind=kind, value=c.documentation)
    return types.CompletionItem(
        label=c.label,
        kind=_KINDS.get(c.kind, types.CompletionItemKind.Text),
        detail=c.detail,
        label_details=types.CompletionItemLabelDetails(description=c.detail) if support.label_details and c.detail else None,
        documentation=doc,
        sort_text=c.sort_text,
        filter_text=c.filter_text,
        text_edit=types.TextEdit(range=convert.to_range(c.range, lines, enc), new_text=text),
        insert_text_format=types.InsertTextFormat.Snippet if use_snippet else types.InsertTextFormat.PlainText,
        insert_text_mode=types.InsertTextMode.AsIs if "\n" in text else None,
    )


def to_list(cands: list[CompletionCandidate], lines: LineIndex, enc: Encoding, support: CompletionSupport) -> types.CompletionList:
    return types.CompletionList(
        is_incomplete=any(c.volatile for c in cands),
        items=[to_item(c, lines, enc, support) for c in cands],
    )


def complete(ls: RunwayLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    """The completion list at ``params.position`` (empty when nothing fits)."""
    path = uri_to_path(params.text_document.uri)
    an, parsed = ls.analysis_while_typing(path)
    src = an.files.get(path)
    if src is None and parsed is None:
        doc = ls.documents.get(path)
        if doc is None:
            return types.CompletionList(is_incomplete=False, items=[])
        parsed = parse_yaml(doc.text, path)  # an open buffer the analysis did not read
    lines = (parsed if parsed is not None else src.parsed).lines  # type: ignore[union-attr]
    pos = convert.from_position(params.position, lines, ls.encoding)
    from runway_core.complete import completions_at  # imported on first use: not at start-up (issue 6)

    cands = completions_at(an, path, pos, parsed=parsed)
    return to_list(cands, lines, ls.encoding, CompletionSupport.of(ls.client_capabilities))


def register(server: RunwayLanguageServer) -> None:
    """Register ``textDocument/completion`` on ``server``."""

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False))
    @degrades("textDocument/completion", lambda: types.CompletionList(is_incomplete=False, items=[]))
    def completion(ls: RunwayLanguageServer, params: types.CompletionParams) -> types.CompletionList:
        return complete(ls, params)
