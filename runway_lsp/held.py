"""Costs held while a size is being fixed (issue 26, "calm while fixing").

While a size is retyped (``size: medium`` -> ``s`` -> ``sm`` ... -> ``small``) every
keystroke in between names a size the catalogue lacks (RW130): the planner keeps the item
with no size and $0 (:func:`runway_core.planner.plan`), so the lenses showed "—", the plan
view $0 and the status bar a lower bound, a new figure on each key ($159 -> ≥$127 -> $135).

The cost views show instead, for such an item, its last complete cost: the
:class:`~runway_core.planner.items.ItemPlan` it had in the same environment the last time
its size was known, marked as being edited; the environment's total and verdict are those of
that plan. So the figures change once, when the size is complete again. What is held is what
the views show, never what is deployed: the CLI and the diagnostics (RW130 still says the size
is unknown, after the typing pause) read the real text.

Held items are named in :meth:`HeldCosts.view`'s answer; the RW130 diagnostics on their
entries are then not counted as errors that make the estimate a lower bound (their cost is
the one held, not missing). Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from runway_core.facts import Analysis
from runway_core.planner.items import EnvironmentPlan, ItemPlan
from runway_core.planner.verdict import cap_verdict

#: The code of a size the catalogue lacks: the one a half-typed size raises.
UNKNOWN_SIZE = "RW130"


@dataclasses.dataclass(frozen=True)
class Held:
    """The analysis the cost views show (``an``: the real one, or a copy whose plans hold the
    last complete cost of each item being edited) and the names of those items, sorted."""

    an: Analysis
    editing: tuple[str, ...] = ()
    #: (environment, item) of every cost held.
    pairs: frozenset[tuple[str, str]] = frozenset()

    def held_error(self, file: str, line: int, data: Any = None) -> bool:
        """Whether an RW130 at ``line`` (0-based) of ``file`` (``data``: its diagnostic data,
        runway_core/rules/kinds.py) is the size of a held item: an environment's
        ``shared.<kind>`` whose ``shared-<kind>`` is held there, else the entry whose
        declaring key is the nearest at or above the line."""
        if not self.editing:
            return False
        if isinstance(data, dict) and isinstance(data.get("environment"), str) and (data["environment"], f"shared-{data.get('kind')}") in self.pairs:
            return True
        best: tuple[int, str] | None = None
        for sym in self.an.symbols.values():
            if sym.file == file and sym.range is not None and sym.range.start.line <= line:
                if best is None or sym.range.start.line > best[0]:
                    best = (sym.range.start.line, sym.name)
        return best is not None and best[1] in self.editing


class HeldCosts:
    """The last complete cost of every item per group, and the held view of an analysis."""

    def __init__(self) -> None:
        # group key -> (env, item) -> the item's plan the last time its size was known
        self._sized: dict[str, dict[tuple[str, str], ItemPlan]] = {}
        self._memo: dict[str, tuple[Analysis, Held]] = {}  # group key -> (real analysis, view)

    def forget(self, key: str | None = None) -> None:
        """Forget group ``key`` (all when None): closed, or priced with another catalogue."""
        if key is None:
            self._sized.clear()
            self._memo.clear()
        else:
            self._sized.pop(key, None)
            self._memo.pop(key, None)

    def view(self, key: str, an: Analysis) -> Held:
        """What the cost views of group ``key`` show for analysis ``an`` (the same object
        answers while ``an`` is the group's analysis)."""
        hit = self._memo.get(key)
        if hit is not None and hit[0] is an:
            return hit[1]
        held = self._hold(key, an)
        self._memo[key] = (an, held)
        return held

    def _hold(self, key: str, an: Analysis) -> Held:
        if not an.plans:
            return Held(an)
        known = self._sized.get(key, {})
        sized: dict[tuple[str, str], ItemPlan] = {}
        plans: dict[str, EnvironmentPlan] = {}
        editing: set[str] = set()
        pairs: set[tuple[str, str]] = set()
        for env, plan in an.plans.items():
            items = []
            for item in plan.items:
                if item.size is not None:
                    sized[(env, item.name)] = item
                    items.append(item)
                    continue
                last = known.get((env, item.name))
                if last is not None and last.kind == item.kind:
                    sized[(env, item.name)] = last  # held until the size is whole again
                    items.append(last)
                    editing.add(item.name)
                    pairs.add((env, item.name))
                else:
                    items.append(item)
            if any(a is not b for a, b in zip(items, plan.items)):
                total = sum((i.monthly_usd for i in items), Decimal("0.00"))
                plans[env] = dataclasses.replace(plan, items=tuple(items), total=total, verdict=cap_verdict(plan.cap, total, bool(plan.missing_prices), items))
            else:
                plans[env] = plan
        self._sized[key] = sized
        if not editing:
            return Held(an)
        return Held(dataclasses.replace(an, plans=plans), tuple(sorted(editing)), frozenset(pairs))


__all__ = ["Held", "HeldCosts", "UNKNOWN_SIZE"]
