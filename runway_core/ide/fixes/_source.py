"""One analysed file's text, and the minimal edits of it a quick fix writes: a scalar's own
characters, a line inserted with its siblings' indentation and the file's line ending, an
entry's own lines or flow item deleted. YAML is never re-dumped.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, Sequence

from ...positions import Position, Range
from ...yamlsrc import YMap, YNode, YScalar, YSeq, iter_nodes, scalar_text
from .._edit import TextEdit

if TYPE_CHECKING:
    from ...facts import SourceFile

def _literal(value: str, style: str = "") -> str:
    """``value`` as a YAML scalar in ``style`` ('', "'", '"'): :func:`~runway_core.yamlsrc.scalar_text`."""
    return scalar_text(value, style)


class _Src:
    """One analysed file's text with the helpers that build minimal edits."""

    def __init__(self, src: "SourceFile") -> None:
        self.path = src.path
        self.parsed = src.parsed
        self.text = src.parsed.text
        self.lines = src.parsed.lines
        m = re.search(r"\r\n|\r|\n", self.text)
        self.eol = m.group(0) if m else "\n"

    # positions
    def off(self, pos: Position) -> int:
        return self.lines.offset(pos)

    def pos(self, offset: int) -> Position:
        return self.lines.position(offset)

    def edit(self, start: int, end: int, text: str) -> TextEdit:
        return TextEdit(Range(self.pos(start), self.pos(end)), text)

    def indent(self, key: YNode) -> int:
        col = key.range.start.character
        if key.range.start.line == 0 and self.text.startswith("\ufeff"):
            col -= 1  # a byte-order mark is a character of line 0, not indentation
        return max(0, col)

    def own_line(self, node: YNode) -> bool:
        """True when only spaces precede ``node`` on its line (not ``- `` of a sequence item)."""
        return not self.lines.line_text(node.range.start.line)[: node.range.start.character].lstrip("\ufeff").strip(" ")

    def end_of(self, node: YNode) -> Position:
        """Where ``node``'s text ends: a block scalar's range runs to the start of the next
        line (and over trailing blank lines); stop at its last non-blank line instead --
        unless the node ends in a block scalar with keep chomping (``|+``, ``>+``, ``|2+``),
        whose trailing blank lines are part of its value (YAML 1.2 §8.1.1.2): then at the
        end of the last of them, its line break excluded."""
        start, end = node.range.start, node.range.end
        if end.character == 0 and end.line > start.line:
            line = end.line - 1
            if _chomping(self, _last_leaf(node)) != "+":
                while line > start.line and not self.lines.line_text(line).strip():
                    line -= 1
            return Position(line, len(self.lines.line_text(line)))
        return end

    def entry_last_line(self, key: YScalar, value: YNode) -> int:
        end = self.end_of(value)
        return max(key.range.end.line, end.line)

    def open_at_end(self, node: YNode) -> bool:
        """True when ``node`` ends the file in a block scalar without its final line break,
        chomped by clip or keep (``|``, ``>+``): any line written after it would give the
        scalar a line break its value does not have (``a: |`` then ``  x`` at the end of the
        file is ``"x"``; with a line after it, ``"x\n"``)."""
        leaf = _last_leaf(node)
        if not (isinstance(leaf, YScalar) and leaf.style in ("|", ">")):
            return False
        end = self.off(node.range.end)
        return end >= len(self.text.rstrip(" \t")) and not self.text.endswith(("\n", "\r")) and _chomping(self, leaf) != "-"

    def insert_after_entry(self, key: YScalar, value: YNode, block: str, first: YScalar | None = None) -> TextEdit | None:
        """Insert ``block`` as whole lines after the entry ``key: value``, past the blank
        lines a keep-chomped block scalar ends with (they are its value). When the entry ends
        the file in a block scalar without a final line break, no line can follow it without
        changing that value: the lines go before ``first`` (a key on its own line) instead,
        else None."""
        if self.open_at_end(value):
            if first is None or not self.own_line(first):
                return None
            return self.insert_lines_before(first.range.start.line, block)
        return self.insert_lines_after(self.entry_last_line(key, value), block)

    def insert_lines_after(self, line: int, block: str) -> TextEdit:
        """Insert ``block`` (lines joined by the file's line ending, without a final one) as
        whole lines after ``line``."""
        if line + 1 < self.lines.line_count:
            at = self.lines.line_start(line + 1)
            return self.edit(at, at, block + self.eol)
        end = len(self.text)
        return self.edit(end, end, self.eol + block)  # the last line has no line ending

    def insert_lines_before(self, line: int, block: str) -> TextEdit:
        at = self.lines.line_start(line)
        return self.edit(at, at, block + self.eol)

    def delete_lines(self, first: int, last: int) -> TextEdit:
        """Delete whole lines ``first``..``last`` with their line endings. Right after a
        block scalar kept by ``+``, the blank lines that follow go too (they would join its
        value); right after one chomped by clip or keep, the last lines of the file are
        deleted from their own start (the scalar keeps its final line break)."""
        start = self.lines.line_start(first)
        before = self._block_chomping_ending_at(first)
        if before == "+":
            while last + 1 < self.lines.line_count and not self.lines.line_text(last + 1).strip():
                last += 1
        if last + 1 < self.lines.line_count:
            return self.edit(start, self.lines.line_start(last + 1), "")
        if before in ("+", ""):
            return self.edit(start, len(self.text), "")
        # The last lines of the file: take the line ending before them instead.
        return self.edit(self.lines.line_end(first - 1) if first > 0 else 0, len(self.text), "")

    def _block_chomping_ending_at(self, line: int) -> str | None:
        """The chomping indicator (``'+'``, ``'-'``, ``''``) of a block scalar whose text runs
        up to the start of ``line``, or None when none does."""
        if line == 0 or self.parsed.root is None:
            return None
        at = Position(line, 0)
        for n in iter_nodes(self.parsed.root):
            if isinstance(n, YScalar) and n.style in ("|", ">") and n.range.end == at:
                return _chomping(self, n)
        return None

    def colon_after(self, key: YScalar) -> int | None:
        """Offset just past the ``:`` that follows ``key``."""
        i = self.off(key.range.end)
        while i < len(self.text) and self.text[i] in " \t":
            i += 1
        return i + 1 if i < len(self.text) and self.text[i] == ":" else None

    def owns(self, mp: YMap, key: YScalar) -> bool:
        """True when ``key`` is written in ``mp`` itself, not merged in (``<<``) from elsewhere
        or from an inline source: at the mapping's own indentation (block) or bracket depth
        (flow)."""
        if not _within(key, mp):
            return False
        if mp.flow:
            return _depth(self.text, self.off(mp.range.start), self.off(key.range.start)) == 1
        return key.range.start == mp.range.start or (self.own_line(key) and self.indent(key) == self.indent(mp))

    def own_entries(self, mp: YMap) -> list[tuple[YScalar, YNode]]:
        return [(k, v) for k, v in mp.entries if self.owns(mp, k)]

    # scalars
    def replace_scalar(self, node: YScalar, value: str) -> TextEdit:
        """Replace a scalar's value, inside its quotes when it is quoted on one line."""
        start, end = self.off(node.range.start), self.off(self.end_of(node))
        if node.style in ("'", '"') and node.range.start.line == node.range.end.line:
            return self.edit(start + 1, end - 1, _literal(value, node.style)[1:-1])
        return self.edit(start, end, _literal(value, '"' if node.style in ("|", ">") else ""))

    def set_value(self, key: YScalar, value: YNode, text: str) -> TextEdit | None:
        """Write ``text`` as the value of ``key`` whose value is null (empty, ``~``, ``null``)."""
        if value.range.start != value.range.end:
            return self.edit(self.off(value.range.start), self.off(value.range.end), text)
        colon = self.colon_after(key)
        return None if colon is None else self.edit(colon, colon, " " + text)

    # mappings
    def insert_entry(self, mp: YMap, key: str, value: str, before: YScalar | None = None) -> TextEdit | None:
        """Add ``key: value`` to mapping ``mp`` (before key ``before`` when given, else last)."""
        own = self.own_entries(mp)
        if before is not None and not self.owns(mp, before):
            before = None
        if mp.flow:
            if not own:
                if mp.entries:
                    return None  # only merged keys: where the braces' items are is unclear
                start, end = self.off(mp.range.start), self.off(mp.range.end)
                if self.text[start : start + 1] != "{" or self.text[end - 1 : end] != "}":
                    return None
                return self.edit(start + 1, end - 1, f"{key}: {value}")
            if before is not None:
                at = self.off(before.range.start)
                return self.edit(at, at, f"{key}: {value}, ")
            k, v = own[-1]
            at = self.off(max(k.range.end, self.end_of(v)))
            return self.edit(at, at, f", {key}: {value}")
        if not own:
            return None
        line = " " * self.indent(own[0][0]) + f"{key}: {value}"
        if before is not None and self.own_line(before):
            return self.insert_lines_before(before.range.start.line, line)
        k, v = own[-1]
        return self.insert_after_entry(k, v, line, own[0][0])

    def remove_entry(self, mp: YMap, key: str) -> TextEdit | None:
        """Delete entry ``key`` of ``mp``: its whole lines in a block mapping, the item and
        one comma in a flow mapping."""
        own = self.own_entries(mp)
        idx = next((i for i, (k, _v) in enumerate(own) if k.text == key), None)
        if idx is None:
            return None
        k, v = own[idx]
        if mp.flow:
            if idx + 1 < len(own):
                return self.edit(self.off(k.range.start), self.off(own[idx + 1][0].range.start), "")
            if idx > 0:
                pk, pv = own[idx - 1]
                return self.edit(self.off(max(pk.range.end, self.end_of(pv))), self.off(max(k.range.end, self.end_of(v))), "")
            start, end = self.off(mp.range.start), self.off(mp.range.end)
            return self.edit(start + 1, end - 1, "")
        if not self.own_line(k):
            return None  # `- key: v` (the first key of a sequence item): not a line of its own
        return self.delete_lines(k.range.start.line, self.entry_last_line(k, v))


