"""The planner's input (:class:`runway_core.planner.RunwaySpec`) from the validated models:
environments with their caps, declared entries, implicit ``shared-<kind>`` pools and every
consumer. An entry whose model is the previous analysis' very object keeps its spec, so the
planner recognises it by identity (issue 6).

What is written but cannot be priced (an entry validation dropped, an unknown kind, a
definition a duplicate key hides) is named in :attr:`RunwaySpec.unpriced`, never left out as
$0; an environment whose entry fails validation is read key by key, so a bad sibling never
takes its cap (ninth adversary L7, L8; docs/format.md "Plan" and "Environments").
"""

from __future__ import annotations

import os
from decimal import Decimal

from pydantic import ValidationError

from ..facts import Analysis, Symbol
from ..kinds import RESOURCE_KINDS
from ..model import DEFAULT_CAPS, Environment, Limits
from ..names import UPPER_SNAKE
from ..planner import ConsumerSpec, EntrySpec, EnvSpec, RunwaySpec, default_environments, engine_defaults, scale_map, size_map
from ..positions import Position, Range
from ..text import secret_shape
from ..yamlsrc import YMap, YNode, YScalar, YSeq, exact_number, to_python


def _secret_name_ok(name: str) -> bool:
    return bool(UPPER_SNAKE.fullmatch(name)) and secret_shape("", name) is None


def _cap_node(root: YMap, env: str) -> YNode | None:
    """The node of ``environments.<env>.limits.monthly`` in the root's YAML, None when not written."""
    envs = root.get("environments")
    node = envs.get(env) if isinstance(envs, YMap) else None
    limits = node.get("limits") if isinstance(node, YMap) else None
    return limits.get("monthly") if isinstance(limits, YMap) else None


def _cap_written(root: YMap, env: str) -> bool:
    """Whether ``environments.<env>.limits.monthly`` is written in the root's YAML."""
    return _cap_node(root, env) is not None


#: The smallest positive cap the analysis keeps as written (USD per month); see _exact_cap.
TINY_CAP_USD = Decimal("1E-8")


def _exact_cap(root: YMap, env: str, validated: Decimal) -> Decimal:
    """The cap as its scalar's text writes it (:func:`~runway_core.yamlsrc.exact_number`), the
    model having validated it (range, type): ``126.879999999999999`` is below a $126.88 total,
    while the double the YAML float holds is 126.88 (ninth adversary C1; docs/format.md: over
    its cap by any amount is over it). ``validated`` when the text says no more."""
    exact = exact_number(_cap_node(root, env))
    if exact is None:
        return validated
    if exact.is_zero():
        return exact.copy_abs()
    # A positive cap below a millionth of a cent is, against totals made of cents, the same as
    # one of 1E-8: `1e-9999` kept its exponent, and its percentage (10,000 digits) or
    # `total * 100 / 1e-99999999` (an Overflow) was exit 70 (tenth adversary C1).
    return max(exact, TINY_CAP_USD)


def _monthly_error(env: str) -> tuple[str, str]:
    return "RW100", f"`environments.{env}.limits.monthly` must be a number from 0 to 1,000,000,000"


