"""The language server's one conversion edge: core values <-> lsprotocol types.

Only this module builds protocol values from the core's (ranges, diagnostics, hovers) and
decodes protocol positions into the core's, applying the negotiated position encoding through
the document's :class:`~runway_core.positions.LineIndex` (LSP 3.17 §"Position"; STYLE.md §3-4).
It also decides the markup kind (Markdown) of hovers.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from lsprotocol import types

from runway_core.diagnostics import Diagnostic
from runway_core.hover import HoverResult
from runway_core.positions import Encoding, LineIndex, Position, Range

SOURCE = "runway"

#: Encodings this server speaks, by LSP name (LSP 3.17 §"PositionEncodingKind").
_ENCODINGS: dict[str, Encoding] = {"utf-8": "utf-8", "utf-16": "utf-16", "utf-32": "utf-32"}


def encoding_of(name: str | None) -> Encoding:
    """The core encoding for a negotiated LSP ``positionEncoding`` (default utf-16)."""
    return _ENCODINGS.get(str(name or "utf-16"), "utf-16")


def preferred_encoding(offered: Sequence[str] | None) -> str:
    """What to negotiate: utf-8 when the client offers it (no re-counting for a UTF-8
    editor), else the mandatory utf-16 (LSP 3.17: utf-16 must always be supported)."""
    return "utf-8" if offered and "utf-8" in [str(e) for e in offered] else "utf-16"


# --- positions and ranges ------------------------------------------------------------------


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


def apply_change(text: str, change: types.TextDocumentContentChangeEvent, enc: Encoding) -> str:
    """Apply one ``didChange`` content change (incremental or whole document) to ``text``.

    Ranges are decoded with the text's own :class:`LineIndex` (lines split only at ``\\n``,
    ``\\r\\n`` and ``\\r`` as LSP defines, unlike ``str.splitlines``).
    """
    rng = getattr(change, "range", None)
    if rng is None:
        return change.text
    lines = LineIndex(text)
    start = lines.offset(from_position(rng.start, lines, enc))
    end = lines.offset(from_position(rng.end, lines, enc))
    if end < start:
        start, end = end, start
    return text[:start] + change.text + text[end:]


# --- diagnostics -----------------------------------------------------------------------------


def to_diagnostic(d: Diagnostic, lines: LineIndex, enc: Encoding) -> types.Diagnostic:
    """Severity, string code, source ``runway``, message, ``data`` passed through, tags."""
    return types.Diagnostic(
        range=to_range(d.range, lines, enc),
        message=d.message,
        severity=types.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        source=SOURCE,
        tags=[types.DiagnosticTag(t) for t in d.tags] or None,
        data=_json_safe(d.data),
    )


def _json_safe(data: Any) -> Any:
    """``data`` as plain JSON values (a Decimal or tuple from a rule must not break sending)."""
    if data is None:
        return None
    try:
        return json.loads(json.dumps(data, default=str))
    except (TypeError, ValueError):
        return None


def to_diagnostics(diags: Iterable[Diagnostic], lines: LineIndex, enc: Encoding) -> list[types.Diagnostic]:
    return [to_diagnostic(d, lines, enc) for d in diags]


def publish_params(uri: str, version: int | None, diags: list[types.Diagnostic]) -> types.PublishDiagnosticsParams:
    return types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)


def full_report(diags: list[types.Diagnostic]) -> types.RelatedFullDocumentDiagnosticReport:
    """A pull-diagnostics answer (LSP 3.17 §"Document Diagnostics"); always a full report."""
    return types.RelatedFullDocumentDiagnosticReport(items=diags)


def diagnostic_options() -> types.DiagnosticOptions:
    # A member's diagnostics depend on its root and the reverse (uses, RW180), hence
    # interFileDependencies; no workspace pull: other files are pushed.
    return types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False)


# --- hover -----------------------------------------------------------------------------------


def to_hover(h: HoverResult, lines: LineIndex, enc: Encoding) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=h.markdown),
        range=to_range(h.range, lines, enc),
    )
