"""Fixes of keys and names: RW102 (rename an unknown key), RW120 (the suggested kind), RW164
(the suggested AWS region), RW131
(a size or scale for an undeclared environment: rename, declare it, or remove the entry)
and RW002 (delete the duplicate entry; merge a second top-level section into the first)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Callable, Iterable

from ...diagnostics import Diagnostic, Severity
from ...names import NAME_LABEL
from ...positions import Range
from ...yamlsrc import YMap, YScalar, iter_nodes, parse_yaml
from .._edit import TextEdit
from ._context import CLOSE_NAMES, Fix, _Ctx, _new_section, _parent_map, _scalar_at
from ._source import _local_path, _Src, _structure

if TYPE_CHECKING:
    from ...facts import Analysis


def _rename_fixes(ctx: _Ctx, diag: Diagnostic, names: Iterable[str], title: Callable[[str, str], str], preferred: str | None) -> list[Fix]:
    src = ctx.src()
    hit = _scalar_at(src, diag.range)
    if hit is None:
        return []
    parts, node, is_key = hit
    parent = _parent_map(src, parts) if is_key else None
    taken = set(parent.keys()) if parent is not None else set()
    out = []
    for n in dict.fromkeys(names):
        if not n or n == node.text or n in taken:
            continue
        f = ctx.fix(title(node.text, n), diag, [(ctx.path, src.replace_scalar(node, n))], preferred=n == preferred)
        if f:
            out.append(f)
    return out


def _unknown_key_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    data = diag.data or {}
    key, sug, known = data.get("key"), data.get("suggestion"), list(data.get("known") or ())
    if not key:
        return []
    names = ([sug] if sug else []) + difflib.get_close_matches(key, known, n=CLOSE_NAMES, cutoff=0.6)
    return _rename_fixes(ctx, diag, names, lambda old, new: f"Rename `{old}` to `{new}`", sug)


def _unknown_kind_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    sug = (diag.data or {}).get("suggestion")
    if not sug:
        return []
    return _rename_fixes(ctx, diag, [sug], lambda old, new: f"Change kind to `{new}`", sug)


def _region_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    """RW164: the suggested AWS region (the lower-case name, or the closest region)."""
    sug = (diag.data or {}).get("suggestion")
    if not sug:
        return []
    return _rename_fixes(ctx, diag, [sug], lambda old, new: f"Change region to `{new}`", sug)


def _undeclared_env_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    data = diag.data or {}
    env, entry, which = data.get("environment"), data.get("entry"), data.get("key")
    an = ctx.an
    src = ctx.src()
    if not env or not entry or which not in ("size", "scale"):
        return []
    sect = next((s for s in ("resources", "workloads") if _local_path(src, (s, entry)) is not None), None)
    path = _local_path(src, (sect, entry, which)) if sect else None
    if path is None or not isinstance(path[-1][1], YMap):
        return []
    (_, entry_node), (_, mp) = path[-2], path[-1]
    out: list[Fix] = []
    sug = data.get("suggestion")
    if sug and sug not in mp:
        out.extend(_rename_fixes(ctx, diag, [sug], lambda old, new: f"Rename `{old}` to `{new}`", sug))
    if NAME_LABEL.fullmatch(env):
        f = ctx.fix(f"Declare environment `{env}`", diag, [(ctx.path, _declare_environment(src, an, env))])
        if f:
            out.append(f)
    if len(mp.entries) > 1:
        e = src.remove_entry(mp, env)
    else:
        e = src.remove_entry(entry_node, which)  # the map would be left empty: drop the key
    f = ctx.fix(f"Remove the `{env}` entry from `{which}`", diag, [(ctx.path, e)])
    if f:
        out.append(f)
    return out


def _declare_environment(src: _Src, an: "Analysis", env: str) -> TextEdit | None:
    """``ENV: {}`` under ``environments``. Without declared environments the defaults are in
    force, so they are declared too: declaring only ENV would drop dev, staging, production."""
    root = src.parsed.root
    if not isinstance(root, YMap):
        return None
    names = list(an.environment_names) + [env]
    if not an.environments_declared:
        if "environments" not in root:
            return _new_section(src, "environments", [f"  {n}: {{}}" for n in names], ("resources", "workloads"))
        path = _local_path(src, ("environments",))
        if path is None:
            return None
        key, node = path[0]
        flow = "{" + ", ".join(f"{n}: {{}}" for n in names) + "}"
        if isinstance(node, YScalar) and node.value is None:
            return src.set_value(key, node, flow)
        if isinstance(node, YMap) and not node.entries:
            start, end = src.off(node.range.start), src.off(node.range.end)
            return src.edit(start, end, flow)
        return None
    path = _local_path(src, ("environments",))
    if path is None or not isinstance(path[0][1], YMap):
        return None
    return src.insert_entry(path[0][1], env, "{}")


def _duplicate_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    """RW002: delete the second entry; for a second top-level section (``resources:`` twice),
    first merge its entries into the first one's when no name collides, and say in the
    delete's title what goes (its entries and lines): the second section was ignored, but
    it is the user's text (seventh adversary F6)."""
    src = ctx.src()
    key = (diag.data or {}).get("key")
    start = src.off(diag.range.start)
    if not key or src.parsed.root is None:
        return []
    # The second entry is not in the tree (the first value is kept): find its mapping.
    container = None
    for n in iter_nodes(src.parsed.root):
        if isinstance(n, YMap) and n.range.start <= diag.range.start <= n.range.end:
            if container is None or container.range.start <= n.range.start:
                container = n
    if container is not None and container.flow:
        f = ctx.fix(f"Remove duplicate key `{key}`", diag, [(ctx.path, _delete_flow_item(src, start))])
        return [f] if f else []
    lines = _block_entry_lines(src, diag.range)
    if lines is None:
        return []
    section = _second_section(src, container, key, diag.range, lines)
    if section is None:
        f = ctx.fix(f"Remove duplicate key `{key}`", diag, [(ctx.path, src.delete_lines(*lines))])
        return [f] if f else []
    names, body = section
    first, last = lines
    span = f"line {first + 1}" if first == last else f"lines {first + 1}\u2013{last + 1}"
    count = f"{len(names)} {'entry' if len(names) == 1 else 'entries'}"
    out = []
    merge = _merge_section(ctx, src, key, names, body, lines)
    if merge is not None:
        f = ctx.fix(f"Merge the second `{key}:` into the first ({count}: {', '.join(names)})", diag, merge, preferred=True)
        if f:
            out.append(f)
    f = ctx.fix(f"Remove the second `{key}:` section ({count}, {span})", diag, [(ctx.path, src.delete_lines(*lines))])
    if f:
        out.append(f)
    return out


