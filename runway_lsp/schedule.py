"""When a session publishes: the debounce of diagnostics after edits, and the idle garbage
collection (:class:`PublishSchedule`, owned by :class:`runway_lsp.session.Session`).

Pushes are debounced (:data:`DEBOUNCE_S`) and computed from the newest text: at publish time
each changed group is analysed on the event loop in steps of a few milliseconds
(:meth:`runway_lsp.analyses.Analyses.step`), and what arrived meanwhile is handled between two
steps: a completion typed right after a keystroke is answered before the rest of the previous
keystroke's analysis, not behind it (issue 16 item 10); an edit meanwhile drops the steps made
(they read an older text) and restarts the debounce. The publication itself is one
synchronous step, so no result computed for an older version is ever sent
(runway_lsp/publish.py). A big product
(runway_lsp/analyses.py) is analysed on the analysis thread instead; the paths whose
publication waits for it are published when its result lands (:meth:`PublishSchedule.landed`).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

log = logging.getLogger("runway_lsp")

#: Quiet time after the last edit before diagnostics are pushed, in seconds; it is part of
#: every keystroke's latency (issue 6). What it must coalesce is a burst an editor sends at
#: once (a multi-cursor edit, a paste and its reformat, an undo group): those messages arrive
#: within a millisecond or two (pygls reads each one through a thread hop of ~0.1 ms). Human
#: keystrokes come 80 ms or more apart even from fast typists, so no debounce shorter than
#: that coalesces them, and a longer one only delays every result; edits that arrive while an
#: analysis runs (key repeat) are coalesced anyway: analysis runs on the event loop and the
#: next flush reads the newest text. Measured: 40 ms -> 10 ms took ~30 ms off the median
#: didChange -> publishDiagnostics (benchmarks/RESULTS.md).
DEBOUNCE_S = 0.01

#: How long a publication gives way to edits (:meth:`PublishSchedule._publish`): once the
#: oldest change it carries has waited this long, in seconds, its analysis runs to the end in
#: one go, edits read meanwhile waiting, as before issue 16 item 10. Without it, a client that
#: types faster than one analysis (key repeat; 60 ms keystrokes on the 3,218-line benchmark
#: workspace, a fresh reviewer found) got no diagnostics until it paused. Longer than one
#: keystroke's analysis on that workspace (~45 ms) and the gap to the next keystroke.
PATIENCE_S = 0.15

#: With ``idle_gc`` (runway-lsp turns the cyclic garbage collector off, see __main__), garbage
#: in reference cycles is collected once no edit came for this many seconds, so that no
#: collection pauses typing (issue 6: they added ~10 ms to a completion right after a
#: keystroke). Analyses make no cycles; pygls and asyncio make a few.
IDLE_GC_S = 2.0
#: ... and at once, edits or not, past this many objects allocated since the last collection
#: (a client that is never quiet still has its memory bounded).
GC_BACKSTOP = 1_000_000


class PublishSchedule:
    """The paths changed since the last publication, the debounce timer that publishes their
    groups (through ``session``: a :class:`runway_lsp.session.Session`, for its analyses,
    publisher, ``group_of``, ``publish_group``, ``idle_gc`` and ``stopped``), and the idle
    garbage-collection timer."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._dirty: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._gc_timer: asyncio.TimerHandle | None = None
        self._last_edit = 0.0
        #: group key -> paths whose publication waits for the group's analysis on the
        #: analysis thread (runway_lsp/analyses.py): published when it lands.
        self._deferred: dict[str, set[str]] = {}
        #: The publication under way (:meth:`_publish`, a task: it awaits between analysis steps).
        self._flushing: asyncio.Task | None = None
        #: Loop time of the oldest change not published yet (None: all published).
        self._since: float | None = None

    def landed(self, key: str) -> None:
        """An analysis of group ``key`` landed from the analysis thread: publish what waited
        for it (the flush analyses again, on the thread, if the texts changed meanwhile). Not
        a change of any document: requests in flight are not superseded."""
        paths = self._deferred.pop(key, set())
        if self.session.stopped or not paths:
            return
        self._dirty.update(paths)
        loop = asyncio.get_running_loop()
        if self._since is None:
            self._since = loop.time()
        if self._timer is None:
            self._timer = loop.call_soon(self._flush)  # type: ignore[assignment]

    def touch(self, path: str) -> None:
        """Note a change of ``path`` and (re)start the debounce timer."""
        self._dirty.add(path)
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(DEBOUNCE_S, self._flush)
        self._last_edit = loop.time()
        if self._since is None:
            self._since = self._last_edit
        if self.session.idle_gc and self._gc_timer is None:
            self._gc_timer = loop.call_later(IDLE_GC_S, self._gc_tick)

    def stop(self) -> None:
        """Cancel the debounce and collection timers; forget the pending paths."""
        for timer in (self._timer, self._gc_timer):
            if timer is not None:
                timer.cancel()
        if self._flushing is not None:
            self._flushing.cancel()  # nothing is published after shutdown
        self._timer = self._gc_timer = None
        self._dirty.clear()
        self._deferred.clear()

    def _gc_tick(self) -> None:
        """Every IDLE_GC_S: collect garbage when no edit came since the last tick, or past
        GC_BACKSTOP; then check again later."""
        if self.session.stopped:
            return
        loop = asyncio.get_running_loop()
        pending = gc.get_count()[0]
        # Not while the analysis thread works: a full collection holds the loop (0.1-0.3 s
        # measured with a product of 1,000 members) and the thread's garbage is not free yet.
        idle = loop.time() - self._last_edit >= IDLE_GC_S and not self.session.analyses.busy()
        if pending > GC_BACKSTOP or (pending > 1000 and idle):
            gc.collect()
        self._gc_timer = loop.call_later(IDLE_GC_S, self._gc_tick)

    def _flush(self) -> None:
        self._timer = None
        if self.session.stopped or self._flushing is not None:
            return  # a flush under way takes these paths when it ends (see _publish)
        self._flushing = asyncio.get_running_loop().create_task(self._publish())

    async def _publish(self) -> None:
        """Analyse the groups of the changed paths in steps, letting the loop handle what
        arrived after each step (a request is answered before the rest of the analysis: issue
        16 item 10), then publish them. An edit meanwhile makes the steps stale: its paths
        and these go to the next flush (the edit restarted the debounce)."""
        session = self.session
        analyses = session.analyses
        loop = asyncio.get_running_loop()
        dirty, self._dirty = self._dirty, set()
        since = self._since if self._since is not None else loop.time()
        try:
            with analyses.memoised():
                groups = self._groups(dirty)
            edits = analyses.edits
            for key in groups:
                while True:
                    try:
                        if analyses.step(key):
                            break
                    except Exception:  # noqa: BLE001 - publish_group analyses again, logs and degrades
                        break
                    if loop.time() - since >= PATIENCE_S:
                        continue  # waited long enough: to the end in one go (PATIENCE_S)
                    await asyncio.sleep(0)  # what arrived meanwhile first
                    if session.stopped:
                        return
                    if analyses.edits != edits:
                        self._dirty |= dirty
                        return
            self._since = None if not self._dirty else loop.time()
            if session.stopped:  # stopped during steps run in one go (no turn was given)
                return
            with analyses.memoised():
                for key in groups:
                    try:
                        session.publish_group(key, dirty)
                    except Exception:  # noqa: BLE001 - one bad group must not starve the others
                        log.exception("publishing diagnostics of %s failed", key)
        finally:
            self._flushing = None
            if self._dirty and self._timer is None and not session.stopped:
                self._timer = asyncio.get_running_loop().call_later(DEBOUNCE_S, self._flush)  # type: ignore[assignment]

    def _groups(self, dirty: set[str]) -> list[str]:
        """The groups of ``dirty`` to publish now, in order (big products not analysed yet go
        to the analysis thread and are published when their analysis lands)."""
        session = self.session
        analyses = session.analyses
        try:
            groups: list[str] = []
            for path in sorted(dirty):
                for key in (session.publisher.owner_of(path), session.group_of(path)):
                    if key is not None and key not in groups:
                        groups.append(key)
            for path in sorted(dirty):
                root = analyses.waiting.get(path)
                if root is not None:  # grouped alone until its product's first analysis lands
                    self._deferred.setdefault(root, set()).update(dirty)
                    if path in groups:
                        groups.remove(path)
            for key in list(groups):
                if analyses.is_big(key) and not analyses.current(key, disk=True):
                    # Analysed on the thread, published when it lands (never a result
                    # computed for an older text: publish_group checks every version).
                    analyses.analyse_off_loop(key)
                    self._deferred.setdefault(key, set()).update(dirty)
                    groups.remove(key)
        except Exception:  # noqa: BLE001 - docs/architecture.md §7: log and degrade
            log.exception("finding the runways of %s failed", sorted(dirty))
            return []
        return groups


__all__ = ["DEBOUNCE_S", "GC_BACKSTOP", "IDLE_GC_S", "PATIENCE_S", "PublishSchedule"]
