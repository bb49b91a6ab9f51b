"""Hovers: the core's Markdown hover as an LSP ``Hover`` (markup kind Markdown).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from runway_core.positions import Encoding, LineIndex

if TYPE_CHECKING:  # annotations only: converting needs no analysis module loaded
    from runway_core.ide.hover import HoverResult

from .positions import to_range


def to_hover(h: HoverResult, lines: LineIndex, enc: Encoding) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=h.markdown),
        range=to_range(h.range, lines, enc),
    )