def _block_entry_lines(src: _Src, key: Range) -> tuple[int, int] | None:
    """The first and last lines of a block entry whose key is at ``key``: its key line and
    the deeper lines after it (trailing blank and comment lines stay with what follows);
    None when the key does not start its line."""
    line = key.start.line
    before = src.lines.line_text(line)[: key.start.character].lstrip("\ufeff")
    if before.strip():
        return None
    col = key.start.character
    last = line
    j = line + 1
    while j < src.lines.line_count:
        text = src.lines.line_text(j)
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            if len(text) - len(text.lstrip(" ")) <= col:
                break
            last = j
        j += 1
    return line, last


def _second_section(src: _Src, container: YMap | None, key: str, rng: Range, lines: tuple[int, int]) -> tuple[list[str], list[str]] | None:
    """For a second top-level ``key:`` written as a block mapping below its key line: the
    names of its entries and its body lines (the lines after the key line); None for any
    other duplicate (nested, a scalar, a flow mapping, anything after the colon but a
    comment, a body that does not parse whole)."""
    root = src.parsed.root
    if not isinstance(root, YMap) or root.flow or src.indent(YScalar(rng)) != 0:
        return None
    first, last = lines
    colon = src.colon_after(YScalar(rng))
    if colon is None:
        return None
    rest = src.text[colon : src.lines.line_start(first) + len(src.lines.line_text(first))].strip()
    if rest and not rest.startswith("#"):
        return None
    body = [src.lines.line_text(i) for i in range(first + 1, last + 1)]
    parsed = parse_yaml(f"{key}:\n" + "\n".join(body) + "\n")
    value = parsed.root.get(key) if isinstance(parsed.root, YMap) else None
    if parsed.partial or not isinstance(value, YMap) or value.flow or not value.entries:
        return None
    if any(d.severity == Severity.ERROR for d in parsed.diagnostics):
        return None
    return [k.text for k, _v in value.entries], body


