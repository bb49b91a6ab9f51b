"""Fixes of a workload's reason: RW141 (add one, on each of the three grounds) and RW142
(prefix it with a ground), ADR 0493 §5."""

from __future__ import annotations

from ...diagnostics import Diagnostic
from ...model import REASON_GROUNDS
from ...yamlsrc import YMap, YScalar
from .._edit import TextEdit
from ._context import Fix, _Ctx, _scalar_at
from ._source import _literal, _local_path, _Src, _within


def _workload_map(ctx: _Ctx, name: str) -> YMap | None:
    path = _local_path(ctx.root, ("workloads", name))
    return path[-1][1] if path is not None and isinstance(path[-1][1], YMap) else None


def _reason_missing_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    name = (diag.data or {}).get("workload")
    w = _workload_map(ctx, name) if name else None
    if w is None:
        return []
    src = ctx.src()
    key, value = w.key_node("reason"), w.get("reason")
    out = []
    for g in REASON_GROUNDS:
        text = f"{g}: "
        if key is None:
            e = src.insert_entry(w, "reason", _literal(text, '"'))
        elif not (src.owns(w, key) and _within(value, w)):
            e = None  # a reason merged in from elsewhere
        elif isinstance(value, YScalar) and value.value is None:
            e = src.set_value(key, value, _literal(text, '"'))
        elif isinstance(value, YScalar):
            style = value.style if value.style in ("'", '"') else '"'
            start, end = src.off(value.range.start), src.off(src.end_of(value))
            e = src.edit(start, end, _literal(text, style))
        else:
            e = None
        f = ctx.fix(f"Add reason: {g}", diag, [(ctx.path, e)])
        if f:
            out.append(f)
    return out


def _reason_ground_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    src = ctx.src()
    hit = _scalar_at(src, diag.range)
    if hit is None or hit[2] or not isinstance(hit[1].value, str):
        return []
    node = hit[1]
    out = []
    for g in REASON_GROUNDS:
        prefix = f"{g}: "
        start = src.off(node.range.start)
        if node.style in ("'", '"'):
            e = src.edit(start + 1, start + 1, _literal(prefix, node.style)[1:-1])
        elif node.style in ("|", ">"):
            e = _block_prefix(src, node, prefix)
        else:
            # A plain scalar cannot hold ": ": quote the whole reason.
            e = src.edit(start, src.off(src.end_of(node)), _literal(prefix + node.value, '"'))
        f = ctx.fix(f"Prefix reason with {g}", diag, [(ctx.path, e)])
        if f:
            out.append(f)
    return out


def _block_prefix(src: _Src, node: YScalar, prefix: str) -> TextEdit | None:
    """Insert ``prefix`` at the first character of a block scalar's first content line."""
    end = src.end_of(node)
    for line in range(node.range.start.line + 1, end.line + 1):
        text = src.lines.line_text(line)
        if text.strip():
            at = src.lines.line_start(line) + len(text) - len(text.lstrip(" "))
            return src.edit(at, at, prefix)
    return None
