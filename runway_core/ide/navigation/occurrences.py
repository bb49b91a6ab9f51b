"""Every place a resource, workload or implicit ``shared-<kind>`` name is written in the
root and its members (:func:`occurrences`), the ``members:`` items with their member files,
and the result types of the navigation queries. Positions are code points.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, NamedTuple

from ...kinds import RESOURCE_KINDS
from ...positions import Position, Range
from ...yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq

if TYPE_CHECKING:
    from ...facts import Analysis, SourceFile

#: Symbol kinds (LSP 3.17 ``SymbolKind`` names, lower case); the server maps them.
SYMBOL_KINDS = ("file", "module", "namespace", "package", "class", "property", "field", "string", "number", "boolean", "array", "object", "null")


class Location(NamedTuple):
    """A range (code points) in a file (a path as keyed in ``Analysis.files``)."""

    file: str
    range: Range


class Highlight(NamedTuple):
    """An occurrence in the current file; ``kind`` is ``write`` (the declaring key, a
    ``shared`` key that sizes an implicit resource) or ``read`` (a use)."""

    range: Range
    kind: str


class RenamePlaceholder(NamedTuple):
    """What prepareRename answers: the name's range at the cursor and its current text."""

    range: Range
    placeholder: str


class DocumentLink(NamedTuple):
    """A link from ``range`` (a ``members:`` item) to the ``target`` runway file."""

    range: Range
    target: str


@dataclass(frozen=True, slots=True)
class DocumentSymbol:
    """One outline entry. ``kind`` is one of :data:`SYMBOL_KINDS`; ``range`` spans the key and
    its value, ``selection_range`` the key; ``children`` lie inside ``range``."""

    name: str
    kind: str
    detail: str
    range: Range
    selection_range: Range
    children: tuple["DocumentSymbol", ...] = ()


