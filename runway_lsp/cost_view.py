"""Cost in view over LSP: code lenses, inlay hints, cost deltas and their refreshes.

A thin adapter (docs/architecture.md §2) over :mod:`runway_core.ide.lenses` and
:mod:`runway_core.baseline`; its protocol values are built by :mod:`runway_lsp.convert.cost`.

- ``textDocument/codeLens`` (no resolve): the lenses of the root runway. LSP shows a lens
  only through a ``Command``; each carries :data:`SHOW_COST`, a command this server
  registers for ``workspace/executeCommand``. It changes nothing: it returns the plan JSON of
  the environment (``runway-deploy plan --format json``'s ``environments[]`` entry,
  docs/cli.md) or, for a resource or workload, that item in every environment. An editor
  that runs it on a click simply gets data back.
- ``textDocument/inlayHint`` (no resolve): costs after size values, share of the cap after
  ``limits.monthly``. A single size (``size: medium``) is priced in the environment of the
  ``runway.inlayHints.environment`` setting; an unknown name falls back to the first
  environment with one warning (``window/showMessage``).
- Deltas: the lenses and environment hovers compare with the runway as last saved (the
  disk) and at git HEAD (:class:`runway_core.baseline.BaselineStore`), unless
  ``runway.costDelta.enabled`` is false; computed off the event loop, a request waiting a
  bounded time for them (runway_lsp/baselines.py).
- While typing breaks the YAML (a syntax error: the analysis of the real text is partial and
  plans nothing), lenses, hints and hovers come from a tolerant analysis: the same text with
  the offending line blanked (:func:`runway_core.analysis.tolerant_text`; positions hold),
  else from the last analysis of the group that parsed, its lines mapped onto the current
  text (:class:`runway_core.positions.LineMap`; lines changed since are left without). So
  costs stay in view while a key is half typed; diagnostics still come from the real text.
- Refresh (LSP 3.17 §"Code Lens Refresh Request", §"Inlay Hint Refresh Request"): after
  diagnostics are published, when what lenses or hints show changed (a member edit changes
  the root's lenses; a save changes "since save"), the server sends
  ``workspace/codeLens/refresh`` and ``workspace/inlayHint/refresh`` to clients that support
  them; also after a settings change.

- ``textDocument/hover``: costs (with "+$103.19/mo vs HEAD"), also while a syntax error is
  being typed.

Handlers catch, log and return an empty result. Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from typing import Any

from lsprotocol import types

from runway_core.analysis import Analysis, tolerant_analysis
from runway_core.baseline import Baselines, BaselineStore
from runway_core.ide.hover import HoverResult, hover_at
from runway_core.ide.lenses import Hint, Lens, code_lenses, inlay_hints
from runway_core.planner import environment_json
from runway_core.positions import LineIndex, LineMap, Position, Range

from . import convert
from .baselines import BaselineJobs
from .convert import redacted
from .convert.cost import SHOW_COST, to_code_lens, to_inlay_hint
from .guard import degrades
from .session import Session, log_failure
from .settings import Settings, SettingsManager
from .uris import NotAFileUri, request_file_uri, unopenable_uri, uri_to_path

log = logging.getLogger("runway_lsp.cost_view")

#: The command of every lens (see the module docstring); arguments ``[uri, data]`` with
#: ``data`` ``{"env": name}`` or ``{"name": item}``.


# --- what is shown while the text does not parse ----------------------------------------------


class View:
    """The analysis the cost view shows for a group (``an``) and how its positions map onto
    the current text of each file: the same positions for the current analysis or a tolerant
    one; a :class:`LineMap` per file for the last analysis that parsed (``current`` is the
    analysis of the real text)."""

    def __init__(self, an: Analysis, current: Analysis | None = None, editing: tuple[str, ...] = ()) -> None:
        self.an = an
        self.editing = editing  # items whose size is being fixed: their last complete cost (runway_lsp/held.py)
        self._current = current
        self._maps: dict[str, LineMap | None] = {}

    @property
    def shifted(self) -> bool:
        return self._current is not None

    def _map(self, path: str) -> LineMap | None:
        if path not in self._maps:
            old, new = self.an.files.get(path), self._current.files.get(path) if self._current else None
            self._maps[path] = LineMap(old.parsed.lines, new.parsed.lines) if old is not None and new is not None else None
        return self._maps[path]

    def range(self, path: str, rng: Range) -> Range | None:
        """``rng`` (positions of ``an``) on the current text; None when its lines changed."""
        if self._current is None:
            return rng
        m = self._map(path)
        return m.range_to_new(rng) if m is not None else None

    def position(self, path: str, pos: Position) -> Position | None:
        """A position of the current text in ``an``'s positions; None when its line changed."""
        if self._current is None:
            return pos
        m = self._map(path)
        return m.position_to_old(pos) if m is not None else None


