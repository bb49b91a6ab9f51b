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


def split_lines(text: str) -> list[str]:
    """``text``'s lines without their terminators, split as :class:`LineIndex` splits them (at
    ``\n``, ``\r\n`` and a lone ``\r``): item N is line N of every position. Anything that
    numbers lines for comparison with positions splits here, never at ``"\n"`` alone."""
    if "\r" not in text:
        return text.split("\n")
    return _BREAK.split(text)


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



def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b``: ranges halved and compared in C
    (O(len), no Python loop per character or line)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit`` (the same way)."""
    lo, hi = 0, limit
    la, lb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class LineIndex:
    """Maps code-point offsets of one text to positions, and positions to other encodings.

    Built once per text (O(n)); lookups are O(log lines).
    """

    __slots__ = ("text", "_starts", "_tables")

    def __init__(self, text: str) -> None:
        self.text = text
        self._tables: dict[tuple[int, str], list[int]] | None = None  # (line, encoding) -> units at each chunk start
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

    def all_lines(self) -> list[str]:
        """``[line_text(i) for i in range(line_count)]``, in one split (a new list)."""
        return split_lines(self.text)

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
    #
    # Conversions cost O(one chunk), not O(line): a line longer than a chunk gets, once, a
    # table of its units at every chunk start. Without it, a 1 MB single-line file with many
    # diagnostics converts in O(line) per diagnostic, i.e. quadratic time (docs/reliability.md).

    def _units(self, segment: str, encoding: Encoding) -> int:
        if segment.isascii():
            return len(segment)
        if encoding == "utf-16":
            return len(segment.encode("utf-16-le", "surrogatepass")) // 2
        return len(segment.encode("utf-8", "surrogatepass"))

    def _table(self, line: int, start: int, end: int, encoding: Encoding) -> list[int]:
        """Units of ``encoding`` before each chunk start of ``line``, and the line's total."""
        if self._tables is None:
            self._tables = {}
        table = self._tables.get((line, encoding))
        if table is None:
            table = [0]
            for i in range(start, end, _CHUNK):
                table.append(table[-1] + self._units(self.text[i : min(i + _CHUNK, end)], encoding))
            self._tables[(line, encoding)] = table
        return table

    def encode_position(self, pos: Position, encoding: Encoding = "utf-16") -> Position:
        """Convert a code-point position to ``encoding`` units on the same line."""
        if encoding == "utf-32":
            return pos
        start, end = self.line_start(pos.line), self.line_end(pos.line)
        n = max(0, min(pos.character, end - start))
        if n <= _CHUNK:
            return Position(pos.line, self._units(self.text[start : start + n], encoding))
        k = n // _CHUNK
        table = self._table(pos.line, start, end, encoding)
        return Position(pos.line, table[k] + self._units(self.text[start + k * _CHUNK : start + n], encoding))

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
        start, end = self.line_start(pos.line), self.line_end(pos.line)
        target = max(0, pos.character)
        if encoding == "utf-32":
            return Position(pos.line, min(target, end - start))
        first = 0  # the scan starts at this character of the line
        units = 0
        stop = end
        if end - start > _CHUNK:
            table = self._table(pos.line, start, end, encoding)
            k = bisect.bisect_right(table, target) - 1  # the last chunk that starts at or before target
            k = max(0, min(k, len(table) - 2))
            first, units = k * _CHUNK, table[k]
            stop = min(end, start + first + _CHUNK)  # the target lies in this chunk (or past the line's end)
        line = self.text[start + first : stop]
        if line.isascii():
            return Position(pos.line, first + min(max(0, target - units), len(line)))
        for i, c in enumerate(line):
            if units >= target:
                return Position(pos.line, first + i)
            if encoding == "utf-16":
                units += 2 if ord(c) > 0xFFFF else 1
            else:
                units += len(c.encode("utf-8", "surrogatepass"))
            if units > target:
                return Position(pos.line, first + i)
        return Position(pos.line, first + len(line))


#: Characters per chunk of a long line's units table (:meth:`LineIndex._table`).
_CHUNK = 1024


class LineMap:
    """Lines of an older text mapped onto a newer one, for what was computed on the older
    text (the last analysis that parsed) and is shown on the newer one.

    Unchanged lines map to their new number: the lines before the first change and after
    the last keep theirs (shifted by the change in line count), and between them lines are
    matched by :class:`difflib.SequenceMatcher` (when that stretch is at most
    :attr:`MATCH_LINES` lines on each side). Changed lines map to nothing. Characters within
    a mapped line are the same (its text is equal).
    """

    MATCH_LINES = 2000

    __slots__ = ("_old", "_new", "_size")

    def __init__(self, old: LineIndex, new: LineIndex) -> None:
        import difflib

        n_old, n_new = old.line_count, new.line_count
        head = 0
        while head < min(n_old, n_new) and old.line_text(head) == new.line_text(head):
            head += 1
        tail = 0
        while tail < min(n_old, n_new) - head and old.line_text(n_old - 1 - tail) == new.line_text(n_new - 1 - tail):
            tail += 1
        blocks = [(0, 0, head)]
        a = [old.line_text(i) for i in range(head, n_old - tail)]
        b = [new.line_text(i) for i in range(head, n_new - tail)]
        if a and b and max(len(a), len(b)) <= self.MATCH_LINES:
            matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
            blocks += [(head + i, head + j, n) for i, j, n in matcher.get_matching_blocks() if n]
        blocks.append((n_old - tail, n_new - tail, tail))
        blocks = [blk for blk in blocks if blk[2] > 0]
        self._old = [blk[0] for blk in blocks]
        self._new = [blk[1] for blk in blocks]
        self._size = [blk[2] for blk in blocks]

    @staticmethod
    def _find(starts: list[int], sizes: list[int], other: list[int], line: int) -> int | None:
        i = bisect.bisect_right(starts, line) - 1
        if i >= 0 and line < starts[i] + sizes[i]:
            return other[i] + line - starts[i]
        return None

    def line_to_new(self, line: int) -> int | None:
        return self._find(self._old, self._size, self._new, line)

    def line_to_old(self, line: int) -> int | None:
        return self._find(self._new, self._size, self._old, line)

    def position_to_new(self, pos: Position) -> Position | None:
        line = self.line_to_new(pos.line)
        return None if line is None else Position(line, pos.character)

    def position_to_old(self, pos: Position) -> Position | None:
        line = self.line_to_old(pos.line)
        return None if line is None else Position(line, pos.character)

    def range_to_new(self, rng: Range) -> Range | None:
        start, end = self.position_to_new(rng.start), self.position_to_new(rng.end)
        return None if start is None or end is None else Range(start, end)
