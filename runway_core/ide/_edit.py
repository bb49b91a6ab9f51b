"""The one text edit shape of every editor query (quick fixes, rename): a range of the file as
analysed, in code points, and its replacement."""

from __future__ import annotations

from dataclasses import dataclass

from ..positions import Range


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``range`` (code points of the file as analysed) with ``new_text``."""

    range: Range
    new_text: str


__all__ = ["TextEdit"]