#: What a lens of an item whose size is being fixed adds to its title (runway_lsp/held.py);
#: the status bar and the plan view say the same (docs/features.md, "Calm while fixing").
EDITING = "editing: last complete cost"


def _mark_editing(lenses: list[Lens], editing: tuple[str, ...]) -> list[Lens]:
    """``lenses`` with the cost lens of each item in ``editing`` marked (its first lens)."""
    if not editing:
        return lenses
    out, marked = [], set()
    for lens in lenses:
        name = lens.data.get("name")
        if name in editing and name not in marked:
            marked.add(name)
            tip = "the size is being edited: this is its last complete cost"
            lens = dataclasses.replace(lens, title=f"{lens.title} · {EDITING}", tooltip=f"{tip}; {lens.tooltip}" if lens.tooltip else tip)
        out.append(lens)
    return out


#: What an environment lens adds while it shows the last analysis that parsed (a syntax error
#: no blanking repairs): the status bar says `(stale)` and the plan view a *stale:* banner too.
STALE = "stale"


def _mark_stale(lenses: list[Lens]) -> list[Lens]:
    """``lenses`` with each environment lens marked :data:`STALE` (its figures are the last plan's)."""
    tip = "stale: the runway has no plan right now (a YAML syntax error?), so this is the last estimate"
    return [
        dataclasses.replace(lens, title=f"{lens.title} · {STALE}", tooltip=f"{tip}; {lens.tooltip}" if lens.tooltip else tip) if "env" in lens.data else lens
        for lens in lenses
    ]


def _parses(an: Analysis) -> bool:
    return not any(f.parsed.partial for f in an.files.values())


def cost_json(an: Analysis, data: dict) -> Any:
    """What :data:`SHOW_COST` answers for ``data`` on analysis ``an``: the plan JSON of
    environment ``{"env": name}``, or item ``{"name": item}`` in every environment; None
    when neither is there."""
    env = data.get("env")
    if isinstance(env, str) and env in an.plans:
        return environment_json(an.plans[env])
    name = data.get("name")
    if isinstance(name, str):
        per_env = {}
        for e, plan in an.plans.items():
            for item in environment_json(plan)["items"]:
                if item["name"] == name:
                    per_env[e] = item
        return {"name": name, "environments": per_env} if per_env else None
    return None


# --- state -----------------------------------------------------------------------------------