def _salvaged(root: YMap, name: str) -> EnvSpec:
    """Environment ``name`` whose model failed validation (the diagnostics say where), read
    key by key from its YAML, so that a bad sibling (``disposable: maybe``, a typo in
    ``shared``) never takes a valid cap with it (ninth adversary L8): ``limits`` is read by
    itself, as the model reads it; ``shared`` keeps its entries that name a kind and a size;
    ``disposable`` is read when it is a boolean.

    The cap is ``invalid`` (no cap, no verdict against it: fail closed) when ``limits`` itself
    fails: ``monthly`` not a valid cap (RW100), ``limits`` not a mapping (RW100), or a key
    ``limits`` does not know (RW102: ``currency: EUR`` leaves in doubt what the number means,
    docs/format.md "Environments"); ``cap_error`` blames that key."""
    envs = root.get("environments")
    node = envs.get(name) if isinstance(envs, YMap) else None
    raw = to_python(node) if node is not None else None
    raw = raw if isinstance(raw, dict) else {}
    disposable = raw.get("disposable") if isinstance(raw.get("disposable"), bool) else None
    shared_raw = raw.get("shared")
    shared = ({k: v for k, v in shared_raw.items() if isinstance(k, str) and k in RESOURCE_KINDS and isinstance(v, str)}
              if isinstance(shared_raw, dict) else {})
    limits_raw = raw.get("limits")
    if limits_raw is None or limits_raw == {}:
        cap = DEFAULT_CAPS.get(name)  # `limits: {}`, `limits: null` or none: the default cap
        return EnvSpec(name, cap, "default" if cap is not None else "none", shared, disposable)
    try:
        limits = Limits.model_validate(limits_raw)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(x) for x in err["loc"])
        if not loc:
            why = ("RW100", f"`environments.{name}.limits` must be a mapping (`limits: {{monthly: N}}`)")
        elif err["type"] == "extra_forbidden":
            why = ("RW102", f"`environments.{name}.limits.{loc}` is not a key of `limits`, so what `monthly` means is in doubt "
                            "(a currency? a period?) and the cap is not read")
        else:
            why = _monthly_error(name)
        return EnvSpec(name, None, "invalid", shared, disposable, why)
    if "monthly" in limits.model_fields_set:
        monthly = _exact_cap(root, name, limits.monthly) if limits.monthly is not None else None  # C1: the text's number
        return EnvSpec(name, monthly, "set" if monthly is not None else "none", shared, disposable)
    cap = DEFAULT_CAPS.get(name)
    return EnvSpec(name, cap, "default" if cap is not None else "none", shared, disposable)


#: The sections whose entries are priced (resources and workloads), and with the
#: environments (a cap, shared pools) the sections a duplicate key may hide a price or a cap in.
_PRICED_SECTIONS = ("resources", "workloads")
_DUPLICATE_SECTIONS = (*_PRICED_SECTIONS, "environments")


def _dropped(an: Analysis, root: YMap) -> list[tuple[str, str]]:
    """``(name, why)`` of every resource or workload written in a priced section (and read:
    RW157) that has no model: its validation failed (RW100/RW101/RW102) or it is empty
    (RW101). The planner never sees it, so it is counted as not estimated."""
    out = []
    for sect, models, what in (("resources", an.resource_models, "resource"), ("workloads", an.workload_models, "workload")):
        node = root.get(sect)
        if not isinstance(node, YMap):
            continue
        for k, _v in an.read_entries(sect, node):
            if k.text not in models:
                out.append((k.text, f"the {what} has errors (its diagnostics say which): it is not planned"))
    return out


def _hidden_by_duplicates(an: Analysis, root: YMap) -> list[tuple[str, str]]:
    """``(label, why)`` of every definition in a priced section, or in ``environments``, that a
    duplicate key hides (RW002: YAML keeps the first value, docs/format.md "Files"): a second
    ``resources:``, ``workloads:`` or ``environments:`` section, a second entry of one name, a
    key written twice inside an entry (a second ``monthly:``, a second ``size:``). What the
    hidden text would cost, or which cap was meant, is not known, so it is not estimated.

    The hidden text is not in the tree (nor in its parent's range): where a duplicate is is
    read from its key's position, as the nearest key at or above it of the top level and then
    of the section, and its column (deeper than the entry's key: inside that entry)."""
    if not root.entries:
        return []
    top_col = root.entries[0][0].range.start.character
    dups = [d for d in an.files[an.root_file].parsed.diagnostics if d.code == "RW002"]
    # A duplicate top-level key starts a section of its own, hidden whole.
    top_dups = {d.range.start for d in dups
                if d.range.start.character == top_col and not any(v.range.start <= d.range.start <= v.range.end for _k, v in root.entries)}
    tops = sorted([(k.range.start, k.text, v) for k, v in root.entries] + [(pos, None, None) for pos in top_dups], key=lambda t: t[0])
    out = []
    for d in dups:
        key = str((d.data or {}).get("key", ""))
        pos, line = d.range.start, d.range.start.line + 1
        if pos in top_dups:
            if key in _DUPLICATE_SECTIONS:
                out.append((f"the second `{key}:` section (line {line})", f"a second `{key}:` section is ignored (RW002)"))
            continue
        above = [t for t in tops if t[0] < pos]
        if not above:
            continue
        _start, sect, node = above[-1]
        if sect not in _DUPLICATE_SECTIONS or not isinstance(node, YMap):
            continue  # another section, or inside a hidden section (named whole above)
        entries = [k for k, _v in node.entries if k.range.start < pos]
        if not entries or (pos.line != entries[-1].range.start.line and pos.character <= entries[-1].range.start.character):
            out.append((f"{key} (second definition, line {line})", f"a second definition of `{key}` is ignored (RW002)"))
        else:
            entry = entries[-1].text
            out.append((f"{entry} (duplicate key `{key}`, line {line})", f"a second `{key}` of `{entry}` is ignored (RW002)"))
    return out


