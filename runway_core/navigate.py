"""Navigation, symbols and links: pure queries over an :class:`~runway_core.analysis.Analysis`.

The language server's definition, references, rename, highlight, outline, workspace symbol
and document link features are thin adapters over the functions here (STYLE.md §2); each is
testable without a server. Positions and ranges are the core's (code points, 0-based).

Names are found in the YAML trees of the root and its members, not in the validated models,
so navigation keeps working in a runway with schema errors. What counts as an *occurrence*
of a name:

- the declaring key of a resource (``resources.<name>``) or workload (``workloads.<name>``);
- a workload's ``uses`` item and a member's ``uses`` item (flow or block sequence);
- for the implicit ``shared-<kind>`` resource: each member's ``requires: [<kind>]`` item and
  each ``environments.<env>.shared.<kind>`` key (RUNWAY_FORMAT.md, "Implicit resources").

Ranges returned for names cover the characters of the name as written: the quotes of a
quoted scalar are outside them, so a rename keeps the quoting.

Definition of an implicit ``shared-<kind>`` (it has no declaring key): the
``environments.<env>.shared.<kind>`` keys, where its size is set; when no environment sizes
it, the ``requires`` items of the members requiring it (other than the one under the cursor).

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, NamedTuple

from .model import RESOURCE_KINDS
from .positions import ZERO_RANGE, Position, Range
from .rules import NAME_LABEL, usd
from .yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq

if TYPE_CHECKING:
    from .analysis import Analysis, SourceFile

#: Most symbols one outline holds: an alias-expanded file can hold 100,000 nodes, an
#: outline that long helps nobody and costs the editor.
MAX_OUTLINE_SYMBOLS = 2_000
#: Deepest level of a generic (YAML key) outline below a resource, workload or environment.
MAX_OUTLINE_DEPTH = 6
#: Most results of one workspace symbol query.
MAX_WORKSPACE_SYMBOLS = 1_000

#: Symbol kinds (LSP 3.17 ``SymbolKind`` names, lower case); the server maps them.
SYMBOL_KINDS = ("file", "module", "namespace", "package", "class", "property", "field", "string", "number", "boolean", "array", "object", "null")


class Location(NamedTuple):
    """A range (code points) in a file (a path as keyed in ``Analysis.files``)."""

    file: str
    range: Range


class TextEdit(NamedTuple):
    """Replace ``range`` (code points) with ``new_text``."""

    range: Range
    new_text: str


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


# --------------------------------------------------------------------------------------
# The index of occurrences
# --------------------------------------------------------------------------------------


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
    aliased node reached twice is listed once.
    """
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


# --------------------------------------------------------------------------------------
# Members: `members:` items -> member runway files
# --------------------------------------------------------------------------------------


def _member_file(an: "Analysis", rel: str) -> str | None:
    """The runway file of the member folder ``rel`` (as written in ``members:``), if read."""
    members = [(p, s) for p, s in an.files.items() if s.role == "member"]
    want = os.path.normpath(rel)
    for path, src in members:
        if src.folder is not None and os.path.normpath(src.folder) == want:
            return path
    # The same folder under another spelling (`./services/api/`) is read once, under its first.
    target = os.path.normpath(os.path.join(os.path.dirname(an.root_file), rel))
    for path, _src in members:
        if os.path.dirname(path) == target:
            return path
    return None


def _member_items(an: "Analysis") -> list[tuple[YScalar, str | None]]:
    root = an.root.parsed.root if an.root_file in an.files else None
    members = root.get("members") if isinstance(root, YMap) else None
    return [(item, _member_file(an, item.value)) for item in _str_items(members)]


def document_links(an: "Analysis", file: str) -> list[DocumentLink]:
    """Links from each ``members:`` item of the root runway to that member's runway file.

    Only in the root file; an item whose member was not read (missing folder, refused path)
    has no link (its RW151 diagnostic says why). The link's range is the path as written,
    quotes excluded.
    """
    if _norm(file) != an.root_file:
        return []
    out = []
    for item, target in _member_items(an):
        if target is not None:
            out.append(DocumentLink(_name_range(an.root.parsed, item, item.value)[0], target))
    return out


# --------------------------------------------------------------------------------------
# Definition, references, highlights
# --------------------------------------------------------------------------------------


