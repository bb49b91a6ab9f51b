"""Quick fixes: the minimal text edits that resolve a diagnostic, as one pure query.

:func:`fixes_for` takes an :class:`~runway_core.analysis.Analysis`, a file, and either the
diagnostics a client sent back (matched to the analysis's own by code and range, then by
message) or a range (every diagnostic of the file touching it). It returns :class:`Fix`
values: a title, the core diagnostic fixed, and :class:`TextEdit` lists per file in the core's
positions (code points; the language server converts them once, STYLE.md §3-4).

Edits are textual and minimal: a scalar's own characters are replaced (inside its quotes for
a quoted scalar, so the quoting style stays), or a line is inserted with its siblings'
indentation and the file's line ending, or an entry's own lines (a flow item with its comma)
are deleted. Comments and formatting elsewhere are untouched; YAML is never re-dumped.

What each code gets:

- RW130 unknown size: one fix per catalogue size, titled with its monthly cost
  ("Change size to medium ($139.47/mo in staging)"); the suggested size is preferred.
- RW170 over cap: for each of the :data:`TOP_RESIZE` costliest items of the environment
  that can be made cheaper in place (declared resources and workloads, and ``shared-<kind>``
  pools sized in that environment's ``shared``), one fix per cheaper size ("Resize main-db in
  dev to small — saves $103.19/month, dev total becomes $110.44") and, for a workload running
  more than one task there, fewer tasks ("Scale metabase in dev to 3 tasks — saves ...": one
  task fewer, and the fewest that fit the cap alone, else one task); plus one preferred "Fit
  ENV under its cap" fix (see :func:`fit_under_cap`: sizes and task counts), offered only
  when some set of changes fits. Each choice is priced on its own
  (:func:`runway_core.planner.entry_cost`: an entry's cost does not depend on the others;
  fewer internal tasks also save their Cloud Map registrations), so titles need no re-plan;
  the fit is re-planned once to confirm. When nothing fits, the environment's hover says the
  smallest total it can reach (:func:`smallest_total`).
- RW150/RW152 unknown ``uses`` item: the closest names (difflib, up to three; the rule's
  suggestion preferred) and "Create resource `NAME`" (a skeleton at the end of the root's
  ``resources``, kind guessed from the name, see :func:`guess_kind`; without a hint in the
  name it is postgres, and the title says "(kind: postgres — change as needed)").
- RW141 missing reason: "Add reason: GROUND" for each of the three grounds.
- RW142 reason without a ground: "Prefix reason with GROUND" for each ground.
- RW102 unknown key: rename to the suggested key (preferred) and other close keys, never to a
  key the mapping already has.
- RW120 unknown kind: the suggested kind. RW131 size/scale for an undeclared environment:
  rename to the suggested environment, "Declare environment ENV" and "Remove the ENV entry".
- RW002 duplicate key: delete the second entry.
- RW140 (digest) and every other code: no fix (a digest cannot be invented).

Shapes of ``size:`` when resizing ENV to SIZE: a map naming ENV gets its value replaced; a
map without ENV gets an ``ENV: SIZE`` entry (a line at the siblings' indentation in a block
map, an item in a flow map), placed in declared-environment order; one size for every
environment (``size: large``) becomes a flow map naming every environment, ENV with SIZE and
the others with the old size (``size: {dev: small, staging: large, production: large}``):
the one form that keeps every other environment as it was and reads at a glance; no ``size``
key gets a ``size: {ENV: SIZE}`` entry; ``scale`` (task counts) takes the same shapes
(``scale: 3`` becomes ``scale: {dev: 2, staging: 3, production: 3}``). Nodes shared through
anchors, aliases or merge keys are never edited (the edit would change every entry sharing
them): those fixes are not offered (a size written through an alias gets no resize fix).

Never raises: a diagnostic whose fix fails internally gets no fix. Money is USD per month.
Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from .catalog import Catalog
from .diagnostics import Diagnostic
from .model import REASON_GROUNDS, RESOURCE_KINDS
from .planner import EntrySpec, EnvironmentPlan, RunwaySpec, cents, entry_cost, plan_environment
from .positions import Position, Range
from .rules import NAME_LABEL, usd
from .yamlsrc import YMap, YNode, YScalar, YSeq, iter_nodes, node_path_at, resolve_plain

if TYPE_CHECKING:
    from .analysis import Analysis, SourceFile

QUICKFIX = "quickfix"
#: How many of an over-cap environment's costliest resizable items get resize fixes.
TOP_RESIZE = 3
#: How many items the "fit under the cap" search considers for sets of two or more changes:
#: those that can save the most (a single change is searched over every item). Exact over
#: them (branch and bound), a few milliseconds.
FIT_CANDIDATES = 8
#: How many close names an unknown `uses` item or key is offered.
CLOSE_NAMES = 3


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``range`` (code points of the file as analysed) with ``new_text``."""

    range: Range
    new_text: str


