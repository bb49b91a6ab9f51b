"""What is offered at the cursor: keys of the mapping (not those already present), kinds,
sizes with each one's monthly cost (the entry re-planned at that size, sorted by cost),
environment names, ``uses`` items with kind and cost, enumerated values and reason grounds,
dispatched on the YAML path of the cursor."""

from __future__ import annotations

import dataclasses
import os
import re
import typing
from decimal import Decimal

from pydantic import BaseModel

from ... import markdown
from ...catalog import SIZES, aws_regions
from ...kinds import RESOURCE_KINDS
from ...model import REASON_GROUNDS, RESERVED_KINDS, Health, MemberRunway, PostgresEngine, Resource, RootRunway, Workload, model_for
from ...money import cap_percent, usd
from ...planner import EnvironmentPlan, ItemPlan
from ...whatif import resized_entry
from .._render import capacity_text, item_usd
from ._writer import _esc
from .candidate import _ENUM_SUMMARIES, GROUND_SUMMARIES, KIND_SUMMARIES, CompletionCandidate
from .snippets import _Snippets


def _field_values(model: type[BaseModel], name: str) -> list[str]:
    """The values a field allows when they are a fixed set: Literal values or booleans."""
    f = model.model_fields.get(name)
    if f is None:
        return []
    out: list[str] = []
    stack = [f.annotation]
    while stack:
        a = stack.pop()
        if typing.get_origin(a) is typing.Literal:
            out.extend(str(v) for v in typing.get_args(a))
        elif a is bool:
            out.extend(["true", "false"])
        else:
            stack.extend(typing.get_args(a))
    return out


def _shape(model: type[BaseModel], name: str) -> str:
    """How a key's value is written: ``map`` (on the next lines), ``list`` (flow) or ``scalar``."""
    if (model, name) == (RootRunway, "members"):
        return "block-list"
    if (model, name) == (Workload, "reason"):
        return "reason"
    f = model.model_fields[name]
    stack = [f.annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, BaseModel):
            return "map"
        origin = typing.get_origin(a)
        if origin is dict:
            return "map"
        if origin is list:
            return "list"
        stack.extend(typing.get_args(a))
    return "scalar"


def _size_doc(name: str, kind: str | None, size: str, priced: list[tuple[str, ItemPlan, EnvironmentPlan | None]]) -> str:
    """A size candidate's documentation: capacity, and per environment the entry's cost,
    the environment's total and its cap at that size (USD per month)."""
    out = [f"**{name}** ({kind or 'unknown kind'}) at **{size}**"]
    if not priced:
        return out[0]
    out += ["", f"Capacity: {capacity_text(priced[0][1])}", ""]
    with_totals = all(p is not None for _e, _i, p in priced)
    rows = []
    for e, item, plan in priced:
        row = [e, item_usd(item)]
        if plan is not None and with_totals:
            if plan.cap is None:
                cap = "no cap"
            else:
                pct = cap_percent(plan.total, plan.cap)
                cap = f"{usd(plan.cap)}" + (f" ({pct}%)" if pct is not None else "") + (" ✗ over" if plan.total > plan.cap else "")
            row += [usd(plan.total), cap]
        rows.append(row)
    header = ["environment", "monthly", "environment total", "cap"] if with_totals else ["environment", "monthly"]
    out += markdown.table(header, rows, right={1, 2})
    out += ["", "*USD per month, 730 hours; free tiers ignored.*"]
    return "\n".join(out)


