"""When a session publishes: the debounce of diagnostics after edits, and the idle garbage
collection (:class:`PublishSchedule`, owned by :class:`runway_lsp.session.Session`).

Pushes are debounced (:data:`DEBOUNCE_S`) and computed from the newest text: analysis runs
synchronously on the event loop at publish time (a few milliseconds for a runway), so no result
computed for an older version is ever sent (runway_lsp/publish.py). A big product
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

    def landed(self, key: str) -> None:
        """An analysis of group ``key`` landed from the analysis thread: publish what waited
        for it (the flush analyses again, on the thread, if the texts changed meanwhile). Not
        a change of any document: requests in flight are not superseded."""
        paths = self._deferred.pop(key, set())
        if self.session.stopped or not paths:
            return
        self._dirty.update(paths)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_soon(self._flush)  # type: ignore[assignment]

    def touch(self, path: str) -> None:
        """Note a change of ``path`` and (re)start the debounce timer."""
        self._dirty.add(path)
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(DEBOUNCE_S, self._flush)
        self._last_edit = loop.time()
        if self.session.idle_gc and self._gc_timer is None:
            self._gc_timer = loop.call_later(IDLE_GC_S, self._gc_tick)

    def stop(self) -> None:
        """Cancel the debounce and collection timers; forget the pending paths."""
        for timer in (self._timer, self._gc_timer):
            if timer is not None:
                timer.cancel()
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
        if self.session.stopped:
            return
        with self.session.analyses.memoised():
            self._flush_dirty()

    def _flush_dirty(self) -> None:
        session = self.session
        analyses = session.analyses
        dirty, self._dirty = self._dirty, set()
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
            return
        for key in groups:
            try:
                session.publish_group(key, dirty)
            except Exception:  # noqa: BLE001 - one bad group must not starve the others
                log.exception("publishing diagnostics of %s failed", key)


__all__ = ["DEBOUNCE_S", "GC_BACKSTOP", "IDLE_GC_S", "PublishSchedule"]