def definition_at(an: "Analysis", file: str, pos: Position) -> list[Location]:
    """Where the name at ``pos`` of ``file`` is declared.

    - a ``uses`` item (workload or member) or a declaring key: the declaring key(s);
    - a ``requires`` item or a ``shared`` key: the implicit resource's origins (see the
      module docstring), or the declaring key of a resource that took its name (RW111);
    - a ``members:`` item: the member's runway file at 0:0.

    Returns an empty list when nothing is there or the name is declared nowhere.
    """
    file = _norm(file)
    occs = occurrences(an)
    occ = _at(occs, file, pos)
    if occ is None:
        if file == an.root_file:
            for item, target in _member_items(an):
                if target is not None and item.range.contains(pos):
                    return [Location(target, ZERO_RANGE)]
        return []
    decls = _declarations(occs, occ.name)
    if decls:
        return [Location(o.file, o.name_range) for o in decls]
    if not _is_implicit_name(occ.name):
        return []
    shared = [o for o in occs if o.name == occ.name and o.role == "shared"]
    if shared:
        return [Location(o.file, o.name_range) for o in shared]
    requiring = [o for o in occs if o.name == occ.name and o.role == "requires"]
    others = [o for o in requiring if o is not occ]
    return [Location(o.file, o.name_range) for o in (others or requiring)]


def references_at(an: "Analysis", file: str, pos: Position, include_declaration: bool) -> list[Location]:
    """Every occurrence, in every file, of the name at ``pos``: workload and member ``uses``
    items (for ``shared-<kind>`` also every ``requires`` item and ``shared`` key), plus the
    declaring key when ``include_declaration``. Root first, then members; empty when the
    cursor is on no name."""
    file = _norm(file)
    occs = occurrences(an)
    occ = _at(occs, file, pos)
    if occ is None:
        return []
    return [
        Location(o.file, o.name_range)
        for o in occs
        if o.name == occ.name and (include_declaration or o.role != "declaration")
    ]


def highlights_at(an: "Analysis", file: str, pos: Position) -> list[Highlight]:
    """The occurrences, in ``file`` only, of the name at ``pos``: ``write`` for a declaring
    key or a ``shared`` key (it sets the pool's size), ``read`` for a use."""
    file = _norm(file)
    occs = occurrences(an)
    occ = _at(occs, file, pos)
    if occ is None:
        return []
    return [
        Highlight(o.name_range, "write" if o.role in ("declaration", "shared") else "read")
        for o in occs
        if o.name == occ.name and o.file == file
    ]


# --------------------------------------------------------------------------------------
# Rename
# --------------------------------------------------------------------------------------


def _origins_text(occs: list[Occurrence], name: str) -> str:
    kind = name[len("shared-"):]
    members = list(dict.fromkeys(o.owner for o in occs if o.name == name and o.role == "requires"))
    envs = list(dict.fromkeys(o.owner for o in occs if o.name == name and o.role == "shared"))
    bits = []
    if members:
        bits.append(f"`requires: [{kind}]` in {', '.join(members)}")
    if envs:
        bits.append(", ".join(f"`environments.{e}.shared.{kind}`" for e in envs))
    return " and ".join(bits) or "the shared pools"


def _refusal(occs: list[Occurrence], occ: Occurrence) -> str | None:
    decls = _declarations(occs, occ.name)
    if not decls and _is_implicit_name(occ.name):
        return (
            f"`{occ.name}` is an implicit resource (from {_origins_text(occs, occ.name)}): its name comes "
            f"from its kind and cannot be renamed. To give it a name of your own, declare a resource "
            f"of kind `{occ.name[len('shared-'):]}` and use that name instead."
        )
    if occ.role in ("requires", "shared"):
        # A declared resource took the shared-<kind> name (RW111): renaming it from here
        # would rewrite a kind, not a name.
        return f"`{occ.written}` here is a kind, not a name; rename `{occ.name}` at its declaration or a `uses` item"
    if not decls:
        return f"`{occ.name}` is not declared under `resources` or `workloads`: there is nothing to rename (declare it, or fix the name)"
    if len(decls) > 1:
        return f"`{occ.name}` is declared {len(decls)} times (a resource and a workload share one namespace, RW112); give each its own name first"
    return None


def rename_refusal_at(an: "Analysis", file: str, pos: Position) -> str | None:
    """Why the name at ``pos`` cannot be renamed (an implicit resource, an undeclared or
    twice-declared name), as a message for the user; None when it can be, or when the
    cursor is on no name at all."""
    occs = occurrences(an)
    occ = _at(occs, _norm(file), pos)
    return _refusal(occs, occ) if occ is not None else None