class _Candidates(_Snippets):
    """Every candidate at one cursor: :meth:`build` dispatches on the path and the slot."""

    # --- dispatch ---------------------------------------------------------------------------

    def build(self) -> list[CompletionCandidate]:
        ctx = self.ctx
        if any(isinstance(p, int) for p in ctx.path):
            return []
        path = tuple(str(p) for p in ctx.path)
        if self.facts.member:
            self.member(path)
        elif ctx.slot == "key":
            self.root_keys(path)
        elif ctx.slot == "value":
            self.root_value(path)
        else:
            self.root_item(path)
        return self.out

    def member(self, path: tuple[str, ...]) -> None:
        slot = self.ctx.slot
        if slot == "key" and path == ():
            self.model_keys(MemberRunway, ())
        elif slot == "value" and path == ("runway",):
            self.value("1", "value", detail="format version")
        elif slot == "value" and path == ("member",):
            folder = os.path.basename(os.path.dirname(self.facts.file))
            if re.fullmatch(r"[a-z]([a-z0-9-]{0,61}[a-z0-9])?", folder):
                self.value(folder, "value", detail="the folder's name (the default)")
        elif path == ("requires",) and slot in ("value", "item"):
            self.kinds(shared=True)
        elif path == ("uses",) and slot in ("value", "item"):
            self.references(None)

    def root_keys(self, path: tuple[str, ...]) -> None:
        f = self.facts
        n = len(path)
        if path == ("resources",):
            self.resource_snippet()
        elif path == ("workloads",):
            self.workload_snippet()
        elif path == ("environments",):
            self.environment_snippets()
        elif n == 3 and path[0] == "environments" and path[2] == "shared":
            self.kinds(shared=True, env=path[1])
        elif n == 3 and path[0] in ("resources", "workloads") and path[2] in ("size", "scale"):
            self.environment_keys(path[1], path[2])
        else:
            kind = f.resource_kind(path[1]) if n >= 3 and path[0] == "resources" else None
            model = model_for(path, False, kind)
            if model is not None:
                self.model_keys(model, path)

    def root_value(self, path: tuple[str, ...]) -> None:
        f = self.facts
        n = len(path)
        if path == ("runway",):
            self.value("1", "value", detail="format version")
        elif path == ("region",):
            priced = sorted(f.catalog.regions)
            for i, r in enumerate(priced):
                self.value(r, "enum", detail="priced by the catalogue", sort=f"{i:02d}")
            # Then every other region of the commercial partition (catalog/aws_regions.json):
            # valid, but without prices until the catalogue is refreshed for it (RW160).
            others = sorted(r for r, part in aws_regions().items() if part == "aws" and r not in f.catalog.regions)
            for i, r in enumerate(others):
                self.value(r, "enum", detail="an AWS region without prices (RW160: catalog refresh)", sort=f"1{i:03d}")
        elif n == 3 and path[0] == "resources" and path[2] == "kind":
            self.kinds(shared=False)
        elif n in (3, 4) and path[0] in ("resources", "workloads") and path[2] == "size":
            self.sizes(path[1], path[3] if n == 4 else None)
        elif n == 4 and path[0] == "environments" and path[2] == "shared" and path[3] in RESOURCE_KINDS:
            self.sizes(f"shared-{path[3]}", path[1], kind=path[3])
        elif n == 3 and path[0] == "workloads" and path[2] == "uses":
            self.references(path[1])
        elif n == 3 and path[0] == "workloads" and path[2] == "reason":
            self.grounds()
        elif n >= 2:
            kind = f.resource_kind(path[1]) if n >= 4 and path[0] == "resources" else None
            model = model_for(path[:-1], False, kind)
            if model is not None:
                self.enum_values(model, path, kind)

    def root_item(self, path: tuple[str, ...]) -> None:
        if len(path) == 3 and path[0] == "workloads" and path[2] == "uses":
            self.references(path[1])

    # --- keys -------------------------------------------------------------------------------

    def model_keys(self, model: type[BaseModel], path: tuple[str, ...]) -> None:
        for i, (name, f) in enumerate(model.model_fields.items()):
            if name in self.ctx.present:
                continue
            required = f.is_required() or (model, name) == (Workload, "reason")
            where = ".".join((*path, name))
            doc = f"**{where}**" + ("" if not f.description else f"\n\n{f.description}")
            allowed = self.allowed(model, name)
            if allowed:
                doc += f"\n\nAllowed: {allowed}"
            detail = "required" if required else "optional"
            if model is Health and name in ("path", "command"):
                detail = "exactly one of path, command"  # Health's own rule (model.Health._one_of)
            self.key(name, _shape(model, name), detail=detail, documentation=doc, sort=f"{0 if required else 1}{i:02d}")

    def allowed(self, model: type[BaseModel], name: str) -> str | None:
        if (model, name) == (Resource, "kind"):
            return ", ".join(f"`{k}`" for k in RESOURCE_KINDS)
        if name == "size" and model in (Resource, Workload):
            return ", ".join(f"`{s}`" for s in SIZES)
        values = _field_values(model, name)
        return ", ".join(f"`{v}`" for v in values) if values else None

    def environment_keys(self, name: str, what: str) -> None:
        """Environment names as keys of a `size:` or `scale:` map (declared, not yet named)."""
        f = self.facts
        items = dict(f.monthly(name))
        for i, env in enumerate(f.env_names):
            if env in self.ctx.present:
                continue
            item = items.get(env)
            detail = None
            if item is not None:
                now = item.size if what == "size" else item.capacity.get("tasks")
                detail = f"now {now} · {item_usd(item)}/mo" if now is not None else f"{item_usd(item)}/mo"
            doc = f"**{env}**: the {what} of `{name}` in this environment" + (" (an environment it does not name runs small)." if what == "size" else " (default 1 task).")
            self.key(env, "scalar", detail=detail, documentation=doc, sort=f"{i:02d}", kind="environment")

    # --- values -----------------------------------------------------------------------------

    def kinds(self, *, shared: bool, env: str | None = None) -> None:
        """Resource kinds (never the reserved ones): a resource's `kind`, a member's
        `requires` items, or an environment's `shared` keys."""
        ctx = self.ctx
        reserved = ", ".join(f"`{k}` ({why})" for k, why in RESERVED_KINDS.items())
        for i, kind in enumerate(RESOURCE_KINDS):
            if kind in ctx.present:
                continue
            summary = KIND_SUMMARIES[kind]
            if env is not None:
                doc = f"**shared-{kind}** in `{env}`: the size of the shared {kind} pool ({summary}); default small."
                self.key(kind, "scalar", detail=summary, documentation=doc, sort=f"{i:02d}", kind="kind")
                continue
            if shared:
                doc = f"**{kind}** — {summary}. Requiring it makes this member a consumer of the implicit `shared-{kind}` pool."
                self.names_value(kind, "kind", detail=summary, documentation=doc, sort=f"{i:02d}")
                continue
            doc = f"**{kind}** — {summary}.\n\nReserved kinds are refused: {reserved}."
            self.value(kind, "kind", detail=summary, documentation=doc, sort=f"{i:02d}")

    def sizes(self, name: str, env: str | None, kind: str | None = None) -> None:
        """Each size with the entry's monthly cost at that size (re-planned), sorted by cost.
        ``env`` None: one size for every environment (``size: medium``)."""
        f = self.facts
        entry = f.entry(name)
        kind = entry.kind if entry is not None else (kind or f.resource_kind(name))
        envs = [env] if env is not None else f.env_names
        rows = []
        for order, size in enumerate(f.sizes_of(kind)):
            priced: list[tuple[str, ItemPlan, EnvironmentPlan | None]] = []
            if entry is not None:
                changed = resized_entry(entry, size, env)
                for e in envs:
                    item, plan = f.plan(changed, e)
                    if item is not None and item.size is not None:
                        priced.append((e, item, plan))
            first = priced[0][1].monthly_usd if priced else None
            rows.append((first is None, first or Decimal(0), order, size, priced))
        rows.sort(key=lambda r: r[:3])
        for rank, (_none, _first, _order, size, priced) in enumerate(rows):
            current = self.ctx.replaced == size
            detail = None
            if priced:
                e, item, _p = priced[0]
                detail = f"{item_usd(item)}/mo in {e}" + (" · current" if current else "")
            elif current:
                detail = "current"
            self.value(size, "size", detail=detail, documentation=_size_doc(name, kind, size, priced), sort=f"{rank:02d}")

    def references(self, consumer: str | None) -> None:
        """Resources and workloads a `uses` may name: not ``consumer`` itself, not those listed."""
        f = self.facts
        group = {"resource": 0, "implicit": 1, "workload": 2}
        for i, (name, typ, kind) in enumerate(f.names()):
            if name == consumer or name in self.ctx.present:
                continue
            items = f.monthly(name)
            kind_word = "workload" if typ == "workload" else (kind or "resource") + (" (shared pool)" if typ == "implicit" else "")
            detail, doc = _reference_text(name, kind_word, items)
            self.names_value(name, "reference", detail=detail, documentation=doc, sort=f"{group.get(typ, 3)}{i:03d}")

    def grounds(self) -> None:
        """The three grounds, as the start of a quoted reason (``"residency: …"``)."""
        ctx = self.ctx
        for i, g in enumerate(REASON_GROUNDS):
            doc = f"**{g}** — {GROUND_SUMMARIES[g]} (ADR 0493 §5: a workload only where no managed resource fits). Say why after the colon."
            if ctx.quote:
                self.add(g, "enum", f"{g}: ", detail=GROUND_SUMMARIES[g], documentation=doc, sort=f"{i:02d}")
            else:
                self.add(g, "enum", f'{ctx.lead}"{g}: "', snippet=f'{_esc(ctx.lead)}"{g}: $0"', detail=GROUND_SUMMARIES[g], documentation=doc, sort=f"{i:02d}")

    def enum_values(self, model: type[BaseModel], path: tuple[str, ...], kind: str | None) -> None:
        name = path[-1]
        f = self.facts
        values = _field_values(model, name)
        if model is PostgresEngine and name == "version":
            for i, v in enumerate(("17", "16", "15", "14")):
                self.value(v, "enum", f'"{v}"' if not self.ctx.quote else v, detail="PostgreSQL major version" + (" (default)" if v == "16" else ""), sort=f"{i:02d}")
            return
        if not values:
            return
        field_ = model.model_fields[name]
        default = field_.default
        entry = f.entry(path[1]) if len(path) == 4 and path[0] == "resources" and path[2] == "engine" else None
        for i, v in enumerate(values):
            is_default = str(default).lower() == v
            summary = _ENUM_SUMMARIES.get((name, v))
            detail = " ".join(x for x in (summary, "(default)" if is_default and not (summary and "default" in summary) else None) if x) or None
            if entry is not None and kind is not None:
                # An engine option that changes the price (flavor, proxy, fifo): show it.
                parsed = {"true": True, "false": False}.get(v, v)
                changed = dataclasses.replace(entry, engine={**entry.engine, name: parsed})
                e = f.env_names[0] if f.env_names else None
                item = f.plan(changed, e)[0] if e is not None else None
                if item is not None and item.size is not None:
                    detail = f"{item_usd(item)}/mo in {e}" + (f" · {detail}" if detail else "")
            doc = f"**{'.'.join(path)}: {v}**" + (f"\n\n{field_.description}" if field_.description else "")
            self.value(v, "enum", detail=detail, documentation=doc, sort=f"{i:02d}")


