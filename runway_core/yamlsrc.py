"""YAML loading with a position for every key and value, YAML 1.2 scalars, and bounded aliases.

We drive ruamel.yaml's C parser (libyaml, from ruamel.yaml.clib) at the *event* level and
compose our own small node tree. Why not ``YAML.compose``: it is ~4x slower than the events
alone, it loses the position of every alias (needed to point at an alias bomb), and it would
need a second walk to find duplicate keys. Composing here is one pass with an explicit stack
(no recursion, so 10,000-deep nesting cannot overflow Python's stack).

Rules implemented here (RUNWAY_FORMAT.md, "Files"): YAML 1.2 core-schema scalars (``on``,
``yes``, ``no`` are strings; ``0755`` is the integer 755; ``1e3`` is a float), duplicate keys
reported at the second key, anchors/aliases allowed but bounded, a second document, an empty or
comment-only file, tabs, a BOM, unknown tags and syntax errors each a positioned diagnostic.
Nothing here raises for any input text.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent

from .diagnostics import Diagnostic, Severity
from .positions import LineIndex, Position, Range

try:  # the C parser ships in ruamel.yaml.clib (a base dependency); pure Python is the fallback
    from ruamel.yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - exercised only without ruamel.yaml.clib
    _CParser = None

#: Most nodes that aliases may add by expansion in one file (RUNWAY_FORMAT.md: aliases bounded).
ALIAS_EXPANSION_LIMIT = 100_000
#: Deepest nesting accepted; a runway is at most ~6 levels deep, so 64 is generous.
MAX_DEPTH = 64

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")

_SPECIAL_FIRST = frozenset("~nNtTfF0123456789+-.")
_OPEN = Range(Position(0, 0), Position(0, 0))  # an open collection's range until it closes

_CORE_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
    "!",
}


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar by the YAML 1.2 core schema (yaml.org/spec/1.2.2 §10.3.2)."""
    if text and text[0] not in _SPECIAL_FIRST:
        return text  # fast path: most scalars are names
    if _NULL.match(text):
        return None
    if _BOOL_TRUE.match(text):
        return True
    if _BOOL_FALSE.match(text):
        return False
    if _INT10.match(text):
        try:
            return int(text)
        except ValueError:
            # Past Python's limit on decimal digits (4,300 by default): a number no runway
            # value can hold; as a float it is ±inf, which the model reports at its position.
            return float(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text


# --------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class YNode:
    """A composed node; ``range`` is in code-point positions of the whole file.

    The loader stores most scalars' ranges as ``(line, character, end line, end character)``
    and builds the :class:`Range` when it is first read (issue 6: most ranges are never read,
    and plain tuples of ints are invisible to the cyclic garbage collector)."""

    _range: Any  # a Range, or its four ints until first read
    tag: str | None = None
    anchor: str | None = None

    @property
    def range(self) -> Range:
        r = self._range
        if r.__class__ is tuple:
            r = self._range = Range(Position(r[0], r[1]), Position(r[2], r[3]))
        return r

    @range.setter
    def range(self, value: Range) -> None:
        self._range = value

    def end_position(self) -> Position:
        """``range.end`` without building the range."""
        r = self._range
        return Position(r[2], r[3]) if r.__class__ is tuple else r.end


@dataclass(eq=False, slots=True)
class YScalar(YNode):
    """A scalar. ``value`` is the resolved Python value; ``text`` the scalar's characters;
    ``style`` is ``''`` for plain, ``"'"``, ``'"'``, ``'|'`` or ``'>'``."""

    value: Any = None
    text: str = ""
    style: str = ""


@dataclass(eq=False, slots=True)
class YSeq(YNode):
    items: list[YNode] = field(default_factory=list)
    flow: bool = False


@dataclass(eq=False, slots=True)
class YMap(YNode):
    """A mapping. ``entries`` keeps source order; duplicate keys keep the first value."""

    entries: list[tuple[YScalar, YNode]] = field(default_factory=list)
    flow: bool = False
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def get(self, key: str) -> YNode | None:
        i = self._index.get(key)
        return None if i is None else self.entries[i][1]

    def key_node(self, key: str) -> YScalar | None:
        i = self._index.get(key)
        return None if i is None else self.entries[i][0]

    def keys(self) -> list[str]:
        return [k.text for k, _ in self.entries]

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def add(self, key: YScalar, value: YNode) -> bool:
        """Append an entry; False (and nothing added) when the key is already present."""
        if key.text in self._index:
            return False
        self._index[key.text] = len(self.entries)
        self.entries.append((key, value))
        return True


def iter_nodes(node: YNode) -> Iterator[YNode]:
    """Every node below ``node`` once (aliased subtrees once), depth-first, no recursion."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        if isinstance(n, YMap):
            for k, v in reversed(n.entries):
                stack.append(v)
                stack.append(k)
        elif isinstance(n, YSeq):
            stack.extend(reversed(n.items))


def to_python(node: YNode | None) -> Any:
    """Plain Python value of a node (dict / list / scalar). Aliases are already bounded by
    the loader, so expansion here is bounded by ``ALIAS_EXPANSION_LIMIT``."""
    if node is None:
        return None
    if isinstance(node, YScalar):
        return node.value
    if isinstance(node, YSeq):
        return [to_python(i) for i in node.items]
    if isinstance(node, YMap):
        return {k.text: to_python(v) for k, v in node.entries}
    return None


# --------------------------------------------------------------------------------------
# Parse result
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class ParsedYaml:
    """Result of :func:`parse_yaml`.

    ``root`` is the first document's node (None for an empty file or a syntax error before
    any content); ``partial`` is True when a syntax error cut the tree short (the tree then
    holds what was read up to the error, open collections closed). ``lines`` indexes the
    original text (with its BOM, if any).
    """

    path: str
    text: str
    lines: LineIndex
    root: YNode | None
    diagnostics: list[Diagnostic]
    partial: bool = False
    node_count: int = 0


class _AliasLimit(Exception):
    pass


class _Composer:
    """Builds YNodes from parser events; one instance per parse."""

    def __init__(self, path: str, text: str, lines: LineIndex, shift: int) -> None:
        self.path = path
        self.text = text
        self.lines = lines
        self.shift = shift  # code points stripped before parsing (a BOM)
        self.diags: list[Diagnostic] = []
        self.anchors: dict[str, tuple[YNode, int]] = {}
        self.expansion = 0
        self.count = 0
        # stack entries: [node, weight, pending_key, start_index, merge_sources, depth_reported]
        self.stack: list[list[Any]] = []
        self.root: YNode | None = None
        self.root_done = False
        self.depth_exceeded = False
        self.undefined_alias = False  # an error like a syntax error: the tree is partial
        # parse_yaml masks U+0085/U+2028/U+2029 before libyaml sees them (see _mask), so
        # libyaml's own line/column are LSP's: the fast path always holds.
        self.fast = True
        self.unmask: dict[int, str] | None = None

    # -- helpers ------------------------------------------------------------------------
    def rng(self, start: int, end: int) -> Range:
        return self.lines.range(start + self.shift, end + self.shift)

    def pos(self, mark: Any) -> Position:
        """Position of a parser mark. libyaml's own line/column count code points and break
        lines at \\r, \\n, \\r\\n -- and also at U+0085/U+2028/U+2029, which LSP does not;
        only texts holding those take the slower offset path."""
        if self.fast:
            line = mark.line
            if line >= self.lines.line_count:
                # libyaml ends the stream on a virtual line after a last line without a line
                # break (`?` alone): clamp to the end of the text, never past the document.
                return self.lines.position(len(self.text))
            return Position(line, mark.column + self.shift if line == 0 else mark.column)
        return self.lines.position(mark.index + self.shift)

    def diag(self, rng: Range, code: str, message: str, severity: Severity = Severity.ERROR, data: dict | None = None) -> None:
        self.diags.append(Diagnostic(self.path, rng, severity, code, message, data))

    def _check_tag(self, tag: str | None, start: int, end: int) -> None:
        if tag is None or tag in _CORE_TAGS:
            return
        self.diag(
            self.rng(start, end),
            "RW008",
            f"unsupported tag {tag!r}: runway files use plain YAML 1.2 values (no custom tags such as !Ref)",
        )

    # -- events -------------------------------------------------------------------------
    def scalar(self, ev: Any) -> None:
        start, end = ev.start_mark.index, ev.end_mark.index
        text = ev.value
        if self.unmask is not None:
            text = text.translate(self.unmask)
        style = ev.style or ""
        tag = ev.tag
        self._check_tag(tag, start, end)
        if tag == "tag:yaml.org,2002:str" or tag == "!":
            value: Any = text
        elif tag is not None and tag in _CORE_TAGS:
            value = resolve_plain(text)
            if tag == "tag:yaml.org,2002:float" and isinstance(value, int):
                value = float(value)
        elif style == "" and tag is None:
            value = resolve_plain(text)
        else:
            value = text
        # A tagged or anchored scalar's mark starts at the tag/anchor; point at the value.
        if (tag is not None or ev.anchor is not None) and style == "":
            rng = self.rng(self._value_start(start, end, text), end)
        else:
            rng = Range(self.pos(ev.start_mark), self.pos(ev.end_mark))
        node = YScalar(rng, tag, ev.anchor, value, text, style)
        self.add(node, 1, ev.anchor)

    def _value_start(self, start: int, end: int, text: str) -> int:
        src = self.text[start + self.shift : end + self.shift]
        i = src.rfind(text) if text else -1
        return start + i if i >= 0 else start

    def alias(self, ev: Any) -> None:
        start, end = ev.start_mark.index, ev.end_mark.index
        target = self.anchors.get(ev.anchor)
        if target is None:  # libyaml's parser does not check; a composer error (RW001), as in ruamel.yaml
            self.diag(self.rng(start, end), "RW001", f"alias *{ev.anchor} refers to no anchor")
            self.undefined_alias = True
            self.add(YScalar(self.rng(start, end), None, None, None, "", ""), 1, None)
            return
        node, weight = target
        self.expansion += weight
        if self.expansion > ALIAS_EXPANSION_LIMIT:
            self.diag(
                self.rng(start, end),
                "RW005",
                f"alias *{ev.anchor} expands the document past {ALIAS_EXPANSION_LIMIT:,} nodes "
                "(an alias bomb); use fewer nested aliases",
            )
            raise _AliasLimit()
        self.add(node, weight, None)

    def start_collection(self, ev: Any, node: YNode) -> None:
        self._check_tag(ev.tag, ev.start_mark.index, ev.end_mark.index)
        if len(self.stack) >= MAX_DEPTH:
            if not self.depth_exceeded:
                self.depth_exceeded = True
                self.diag(
                    self.rng(ev.start_mark.index, ev.start_mark.index + 1),
                    "RW010",
                    f"nesting deeper than {MAX_DEPTH} levels; a runway is at most a few levels deep",
                )
        self.stack.append([node, 1, None, self.pos(ev.start_mark), [], ev.anchor])

    def end_collection(self, ev: Any) -> None:
        self._finish(self.stack.pop(), self.pos(ev.end_mark))

    def _finish(self, entry: list[Any], end: Position | None) -> None:
        """Close one collection; ``end`` is the end event's position (None after an error)."""
        node, weight, _pending, start, merges, anchor = entry
        last = None
        if isinstance(node, YMap) and node.entries:
            last = node.entries[-1][1]
        elif isinstance(node, YSeq) and node.items:
            last = node.items[-1]
        begin = start
        if end is not None and (node_flow(node) or last is None):
            node.range = Range(begin, max(begin, end))
        else:
            # Block collections end where their last child ends, not after trailing comments.
            node.range = Range(begin, max(last.end_position(), begin) if last is not None else begin)
        if isinstance(node, YMap) and merges:
            self._apply_merges(node, merges)
        if len(self.stack) >= MAX_DEPTH:
            # Past the depth limit (RW010 already reported): keep a null in the subtree's place.
            node = YScalar(node.range, None, None, None, "", "")
            weight = 1
        self.add(node, weight, anchor)

    def _apply_merges(self, node: YMap, merges: list[tuple[YScalar, YNode]]) -> None:
        # YAML merge keys (yaml.org/type/merge.html): explicit keys win, then earlier sources.
        for key, src in merges:
            sources = src.items if isinstance(src, YSeq) else [src]
            culprits: list[str] = []
            for s in sources:
                if isinstance(s, YMap):
                    for k, v in s.entries:
                        node.add(k, v)
                elif s.range.start >= key.range.end:
                    # Written right here (`<<: [*a, 5]`): point at it.
                    self.diag(s.range, "RW100", "a merge key (<<) takes a mapping or a list of mappings")
                else:
                    # Reached through an alias, its text is elsewhere (the anchor may be fine
                    # where it is written): this merge is what misuses it.
                    name = s.anchor or src.anchor
                    what = f"*{name}" if name else "a source"
                    if what not in culprits:
                        culprits.append(what)
            if culprits:
                self.diag(key.range, "RW100", f"a merge key (<<) takes a mapping or a list of mappings; {', '.join(culprits)} is not a mapping")

    def add(self, node: YNode, weight: int, anchor: str | None) -> None:
        self.count += 1
        if anchor is not None:
            self.anchors[anchor] = (node, weight)
        if not self.stack:
            self.root = node
            return
        top = self.stack[-1]
        top[1] += weight
        parent = top[0]
        if isinstance(parent, YSeq):
            parent.items.append(node)
            return
        assert isinstance(parent, YMap)
        if top[2] is None:
            # A key.
            if isinstance(node, YScalar):
                top[2] = node
            else:
                self.diag(node.range, "RW009", "a key must be a plain name, not a list or mapping")
                top[2] = False  # value follows and is dropped
            return
        key = top[2]
        top[2] = None
        if key is False:
            return
        if key.text == "<<" and key.style == "" and key.tag is None:
            top[4].append((key, node))
            return
        if not parent.add(key, node):
            first = parent.key_node(key.text)
            line = first.range.start.line + 1 if first is not None else 0
            self.diag(
                key.range,
                "RW002",
                f"duplicate key {key.text!r} (first defined on line {line}); YAML keys must be unique",
                data={"key": key.text, "first_line": line},
            )

    def close_open(self) -> None:
        """After a syntax error: close every open collection so the partial tree is usable."""
        while self.stack:
            self._finish(self.stack.pop(), None)


