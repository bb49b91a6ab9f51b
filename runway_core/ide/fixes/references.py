"""Fixes of a ``uses`` item that names nothing (RW150/RW152): the closest names, and a new
resource of that name with its kind guessed from the name."""

from __future__ import annotations

import difflib
import re

from ...diagnostics import Diagnostic
from ...kinds import DEFAULT_GUESS, HINT_ORDER
from ...names import NAME_LABEL, reserved_name
from ...yamlsrc import YMap, YScalar, YSeq
from .._edit import TextEdit
from ._context import CLOSE_NAMES, Fix, _Ctx, _new_section, _scalar_at
from ._source import _local_path, _Src

#: Name hints for the kind of a new resource (word of the name -> kind), checked in order:
#: each kind's synonyms, the default guess last (:data:`runway_core.kinds.HINT_ORDER`).
KIND_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = tuple((k.name, k.synonyms) for k in HINT_ORDER)


def kind_hint(name: str) -> str | None:
    """The kind the name ``name`` hints at: a word of it (split at ``-``/``_``) from
    :data:`KIND_HINTS`, else a hint inside it (``maindb``); None when it hints at none."""
    words = re.split(r"[-_]+", name.lower())
    for kind, hints in KIND_HINTS:
        if any(w in hints for w in words):
            return kind
    for kind, hints in KIND_HINTS:
        # Inside a word only hints that rarely occur by chance ("q", "job", "work": "network").
        if any(h in name.lower() for h in hints if h not in ("q", "job", "work")):
            return kind
    return None


def guess_kind(name: str) -> str:
    """The kind a new resource called ``name`` most likely has: :func:`kind_hint`, else
    ``postgres``."""
    return kind_hint(name) or DEFAULT_GUESS


def _uses_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    data = diag.data or {}
    name = data.get("name")
    src = ctx.src()
    hit = _scalar_at(src, diag.range)
    if not name or hit is None:
        return []
    parts, node, _is_key = hit
    seq_path = parts[:-1]
    seq_node = src.parsed.root
    for p in seq_path:
        seq_node = seq_node.get(p) if isinstance(seq_node, YMap) and isinstance(p, str) else None
    present = {i.value for i in seq_node.items if isinstance(i, YScalar)} if isinstance(seq_node, YSeq) else set()
    candidates = [c for c in data.get("candidates") or () if c not in present]
    close = difflib.get_close_matches(name, candidates, n=CLOSE_NAMES, cutoff=0.6)
    sug = data.get("suggestion")
    if sug in close:
        close.remove(sug)
        close.insert(0, sug)
    out = []
    for c in close:
        f = ctx.fix(f"Change `{name}` to `{c}`", diag, [(ctx.path, src.replace_scalar(node, c))], preferred=c == sug)
        if f:
            out.append(f)
    # No resource of a name that is none (RW110) or that RW111 reserves (`alb`, `shared-queue`…):
    # the fix would trade this error for that one (ninth adversary L10).
    if NAME_LABEL.fullmatch(name) and reserved_name(name) is None:
        kind = guess_kind(name)
        # Without a hint in the name, postgres is a guess: the title says so.
        note = "" if kind_hint(name) else " — change as needed"
        f = ctx.fix(f"Create resource `{name}` (kind: {kind}{note})", diag, [(ctx.an.root_file, _create_resource(ctx.root, name, kind))])
        if f:
            out.append(f)
    return out


def _create_resource(src: _Src, name: str, kind: str) -> TextEdit | None:
    """A ``name: {kind: KIND}`` resource at the end of ``resources`` (created if absent)."""
    root = src.parsed.root
    if not isinstance(root, YMap):
        return None
    path = _local_path(src, ("resources",))
    if "resources" not in root:
        return _new_section(src, "resources", [f"  {name}:", f"    kind: {kind}"], ("workloads",))
    if path is None:
        return None
    key, res = path[0]
    if isinstance(res, YScalar) and res.value is None:
        if res.range.start != res.range.end:
            return src.set_value(key, res, f"{{{name}: {{kind: {kind}}}}}")
        ind = src.indent(key) + 2
        return src.insert_lines_after(key.range.end.line, src.eol.join([" " * ind + f"{name}:", " " * (ind + 2) + f"kind: {kind}"]))
    if not isinstance(res, YMap):
        return None
    own = src.own_entries(res)
    if res.flow or not own:
        return src.insert_entry(res, name, f"{{kind: {kind}}}")
    first_k, first_v = own[0]
    ind = src.indent(first_k)
    step = src.indent(first_v.entries[0][0]) - ind if isinstance(first_v, YMap) and not first_v.flow and first_v.entries else 2
    block = [" " * ind + f"{name}:", " " * (ind + max(step, 1)) + f"kind: {kind}"]
    if len(own) > 1:
        second = own[1][0].range.start.line
        if second > 0 and not src.lines.line_text(second - 1).strip():
            block.insert(0, "")  # entries are kept apart by blank lines: so is the new one
    last_k, last_v = own[-1]
    return src.insert_after_entry(last_k, last_v, src.eol.join(block), first_k)
