"""The analysis thread of a client session and the analyses it runs (docs/architecture.md,
"Threads of the server"): one daemon thread (:class:`AnalysisThread`), which products are big
enough to go there (:data:`BIG_PRODUCT_FILES`), and :class:`OffLoop`, the part of
:class:`runway_lsp.analyses.Analyses` that submits a product's analysis to it from a snapshot of
the open buffers and lands the result in the cache on the event loop.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import os
import queue
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from runway_core.analysis import Analysis, analyze
from runway_core.catalog import Catalog
from runway_core.changes import with_recorded_changes
from runway_core.workspace import read_disk

from .documents import Buffers
from .uris import real_path

log = logging.getLogger("runway_lsp")

DISK = "disk"  # the "version" of a file read from disk rather than from an open buffer


def _from_disk(version: Any) -> bool:
    """``version`` is a file's on disk (:data:`DISK` or ``(DISK, mtime_ns, size)``), not an
    open buffer's."""
    return version == DISK or (isinstance(version, tuple) and version[:1] == (DISK,))


#: A root listing at least this many members (:func:`listed_members`) is analysed on the
#: analysis thread. Measured: 300 one-resource members take
#: ~60 ms to analyse on an idle core, 1,000 take ~170 ms (benchmarks/bench_scan.py --requests);
#: a product of 20 members, a few milliseconds, stays on the loop (a keystroke's diagnostics
#: are not delayed by a thread hop). Decided by the text, not by a measured duration: which
#: side a product's analysis runs on must not depend on the machine's load.
BIG_PRODUCT_FILES = 100


def listed_members(text: str) -> int:
    """About how many members a root's text lists: the items of its top-level ``members``
    (block items up to the next top-level key; a flow list's commas + 1). A scheduling
    estimate, read without parsing (the analysis reads the list properly)."""
    at = 0 if text.startswith("members:") else text.find("\nmembers:") + 1
    if at <= 0 and not text.startswith("members:"):
        return 0
    first = text.find("\n", at)
    head = text[at + len("members:"): first if first >= 0 else len(text)].strip()
    if head.startswith("["):
        return head.count(",") + 1
    count = 0
    for line in text[first + 1:].split("\n") if first >= 0 else ():
        if line[:1] not in (" ", "-", "#", "\t", "") or line.startswith("---"):
            break
        if line.lstrip().startswith("- "):
            count += 1
    return count


#: The GIL switch interval once the analysis thread runs, in seconds (see submit).
SWITCH_INTERVAL_S = 0.001


class AnalysisThread:
    """One daemon thread that runs analyses off the event loop, one at a time, in order.

    Daemon: a job still running when the server exits does not hold the process up (the job
    only reads files and builds values; nothing it does needs finishing). :meth:`stop`
    cancels the jobs not started. :func:`runway_core.analysis.analyze` is pure; the shared
    memos it uses (runway_core/analysis/cache.py) are dicts read and replaced whole, safe
    under the GIL."""

    def __init__(self, name: str = "runway-analysis") -> None:
        self.name = name  # the thread's name (the cost view's baselines run on "runway-baselines")
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.stopped = False
        #: Cleared by the test hook ``runway/_holdAnalyses`` (runway_lsp/server.py): no job
        #: starts until it is set again, so a test can observe the server mid-analysis.
        self.gate = threading.Event()
        self.gate.set()

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future:
        """Run ``fn()`` on the thread; its future (cancelled at once after :meth:`stop`)."""
        fut: concurrent.futures.Future = concurrent.futures.Future()
        if self.stopped:
            fut.cancel()
            return fut
        if self._thread is None:
            # A request's handler waits for the GIL while an analysis runs: at most this
            # long (Python's default is 5 ms). Measured, 1,000 members analysed, load 6-9:
            # p95 of requests during the scan 122-291 ms at 1 ms, 169-413 ms at 5 ms
            # (three interleaved pairs, benchmarks/bench_scan.py --requests).
            sys.setswitchinterval(SWITCH_INTERVAL_S)
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        self._queue.put((fn, fut))
        return fut

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            self.gate.wait()
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the job
                fut.set_exception(exc)

    def stop(self) -> None:
        """Cancel the jobs not started and end the thread after the running one."""
        self.stopped = True
        self.gate.set()
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[1].cancel()
        self._queue.put(None)