def _member_requires(an: Analysis, unpriced: list[tuple[str, str]]) -> list[tuple[str, list[object]]]:
    """``(member path, the kinds its `requires` names)`` of every member read: from its model,
    or, when its model failed (an error elsewhere in the member), from its `requires` list
    itself, so that a bad sibling never drops a shared pool from the plan (ninth adversary L7).
    What cannot be priced is added to ``unpriced``: a kind that is no resource kind (RW120/
    RW121), a `requires` that is not a list."""
    out: list[tuple[str, list[object]]] = []
    for m_path, src in an.files.items():
        if src.role != "member" or not isinstance(src.parsed.root, YMap):
            continue
        member = src.member_name or os.path.basename(os.path.dirname(m_path))
        m = an.member_models.get(m_path)
        seq = src.parsed.root.get("requires")
        if m is not None:
            required: list[object] = list(m.requires)
        elif isinstance(seq, YSeq):
            required = [it.value if isinstance(it, YScalar) else None for it in seq.items]
        else:
            required = []
            if seq is not None and not (isinstance(seq, YScalar) and seq.value is None):
                unpriced.append((f"the `requires` of member `{member}`", "it is not a list of kinds (RW100): its shared pools are not planned"))
        for kind in required:
            if kind not in RESOURCE_KINDS:
                what = f"`{kind}`" if isinstance(kind, str) else "an item that is no kind name"
                unpriced.append((f"{what} required by member `{member}`", "not a resource kind the planner prices (RW120/RW121/RW100)"))
        out.append((m_path, required))
    return out


