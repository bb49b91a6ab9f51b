"""The fix being built: the analysis, the file, its sources (:class:`~._source._Src`), and
the :class:`Fix` value; and the YAML node a diagnostic's range points at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ...diagnostics import Diagnostic
from ...positions import Range
from ...yamlsrc import YMap, YScalar, YSeq, node_path_at
from .._edit import TextEdit
from ._source import _Src

if TYPE_CHECKING:
    from ...facts import Analysis

QUICKFIX = "quickfix"
#: How many close names an unknown `uses` item or key is offered.
CLOSE_NAMES = 3


@dataclass(frozen=True)
class Fix:
    """One quick fix. ``edits`` maps a file path (as keyed in ``Analysis.files``) to
    non-overlapping edits, each relative to the analysed text of that file; ``kind`` is the
    LSP code action kind ``quickfix``."""

    title: str
    diagnostic: Diagnostic
    edits: Mapping[str, tuple[TextEdit, ...]]
    is_preferred: bool = False
    kind: str = QUICKFIX


class _Ctx:
    def __init__(self, an: "Analysis", path: str) -> None:
        self.an = an
        self.path = path
        self._srcs: dict[str, _Src] = {}

    def src(self, path: str | None = None) -> _Src:
        p = path or self.path
        if p not in self._srcs:
            self._srcs[p] = _Src(self.an.files[p])
        return self._srcs[p]

    @property
    def root(self) -> _Src:
        return self.src(self.an.root_file)

    def fix(self, title: str, diag: Diagnostic, edits: Iterable[tuple[str, TextEdit | None]], preferred: bool = False) -> Fix | None:
        by_file: dict[str, list[TextEdit]] = {}
        for path, e in edits:
            if e is None:
                return None  # a part of the fix cannot be written: offer none of it
            by_file.setdefault(path, []).append(e)
        if not by_file:
            return None
        return Fix(title, diag, {p: tuple(es) for p, es in by_file.items()}, preferred)


def _scalar_at(src: _Src, rng: Range) -> tuple[tuple[str | int, ...], YScalar, bool] | None:
    """The path, the scalar whose range is exactly ``rng``, and whether it is a key."""
    chain = node_path_at(src.parsed.root, rng.start)
    if not chain:
        return None
    parts = tuple(p for p, _n, _k in chain)
    _p, node, key = chain[-1]
    if key is not None and key.range == rng:
        return parts, key, True
    if isinstance(node, YScalar) and node.range == rng:
        return parts, node, False
    return None


def _parent_map(src: _Src, parts: tuple[str | int, ...]) -> YMap | None:
    node = src.parsed.root
    for part in parts[:-1]:
        if isinstance(node, YMap) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, YSeq) and isinstance(part, int) and 0 <= part < len(node.items):
            node = node.items[part]
        else:
            return None
    return node if isinstance(node, YMap) else None


def _top_anchor(src: _Src, names: Sequence[str]) -> YScalar | None:
    root = src.parsed.root
    if not isinstance(root, YMap):
        return None
    for n in names:
        k = root.key_node(n)
        if k is not None and src.owns(root, k) and src.indent(k) == 0:
            return k
    return None


def _new_section(src: _Src, name: str, body: list[str], before: Sequence[str]) -> TextEdit | None:
    """A new top-level section ``name:`` with ``body`` lines, before the first of the
    top-level keys ``before`` present (kept apart by a blank line when sections are), else at
    the end of the file."""
    root = src.parsed.root
    if not isinstance(root, YMap) or root.flow:
        return None
    lines = [f"{name}:", *body]
    anchor = _top_anchor(src, before)
    if anchor is not None:
        line = anchor.range.start.line
        gap = line > 0 and not src.lines.line_text(line - 1).strip()
        return src.insert_lines_before(line, src.eol.join(lines + ([""] if gap else [])))
    last = len(src.text)
    if src.text and not src.text.endswith(("\n", "\r")):
        return src.edit(last, last, src.eol + src.eol.join(lines) + src.eol)
    return src.edit(last, last, src.eol.join(lines) + src.eol)
