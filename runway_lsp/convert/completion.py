"""Completion items (runway_lsp/completion.py): what the client's capabilities allow and
how each core candidate becomes a ``CompletionItem``.

- each candidate's ``textEdit`` replaces the half-typed word (a single-line range containing
  the cursor, LSP 3.17 §"Completion Request");
- a snippet is sent only to clients that declare ``completionItem.snippetSupport``; others get
  the candidate's plain text (``InsertTextFormat.PlainText``);
- multi-line texts carry their own indentation, so they are sent with
  ``insertTextMode: asIs`` (VS Code would otherwise re-indent them a second time);
- the cost of a size goes to ``detail`` and, for clients with ``labelDetailsSupport``, also to
  ``labelDetails.description`` so it shows beside the label;
- the list is incomplete (``isIncomplete``) when a snippet embeds the typed name, so that the
  client asks again as the user types.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from runway_core.positions import Encoding, LineIndex

from . import redacted
from .positions import to_range

if TYPE_CHECKING:
    from runway_core.ide.completion import CompletionCandidate

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


def to_item(c: CompletionCandidate, lines: LineIndex, enc: Encoding, support: CompletionSupport,
            ranges: dict | None = None) -> types.CompletionItem:
    """One candidate as a ``CompletionItem`` with a ``textEdit`` in ``enc`` units (``ranges``:
    core range -> LSP range already converted, shared by the items of one list)."""
    rng = ranges.get(c.range) if ranges is not None else None
    if rng is None:
        rng = to_range(c.range, lines, enc)
        if ranges is not None:
            ranges[c.range] = rng
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
        text_edit=types.TextEdit(range=rng, new_text=text),
        insert_text_format=types.InsertTextFormat.Snippet if use_snippet else types.InsertTextFormat.PlainText,
        insert_text_mode=types.InsertTextMode.AsIs if "\n" in text else None,
    )


def to_list(cands: list[CompletionCandidate], lines: LineIndex, enc: Encoding, support: CompletionSupport) -> types.CompletionList:
    return types.CompletionList(
        is_incomplete=any(c.volatile for c in cands),
        # Every candidate of a list replaces the same word: its range is converted once.
        # Redacted here, not walked again at send (runway_lsp/convert/redacted.py).
        items=redacted.completion_items(to_item(c, lines, enc, support, ranges) for ranges in [{}] for c in cands),
    )


def empty_list() -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=[])


def completion_options(trigger_characters: list[str]) -> types.CompletionOptions:
    return types.CompletionOptions(trigger_characters=trigger_characters, resolve_provider=False)
