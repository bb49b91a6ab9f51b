"""The node tree of a parsed runway file: YAML 1.2 core-schema scalars, sequences and
mappings, each with its range in code points (:mod:`runway_core.positions`), and the walks
every query uses (a path down the tree, the chain of nodes under a cursor).

Pure data: nothing here reads text or raises for any tree.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterator

from ..diagnostics import Diagnostic
from ..positions import LineIndex, Position, Range

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


#: Names written plain when they stay strings (else double-quoted: :func:`scalar_text`).
_PLAIN_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_./@-]*$")


def scalar_text(value: str, style: str = "") -> str:
    """``value`` written as a YAML scalar in ``style`` (``''`` plain, ``"'"``, ``'"'``): plain only
    when YAML 1.2 reads it back as the same string (:func:`resolve_plain`: ``null``, ``true``,
    ``false``, ``1e3`` are not), else double-quoted (a JSON string is a YAML double-quoted
    scalar). Every edit that writes a name (a quick fix, a rename, a completion) goes through
    it: a rename to ``null`` wrote ``uses: [null]`` (fifth adversary)."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == '"' or not _PLAIN_SAFE.fullmatch(value) or resolve_plain(value) != value:
        return json.dumps(value, ensure_ascii=False)
    return value


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar by the YAML 1.2 core schema (yaml.org/spec/1.2.2 §10.3.2)."""
    if text and text[0] not in _SPECIAL_FIRST:
        return text  # fast path: most scalars are names
    if _NULL.fullmatch(text):
        return None
    if _BOOL_TRUE.fullmatch(text):
        return True
    if _BOOL_FALSE.fullmatch(text):
        return False
    if _INT10.fullmatch(text):
        try:
            return int(text)
        except ValueError:
            # Past Python's limit on decimal digits (4,300 by default): a number no runway
            # value can hold; as a float it is ±inf, which the model reports at its position.
            return float(text)
    if _INT8.fullmatch(text):
        return int(text[2:], 8)
    if _INT16.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


def exact_number(node: Any) -> Decimal | None:
    """The number a plain scalar's source text writes, exactly, as a Decimal: ``126.879999999999999``
    is that, never the binary double ``resolve_plain`` holds (126.88, which passed a cap below
    the total: ninth adversary C1). None for anything else: not a :class:`YScalar`, quoted, a
    bool, a string, ``.inf``/``.nan`` (the model reports those), a base-8/16 integer's text
    (its int is exact)."""
    if not isinstance(node, YScalar) or node.style or isinstance(node.value, bool):
        return None
    if isinstance(node.value, int):
        return Decimal(node.value)
    if isinstance(node.value, float) and math.isfinite(node.value) and _FLOAT.fullmatch(node.text):
        return Decimal(node.text)
    return None


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


def node_flow(node: YNode) -> bool:
    return bool(getattr(node, "flow", False))


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


def find_path(root: YNode | None, path: tuple[str | int, ...]) -> tuple[YNode | None, YScalar | None, int]:
    """Walk ``path`` from ``root``.

    Returns ``(node, key_node, depth)``: the deepest node reached, the key node under which
    it sits (None at the root or for a list item) and how many path parts matched. A caller
    pointing at a missing key uses ``key_node`` (its parent key, docs/architecture.md §4).
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
