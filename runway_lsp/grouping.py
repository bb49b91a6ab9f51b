"""Which product (group) a file belongs to in a client session: the part of
:class:`runway_lsp.analyses.Analyses` that finds a file's root (walking up, open buffers
included) and asks whether that root's analysis lists it.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import os
from typing import Any

from runway_core.analysis import Analysis
from runway_core.analysis.usage import usage_path
from runway_core.usage import USAGE_FILE_NAME
from runway_core.workspace import declares_product, find_root

from .documents import Buffers
from .uris import resolved_path


class Grouping:
    """Group lookup over the analyses of :class:`~runway_lsp.analyses.Analyses` (whose state
    and analyses it uses: ``analysis``, ``current``, ``memoised``, and ``is_big`` and
    ``analyse_off_loop`` of :class:`~runway_lsp.analysis_thread.OffLoop`: a member belongs to
    the root whose analysis lists it)."""

    buffers: Buffers
    waiting: dict[str, str]
    _cache: dict[str, tuple[Analysis, dict[str, Any]]]
    _group_memo: dict[str, str] | None
    _root_memo: dict[str, str | None] | None

    usage_file: str | None

    def unread_usage(self, an: Analysis) -> str | None:
        """The usage file of analysis ``an`` when it holds diagnostics but was never read (a
        folder, a FIFO, a link leaving the product, a file that does not exist or that the
        server may not read: its RW200), else None."""
        path = usage_path(an.root_file, self.usage_file)
        return path if path not in an.files and path in an.diagnostics else None

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
            if src is None and path in an.diagnostics and path == self.unread_usage(an) and not os.path.isdir(path):
                # Its RW200 is published on its own URI with its product (tenth adversary L3);
                # a folder cannot be a document: its RW200 goes on the root (runway_lsp/publish.py).
                return key
        if os.path.basename(path) == USAGE_FILE_NAME:
            beside = self._find_root(os.path.dirname(path))
            if beside is not None and os.path.dirname(resolved_path(beside)) == os.path.dirname(path):
                beside = resolved_path(beside)
                read = self._reads(beside, path)
                if read is not False:
                    return beside if read else path
        try:
            head = self.buffers.read_live(path)
        except (OSError, UnicodeDecodeError):
            head = ""
        if declares_product(head):
            return path
        folder = os.path.dirname(os.path.dirname(path))  # start above the file's own folder
        for _ in range(64):  # bounded: one step per root found above
            root = self._find_root(folder)
            if root is None:
                break
            root = resolved_path(root)
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


__all__ = ["Grouping"]
