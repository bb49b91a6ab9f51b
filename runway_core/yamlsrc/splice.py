"""``reparse``: the parse of a text one keystroke away from an earlier parse, by parsing again
only the entry the keystroke changed (issue 16 item 10).

A keystroke in a 3,200-line runway changes one line of one resource or workload, yet
:func:`~runway_core.yamlsrc.parse.parse_yaml` reads the whole file again (about half of the
keystroke's analysis, and most of a completion sent right after it). When the edit keeps the
number of lines and stays inside one entry of a top-level section (``resources: {db: ...}``:
the lines from its key to the next sibling key), that entry's lines are parsed alone, at
their own line numbers (the lines above are blank in the text given to the parser, so every
position is the file's), and spliced into a copy of the two mappings above it; every other
node is the earlier tree's own (trees are never mutated after parsing). The result is the
same :class:`ParsedYaml` ``parse_yaml(text)`` returns (tests/core/test_reparse.py compares
both, node by node, on random edits).

Anything that could read differently in the file than alone gives ``None`` (the caller parses
in full): an earlier parse with diagnostics or cut short; anchors, aliases, tags, merge keys,
block scalars, tabs, BOM or the YAML 1.1 line breaks in the entry; a CR anywhere in either text
(see :func:`_reparse`); an empty value (libyaml
places it at the next token, which differs); a renamed key that now duplicates a sibling;
nesting near :data:`~runway_core.yamlsrc.compose.MAX_DEPTH`; an edit that adds or removes a
line or leaves the entry. Pure; never raises.
"""

from __future__ import annotations

from bisect import bisect_right

from ..positions import LineIndex, common_prefix, common_suffix
from .compose import MAX_DEPTH
from .nodes import ParsedYaml, YMap, YNode, YScalar, YSeq
from .parse import parse_yaml

#: Characters whose presence in the entry (before or after the edit) means a full parse:
#: anchors, aliases, tags, block scalars (their end depends on what follows), directives,
#: tabs (normalised by parse_yaml), a BOM and the line breaks it masks. (A CR anywhere in
#: either text means a full parse: :func:`_reparse`.)
_UNSAFE = ("&", "*", "!", "|", ">", "%", "<<", "\t", "\ufeff", "\x85", "\u2028", "\u2029", "\n---", "\n...")


def _unsafe(chunk: str) -> bool:
    return any(u in chunk for u in _UNSAFE) or chunk.startswith(("---", "..."))


def _check(node: YNode, depth: int) -> int | None:
    """Nodes under ``node`` (itself included) when it holds no empty plain value and nests
    less than the parser's limit allows from ``depth``; else None. No recursion."""
    count = 0
    stack = [(node, depth)]
    while stack:
        n, d = stack.pop()
        count += 1
        if d >= MAX_DEPTH - 2:
            return None
        if n.tag is not None or n.anchor is not None:
            return None
        if n.__class__ is YScalar:
            if n.value is None and n.style == "" and n.text == "":  # type: ignore[attr-defined]
                return None
        elif n.__class__ is YMap:
            for k, v in n.entries:  # type: ignore[attr-defined]
                stack.append((k, d + 1))
                stack.append((v, d + 1))
        elif n.__class__ is YSeq:
            stack.extend((i, d + 1) for i in n.items)  # type: ignore[attr-defined]
    return count


def _old_count(node: YNode) -> int:
    count = 0
    stack = [node]
    while stack:
        n = stack.pop()
        count += 1
        if n.__class__ is YMap:
            for k, v in n.entries:  # type: ignore[attr-defined]
                stack.append(k)
                stack.append(v)
        elif n.__class__ is YSeq:
            stack.extend(n.items)  # type: ignore[attr-defined]
    return count


def _replaced(m: YMap, i: int, key: YScalar, value: YNode, end_moves: bool) -> YMap:
    """A copy of block mapping ``m`` with entry ``i`` replaced (its range's end following the
    new last value when ``end_moves``, as the composer's ``_finish`` sets it)."""
    entries = list(m.entries)
    old_key = entries[i][0]
    entries[i] = (key, value)
    index = m._index
    if key.text != old_key.text:
        index = dict(index)
        del index[old_key.text]
        index[key.text] = i
    rng = m._range
    if end_moves:
        start = m.range.start
        end = max(value.end_position(), start)
        rng = (start.line, start.character, end.line, end.character)
    return YMap(rng, None, None, entries, False, index)


def reparse(old: ParsedYaml, text: str) -> ParsedYaml | None:
    """``parse_yaml(text, old.path)`` built from ``old`` by parsing the one changed entry
    again, or None when that cannot be guaranteed to give the same result (see the module)."""
    try:
        return _reparse(old, text)
    except Exception:  # noqa: BLE001 - a full parse is always right: never fail a keystroke here
        return None


