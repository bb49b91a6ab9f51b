"""Kinds and sizes: RW120/RW121 (unknown or reserved kind), RW122 (a kind the tooling cannot
price), RW130 (a size the catalogue lacks) and RW131 (a size or scale for an undeclared
environment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .. import kinds as registry
from ..catalog import SIZES
from ..diagnostics import Diagnostic
from ..kinds import RESOURCE_KINDS
from ..model import RESERVED_KINDS
from ..planner.pricing import estimable
from ..text import suggest
from ..yamlsrc import YMap, YNode, YScalar, YSeq
from ._common import _d, _entries, _item_place, _scalar_str, _section, _shared_entries

if TYPE_CHECKING:
    from ..facts import Analysis


def _kind_diag(an: "Analysis", file: str, node: YScalar, kind: str) -> Diagnostic | None:
    if kind in RESOURCE_KINDS:
        return None
    if kind in RESERVED_KINDS:
        return _d(an, file, node.range, "RW121", f"kind `{kind}` is reserved: {RESERVED_KINDS[kind]}", {"kind": kind})
    sug = suggest(kind, RESOURCE_KINDS)
    hint = f"; did you mean `{sug}`?" if sug else f"; kinds are {', '.join(RESOURCE_KINDS)}"
    return _d(an, file, node.range, "RW120", f"unknown kind `{kind}`{hint}", {"kind": kind, "suggestion": sug, "valid": list(RESOURCE_KINDS)})


def kinds(an: "Analysis") -> Iterator[Diagnostic]:
    """RW120/RW121: resource kinds, member `requires` and environment `shared` kinds."""
    res = _section(an, "resources")
    if res is not None:
        for _k, v in an.read_entries("resources", res):
            kn = v.get("kind") if isinstance(v, YMap) else None
            if isinstance(kn, YScalar) and isinstance(kn.value, str):
                d = _kind_diag(an, an.root_file, kn, kn.value)
                if d:
                    yield d
    for f in an.files.values():
        if f.role != "member" or not isinstance(f.parsed.root, YMap):
            continue
        req = f.parsed.root.get("requires")
        if isinstance(req, YSeq):
            for it in req.items:
                if isinstance(it, YScalar) and isinstance(it.value, str):
                    d = _kind_diag(an, f.path, it, it.value)
                    if d:
                        yield d
    for _ek, sk, _sv in _shared_entries(an):
        d = _kind_diag(an, an.root_file, sk, sk.text)
        if d:
            yield d


def unpriced_kinds(an: "Analysis") -> Iterator[Diagnostic]:
    """RW122 at each entry whose kind :mod:`runway_core.kinds` declares without a size table or
    quantities: the planner cannot price it, so it is never counted as $0 and a capped
    environment's plan is refused (fail closed, docs/format.md "Plan"). At the entry's key; an
    implicit ``shared-<kind>`` at the first place that asks for it."""
    if an.spec is None:
        return
    for name, entry in an.spec.entries.items():
        if estimable(entry.kind):
            continue
        place = _item_place(an, name)
        if place is None:
            continue
        file, rng = place
        capped = [env for env, plan in an.plans.items() if plan.cap is not None]
        refused = (f"; the plan{'s' if len(capped) > 1 else ''} of {', '.join(capped)} {'are' if len(capped) > 1 else 'is'} refused"
                   if capped else "")
        yield _d(an, file, rng, "RW122",
                 f"not estimated: `{name}` has no price: kind `{entry.kind}` declares no size table or quantities "
                 f"(runway_core/kinds.py){refused}",
                 {"name": name, "kind": entry.kind, "environments": capped})


def _size_values(v: YNode | None) -> Iterator[tuple[str | None, YScalar]]:
    """(env or None, size scalar) for a `size:` node."""
    if isinstance(v, YScalar) and isinstance(v.value, str):
        yield None, v
    elif isinstance(v, YMap):
        for k, s in v.entries:
            if isinstance(s, YScalar) and isinstance(s.value, str):
                yield k.text, s


def _size_diag(an: "Analysis", node: YScalar, kind: str, env: str | None) -> Diagnostic | None:
    valid = an.catalog.sizes(kind) if kind in registry.SIZED_KINDS else SIZES
    if node.value in valid:
        return None
    sug = suggest(node.value, valid)
    hint = f"; did you mean `{sug}`?" if sug else ""
    return _d(an, an.root_file, node.range, "RW130", f"unknown size `{node.value}`{hint} (sizes: {', '.join(valid)})",
              {"size": node.value, "valid": list(valid), "kind": kind, "environment": env, "suggestion": sug})


def sizes(an: "Analysis") -> Iterator[Diagnostic]:
    """RW130: every size (resources, workloads, environments' `shared`) is in the catalogue."""
    for sect, name, v in _entries(an):
        if sect == "resources":
            kind = _scalar_str(v.get("kind"))
            if kind not in RESOURCE_KINDS:
                continue
        else:
            kind = "workload"
        for env, node in _size_values(v.get("size")):
            d = _size_diag(an, node, kind, env)
            if d:
                yield d
    for ek, sk, sv in _shared_entries(an):
        if sk.text in RESOURCE_KINDS and isinstance(sv, YScalar) and isinstance(sv.value, str):
            d = _size_diag(an, sv, sk.text, ek.text)
            if d:
                yield d


def undeclared_environments(an: "Analysis") -> Iterator[Diagnostic]:
    """RW131: `size`/`scale` maps may only name declared environments."""
    envs = set(an.environment_names)
    # Declared past the limit (RW156 says they are not read): not "undeclared".
    declared = _section(an, "environments")
    unread = {k.text for k, _v in declared.entries} - envs if declared is not None and "environments" in an.entries_read else set()
    for _sect, name, v in _entries(an):
        for key in ("size", "scale"):
            m = v.get(key)
            if isinstance(m, YMap):
                for ek, _ev in m.entries:
                    if ek.text not in envs and ek.text not in unread:
                        sug = suggest(ek.text, envs)
                        hint = f"; did you mean `{sug}`?" if sug else ""
                        yield _d(an, an.root_file, ek.range, "RW131",
                                 f"`{ek.text}` is not a declared environment{hint} (environments: {', '.join(an.environment_names)})",
                                 {"environment": ek.text, "suggestion": sug, "entry": name.text, "key": key})
