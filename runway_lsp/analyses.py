"""The analyses of one client session: which group (product) a file belongs to, and each
group's :func:`runway_core.analysis.analyze` result cached while the texts it read hold.

- A member runway is analysed with its root (found by walking up, open buffers included), so
  editing a member refreshes the root's diagnostics and the reverse. A runway with no root
  above that lists it is analysed alone.
- A cached analysis records the version of every file it read: an open buffer's version, or
  a closed file's (mtime, size) on disk, so a file changed on disk (a save in another editor,
  a git checkout) invalidates analyses that read it.

- The publication of diagnostics analyses a group in steps (:meth:`Analyses.step`,
  :func:`runway_core.analysis.analysis_steps`), letting the event loop handle what arrived
  between steps: a request is answered before the rest of the analysis, not after it; an
  edit meanwhile makes the steps stale (they are dropped, never finished); a request that
  needs the group's analysis finishes the steps already made (:meth:`Analyses.analysis`).
- A big product (a root listing :data:`BIG_PRODUCT_FILES` members or more) is analysed on the
  analysis thread (:class:`AnalysisThread`), never on the event loop: until its result lands,
  requests answer from its last analysis, or (a member opened before its product's first
  analysis) from the member alone (issue 16 item 7; docs/architecture.md "Threads"). The
  disk versions of a big product's closed files are compared on that thread too, never per
  request on the loop (:meth:`Analyses._holds`).

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from runway_core.analysis import Analysis, AnalysisSteps, analysis_steps, analyze, step
from runway_core.changes import with_recorded_changes
from runway_core.workspace import find_root, read_disk, root_link_escapes
from runway_core.catalog import Catalog
from runway_core.usage import USAGE_FILE_NAME

from .documents import Buffers
from .uris import real_path, uri_file_path

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

    def __init__(self) -> None:
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
            self._thread = threading.Thread(target=self._run, name="runway-analysis", daemon=True)
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


@dataclass
class _Steps:
    """An analysis of one group made in steps on the loop (:meth:`Analyses.step`): the
    generator, the versions of the files it read so far, and :attr:`Analyses.edits` when it
    started (it is stale once any edit came since)."""

    steps: AnalysisSteps
    record: dict[str, Any]
    edits: int


class Analyses:
    """Group keys (root runway path, or a lone file) -> cached analysis for ``buffers``."""

    def __init__(self, buffers: Buffers, catalog: Catalog) -> None:
        self.buffers = buffers
        self.catalog = catalog
        #: The ``usagePath`` setting: the usage file of every product, relative to its root's
        #: folder (None: ``runway.usage.yaml`` beside the root; docs/format.md "Usage file").
        self.usage_file: str | None = None
        # group key -> (analysis, versions of the files it read)
        self._cache: dict[str, tuple[Analysis, dict[str, Any]]] = {}
        # Within one flush (one synchronous callback: no buffer changes in between), a closed
        # file's disk version and each file's group are looked up once, not once per file
        # per check (issue 6: ~1,000 stat calls per keystroke on a 20-member workspace).
        self._stat_memo: dict[str, Any] | None = None
        self._group_memo: dict[str, str] | None = None
        self._root_memo: dict[str, str | None] | None = None  # folder -> find_root(folder)
        # Groups whose cached analysis was found current inside the block: checked once, not
        # once per file of the group (that made a 2,000-member product's publication and the
        # workspace scan quadratic, issue 16).
        # (A big product's entry found current with its disk versions too: ``(key, DISK)``.)
        self._valid_memo: set[Any] | None = None
        #: The analysis thread and the groups it is analysing (group key -> job).
        self.thread = AnalysisThread()
        self._jobs: dict[str, _Job] = {}
        self._listing: dict[str, tuple[Any, bool]] = {}  # root -> (its version, lists BIG_PRODUCT_FILES)
        #: path -> the big root whose first analysis it waits for (grouped alone meanwhile).
        self.waiting: dict[str, str] = {}
        #: Called on the loop with a group key when an analysis of it lands from the thread.
        self.landed: list[Callable[[str], None]] = []
        # A result lands only over a cache entry made from older texts: every entry notes the
        # tick it was made at (a job's: when it was submitted); clear() starts a generation.
        self._clock = itertools.count()
        self._made: dict[str, int] = {}
        self._generation = 0
        self._failed: set[str] = set()  # groups whose analysis raised on the thread: on the loop again
        #: Edits, opens, closes and saves of any file seen (:meth:`changed`): analyses in
        #: steps started before the last one are stale.
        self.edits = 0
        self._steps: dict[str, _Steps] = {}  # group key -> its analysis in steps, if one is under way

    @contextmanager
    def memoised(self) -> Iterator[None]:
        """Look disk versions, groups and roots up once each inside the block (no buffer
        may change in it)."""
        if self._stat_memo is not None:
            yield  # nested: the outer block's memo holds
            return
        self._stat_memo, self._group_memo, self._root_memo, self._valid_memo = {}, {}, {}, set()
        try:
            yield
        finally:
            self._stat_memo = self._group_memo = self._root_memo = self._valid_memo = None

    # --- the cache ----------------------------------------------------------------------------

    def cached(self, key: str) -> Analysis | None:
        """The last analysis of group ``key``, current or not, without analysing."""
        hit = self._cache.get(key)
        return hit[0] if hit is not None else None

    def versions_read(self, key: str) -> dict[str, Any]:
        """path -> version each file had when group ``key`` was last analysed."""
        hit = self._cache.get(key)
        return hit[1] if hit is not None else {}

    def drop(self, key: str) -> None:
        """Forget the analysis of group ``key``."""
        self._cache.pop(key, None)
        self._steps.pop(key, None)
        if self._valid_memo is not None:
            self._valid_memo.difference_update((key, (key, DISK)))

    def clear(self) -> None:
        """Forget every analysis (files on disk may have changed, or the catalogue did)."""
        self._cache.clear()
        self._steps.clear()
        self._generation += 1  # results of jobs running now are for the old files or catalogue
        if self._valid_memo is not None:
            self._valid_memo.clear()

    def version(self, path: str) -> Any:
        """An open buffer's version, else the file's (mtime, size) on disk."""
        doc = self.buffers.get(path)
        if doc is not None:
            return doc.version
        memo = self._stat_memo
        if memo is not None and path in memo:
            return memo[path]
        try:
            st = os.stat(path)
        except OSError:
            version: Any = DISK
        else:
            version = (DISK, st.st_mtime_ns, st.st_size)
        if memo is not None:
            memo[path] = version
        return version

    def _recording_reader(self, record: dict[str, Any]) -> Callable[[str], str]:
        def read(path: str) -> str:
            real = real_path(path)
            record[real] = self.version(real)
            return self.buffers.read_live(real)

        return read

    # --- analyses -----------------------------------------------------------------------------

    def analysis(self, key: str) -> Analysis:
        """The analysis of group ``key`` for the current buffers (cached while they hold)."""
        hit = self._cache.get(key)
        valid = self._valid_memo
        if hit is not None and valid is not None and key in valid:
            return hit[0]
        if hit is not None and self._holds(key, hit[1]):
            if valid is not None:
                valid.add(key)
            return hit[0]
        if self.is_big(key):
            # Never analysed on the loop: the thread does it; meanwhile the last analysis
            # answers (the publication that follows its landing carries the new one).
            job = self.analyse_off_loop(key)
            if hit is not None:
                return hit[0]
            # No analysis of it at all yet (its own open root, before the first one landed):
            # wait for the thread's, rather than a second analysis of the same product.
            result = job.concurrent.result()
            self._store(key, job, result)
            return result[0]
        under_way = self._steps.pop(key, None)
        if under_way is not None and under_way.edits == self.edits:
            # The publication's analysis in steps, for these very texts: finished, not redone.
            return self._keep(key, self._finish(under_way.steps), under_way.record)
        record: dict[str, Any] = {}
        # The previous analysis of the group only saves work (plan items that did not change).
        refused = self._refused(key, record)
        an = analyze(key, self.catalog, self._recording_reader(record), previous=hit[0] if hit is not None else None,
                     refused=refused, usage_file=self.usage_file)
        return self._keep(key, an, record)

    def _refused(self, key: str, record: dict[str, Any]) -> str | None:
        refused = self._refused_link(key)
        if refused is not None:
            record[key] = self.version(key)  # the answer for this buffer, though it is never read
        return refused

    def _keep(self, key: str, an: Analysis, record: dict[str, Any]) -> Analysis:
        with_recorded_changes(an)  # RW190-RW193 against the deployed plan in the product's .runway/
        self._cache[key] = (an, record)
        self._made[key] = next(self._clock)
        if self._valid_memo is not None:
            self._valid_memo.add(key)
        return an

    @staticmethod
    def _finish(steps: AnalysisSteps) -> Analysis:
        while True:
            try:
                step(steps)
            except StopIteration as done:
                return done.value

    def changed(self) -> None:
        """A file was edited, opened, closed or saved: analyses in steps are stale."""
        self.edits += 1
        self._steps.clear()

    def step(self, key: str) -> bool:
        """Advance the analysis of group ``key`` by one step (starting it when none is under
        way); True once its analysis for the current texts is cached (at once when it was
        already, or when the group is a big product: the thread analyses those). Between two
        calls the caller lets the loop handle what arrived; an edit meanwhile
        (:meth:`changed`) drops the steps made."""
        under_way = self._steps.get(key)
        if under_way is None or under_way.edits != self.edits:
            if self.current(key) or self.is_big(key):
                return True
            hit = self._cache.get(key)
            record: dict[str, Any] = {}
            refused = self._refused(key, record)
            under_way = self._steps[key] = _Steps(
                analysis_steps(key, self.catalog, self._recording_reader(record), previous=hit[0] if hit is not None else None,
                               refused=refused, usage_file=self.usage_file), record, self.edits)
        try:
            step(under_way.steps)
        except StopIteration as done:
            del self._steps[key]
            self._keep(key, done.value, under_way.record)
            return True
        except BaseException:
            self._steps.pop(key, None)  # a generator that raised is over: never stepped again
            raise
        return False

    def _refused_link(self, key: str) -> str | None:
        """Why the root ``key`` is refused when its open buffer's URI is a symlink that leaves
        its folder (``key`` is the resolved path, so the core cannot see the link): the CLI's
        RW151 for the same file (docs/format.md "Members"; adversary M7). None otherwise."""
        doc = self.buffers.get(key)
        spelt = uri_file_path(doc.uri) if doc is not None else None
        return root_link_escapes(spelt) if spelt is not None and spelt != key else None

    # --- the analysis thread -------------------------------------------------------------------

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

    def current(self, key: str, disk: bool = False) -> bool:
        """The cached analysis of ``key`` read the texts the buffers and the disk hold now
        (a big product's disk versions: only with ``disk``, else on the thread, see
        :meth:`_holds`)."""
        valid = self._valid_memo
        mark = (key, DISK) if disk and self.is_big(key) else key
        if valid is not None and mark in valid:
            return True
        hit = self._cache.get(key)
        if hit is not None and self._holds(key, hit[1], disk=disk):
            if valid is not None:
                valid.update((key, mark))
            return True
        return False

    def _holds(self, key: str, record: dict[str, Any], skip: str | None = None, disk: bool = False) -> bool:
        """The files group ``key``'s cached analysis read (``record``: path -> version; ``skip``:
        a path not checked) hold the versions it read.

        A big product's closed files are not looked up on the event loop: one ``stat`` per
        file per request and per publication step (1,001 files: 5 ms on an idle machine,
        7-85 ms measured while the analysis thread ran, every call waiting for the GIL again;
        issue 16 item 7). On the loop its open buffers' versions are compared (no system
        call), and every file it read from the disk must still be closed; the disk versions
        are compared on the analysis thread (:meth:`analyse_off_loop`: a job of texts that did
        not change only checks them), at most one such job in flight per product, requested
        here. Until that check lands the cached analysis answers, as it does while any newer
        analysis of a big product runs (a change it finds is analysed there and lands).
        With ``disk`` (a publication: once per flush, not per request) the disk versions are
        compared here too, once the buffers were found to hold."""
        if self.is_big(key):
            get = self.buffers.get
            for p, v in record.items():
                doc = get(p)
                if p != skip and ((doc.version != v) if doc is not None else not _from_disk(v)):
                    return False
            if not disk:
                if key not in self._jobs:
                    self.analyse_off_loop(key)  # the disk versions, off the loop
                return True
        return all(p == skip or self.version(p) == v for p, v in record.items())

    def analyse_off_loop(self, key: str) -> _Job:
        """Analyse group ``key`` on the thread, from a snapshot of the open buffers taken now
        (the job already running for the same texts is joined, not repeated). The result
        lands in the cache on the loop; the :attr:`landed` listeners are called then."""
        texts = {p: doc.text for p in self.buffers for doc in (self.buffers.get(p),) if doc is not None}
        job = self._jobs.get(key)
        if job is not None and job.texts == texts:
            return job
        versions = {p: self.buffers.get(p).version for p in texts}  # type: ignore[union-attr]
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

    def stale_only_in(self, key: str, path: str) -> Analysis | None:
        """The cached analysis of group ``key`` when it is stale only because the open buffer
        of ``path`` changed since (every other file it read holds), else None."""
        doc = self.buffers.get(path)
        hit = self._cache.get(key)
        if doc is not None and hit is not None and path in hit[1] and hit[1][path] != doc.version:
            if self._holds(key, hit[1], skip=path):
                return hit[0]
        return None

    def group_of(self, path: str) -> str:
        """The group ``path`` belongs to: itself for a root runway (it has ``product``);
        otherwise the nearest root above whose analysis lists it; otherwise itself, alone.

        A member with a loader fault (empty, a syntax error) may not look like a member; what
        decides is the root that lists it, as in :func:`runway_core.workspace.find_root`.
        """
        memo = self._group_memo
        if memo is not None:
            group = memo.get(path)
            if group is None:
                group = memo[path] = self._group_of(path)
            return group
        return self._group_of(path)

    def _group_of(self, path: str) -> str:
        # A usage file belongs to the product whose analysis read it (docs/format.md "Usage
        # file"): the root beside a `runway.usage.yaml`, or one whose `usagePath` names it.
        for key, (an, _record) in self._cache.items():
            src = an.files.get(path)
            if src is not None and src.role == "usage":
                return key
        if os.path.basename(path) == USAGE_FILE_NAME:
            beside = self._find_root(os.path.dirname(path))
            if beside is not None and os.path.dirname(os.path.realpath(beside)) == os.path.dirname(path):
                beside = os.path.realpath(beside)
                read = self._reads(beside, path)
                if read is not False:
                    return beside if read else path
        try:
            head = self.buffers.read_live(path)[:4096]
        except (OSError, UnicodeDecodeError):
            head = ""
        if "\nproduct:" in "\n" + head:
            return path
        folder = os.path.dirname(os.path.dirname(path))  # start above the file's own folder
        for _ in range(64):  # bounded: one step per root found above
            root = self._find_root(folder)
            if root is None:
                break
            root = os.path.realpath(root)
            read = self._reads(root, path)
            if read is not False:
                return root if read else path
            above = os.path.dirname(os.path.dirname(root))
            if above == os.path.dirname(root):
                break  # the file system's root
            folder = above
        return path

    def _reads(self, root: str, path: str) -> bool | None:
        """Whether the analysis of ``root`` reads ``path`` (a member, its usage file); None:
        not known yet, ``path`` waits alone for a big product's first analysis.

        A big product is never analysed on the loop to group one file: its last analysis
        decides; before its first one lands, the file is alone meanwhile (answers from its own
        text; its diagnostics wait for the product's)."""
        if root != path and self.is_big(root) and not self.current(root):
            self.analyse_off_loop(root)
            last = self._cache.get(root)
            if last is None:
                self.waiting[path] = root
                return None
            return path in last[0].files
        return path in self.analysis(root).files

    def _find_root(self, folder: str) -> str | None:
        memo = self._root_memo
        if memo is None:
            return find_root(folder, self.buffers.read_live)
        if folder not in memo:
            memo[folder] = find_root(folder, self.buffers.read_live)  # members of one folder share it
        return memo[folder]

    def analysis_for(self, path: str) -> Analysis:
        with self.memoised():  # the group's files are checked once, not once per lookup
            return self.analysis(self.group_of(path))