def node_flow(node: YNode) -> bool:
    return bool(getattr(node, "flow", False))


_YAML11_BREAKS = "\x85\u2028\u2029"


def _mask(body: str) -> tuple[str, dict[int, str] | None]:
    """Hide U+0085, U+2028 and U+2029 from libyaml, which (YAML 1.1) breaks lines at them.

    YAML 1.2 (§5.4) and LSP treat them as ordinary characters: a NEL inside a comment must not
    end the comment. Each is swapped for a private-use character absent from the text (same
    length, so every offset holds) and swapped back in scalar values.
    """
    if not any(c in body for c in _YAML11_BREAKS):
        return body, None
    free = (chr(c) for c in range(0xE000, 0xF8FF) if chr(c) not in body)
    there = {b: next(free) for b in _YAML11_BREAKS}
    back = {ord(m): b for b, m in there.items()}
    return body.translate({ord(b): m for b, m in there.items()}), back


#: The white space of a line that holds nothing else, or nothing but a comment, when it has
#: a tab.
_BLANK_WITH_TAB = re.compile(r"(?:(?<=[\r\n])|\A)[ \t]*\t[ \t]*(?=[#\r\n]|\Z)")


#: Nothing but document markers, comments and white space.
_ONLY_MARKERS = re.compile(r"(?:[ \t]*(?:(?:---|\.\.\.)(?=[ \t\r\n]|\Z))?[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*[ \t]*(?:(?:---|\.\.\.)[ \t]*)?(?:#[^\r\n]*)?")