@dataclass
class _Job:
    """An analysis of one group running on the :class:`AnalysisThread`: its future (on the
    loop; result ``(analysis, versions read)``), the open buffers' texts it read from, when
    it was submitted (a tick of :attr:`Analyses._clock`) and the cache generation then."""

    future: asyncio.Future
    concurrent: concurrent.futures.Future
    texts: dict[str, str]
    submitted: int
    generation: int
    refused: str | None = None
    #: path -> the text its analysis read (written on the thread while the job runs, read
    #: there by the job that follows it: :meth:`Analyses.analyse_off_loop`).
    read: dict[str, str] = field(default_factory=dict)



class OffLoop:
    """The off-loop half of :class:`runway_lsp.analyses.Analyses`: which groups are analysed on
    the thread, the jobs running there, and their results landing in the cache (on the loop).
    It works on the cache state :class:`~runway_lsp.analyses.Analyses` declares and owns, and
    uses its ``version`` and ``_refused_link``."""

    buffers: Buffers
    catalog: Catalog
    thread: AnalysisThread
    waiting: dict[str, str]
    landed: list[Callable[[str], None]]
    _cache: dict[str, tuple[Analysis, dict[str, Any]]]
    _jobs: dict[str, "_Job"]
    _listing: dict[str, tuple[Any, bool]]
    _clock: "itertools.count[int]"
    _made: dict[str, int]
    _generation: int
    _failed: set[str]
    _valid_memo: set[Any] | None
    usage_file: str | None

    def is_big(self, key: str) -> bool:
        """Analysed on the thread: a big product (see the module docstring), or one being
        analysed there now."""
        if key in self._jobs:
            return True
        if key in self._failed:
            return False
        version = self.version(key)
        hit = self._listing.get(key)
        if hit is None or hit[0] != version:
            try:
                big = listed_members(self.buffers.read_live(key)) >= BIG_PRODUCT_FILES
            except (OSError, UnicodeDecodeError, ValueError):
                big = False  # unreadable: the analysis says why, at once
            hit = self._listing[key] = (version, big)
        return hit[1]

    def busy(self) -> bool:
        """An analysis is running or queued on the thread."""
        return bool(self._jobs)

    def pending(self, key: str) -> bool:
        """An analysis of group ``key`` is running (or queued) on the thread."""
        return key in self._jobs

    def analyse_off_loop(self, key: str) -> _Job:
        """Analyse group ``key`` on the thread, from a snapshot of the open buffers taken now
        (the job already running for the same texts is joined, not repeated). The result
        lands in the cache on the loop; the :attr:`landed` listeners are called then."""
        texts = {p: doc.text for p in self.buffers for doc in (self.buffers.get(p),) if doc is not None}
        job = self._jobs.get(key)
        if job is not None and job.texts == texts:
            return job
        versions = {p: self.buffers.get(p).stamp for p in texts}  # type: ignore[union-attr]  # open and version
        hit = self._cache.get(key)
        catalog = self.catalog
        usage_file = self.usage_file
        generation = self._generation
        refused = self._refused_link(key)  # on the loop: one lstat
        prior = job  # the job of other texts queued or running now, if any
        reads: dict[str, str] = {}

        def stat(path: str) -> Any:
            if path in texts:
                return versions[path]
            try:
                st = os.stat(path)
            except OSError:
                return DISK
            return (DISK, st.st_mtime_ns, st.st_size)

        def same_reads(result: tuple[Analysis, dict[str, Any]], read_then: dict[str, str]) -> tuple[Analysis, dict[str, Any]] | None:
            """``result`` (an analysis and the versions it read) with the versions of now,
            when every file it read holds the text it read (``read_then``, else the text its
            analysis parsed): still closed and unchanged on disk, or open now with that text.
            So a runway opened while its product is analysed from the disk, or after it was
            (the editor restoring its tabs during the workspace scan), costs no second analysis
            of the product (issue 16 item 7). None otherwise."""
            an, record = result
            now: dict[str, Any] = {}
            for p, v in record.items():
                if p in texts:  # open now
                    if v != versions[p]:
                        then = read_then.get(p)
                        if then is None and p in an.files:
                            then = an.files[p].parsed.text
                        if then != texts[p]:
                            return None
                    now[p] = versions[p]
                elif _from_disk(v) and stat(p) == v:
                    now[p] = v  # closed then and now, unchanged on disk
                else:
                    return None  # read from a buffer closed since, or changed on disk
            return an, now

        def run() -> tuple[Analysis, dict[str, Any]]:
            if hit is not None and all(stat(p) == v for p, v in hit[1].items()):
                return hit  # still current (the checks read the disk: here, off the loop)
            if refused is None:  # (a refused root is never read: no text to compare)
                cf = prior.concurrent if prior is not None else None
                if (cf is not None and cf.done() and not cf.cancelled() and cf.exception() is None
                        and prior.generation == generation and prior.refused is None):
                    # The job this one superseded ran first on this thread, for other texts.
                    again = same_reads(cf.result(), prior.read)
                    if again is not None:
                        reads.update(prior.read)
                        return again
                if hit is not None:
                    again = same_reads(hit, {})
                    if again is not None:
                        return again
            record: dict[str, Any] = {}
            if refused is not None:
                record[key] = stat(key)  # the answer for this buffer, though it is never read

            def read(path: str) -> str:
                real = real_path(path)
                record[real] = stat(real)
                text = reads[real] = texts[real] if real in texts else read_disk(real)
                return text

            an = analyze(key, catalog, read, previous=hit[0] if hit is not None else None, refused=refused, usage_file=usage_file)
            return with_recorded_changes(an), record

        if job is not None:
            job.concurrent.cancel()  # superseded before it started (typed again): never runs
        cf = self.thread.submit(run)
        job = _Job(asyncio.wrap_future(cf), cf, texts, next(self._clock), generation, refused, reads)
        self._jobs[key] = job
        job.future.add_done_callback(lambda f: self._landing(key, job, f))
        return job

    async def analysis_async(self, key: str) -> Analysis:
        """The analysis of group ``key``, made on the thread (:meth:`analyse_off_loop`); the
        event loop serves requests meanwhile. Raises what the analysis raised."""
        while True:
            job = self.analyse_off_loop(key)
            try:
                result = await asyncio.shield(job.future)
            except asyncio.CancelledError:
                if job.future.cancelled() and not self.thread.stopped and self._jobs.get(key) is not job:
                    continue  # superseded by a newer job for newer texts: await that one
                raise
            return result[0]

    def _store(self, key: str, job: _Job, result: tuple[Analysis, dict[str, Any]]) -> None:
        if job.generation == self._generation and self._made.get(key, -1) <= job.submitted:
            # Nothing made from newer texts was cached meanwhile.
            self._cache[key] = result
            self._made[key] = job.submitted
            if self._valid_memo is not None:
                self._valid_memo.difference_update((key, (key, DISK)))

    def _landing(self, key: str, job: _Job, fut: asyncio.Future) -> None:
        if self._jobs.get(key) is job:
            del self._jobs[key]
        if fut.cancelled():
            return
        if fut.exception() is None:
            self._store(key, job, fut.result())
        else:
            # A bug, not a bad runway (those are diagnostics): logged once; the group is
            # analysed on the loop from now on, where the flush logs and degrades as before.
            log.error("analysing %s on the analysis thread failed", key, exc_info=fut.exception())
            self._failed.add(key)
        for path in [p for p, root in self.waiting.items() if root == key]:
            del self.waiting[path]
            self._cache.pop(path, None)  # its lone analysis of meanwhile
        for listener in self.landed:
            try:
                listener(key)
            except Exception:  # noqa: BLE001 - docs/architecture.md §7
                log.exception("after the analysis of %s: %s failed", key, getattr(listener, "__qualname__", listener))

    def stop(self) -> None:
        """The session stopped: no more analyses on the thread."""
        self.thread.stop()
        for job in list(self._jobs.values()):
            job.future.cancel()



__all__ = ["AnalysisThread", "BIG_PRODUCT_FILES", "DISK", "OffLoop", "SWITCH_INTERVAL_S", "listed_members"]