@dataclass(frozen=True, slots=True)
class WorkspaceSymbol:
    """A symbol of a workspace query: ``container`` is the product it belongs to."""

    name: str
    kind: str
    file: str
    range: Range
    container: str


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place a name is written.

    ``name`` is the symbol named (``shared-<kind>`` for a ``requires`` item or a ``shared``
    key); ``role`` is ``declaration``, ``use``, ``requires`` or ``shared``; ``owner`` is the
    section of a declaration (``resources``/``workloads``), the consumer of a use (workload
    or member name) or the environment of a ``shared`` key. ``range`` is the whole scalar,
    ``name_range`` the name's characters; ``exact`` is False when the name could not be
    found verbatim inside the scalar (a quoted scalar written with escapes), in which case
    ``name_range`` is ``range`` and ``style`` says which quotes to write back.
    """

    name: str
    file: str
    range: Range
    name_range: Range
    role: str
    owner: str
    style: str = ""
    exact: bool = True

    @property
    def written(self) -> str:
        """The name as the file writes it: the kind for a ``requires`` item or ``shared`` key."""
        return self.name[len("shared-"):] if self.role in ("requires", "shared") else self.name


def _name_range(parsed: ParsedYaml, node: YScalar, name: str) -> tuple[Range, bool]:
    lines = parsed.lines
    start, end = lines.offset(node.range.start), lines.offset(node.range.end)
    written = parsed.text[start:end]
    # rfind: an anchor written before a quoted value (`&main-db "main-db"`) may hold the name too.
    i = written.rfind(name) if name else -1
    if i < 0:
        return node.range, False
    return lines.range(start + i, start + i + len(name)), True


def _str_items(node: YNode | None) -> Iterable[YScalar]:
    if isinstance(node, YSeq):
        for item in node.items:
            if isinstance(item, YScalar) and isinstance(item.value, str) and item.value:
                yield item


def occurrences(an: "Analysis") -> list[Occurrence]:
    """Every occurrence of a resource, workload or implicit name in the root and its members.

    Sorted by file (the root first, then members in the root's order) and position; an
    aliased node reached twice is listed once. Computed once per analysis (an analysis is not
    changed once made): a member's outline in a product of 1,000 members asks for it at
    every request (issue 16 item 7: ~0.3 s each). The list returned is shared: do not change it.
    """
    memo = an.occurrences
    if memo is not None:
        return memo
    out = an.occurrences = _occurrences(an)
    return out


def _occurrences(an: "Analysis") -> list[Occurrence]:
    out: list[Occurrence] = []
    seen: set[tuple[str, Range]] = set()

    def add(name: str, src: "SourceFile", node: YScalar, role: str, owner: str, written: str | None = None) -> None:
        if (src.path, node.range) in seen:
            return
        seen.add((src.path, node.range))
        rng, exact = _name_range(src.parsed, node, written if written is not None else name)
        out.append(Occurrence(name, src.path, node.range, rng, role, owner, node.style, exact))

    root_src = an.files.get(an.root_file)
    root = root_src.parsed.root if root_src is not None else None
    if root_src is not None and isinstance(root, YMap):
        for sect in ("resources", "workloads"):
            sect_node = root.get(sect)
            if isinstance(sect_node, YMap):
                for k, _v in sect_node.entries:
                    if k.text:
                        add(k.text, root_src, k, "declaration", sect)
        workloads = root.get("workloads")
        if isinstance(workloads, YMap):
            for k, v in workloads.entries:
                if isinstance(v, YMap):
                    for item in _str_items(v.get("uses")):
                        add(item.value, root_src, item, "use", k.text)
        envs = root.get("environments")
        if isinstance(envs, YMap):
            for env_key, env in envs.entries:
                shared = env.get("shared") if isinstance(env, YMap) else None
                if isinstance(shared, YMap):
                    for k, _v in shared.entries:
                        if k.text:
                            add(f"shared-{k.text}", root_src, k, "shared", env_key.text, k.text)
    for path, src in an.files.items():
        mroot = src.parsed.root
        if src.role != "member" or not isinstance(mroot, YMap):
            continue
        consumer = src.member_name or os.path.basename(os.path.dirname(path))
        for item in _str_items(mroot.get("uses")):
            add(item.value, src, item, "use", consumer)
        for item in _str_items(mroot.get("requires")):
            add(f"shared-{item.value}", src, item, "requires", consumer, item.value)
    order = {p: i for i, p in enumerate(an.files)}
    out.sort(key=lambda o: (order.get(o.file, len(order)), o.range.start))
    return out


def _at(occs: list[Occurrence], file: str, pos: Position) -> Occurrence | None:
    hits = [o for o in occs if o.file == file and o.range.contains(pos)]
    if not hits:
        return None
    # `[a,b]` with the cursor on the comma touches `a`'s end: prefer a range holding the cursor strictly.
    hits.sort(key=lambda o: (not (o.range.start <= pos < o.range.end), o.range.start))
    return hits[0]


def _norm(file: str) -> str:
    return os.path.abspath(file)


def _declarations(occs: list[Occurrence], name: str) -> list[Occurrence]:
    return [o for o in occs if o.name == name and o.role == "declaration"]


def _is_implicit_name(name: str) -> bool:
    return name.startswith("shared-") and name[len("shared-"):] in RESOURCE_KINDS


def _member_index(an: "Analysis") -> tuple[dict[str, str], dict[str, str]]:
    """The member runways read, by their folder as written (normalised) and by their real
    folder: the first of each wins, in reading order."""
    by_written: dict[str, str] = {}
    by_folder: dict[str, str] = {}
    for path, src in an.files.items():
        if src.role != "member":
            continue
        if src.folder is not None:
            by_written.setdefault(os.path.normpath(src.folder), path)
        by_folder.setdefault(os.path.dirname(path), path)
    return by_written, by_folder


def _member_file(an: "Analysis", rel: str, index: tuple[dict[str, str], dict[str, str]] | None = None) -> str | None:
    """The runway file of the member folder ``rel`` (as written in ``members:``), if read.
    ``index``: :func:`_member_index` of ``an``, built once for many lookups (one lookup per
    item, not one scan of every file per item: a 2,000-member outline took minutes)."""
    by_written, by_folder = index if index is not None else _member_index(an)
    found = by_written.get(os.path.normpath(rel))
    if found is not None:
        return found
    # The same folder under another spelling (`./services/api/`) is read once, under its first.
    return by_folder.get(os.path.normpath(os.path.join(os.path.dirname(an.root_file), rel)))


def _member_items(an: "Analysis") -> list[tuple[YScalar, str | None]]:
    root = an.root.parsed.root if an.root_file in an.files else None
    members = root.get("members") if isinstance(root, YMap) else None
    index = _member_index(an)
    return [(item, _member_file(an, item.value, index)) for item in _str_items(members)]
