"""Definition, references, highlights and rename of a name, and the links of ``members:``
items (see :mod:`runway_core.ide.navigation` for what counts as an occurrence)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...diagnostics import Severity
from ...names import NAME_LABEL, reserved_name, shown
from ...planner import injected_variables
from ...positions import ZERO_RANGE, Position, Range
from ...yamlsrc import YMap, YScalar, YSeq, scalar_text
from .._edit import TextEdit
from .occurrences import (
    DocumentLink,
    Highlight,
    Location,
    Occurrence,
    RenamePlaceholder,
    _at,
    _declarations,
    _is_implicit_name,
    _member_items,
    _name_range,
    _norm,
    occurrences,
)

if TYPE_CHECKING:
    from ...facts import Analysis


def _lookup(an: "Analysis", file: str, pos: Position) -> tuple[str, list[Occurrence], Occurrence | None]:
    """``file`` normalised, every occurrence of the analysis, and the one at ``pos`` (or None)."""
    path = _norm(file)
    occs = occurrences(an)
    return path, occs, _at(occs, path, pos)


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


def definition_at(an: "Analysis", file: str, pos: Position) -> list[Location]:
    """Where the name at ``pos`` of ``file`` is declared.

    - a ``uses`` item (workload or member) or a declaring key: the declaring key(s);
    - a ``requires`` item or a ``shared`` key: the implicit resource's origins (see the
      module docstring), or the declaring key of a resource that took its name (RW111);
    - a ``members:`` item: the member's runway file at 0:0.

    Returns an empty list when nothing is there or the name is declared nowhere.
    """
    file, occs, occ = _lookup(an, file, pos)
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
    file, occs, occ = _lookup(an, file, pos)
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
    file, occs, occ = _lookup(an, file, pos)
    if occ is None:
        return []
    return [
        Highlight(o.name_range, "write" if o.role in ("declaration", "shared") else "read")
        for o in occs
        if o.name == occ.name and o.file == file
    ]


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


def _unread_refusal(an: "Analysis") -> str | None:
    """Why no rename can be made while a file of the runway is read only in part (a syntax
    error, or an alias or nesting limit, cut its tree short: ``parsed.partial``), else None.

    A rename must change every occurrence: a cut tree lacks the names past the cut, and a
    root cut short lists no member (members are read once the root parses), so the edit
    would rename some uses and leave the rest dangling (RW150), with none of the consumers'
    injected variables known to confirm (:func:`rename_impact`). Refused, naming where the
    file stops being read, rather than returning that partial edit."""
    root_dir = os.path.dirname(an.root_file)
    for path, src in an.files.items():
        if not src.parsed.partial:
            continue
        errors = sorted((d for d in src.parsed.diagnostics if d.severity == Severity.ERROR), key=lambda d: (d.range.start.line, d.range.start.character))
        where = f" at {errors[0].range.start.line + 1}:{errors[0].range.start.character + 1}" if errors else ""
        what = "a syntax error" if any(d.code in ("RW001", "RW006") for d in errors) else "an error that stops it being read"
        members = "; the members are not read until it parses" if path == an.root_file else ""
        return (
            f"`{os.path.relpath(path, root_dir)}` has {what}{where}: a rename now would miss the names past it{members}. "
            "Fix it first, then rename."
        )
    return None


def rename_refusal_at(an: "Analysis", file: str, pos: Position) -> str | None:
    """Why the name at ``pos`` cannot be renamed (a file of the runway read only in part, an
    implicit resource, an undeclared or twice-declared name), as a message for the user;
    None when it can be, or when the cursor is on no name at all (and every file reads
    whole)."""
    unread = _unread_refusal(an)
    if unread is not None:
        return unread
    _file, occs, occ = _lookup(an, file, pos)
    return _refusal(occs, occ) if occ is not None else None


def prepare_rename_at(an: "Analysis", file: str, pos: Position) -> RenamePlaceholder | None:
    """The range of the name at ``pos`` (quotes excluded) and its current text, when it is a
    declared resource or workload; None otherwise (:func:`rename_refusal_at` says why)."""
    if _unread_refusal(an) is not None:
        return None
    _file, occs, occ = _lookup(an, file, pos)
    if occ is None or _refusal(occs, occ) is not None:
        return None
    return RenamePlaceholder(occ.name_range, occ.name)


def rename_at(an: "Analysis", file: str, pos: Position, new_name: str) -> dict[str, list[TextEdit]] | str:
    """Rename the resource or workload at ``pos`` to ``new_name`` in every file.

    Returns the edits by file (the declaring key, every ``uses`` item and every item key of the
    usage file naming it: :func:`_usage_items`, each edit replacing
    only the name's characters so quoting and comments stay), or a message saying why the
    rename is refused: a file of the runway read only in part (a syntax error: see
    :func:`_unread_refusal`), not on a name, an implicit resource, ``new_name`` not a DNS
    label (RW110), a name RW111 reserves (``shared-<kind>``, ``alb``, ``service-discovery``:
    :func:`runway_core.names.reserved_name`) or a name already taken (RW112).
    Renaming to the current name returns no edits.
    """
    unread = _unread_refusal(an)
    if unread is not None:
        return unread
    _file, occs, occ = _lookup(an, file, pos)
    if occ is None:
        return "Nothing to rename here: put the cursor on a resource or workload name (its key or a `uses` item)."
    why = _refusal(occs, occ)
    if why is not None:
        return why
    old = occ.name
    if new_name == old:
        return {}
    # The rule RW110 applies to resource and workload names, to the whole name: a client's
    # `newName` with its line break ("primary\n") is no name (ninth adversary L11).
    if not NAME_LABEL.fullmatch(new_name):
        return (
            f"`{shown(new_name)}` is not a valid name: use a DNS label of 1 to 63 characters, lowercase letters, "
            "digits and `-`, starting with a letter and ending with a letter or digit"
        )
    reserved = reserved_name(new_name)  # what RW111 would say once the rename is applied
    if reserved is not None:
        return f"`{new_name}` is the name of {reserved} (RW111); choose another name"
    taken = _declarations(occs, new_name)
    if taken:
        what = "resource" if taken[0].owner == "resources" else "workload"
        return f"`{new_name}` already names a {what}; resources and workloads share one namespace (RW112)"
    clash = _injected_clash(an, occs, old, new_name)
    if clash is not None:
        return clash
    edits: dict[str, list[TextEdit]] = {}
    for o in [*occs, *_usage_items(an, old)]:
        if o.name != old or o.role not in ("declaration", "use", "usage"):
            continue
        if o.style in ("'", '"'):
            text = new_name if o.exact else f"{o.style}{new_name}{o.style}"
        else:
            text = scalar_text(new_name)  # `null`, `true`, `false` quoted: YAML would read no name
        edits.setdefault(o.file, []).append(TextEdit(o.name_range, text))
    return edits


def _usage_items(an: "Analysis", name: str) -> list[Occurrence]:
    """Each ``environments.<env>.items.<name>`` key of the usage file the analysis read (role
    ``usage``, owner the environment), every environment's, the runway's or not: a rename that
    left them would drop their figures (RW201 "unknown item") and change the costs and
    verdicts silently (tenth adversary L5). Not an occurrence for references or highlights:
    only the rename writes them."""
    out: list[Occurrence] = []
    for path, src in an.files.items():
        root = src.parsed.root
        envs = root.get("environments") if src.role == "usage" and isinstance(root, YMap) else None
        if not isinstance(envs, YMap):
            continue
        for env_key, env in envs.entries:
            items = env.get("items") if isinstance(env, YMap) else None
            if not isinstance(items, YMap):
                continue
            for key, _value in items.entries:
                if key.text == name:
                    rng, exact = _name_range(src.parsed, key, name)
                    out.append(Occurrence(name, path, key.range, rng, "usage", str(env_key.text), key.style, exact))
    return out


def _injected_clash(an: "Analysis", occs: list[Occurrence], old: str, new_name: str) -> str | None:
    """Why renaming ``old`` to ``new_name`` is refused because a consumer already declares,
    in its ``env`` or ``secrets``, a variable the new name would inject into it (the rename
    would make RW143 errors: docs/diagnostics.md), else None. Only root workloads declare
    ``env`` and ``secrets``; a variable already colliding under the old name is RW143 now and
    no reason to refuse."""
    sym = an.symbols.get(old)
    if sym is None:
        return None
    kind = "workload" if sym.type == "workload" else (sym.kind or "")
    new_vars = set(injected_variables(new_name, kind))
    root_src = an.files.get(an.root_file)
    workloads = root_src.parsed.root.get("workloads") if root_src is not None and isinstance(root_src.parsed.root, YMap) else None
    if not new_vars or not isinstance(workloads, YMap):
        return None
    clashes: list[str] = []
    for consumer in dict.fromkeys(o.owner for o in occs if o.name == old and o.role == "use" and o.file == an.root_file):
        w = workloads.get(consumer)
        if not isinstance(w, YMap):
            continue
        env, secrets = w.get("env"), w.get("secrets")
        names = [(k.text, "env") for k, _v in env.entries] if isinstance(env, YMap) else []
        names += [(it.value, "secrets") for it in secrets.items if isinstance(it, YScalar)] if isinstance(secrets, YSeq) else []
        clashes += [f"`{var}` into `{consumer}` (declared in its `{where}`)" for var, where in dict.fromkeys(names) if var in new_vars]
    if not clashes:
        return None
    return (
        f"Renaming `{old}` to `{new_name}` would inject {', '.join(clashes)}: a variable cannot be both declared "
        "and injected (RW143). Rename or remove that variable first, or choose another name."
    )


@dataclass(frozen=True)
class RenameImpact:
    """What a rename changes beyond the names written in the runways: the variables every
    consumer is injected (docs/format.md, "Uses and injected variables"): ``variables`` pairs
    each old name with its new one (``MAIN_DB_URL`` -> ``PRIMARY_DB_URL``), ``consumers`` are
    the workloads and members that ``uses`` it, whose running code reads the old names;
    ``uses`` is each ``uses`` item the rename edits, as ``(consumer, file, name range)``, so
    an editor can show each consumer's edits under what changes for it."""

    old: str
    new: str
    kind: str
    variables: tuple[tuple[str, str], ...]
    consumers: tuple[str, ...]
    uses: tuple[tuple[str, str, Range], ...] = ()

    def reads(self, consumer: str) -> str:
        """What changes for ``consumer``, in a few words: ``checkout reads MAIN_DB_* (URL,
        HOST) → PRIMARY_DB_*`` when the variables share a prefix, else each pair."""
        olds = [a for a, _b in self.variables]
        news = [b for _a, b in self.variables]
        old_prefix, new_prefix = _shared_prefix(olds), _shared_prefix(news)
        if old_prefix and new_prefix and len(olds) > 1:
            suffixes = ", ".join(a[len(old_prefix) :] for a in olds)
            return f"{consumer} reads {old_prefix}* ({suffixes}) → {new_prefix}*"
        return f"{consumer} reads {', '.join(f'{a} → {b}' for a, b in self.variables)}"

    def summary(self) -> str:
        """One sentence for the confirmation a client shows before it applies the rename."""
        renamed = ", ".join(f"{a} → {b}" for a, b in self.variables)
        return (
            f"Renaming {self.old} to {self.new} renames the variables injected into {', '.join(self.consumers)}: {renamed}. "
            "Code that reads the old names must change with it."
        )


def rename_impact(an: "Analysis", file: str, pos: Position, new_name: str) -> RenameImpact | None:
    """The :class:`RenameImpact` of the rename :func:`rename_at` would make, or None when it
    makes none (refused, no change) or no consumer is injected anything."""
    if _unread_refusal(an) is not None:
        return None
    _file, occs, occ = _lookup(an, file, pos)
    if occ is None or _refusal(occs, occ) is not None or new_name == occ.name or not NAME_LABEL.fullmatch(new_name):
        return None
    sym = an.symbols.get(occ.name)
    if sym is None:
        return None
    kind = "workload" if sym.type == "workload" else (sym.kind or "")
    consumers = tuple(sorted({o.owner for o in occs if o.name == occ.name and o.role == "use"}))
    variables = tuple(zip(injected_variables(occ.name, kind), injected_variables(new_name, kind)))
    if not consumers or not variables:
        return None
    uses = tuple((o.owner, o.file, o.name_range) for o in occs if o.name == occ.name and o.role == "use")
    return RenameImpact(occ.name, new_name, kind, variables, consumers, uses)


def _shared_prefix(names: list[str]) -> str:
    """The longest prefix of every name that ends with ``_`` (``MAIN_DB_``); "" when none."""
    if not names:
        return ""
    first = names[0]
    n = 0
    while n < len(first) and all(len(x) > n and x[n] == first[n] for x in names):
        n += 1
    cut = first.rfind("_", 0, n) + 1
    return first[:cut]
