"""Where the benchmarks type and ask: sizes, ``uses`` lists, kinds and entry names of any runway.

A line-based walk of a runway text (no YAML library: the benchmarks must not depend on the
code they measure, and positions are what matters), tolerant of what hand-written runways
hold and generated ones do not:

- CRLF line ends (lines are split on ``\\n``; a trailing ``\\r`` is kept in the line and never
  counted in a position);
- trailing comments (``size: small  # note``, ``- name  # note``) and comment-only lines;
- block and flow styles: ``size: small``, a block map ``size:`` + ``  prod: large`` lines, a
  flow map ``size: {dev: small, production: large}``; ``uses: [a, b]`` (also over several
  lines) and block lists ``uses:`` + ``  - a`` lines (indented or not);
- anchors, aliases and merge keys (skipped: their values are not sizes), block scalars.

Positions are ``(line, column)`` with the column counted in code points; :func:`u16` turns a
column into the UTF-16 code units LSP positions use (differs only past astral characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ENTRY_SECTIONS = ("resources", "workloads")
SIZE_NAMES = ("small", "medium", "large", "xlarge")

_KEY = re.compile(r"""(?P<dash>-[ ]+)?(?P<key>"[^"]*"|'[^']*'|[^\s#'"\[\]{},&*!|>%@`-][^#]*?)[ ]*:(?=[ \t]|$)""")
_FLOW_ITEM = re.compile(r"""([^\s,:{}\[\]'"#][^,:{}\[\]#]*?)[ ]*:[ ]*(["']?)([A-Za-z0-9_.-]+)\2[ ]*(?=[,}])""")
_SIZE_VALUE = re.compile(r"""(["']?)(%s)\1$""" % "|".join(SIZE_NAMES))


def body(line: str) -> str:
    """The line without its trailing ``\\r`` (CRLF files)."""
    return line[:-1] if line.endswith("\r") else line


def comment_at(s: str) -> int:
    """Index of the ``#`` that starts a comment in ``s`` (outside quotes, at the start or after
    a blank), else ``len(s)``."""
    quote = None
    i = 0
    while i < len(s):
        ch = s[i]
        if quote:
            if quote == '"' and ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"" and (i == 0 or s[i - 1] in " \t[{,:"):
            quote = ch
        elif ch == "#" and (i == 0 or s[i - 1] in " \t"):
            return i
        i += 1
    return len(s)


def content_end(s: str) -> int:
    """End of ``s``'s content: before a comment and the blanks before it."""
    return len(s[: comment_at(s)].rstrip())


def u16(line: str, col: int) -> int:
    """Column ``col`` (code points) of ``line`` in UTF-16 code units (LSP's default)."""
    return col + sum(1 for ch in line[:col] if ord(ch) > 0xFFFF)


def from_u16(line: str, units: int) -> int:
    """The inverse of :func:`u16`: a UTF-16 column of ``line`` in code points."""
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


@dataclass(frozen=True)
class Span:
    """A value or a name in the text: ``line``, ``[start, end)`` in code points."""

    line: int
    start: int
    end: int
    text: str
    section: str = ""


@dataclass
class UsesList:
    """One ``uses`` list. ``flow``: ``close`` is the position of its ``]``; ``block``:
    ``last_line`` is the line of its last item, ``item_indent`` the column of its ``-``."""

    line: int
    style: str  # flow | block
    section: str
    items: list[tuple[int, int]] = field(default_factory=list)  # where each item starts
    close: tuple[int, int] | None = None
    last_line: int = -1
    item_indent: int = 0


@dataclass
class Places:
    lines: list[str]
    eol: str  # "\r\n" when the text's first line ends so, else "\n"
    sections: dict[str, tuple[int, int]]  # top-level key -> (its line, end line exclusive)
    entries: dict[str, list[Span]]  # resources/workloads/environments -> entry names
    sizes: list[Span]  # size values of resources and workloads (scalar, block map, flow map)
    kinds: list[Span]
    uses: list[UsesList]
    entry_indent: dict[str, tuple[int, int]]  # section -> (entry indent, property indent)
    inline_sections: set[str] = field(default_factory=set)  # top-level keys with a value on their line (`workloads: {}`)

    def kinds_found(self) -> dict[str, int]:
        return {"sizes": len(self.sizes), "uses lists": len(self.uses), "kinds": len(self.kinds),
                "resources": len(self.entries.get("resources", [])), "workloads": len(self.entries.get("workloads", []))}


def _flow_close(lines: list[str], line: int, col: int) -> tuple[int, int] | None:
    """Where the flow collection opened at ``(line, col)`` closes (over several lines too)."""
    depth = 0
    quote = None
    for ln in range(line, min(len(lines), line + 200)):
        s = body(lines[ln])
        end = comment_at(s) if ln > line else len(s)
        if ln == line:
            end = len(s[: comment_at(s)])
        start = col if ln == line else 0
        i = start
        while i < end:
            ch = s[i]
            if quote:
                if quote == '"' and ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
                if depth == 0:
                    return ln, i
            i += 1
    return None


def scan(text: str) -> Places:
    """Find the places of ``text`` (see the module docstring)."""
    lines = text.split("\n")
    eol = "\r\n" if lines and lines[0].endswith("\r") else "\n"
    sections: dict[str, tuple[int, int]] = {}
    entries: dict[str, list[Span]] = {}
    sizes: list[Span] = []
    kinds: list[Span] = []
    uses: list[UsesList] = []
    entry_indent: dict[str, tuple[int, int]] = {}
    stack: list[tuple[int, str]] = []  # (column of the key, key) of the open block mappings
    open_uses: UsesList | None = None  # a block `uses:` whose items may follow
    skip_to = -1  # lines inside a multi-line flow collection or a block scalar
    block_scalar_indent = -1
    section_starts: list[tuple[int, str]] = []
    inline_sections: set[str] = set()

    for no, raw in enumerate(lines):
        s = body(raw)
        if no <= skip_to:
            continue
        stripped = s.strip()
        indent = len(s) - len(s.lstrip(" "))
        if block_scalar_indent >= 0:
            if stripped == "" or indent > block_scalar_indent:
                continue
            block_scalar_indent = -1
        if stripped == "" or stripped.startswith("#") or stripped in ("---", "..."):
            continue
        m = _KEY.match(s, indent)
        dash = s.startswith("-", indent) and (len(s) == indent + 1 or s[indent + 1] in " \t")
        if m is None or (dash and not m.group("dash")):
            # a sequence item without a key (or a line this walk does not read)
            if dash:
                while stack and stack[-1][0] > indent:
                    stack.pop()
                path = [k for _, k in stack]
                if open_uses is not None and len(path) == 3 and path[2] == "uses" and path[0] in ENTRY_SECTIONS:
                    col = indent + 1 + len(s[indent + 1 :]) - len(s[indent + 1 :].lstrip(" \t"))
                    if content_end(s) > col:
                        open_uses.items.append((no, col))
                        open_uses.last_line = no
                        open_uses.item_indent = indent
            continue
        key_col = m.start("key")
        key = m.group("key").strip("'\"")
        value_col = m.end()
        value_col += len(s[value_col:]) - len(s[value_col:].lstrip(" \t"))
        vend = content_end(s)
        value = s[value_col:vend] if vend > value_col else ""
        while stack and stack[-1][0] >= key_col:
            stack.pop()
        path = [k for _, k in stack] + [key]
        if open_uses is not None and not (len(stack) >= 3 and stack[2][1] == "uses"):
            if open_uses.items:
                uses.append(open_uses)
            open_uses = None
        depth = len(path)
        if depth == 1 and key_col == 0:
            section_starts.append((no, key))
            if value:
                inline_sections.add(key)
        sec = path[0]
        if depth == 2 and sec in (*ENTRY_SECTIONS, "environments"):
            entries.setdefault(sec, []).append(Span(no, key_col, key_col + len(m.group("key")), key, sec))
            entry_indent.setdefault(sec, (key_col, -1))
        if depth == 3 and sec in ENTRY_SECTIONS and entry_indent.get(sec, (0, 0))[1] < 0:
            entry_indent[sec] = (entry_indent[sec][0], key_col)
        in_entry = sec in ENTRY_SECTIONS
        if in_entry and depth == 3 and key == "size":
            if value.startswith("{"):
                close = _flow_close(lines, no, value_col)
                end = close[1] if close and close[0] == no else vend
                inner = s[value_col:end] + "}"
                for it in _FLOW_ITEM.finditer(inner, 1):
                    if it.group(3) in SIZE_NAMES:
                        sizes.append(Span(no, value_col + it.start(3), value_col + it.end(3), it.group(3), sec))
            elif (sv := _SIZE_VALUE.match(value)) is not None:
                sizes.append(Span(no, value_col + sv.start(2), value_col + sv.end(2), sv.group(2), sec))
        elif in_entry and depth == 4 and path[2] == "size":
            if (sv := _SIZE_VALUE.match(value)) is not None:
                sizes.append(Span(no, value_col + sv.start(2), value_col + sv.end(2), sv.group(2), sec))
        elif in_entry and depth == 3 and key == "kind" and value and value[0] not in "&*!{[":
            kinds.append(Span(no, value_col, vend, value, sec))
        elif in_entry and depth == 3 and key == "uses":
            if value.startswith("["):
                close = _flow_close(lines, no, value_col)
                if close is not None:
                    ul = UsesList(no, "flow", sec, close=close)
                    first = value_col + 1 + len(s[value_col + 1 :]) - len(s[value_col + 1 :].lstrip(" "))
                    if (no, first) != close:
                        ul.items.append((no, first))
                        stop = close[1] if close[0] == no else vend
                        for it in re.finditer(r",[ ]*", s[:stop]):
                            if value_col < it.start() and it.end() < stop:  # (items on later lines: not listed)
                                ul.items.append((no, it.end()))
                    uses.append(ul)
            elif value == "":
                open_uses = UsesList(no, "block", sec)
        # what the value opens: a block mapping, a multi-line flow collection, a block scalar
        if value == "" or value.startswith(("&", "!")) and " " not in value:
            stack.append((key_col, key))
        elif value[0] in "[{":
            close = _flow_close(lines, no, value_col)
            if close is not None and close[0] > no:
                skip_to = close[0]
        elif value[0] in "|>":
            block_scalar_indent = indent if not m.group("dash") else key_col - 1
    if open_uses is not None and open_uses.items:
        uses.append(open_uses)
    for j, (no, name) in enumerate(section_starts):
        end = section_starts[j + 1][0] if j + 1 < len(section_starts) else len(lines)
        sections.setdefault(name, (no, end))
    uses.sort(key=lambda u: u.line)
    return Places(lines, eol, sections, entries, sizes, kinds, uses, entry_indent, inline_sections)


def section_insert_line(lines: list[str], sections: dict[str, tuple[int, int]], name: str) -> int | None:
    """The line before which a new entry goes at the end of section ``name`` (after its last
    non-blank, non-comment-only line), or None without that section."""
    if name not in sections:
        return None
    start, end = sections[name]
    at = end
    while at > start + 1 and (body(lines[at - 1]).strip() == "" or body(lines[at - 1]).lstrip().startswith("#")):
        at -= 1
    return at
