"""Positions and ranges in the core's one convention, and conversion at the edges.

The core keeps 0-based line / character positions where *character* counts Unicode code
points, and lines are split only at ``\\n``, ``\\r\\n`` and ``\\r`` (LSP 3.17 §"Text Documents":
no other line terminators). YAML's own marks also break lines at U+0085/U+2028/U+2029, so the
loader converts from the parser's code-point *offset*, never from its line/column.

Conversion to UTF-16 code units (LSP default, CLI JSON) or UTF-8 bytes happens once, here.
Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

_BREAK = re.compile(r"\r\n|\r|\n")

Encoding = Literal["utf-16", "utf-8", "utf-32"]


@dataclass(frozen=True, order=True, slots=True)
class Position:
    """0-based line and character (code points in the core)."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Range:
    """Half-open range [start, end) of :class:`Position`."""

    start: Position
    end: Position

    def contains(self, pos: Position) -> bool:
        """True when ``pos`` lies in the range (the end position counts, as editors expect)."""
        return self.start <= pos <= self.end

    @staticmethod
    def at(line: int, character: int, end_character: int | None = None) -> "Range":
        """A single-line range; ``end_character`` defaults to ``character``."""
        return Range(Position(line, character), Position(line, character if end_character is None else end_character))


ZERO_RANGE = Range(Position(0, 0), Position(0, 0))


class LineIndex:
    """Maps code-point offsets of one text to positions, and positions to other encodings.

    Built once per text (O(n)); lookups are O(log lines).
    """

    __slots__ = ("text", "_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        if "\r" not in text:
            # Common case: LF only. One C-level scan per line.
            find = text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
        else:
            # \r\n, \r and \n only: the LSP line terminators (\r\n counts once).
            starts.extend(m.end() for m in _BREAK.finditer(text))
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Offset of the first character of ``line`` (clamped)."""
        line = max(0, min(line, len(self._starts) - 1))
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the last character of ``line``, excluding its terminator."""
        line = max(0, min(line, len(self._starts) - 1))
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        while end > self._starts[line] and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self.text[self.line_start(line) : self.line_end(line)]

    def position(self, offset: int) -> Position:
        """Position of a code-point offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        end = self.line_end(line)
        return Position(line, min(offset, end) - start)

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(max(start, end)))

    def offset(self, pos: Position) -> int:
        """Code-point offset of a position (clamped to its line)."""
        if pos.line >= len(self._starts):
            return len(self.text)
        start = self.line_start(pos.line)
        return min(start + max(0, pos.character), self.line_end(pos.line))

    # --- encodings -------------------------------------------------------------------
    def encode_position(self, pos: Position, encoding: Encoding = "utf-16") -> Position:
        """Convert a code-point position to ``encoding`` units on the same line."""
        if encoding == "utf-32":
            return pos
        line = self.line_text(pos.line)[: pos.character]
        if encoding == "utf-16":
            return Position(pos.line, pos.character + sum(1 for c in line if ord(c) > 0xFFFF))
        return Position(pos.line, len(line.encode("utf-8", "surrogatepass")))

    def encode_range(self, rng: Range, encoding: Encoding = "utf-16") -> Range:
        return Range(self.encode_position(rng.start, encoding), self.encode_position(rng.end, encoding))

    def decode_position(self, pos: Position, encoding: Encoding = "utf-16") -> Position:
        """Convert a position in ``encoding`` units to code points; clamps past line end.

        A position inside a surrogate pair or a multi-byte sequence snaps to the character
        that contains it (LSP 3.17: clients must not split characters; be lenient anyway).
        """
        if pos.line >= len(self._starts):
            last = len(self._starts) - 1
            return Position(last, self.line_end(last) - self.line_start(last))
        line = self.line_text(pos.line)
        if encoding == "utf-32":
            return Position(pos.line, min(max(0, pos.character), len(line)))
        units = 0
        target = max(0, pos.character)
        for i, c in enumerate(line):
            if units >= target:
                return Position(pos.line, i)
            if encoding == "utf-16":
                units += 2 if ord(c) > 0xFFFF else 1
            else:
                units += len(c.encode("utf-8", "surrogatepass"))
            if units > target:
                return Position(pos.line, i)
        return Position(pos.line, len(line))
