"""Cost changes against a baseline (:class:`runway_core.baseline.Baselines`) as text: the
``+$103.19/mo vs HEAD · −$3.00/mo since save`` of an environment's code lens and hover."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Mapping

from ..baseline import Baselines, cost_deltas
from ..money import cents, signed_usd
from ..planner import EnvironmentPlan
from ..positions import Position
from ._cursor import cursor_at

if TYPE_CHECKING:
    from ..facts import Analysis


def delta_parts(env: str, plans: Mapping[str, EnvironmentPlan], baseline: Baselines | None, keep_zero: bool = False) -> list[str]:
    """The delta texts of ``env``: ``+$103.19/mo vs HEAD`` then ``−$3.00/mo since save``.

    A zero change is left out unless ``keep_zero`` (then ``no change vs HEAD``).
    """
    if baseline is None or env not in plans:
        return []
    out: list[str] = []
    for base, what in ((baseline.head, "vs HEAD"), (baseline.saved, "since save")):
        if base is None:
            continue
        delta = cost_deltas({env: plans[env]}, {env: base[env]} if env in base else {})[env].total
        if cents(delta) != 0:
            out.append(f"{signed_usd(delta)}/mo {what}")
        elif keep_zero:
            out.append(f"no change {what}")
    return out


def with_cost_delta(an: "Analysis", file: str, pos: Position, result: Any, baseline: Baselines) -> Any:
    """``result`` (a :class:`runway_core.ide.hover.HoverResult`) with the environment's deltas
    (``+$103.19/mo vs HEAD · −$3.00/mo since save``) after its total line, when ``pos`` is on
    an environment key or its ``limits.monthly`` value (where the hover shows the total);
    ``result`` unchanged otherwise."""
    src = an.files.get(file)
    if src is None or src.role != "root" or src.parsed.root is None:
        return result
    cur = cursor_at(src.parsed.root, pos)
    parts = cur.parts if cur is not None else ()
    if len(parts) < 2 or parts[0] != "environments":
        return result
    on_key = cur.on_key
    env = str(parts[1])
    if not ((len(parts) == 2 and on_key) or (parts[2:] == ("limits", "monthly") and not on_key)):
        return result
    text = " · ".join(delta_parts(env, an.plans, baseline, keep_zero=True))
    if not text:
        return result
    lines = result.markdown.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("**")), len(lines) - 1)
    lines[at + 1 : at + 1] = ["", text]
    return dataclasses.replace(result, markdown="\n".join(lines))


__all__ = ["delta_parts", "with_cost_delta"]