@dataclass(frozen=True)
class Fix:
    """One quick fix. ``edits`` maps a file path (as keyed in ``Analysis.files``) to
    non-overlapping edits, each relative to the analysed text of that file; ``kind`` is the
    LSP code action kind ``quickfix``."""

    title: str
    diagnostic: Diagnostic
    edits: Mapping[str, tuple[TextEdit, ...]]
    is_preferred: bool = False
    kind: str = QUICKFIX


def fixes_for(analysis: "Analysis", file: str, target: Range | Iterable[Diagnostic]) -> list[Fix]:
    """Quick fixes for diagnostics of ``file``.

    ``target`` is either the diagnostics a client sent (any objects with ``code``, ``range``
    and ``message``, positions in code points): each is matched to the analysis's diagnostic
    with the same code and range (the same message first, as two may share a range); stale
    ones match nothing and get no fix. Or a :class:`Range`: every diagnostic of ``file``
    whose range touches it. Returns fixes in diagnostic order; never raises.
    """
    path = os.path.abspath(file)
    own = analysis.diagnostics.get(path, [])
    if isinstance(target, Range):
        matched = [d for d in own if d.range.start <= target.end and target.start <= d.range.end]
    else:
        matched = []
        for sent in target:
            same = [d for d in own if d.code == sent.code and d.range == sent.range]
            exact = [d for d in same if d.message == sent.message]
            hit = (exact or same or [None])[0]
            if hit is not None and hit not in matched:
                matched.append(hit)
    out: list[Fix] = []
    for diag in matched:
        handler = _HANDLERS.get(diag.code)
        if handler is None:
            continue
        try:
            out.extend(handler(_Ctx(analysis, path), diag))
        except Exception:  # noqa: BLE001 - STYLE.md §7: a fix is never worth a crash
            continue
    return out


# --------------------------------------------------------------------------------------
# Re-planning
# --------------------------------------------------------------------------------------


def resized_plan(spec: RunwaySpec, catalog: Catalog, env: str, sizes: Mapping[str, str], scales: Mapping[str, int] | None = None,
                 previous: EnvironmentPlan | None = None) -> EnvironmentPlan:
    """The plan of ``env`` with entries resized (and workloads scaled) there.

    ``sizes`` maps an entry name of ``spec.entries`` (declared or implicit) to its new size in
    ``env``, ``scales`` a workload's name to its new task count there; other entries and
    other environments are unchanged. Pure: returns a new :class:`EnvironmentPlan` (USD per
    month, like every plan). Raises KeyError for a name that is not an entry. ``previous``,
    the plan of ``env`` computed from ``spec`` with ``catalog``, lends its unchanged items.
    """
    entries = dict(spec.entries)
    for name, size in sizes.items():
        e = entries[name]
        entries[name] = dataclasses.replace(e, sizes={**e.sizes, env: size})
    for name, count in (scales or {}).items():
        e = entries[name]
        entries[name] = dataclasses.replace(e, scales={**e.scales, env: count})
    return plan_environment(dataclasses.replace(spec, entries=entries), catalog, env, (spec, previous) if previous is not None else None)


@dataclass(frozen=True)
class Downsize:
    """One cheaper choice for one item in one environment: a catalogue ``size`` and, for a
    workload, a task count (``scale``; None when unchanged); ``monthly_usd`` is the item's
    cost with it and ``saves`` how much the environment's total drops (the item's saving,
    plus the Cloud Map registrations an internal workload no longer runs)."""

    name: str
    size: str
    monthly_usd: Decimal
    scale: int | None = None
    saves: Decimal = Decimal("0.00")