def prepare_rename_at(an: "Analysis", file: str, pos: Position) -> RenamePlaceholder | None:
    """The range of the name at ``pos`` (quotes excluded) and its current text, when it is a
    declared resource or workload; None otherwise (:func:`rename_refusal_at` says why)."""
    occs = occurrences(an)
    occ = _at(occs, _norm(file), pos)
    if occ is None or _refusal(occs, occ) is not None:
        return None
    return RenamePlaceholder(occ.name_range, occ.name)


def rename_at(an: "Analysis", file: str, pos: Position, new_name: str) -> dict[str, list[TextEdit]] | str:
    """Rename the resource or workload at ``pos`` to ``new_name`` in every file.

    Returns the edits by file (the declaring key and every ``uses`` item, each edit replacing
    only the name's characters so quoting and comments stay), or a message saying why the
    rename is refused: not on a name, an implicit resource, ``new_name`` not a DNS label
    (RW110), a ``shared-<kind>`` name (RW111) or a name already taken (RW112). Renaming to
    the current name returns no edits.
    """
    occs = occurrences(an)
    occ = _at(occs, _norm(file), pos)
    if occ is None:
        return "Nothing to rename here: put the cursor on a resource or workload name (its key or a `uses` item)."
    why = _refusal(occs, occ)
    if why is not None:
        return why
    old = occ.name
    if new_name == old:
        return {}
    if not NAME_LABEL.match(new_name):  # the rule RW110 applies to resource and workload names
        return (
            f"`{new_name}` is not a valid name: use a DNS label of 1 to 63 characters, lowercase letters, "
            "digits and `-`, starting with a letter and ending with a letter or digit"
        )
    if _is_implicit_name(new_name):
        return f"`{new_name}` is the name of the implicit shared {new_name[len('shared-'):]} pool (RW111); choose another name"
    taken = _declarations(occs, new_name)
    if taken:
        what = "resource" if taken[0].owner == "resources" else "workload"
        return f"`{new_name}` already names a {what}; resources and workloads share one namespace (RW112)"
    edits: dict[str, list[TextEdit]] = {}
    for o in occs:
        if o.name != old or o.role not in ("declaration", "use"):
            continue
        text = new_name if o.exact or o.style not in ("'", '"') else f"{o.style}{new_name}{o.style}"
        edits.setdefault(o.file, []).append(TextEdit(o.name_range, text))
    return edits


# --------------------------------------------------------------------------------------
# Document symbols (outline)
# --------------------------------------------------------------------------------------


class _Budget:
    """Counts outline symbols against :data:`MAX_OUTLINE_SYMBOLS`."""

    def __init__(self) -> None:
        self.left = MAX_OUTLINE_SYMBOLS

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _within(inner: Range, outer: Range) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _entry_range(key: YScalar, value: YNode | None) -> Range:
    if value is None or value.range.start < key.range.start:
        # An alias to an anchor written earlier: its nodes sit elsewhere in the file.
        return key.range
    return Range(key.range.start, max(key.range.end, value.range.end))


def _scalar_detail(node: YNode | None, key: str = "") -> str:
    if isinstance(node, YScalar):
        from .rules import secret_shape

        if secret_shape(key, node.value) is not None:
            return "looks like a secret (RW147)"  # never spread it into the outline
        text = node.text if node.value is not None else ""
        return text if len(text) <= 60 else text[:59] + "…"
    if isinstance(node, YSeq):
        inner = ", ".join(i.text for i in node.items if isinstance(i, YScalar))
        return f"[{inner}]" if len(inner) <= 60 else f"{len(node.items)} items"
    if isinstance(node, YMap):
        return ""
    return ""


def _value_kind(node: YNode | None) -> str:
    if isinstance(node, YMap):
        return "object"
    if isinstance(node, YSeq):
        return "array"
    if isinstance(node, YScalar):
        v = node.value
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "boolean"
        if isinstance(v, (int, float)):
            return "number"
    return "string"


def _generic(node: YNode | None, outer: Range, depth: int, budget: _Budget) -> tuple[DocumentSymbol, ...]:
    """The keys of a mapping as an outline: objects, arrays and scalars (value as detail)."""
    if not isinstance(node, YMap) or depth > MAX_OUTLINE_DEPTH:
        return ()
    out = []
    for k, v in node.entries:
        rng = _entry_range(k, v)
        if not _within(rng, outer) or not budget.take():
            continue
        out.append(DocumentSymbol(k.text, _value_kind(v), _scalar_detail(v, k.text), rng, k.range, _generic(v, rng, depth + 1, budget)))
    return tuple(out)