class CostView:
    """Baselines, refresh bookkeeping and warnings of one server session."""

    def __init__(self, session: Session, settings: SettingsManager, store: BaselineStore | None = None) -> None:
        self.session = session
        self.settings = settings
        #: The baselines of the deltas, computed off the loop (runway_lsp/baselines.py).
        self.deltas = BaselineJobs(session, settings, store)
        self.deltas.landed.append(self._baselines_landed)
        self._signatures: dict[str, Any] = {}  # group key -> what its lenses and hints showed
        self._refresh_pending = False
        self._warned_envs: set[str] = set()
        self._views: dict[str, tuple[Analysis, View]] = {}  # group key -> (real analysis, view)
        self._good: dict[str, Analysis] = {}  # group key -> last analysis that parsed and planned

    def view(self, key: str) -> View:
        """What lenses, hints and hovers of group ``key`` show (see the module docstring)."""
        ls = self.session
        an = ls.analysis(key)
        if _parses(an):
            held = ls.held(key, an)  # an item whose size is being fixed keeps its cost
            if an.plans:
                self._good[key] = held.an
            return View(held.an, editing=held.editing)
        hit = self._views.get(key)
        if hit is not None and hit[0] is an:
            return hit[1]
        tolerant = tolerant_analysis(an, ls.read_live)
        if tolerant is not None and tolerant.plans:
            held = ls.held(key, tolerant)
            view = View(held.an, editing=held.editing)
        elif key in self._good:
            view = View(self._good[key], current=an)
        else:
            view = View(an)
        self._views.pop(key, None)
        self._views[key] = (an, view)
        return view

    # --- queries ----------------------------------------------------------------------------

    def baselines(self, key: str, submit: bool = True) -> Baselines | None:
        """The saved and HEAD baselines of group ``key`` known now (None when deltas are off or
        none was computed yet); never waits, never runs git here (runway_lsp/baselines.py)."""
        return self.deltas.known(key, submit)

    def _baselines_landed(self, key: str) -> None:
        """Baselines no request waited for landed: lenses showing deltas are refreshed."""
        if key in self._signatures:
            self.schedule_refresh()

    def stop(self) -> None:
        """The session stopped: the baselines worker and its git calls too."""
        self.deltas.stop()

    def _lines(self, key: str, path: str, view: View) -> LineIndex | None:
        """The current text's lines of ``path`` (positions of a view are positions of it)."""
        cur = self.session.analysis(key).files.get(path)
        src = cur or view.an.files.get(path)
        return src.parsed.lines if src is not None else None

    def code_lenses(self, uri: str) -> list[types.CodeLens]:
        ls = self.session
        path = uri_to_path(uri)
        key = ls.group_of(path)
        view = self.view(key)
        an = view.an
        src = an.files.get(path)
        lines = self._lines(key, path, view)
        if src is None or src.role not in ("root", "member") or lines is None:
            return []
        lenses = _mark_editing(code_lenses(an, path, self.baselines(key, submit=False)), view.editing)
        if view.shifted:
            lenses = _mark_stale(lenses)
        self.served(key)
        out = []
        for lens in lenses:
            rng = view.range(path, lens.range)
            if rng is not None:
                out.append(to_code_lens(lens if rng == lens.range else dataclasses.replace(lens, range=rng), uri, lines, ls.encoding, SHOW_COST))
        return redacted.lenses(out)  # redacted here, not walked again at send

    def inlay_hints(self, uri: str, rng: types.Range) -> list[types.InlayHint]:
        ls = self.session
        path = uri_to_path(uri)
        key = ls.group_of(path)
        view = self.view(key)
        an = view.an
        src = an.files.get(path)
        lines = self._lines(key, path, view)
        if src is None or src.role not in ("root", "member") or not an.plans or lines is None:
            return []
        env = self._hint_environment(an, self.settings.current)
        wanted = convert.from_range(rng, lines, ls.encoding)
        hints = inlay_hints(an, path, None if view.shifted else wanted, env)
        self.served(key)
        out = []
        for h in hints:
            at = view.range(path, Range(h.position, h.position))
            if at is not None and wanted.start <= at.start <= wanted.end:
                out.append(to_inlay_hint(h if at.start == h.position else dataclasses.replace(h, position=at.start), lines, ls.encoding))
        return redacted.hints(out)  # redacted here, not walked again at send

    def hover(self, path: str, pos: Position) -> HoverResult | None:
        """The hover at ``pos`` (code points of the current text of ``path``): from the view
        while the text does not parse (names and sizes keep their costs), else, or when the
        view has nothing there, from the analysis of the real text."""
        ls = self.session
        key = ls.group_of(path)
        baseline = self.baselines(key, submit=False)
        view = self.view(key)
        an = ls.analysis(key)
        if view.an is not an:
            at = view.position(path, pos)
            result = hover_at(view.an, path, at, baseline=baseline) if at is not None else None
            rng = view.range(path, result.range) if result is not None else None
            if result is not None and rng is not None:
                return result if rng == result.range else dataclasses.replace(result, range=rng)
        return hover_at(an, path, pos, baseline=baseline)

    def _hint_environment(self, an: Any, settings: Settings) -> str | None:
        wanted = settings.inlay_hints_environment
        if wanted is None or wanted in an.plans:
            return wanted
        first = next(iter(an.plans))
        if wanted not in self._warned_envs:
            self._warned_envs.add(wanted)
            self.settings.warn(
                f"runway settings: `runway.inlayHints.environment` is {wanted!r}, which is not an environment of "
                f"{os.path.basename(os.path.dirname(an.root_file)) or an.root_file} ({', '.join(an.plans)}); inlay hints use {first}."
            )
        return first

    def show_cost(self, uri: Any, data: Any) -> Any:
        """The :data:`SHOW_COST` command: plan JSON of an environment, or an item in every
        environment; None for arguments it does not understand, for a ``uri`` that is not
        an absolute ``file:`` URI (the rule of the custom requests,
        :func:`runway_lsp.uris.request_file_uri`) or whose path is past PATH_MAX/NAME_MAX
        (no folder is walked for it: eighth adversary F4, ~20 s of the message loop), and for a
        document never read (neither open nor named like a runway:
        :meth:`runway_lsp.documents.Buffers.request_path`)."""
        if not isinstance(uri, str) or not isinstance(data, dict):
            return None
        try:
            request_file_uri(uri)
        except NotAFileUri as exc:
            log.warning("runway.showCost: %s; answered with null", exc)
            return None
        if unopenable_uri(uri):
            log.warning("runway.showCost: the document's path is longer than the OS opens (PATH_MAX 4096, NAME_MAX 255); answered with null")
            return None
        path = self.session.documents.request_path(uri)
        if path is None:
            return None  # never read (runway_lsp.documents.Buffers.request_path)
        return cost_json(self.view(self.session.group_of(path)).an, data)

    # --- refresh ----------------------------------------------------------------------------

    def _signature(self, key: str) -> Any:
        view = self.view(key)
        an = view.an
        plans = tuple(
            (p.name, p.total, p.cap, p.verdict, p.unpriced, tuple((i.name, i.size, i.monthly_usd, i.consumers) for i in p.items)) for p in an.plans.values()
        )
        b = self.baselines(key)
        totals = None
        if b is not None:
            totals = tuple(tuple((e, p.total) for e, p in base.items()) if base is not None else None for base in (b.saved, b.head))
        return plans, totals, view.editing  # a lens marks an item being edited (runway_lsp/held.py)

    def served(self, key: str) -> None:
        """Note what the lenses and hints of group ``key`` showed the client just now."""
        if self._lens_refresh() or self._hint_refresh():
            self._signatures[key] = self._signature(key)

    def after_publish(self, key: str) -> None:
        """Called after diagnostics of group ``key`` were published: ask the client to
        refresh lenses and hints when what they show differs from what it was last served
        (a client that never asked is never asked to refresh)."""
        ls = self.session
        cached = ls.analyses.cached(key)  # never re-analyse a group publish_group just dropped
        if cached is not None and cached.plans and _parses(cached):
            # what stays in view if the next keystroke breaks the YAML; held() also notes the
            # sizes now known, what an item keeps while its size is fixed (runway_lsp/held.py)
            self._good[key] = ls.held(key, cached).an
        previous = self._signatures.get(key)
        if previous is None:
            return
        if not any(p in ls.documents for p in ls.analysis(key).files):
            self._signatures.pop(key, None)
            self._views.pop(key, None)
            self._good.pop(key, None)
            ls.held_costs.forget(key)
            return
        sig = self._signature(key)
        if sig != previous:
            self._signatures[key] = sig
            self.schedule_refresh()

    def _capability(self, name: str) -> bool:
        try:
            ws = self.session.capabilities.workspace
            cap = getattr(ws, name, None) if ws is not None else None
            return bool(cap is not None and cap.refresh_support)
        except Exception:  # noqa: BLE001
            return False

    def _lens_refresh(self) -> bool:
        return self._capability("code_lens")

    def _hint_refresh(self) -> bool:
        return self._capability("inlay_hint")

    def schedule_refresh(self) -> None:
        """Send the refresh requests once, soon (several groups may change in one flush)."""
        if self._refresh_pending:
            return
        self._refresh_pending = True
        asyncio.get_running_loop().call_soon(self._refresh)

    def _refresh(self) -> None:
        self._refresh_pending = False
        ls = self.session
        try:
            if self._lens_refresh():
                ls.client.workspace_code_lens_refresh(None).add_done_callback(log_failure("workspace/codeLens/refresh"))
            if self._hint_refresh():
                ls.client.workspace_inlay_hint_refresh(None).add_done_callback(log_failure("workspace/inlayHint/refresh"))
        except Exception:  # noqa: BLE001
            log.exception("sending lens/hint refresh failed")

    def on_settings(self, old: Settings, new: Settings) -> None:
        self._warned_envs.clear()
        self.deltas.clear()
        self._signatures.clear()
        self._views.clear()
        self._good.clear()  # priced with the catalogue of the old settings
        # (the held costs stay: a new catalogue forgets them, Session.use_catalog; a setting that
        # selects an environment must not, or the next half-typed size has nothing to keep)
        if old != new:
            self.schedule_refresh()


    # --- the requests (runway_lsp/server.py registers them) ------------------------------------

    @degrades("textDocument/hover")
    async def hover_request(self, params: types.HoverParams) -> types.Hover | None:
        ls = self.session
        path = ls.documents.request_path(params.text_document.uri)
        if path is None:
            return None  # never read (runway_lsp.documents.Buffers.request_path)
        # The deltas' baselines off the loop (git, the product as saved): waited for a bounded
        # time, other messages served meanwhile (runway_lsp/baselines.py).
        await self.deltas.fresh(ls.group_of(path))
        with ls.analyses.memoised():  # a product's files checked once per request, not per lookup
            src = ls.analysis_for(path).files.get(path)
            if src is None:
                return None
            lines = src.parsed.lines
            result = self.hover(path, convert.from_position(params.position, lines, ls.encoding))
            return convert.to_hover(result, lines, ls.encoding) if result is not None else None

    @degrades("textDocument/codeLens", list)
    async def code_lens_request(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        current = await self.settings.ready()
        if not current.code_lens_enabled:
            return []
        path = self.session.documents.request_path(params.text_document.uri)
        if path is None:
            return []  # never read (runway_lsp.documents.Buffers.request_path)
        await self.deltas.fresh(self.session.group_of(path))
        return self.code_lenses(params.text_document.uri)

    @degrades("textDocument/inlayHint", list)
    async def inlay_hint_request(self, params: types.InlayHintParams) -> list[types.InlayHint]:
        current = await self.settings.ready()
        if not current.inlay_hints_enabled or self.session.documents.request_path(params.text_document.uri) is None:
            return []  # off, or never read (runway_lsp.documents.Buffers.request_path)
        return self.inlay_hints(params.text_document.uri, params.range)

    @degrades(SHOW_COST)
    def show_cost_command(self, *args: Any) -> Any:
        return self.show_cost(args[0] if args else None, args[1] if len(args) > 1 else None)


__all__ = ["SHOW_COST", "CostView", "View"]
