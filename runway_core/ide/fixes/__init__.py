"""Quick fixes: the minimal text edits that resolve a diagnostic, as one pure query.

:func:`fixes_for` takes an :class:`~runway_core.analysis.Analysis`, a file, and either the
diagnostics a client sent back (matched to the analysis's own by code and range, then by
message) or a range (every diagnostic of the file touching it). It returns :class:`Fix`
values: a title, the core diagnostic fixed, and :class:`TextEdit` lists per file in the core's
positions (code points; the language server converts them once, docs/architecture.md §3-4).

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
  dev to small — saves $103.19/month, dev total becomes $111.24") and, for a workload running
  more than one task there, fewer tasks ("Scale metabase in dev to 3 tasks — saves ...": one
  task fewer, and the fewest that fit the cap alone, else one task); plus one preferred "Fit
  ENV under its cap" fix (see :func:`runway_core.whatif.fit_under_cap`: sizes and task counts), offered only
  when some set of changes fits. Each choice is priced on its own
  (:func:`runway_core.planner.entry_cost`: an entry's cost does not depend on the others;
  fewer internal tasks also save their Cloud Map registrations), so titles need no re-plan;
  the fit is re-planned once to confirm. When nothing fits, the environment's hover says the
  smallest total it can reach (:func:`runway_core.whatif.smallest_total`).
- RW150/RW152 unknown ``uses`` item: the closest names (difflib, up to three; the rule's
  suggestion preferred) and "Create resource `NAME`" (a skeleton at the end of the root's
  ``resources``, kind guessed from the name, see :func:`guess_kind`; without a hint in the
  name it is postgres, and the title says "(kind: postgres — change as needed)"); none for a
  name that is no DNS label (RW110) or that RW111 reserves (`alb`, `shared-queue`…).
- RW141 missing reason: "Add reason: GROUND" for each of the three grounds.
- RW142 reason without a ground: "Prefix reason with GROUND" for each ground.
- RW102 unknown key: rename to the suggested key (preferred) and other close keys, never to a
  key the mapping already has.
- RW120 unknown kind: the suggested kind. RW164 not an AWS region: "Change region to
  `eu-west-1`" (the suggested region). RW131 size/scale for an undeclared environment:
  rename to the suggested environment, "Declare environment ENV" and "Remove the ENV entry".
- RW002 duplicate key: delete the second entry; a second top-level section (``resources:``
  twice) is first offered merged into the first when no name collides, and its delete
  names its entries and lines.
- RW006 tab indentation: "Replace tabs with spaces" on the diagnosed line (preferred) and,
  when more lines are tab-indented, "Replace tabs with spaces in the whole file (N lines)";
  one tab width for the file, chosen so the line lands where its block expects it, and each
  fix checked by re-parsing the fixed text (:mod:`.tabs`).
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

The package: :mod:`._source` (minimal edits of one file's text), :mod:`._context` (the
fix being built, the node a diagnostic points at), and one module per family of fixes:
:mod:`.costs` (RW130, RW170), :mod:`.references` (RW150/RW152), :mod:`.reasons`
(RW141/RW142), :mod:`.keys` (RW002, RW102, RW120, RW131, RW164), :mod:`.tabs` (RW006). :data:`_HANDLERS` maps each code
to its fixes. Prices of choices come from :mod:`runway_core.whatif`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, Iterable

from ...diagnostics import Diagnostic
from ...positions import Range
from .._edit import TextEdit
from ._context import CLOSE_NAMES, QUICKFIX, Fix, _Ctx
from .costs import TOP_RESIZE, _cap_fixes, _size_fixes, resize_edits, scale_edits
from .keys import _duplicate_fixes, _region_fixes, _undeclared_env_fixes, _unknown_key_fixes, _unknown_kind_fixes
from .reasons import _reason_ground_fixes, _reason_missing_fixes
from .references import KIND_HINTS, _uses_fixes, guess_kind, kind_hint
from .tabs import _tab_fixes

if TYPE_CHECKING:
    from ...facts import Analysis


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
        except Exception:  # noqa: BLE001 - docs/architecture.md §7: a fix is never worth a crash
            continue
    return out


_HANDLERS: dict[str, Callable[[_Ctx, Diagnostic], list[Fix]]] = {
    "RW002": _duplicate_fixes,
    "RW006": _tab_fixes,
    "RW102": _unknown_key_fixes,
    "RW120": _unknown_kind_fixes,
    "RW130": _size_fixes,
    "RW131": _undeclared_env_fixes,
    "RW141": _reason_missing_fixes,
    "RW142": _reason_ground_fixes,
    "RW150": _uses_fixes,
    "RW152": _uses_fixes,
    "RW164": _region_fixes,
    "RW170": _cap_fixes,
}

__all__ = [
    "QUICKFIX",
    "TOP_RESIZE",
    "CLOSE_NAMES",
    "KIND_HINTS",
    "TextEdit",
    "Fix",
    "fixes_for",
    "resize_edits",
    "scale_edits",
    "guess_kind",
    "kind_hint",
]