def _per_env(an: "Analysis", node: YNode | None, default: str) -> list[str]:
    """One value per environment, in the environments' order, from a size/scale spec."""
    envs = list(an.environment_names)
    if isinstance(node, YScalar) and node.value is not None:
        return [node.text] * len(envs)
    if isinstance(node, YMap):
        out = []
        for env in envs:
            v = node.get(env)
            out.append(v.text if isinstance(v, YScalar) and v.value is not None else default)
        return out
    return [default] * len(envs)


def _sizes(an: "Analysis", name: str, entry: YNode | None) -> str:
    """``small/medium/large``: the size in each environment (plan when there is one)."""
    if an.plans:
        sizes = []
        for env in an.environment_names:
            plan = an.plans.get(env)
            item = plan.item(name) if plan is not None else None
            sizes.append(item.size if item is not None and item.size else "—")
        return "/".join(sizes)
    return "/".join(_per_env(an, entry.get("size") if isinstance(entry, YMap) else None, "small"))


def _entity_detail(an: "Analysis", name: str, sect: str, entry: YNode | None) -> str:
    if sect == "workloads":
        tasks = "/".join(_per_env(an, entry.get("scale") if isinstance(entry, YMap) else None, "1"))
        return f"workload · {_sizes(an, name, entry)} · {tasks} tasks"
    kind_node = entry.get("kind") if isinstance(entry, YMap) else None
    kind = kind_node.text if isinstance(kind_node, YScalar) and kind_node.value is not None else "resource"
    return f"{kind} · {_sizes(an, name, entry)}"


def _env_detail(an: "Analysis", env: str) -> str:
    plan = an.plans.get(env)
    if plan is None:
        return "environment"
    if plan.cap is None:
        return f"{usd(plan.total)}, no cap"
    over = " · over cap" if plan.total > plan.cap else ""
    return f"{usd(plan.total)} / {usd(plan.cap)} cap{over}"


def _section_symbol(key: YScalar, value: YNode | None, detail: str, children: list[DocumentSymbol]) -> DocumentSymbol:
    return DocumentSymbol(key.text, "namespace", detail, _entry_range(key, value), key.range, tuple(children))


def _root_symbols(an: "Analysis", root: YMap, budget: _Budget) -> list[DocumentSymbol]:
    out: list[DocumentSymbol] = []
    for k, v in root.entries:
        if not budget.take():
            break
        rng = _entry_range(k, v)
        if k.text in ("resources", "workloads") and isinstance(v, YMap):
            children = []
            for name_key, entry in v.entries:
                erng = _entry_range(name_key, entry)
                if _within(erng, rng) and budget.take():
                    children.append(DocumentSymbol(name_key.text, "class", _entity_detail(an, name_key.text, k.text, entry), erng, name_key.range, _generic(entry, erng, 1, budget)))
            out.append(_section_symbol(k, v, f"{len(v.entries)} {k.text}", children))
        elif k.text == "environments" and isinstance(v, YMap):
            children = []
            for env_key, env in v.entries:
                erng = _entry_range(env_key, env)
                if _within(erng, rng) and budget.take():
                    children.append(DocumentSymbol(env_key.text, "module", _env_detail(an, env_key.text), erng, env_key.range, _generic(env, erng, 1, budget)))
            out.append(_section_symbol(k, v, f"{len(v.entries)} environments", children))
        elif k.text == "members" and isinstance(v, YSeq):
            children = []
            for item, target in _member_items(an):
                if not _within(item.range, rng) or not budget.take():
                    continue
                src = an.files.get(target) if target is not None else None
                name = (src.member_name if src is not None else None) or item.value
                children.append(DocumentSymbol(name, "package", item.value, item.range, item.range))
            out.append(_section_symbol(k, v, f"{len(children)} members", children))
        else:
            out.append(DocumentSymbol(k.text, _value_kind(v), _scalar_detail(v), rng, k.range, _generic(v, rng, 1, budget)))
    return out