#: (name, kind word, (environment, id of its item) ...) -> (detail, documentation, the items):
#: what :func:`_reference_text` wrote. An :class:`ItemPlan` is immutable and the planner
#: reuses the item of an entry that did not change (runway_core/planner/plan.py, ``_reusable``),
#: so a keystroke's completion finds the texts of every other candidate here (~300 on the
#: 3,218-line benchmark workspace: a third of the completion's time, issue 16 item 10). The
#: items are kept in the value so that their ids are not reused while the entry lives.
_REFERENCE_TEXTS: dict[tuple, tuple[str, str, tuple]] = {}
_REFERENCE_TEXTS_SIZE = 4096


def _reference_text(name: str, kind_word: str, items: list[tuple[str, ItemPlan]]) -> tuple[str, str]:
    """The detail and documentation of the `uses` candidate ``name``: its kind, its monthly
    cost in the first environment (detail) and in each one, who uses it and what it injects."""
    key = (name, kind_word, *((e, id(it)) for e, it in items))
    hit = _REFERENCE_TEXTS.get(key)
    if hit is not None:
        return hit[0], hit[1]
    detail = kind_word + (f" · {item_usd(items[0][1])}/mo in {items[0][0]}" if items else "")
    doc = [f"**{name}** — {kind_word}"]
    if items:
        doc += ["", " · ".join(f"{e} {item_usd(it)}" for e, it in items) + " per month"]
        if items[0][1].consumers:
            doc += ["", f"Used by: {', '.join(items[0][1].consumers)}"]
        if items[0][1].variables:
            doc += ["", "Injects: " + ", ".join(f"`{v}`" for v in items[0][1].variables)]
    if len(_REFERENCE_TEXTS) >= _REFERENCE_TEXTS_SIZE:
        _REFERENCE_TEXTS.clear()
    text = "\n".join(doc)
    _REFERENCE_TEXTS[key] = (detail, text, tuple(it for _e, it in items))
    return detail, text
