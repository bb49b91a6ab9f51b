"""The open buffers of one client session, kept by the server alone.

pygls' workspace is not used for them: it splits lines with ``str.splitlines``, which LSP
does not (U+2028 would shift every edit; runway_lsp/protocol.py). One file can be open under
two URIs (a symlinked folder); analyses read the buffer opened or edited last.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Any, Iterator, NamedTuple

from runway_core.workspace import ROOT_NAMES, read_disk

from .uris import real_path, unopenable, uri_to_path


class Stamp(NamedTuple):
    """What an analysis records as the version of an open buffer it read: which open of the
    session made the buffer (:attr:`Document.opening`) and the client's version. A version
    number alone names a text only within one open (LSP 3.17, ``didOpen``: the open transfers
    the whole content; versions increase after each change): Neovim 0.7's ``:e!`` closes and
    opens the file again as version 1 with the text now on disk, and an analysis of the first
    open's version 1 was served for it (seventh adversary F1; issue 23)."""

    opening: int
    version: int | None


def lsp_version(stamp: Any) -> int | None:
    """The client's version in ``stamp`` (a :class:`Stamp`, else a closed file's disk
    version: None), as ``publishDiagnostics`` carries it."""
    return stamp.version if isinstance(stamp, Stamp) and isinstance(stamp.version, int) else None


@dataclass
class Document:
    """An open buffer. ``path`` is the real path (the key analyses use)."""

    uri: str
    path: str
    text: str
    version: int | None
    #: False after a didChange that could not be read: the buffer no longer matches the
    #: editor's, so incremental edits are not applied (they would land in the wrong place)
    #: until a full-text change or a reopen brings the text back (issue 7).
    in_sync: bool = True
    #: Which ``didOpen`` of the session made this buffer (:meth:`Buffers.add` numbers them).
    opening: int = 0

    @property
    def stamp(self) -> Stamp:
        """The version analyses record for this buffer (see :class:`Stamp`)."""
        return Stamp(self.opening, self.version)


class Buffers:
    """path -> the open buffer analyses read (:meth:`get`), and every buffer open on a path
    by URI (:meth:`view`). A mapping of paths to their active :class:`Document`."""

    def __init__(self) -> None:
        self._active: dict[str, Document] = {}
        self._views: dict[str, dict[str, Document]] = {}  # path -> uri -> every open buffer
        self._openings = itertools.count(1)  # numbers every didOpen (Document.opening)

    # --- reading (the mapping) ----------------------------------------------------------------

    def get(self, path: str) -> Document | None:
        return self._active.get(path)

    def __contains__(self, path: object) -> bool:
        return path in self._active

    def __iter__(self) -> Iterator[str]:
        return iter(self._active)

    def __len__(self) -> int:
        return len(self._active)

    def view(self, uri: str, path: str) -> Document | None:
        """The open buffer of ``uri`` (``path`` is its real path), if open."""
        views = self._views.get(path)
        return views.get(uri) if views is not None else None

    def has_view(self, uri: str, path: str) -> bool:
        return uri in self._views.get(path, {})

    def request_path(self, uri: str) -> str | None:
        """The real path of the document ``uri`` that a request about it may read, or None: a
        document that is neither open nor named ``runway.yaml``/``runway.yml`` is never read
        (docs/protocol.md). Every request about one document (``runway/costs``,
        ``runway/plan``, hover, outline, lenses, hints, links, navigation, completion, code
        actions, pull diagnostics, ``runway.showCost``) asks here first and answers its empty
        result for None: a file the client did not give us is read by none of them (ninth
        adversary L5: hover, outline, lenses and ``runway.showCost`` read ``notes.txt`` from
        disk while ``runway/costs`` answered nothing). A path no system call can open
        (:func:`~runway_lsp.uris.unopenable`) is None unless open."""
        path = uri_to_path(uri)
        if path in self._active:
            return path
        if os.path.basename(path) not in ROOT_NAMES or unopenable(path):
            return None
        return path

    def read_live(self, path: str) -> str:
        """Text of ``path``: the open buffer if any, else the disk without a leading BOM (may
        raise OSError)."""
        # Analyses ask by real path (the buffers' keys): one dict lookup, no realpath (its
        # lstat per path component cost ~3 ms per keystroke's analysis on the benchmark).
        doc = self._active.get(path) or self._active.get(real_path(path))
        if doc is not None:
            return doc.text
        # A file not open is read as an editor will open it: without its byte-order mark.
        # VS Code decodes a UTF-8 BOM as the `utf8bom` encoding and keeps it out of the
        # document (src/vs/workbench/services/textfile/common/encoding.ts), Neovim sets
        # 'bomb' instead (:help 'bomb'): counted here, every position on its first line, a
        # rename's edit included, landed one character to the right (tenth adversary L1).
        return read_disk(path).removeprefix("\ufeff")

    # --- changing -----------------------------------------------------------------------------

    def add(self, doc: Document) -> None:
        """Keep ``doc`` among the buffers of its path (:meth:`activate` makes it the one read).
        ``doc`` is a new open: it gets the next :attr:`Document.opening`, so no analysis of an
        earlier open of the file (closed since, or opened again over) holds for it, whatever
        its version says."""
        doc.opening = next(self._openings)
        self._views.setdefault(doc.path, {})[doc.uri] = doc

    def activate(self, doc: Document) -> bool:
        """Make ``doc`` the buffer analyses read for its file; True when another buffer of
        the same file was read until now (versions are per URI: analyses of it are stale)."""
        before = self._active.get(doc.path)
        self._active[doc.path] = doc
        return before is not None and before is not doc

    def remove(self, uri: str, path: str) -> Document | None:
        """Forget the buffer of ``uri``. Returns the buffer of another URI of the same file
        that must now be activated (the closed one was read), else None."""
        views = self._views.get(path, {})
        doc = views.pop(uri, None)
        if not views:
            self._views.pop(path, None)
            self._active.pop(path, None)
            return None
        if doc is not None and self._active.get(path) is doc:
            return next(reversed(views.values()))  # the file is still open elsewhere
        return None
