"""Reading the text around the cursor when the tree cannot say (an empty line, a bare word,
a syntax error): a small YAML-aware scanner of the current logical line up to the cursor,
and the indentation walk that finds the keys above it. A subset of YAML's lexer, enough to
place the cursor; never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Characters that end a word being typed (YAML indicators and whitespace).
_WORD_STOP = frozenset(" \t,[]{}#:\"'")
_FLOW = frozenset(",[]{}")


@dataclass
class _Frame:
    """An open flow collection while scanning: ``[`` or ``{`` and the key or index owning it."""

    kind: str
    owner: str | int | None
    names: list[str] = field(default_factory=list)  # `[`: scalar items so far; `{`: keys so far
    count: int = 0
    key: str | None = None  # `{`: the key whose value comes next
    expect: str = "key"
    pending: str | None = None  # a scalar read and not yet closed by `,` or `:`


@dataclass
class _Scan:
    frames: list[_Frame] = field(default_factory=list)
    block_key: str | None = None
    dash: bool = False
    pending: str | None = None
    word: str = ""
    quote: str = ""
    quote_start: int = -1
    comment: bool = False
    closed: bool = False  # a block-level flow collection was closed before the cursor


def _quote_end(text: str, i: int) -> int:
    """Index of the quote closing the scalar opened at ``i`` (-1 when still open)."""
    q = text[i]
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\n":
            return -1
        if q == '"' and c == "\\":
            j += 2
            continue
        if c == q:
            if q == "'" and j + 1 < len(text) and text[j + 1] == "'":
                j += 2  # '' is an escaped quote inside single quotes
                continue
            return j
        j += 1
    return -1


def _close_entry(top: _Frame) -> None:
    if top.kind == "[":
        if top.pending is not None:
            if top.pending:
                top.names.append(top.pending)
            top.count += 1
    elif top.expect == "key" and top.pending:
        top.names.append(top.pending)
    top.pending = None
    top.key = None
    top.expect = "key"


def _scan(text: str) -> _Scan:
    """Read ``text`` (the logical line up to the cursor) token by token: block key, `- `,
    open flow collections with their keys and items, the word touching the end, an open
    quote, a comment. A small subset of YAML's lexer: enough to place the cursor."""
    s = _Scan()
    i, n = 0, len(text)

    def colon_at(j: int) -> bool:
        nxt = text[j + 1] if j + 1 < n else ""
        return nxt in ("", " ", "\t", "\n") or (bool(s.frames) and nxt in _FLOW)

    def scalar(value: str, touches: bool) -> None:
        if s.frames:
            s.frames[-1].pending = value
        else:
            s.pending = value
        s.word = value if touches else ""

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            s.word = ""
            i += 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n"):
            j = text.find("\n", i)
            if j < 0:
                s.comment = True
                return s
            i = j
            continue
        if c == "-" and not s.frames and s.block_key is None and s.pending is None and (i + 1 == n or text[i + 1] in " \t"):
            s.dash = True
            i += 1
            continue
        if c in "[{":
            if s.frames:
                top = s.frames[-1]
                owner: str | int | None = top.count if top.kind == "[" else (top.key if top.expect == "value" else None)
            else:
                owner = s.block_key if s.pending is None else None
            s.frames.append(_Frame(c, owner))
            s.word = ""
            i += 1
            continue
        if c in "]}":
            if s.frames:
                s.frames.pop()
                if s.frames:
                    s.frames[-1].pending = ""  # a collection: an item or value, not a name
                else:
                    s.closed = True
            s.word = ""
            i += 1
            continue
        if c == "," and s.frames:
            _close_entry(s.frames[-1])
            s.word = ""
            i += 1
            continue
        if c == ":" and colon_at(i):
            if s.frames:
                top = s.frames[-1]
                if top.kind == "{":
                    top.key, top.expect = top.pending, "value"
                    if top.pending:
                        top.names.append(top.pending)
                top.pending = None
            else:
                if s.block_key is None:
                    s.block_key = s.pending if s.pending is not None else ""
                s.pending = None
            s.word = ""
            i += 1
            continue
        if c in "\"'":
            j = _quote_end(text, i)
            if j < 0:
                s.quote, s.quote_start = c, i
                return s
            raw = text[i + 1 : j]
            scalar(raw.replace("''", "'") if c == "'" else raw, False)
            i = j + 1
            continue
        j = i
        while j < n:
            ch = text[j]
            if ch == "\n" or (ch == ":" and colon_at(j)) or (s.frames and ch in _FLOW):
                break
            if ch in " \t" and j + 1 < n and text[j + 1] == "#":
                break
            j += 1
        value = text[i:j].rstrip()
        scalar(value, i + len(value) == n)
        i = j
    return s


def _strip_comment(line: str) -> str:
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if quote == '"' and c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t[{,:-"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
        i += 1
    return line


@dataclass(frozen=True, slots=True)
class _Line:
    indent: int
    dash: bool
    key: str | None
    value: str  # after the key's colon ('' when none); the whole text when there is no key
    tabbed: bool = False  # a tab in the indentation (RW006): its level is a guess

    @property
    def opens_block(self) -> bool:
        """A `key:` whose value is on the following lines (only an anchor or tag after it)."""
        return self.key is not None and (self.value == "" or re.fullmatch(r"[&!]\S*", self.value) is not None)


def _classify(raw: str) -> _Line | None:
    """A line's indentation, `- ` indicator, key and value; None for blank/comment lines."""
    line = _strip_comment(raw).rstrip()
    if not line.strip():
        return None
    body = line.lstrip(" \t")
    indent = len(line) - len(body)
    tabbed = "\t" in line[:indent]
    dash = False
    if body == "-" or body.startswith(("- ", "-\t")):
        dash = True
        body = body[1:].lstrip(" \t")
    if not body or body[0] in "[{":
        return _Line(indent, dash, None, body, tabbed)
    if body[0] in "\"'":
        j = _quote_end(body, 0)
        rest = body[j + 1 :].lstrip() if j > 0 else ""
        if j > 0 and rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
            return _Line(indent, dash, body[1:j], rest[1:].strip(), tabbed)
        return _Line(indent, dash, None, body, tabbed)
    m = re.search(r":(?=\s|$)", body)
    if m is None:
        return _Line(indent, dash, None, body, tabbed)
    return _Line(indent, dash, body[: m.start()].strip(), body[m.end() :].strip(), tabbed)


def _parent_path(texts: list[str], line_no: int, indent: int, dash: bool) -> tuple[str, ...] | None:
    """Keys above ``line_no`` by indentation: walk up to each line indented less (its key is
    a parent when its value is on the following lines). For a `- ` item, the sequence's key
    may sit at the dash's own indentation (``uses:\\n- x``). A line indented with a tab
    (RW006) counts only when it opens a block: its level is a guess, so it never ends the
    walk (completion falls back to the lines around it)."""
    path: list[str] = []
    limit = indent
    i = line_no - 1
    if dash:
        while i >= 0:
            info = _classify(texts[i])
            if info is None or (info.tabbed and not info.opens_block) or info.indent > indent or (info.dash and info.indent == indent):
                i -= 1
                continue
            break
        if i < 0:
            return None
        info = _classify(texts[i])
        if info is None or not info.opens_block or info.dash:
            return None
        path.append(info.key or "")
        limit = info.indent
        i -= 1
    first = True
    while i >= 0 and limit > 0:
        info = _classify(texts[i])
        if info is None or info.indent >= limit or (info.tabbed and not info.opens_block):
            i -= 1
            continue
        if first and not dash and not info.opens_block:
            # Indented under an inline value (`reason: >`, `kind: postgres`, `- item`): the
            # line continues that scalar (YAML 1.2 §7.3, §8.1); it is no place for a key.
            return None
        first = False
        if info.dash:
            return None  # inside a mapping that is a list item: no runway key lives there
        if info.opens_block:
            path.append(info.key or "")
        # A key with an inline value at a smaller indentation still fixes the level.
        limit = info.indent
        i -= 1
    return tuple(reversed(path))


def _bracket_balance(line: str) -> int:
    depth = 0
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t[{,:"):
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
    return depth


def _flow_start(texts: list[str], line_no: int) -> int:
    """The line where a flow collection still open at ``line_no`` began (``line_no`` when
    none is open). Flow content must be indented past its block (YAML 1.2 §7), so a line
    indented no deeper than the opener ends an unclosed bracket (a typo, not a collection)."""
    top = line_no - 1
    while top > 0:
        info = _classify(texts[top])
        if info is not None and info.indent == 0:
            break
        top -= 1
    depth = 0
    start, start_indent = line_no, 0
    for i in range(max(top, 0), line_no):
        raw = _strip_comment(texts[i])
        if not raw.strip():
            continue
        ind = len(raw) - len(raw.lstrip(" "))
        if depth > 0 and ind <= start_indent:
            depth = 0
        if depth == 0:
            start, start_indent = i, ind
        depth = max(0, depth + _bracket_balance(raw))
    if depth > 0:
        cur = _strip_comment(texts[line_no])
        if not cur.strip() or len(cur) - len(cur.lstrip(" ")) > start_indent:
            return start
    return line_no


def _suffix_names(rest: str, keys: bool) -> set[str]:
    """Names after the cursor in the same flow collection (``[|, main-db]``)."""
    out: set[str] = set()
    depth = 0
    buf = ""
    for c in rest:
        if c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            out.add(buf)
            buf = ""
        elif depth == 0:
            buf += c
    out.add(buf)
    names = set()
    for item in out:
        text = item.split(":")[0] if keys else item
        text = text.strip().strip("\"'")
        if text:
            names.add(text)
    return names


#: (the first 400 lines) -> their indentation step: the lines above a keystroke rarely change,
#: and classifying 400 lines was ~3 ms of every completion (issue 16 item 10). One entry.
_STEP_MEMO: dict[tuple[str, ...], int] = {}


def _indent_step(texts: list[str]) -> int:
    """The file's indentation step (2 unless the file indents otherwise)."""
    head = tuple(texts[:400])
    hit = _STEP_MEMO.get(head)
    if hit is None:
        hit = _indent_step_of(head)
        _STEP_MEMO.clear()
        _STEP_MEMO[head] = hit
    return hit


def _indent_step_of(texts: tuple[str, ...]) -> int:
    steps = []
    prev: _Line | None = None
    for raw in texts:
        info = _classify(raw)
        if info is None:
            continue
        if prev is not None and prev.opens_block and info.indent > prev.indent:
            steps.append(info.indent - prev.indent)
        prev = info
    return min(steps) if steps else 2