_BLOCK_HEADER = re.compile(r"[|>]([1-9][+-]?|[+-][1-9]?)?")


def _last_leaf(node: YNode) -> YNode:
    """The node whose text ends ``node``'s: its last entry's value or last item, down to a
    scalar (or an empty collection)."""
    while True:
        if isinstance(node, YMap) and node.entries:
            node = max((v for _k, v in node.entries), key=lambda v: v.range.end)
        elif isinstance(node, YSeq) and node.items:
            node = max(node.items, key=lambda v: v.range.end)
        else:
            return node


def _chomping(src: "_Src", node: YNode) -> str:
    """A block scalar's chomping indicator from its header (``|``, ``|+``, ``>2-``, ``|2+``):
    ``'+'`` keep, ``'-'`` strip, ``''`` clip; ``''`` for any other node."""
    if not (isinstance(node, YScalar) and node.style in ("|", ">")):
        return ""
    at = node.range.start
    m = _BLOCK_HEADER.match(src.lines.line_text(at.line), at.character)
    return "".join(c for c in (m.group(1) or "") if c in "+-") if m else ""


def _within(inner: YNode, outer: YNode) -> bool:
    return outer.range.start <= inner.range.start and inner.range.end <= outer.range.end


def _structure(text: str, start: int, end: int | None = None) -> Iterator[tuple[int, str]]:
    """(offset, character) of every flow indicator (``{}[],``) from ``start``, outside
    quoted scalars and comments."""
    quote = None
    i = start
    stop = len(text) if end is None else end
    while i < stop:
        ch = text[i]
        if quote:
            if quote == '"' and ch == "\\":
                i += 2
                continue
            if ch == quote:
                if quote == "'" and text[i + 1 : i + 2] == "'":
                    i += 2  # '' is a quote inside a single-quoted scalar
                    continue
                quote = None
        elif ch in "'\"" and (i == 0 or text[i - 1] in " \t\r\n{[,:"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\r\n"):
            while i < stop and text[i] not in "\r\n":
                i += 1
            continue
        elif ch in "{}[],":
            yield i, ch
        i += 1


def _depth(text: str, start: int, end: int) -> int:
    """Flow bracket depth at ``end`` when scanning from ``start``."""
    depth = 0
    for _i, ch in _structure(text, start, end):
        depth += 1 if ch in "{[" else -1 if ch in "}]" else 0
    return depth


def _local_path(src: _Src, parts: Sequence[str]) -> list[tuple[YScalar, YNode]] | None:
    """(key, value) pairs along ``parts`` from the root of ``src``, or None when a part is
    missing or a node on the way is shared (carries an anchor, comes from an alias or a
    merge key)."""
    out: list[tuple[YScalar, YNode]] = []
    node = src.parsed.root
    for part in parts:
        if not isinstance(node, YMap) or node.anchor is not None:
            return None
        key, value = node.key_node(part), node.get(part)
        if key is None or value is None or not src.owns(node, key) or not _within(value, node) or value.anchor is not None:
            return None
        out.append((key, value))
        node = value
    return out