def _blank_tabs(body: str) -> str:
    """Tabs on blank and comment-only lines as spaces (same length: offsets hold).

    YAML 1.2 allows a tab there (§6.6, ``s-separate-in-line`` of ``l-comment``) and only
    indentation must be spaces; libyaml refuses a line starting with a tab even when it is
    blank, which stopped the whole analysis at an invisible character. Inside a block scalar
    such a line is content: its tab is then read as a space (no runway field cares)."""
    if "\t" not in body:
        return body
    return _BLANK_WITH_TAB.sub(lambda m: m.group(0).replace("\t", " "), body)


def _events(text: str) -> Iterator[Any]:
    if _CParser is not None:
        # get_event returns None after StreamEndEvent (which parse_yaml also stops at): a
        # C-level iterator, no generator frame per event.
        return iter(_CParser(text).get_event, None)
    from ruamel.yaml import YAML  # pragma: no cover

    return iter(YAML(typ="safe", pure=True).parse(text))  # pragma: no cover


def _error_range(lines: LineIndex, text: str, offset: int) -> Range:
    """A one-character range at ``offset``, or the line's end when past it."""
    pos = lines.position(offset)
    end = lines.position(min(offset + 1, lines.line_end(pos.line)))
    if end <= pos:
        end = pos
    return Range(pos, end)


