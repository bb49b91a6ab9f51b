"""The cost deltas' baselines (the runway as saved, and at git HEAD:
:class:`runway_core.baseline.BaselineStore`), computed off the event loop.

Computing them runs git (``rev-parse``, ``show``), reads and hashes every file of the product
and analyses it as saved. None of it runs on the event loop (seventh adversary F5; issue 23):
a repository whose ``.git/config`` includes a FIFO nobody writes makes every git call wait
until its timeout (10 s), and the loop answered nothing meanwhile. So:

- The baselines of every product are computed on one worker thread, ``runway-baselines``
  (:class:`~runway_lsp.analysis_thread.AnalysisThread`, started on first use), the store used
  only there; at most one job per product in flight (a big product's, at most once per
  :data:`BIG_BASELINE_EVERY_S`).
- A request that shows deltas (hover, code lens) waits for its product's job at most
  :data:`BASELINE_WAIT_S` from the job's start, the loop serving every other message
  meanwhile; past it, it answers with the baselines known (none at first: no delta). When a
  job no request waited for lands with other baselines, the :attr:`BaselineJobs.landed`
  listeners run (the cost view asks the client to refresh its lenses).
- Git runs bounded (:class:`runway_core.baseline.GitRunner`: its timeout, and killed when the
  session stops, so none is left behind the server), starts no transport and runs nothing the
  repository's config names (:mod:`runway_core.gitcmd`), never on a repository holding a file
  git would wait on (a FIFO its config includes: no HEAD baseline), and never while
  ``runway.costDelta.enabled`` is false or before the client's settings are in force (the
  first ``initialized`` settings applied, no pull in flight; seventh adversary F7).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from runway_core.baseline import Baselines, BaselineStore, GitRunner

from .analysis_thread import AnalysisThread
from .session import Session

log = logging.getLogger("runway_lsp.baselines")

#: Longest a request waits for its product's baselines being computed, in seconds from the
#: job's start: git and an analysis of the product as saved take milliseconds; a git stuck
#: on its config (a FIFO, a network file system) must not hold the answer.
BASELINE_WAIT_S = 2.0
#: A big product's baselines are computed again at most this often, in seconds: a hover every
#: few milliseconds must not keep the worker hashing its files.
BIG_BASELINE_EVERY_S = 1.0


@dataclass
class _Job:
    """The baselines of one product being computed: the worker's future, when it was
    submitted (time.monotonic), the generation then, and how many requests await it."""

    future: concurrent.futures.Future
    submitted: float
    generation: int
    waiters: int = 0


class BaselineJobs:
    """The baselines known per product (group key) and the jobs computing the next ones."""

    def __init__(self, session: Session, settings: Any, store: BaselineStore | None = None) -> None:
        self.session = session
        self.settings = settings  # a runway_lsp.settings.SettingsManager
        self.runner = GitRunner()
        self.store = store or BaselineStore(runner=self.runner)
        self.thread = AnalysisThread("runway-baselines")
        self._jobs: dict[str, _Job] = {}
        self._known: dict[str, Baselines] = {}
        self._generation = 0  # a job of an older generation (before a settings change) lands nowhere
        self._used = False
        #: Called on the loop with a group key when baselines no request waited for landed.
        self.landed: list[Callable[[str], None]] = []

    def _wanted(self, key: str) -> bool:
        if not (self.settings.current.cost_delta_enabled and self.settings.settled) or self.session.stopped:
            return False  # off (git is never run), or the client's settings not known yet
        # A member answered alone until its big product's first analysis lands: its deltas
        # are the product's, none before that lands (issue 16 item 7).
        return key not in self.session.analyses.waiting

    def known(self, key: str, submit: bool = True) -> Baselines | None:
        """The last baselines computed for group ``key`` (None: deltas off, or none yet);
        with ``submit``, the next ones are asked for when due. Never waits."""
        if not self._wanted(key):
            return None
        if submit:
            self._submit_if_due(key)
        return self._known.get(key)

    async def fresh(self, key: str) -> Baselines | None:
        """The baselines of group ``key`` for a request: a new job is started when due and
        awaited at most :data:`BASELINE_WAIT_S` from its start (the loop serves other
        messages meanwhile); then what is known."""
        await self.settings.ready()
        if not self._wanted(key):
            return None
        self._submit_if_due(key)
        job = self._jobs.get(key)
        if job is not None and not job.future.done():
            remaining = job.submitted + BASELINE_WAIT_S - time.monotonic()
            if remaining > 0:
                job.waiters += 1
                try:
                    await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(job.future)), remaining)
                except asyncio.TimeoutError:
                    log.info("baselines of %s: not ready in %ss (git slow or stuck?); answered without them", key, BASELINE_WAIT_S)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - logged where it lands
                    pass
                finally:
                    job.waiters -= 1
        if job is not None and job.future.done():
            self._take(key, job)
        return self._known.get(key) if self._wanted(key) else None

    def _submit_if_due(self, key: str) -> None:
        job = self._jobs.get(key)
        now = time.monotonic()
        if job is not None:
            if not job.future.done():
                return  # one job per product in flight
            every = BIG_BASELINE_EVERY_S if self.session.analyses.is_big(key) else 0.0
            if now - job.submitted < every:
                return
        store, catalog = self.store, self.session.catalog
        self._used = True
        fut = self.thread.submit(lambda: store.baselines(key, catalog))
        job = self._jobs[key] = _Job(fut, now, self._generation)
        loop = asyncio.get_running_loop()

        def done(_f: concurrent.futures.Future) -> None:  # on the worker: hand over to the loop
            try:
                loop.call_soon_threadsafe(self._landing, key, job)
            except RuntimeError:
                pass  # the loop is closed: the server is exiting

        fut.add_done_callback(done)

    def _take(self, key: str, job: _Job) -> bool:
        """Note ``job``'s result as the known baselines of ``key``; True when they changed."""
        fut = job.future
        if job.generation != self._generation or fut.cancelled() or self.session.stopped:
            return False
        exc = fut.exception()
        if exc is not None:
            log.error("computing the baselines of %s failed", key, exc_info=exc)
            return False
        new = fut.result()
        if self._known.get(key) == new:
            return False
        self._known[key] = new
        return True

    def _landing(self, key: str, job: _Job) -> None:
        if self._take(key, job) and job.waiters == 0:
            for listener in self.landed:
                try:
                    listener(key)
                except Exception:  # noqa: BLE001 - docs/architecture.md §7
                    log.exception("after the baselines of %s: %s failed", key, getattr(listener, "__qualname__", listener))

    def clear(self) -> None:
        """Forget every baseline (settings changed): jobs running now land nowhere."""
        self._generation += 1
        self._jobs.clear()
        self._known.clear()
        if self._used:
            self.thread.submit(self.store.clear)  # the store is the worker's alone
        else:
            self.store.clear()

    def stop(self) -> None:
        """The session stopped: no more jobs, and every git still running is killed."""
        self.thread.stop()
        self.runner.stop()
        for job in self._jobs.values():
            job.future.cancel()


__all__ = ["BASELINE_WAIT_S", "BIG_BASELINE_EVERY_S", "BaselineJobs"]
