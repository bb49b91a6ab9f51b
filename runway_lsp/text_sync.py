"""Text synchronisation: ``textDocument/didOpen``, ``didChange``, ``didSave``, ``didClose``
applied to the session's buffers (runway_lsp/documents.py), and
``workspace/didChangeWatchedFiles`` for runway files changed on disk.

didOpen, didChange and didClose are the protocol's built-in methods
(:class:`runway_lsp.protocol.RunwayProtocol` replaces pygls' own, which would keep a second
copy in its workspace); the others are registered in :func:`runway_lsp.server.create_server`.
Each handler degrades (runway_lsp/guard.py). Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging
import os
from typing import Callable

from lsprotocol import types

from runway_core.workspace import ROOT_NAMES

from . import convert
from .convert import messages
from .documents import Document
from .guard import degrades
from .session import Session, log_failure
from .uris import has_lone_surrogates, unopenable_uri, uri_to_path, without_lone_surrogates

log = logging.getLogger("runway_lsp")

#: What the server asks the client to watch: every runway file of the workspace.
WATCHED_FILES = "**/runway.{yaml,yml}"
#: Most distinct URIs of one ``workspace/didChangeWatchedFiles`` looked at one by one
#: (docs/reliability.md): past it, every known product is re-checked instead.
MAX_WATCHED_CHANGES = 1000


@degrades("textDocument/didOpen")
def did_open(session: Session, params: types.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    path = uri_to_path(td.uri)
    session.opened(Document(td.uri, path, without_lone_surrogates(td.text), td.version))


@degrades("textDocument/didChange")
def did_change(session: Session, params: types.DidChangeTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    doc = session.view(params.text_document.uri, path)
    if doc is None:
        log.warning("didChange for a document that is not open: %s", params.text_document.uri)
        return
    session.activate(doc)
    changes = params.content_changes
    if not doc.in_sync:
        # Only a full-text change can bring a buffer that missed an edit back; the
        # incremental ones before it would land in the wrong place (issue 7).
        full = [i for i, c in enumerate(changes) if convert.is_whole_document(c)]
        if not full:
            log.warning("didChange for %s ignored: the buffer is out of sync since an unreadable edit", doc.uri)
            return
        changes = changes[full[-1]:]
        doc.in_sync = True
    before = doc.text
    try:
        for change in changes:
            doc.text = convert.apply_change(doc.text, change, session.encoding)
            if has_lone_surrogates(change.text):
                doc.text = without_lone_surrogates(doc.text)
    except Exception:  # noqa: BLE001 - an edit half applied: the buffer is no longer the editor's
        log.exception("textDocument/didChange failed")
        session.lost_change(doc.uri)
        return
    version, old = params.text_document.version, doc.version
    if isinstance(version, int) and isinstance(old, int) and version <= old:
        # LSP 3.17 (VersionedTextDocumentIdentifier): "the version number of a document will
        # increase after each change". The change is applied all the same (the client applied
        # it: refusing it would leave the buffer behind the editor's), but the analyses are
        # cached by buffer version, so a repeated one could be served an older text's: dropped.
        log.warning("didChange for %s: version %d after %d (versions increase, LSP 3.17); applied, cached analyses dropped",
                    doc.uri, version, old)
        session.invalidate()
    doc.version = version
    session.edited(path, before, doc.text)
    session.touch(path)


@degrades("textDocument/didSave")
def did_save(session: Session, params: types.DidSaveTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    doc = session.view(params.text_document.uri, path)
    if doc is not None and params.text is not None:
        doc.text = without_lone_surrogates(params.text)
        doc.in_sync = True  # the editor's whole text: whatever was missed is back
    session.invalidate()  # a save is when other files on disk may have changed too
    session.touch(path)


@degrades("textDocument/didClose")
def did_close(session: Session, params: types.DidCloseTextDocumentParams) -> None:
    session.closed(params.text_document.uri, uri_to_path(params.text_document.uri))


# --- files changed on disk ----------------------------------------------------------------------


@degrades("initialized: watching runway files")
def watch_files(session: Session) -> None:
    """Runway files changed on disk by something else than the editor's buffers (a deleted
    member, a ``git checkout``, another editor): the server registers a watcher for
    :data:`WATCHED_FILES` when the client allows dynamic registration (VS Code does; Neovim
    0.7 does not, and such a client's notifications are honoured all the same)."""
    ws = session.capabilities.workspace
    watched = ws.did_change_watched_files if ws is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    future = session.client.client_register_capability(messages.register_file_watcher("runway-files", WATCHED_FILES))
    future.add_done_callback(log_failure("registering for didChangeWatchedFiles"))


@degrades("workspace/didChangeWatchedFiles")
def did_change_watched_files(session: Session, params: types.DidChangeWatchedFilesParams) -> None:
    """Re-analyse the products of the runway files changed on disk, so a deleted member's
    diagnostics are cleared and its root reports RW151 at once rather than at the next edit.

    The events are coalesced first (:func:`coalesce_watched`): one notification may carry
    20,000 of them (a branch switch, or a hostile client: adversary S4 blocked the server
    for 40 s), and what is re-checked is the products they touch, not each path."""
    uris = dict.fromkeys(change.uri for change in params.changes)  # deduplicated, in order
    if len(uris) > MAX_WATCHED_CHANGES:
        # Past the bound, no work per path (each costs a realpath, ~0.1 ms): every product
        # the server knows (published or open) is checked again from disk, once.
        session.invalidate()
        known = dict.fromkeys(session.publisher.published_groups() + list(session.documents))
        log.warning("didChangeWatchedFiles: %d changes (over %d): every known product re-checked (%d)", len(uris), MAX_WATCHED_CHANGES, len(known))
        for path in known:
            session.touch(path)
        return
    long = {uri for uri in uris if unopenable_uri(uri)}
    if long:
        # A path past PATH_MAX/NAME_MAX names no file: walking its (20,000) parent folders
        # held the message loop ~15 s (eighth adversary F4).
        log.warning("didChangeWatchedFiles: %d change(s) of a path longer than the OS opens (PATH_MAX 4096, NAME_MAX 255) skipped", len(long))
        uris = {uri: None for uri in uris if uri not in long}
    paths = dict.fromkeys(uri_to_path(uri) for uri in uris)
    # Not a runway, or open: the editor's buffer wins over the disk.
    changed = [p for p in paths if os.path.basename(p) in ROOT_NAMES and p not in session.documents]
    if not changed:
        return
    session.invalidate()  # once: analyses are rebuilt from what is open and on disk
    kept = coalesce_watched(changed, session.publisher.owner_of)
    if len(kept) < len(changed):
        log.info("didChangeWatchedFiles: %d runway path(s) coalesced into %d", len(changed), len(kept))
    for path in kept:
        session.touch(path)


def coalesce_watched(paths: list[str], owner_of: Callable[[str], str | None]) -> list[str]:
    """The paths of ``paths`` (distinct runway files) worth re-checking: each one that exists
    or was given diagnostics (``owner_of``: its group, to re-publish or clear), and, of those
    that neither exist nor were ever published, one per nearest existing folder above them.
    Such a path is in no product but through a root above it that may list its folder (which
    then reports RW151): the first path under that folder stands for all of them, since a
    runway file's product is found by walking up existing folders. Costs one ``lstat`` per
    path and one ``isdir`` per distinct folder; reads nothing."""
    kept: list[str] = []
    folders: dict[str, str] = {}  # folder -> nearest existing folder at or above it
    represented: set[str] = set()
    for path in paths:
        if owner_of(path) is not None or os.path.lexists(path):
            kept.append(path)
            continue
        folder, walked = os.path.dirname(path), []
        while folder not in folders and not os.path.isdir(folder) and os.path.dirname(folder) != folder:
            walked.append(folder)
            folder = os.path.dirname(folder)
        existing = folders.get(folder, folder)
        for f in walked + [folder]:
            folders[f] = existing
        if existing not in represented:
            represented.add(existing)
            kept.append(path)
    return kept
