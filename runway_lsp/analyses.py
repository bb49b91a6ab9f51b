"""The analyses of one client session: which group (product) a file belongs to, and each
group's :func:`runway_core.analysis.analyze` result cached while the texts it read hold.

- A member runway is analysed with its root (found by walking up, open buffers included), so
  editing a member refreshes the root's diagnostics and the reverse. A runway with no root
  above that lists it is analysed alone.
- A cached analysis records the version of every file it read: an open buffer's open and
  version (:class:`~runway_lsp.documents.Stamp`: a version number is per open), or a closed
  file's (mtime, size) on disk, so a file changed on disk (a save in another editor,
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

import itertools
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from runway_core.analysis import Analysis, AnalysisSteps, analysis_steps, analyze, step
from runway_core.changes import with_recorded_changes
from runway_core.catalog import Catalog
from runway_core.workspace import root_link_escapes

from .analysis_thread import DISK, AnalysisThread, OffLoop, _from_disk, _Job
from .documents import Buffers
from .grouping import Grouping
from .uris import real_path, uri_file_path


@dataclass
class _Steps:
    """An analysis of one group made in steps on the loop (:meth:`Analyses.step`): the
    generator, the versions of the files it read so far, and :attr:`Analyses.edits` when it
    started (it is stale once any edit came since)."""

    steps: AnalysisSteps
    record: dict[str, Any]
    edits: int


class Analyses(OffLoop, Grouping):
    """Group keys (root runway path, or a lone file) -> cached analysis for ``buffers``: the
    cache and the analyses on the loop here, those on the analysis thread in
    :class:`~runway_lsp.analysis_thread.OffLoop`, a file's group in
    :class:`~runway_lsp.grouping.Grouping`."""

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
        """An open buffer's :class:`~runway_lsp.documents.Stamp` (its open and version), else
        the file's (mtime, size) on disk."""
        doc = self.buffers.get(path)
        if doc is not None:
            return doc.stamp
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
                if p != skip and ((doc.stamp != v) if doc is not None else not _from_disk(v)):
                    return False
            if not disk:
                if key not in self._jobs:
                    self.analyse_off_loop(key)  # the disk versions, off the loop
                return True
        return all(p == skip or self.version(p) == v for p, v in record.items())

    def stale_only_in(self, key: str, path: str) -> Analysis | None:
        """The cached analysis of group ``key`` when it is stale only because the open buffer
        of ``path`` changed since (every other file it read holds), else None."""
        doc = self.buffers.get(path)
        hit = self._cache.get(key)
        if doc is not None and hit is not None and path in hit[1] and hit[1][path] != doc.stamp:
            if self._holds(key, hit[1], skip=path):
                return hit[0]
        return None
