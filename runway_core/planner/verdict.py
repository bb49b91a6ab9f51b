"""The verdict of an environment's plan: one rule for the planner, the editor and the CLI.

Two levels, both here so that no caller computes its own (issue 23: the server's status bar
and ``runway/plan`` once said ``ok`` where ``runway-deploy plan`` said ``invalid``):

- :func:`cap_verdict`: the planner's verdict, stored in :attr:`EnvironmentPlan.verdict` (and
  in the plan digest): ``no-cap`` without a cap, else ``over-cap`` when the total is over it
  (a lower bound over the cap is over it whatever is missing), else ``unpriced`` when a price
  is missing for the region or an item's kind has no price (the cap cannot be checked: fail
  closed, ADR 0493 §3), else ``ok``. Used by :func:`runway_core.planner.plan_environment` and
  by the editor's held costs (runway_lsp/held.py), which re-total a plan.
- :func:`shown_verdict`: what every view shows (``plan`` in every format, ``runway/plan``,
  ``runway/costs``, the status bar): the planner's, except ``invalid`` when an item is not
  estimated (:func:`not_estimated`: an unknown size, RW130, counts as $0; so does a definition
  the analysis dropped, such as a workload with a schema error or a kind typo) and the planner's
  would pass (``ok``, ``no-cap``): a lower bound under the cap proves nothing. A refusal
  (``over-cap``, ``unpriced``) stays: it holds for a lower bound.

Pure: no I/O. Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from .items import EnvironmentPlan, ItemPlan

#: :func:`shown_verdict`'s values: the planner's (:data:`~runway_core.planner.VERDICTS`) and ``invalid``.
SHOWN_VERDICTS: tuple[str, ...] = ("ok", "over-cap", "unpriced", "no-cap", "invalid")


def cap_verdict(cap: Decimal | None, total: Decimal, missing_prices: bool, items: Iterable["ItemPlan"] = ()) -> str:
    """The planner's verdict of a total (USD per month) against ``cap`` (None: no cap);
    ``missing_prices``: a unit price is missing for the region; ``items``: the environment's
    items (one with ``estimated`` False, a kind without prices, makes the cap uncheckable).
    One of ``ok``, ``over-cap``, ``unpriced``, ``no-cap``. Never raises."""
    if cap is None:
        return "no-cap"
    if total > cap:
        return "over-cap"
    if missing_prices or any(not i.estimated for i in items):
        return "unpriced"
    return "ok"


def not_estimated(p: "EnvironmentPlan") -> tuple[str, ...]:
    """The names of the items of ``p`` the planner could not estimate at all: no line item and
    no missing price (an unknown size, RW130: "not in the catalogue; not estimated"), or a kind
    with no price (``estimated`` False, RW122); then the labels of the definitions the analysis
    could not price (:attr:`EnvironmentPlan.unpriced`: a workload with a schema error, an
    unknown kind, a definition a duplicate key hides). They count as $0: the total is a lower
    bound (as ``diff``'s ``not_estimated``, docs/cli.md)."""
    items = tuple(i.name for i in p.items if not i.estimated or (not i.line_items and not i.missing_prices))
    return items + tuple(label for label, _why in p.unpriced) if p.unpriced else items


def shown_verdict(p: "EnvironmentPlan") -> str:
    """The verdict every view shows (module docstring): ``p.verdict``, or ``invalid`` when an
    item is not estimated and ``p.verdict`` is ``ok`` or ``no-cap``."""
    return "invalid" if p.verdict in ("ok", "no-cap") and not_estimated(p) else p.verdict


def shown_fields(p: "EnvironmentPlan") -> dict[str, Any]:
    """What a plan JSON environment document (:func:`~runway_core.planner.environment_json`,
    whose ``verdict`` is the planner's and is what the digest covers) gets on top, for showing:
    ``{"verdict": shown_verdict(p)}``, with ``"not_estimated": [names]`` when some are. The
    CLI's ``plan --format json`` and the server's ``runway/plan`` both apply it."""
    unknown = not_estimated(p)
    return {"verdict": shown_verdict(p), "not_estimated": list(unknown)} if unknown else {"verdict": p.verdict}


__all__ = ["SHOWN_VERDICTS", "cap_verdict", "not_estimated", "shown_verdict", "shown_fields"]
