"""Composing the node tree from libyaml's parser events: one pass with an explicit stack
(no recursion), anchors and aliases bounded by :data:`ALIAS_EXPANSION_LIMIT`, merge keys
applied, duplicate keys and unsupported tags reported (docs/format.md, "Files").

Used only by :func:`runway_core.yamlsrc.parse.parse_yaml`; never raises for any event
stream but :class:`_AliasLimit` and :class:`_DepthLimit` (caught there).
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..positions import LineIndex, Position, Range
from .nodes import YMap, YNode, YScalar, YSeq, node_flow, resolve_plain

#: Most nodes that aliases may add by expansion in one file (docs/format.md: aliases bounded).
ALIAS_EXPANSION_LIMIT = 100_000
#: Deepest nesting accepted; a runway is at most ~6 levels deep, so 64 is generous.
MAX_DEPTH = 64
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


class _AliasLimit(Exception):
    pass


class _DepthLimit(Exception):
    """Raised at the first collection past :data:`MAX_DEPTH` (RW010 already reported): libyaml
    keeps one possible simple key per open flow level and checks them all on every token, so
    reading on through `[[[[…` costs O(depth²) (100,000 levels took 175 s); the composer stops
    reading events there instead (docs/reliability.md, hostile inputs)."""


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
        # A tagged or anchored scalar's mark starts at the tag/anchor; point at the value
        # (quoted and block scalars too: `reason: &r "x"` once pointed at `&r "x"`, so a
        # diagnostic's range was not its token; issue 23).
        if tag is not None or ev.anchor is not None:
            rng = self.rng(self._value_start(start, end, text, style), end)
        else:
            rng = Range(self.pos(ev.start_mark), self.pos(ev.end_mark))
        node = YScalar(rng, tag, ev.anchor, value, text, style)
        self.add(node, 1, ev.anchor)

    def _value_start(self, start: int, end: int, text: str, style: str = "") -> int:
        """Where a scalar's own token begins, after its properties (YAML 1.2 §6.9: a tag and
        an anchor, in either order, each a run of non-space characters, separated from each
        other and from the value by white space, line breaks or comments)."""
        if style:
            i = self._after_properties(start + self.shift, end + self.shift) - self.shift
            return i if i < end else start
        src = self.text[start + self.shift : end + self.shift]
        i = src.rfind(text) if text else -1
        return start + i if i >= 0 else start

    def _after_properties(self, i: int, end: int) -> int:
        """The offset in ``self.text`` of the first character at or after ``i`` (below
        ``end``) that is not part of a node's properties: tag and anchor tokens and the white
        space, line breaks and comments between them and the value. Linear."""
        text = self.text
        while i < end and text[i] in "&!":
            while i < end and not text[i].isspace():
                i += 1  # the property
            while i < end and (text[i].isspace() or text[i] == "#"):
                if text[i] == "#":
                    nl = text.find("\n", i, end)
                    i = end if nl < 0 else nl
                else:
                    i += 1
        return i

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
            self.depth_exceeded = True
            self.diag(
                self.rng(ev.start_mark.index, ev.start_mark.index + 1),
                "RW010",
                f"nesting deeper than {MAX_DEPTH} levels; a runway is at most a few levels deep "
                "(the rest of the file is not read)",
            )
            raise _DepthLimit()
        begin = self.pos(ev.start_mark)
        if ev.tag is not None or ev.anchor is not None:
            # As for a scalar: a tagged or anchored collection begins at its `[`, `{` or first
            # entry, not at its properties (`reason: &r [a]` pointed at `&r [a]`; issue 23).
            at = ev.start_mark.index + self.shift
            after = self._after_properties(at, len(self.text))
            if after > at:
                begin = self.lines.position(after)
        self.stack.append([node, 1, None, begin, [], ev.anchor])

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