def parse_yaml(text: str, path: str = "runway.yaml") -> ParsedYaml:
    """Compose the first YAML document of ``text`` with positions; never raises.

    Returns a :class:`ParsedYaml`; problems are diagnostics with codes RW001 (syntax),
    RW002 (duplicate key), RW003 (more than one document), RW004 (empty file), RW005 (alias
    bomb), RW006 (tab indentation), RW007 (byte-order mark), RW008 (unsupported tag), RW009
    (non-scalar key), RW010 (nesting too deep).
    """
    lines = LineIndex(text)
    shift = 0
    body = text
    pre: list[Diagnostic] = []
    if text.startswith("\ufeff"):
        shift = 1
        body = text[1:]
        pre.append(
            Diagnostic(
                path,
                Range(Position(0, 0), Position(0, 1)),
                Severity.WARNING,
                "RW007",
                "the file starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM",
            )
        )
    comp = _Composer(path, text, lines, shift)
    body, comp.unmask = _mask(_blank_tabs(body))
    if "..." in body and _ONLY_MARKERS.fullmatch(body):
        # `...` with no document: an empty stream in YAML 1.2 (§9.2), an error to libyaml.
        body = ""  # an empty runway (RW004), not a syntax error
    comp.diags.extend(pre)
    partial = False
    docs = 0
    try:
        # Hot loop (issue 6): events dispatched by class; the common scalar (no tag, no anchor,
        # no BOM, no masked line break) is built inline, exactly as _Composer.scalar builds it.
        # (libyaml puts marks at the end of a last line without a line break on a virtual next
        # line; _Composer.pos clamps those, so such a text takes the general path.)
        plain_marks = shift == 0 and comp.unmask is None and (not body or body[-1] in "\r\n")
        add = comp.add
        stack = comp.stack
        special = _SPECIAL_FIRST
        for ev in _events(body):
            cls = ev.__class__
            if cls is ScalarEvent:
                if plain_marks and ev.tag is None and ev.anchor is None:
                    sm, em = ev.start_mark, ev.end_mark
                    text_ = ev.value
                    style = ev.style or ""
                    value = text_ if style or (text_ and text_[0] not in special) else resolve_plain(text_)
                    node = YScalar((sm.line, sm.column, em.line, em.column), None, None, value, text_, style)
                    if stack:
                        # _Composer.add's common cases, inlined: an item of a sequence, a key, or
                        # a value under a new key (duplicates, merges and the root go to add).
                        top = stack[-1]
                        parent = top[0]
                        if parent.__class__ is YSeq:
                            comp.count += 1
                            top[1] += 1
                            parent.items.append(node)
                            continue
                        key = top[2]
                        if key is None:
                            comp.count += 1
                            top[1] += 1
                            top[2] = node
                            continue
                        if key is not False and key.text not in parent._index and (key.text != "<<" or key.style or key.tag is not None):
                            comp.count += 1
                            top[1] += 1
                            top[2] = None
                            parent._index[key.text] = len(parent.entries)
                            parent.entries.append((key, node))
                            continue
                    add(node, 1, None)
                else:
                    comp.scalar(ev)
                continue
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                comp.end_collection(ev)
                continue
            # A collection's range is set when it closes (_finish); until then a placeholder.
            if cls is MappingStartEvent:
                comp.start_collection(ev, YMap(_OPEN, ev.tag, ev.anchor, flow=bool(ev.flow_style)))
                continue
            if cls is SequenceStartEvent:
                comp.start_collection(ev, YSeq(_OPEN, ev.tag, ev.anchor, flow=bool(ev.flow_style)))
                continue
            name = cls.__name__
            if name == "StreamEndEvent":
                break
            elif name == "AliasEvent":
                comp.alias(ev)
            elif name == "DocumentStartEvent":
                docs += 1
                if docs == 2:
                    comp.diag(
                        comp.rng(ev.start_mark.index, ev.end_mark.index),
                        "RW003",
                        "a runway file holds one YAML document; this second document is ignored",
                    )
                    break
            elif name == "DocumentEndEvent":
                comp.anchors.clear()
    except _AliasLimit:
        comp.stack.clear()
        comp.root = None
        partial = True
    except YAMLError as exc:
        partial = True
        comp.close_open()
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        if mark is not None:
            offset = mark.index + shift
        else:
            offset = int(getattr(exc, "position", 0) or 0) + shift
        problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        rng = _error_range(lines, text, offset)
        ch = text[offset] if 0 <= offset < len(text) else ""
        if ch == "\t" or ("\t" in lines.line_text(rng.start.line)[: rng.start.character + 1] and "cannot start any token" in str(problem)):
            comp.diag(rng, "RW006", "tabs cannot indent YAML; use spaces")
        elif "control characters" in str(problem) or "unacceptable character" in str(problem):
            comp.diag(rng, "RW001", f"the file holds a character YAML does not allow ({problem}); is it a text file?")
        else:
            msg = str(problem)
            cmark = getattr(exc, "context_mark", None)
            if "could not find expected ':'" in msg and context == "while scanning a simple key" and cmark is not None and mark is not None and mark.line == cmark.line \
                    and mark.index - cmark.index > 1024:
                # libyaml's generic message for a plain key past YAML's 1,024-character limit.
                comp.diag(rng, "RW001", f"YAML syntax error: a key of {mark.index - cmark.index:,} characters (from column {cmark.column + 1}); "
                                        "YAML allows at most 1,024 characters in an implicit key")
                context = None
                msg = ""
            elif "found unexpected ':'" in msg:
                # libyaml (YAML 1.1) refuses ':' inside a plain scalar in [ ] or { } (a URL).
                msg += "; inside [ ] or { }, quote a value that holds ':' (e.g. \"postgres://host/db\")"
            if context:
                cline = lines.position(cmark.index + shift).line + 1 if cmark is not None else None
                msg = f"{msg} ({context}" + (f" started on line {cline})" if cline is not None and cline != rng.start.line + 1 else ")")
            if msg:
                comp.diag(rng, "RW001", f"YAML syntax error: {msg}")
    except RecursionError:  # pragma: no cover - defensive; the composer does not recurse
        partial = True
        comp.diag(Range(Position(0, 0), Position(0, 0)), "RW010", "the file nests too deeply to read")
    partial = partial or comp.undefined_alias
    root = comp.root
    if isinstance(root, YScalar) and root.value is None and root.style == "" and root.text == "" and root.tag is None and root.anchor is None:
        comp.root = None  # `---` and nothing else: an empty document is an empty runway (RW004)
    if comp.root is None and not partial:
        comp.diag(
            Range(Position(0, 0), lines.position(len(text))) if text.strip() == "" else Range(Position(0, 0), Position(0, 0)),
            "RW004",
            "the runway file is empty; it needs at least `runway: 1`",
        )
    comp.diags.sort(key=lambda d: (d.range.start, d.code))
    return ParsedYaml(path, text, lines, comp.root, comp.diags, partial, comp.count)


