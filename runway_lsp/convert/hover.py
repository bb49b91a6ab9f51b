"""Hovers: the core's Markdown hover as an LSP ``Hover`` (markup kind Markdown).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from lsprotocol import types

from runway_core.hover import HoverResult
from runway_core.positions import Encoding, LineIndex

from .positions import to_range


def to_hover(h: HoverResult, lines: LineIndex, enc: Encoding) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=h.markdown),
        range=to_range(h.range, lines, enc),
    )
