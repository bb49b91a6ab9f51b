"""Publishing diagnostics: who owns each file's diagnostics, what the client was sent.

- Diagnostics are pushed (``textDocument/publishDiagnostics``, with the document version) for
  every file of the analysis, and answered on pull (``textDocument/diagnostic``). A client
  that pulls gets no push for its open documents (VS Code would show them twice) and a
  ``workspace/diagnostic/refresh`` when another open document's diagnostics change.
- Results computed for an older text are never sent; an unchanged file is not pushed again
  after every keystroke in another one.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from typing import Any

from lsprotocol import types

from runway_core.analysis import Analysis
from runway_core.diagnostics import Diagnostic
from runway_core.positions import LineIndex

from . import convert
from .analysis_thread import DISK
from .documents import lsp_version
from .uris import path_to_uri, real_path

log = logging.getLogger("runway_lsp")

#: Files whose diagnostics are pushed in one step of the event loop when a big product is
#: published (then requests first); the workspace scan uses the same (runway_lsp/scan.py).
PUBLISH_CHUNK = 25


class Publisher:
    """The publishing state of one session (``session``: a :class:`runway_lsp.session.Session`,
    for its buffers, analyses, client, flags and :meth:`~runway_lsp.session.Session.publish_group`)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._published_uri: dict[str, str] = {}  # path -> the URI its diagnostics went to
        self._owner: dict[str, str] = {}  # path -> group whose diagnostics it last received
        self._pushed: set[str] = set()  # paths whose last push was non-empty
        self._last: dict[str, tuple[Diagnostic, ...]] = {}  # path -> last diagnostics computed
        # path -> (version, diagnostics with their data) last pushed by publish_group: an
        # unchanged file is not pushed again after every keystroke in another one.
        self._sent: dict[str, tuple[Any, tuple]] = {}
        # path -> the diagnostics the client shows for an open file (pushed or pulled), and
        # the paths whose newest diagnostics were held back while a line was being typed.
        #: path -> (the URI they were sent under, the diagnostics the client shows there)
        self._shown: dict[str, tuple[str | None, tuple[Diagnostic, ...]]] = {}
        self.held: dict[str, bool] = {}

    # --- queries ------------------------------------------------------------------------------

    def owner_of(self, path: str) -> str | None:
        """The group whose diagnostics ``path`` last received."""
        return self._owner.get(path)

    def published_groups(self) -> list[str]:
        """Every group some path last received diagnostics from (root runway paths), sorted."""
        return sorted(set(self._owner.values()))

    def last_diagnostics(self, path: str) -> tuple[Diagnostic, ...] | None:
        """The diagnostics last computed for ``path`` (pushed or pulled)."""
        return self._last.get(path)

    def diagnostics_of(self, an: Analysis, path: str) -> tuple[Diagnostic, ...]:
        """The diagnostics ``path`` shows from analysis ``an``: its own, and on the root those of
        a usage file that cannot be a document (a folder: its RW200, at the root's 1:1, naming
        it), so that what the editor shows adds up to ``runway/plan``'s count (tenth adversary
        L3). A usage file the server did not read but a client can name (missing, a FIFO, a
        link leaving the product, a file it may not read) keeps its RW200 under its own URI:
        :meth:`runway_lsp.grouping.Grouping.group_of` gives it to its product."""
        diags = tuple(an.diagnostics.get(path, ()))
        if path != an.root_file:
            return diags
        usage = self.session.analyses.unread_usage(an)
        if usage is None or not os.path.isdir(usage):
            return diags
        name = os.path.relpath(usage, os.path.dirname(an.root_file))
        moved = tuple(dataclasses.replace(d, file=path, message=d.message if name in d.message else f"{d.message} (`{name}`)")
                      for d in an.diagnostics[usage])
        return diags + moved

    def forget_sent(self, path: str) -> None:
        """The client's buffer of ``path`` changed identity: push its diagnostics again."""
        self._sent.pop(path, None)

    # --- pushing ------------------------------------------------------------------------------

    def push(self, path: str, version: Any, diags: list[types.Diagnostic]) -> None:
        s = self.session
        doc = s.documents.get(path)
        before = self._published_uri.get(path)
        # An open file under the client's URI for it; a closed one where its diagnostics went
        # (so closing a file opened through a symlinked folder clears them there).
        uri = doc.uri if doc is not None else before or path_to_uri(path)
        if before is not None and before != uri:
            # The file was published under another URI (its other editor, now inactive).
            s.client.text_document_publish_diagnostics(convert.publish_params(before, None, []))
        self._published_uri[path] = uri
        s.client.text_document_publish_diagnostics(convert.publish_params(uri, version if isinstance(version, int) else None, diags))
        if diags:
            self._pushed.add(path)
        else:
            self._pushed.discard(path)
        self._sent.pop(path, None)  # publish_group notes what it pushed after this call

    def clear_if_pushed(self, path: str) -> None:
        """Clear the pushed diagnostics of ``path`` (the client pulls it from now on)."""
        if path in self._pushed:
            self.push(path, None, [])

    def _lines(self, an: Analysis, path: str) -> LineIndex:
        src = an.files.get(path)
        if src is not None:
            return src.parsed.lines
        doc = self.session.documents.get(path)
        return LineIndex(doc.text if doc is not None else "")

    def publish_group(self, key: str, changed: set[str]) -> None:
        """Push the diagnostics of every file of group ``key``; clear files that left it.

        With no open document left in the group, its files keep the diagnostics of their
        text on disk when the workspace scan reports them (``runway.diagnosticMode``
        ``workspace``: ``Session.keeps_closed``), else they are cleared: nothing watches them. Other groups are published through the session (so that what
        follows a publication follows theirs too).
        """
        s = self.session
        analyses = s.analyses
        an = analyses.analysis(key)
        record = analyses.versions_read(key)
        files = list(dict.fromkeys([*an.files, *an.diagnostics]))
        owned_before = {p for p, g in self._owner.items() if g == key}
        if not any(p in s.documents for p in files):
            if s.keeps_closed(key):
                # The workspace mode: the files keep the diagnostics of their text on disk (the
                # analysis above read the disk: no buffer is open), as the scan published them.
                self.publish_closed_group(key, an, files)
                for p in sorted(owned_before - set(files)):
                    self._owner.pop(p, None)
                    self._last.pop(p, None)
                    self.push(p, None, [])
                return
            analyses.drop(key)
            for p in sorted(owned_before | ({key} if key in self._pushed else set())):
                self._owner.pop(p, None)
                self._last.pop(p, None)
                if p in s.documents and p not in files:
                    # An open file this group no longer holds (its root was deleted or stopped
                    # listing it): it gets its own group's diagnostics now, not nothing.
                    s.publish_group(s.group_of(p), changed | {p})
                else:
                    self.push(p, None, [])
            return
        refresh = False
        # Open documents first; past PUBLISH_CHUNK files the closed ones follow in parts, one
        # per step of the event loop (issue 16 item 7: 1,000 pushes held requests 0.3-0.9 s).
        ordered = [p for p in files if p in s.documents] + [p for p in files if p not in s.documents]
        now, later = ordered[:max(PUBLISH_CHUNK, len(s.documents))], ordered[max(PUBLISH_CHUNK, len(s.documents)):]
        for path in now:
            refresh = self._publish_file(key, an, record, path, changed) or refresh
        if later:
            self._publish_later(key, an, record, later, changed)
        for path in sorted(owned_before - set(files)):
            self._owner.pop(path, None)
            self._last.pop(path, None)
            if path in s.documents:
                s.publish_group(s.group_of(path), changed | {path})
            else:
                self.push(path, None, [])
        if refresh and s.pull and s.refresh_support:
            s.client.workspace_diagnostic_refresh(None, callback=lambda _r: None)

    def _publish_file(self, key: str, an: Analysis, record: dict[str, Any], path: str, changed: set[str]) -> bool:
        """Push the diagnostics of ``path`` from group ``key``'s analysis ``an`` (``record``:
        the versions it read) unless they are for an older text or already sent; True when an
        open document not edited now got other diagnostics (a pulling client refreshes)."""
        s = self.session
        analyses = s.analyses
        if s.group_of(path) != key:
            return False  # another group claims it (a nested root, or a root that now lists it)
        # The version of the text the analysis read: a usage file that is a link inside the
        # product is keyed by its own path but read (and recorded) as its target.
        read_as = record.get(path, DISK) if path in record else record.get(real_path(path), DISK)
        if read_as != analyses.version(path) and not (path not in record and path == analyses.unread_usage(an)):
            # Never send results computed for an older text. A usage file refused before any
            # read (a link leaving the product) has no text its RW200 was computed for.
            return False
        diags = self.diagnostics_of(an, path)
        open_doc = path in s.documents
        refresh = open_doc and path not in changed and self._last.get(path) != diags
        self._last[path] = diags
        self._owner[path] = key
        if s.pull and open_doc:
            if path in self._pushed:
                self.push(path, None, [])  # the pull now owns it: no duplicates
            return refresh
        if open_doc:
            diags = self._quiet(path, diags)
        sent = (record.get(path), tuple((d, d.data) for d in diags))
        if self._sent.get(path) == sent:
            return refresh  # the client has exactly these for this version
        converted = convert.to_diagnostics(diags, self._lines(an, path), s.encoding)
        self.push(path, lsp_version(record.get(path)), converted)
        self._sent[path] = sent
        return refresh

    def _publish_later(self, key: str, an: Analysis, record: dict[str, Any], paths: list[str], changed: set[str]) -> None:
        """Publish ``paths`` (closed files of group ``key``) :data:`PUBLISH_CHUNK` per step of
        the event loop, while ``an`` is still the group's analysis (a newer publication of
        the group covers them otherwise) and the session runs."""
        s = self.session

        def step(at: int) -> None:
            if s.stopped or s.analyses.cached(key) is not an:
                return
            try:
                with s.analyses.memoised():  # one synchronous step: no buffer changes inside
                    for path in paths[at:at + PUBLISH_CHUNK]:
                        self._publish_file(key, an, record, path, changed)
            except Exception:  # noqa: BLE001 - docs/architecture.md §7
                log.exception("publishing diagnostics of %s failed", key)
                return
            if at + PUBLISH_CHUNK < len(paths):
                asyncio.get_running_loop().call_soon(step, at + PUBLISH_CHUNK)

        asyncio.get_running_loop().call_soon(step, 0)

    def publish_closed_group(self, root: str, an: Analysis, files: list[str] | None = None) -> int:
        """Push the diagnostics of every file of ``root``'s analysis ``an`` (``files``: these
        of them, a part of :meth:`closed_group_files` that the caller checked just now);
        returns how many files. Only for a group with no open document (0 otherwise): an
        open one is published by ``didOpen`` (and a pulling client must not get pushes for
        its open documents)."""
        s = self.session
        if files is None:
            files = self.closed_group_files(an)
            if files is None:
                return 0
        count = 0
        for path in files:
            if s.group_of(path) != root:
                continue  # a nested root claims it
            diags = self.diagnostics_of(an, path)
            src = an.files.get(path)
            lines = src.parsed.lines if src is not None else LineIndex("")
            self._owner[path] = root
            self._last[path] = diags
            self.push(path, None, convert.to_diagnostics(diags, lines, s.encoding))
            count += 1
        return count

    def closed_group_files(self, an: Analysis) -> list[str] | None:
        """The files of analysis ``an`` (root first), or None when one of them is open."""
        files = list(dict.fromkeys([*an.files, *an.diagnostics]))
        docs = self.session.documents
        return None if any(p in docs for p in files) else files

    def clear_closed_group(self, root: str) -> None:
        """Clear the diagnostics of the closed files group ``root`` owns (its workspace
        folder was removed); open files keep theirs."""
        s = self.session
        for path in [p for p, g in self._owner.items() if g == root and p not in s.documents]:
            self._owner.pop(path, None)
            self._last.pop(path, None)
            self.push(path, None, [])

    # --- pulling ------------------------------------------------------------------------------

    def pull_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The answer to ``textDocument/diagnostic`` for ``uri``."""
        s = self.session
        path = s.documents.request_path(uri)
        if path is None:
            return []  # not a runway: never read a file the client did not give us
        active = s.documents.get(path)
        if active is not None and active.uri != uri and s.documents.has_view(uri, path):
            return []  # the file's other URI holds the buffer analysed: its ranges are that text's
        an = s.analysis_for(path)
        diags = self.diagnostics_of(an, path)
        self._last[path] = diags
        if path in s.documents:
            diags = self._quiet(path, diags)
        return convert.to_diagnostics(diags, self._lines(an, path), s.encoding)

    def _quiet(self, path: str, diags: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
        """What to send now for the open file ``path``: the diagnostics on lines being typed
        on wait for the pause (runway_lsp/typing_pause.py); notes that some were held."""
        # What the client shows is per URI: a file open under two URIs (a symlinked folder)
        # shows its diagnostics only under the one published to last (``push``), so the other
        # URI's words are never what this one shows.
        doc = self.session.documents.get(path)
        uri = doc.uri if doc is not None else None
        shown_uri, shown_before = self._shown.get(path, (None, ()))
        now, held = self.session.typing.split(path, diags, shown_before if shown_uri == uri else ())
        shown = tuple(now)
        self._shown[path] = (uri, shown)
        if held:
            self.held[path] = True
        return shown
