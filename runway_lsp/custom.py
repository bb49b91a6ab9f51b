"""The server's custom messages for the VS Code extension's cost views (docs/protocol.md).

A thin adapter (docs/architecture.md §2) over the analysis the server already keeps: the planner's
per-environment totals and plan JSON (:func:`runway_core.planner.environment_json`, the same
JSON as ``runway-deploy plan --format json``, docs/cli.md).

- ``runway/costs`` (request, params ``{uri, environment?}``): every environment's total
  against its cap for the runway group of ``uri`` (a member is priced with its root), and the
  selected environment: ``environment`` when it names one, else the
  ``runway.inlayHints.environment`` setting when it names one, else the first.
- ``runway/plan`` (request, params ``{uri}``): the plan JSON of every environment
  (``format_version``, product, region, catalogue, ``environments[]`` with their items and
  line items), plus the group's URIs and diagnostic counts, for the plan view.
- Both answer ``editing``: the items whose size is being fixed (a size the catalogue lacks,
  RW130, on an item whose size was known): they keep their last complete cost, and the
  totals and verdicts include it (runway_lsp/held.py); their RW130 is not counted in
  ``errors``.
- ``runway/costsChanged`` (notification, server to client, params ``{uri, uris}``): sent
  after the diagnostics of a group are published, when what ``runway/costs`` or
  ``runway/plan`` answer for it changed since the last notification for that group (and the
  first time a group is published while one of its files is open). ``uri`` is the group's
  root runway, ``uris`` every file of the group. Only to a client that opted in with
  ``initializationOptions`` ``{"runwayCostNotifications": true}`` (the VS Code extension
  does): another client would not know the method (Neovim logs each unknown notification).

A ``uri`` that is not an absolute ``file:`` URI (:func:`runway_lsp.uris.request_file_uri`: another
scheme, relative, malformed, missing) is answered with InvalidParams (-32602) saying what a valid
one is. Otherwise requests never raise: a document that is not a runway, or a handler failure
(logged), gets ``{"environments": [], "environment": null}``. Must not import pulumi or
deploy_engine.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from runway_core.analysis import Analysis
from runway_core.diagnostics import Severity
from runway_core.money import cap_percent
from runway_core.planner import Plan, plan_json, shown_fields, shown_verdict

from .convert.messages import COSTS, COSTS_CHANGED, PLAN
from .guard import degrades
from .held import UNKNOWN_SIZE, Held
from .session import Session
from .settings import COST_NOTIFICATIONS_OPTION, SettingsManager
from .uris import NotAFileUri, path_to_uri, request_file_uri

log = logging.getLogger("runway_lsp.custom")

#: Error codes that never change what is priced (image digest, reason, variable names, over cap).
_ESTIMATE_KEEPING = frozenset({"RW140", "RW141", "RW143", "RW144", "RW170"})


def _money(value: Any) -> float | None:
    return None if value is None else round(float(value), 2)


def _params(params: Any) -> dict[str, Any]:
    """The params of a custom request as a dict (pygls passes unknown methods' params through
    as parsed JSON; an object with attributes is accepted too)."""
    if isinstance(params, dict):
        return params
    if params is None:
        return {}
    return {k: getattr(params, k) for k in ("uri", "environment") if hasattr(params, k)}


def _uri(p: dict[str, Any]) -> str:
    """The request's ``uri``, checked by the one rule (:func:`runway_lsp.uris.request_file_uri`);
    InvalidParams (-32602) with its sentence otherwise (pygls answers a JsonRpcException raised
    by a handler as the error, and :func:`~runway_lsp.guard.degrades` lets it through)."""
    try:
        return request_file_uri(p.get("uri"))
    except NotAFileUri as exc:
        raise JsonRpcInvalidParams(f"Invalid params: {exc}") from None


def _analysis(session: Session, uri: Any) -> Held | None:
    """What the cost views show for the group of ``uri``: its analysis, with the last
    complete cost of each item whose size is being fixed (runway_lsp/held.py); None for a
    file that is neither open nor named like a runway (never read a file the client did not
    give us)."""
    if not isinstance(uri, str) or not uri:
        return None
    path = session.documents.request_path(uri)  # the one read rule of every request
    if path is None:
        return None
    an = session.analysis_for(path)
    return session.held(session.group_of(path), an)


def _selected(settings: SettingsManager, an: Analysis, wanted: Any) -> str | None:
    if isinstance(wanted, str) and wanted in an.plans:
        return wanted
    setting = settings.current.inlay_hints_environment
    if isinstance(setting, str) and setting in an.plans:
        return setting
    return next(iter(an.plans), None)


def costs(session: Session, settings: SettingsManager, params: Any) -> dict[str, Any]:
    """The ``runway/costs`` answer (see the module docstring). USD per month."""
    p = _params(params)
    uri = _uri(p)
    found = _analysis(session, uri)
    if found is None:
        return {"uri": uri, "root_uri": None, "product": None, "environments": [], "environment": None, "complete": False, "errors": 0, "editing": []}
    an = found.an
    envs = []
    for plan in an.plans.values():
        envs.append(
            {
                "name": plan.name,
                "total_monthly_usd": _money(plan.total),
                "cap_monthly_usd": _money(plan.cap),
                # the verdict `runway-deploy plan` shows (one rule: runway_core/planner/verdict.py)
                "verdict": shown_verdict(plan),
                "percent": cap_percent(plan.total, plan.cap),
                # a lower bound when a unit price is missing for the region (RW161)
                "missing_prices": bool(plan.missing_prices),
            }
        )
    return {
        "uri": uri,
        "root_uri": path_to_uri(an.root_file),
        "product": an.spec.product if an.spec is not None else None,
        "environments": envs,
        "environment": _selected(settings, an, p.get("environment")),
        # errors that may drop items from the plan (an unknown size or kind): totals are then
        # lower bounds; the over-cap verdict and workload-only checks leave the estimate whole
        # (an unknown size on an item that keeps its last complete cost drops nothing)
        "errors": (errors := sum(1 for ds in an.diagnostics.values() for d in ds if d.severity == Severity.ERROR and d.code not in _ESTIMATE_KEEPING and not _held_error(found, d))),
        "complete": errors == 0 and not any(plan.missing_prices for plan in an.plans.values()),
        # items whose size is being fixed: their last complete cost is in the totals
        "editing": list(found.editing),
    }


def _held_error(held: Held, d: Any) -> bool:
    return d.code == UNKNOWN_SIZE and held.held_error(d.file, d.range.start.line, d.data)


def plan(session: Session, settings: SettingsManager, params: Any) -> dict[str, Any]:
    """The ``runway/plan`` answer: :func:`runway_core.planner.plan_json` of every environment
    with ``uri``, ``root_uri``, ``uris``, ``environment`` (selected) and ``diagnostics``
    (counts by severity over the group)."""
    p = _params(params)
    uri = _uri(p)
    found = _analysis(session, uri)
    if found is None:
        return {"uri": uri, "root_uri": None, "product": None, "region": None, "environments": [], "environment": None, "uris": [], "diagnostics": _counts(None), "editing": []}
    an = found.an
    spec = an.spec
    plans = tuple(an.plans.values())
    doc = plan_json(Plan(spec.product if spec else None, spec.region if spec else None, plans, an.catalog.origin))  # type: ignore[arg-type]
    for env, env_doc in zip(plans, doc["environments"]):
        env_doc.update(shown_fields(env))  # as `plan --format json` (deploy_engine/cli/formats/json.py)
    doc.update(
        uri=uri,
        root_uri=path_to_uri(an.root_file),
        uris=[path_to_uri(f) for f in an.files],
        environment=_selected(settings, an, p.get("environment")),
        diagnostics=_counts(an),
        editing=list(found.editing),
    )
    return doc


def _counts(an: Analysis | None) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "information": 0, "hint": 0}
    if an is None:
        return out
    for diags in an.diagnostics.values():
        for d in diags:
            out[Severity(d.severity).label] += 1
    return out


def _signature(an: Analysis) -> tuple:
    """Everything the cost views show for a group (plans, caps, verdicts), compared by value.

    The plans are frozen dataclasses, so ``==`` on this tuple is ``==`` on every field that
    :func:`environment_json` renders; it costs a comparison, not a JSON rendering and a hash
    of every line item after each keystroke (issue 6), and unchanged items compare by
    identity (the planner reuses them)."""
    return (an.root_file, tuple((p.name, p.cap, p.cap_source, p.total, p.verdict, p.missing_prices, p.notes, p.items, p.unpriced) for p in an.plans.values()))


class CostsNotifier:
    """Sends ``runway/costsChanged`` after a group's diagnostics are published."""

    def __init__(self, session: Session, settings: SettingsManager) -> None:
        self.session = session
        self.settings = settings
        self._sent: dict[str, tuple] = {}  # group key -> signature last notified

    def opted_in(self) -> bool:
        """True when the client asked for ``runway/costsChanged`` (initializationOptions)."""
        options = self.settings.init_options
        return isinstance(options, dict) and options.get(COST_NOTIFICATIONS_OPTION) is True

    def after_publish(self, key: str) -> None:
        ls = self.session
        if not self.opted_in():
            return
        if ls.analyses.cached(key) is None:
            self._sent.pop(key, None)  # the group was dropped: nothing of it is open
            return
        an = ls.analysis(key)
        if not any(p in ls.documents for p in an.files):
            self._sent.pop(key, None)
            return
        held = ls.held(key, an)  # what the views show: an item being fixed keeps its cost
        sig = (_signature(held.an), held.editing)
        if self._sent.get(key) == sig:
            return
        self._sent[key] = sig
        ls.client.protocol.notify(COSTS_CHANGED, {"uri": path_to_uri(an.root_file), "uris": [path_to_uri(f) for f in an.files]})


@degrades(COSTS, lambda: {"environments": [], "environment": None})
def costs_request(session: Session, settings: SettingsManager, params: Any) -> dict[str, Any]:
    """The ``runway/costs`` handler: :func:`costs`, degrading to an empty answer."""
    return costs(session, settings, params)


@degrades(PLAN, lambda: {"environments": [], "environment": None})
def plan_request(session: Session, settings: SettingsManager, params: Any) -> dict[str, Any]:
    """The ``runway/plan`` handler: :func:`plan`, degrading to an empty answer."""
    return plan(session, settings, params)


__all__ = ["COSTS", "PLAN", "COSTS_CHANGED", "CostsNotifier", "costs", "plan", "costs_request", "plan_request"]