def _merge_section(ctx: _Ctx, src: _Src, key: str, names: list[str], body: list[str], lines: tuple[int, int]) -> list[tuple[str, TextEdit | None]] | None:
    """The edits that move the second section's ``body`` to the end of the first section's
    entries (re-indented to theirs) and delete the second section; None when the first is no
    block mapping with entries of its own, or a name collides (in the first section, or,
    for resources and workloads, in the other: one namespace, RW112)."""
    path = _local_path(src, (key,))
    if path is None or not isinstance(path[0][1], YMap) or path[0][1].flow:
        return None
    first_map = path[0][1]
    own = src.own_entries(first_map)
    if not own:
        return None
    taken = set(first_map.keys())
    other = {"resources": "workloads", "workloads": "resources"}.get(key)
    root = src.parsed.root
    other_map = root.get(other) if other and isinstance(root, YMap) else None
    if isinstance(other_map, YMap):
        taken |= set(other_map.keys())
    if any(n in taken for n in names):
        return None
    # Re-indent the body by the difference between the two sections' entry columns.
    have = min(len(t) - len(t.lstrip(" ")) for t in body if t.strip() and not t.lstrip().startswith("#"))
    shift = src.indent(own[0][0]) - have
    moved = []
    for t in body:
        if not t.strip():
            moved.append("")
        elif shift >= 0:
            moved.append(" " * shift + t)
        elif len(t) - len(t.lstrip(" ")) >= -shift:
            moved.append(t[-shift:])
        else:
            return None  # a comment left of where the entries would go
    k, v = own[-1]
    insert = src.insert_after_entry(k, v, src.eol.join(moved), own[0][0])
    if insert is None:
        return None
    delete = src.delete_lines(*lines)
    a, b, c = src.off(insert.range.start), src.off(delete.range.start), src.off(delete.range.end)
    if a < b:
        return [(ctx.path, insert), (ctx.path, delete)]
    if a > c:
        return None
    # The sections touch: one edit, so no client has to order an insertion and a deletion
    # at one offset.
    new_text = src.text[b:a] + insert.new_text
    if not src.text[b:c].endswith(("\n", "\r")) and new_text.endswith(src.eol):
        new_text = new_text[: -len(src.eol)]  # the file had no final line break: nor has it now
    return [(ctx.path, src.edit(b, c, new_text))]


def _flow_item_end(text: str, i: int) -> int | None:
    """Offset of the ``,`` or closing bracket that ends the flow item starting at ``i``."""
    depth = 0
    for j, ch in _structure(text, i):
        if ch in "{[":
            depth += 1
        elif depth == 0:
            return j  # `,` `}` or `]` of the enclosing collection
        elif ch in "}]":
            depth -= 1
    return None


def _delete_flow_item(src: _Src, start: int) -> TextEdit | None:
    text = src.text
    stop = _flow_item_end(text, start)
    if stop is None:
        return None
    if text[stop] == ",":
        j = stop + 1
        while j < len(text) and text[j] in " \t\r\n":
            j += 1
        return src.edit(start, j, "")
    end = stop
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    k = start - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0 or text[k] != ",":
        return None
    return src.edit(k, end, "")
