"""The analyses of one client session: which group (product) a file belongs to, and each
group's :func:`runway_core.analysis.analyze` result cached while the texts it read hold.

- A member runway is analysed with its root (found by walking up, open buffers included), so
  editing a member refreshes the root's diagnostics and the reverse. A runway with no root
  above that lists it is analysed alone.
- A cached analysis records the version of every file it read: an open buffer's version, or
  a closed file's (mtime, size) on disk, so a file changed on disk (a save in another editor,
  a git checkout) invalidates analyses that read it.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from runway_core.analysis import Analysis, analyze
from runway_core.workspace import find_root, root_link_escapes
from runway_core.catalog import Catalog

from .documents import Buffers
from .uris import uri_file_path

DISK = "disk"  # the "version" of a file read from disk rather than from an open buffer


class Analyses:
    """Group keys (root runway path, or a lone file) -> cached analysis for ``buffers``."""

    def __init__(self, buffers: Buffers, catalog: Catalog) -> None:
        self.buffers = buffers
        self.catalog = catalog
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
        self._valid_memo: set[str] | None = None

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
        if self._valid_memo is not None:
            self._valid_memo.discard(key)

    def clear(self) -> None:
        """Forget every analysis (files on disk may have changed, or the catalogue did)."""
        self._cache.clear()
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
            real = os.path.realpath(path)
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
        if hit is not None and all(self.version(p) == v for p, v in hit[1].items()):
            if valid is not None:
                valid.add(key)
            return hit[0]
        record: dict[str, Any] = {}
        # The previous analysis of the group only saves work (plan items that did not change).
        refused = self._refused_link(key)
        if refused is not None:
            record[key] = self.version(key)  # the answer for this buffer, though it is never read
        an = analyze(key, self.catalog, self._recording_reader(record), previous=hit[0] if hit is not None else None,
                     refused=refused)
        self._cache[key] = (an, record)
        if valid is not None:
            valid.add(key)
        return an

    def _refused_link(self, key: str) -> str | None:
        """Why the root ``key`` is refused when its open buffer's URI is a symlink that leaves
        its folder (``key`` is the resolved path, so the core cannot see the link): the CLI's
        RW151 for the same file (docs/format.md "Members"; adversary M7). None otherwise."""
        doc = self.buffers.get(key)
        spelt = uri_file_path(doc.uri) if doc is not None else None
        return root_link_escapes(spelt) if spelt is not None and spelt != key else None

    def stale_only_in(self, key: str, path: str) -> Analysis | None:
        """The cached analysis of group ``key`` when it is stale only because the open buffer
        of ``path`` changed since (every other file it read holds), else None."""
        doc = self.buffers.get(path)
        hit = self._cache.get(key)
        if doc is not None and hit is not None and path in hit[1] and hit[1][path] != doc.version:
            if all(p == path or self.version(p) == v for p, v in hit[1].items()):
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
            if path in self.analysis(root).files:
                return root
            above = os.path.dirname(os.path.dirname(root))
            if above == os.path.dirname(root):
                break  # the file system's root
            folder = above
        return path

    def _find_root(self, folder: str) -> str | None:
        memo = self._root_memo
        if memo is None:
            return find_root(folder, self.buffers.read_live)
        if folder not in memo:
            memo[folder] = find_root(folder, self.buffers.read_live)  # members of one folder share it
        return memo[folder]

    def analysis_for(self, path: str) -> Analysis:
        return self.analysis(self.group_of(path))
