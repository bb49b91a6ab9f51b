"""Where the cursor is: a key of which mapping, the value of which key, an item of which
list (:class:`_Ctx`), from the YAML tree when the file parses and the cursor is on a scalar
or inside a flow collection, else from the text (:mod:`._scan`); and the sibling keys and
items already written there."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...positions import Position, Range
from ...yamlsrc import YMap, YNode, YScalar, YSeq, find_path, node_path_at
from ._scan import _WORD_STOP, _classify, _flow_start, _parent_path, _scan, _strip_comment, _suffix_names


@dataclass
class _Ctx:
    """Where the cursor is.

    ``slot`` is ``key`` (a key of the mapping at ``path``), ``value`` (the value at ``path``,
    whose last part is its key) or ``item`` (an item of the sequence at ``path``).
    """

    slot: str
    path: tuple[str | int, ...]
    range: Range
    word: str
    flow: bool = False
    quote: str = ""
    colon_follows: bool = False
    indent: int = 0
    present: set[str] = field(default_factory=set)
    lead: str = ""  # prepended to inserted values right after `:`, `,` or a `-` indicator
    trail: str = ""  # appended to a flow item written before another item (`[a,| b]`)
    replaced: str = ""  # the text the range covers now (the value written, when there is one)
    into_list: bool = False  # `uses:| [a]`: the range ends after the written `[`, items go first in it


#: A plain value written after `key:` and the spaces that separate it (then only a comment).
_WRITTEN_VALUE = re.compile(r"[ \t]*([A-Za-z0-9_][A-Za-z0-9_.\-/]*)(?:[ \t]+#.*)?[ \t]*$")
#: The same inside a flow collection, where `,`, `}` or `]` (or the line's end) follows it.
_WRITTEN_FLOW_VALUE = re.compile(r"[ \t]*([A-Za-z0-9_][A-Za-z0-9_.\-/]*)[ \t]*(?=[,}\]]|[ \t]#|$)")


def _word_range(cur: str, line: int, start: int, cursor: int, quote: str = "") -> Range:
    end = cursor
    while end < len(cur) and cur[end] not in _WORD_STOP and cur[end] != quote:
        end += 1
    return Range(Position(line, start), Position(line, end))


def _tree_context(root: YNode, texts: list[str], pos: Position) -> _Ctx | None:
    """The context when ``pos`` is on a scalar or inside a flow collection of a parsed file;
    None leaves it to the text (empty lines, bare words on their own line)."""
    chain = node_path_at(root, pos)
    if not chain:
        return None
    parts = tuple(p for p, _n, _k in chain)
    _part, node, key = chain[-1]
    parent = chain[-2][1] if len(chain) > 1 else root
    cur = texts[pos.line]
    if key is not None and key.range.contains(pos):
        if key.range.start.line != pos.line or key.range.end.line != pos.line or key.style:
            return None
        start = key.range.start.character
        rng = _word_range(cur, pos.line, start, pos.character)
        # A block key always has its `:`; a flow one may not yet (`{kind: postgres, si|}`).
        flow = bool(getattr(parent, "flow", False))
        colon = not flow or cur[rng.end.character :].lstrip().startswith(":")
        return _Ctx("key", parts[:-1], rng, cur[start : pos.character], flow=flow, colon_follows=colon, indent=start)
    if isinstance(node, YScalar) and node.range.contains(pos):
        r = node.range
        if r.start.line != pos.line or r.end.line != pos.line or node.style in ("|", ">"):
            return None
        container = parent
        if isinstance(parts[-1], int):
            slot, path = "item", parts[:-1]
        else:
            slot, path = "value", parts
            if isinstance(container, YMap) and not container.flow and key is not None and key.range.start.line != r.start.line:
                return None  # a bare word on its own line: the text decides (a key being typed)
        flow = bool(getattr(container, "flow", False))
        quote = node.style if node.style in ("'", '"') else ""
        start = r.start.character + (1 if quote else 0)
        if quote and pos.character < start:
            return None
        if quote and pos.character >= r.end.character:
            return None  # after the closing quote: the text decides (a closed scalar: nothing)
        typed = cur[start : pos.character]
        if any(ch.isspace() for ch in typed):
            return None  # free text (a reason being written): nothing to complete
        rng = _word_range(cur, pos.line, start, pos.character, quote) if quote or r.start == r.end else r
        return _Ctx(slot, path, rng, typed, flow=flow, quote=quote)
    if isinstance(node, (YMap, YSeq)) and node.flow and node.range.start < pos < node.range.end:
        # Between entries: only right after the opening bracket or a comma.
        if _prev_char(texts, pos) not in ("[", "{", ","):
            return None
        slot = "item" if isinstance(node, YSeq) else "key"
        return _Ctx(slot, parts, Range(pos, pos), "", flow=True)
    return None


def _prev_char(texts: list[str], pos: Position) -> str:
    """The last non-blank character before ``pos`` (earlier lines included)."""
    line, text = pos.line, texts[pos.line][: pos.character].rstrip()
    while not text and line > 0:
        line -= 1
        text = _strip_comment(texts[line]).rstrip()
    return text[-1:] if text else ""


def _text_context(texts: list[str], pos: Position) -> _Ctx | None:
    line_no, col = pos.line, pos.character
    cur = texts[line_no]
    start_line = _flow_start(texts, line_no)
    prefix = "\n".join([*texts[start_line:line_no], cur[:col]])
    s = _scan(prefix)
    if s.comment:
        return None
    first = texts[start_line] if start_line < line_no else cur[:col]
    body = first.lstrip(" ")
    indent = len(first) - len(body)
    if s.quote:
        typed = prefix[s.quote_start + 1 :]
        if any(ch.isspace() for ch in typed):
            return None
        word = typed
        rng = _word_range(cur, line_no, col - len(word), col, s.quote)
    else:
        word = s.word
        if any(ch.isspace() for ch in word):
            return None
        rng = _word_range(cur, line_no, col - len(word), col)
    base = _parent_path(texts, start_line, indent, s.dash)
    if base is None:
        return None
    if s.frames:
        top = s.frames[-1]
        if not s.quote and top.pending and not word:
            return None  # a finished scalar, then a space: nothing to complete
        if s.block_key is None or s.dash:
            return None
        owners = [s.block_key, *(f.owner for f in s.frames[1:])]
        if any(o is None or o == "" for o in owners):
            return None
        path = base + tuple(owners)  # type: ignore[operator]
        present = set(top.names)
        suffix = cur[rng.end.character :]
        if top.kind == "[":
            present |= _suffix_names(suffix, keys=False)
            return _Ctx("item", path, rng, word, flow=True, quote=s.quote, present=present)
        if top.expect == "value":
            if not top.key:
                return None
            return _Ctx("value", path + (top.key,), rng, word, flow=True, quote=s.quote)
        present |= _suffix_names(suffix, keys=True)
        present.discard(word)
        return _Ctx("key", path, rng, word, flow=True, quote=s.quote, colon_follows=suffix.lstrip().startswith(":"), present=present)
    if (not s.quote and s.pending and not word) or s.closed:
        return None
    if s.block_key is not None:
        if s.dash or not s.block_key:
            return None
        return _Ctx("value", base + (s.block_key,), rng, word, quote=s.quote)
    if s.dash:
        return _Ctx("item", base, rng, word, quote=s.quote)
    if s.quote:
        return None  # a quoted key being typed: too rare to guess at
    after = cur[rng.end.character :]
    return _Ctx("key", base, rng, word, colon_follows=after.lstrip().startswith(":"), indent=rng.start.character if word else col)


def _add_present(ctx: _Ctx, tree: YNode | None, texts: list[str], pos: Position) -> None:
    """Sibling keys / items already written: from the tree (not the node at the cursor) and,
    for block style, from the lines around the cursor (they count after a syntax error)."""
    node, _k, depth = find_path(tree, ctx.path) if tree is not None else (None, None, 0)
    if depth == len(ctx.path):
        if ctx.slot == "key" and isinstance(node, YMap):
            ctx.present |= {k.text for k, _v in node.entries if not k.range.contains(pos)}
        elif ctx.slot == "item" and isinstance(node, YSeq):
            ctx.present |= {str(i.value) for i in node.items if isinstance(i, YScalar) and i.value is not None and not i.range.contains(pos)}
    if ctx.flow or ctx.slot == "value":
        return
    cur = _classify(texts[pos.line])
    indent = cur.indent if cur is not None else ctx.indent
    for step in (-1, 1):
        i = pos.line + step
        while 0 <= i < len(texts):
            info = _classify(texts[i])
            if info is not None:
                if info.indent < indent:
                    break
                if info.indent == indent:
                    if ctx.slot == "key" and not info.dash and info.key is not None:
                        ctx.present.add(info.key)
                    elif ctx.slot == "item" and info.dash and info.key is None and info.value:
                        ctx.present.add(info.value.strip("\"'"))
            i += step


def _after_colon(ctx: _Ctx, tree: YNode | None, texts: list[str], pos: Position) -> bool:
    """Settle a value about to be inserted right after ``key:`` (the cursor on the colon's end
    or on the spaces after it, nothing typed) against the value already written there, so
    that an accepted choice leaves a file that still parses (docs/features.md, "Completion").

    A plain scalar on the line is replaced whole (``kind:| postgres``, yaml-language-server#363)
    and so is a quoted one closed on the line (``reason:| "residency: …"``); a flow list goes
    into the list, first (``uses:| [main-db]`` → ``uses: [order-events, main-db]``: the range
    ends after its ``[``, ``ctx.into_list``), the names it holds counted as present. Returns
    False where nothing may be offered: a block map or list on the lines below (``env:`` over
    its variables: ``env: true`` would not parse), or any other value written on the line (a
    flow map, an anchor, an alias, a tag, a block scalar's header, a quote not closed here).
    Mutates ``ctx`` (its range, ``replaced``, ``present``, ``into_list``, ``trail``).
    """
    cur = texts[pos.line]
    rest = cur[pos.character :]
    body = rest.lstrip(" \t")
    at = pos.character + len(rest) - len(body)  # where the written value starts
    if not body or body.startswith("#"):
        return ctx.flow or not _block_value_below(texts, pos.line, cur[: ctx.range.start.character])
    if ctx.flow and body[0] in ",}]":
        return True  # `{dev:‸}`: nothing written
    written = (_WRITTEN_FLOW_VALUE if ctx.flow else _WRITTEN_VALUE).match(cur, pos.character)
    if written is not None:
        ctx.range = Range(ctx.range.start, Position(pos.line, written.end(1)))
    elif body[0] in "\"'":
        end = _closing_quote(cur, at)
        tail = cur[end:].lstrip(" \t") if end is not None else ""
        glued = end is not None and tail and cur[end] not in " \t"
        if end is None or (tail and not (ctx.flow and tail[0] in ",}]") and (glued or not tail.startswith("#"))):
            return False  # a quote closed on a later line, or more written after it
        ctx.range = Range(ctx.range.start, Position(pos.line, end))
    elif body[0] == "[":
        node, _k, depth = find_path(tree, ctx.path) if tree is not None else (None, None, 0)
        inside = cur[at + 1 :]
        if depth == len(ctx.path) and isinstance(node, YSeq) and node.flow and node.range.start == Position(pos.line, at):
            names = {str(i.value) for i in node.items if isinstance(i, YScalar) and i.value is not None}
            empty = not node.items
        else:  # a file cut short: the names written on this line
            names = _suffix_names(inside, keys=False)
            empty = not names and inside.lstrip(" \t").startswith("]")
        ctx.present |= names
        ctx.into_list = True
        ctx.trail = "" if empty else ", "
        ctx.range = Range(ctx.range.start, Position(pos.line, at + 1))
    else:
        return False
    ctx.replaced = cur[ctx.range.start.character : ctx.range.end.character]
    return True


def _closing_quote(cur: str, at: int) -> int | None:
    """The column after the quote closing the scalar opened at ``cur[at]``, None when it does
    not close on this line (YAML 1.2 §7.3: ``''`` inside single quotes, ``\\`` escapes in double)."""
    q = cur[at]
    i = at + 1
    while i < len(cur):
        c = cur[i]
        if q == '"' and c == "\\":
            i += 2
            continue
        if c == q:
            if q == "'" and cur[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return None


def _block_value_below(texts: list[str], line: int, before: str) -> bool:
    """Whether the key ending ``before`` (``    env:``) has a block value on the lines below:
    the next line holding more than a comment is indented deeper than the key, or is a ``-``
    item at the key's own column (YAML 1.2 §8.2.1 allows that for a map's value)."""
    head = before.rstrip(" \t")[:-1]
    column = len(head) - len(head.lstrip(" -"))
    for text in texts[line + 1 :]:
        body = text.lstrip(" ")
        if not body.strip() or body.startswith("#"):
            continue
        indent = len(text) - len(body)
        return indent > column or (indent == column and (body == "-" or body.startswith(("- ", "-\t"))))
    return False
