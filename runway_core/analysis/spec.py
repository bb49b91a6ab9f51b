"""The planner's input (:class:`runway_core.planner.RunwaySpec`) from the validated models:
environments with their caps, declared entries, implicit ``shared-<kind>`` pools and every
consumer. An entry whose model is the previous analysis' very object keeps its spec, so the
planner recognises it by identity (issue 6).
"""

from __future__ import annotations

import os
from decimal import Decimal

from ..facts import Analysis, Symbol
from ..kinds import RESOURCE_KINDS
from ..model import DEFAULT_CAPS, Environment
from ..names import UPPER_SNAKE
from ..planner import ConsumerSpec, EntrySpec, EnvSpec, RunwaySpec, default_environments, engine_defaults, scale_map, size_map
from ..positions import Position, Range
from ..text import secret_shape
from ..yamlsrc import YMap, YNode, YScalar, YSeq, exact_number


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


def _exact_cap(root: YMap, env: str, validated: Decimal) -> Decimal:
    """The cap as its scalar's text writes it (:func:`~runway_core.yamlsrc.exact_number`), the
    model having validated it (range, type): ``126.879999999999999`` is below a $126.88 total,
    while the double the YAML float holds is 126.88 (ninth adversary C1; docs/format.md: over
    its cap by any amount is over it). ``validated`` when the text says no more."""
    exact = exact_number(_cap_node(root, env))
    if exact is None:
        return validated
    return exact.copy_abs() if exact.is_zero() else exact


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
            if m is None and _cap_written(root, name):
                # `limits.monthly` is written but invalid (RW100: NaN, negative, a string, over
                # the maximum): no cap and no verdict against it, never the default in its place.
                envs.append(EnvSpec(name, None, "invalid", {}, m.disposable if m is not None else None))
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
    for name, r in an.resource_models.items():
        if r.kind not in RESOURCE_KINDS:
            continue
        old = old_entries.get(name)
        if old is not None and not old.implicit and previous.resource_models.get(name) is r:  # type: ignore[union-attr]
            entries[name] = old
            continue
        sizes, default = size_map(r.size)
        entries[name] = EntrySpec(name, r.kind, {k: v for k, v in sizes.items() if k in env_names}, default, engine=engine_defaults(r.kind, r.engine))
    # Implicit shared-<kind> resources (docs/format.md, "Implicit resources").
    shared_kinds: dict[str, list[tuple[str, Range]]] = {}
    for m_path, m in an.member_models.items():
        seq = an.files[m_path].parsed.root.get("requires")  # type: ignore[union-attr]
        for i, kind in enumerate(m.requires):
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
    an.spec = RunwaySpec(product, region, environments, entries, tuple(consumers))