def fewer_tasks(scale: int) -> list[int]:
    """The task counts below ``scale`` the over-cap search considers, most first: every one
    up to 6 tasks, else a bounded spread (``scale - 1`` ... 1)."""
    if scale <= 1:
        return []
    if scale <= 6:
        return list(range(scale - 1, 0, -1))
    return sorted({scale - 1, scale - 2, (3 * scale) // 4, scale // 2, scale // 4, 2, 1} - {0}, reverse=True)


class _Choices:
    """The cheaper choices of the items of one environment's plan, each priced on its own
    (:func:`runway_core.planner.entry_cost`: an entry's cost does not depend on the other
    entries), never by re-planning the environment per candidate."""

    def __init__(self, spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan) -> None:
        self.spec, self.catalog, self.plan = spec, catalog, plan
        self.items = {i.name: i for i in plan.items}
        self._memo: dict[tuple[str, bool, bool], list[Downsize]] = {}
        # Cloud Map bills each registered internal task: scaling one down saves that too.
        self.unit: Decimal | None = None
        self.tasks = Decimal(0)
        sd = self.items.get("service-discovery")
        for li in sd.line_items if sd is not None and sd.origin == "environment" else ():
            if li.price_key == "cloudmap:instance":
                self.unit, self.tasks = li.unit_usd, li.quantity

    def _discovery(self, entry: EntrySpec, count: int | None) -> Decimal:
        if count is None or entry.kind != "workload" or entry.expose == "public" or self.unit is None:
            return Decimal("0.00")
        fewer = entry.scale_in(self.plan.name) - count
        return cents(self.tasks * self.unit) - cents(max(self.tasks - fewer, Decimal(0)) * self.unit)

    def of(self, name: str, sizes: bool = True, scales: bool = True) -> list[Downsize]:
        """Every cheaper (size, task count) of item ``name``: other sizes at the current
        task count (``scale`` None) when ``sizes``, and fewer tasks (:func:`fewer_tasks`) at
        each size that costs no more when ``scales``. Empty for an item that is not an
        entry (``alb``) or has no estimate."""
        key = (name, sizes, scales)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        out: list[Downsize] = []
        item, entry = self.items.get(name), self.spec.entries.get(name)
        if item is not None and entry is not None and item.size is not None:
            try:
                catalogue = self.catalog.sizes(entry.kind)
            except (ValueError, KeyError):
                catalogue = ()
            env = self.plan.name
            counts = fewer_tasks(entry.scale_in(env)) if scales and entry.kind == "workload" else []
            for size in catalogue:
                cost = item.monthly_usd if size == item.size else entry_cost(self.spec, self.catalog, env, name, size)
                if sizes and size != item.size and cost < item.monthly_usd:
                    out.append(Downsize(name, size, cost, None, item.monthly_usd - cost))
                if cost <= item.monthly_usd and (sizes or size == item.size):
                    for n in counts:
                        c = entry_cost(self.spec, self.catalog, env, name, size, n)
                        saves = item.monthly_usd - c + self._discovery(entry, n)
                        if saves > 0:
                            out.append(Downsize(name, size, c, n, saves))
        out.sort(key=lambda d: (d.scale is not None, -d.monthly_usd, -(d.scale or 0)))
        self._memo[key] = out
        return out


def cheaper_sizes(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan, name: str) -> list[Downsize]:
    """Every catalogue size of item ``name`` that costs less in ``plan``'s environment than
    its current size (task count unchanged), most expensive first (the smallest change
    first). Empty for items that are not entries (``alb``, ``service-discovery``) or have
    no estimate. Each is priced alone, without re-planning the environment."""
    return _Choices(spec, catalog, plan).of(name, scales=False)


#: Most search steps of the "fit under the cap" search (a bound, never reached in practice:
#: the branch-and-bound search over :data:`FIT_CANDIDATES` items visits a few hundred).
FIT_STEPS = 200_000


def fit_under_cap(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan, names: Sequence[str], *, scales: bool = True, _choices: "_Choices | None" = None) -> tuple[dict[str, Downsize], EnvironmentPlan] | None:
    """The smallest set of changes among items ``names`` (pass them costliest first) that
    brings ``plan`` within its cap: cheaper sizes and, with ``scales``, fewer tasks.

    Fewest items changed first; among those, the least money saved (the most capacity kept,
    a total closest under the cap); then name order. One change is searched over every item
    of ``names``; two and more, exactly over the :data:`FIT_CANDIDATES` items that can save
    the most. Item costs are independent of each other, so each choice is priced alone
    (:func:`runway_core.planner.entry_cost`) and only the winner is re-planned to confirm.
    Returns ({name: Downsize}, the new plan) in ``names`` order, or None when no set fits
    (or there is no cap, or the plan is within it).
    """
    cap = plan.cap
    if cap is None or plan.total <= cap:
        return None
    ch = _choices or _Choices(spec, catalog, plan)
    need = plan.total - cap
    opts = {n: ch.of(n, scales=scales) for n in dict.fromkeys(names)}
    opts = {n: sorted(o, key=lambda d: d.saves) for n, o in opts.items() if o}

    def tag(d: Downsize) -> str:
        return f"{d.name}\0{d.size}\0{d.scale if d.scale is not None else ''}"

    best: tuple[Decimal, tuple[str, ...]] | None = None
    chosen: list[Downsize] | None = None
    for ds in opts.values():  # one change: every item
        d = next((d for d in ds if d.saves >= need), None)
        if d is not None and (best is None or (d.saves, (tag(d),)) < best):
            best, chosen = (d.saves, (tag(d),)), [d]
    if chosen is None:
        ranked = sorted(opts, key=lambda n: -opts[n][-1].saves)[:FIT_CANDIDATES]
        most = [opts[n][-1].saves for n in ranked]
        steps = 0

        def search(i: int, left: int, saved: Decimal, picked: list[Downsize]) -> None:
            nonlocal best, chosen, steps
            steps += 1
            if steps > FIT_STEPS:
                return
            if left == 0:
                key = (saved, tuple(tag(d) for d in picked))
                if saved >= need and (best is None or key < best):
                    best, chosen = key, list(picked)
                return
            if len(ranked) - i < left or saved + sum(most[i : i + left]) < need:
                return  # too few items left, or even their largest savings fall short
            if best is not None and saved >= best[0]:
                return  # savings only grow from here
            for d in opts[ranked[i]]:
                picked.append(d)
                search(i + 1, left - 1, saved + d.saves, picked)
                picked.pop()
            search(i + 1, left, saved, picked)

        for k in range(2, len(ranked) + 1):
            search(0, k, Decimal(0), [])
            if chosen is not None:
                break
    if chosen is None:
        return None
    order = {n: i for i, n in enumerate(names)}
    choice = {d.name: d for d in sorted(chosen, key=lambda d: order.get(d.name, len(order)))}
    sizes = {n: d.size for n, d in choice.items() if ch.items[n].size != d.size}
    counts = {n: d.scale for n, d in choice.items() if d.scale is not None}
    new = resized_plan(spec, catalog, plan.name, sizes, counts)
    return (choice, new) if new.total <= cap else None


def smallest_total(spec: RunwaySpec, catalog: Catalog, plan: EnvironmentPlan) -> Decimal:
    """The lowest total ``plan``'s environment can reach by resizing every entry to its
    cheapest size and running each workload as one task (USD per month; the per-environment
    items stay). What an over-cap hover says when no set of changes fits the cap."""
    ch = _Choices(spec, catalog, plan)
    saved = Decimal(0)
    for name in spec.entries:
        ds = ch.of(name, scales=True)
        if ds:
            saved += max(d.saves for d in ds)
    return plan.total - saved


# --------------------------------------------------------------------------------------
# Source editing
# --------------------------------------------------------------------------------------


_PLAIN_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_./@-]*$")


def _literal(value: str, style: str = "") -> str:
    """``value`` as a YAML scalar in ``style`` ('', "'", '"'); plain only when it stays a string."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == '"' or not _PLAIN_SAFE.match(value) or resolve_plain(value) != value:
        return json.dumps(value, ensure_ascii=False)  # JSON strings are YAML double-quoted scalars
    return value


class _Src:
    """One analysed file's text with the helpers that build minimal edits."""

    def __init__(self, src: "SourceFile") -> None:
        self.path = src.path
        self.parsed = src.parsed
        self.text = src.parsed.text
        self.lines = src.parsed.lines
        m = re.search(r"\r\n|\r|\n", self.text)
        self.eol = m.group(0) if m else "\n"

    # positions
    def off(self, pos: Position) -> int:
        return self.lines.offset(pos)

    def pos(self, offset: int) -> Position:
        return self.lines.position(offset)

    def edit(self, start: int, end: int, text: str) -> TextEdit:
        return TextEdit(Range(self.pos(start), self.pos(end)), text)

    def indent(self, key: YNode) -> int:
        col = key.range.start.character
        if key.range.start.line == 0 and self.text.startswith("\ufeff"):
            col -= 1  # a byte-order mark is a character of line 0, not indentation
        return max(0, col)

    def own_line(self, node: YNode) -> bool:
        """True when only spaces precede ``node`` on its line (not ``- `` of a sequence item)."""
        return not self.lines.line_text(node.range.start.line)[: node.range.start.character].lstrip("\ufeff").strip(" ")

    def end_of(self, node: YNode) -> Position:
        """Where ``node``'s text ends: a block scalar's range runs to the start of the next
        line (and over trailing blank lines); stop at its last non-blank line instead."""
        start, end = node.range.start, node.range.end
        if end.character == 0 and end.line > start.line:
            line = end.line - 1
            while line > start.line and not self.lines.line_text(line).strip():
                line -= 1
            return Position(line, len(self.lines.line_text(line)))
        return end

    def entry_last_line(self, key: YScalar, value: YNode) -> int:
        end = self.end_of(value)
        return max(key.range.end.line, end.line)

    def insert_lines_after(self, line: int, block: str) -> TextEdit:
        """Insert ``block`` (lines joined by the file's line ending, without a final one) as
        whole lines after ``line``."""
        if line + 1 < self.lines.line_count:
            at = self.lines.line_start(line + 1)
            return self.edit(at, at, block + self.eol)
        end = len(self.text)
        return self.edit(end, end, self.eol + block)  # the last line has no line ending

    def insert_lines_before(self, line: int, block: str) -> TextEdit:
        at = self.lines.line_start(line)
        return self.edit(at, at, block + self.eol)

    def delete_lines(self, first: int, last: int) -> TextEdit:
        """Delete whole lines ``first``..``last`` with their line endings."""
        start = self.lines.line_start(first)
        if last + 1 < self.lines.line_count:
            return self.edit(start, self.lines.line_start(last + 1), "")
        # The last lines of the file: take the line ending before them instead.
        return self.edit(self.lines.line_end(first - 1) if first > 0 else 0, len(self.text), "")

    def colon_after(self, key: YScalar) -> int | None:
        """Offset just past the ``:`` that follows ``key``."""
        i = self.off(key.range.end)
        while i < len(self.text) and self.text[i] in " \t":
            i += 1
        return i + 1 if i < len(self.text) and self.text[i] == ":" else None

    def owns(self, mp: YMap, key: YScalar) -> bool:
        """True when ``key`` is written in ``mp`` itself, not merged in (``<<``) from elsewhere
        or from an inline source: at the mapping's own indentation (block) or bracket depth
        (flow)."""
        if not _within(key, mp):
            return False
        if mp.flow:
            return _depth(self.text, self.off(mp.range.start), self.off(key.range.start)) == 1
        return key.range.start == mp.range.start or (self.own_line(key) and self.indent(key) == self.indent(mp))

    def own_entries(self, mp: YMap) -> list[tuple[YScalar, YNode]]:
        return [(k, v) for k, v in mp.entries if self.owns(mp, k)]

    # scalars
    def replace_scalar(self, node: YScalar, value: str) -> TextEdit:
        """Replace a scalar's value, inside its quotes when it is quoted on one line."""
        start, end = self.off(node.range.start), self.off(self.end_of(node))
        if node.style in ("'", '"') and node.range.start.line == node.range.end.line:
            return self.edit(start + 1, end - 1, _literal(value, node.style)[1:-1])
        return self.edit(start, end, _literal(value, '"' if node.style in ("|", ">") else ""))

    def set_value(self, key: YScalar, value: YNode, text: str) -> TextEdit | None:
        """Write ``text`` as the value of ``key`` whose value is null (empty, ``~``, ``null``)."""
        if value.range.start != value.range.end:
            return self.edit(self.off(value.range.start), self.off(value.range.end), text)
        colon = self.colon_after(key)
        return None if colon is None else self.edit(colon, colon, " " + text)

    # mappings
    def insert_entry(self, mp: YMap, key: str, value: str, before: YScalar | None = None) -> TextEdit | None:
        """Add ``key: value`` to mapping ``mp`` (before key ``before`` when given, else last)."""
        own = self.own_entries(mp)
        if before is not None and not self.owns(mp, before):
            before = None
        if mp.flow:
            if not own:
                if mp.entries:
                    return None  # only merged keys: where the braces' items are is unclear
                start, end = self.off(mp.range.start), self.off(mp.range.end)
                if self.text[start : start + 1] != "{" or self.text[end - 1 : end] != "}":
                    return None
                return self.edit(start + 1, end - 1, f"{key}: {value}")
            if before is not None:
                at = self.off(before.range.start)
                return self.edit(at, at, f"{key}: {value}, ")
            k, v = own[-1]
            at = self.off(max(k.range.end, self.end_of(v)))
            return self.edit(at, at, f", {key}: {value}")
        if not own:
            return None
        line = " " * self.indent(own[0][0]) + f"{key}: {value}"
        if before is not None and self.own_line(before):
            return self.insert_lines_before(before.range.start.line, line)
        k, v = own[-1]
        return self.insert_lines_after(self.entry_last_line(k, v), line)

    def remove_entry(self, mp: YMap, key: str) -> TextEdit | None:
        """Delete entry ``key`` of ``mp``: its whole lines in a block mapping, the item and
        one comma in a flow mapping."""
        own = self.own_entries(mp)
        idx = next((i for i, (k, _v) in enumerate(own) if k.text == key), None)
        if idx is None:
            return None
        k, v = own[idx]
        if mp.flow:
            if idx + 1 < len(own):
                return self.edit(self.off(k.range.start), self.off(own[idx + 1][0].range.start), "")
            if idx > 0:
                pk, pv = own[idx - 1]
                return self.edit(self.off(max(pk.range.end, self.end_of(pv))), self.off(max(k.range.end, self.end_of(v))), "")
            start, end = self.off(mp.range.start), self.off(mp.range.end)
            return self.edit(start + 1, end - 1, "")
        if not self.own_line(k):
            return None  # `- key: v` (the first key of a sequence item): not a line of its own
        return self.delete_lines(k.range.start.line, self.entry_last_line(k, v))


def _within(inner: YNode, outer: YNode) -> bool:
    return outer.range.start <= inner.range.start and inner.range.end <= outer.range.end


def _structure(text: str, start: int, end: int | None = None) -> Iterator[tuple[int, str]]:
    """(offset, character) of every flow indicator (``{}[],``) from ``start``, outside
    quoted scalars and comments."""
    quote = None
    i = start
    stop = len(text) if end is None else end
    while i < stop:
        ch = text[i]
        if quote:
            if quote == '"' and ch == "\\":
                i += 2
                continue
            if ch == quote:
                if quote == "'" and text[i + 1 : i + 2] == "'":
                    i += 2  # '' is a quote inside a single-quoted scalar
                    continue
                quote = None
        elif ch in "'\"" and (i == 0 or text[i - 1] in " \t\r\n{[,:"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\r\n"):
            while i < stop and text[i] not in "\r\n":
                i += 1
            continue
        elif ch in "{}[],":
            yield i, ch
        i += 1


def _depth(text: str, start: int, end: int) -> int:
    """Flow bracket depth at ``end`` when scanning from ``start``."""
    depth = 0
    for _i, ch in _structure(text, start, end):
        depth += 1 if ch in "{[" else -1 if ch in "}]" else 0
    return depth


def _local_path(src: _Src, parts: Sequence[str]) -> list[tuple[YScalar, YNode]] | None:
    """(key, value) pairs along ``parts`` from the root of ``src``, or None when a part is
    missing or a node on the way is shared (carries an anchor, comes from an alias or a
    merge key)."""
    out: list[tuple[YScalar, YNode]] = []
    node = src.parsed.root
    for part in parts:
        if not isinstance(node, YMap) or node.anchor is not None:
            return None
        key, value = node.key_node(part), node.get(part)
        if key is None or value is None or not src.owns(node, key) or not _within(value, node) or value.anchor is not None:
            return None
        out.append((key, value))
        node = value
    return out


# --------------------------------------------------------------------------------------
# Per-code fixes
# --------------------------------------------------------------------------------------


class _Ctx:
    def __init__(self, an: "Analysis", path: str) -> None:
        self.an = an
        self.path = path
        self._srcs: dict[str, _Src] = {}

    def src(self, path: str | None = None) -> _Src:
        p = path or self.path
        if p not in self._srcs:
            self._srcs[p] = _Src(self.an.files[p])
        return self._srcs[p]

    @property
    def root(self) -> _Src:
        return self.src(self.an.root_file)

    def fix(self, title: str, diag: Diagnostic, edits: Iterable[tuple[str, TextEdit | None]], preferred: bool = False) -> Fix | None:
        by_file: dict[str, list[TextEdit]] = {}
        for path, e in edits:
            if e is None:
                return None  # a part of the fix cannot be written: offer none of it
            by_file.setdefault(path, []).append(e)
        if not by_file:
            return None
        return Fix(title, diag, {p: tuple(es) for p, es in by_file.items()}, preferred)


def _scalar_at(src: _Src, rng: Range) -> tuple[tuple[str | int, ...], YScalar, bool] | None:
    """The path, the scalar whose range is exactly ``rng``, and whether it is a key."""
    chain = node_path_at(src.parsed.root, rng.start)
    if not chain:
        return None
    parts = tuple(p for p, _n, _k in chain)
    _p, node, key = chain[-1]
    if key is not None and key.range == rng:
        return parts, key, True
    if isinstance(node, YScalar) and node.range == rng:
        return parts, node, False
    return None


def _parent_map(src: _Src, parts: tuple[str | int, ...]) -> YMap | None:
    node = src.parsed.root
    for part in parts[:-1]:
        if isinstance(node, YMap) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, YSeq) and isinstance(part, int) and 0 <= part < len(node.items):
            node = node.items[part]
        else:
            return None
    return node if isinstance(node, YMap) else None


# --- RW130 unknown size ------------------------------------------------------------------


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
        costs.append((e, ("at least " if item.missing_prices else "") + usd(item.monthly_usd)))
    if not costs:
        return ""
    if env is not None:
        return f" ({costs[0][1]}/mo in {env})"
    if len({c for _e, c in costs}) == 1:
        return f" ({costs[0][1]}/mo in every environment)"
    return " (" + " · ".join(f"{e} {c}" for e, c in costs) + " per month)"


# --- RW170 over cap ------------------------------------------------------------------------


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
    module docstring). Each choice is priced alone (:class:`_Choices`); the environment is
    re-planned once, to confirm the fit."""
    an = ctx.an
    env = (diag.data or {}).get("environment")
    plan = an.plans.get(env) if env else None
    if an.spec is None or plan is None or plan.cap is None:
        return []
    root = an.root_file
    src = ctx.root
    ch = _Choices(an.spec, an.catalog, plan)
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
            ch._memo[(name, True, True)] = ch.of(name, sizes=can_size, scales=can_scale)
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


# --- RW150 / RW152 unknown uses ------------------------------------------------------------

#: Name hints for the kind of a new resource (word of the name -> kind), checked in order.
KIND_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("queue", ("queue", "queues", "q", "sqs", "jobs", "job", "tasks", "work", "worker")),
    ("topic", ("topic", "topics", "sns", "events", "event", "notifications", "notify", "pubsub", "fanout")),
    ("cache", ("cache", "redis", "valkey", "memcache", "memcached", "sessions", "session")),
    ("bucket", ("bucket", "buckets", "s3", "files", "storage", "assets", "uploads", "media", "blobs", "objects", "static")),
    ("postgres", ("db", "pg", "postgres", "postgresql", "sql", "database", "rds", "aurora")),
)


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
    return kind_hint(name) or "postgres"


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
    if NAME_LABEL.match(name) and not (name.startswith("shared-") and name[7:] in RESOURCE_KINDS):
        kind = guess_kind(name)
        # Without a hint in the name, postgres is a guess: the title says so.
        note = "" if kind_hint(name) else " — change as needed"
        f = ctx.fix(f"Create resource `{name}` (kind: {kind}{note})", diag, [(ctx.an.root_file, _create_resource(ctx.root, name, kind))])
        if f:
            out.append(f)
    return out


def _top_anchor(src: _Src, names: Sequence[str]) -> YScalar | None:
    root = src.parsed.root
    if not isinstance(root, YMap):
        return None
    for n in names:
        k = root.key_node(n)
        if k is not None and src.owns(root, k) and src.indent(k) == 0:
            return k
    return None


def _new_section(src: _Src, name: str, body: list[str], before: Sequence[str]) -> TextEdit | None:
    """A new top-level section ``name:`` with ``body`` lines, before the first of the
    top-level keys ``before`` present (kept apart by a blank line when sections are), else at
    the end of the file."""
    root = src.parsed.root
    if not isinstance(root, YMap) or root.flow:
        return None
    lines = [f"{name}:", *body]
    anchor = _top_anchor(src, before)
    if anchor is not None:
        line = anchor.range.start.line
        gap = line > 0 and not src.lines.line_text(line - 1).strip()
        return src.insert_lines_before(line, src.eol.join(lines + ([""] if gap else [])))
    last = len(src.text)
    if src.text and not src.text.endswith(("\n", "\r")):
        return src.edit(last, last, src.eol + src.eol.join(lines) + src.eol)
    return src.edit(last, last, src.eol.join(lines) + src.eol)


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
    return src.insert_lines_after(src.entry_last_line(last_k, last_v), src.eol.join(block))


# --- RW141 / RW142 reasons -----------------------------------------------------------------


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


# --- RW102 unknown key, RW120 unknown kind -------------------------------------------------


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


# --- RW131 undeclared environment ----------------------------------------------------------


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
    if NAME_LABEL.match(env):
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


# --- RW002 duplicate key -------------------------------------------------------------------


def _duplicate_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
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
        e = _delete_flow_item(src, start)
    else:
        e = _delete_block_entry(src, diag.range)
    f = ctx.fix(f"Remove duplicate key `{key}`", diag, [(ctx.path, e)])
    return [f] if f else []


def _delete_block_entry(src: _Src, key: Range) -> TextEdit | None:
    """Delete a block entry by indentation: its key line and the deeper lines after it
    (trailing blank and comment lines stay with what follows)."""
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
    return src.delete_lines(line, last)


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


_HANDLERS: dict[str, Callable[[_Ctx, Diagnostic], list[Fix]]] = {
    "RW002": _duplicate_fixes,
    "RW102": _unknown_key_fixes,
    "RW120": _unknown_kind_fixes,
    "RW130": _size_fixes,
    "RW131": _undeclared_env_fixes,
    "RW141": _reason_missing_fixes,
    "RW142": _reason_ground_fixes,
    "RW150": _uses_fixes,
    "RW152": _uses_fixes,
    "RW170": _cap_fixes,
}

__all__ = [
    "QUICKFIX",
    "TOP_RESIZE",
    "FIT_CANDIDATES",
    "TextEdit",
    "Fix",
    "Downsize",
    "fixes_for",
    "resized_plan",
    "cheaper_sizes",
    "fit_under_cap",
    "resize_edits",
    "scale_edits",
    "fewer_tasks",
    "smallest_total",
    "guess_kind",
    "kind_hint",
]