#: Most entries changed since the earlier parse that are parsed again one by one (a client that
#: sent several edits between two parses); past this, a full parse.
MAX_ENTRIES = 8


def _reparse(old: ParsedYaml, text: str) -> ParsedYaml | None:
    before = old.text
    root = old.root
    if old.diagnostics or old.partial or root.__class__ is not YMap or root.flow or root.tag is not None or root.anchor is not None:  # type: ignore[union-attr]
        return None
    # Lines are counted below as "\n"-separated pieces, while the trees' positions and
    # LineIndex also break lines at a lone CR (docs/format.md "Reading the files", line
    # breaks): the two agree only when neither text holds a CR. Otherwise line N of one count
    # is another line of the other, and an edit could be taken for no change at all (the
    # earlier tree returned for the new text: its ranges past the new lines' ends, its values
    # the old ones). CRLF files never had an entry spliced anyway (every entry holds a CR).
    if before == text or not text.endswith("\n") or "\r" in text or "\r" in before or text.count("\n") != before.count("\n") or "<<" in text:
        return None
    head = common_prefix(before, text)
    tail = common_suffix(before, text, min(len(before), len(text)) - head)
    lines = LineIndex(text)
    first = text.count("\n", 0, head)  # the first changed line
    last = text.count("\n", 0, len(text) - tail)  # the last changed line (same in both texts)
    if first == last:
        changed = [first]
    else:  # edits on several lines (a client's edits since the earlier parse): which lines
        a = before[old.lines.line_start(first) :].split("\n", last - first + 1)
        b = text[lines.line_start(first) :].split("\n", last - first + 1)
        changed = [first + n for n in range(last - first + 1) if a[n] != b[n]]
    assert isinstance(root, YMap)
    count = old.node_count
    done = 0
    at = 0
    while at < len(changed):
        got = _splice_entry(root, old, text, lines, changed[at])
        if got is None:
            return None
        root, end, delta = got
        count += delta
        while at < len(changed) and changed[at] <= end:
            at += 1
        done += 1
        if done > MAX_ENTRIES:
            return None
    return ParsedYaml(old.path, text, lines, root, [], False, count)


def _splice_entry(root: YMap, old: ParsedYaml, text: str, lines: LineIndex, first: int) -> tuple[YMap, int, int] | None:
    """``root`` with the second-level entry holding line ``first`` parsed again from ``text``:
    ``(new root, the entry's last line, change in node count)``, or None."""
    before = old.text
    # The top-level entry (section) holding the line, below its key's line.
    tops = [k.range.start.line for k, _v in root.entries]
    j = bisect_right(tops, first) - 1
    if j < 0 or tops[j] == first:
        return None
    section_key, section = root.entries[j]
    section_end = tops[j + 1] - 1 if j + 1 < len(tops) else lines.line_count - 1
    if section.__class__ is not YMap or section.flow or section.tag is not None or section.anchor is not None:  # type: ignore[attr-defined]
        return None
    assert isinstance(section, YMap)
    keys = [k.range.start.line for k, _v in section.entries]
    i = bisect_right(keys, first) - 1
    if i < 0:
        return None
    key, value = section.entries[i]
    start = keys[i]
    end = keys[i + 1] - 1 if i + 1 < len(keys) else section_end
    old_chunk = before[old.lines.line_start(start) : old.lines.line_start(end + 1) if end + 1 < old.lines.line_count else len(before)]
    chunk = text[lines.line_start(start) : lines.line_start(end + 1) if end + 1 < lines.line_count else len(text)]
    if _unsafe(old_chunk) or _unsafe(chunk):
        return None
    part = parse_yaml("\n" * start + chunk, old.path)
    new = part.root
    if part.diagnostics or part.partial or new.__class__ is not YMap or new.flow or len(new.entries) != 1:  # type: ignore[union-attr]
        return None
    assert isinstance(new, YMap)
    new_key, new_value = new.entries[0]
    if new_key.range.start != key.range.start or new_key.style != "" or new_key.tag is not None:
        return None
    if new_key.text != key.text and new_key.text in section:
        return None  # a duplicate key now: the full parse reports it (RW002)
    added = _check(new_value, 3)
    if added is None:
        return None
    removed = _old_count(key) + _old_count(value)
    last_entry = i == len(section.entries) - 1
    new_section = _replaced(section, i, new_key, new_value, last_entry)
    new_root = _replaced(root, j, section_key, new_section, last_entry and j == len(root.entries) - 1)
    return new_root, end, 1 + added - removed
