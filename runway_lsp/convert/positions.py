"""Positions, ranges and text edits between the core's code points and LSP's encodings.

The negotiated position encoding is applied through the document's
:class:`~runway_core.positions.LineIndex` (LSP 3.17 §"Position"; docs/architecture.md §3-4).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from lsprotocol import types

from runway_core.positions import Encoding, LineIndex, Position, Range

#: Encodings this server speaks, by LSP name (LSP 3.17 §"PositionEncodingKind").
_ENCODINGS: dict[str, Encoding] = {"utf-8": "utf-8", "utf-16": "utf-16", "utf-32": "utf-32"}


def encoding_of(name: str | None) -> Encoding:
    """The core encoding for a negotiated LSP ``positionEncoding`` (default utf-16)."""
    return _ENCODINGS.get(str(name or "utf-16"), "utf-16")


def preferred_encoding(offered: Sequence[str] | None) -> str:
    """What to negotiate: utf-8 when the client offers it (no re-counting for a UTF-8
    editor), else the mandatory utf-16 (LSP 3.17: utf-16 must always be supported)."""
    return "utf-8" if offered and "utf-8" in [str(e) for e in offered] else "utf-16"


def to_position(pos: Position, lines: LineIndex, enc: Encoding) -> types.Position:
    p = lines.encode_position(pos, enc)
    return types.Position(line=p.line, character=p.character)


def to_range(rng: Range, lines: LineIndex, enc: Encoding) -> types.Range:
    r = lines.encode_range(rng, enc)
    return types.Range(
        start=types.Position(line=r.start.line, character=r.start.character),
        end=types.Position(line=r.end.line, character=r.end.character),
    )


def from_position(pos: types.Position, lines: LineIndex, enc: Encoding) -> Position:
    """A client position (``enc`` units) as code points; clamped into the text."""
    return lines.decode_position(Position(max(0, pos.line), max(0, pos.character)), enc)


def from_range(rng: types.Range, lines: LineIndex, enc: Encoding) -> Range:
    """A client range (``enc`` units) as code points; clamped into the text."""
    return Range(from_position(rng.start, lines, enc), from_position(rng.end, lines, enc))


def is_whole_document(change: Any) -> bool:
    """True for a ``didChange`` content change that carries the whole text (no range)."""
    return isinstance(change, types.TextDocumentContentChangeWholeDocument)


def apply_change(text: str, change: types.TextDocumentContentChangeEvent, enc: Encoding) -> str:
    """Apply one ``didChange`` content change (incremental or whole document) to ``text``.

    Ranges are decoded with the text's own :class:`LineIndex` (lines split only at ``\\n``,
    ``\\r\\n`` and ``\\r`` as LSP defines, unlike ``str.splitlines``).
    """
    rng = getattr(change, "range", None)
    if rng is None:
        return change.text
    first, last = sorted((max(0, rng.start.line), max(0, rng.end.line)))
    at = _line_start(text, first) if text.count("\r") == text.count("\r\n") else None
    if at is None:  # a lone CR breaks lines too: index the whole text
        base, lines = 0, LineIndex(text)
        first = 0
    else:
        # Only the lines the range spans are indexed (a whole 12,758-line text indexed at every
        # keystroke cost ~10 ms: a fresh reviewer's server fell seconds behind at key repeat).
        stop = _line_start(text, last + 1, at, first)
        base, lines = at, LineIndex(text[at:stop if stop is not None else len(text)])

    def offset(pos: types.Position) -> int:
        return base + lines.offset(from_position(types.Position(line=pos.line - first, character=pos.character), lines, enc))

    start, end = offset(rng.start), offset(rng.end)
    if end < start:
        start, end = end, start
    return text[:start] + change.text + text[end:]


#: Characters counted at a time by :func:`_line_start`.
_SPAN = 1 << 16


def _line_start(text: str, line: int, at: int = 0, at_line: int = 0) -> int | None:
    """Offset where 0-based ``line`` starts in ``text`` (whose only line breaks are ``\n``
    and ``\r\n``), counting from offset ``at``, the start of line ``at_line``; the text's
    length when it has fewer lines. Line breaks counted in C, a span at a time."""
    need = line - at_line
    if need <= 0:
        return at
    n = len(text)
    pos = at
    while pos < n:
        found = text.count("\n", pos, pos + _SPAN)
        if found >= need:
            break
        need -= found
        pos += _SPAN
    else:
        return n
    i = pos - 1
    for _ in range(need):
        i = text.find("\n", i + 1)
    return i + 1


def text_edits(edits: Iterable[Any], lines: LineIndex, enc: Encoding) -> list[types.TextEdit]:
    """Core edits (anything with ``range`` and ``new_text``, in code points of the text
    ``lines`` indexes) as LSP ``TextEdit`` values."""
    return [types.TextEdit(range=to_range(e.range, lines, enc), new_text=e.new_text) for e in edits]


def workspace_edit(per_file: Iterable[tuple[str, int | None, list[types.TextEdit]]], document_changes: bool) -> types.WorkspaceEdit:
    """``(uri, version, edits)`` per file as a ``WorkspaceEdit``: ``documentChanges`` (the
    version of each open document, null for a closed file) when the client supports it, else
    ``changes`` (LSP 3.17 §"WorkspaceEdit")."""
    per_file = list(per_file)
    if document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)
                for uri, version, edits in per_file
            ]
        )
    return types.WorkspaceEdit(changes={uri: edits for uri, _v, edits in per_file})


#: The id prefix of a rename's change annotations (LSP 3.17 §"Change Annotations").
RENAME_ANNOTATION = "runway.rename"


def annotated_workspace_edit(
    per_file: Iterable[tuple[str, int | None, list[tuple[types.TextEdit, str]]]], annotations: dict[str, types.ChangeAnnotation]
) -> types.WorkspaceEdit:
    """Like :func:`workspace_edit` (``documentChanges``), each edit carrying the change
    annotation whose id it is paired with: the client shows each annotation's ``label`` over
    its edits and holds the ones that need confirmation until the user confirms them (VS
    Code's Refactor Preview groups the edits by label and starts those unticked)."""
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=[types.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=aid) for e, aid in edits],
            )
            for uri, version, edits in per_file
        ],
        change_annotations=annotations,
    )


def change_annotation(label: str, needs_confirmation: bool, description: str) -> types.ChangeAnnotation:
    """One change annotation of a workspace edit (LSP 3.17 ``ChangeAnnotation``): the client
    shows ``label`` over the edits paired with it and, with ``needs_confirmation``, holds them
    until the user ticks them."""
    return types.ChangeAnnotation(label=label, needs_confirmation=needs_confirmation, description=description)


def supports_change_annotations(caps: types.ClientCapabilities | None) -> bool:
    """The client's ``workspace.workspaceEdit.documentChanges`` and ``changeAnnotationSupport``."""
    ws = caps.workspace if caps is not None else None
    we = ws.workspace_edit if ws is not None else None
    return bool(we is not None and we.document_changes and we.change_annotation_support is not None)


def supports_document_changes(caps: types.ClientCapabilities | None) -> bool:
    """The client's ``workspace.workspaceEdit.documentChanges``."""
    ws = caps.workspace if caps is not None else None
    we = ws.workspace_edit if ws is not None else None
    return bool(we is not None and we.document_changes)
