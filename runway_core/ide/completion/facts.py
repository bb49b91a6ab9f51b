"""What completion knows beyond the cursor: the file's role, the root runway's tree,
environments, entries (from the analysis' spec, else leniently from the tree, with the
planner's own reading of ``size:`` and ``scale:``) and their costs. Money is USD per month.
Planning goes through this module's ``plan_environment`` (a test counts the calls)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import TYPE_CHECKING

from ...analysis import blank_lines, tolerant_text
from ...catalog import SIZES
from ...kinds import RESOURCE_KINDS
from ...model import DEFAULT_CAPS, EXPOSE_VALUES, MAX_CAP_USD
from ...planner import EntrySpec, EnvironmentPlan, EnvSpec, ItemPlan, RunwaySpec, default_environments, engine_defaults, plan_environment, scale_map, size_map
from ...yamlsrc import ParsedYaml, YMap, YNode, YScalar, exact_number, parse_yaml, to_python

if TYPE_CHECKING:
    from ...facts import Analysis


def _repaired(parsed: ParsedYaml, line: int) -> YNode | None:
    """After a syntax error, the tree of the text with the cursor's line blanked (where a
    half-typed line usually breaks the file), else with the offending line blanked
    (:func:`runway_core.analysis.tolerant_text`, which the cost views use too), else the
    partial tree. Blanking keeps every position of the other lines."""
    again = parse_yaml(blank_lines(parsed, [line]), parsed.path)
    if not again.partial and again.root is not None:
        return again.root
    text = tolerant_text(parsed)
    return parse_yaml(text, parsed.path).root if text is not None else parsed.root


class _Facts:
    """What completion needs to know beyond the cursor: the file's role, the root runway's
    tree, environments, entries (from the analysis' spec, else leniently from the tree) and
    their costs."""

    def __init__(self, an: "Analysis", file: str, parsed: ParsedYaml, role: str | None, line: int) -> None:
        self.an = an
        self.catalog = an.catalog
        self.file = file
        self.tree = _repaired(parsed, line) if parsed.partial else parsed.root
        # The analysis may be a keystroke or two older than ``parsed`` (the language server
        # completes from the last analysis while the user types): names declared since are
        # then read from the tree.
        src = an.files.get(file)
        self.newer_text = src is not None and src.parsed is not parsed and src.parsed.text != parsed.text
        tree = self.tree if isinstance(self.tree, YMap) else None
        lone_member = tree is not None and "member" in tree and "product" not in tree
        self.member = role == "member" or (role in (None, "root") and lone_member)
        if self.member:
            root_src = an.files.get(an.root_file) if an.root_file != file else None
            root = root_src.parsed.root if root_src is not None and root_src.role == "root" else None
            self.root = root if isinstance(root, YMap) else None
        else:
            self.root = tree
        # The analysis' spec is the current text's when the root parsed; else read leniently.
        self.spec = an.spec if an.spec is not None else None
        if self.spec is not None:
            self.envs = self.spec.environments
            self.region = self.spec.region
        else:
            self.envs = self._tree_envs()
            reg = self.root.get("region") if self.root is not None else None
            self.region = reg.value if isinstance(reg, YScalar) and isinstance(reg.value, str) else "us-east-1"
        self.env_names = [e.name for e in self.envs]

    def _tree_envs(self) -> tuple[EnvSpec, ...]:
        node = self.root.get("environments") if self.root is not None else None
        if not isinstance(node, YMap) or not node.entries:
            return default_environments()
        out = []
        for k, v in node.entries:
            cap, src = DEFAULT_CAPS.get(k.text), ("default" if k.text in DEFAULT_CAPS else "none")
            shared: dict[str, str] = {}
            if isinstance(v, YMap):
                lim = v.get("limits")
                if isinstance(lim, YMap) and "monthly" in lim:
                    m = lim.get("monthly")
                    val = m.value if isinstance(m, YScalar) else None
                    if val is None:
                        cap, src = None, "none"
                    elif isinstance(val, (int, float)) and not isinstance(val, bool) and val >= 0 and val == val and val != float("inf"):
                        # The text's exact figure, as the analysis' cap (ninth adversary C1).
                        exact = exact_number(m)
                        cap, src = (exact if exact is not None and not exact.is_zero() else Decimal(str(abs(val))), "set") \
                            if val <= MAX_CAP_USD else (None, "invalid")
                    else:
                        cap, src = None, "invalid"  # RW100: never the default in its place
                sh = v.get("shared")
                if isinstance(sh, YMap):
                    shared = {kk.text: vv.value for kk, vv in sh.entries if kk.text in RESOURCE_KINDS and isinstance(vv, YScalar) and isinstance(vv.value, str)}
            out.append(EnvSpec(k.text, cap, src, shared))
        return tuple(out)

    # --- entries ---------------------------------------------------------------------------

    def section(self, name: str) -> YMap | None:
        node = self.root.get(name) if self.root is not None else None
        return node if isinstance(node, YMap) else None

    def entry(self, name: str) -> EntrySpec | None:
        """The planner's entry of ``name``: the analysis' own, else one read from the tree
        (a resource or workload still being written, a shared pool just named)."""
        if self.spec is not None and name in self.spec.entries:
            return self.spec.entries[name]
        if name.startswith("shared-") and name[7:] in RESOURCE_KINDS:
            kind = name[7:]
            sizes = {e.name: e.shared[kind] for e in self.envs if kind in e.shared}
            return EntrySpec(name, kind, sizes, engine=engine_defaults(kind, {}), implicit=True, origin="shared")
        for sect in ("resources", "workloads"):
            node = self.section(sect)
            if node is None or name not in node:
                continue
            raw = to_python(node.get(name))
            data = raw if isinstance(raw, dict) else {}
            sizes, default = size_map(data.get("size"))
            if sect == "resources":
                kind = data.get("kind")
                if kind not in RESOURCE_KINDS:
                    return None
                eng = data.get("engine")
                return EntrySpec(name, kind, sizes, default, engine=engine_defaults(kind, eng if isinstance(eng, dict) else {}))
            scales, default_scale = scale_map(data.get("scale"))
            expose = data.get("expose") if data.get("expose") in EXPOSE_VALUES else "internal"
            return EntrySpec(name, "workload", sizes, default, scales, default_scale, expose=expose)
        return None

    def resource_kind(self, name: str) -> str | None:
        e = self.entry(name)
        if e is not None:
            return e.kind
        res = self.section("resources")
        node = res.get(name) if res is not None else None
        kind = node.get("kind") if isinstance(node, YMap) else None
        return kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str) else None

    def names(self) -> list[tuple[str, str, str | None]]:
        """Every resource and workload a `uses` may name: (name, type, kind), resources
        first, then implicit shared pools, then workloads, in declaration order."""
        out: list[tuple[str, str, str | None]] = []
        if self.spec is not None:
            if not (self.newer_text and not self.member):
                for typ in ("resource", "implicit", "workload"):
                    out.extend((s.name, typ, s.kind) for s in self.an.symbols.values() if s.type == typ)
                return out
            # The root's text changed since the analysis (a keystroke ago): its own resources and
            # workloads are the tree's, in its order (a name declared, renamed or removed by the
            # keystroke is as the analysis that follows will see it); other files' names and the
            # implicit pools are the analysis'.
            for typ, sect in (("resource", "resources"), ("implicit", None), ("workload", "workloads")):
                if sect is not None:
                    node = self.section(sect)
                    for k, v in node.entries if node is not None else []:
                        if k.text:
                            kind = v.get("kind") if isinstance(v, YMap) and sect == "resources" else None
                            out.append((k.text, typ, kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str)
                                        else (None if sect == "resources" else "workload")))
                out.extend((s.name, typ, s.kind) for s in self.an.symbols.values() if s.type == typ and (sect is None or s.file != self.file))
            return out
        res, wl = self.section("resources"), self.section("workloads")
        seen: set[str] = set()
        for k, v in res.entries if res is not None else []:
            kind = v.get("kind") if isinstance(v, YMap) else None
            out.append((k.text, "resource", kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str) else None))
            seen.add(k.text)
        for kind in RESOURCE_KINDS:
            if any(kind in e.shared for e in self.envs) and f"shared-{kind}" not in seen:
                out.append((f"shared-{kind}", "implicit", kind))
        for k, _v in wl.entries if wl is not None else []:
            if k.text not in seen:
                out.append((k.text, "workload", "workload"))
        return out

    # --- prices ----------------------------------------------------------------------------

    def plan(self, entry: EntrySpec, env: str) -> tuple[ItemPlan | None, EnvironmentPlan | None]:
        """Plan ``env`` with ``entry`` (added or replacing its namesake). Returns the entry's
        item and, when the whole runway is known (the analysis' spec), the environment's plan."""
        base = self.spec if self.spec is not None else RunwaySpec("product", self.region, self.envs, {}, ())
        spec = dataclasses.replace(base, entries={**base.entries, entry.name: entry})
        # The analysis' own plan of env (from this very spec) lends every item but this one.
        done = self.an.plans.get(env) if self.spec is not None else None
        plan = plan_environment(spec, self.catalog, env, (self.spec, done) if done is not None else None)  # type: ignore[arg-type]
        return plan.item(entry.name), (plan if self.spec is not None else None)

    def monthly(self, name: str) -> list[tuple[str, ItemPlan]]:
        """(environment, item) of ``name`` in every environment, from the analysis' plans or
        by planning its entry."""
        out = []
        if self.an.plans and self.spec is not None:
            for env in self.env_names:
                p = self.an.plans.get(env)
                item = p.item(name) if p is not None else None
                if item is not None:
                    out.append((env, item))
            if out:
                return out
        entry = self.entry(name)
        if entry is None:
            return []
        for env in self.env_names:
            item, _plan = self.plan(entry, env)
            if item is not None:
                out.append((env, item))
        return out

    def sizes_of(self, kind: str | None) -> tuple[str, ...]:
        try:
            return self.catalog.sizes(kind) if kind else SIZES
        except (ValueError, KeyError):
            return SIZES
