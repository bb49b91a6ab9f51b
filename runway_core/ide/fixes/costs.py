"""Fixes that change what an entry costs: RW130 (a size the catalogue has, each titled with
its monthly cost) and RW170 (resize or scale down the costliest items of an over-cap
environment, and one preferred fix that fits it under its cap). Choices are priced by
:mod:`runway_core.whatif`; the edits keep every other environment as it was (the shapes of
``size:`` and ``scale:`` the package docstring lists).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...diagnostics import Diagnostic
from ...money import usd
from ...whatif import Choices, Downsize, fit_under_cap, resized_plan
from ...yamlsrc import YMap, YScalar
from .._edit import TextEdit
from .._render import item_usd
from ._context import Fix, _Ctx, _scalar_at
from ._source import _literal, _local_path, _Src, _within

if TYPE_CHECKING:
    from ...facts import Analysis

#: How many of an over-cap environment's costliest resizable items get resize fixes.
TOP_RESIZE = 3


def _size_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    data = diag.data or {}
    src = ctx.src()
    hit = _scalar_at(src, diag.range)
    if hit is None:
        return []
    parts, node, _is_key = hit
    env = data.get("environment")
    if parts[:1] == ("environments",) and len(parts) == 4:
        entry = f"shared-{parts[3]}"
    elif parts[:1] in (("resources",), ("workloads",)) and len(parts) >= 3:
        entry = str(parts[1])
    else:
        return []
    out = []
    for size in data.get("valid") or ():
        title = f"Change size to {size}{_cost_note(ctx.an, entry, env, size)}"
        f = ctx.fix(title, diag, [(ctx.path, src.replace_scalar(node, size))], preferred=size == data.get("suggestion"))
        if f:
            out.append(f)
    return out


def _cost_note(an: "Analysis", entry: str, env: str | None, size: str) -> str:
    """`` ($139.47/mo in staging)`` (or per environment for one size everywhere); empty when
    the entry has no estimate."""
    spec = an.spec
    if spec is None or entry not in spec.entries:
        return ""
    envs = [env] if env is not None else [e.name for e in spec.environments]
    costs = []
    for e in envs:
        item = resized_plan(spec, an.catalog, e, {entry: size}, previous=an.plans.get(e)).item(entry)
        if item is None or item.size is None:
            return ""
        costs.append((e, item_usd(item)))
    if not costs:
        return ""
    if env is not None:
        return f" ({costs[0][1]}/mo in {env})"
    if len({c for _e, c in costs}) == 1:
        return f" ({costs[0][1]}/mo in every environment)"
    return " (" + " · ".join(f"{e} {c}" for e, c in costs) + " per month)"


def resize_edits(an: "Analysis", name: str, env: str, size: str, _src: "_Src | None" = None) -> list[TextEdit] | None:
    """The edits of the root runway that make item ``name`` run ``size`` in ``env`` (other
    environments unchanged), in the shapes the module docstring lists; None when the item
    cannot be edited in place (not declared, sized through an anchor, alias or merge key)."""
    src = _src or _Ctx(an, an.root_file).root
    sym = an.symbols.get(name)
    if sym is None:
        return None
    if sym.type == "implicit":
        path = _local_path(src, ("environments", env, "shared", sym.kind or ""))
        if path is None or not isinstance(path[-1][1], YScalar):
            return None
        return [src.replace_scalar(path[-1][1], size)]
    return _env_value_edits(an, src, "resources" if sym.type == "resource" else "workloads", name, env, "size", size)


def scale_edits(an: "Analysis", name: str, env: str, count: int, _src: "_Src | None" = None) -> list[TextEdit] | None:
    """The edits of the root runway that make workload ``name`` run ``count`` tasks in
    ``env`` (other environments unchanged), in the shapes of ``size`` (module docstring;
    ``scale: 3`` becomes ``scale: {dev: 2, staging: 3, production: 3}``); None when it
    cannot be edited in place (not a declared workload, an anchor, alias or merge key)."""
    sym = an.symbols.get(name)
    if sym is None or sym.type != "workload":
        return None
    return _env_value_edits(an, _src or _Ctx(an, an.root_file).root, "workloads", name, env, "scale", str(count))


def _env_value_edits(an: "Analysis", src: "_Src", sect: str, name: str, env: str, key_name: str, new: str) -> list[TextEdit] | None:
    path = _local_path(src, (sect, name))
    if path is None or not isinstance(path[-1][1], YMap):
        return None
    entry = path[-1][1]
    envs = list(an.environment_names)
    key, node = entry.key_node(key_name), entry.get(key_name)
    if key is None or node is None:
        e = src.insert_entry(entry, key_name, f"{{{env}: {new}}}")
        return None if e is None else [e]
    if not (src.owns(entry, key) and _within(node, entry)) or node.anchor is not None:
        return None
    if isinstance(node, YScalar):
        if node.value is None:
            e = src.set_value(key, node, f"{{{env}: {new}}}")
            return None if e is None else [e]
        if key_name == "size" and isinstance(node.value, str):
            old = _literal(node.value)
        elif key_name == "scale" and isinstance(node.value, int) and not isinstance(node.value, bool):
            old = str(node.value)
        else:
            return None
        flow = ", ".join(f"{e}: {new if e == env else old}" for e in envs)
        start, end = src.off(node.range.start), src.off(src.end_of(node))
        return [src.edit(start, end, "{" + flow + "}")]
    if isinstance(node, YMap):
        value = node.get(env)
        if value is not None:
            if not isinstance(value, YScalar) or not src.owns(node, node.key_node(env)) or value.anchor is not None:
                return None
            if key_name == "scale":
                # A task count is a plain integer: written as is, never quoted.
                if value.style or not isinstance(value.value, int) or isinstance(value.value, bool):
                    return None
                return [src.edit(src.off(value.range.start), src.off(value.range.end), new)]
            return [src.replace_scalar(value, new)]
        rank = {e: i for i, e in enumerate(envs)}
        mine = rank.get(env, len(envs))
        before = next((k for k, _v in node.entries if rank.get(k.text, -1) > mine), None)
        e = src.insert_entry(node, env, new, before)
        return None if e is None else [e]
    return None


def _tasks(count: int) -> str:
    return f"{count} task{'s' if count != 1 else ''}"


def _cap_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    """Resize and scale-down fixes of an over-cap environment, and one that fits (see the
    module docstring). Each choice is priced alone (:class:`runway_core.whatif.Choices`); the environment is
    re-planned once, to confirm the fit."""
    an = ctx.an
    env = (diag.data or {}).get("environment")
    plan = an.plans.get(env) if env else None
    if an.spec is None or plan is None or plan.cap is None:
        return []
    root = an.root_file
    src = ctx.root
    ch = Choices(an.spec, an.catalog, plan)
    # Items that cost something, costliest first, with what can be edited in place.
    editable: dict[str, tuple[bool, bool]] = {}
    for item in plan.top_contributors(len(plan.items)):
        entry = an.spec.entries.get(item.name)
        if item.monthly_usd <= 0 or entry is None or not ch.of(item.name):
            continue  # free, not an entry, or nothing cheaper: no need to look at its text
        can_size = resize_edits(an, item.name, env, item.size or "small", src) is not None
        can_scale = entry.kind == "workload" and entry.scale_in(env) > 1 and scale_edits(an, item.name, env, 1, src) is not None
        if can_size or can_scale:
            editable[item.name] = (can_size, can_scale)
    # Choices of each item limited to what can be edited.
    for name, (can_size, can_scale) in editable.items():
        if not (can_size and can_scale):
            ch.restrict(name, sizes=can_size, scales=can_scale)
    names = list(editable)

    def edits_of(d: Downsize) -> list[tuple[str, TextEdit | None]]:
        out: list[tuple[str, TextEdit | None]] = []
        if d.size != ch.items[d.name].size:
            out.extend((root, e) for e in resize_edits(an, d.name, env, d.size, src) or [None])
        if d.scale is not None:
            out.extend((root, e) for e in scale_edits(an, d.name, env, d.scale, src) or [None])
        return out

    out: list[Fix] = []
    fit = fit_under_cap(an.spec, an.catalog, plan, names, _choices=ch)
    if fit is not None:
        choice, new = fit
        edits: list[tuple[str, TextEdit | None]] = []
        resized, scaled = [], []
        for name, d in choice.items():
            edits.extend(edits_of(d))
            if d.size != ch.items[name].size:
                resized.append(f"{name} to {d.size}")
            if d.scale is not None:
                scaled.append(f"{name} to {_tasks(d.scale)}")
        changes = " and ".join(f"{verb} {', '.join(parts)}" for verb, parts in (("resize", resized), ("scale", scaled)) if parts)
        f = ctx.fix(f"Fit {env} under its cap: {changes} — total {usd(new.total)}", diag, edits, preferred=True)
        if f:
            out.append(f)
    need = plan.total - plan.cap
    shown = 0
    for name in names:
        if shown == TOP_RESIZE:
            break
        options = ch.of(name)
        singles = [d for d in options if d.scale is None]
        current = ch.items[name].size
        scaled = [d for d in options if d.scale is not None and d.size == current]  # fewer tasks, same size
        if scaled:
            # The smallest cut, and the fewest tasks needed to fit alone (else the most it saves).
            picks = {scaled[0].scale: scaled[0]}
            fitting = [d for d in scaled if d.saves >= need]
            last = fitting[0] if fitting else min(scaled, key=lambda d: d.scale or 0)
            picks.setdefault(last.scale, last)
            singles += sorted(picks.values(), key=lambda d: -(d.scale or 0))
        if not singles:
            continue
        shown += 1
        for d in singles:
            what = f"Scale {name} in {env} to {_tasks(d.scale)}" if d.scale is not None else f"Resize {name} in {env} to {d.size}"
            title = f"{what} — saves {usd(d.saves)}/month, {env} total becomes {usd(plan.total - d.saves)}"
            f = ctx.fix(title, diag, edits_of(d))
            if f:
                out.append(f)
    return out