def _build_spec(an: Analysis, previous: Analysis | None = None) -> None:
    parsed = an.root.parsed
    root = parsed.root
    assert isinstance(root, YMap)
    data_product = root.get("product")
    product = an.root_model.product if an.root_model else (data_product.text if isinstance(data_product, YScalar) else "product")
    # Without a valid root model, still price in the region written (never another region's price).
    data_region = root.get("region")
    region = an.root_model.region if an.root_model else (data_region.value if isinstance(data_region, YScalar) and isinstance(data_region.value, str) else "us-east-1")
    env_models: dict[str, Environment] = an.env_models
    if an.environments_declared:
        envs = []
        for name in an.environment_names:
            m = env_models.get(name)
            if m is None and name in an.env_keys:
                # Its entry has an error somewhere: each key read by itself. An invalid
                # `limits` (RW100: NaN, negative, a string, over the maximum; RW102 inside it)
                # is no cap and no verdict against it, never the default in its place.
                envs.append(_salvaged(root, name))
                continue
            m = m or Environment()
            if m.limits is not None and "monthly" in m.limits.model_fields_set:
                cap, src = m.limits.monthly, ("set" if m.limits.monthly is not None else "none")
                if cap is not None:
                    cap = _exact_cap(root, name, cap)
            else:
                cap = DEFAULT_CAPS.get(name)
                src = "default" if cap is not None else "none"
            shared = {k: v for k, v in m.shared.items() if k in RESOURCE_KINDS}
            envs.append(EnvSpec(name, cap, src, shared, m.disposable))
        environments = tuple(envs)
    else:
        environments = default_environments()
    env_names = {e.name for e in environments}
    # An entry whose model is the previous analysis' very object (its text did not change:
    # _ENTRY_MODELS) has the same EntrySpec when the environments are the same: reuse it, and
    # the planner then recognises it by identity (issue 6).
    old_entries: dict[str, EntrySpec] = {}
    if previous is not None and previous.spec is not None and {e.name for e in previous.spec.environments} == env_names:
        old_entries = dict(previous.spec.entries)

    entries: dict[str, EntrySpec] = {}
    # What is written but cannot be priced is named in every plan as not estimated, never
    # left out as if it cost $0 (fail closed: ninth adversary L7).
    unpriced = _dropped(an, root)
    for name, r in an.resource_models.items():
        if r.kind not in RESOURCE_KINDS:
            unpriced.append((name, f"kind `{r.kind}` is not a resource kind the planner prices (RW120/RW121)"))
            continue
        old = old_entries.get(name)
        if old is not None and not old.implicit and previous.resource_models.get(name) is r:  # type: ignore[union-attr]
            entries[name] = old
            continue
        sizes, default = size_map(r.size)
        entries[name] = EntrySpec(name, r.kind, {k: v for k, v in sizes.items() if k in env_names}, default, engine=engine_defaults(r.kind, r.engine))
    # Implicit shared-<kind> resources (docs/format.md, "Implicit resources").
    shared_kinds: dict[str, list[tuple[str, Range]]] = {}
    for m_path, kinds_required in _member_requires(an, unpriced):
        seq = an.files[m_path].parsed.root.get("requires")  # type: ignore[union-attr]
        for i, kind in enumerate(kinds_required):
            if kind in RESOURCE_KINDS:
                rng = seq.items[i].range if isinstance(seq, YSeq) and i < len(seq.items) else Range(Position(0, 0), Position(0, 0))
                shared_kinds.setdefault(kind, []).append((m_path, rng))
    env_node = root.get("environments")
    for e in environments:
        for kind in e.shared:
            rng = None
            if isinstance(env_node, YMap):
                en = env_node.get(e.name)
                sh = en.get("shared") if isinstance(en, YMap) else None
                kn = sh.key_node(kind) if isinstance(sh, YMap) else None
                rng = kn.range if kn else None
            shared_kinds.setdefault(kind, []).append((parsed.path, rng or Range(Position(0, 0), Position(0, 0))))
    for kind in RESOURCE_KINDS:
        if kind not in shared_kinds:
            continue
        name = f"shared-{kind}"
        if name in entries:
            continue  # a declared resource took the name: RW111 reports it
        sizes = {e.name: e.shared[kind] for e in environments if kind in e.shared}
        entries[name] = EntrySpec(name, kind, sizes, "small", engine=engine_defaults(kind, {}), implicit=True, origin="shared")
        an.symbols[name] = Symbol(name, "implicit", kind, None, None, tuple(shared_kinds[kind]))
    consumers: list[ConsumerSpec] = []
    for name, w in an.workload_models.items():
        if name in entries:
            unpriced.append((name, "the workload is named like a resource, which keeps the name (RW112/RW111): it is not planned"))
            continue
        old = old_entries.get(name)
        if old is not None and old.kind == "workload" and previous.workload_models.get(name) is w:  # type: ignore[union-attr]
            entries[name] = old
            consumers.append(ConsumerSpec(name, "workload", tuple(w.uses)))
            continue
        sizes, default = size_map(w.size)
        scales, default_scale = scale_map(w.scale)
        entries[name] = EntrySpec(
            name,
            "workload",
            {k: v for k, v in sizes.items() if k in env_names},
            default,
            {k: v for k, v in scales.items() if k in env_names},
            default_scale,
            image=w.image,
            port=w.port,
            health=w.health.model_dump(exclude_none=True),
            env={k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in w.env.items()},
            # Only names: an item that is no name, or looks like a value (RW144, an error), is
            # kept out of the plan, which CI prints and stores.
            secrets=tuple(x for x in w.secrets if _secret_name_ok(x)),
            uses=tuple(w.uses),
            expose=w.expose,
            platform=w.platform,
        )
        consumers.append(ConsumerSpec(name, "workload", tuple(w.uses)))
    for m_path, m in an.member_models.items():
        src = an.files[m_path]
        uses = tuple(m.uses) + tuple(f"shared-{k}" for k in m.requires if k in RESOURCE_KINDS)
        consumers.append(ConsumerSpec(src.member_name or os.path.basename(os.path.dirname(m_path)), "member", uses))
    unpriced.extend(_hidden_by_duplicates(an, root))
    an.spec = RunwaySpec(product, region, environments, entries, tuple(consumers), unpriced=tuple(dict.fromkeys(unpriced)))
