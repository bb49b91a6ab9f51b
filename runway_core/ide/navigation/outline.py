"""The outline of a runway file (document symbols) and the workspace symbol search.

Bounded: at most :data:`MAX_OUTLINE_SYMBOLS` symbols, :data:`MAX_OUTLINE_DEPTH` levels of
generic keys, :data:`MAX_WORKSPACE_SYMBOLS` results. A value that looks like a secret is
never shown as a detail (RW147).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Iterator

from ...money import usd
from ...positions import ZERO_RANGE, Range
from ...text import PUBLIC_KEY_NAME, SECRET_NAME, secret_shape
from ...yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq, iter_nodes
from .occurrences import DocumentSymbol, WorkspaceSymbol, _member_items, _name_range, _norm, _str_items, occurrences

if TYPE_CHECKING:
    from ...facts import Analysis

#: Most symbols one outline holds: an alias-expanded file can hold 100,000 nodes, an
#: outline that long helps nobody and costs the editor.
MAX_OUTLINE_SYMBOLS = 2_000
#: Deepest level of a generic (YAML key) outline below a resource, workload or environment.
MAX_OUTLINE_DEPTH = 6
#: Most results of one workspace symbol query.
MAX_WORKSPACE_SYMBOLS = 1_000


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


#: The detail shown instead of a value that looks like a secret.
SECRET_DETAIL = "looks like a secret (RW147)"


def _looks_secret(node: YSeq | YMap, key: str) -> bool:
    """True when a list or mapping under ``key`` would show a secret: a list item that looks
    like one (as a scalar under ``key`` would), or any value in it when ``key`` names a
    credential (``DB_PASSWORD: [hunter2]``, ``DB_PASSWORD: {value: hunter2}``: as secret as
    ``DB_PASSWORD: hunter2``; seventh adversary F4). A mapping's own secret-named keys are
    masked where they are listed, as its children."""
    if isinstance(node, YSeq) and any(isinstance(i, YScalar) and secret_shape(key, i.value) is not None for i in node.items):
        return True
    if not SECRET_NAME.search(key) or PUBLIC_KEY_NAME.search(key):
        return False
    return any(isinstance(n, YScalar) and secret_shape(key, n.value) is not None for n in iter_nodes(node))


def _scalar_detail(node: YNode | None, key: str = "") -> str:
    if isinstance(node, (YSeq, YMap)) and _looks_secret(node, key):
        return SECRET_DETAIL
    if isinstance(node, YScalar):
        if secret_shape(key, node.value) is not None:
            return SECRET_DETAIL  # never spread it into the outline
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
        detail = _scalar_detail(v, k.text)
        # A value masked whole shows none of its keys either.
        children = () if detail == SECRET_DETAIL else _generic(v, rng, depth + 1, budget)
        out.append(DocumentSymbol(k.text, _value_kind(v), detail, rng, k.range, children))
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
        return f"{usd(plan.total)}, " + ("cap invalid" if plan.cap_source == "invalid" else "no cap")
    over = " · over cap" if plan.total > plan.cap else ""
    return f"{usd(plan.total)} / {usd(plan.cap)} cap{over}"


def _section_symbol(key: YScalar, value: YNode | None, detail: str, children: list[DocumentSymbol]) -> DocumentSymbol:
    return DocumentSymbol(key.text, "namespace", detail, _entry_range(key, value), key.range, tuple(children))


def _top_entries(root: YMap, budget: _Budget) -> Iterator[tuple[YScalar, YNode, Range]]:
    """The top-level entries of ``root`` with their ranges, while the budget lasts."""
    for k, v in root.entries:
        if not budget.take():
            return
        yield k, v, _entry_range(k, v)


def _plain_symbol(key: YScalar, value: YNode, rng: Range, budget: _Budget) -> DocumentSymbol:
    """A top-level key as an outline entry: its value's kind and text, its keys as children."""
    detail = _scalar_detail(value, key.text)
    children = () if detail == SECRET_DETAIL else _generic(value, rng, 1, budget)
    return DocumentSymbol(key.text, _value_kind(value), detail, rng, key.range, children)


def _root_symbols(an: "Analysis", root: YMap, budget: _Budget) -> list[DocumentSymbol]:
    out: list[DocumentSymbol] = []
    for k, v, rng in _top_entries(root, budget):
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
            out.append(_plain_symbol(k, v, rng, budget))
    return out


def _member_symbols(an: "Analysis", parsed: ParsedYaml, root: YMap, budget: _Budget) -> list[DocumentSymbol]:
    """The outline of a member runway (``parsed``, its mapping ``root``). Reads the member's
    own file and the root's symbols only, never every occurrence of the product: a member's
    outline in a product of 1,000 members built all 3,000 of them (~0.15 s on the event
    loop, the slowest request of issue 16 item 7)."""
    out: list[DocumentSymbol] = []
    for k, v, rng in _top_entries(root, budget):
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
                # The name's characters, as occurrences() finds them (the kind for requires).
                sel = _name_range(parsed, item, item.value)[0]
                children.append(DocumentSymbol(item.value, "field", detail, item.range, sel))
            out.append(DocumentSymbol(k.text, "array", ", ".join(i.text for i in _str_items(v)), rng, k.range, tuple(children)))
        else:
            out.append(_plain_symbol(k, v, rng, budget))
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
    return _member_symbols(an, src.parsed, root, budget) if src.role == "member" else _root_symbols(an, root, budget)


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