def find_path(root: YNode | None, path: tuple[str | int, ...]) -> tuple[YNode | None, YScalar | None, int]:
    """Walk ``path`` from ``root``.

    Returns ``(node, key_node, depth)``: the deepest node reached, the key node under which
    it sits (None at the root or for a list item) and how many path parts matched. A caller
    pointing at a missing key uses ``key_node`` (its parent key, STYLE.md §4).
    """
    node = root
    key_node: YScalar | None = None
    depth = 0
    for part in path:
        if isinstance(node, YMap) and isinstance(part, str) and part in node:
            key_node = node.key_node(part)
            node = node.get(part)
        elif isinstance(node, YSeq) and isinstance(part, int) and 0 <= part < len(node.items):
            node = node.items[part]
        else:
            break
        depth += 1
    return node, key_node, depth


def node_path_at(root: YNode | None, pos: Position) -> list[tuple[str | int, YNode, YScalar | None]]:
    """The chain of (path part, node, key node) from the root down to the innermost node
    whose range (or key's range) contains ``pos``. Empty when nothing contains it."""
    chain: list[tuple[str | int, YNode, YScalar | None]] = []
    node = root
    visited: set[int] = set()
    while node is not None and id(node) not in visited:
        visited.add(id(node))
        nxt = None
        if isinstance(node, YMap):
            for k, v in node.entries:
                if k.range.contains(pos) or (v.range.contains(pos) and not (v.range.start == v.range.end and v.range.start != pos)):
                    chain.append((k.text, v, k))
                    nxt = None if k.range.contains(pos) and not v.range.contains(pos) else v
                    if k.range.contains(pos) and not v.range.contains(pos):
                        return chain
                    break
        elif isinstance(node, YSeq):
            for i, item in enumerate(node.items):
                if item.range.contains(pos):
                    chain.append((i, item, None))
                    nxt = item
                    break
        node = nxt
    return chain