def _member_symbols(an: "Analysis", root: YMap, budget: _Budget) -> list[DocumentSymbol]:
    occs = {(o.range, o.role): o for o in occurrences(an)}
    out: list[DocumentSymbol] = []
    for k, v in root.entries:
        if not budget.take():
            break
        rng = _entry_range(k, v)
        if k.text in ("uses", "requires") and isinstance(v, YSeq):
            children = []
            for item in _str_items(v):
                if not _within(item.range, rng) or not budget.take():
                    continue
                if k.text == "requires":
                    name = f"shared-{item.value}"
                    detail = f"{name} · {_sizes(an, name, None)}" if name in an.symbols else f"{name} (not a kind)"
                else:
                    sym = an.symbols.get(item.value)
                    detail = f"{sym.kind or sym.type} · {_sizes(an, item.value, None)}" if sym is not None else "not declared in the root"
                occ = occs.get((item.range, "requires" if k.text == "requires" else "use"))
                sel = occ.name_range if occ is not None else item.range
                children.append(DocumentSymbol(item.value, "field", detail, item.range, sel))
            out.append(DocumentSymbol(k.text, "array", ", ".join(i.text for i in _str_items(v)), rng, k.range, tuple(children)))
        else:
            out.append(DocumentSymbol(k.text, _value_kind(v), _scalar_detail(v), rng, k.range, _generic(v, rng, 1, budget)))
    return out


def document_symbols(an: "Analysis", file: str) -> list[DocumentSymbol]:
    """The outline of ``file``, in source order.

    Root runway: ``environments``, ``resources``, ``workloads`` and ``members`` as
    namespaces; each environment (detail: total against cap), resource (detail: kind and
    size per environment, ``postgres · small/medium/large``) and workload (``workload ·
    small/small/medium · 1/1/2 tasks``) with its keys as children; other top-level keys with
    their value as detail. Member runway: ``requires`` (each kind with its implicit
    ``shared-<kind>`` and sizes) and ``uses`` (each name with its kind and sizes), other keys
    with their value. Empty for a file outside the analysis or without a mapping.
    """
    file = _norm(file)
    src = an.files.get(file)
    root = src.parsed.root if src is not None else None
    if src is None or not isinstance(root, YMap):
        return []
    budget = _Budget()
    return _member_symbols(an, root, budget) if src.role == "member" else _root_symbols(an, root, budget)


# --------------------------------------------------------------------------------------
# Workspace symbols
# --------------------------------------------------------------------------------------


def _matches(query: str, name: str) -> bool:
    """Case-insensitive subsequence match (``mdb`` finds ``main-db``); clients filter further
    (LSP 3.17 §"Workspace Symbols Request": a relaxed match is recommended)."""
    it = iter(name.lower())
    return all(ch in it for ch in query.lower() if not ch.isspace())


def _product(an: "Analysis") -> str:
    if an.spec is not None:
        return an.spec.product
    root = an.root.parsed.root if an.root_file in an.files else None
    p = root.get("product") if isinstance(root, YMap) else None
    return p.text if isinstance(p, YScalar) and p.value is not None else os.path.basename(os.path.dirname(an.root_file))


def workspace_symbols(analyses: Iterable["Analysis"], query: str) -> list[WorkspaceSymbol]:
    """Environments, resources, workloads, implicit resources and members of every analysed
    root whose name matches ``query`` (all when empty), at most
    :data:`MAX_WORKSPACE_SYMBOLS`. An implicit resource points at its first origin; a member
    at its ``member:`` value, else its file's start. ``container`` is the product."""
    out: list[WorkspaceSymbol] = []
    seen: set[tuple[str, str, Range]] = set()

    def add(name: str, kind: str, file: str, rng: Range, container: str) -> None:
        if (name, file, rng) in seen or not _matches(query, name):
            return
        seen.add((name, file, rng))
        out.append(WorkspaceSymbol(name, kind, file, rng, container))

    for an in analyses:
        if an.root_file not in an.files:
            continue
        product = _product(an)
        for env, rng in an.env_keys.items():
            add(env, "module", an.root_file, rng, product)
        occs = occurrences(an)
        for o in occs:
            if o.role == "declaration":
                add(o.name, "class", o.file, o.name_range, product)
        for name, sym in an.symbols.items():
            if sym.type == "implicit" and sym.origins:
                origin = next((o for o in occs if o.name == name and o.role in ("shared", "requires")), None)
                file, rng = (origin.file, origin.name_range) if origin is not None else sym.origins[0]
                add(name, "class", file, rng, product)
        for path, src in an.files.items():
            if src.role != "member":
                continue
            mroot = src.parsed.root
            node = mroot.get("member") if isinstance(mroot, YMap) else None
            rng = node.range if isinstance(node, YScalar) and node.value is not None else ZERO_RANGE
            add(src.member_name or os.path.basename(os.path.dirname(path)), "package", path, rng, product)
    q = query.lower()
    out.sort(key=lambda s: (not s.name.lower().startswith(q), s.name, s.file))
    return out[:MAX_WORKSPACE_SYMBOLS]
