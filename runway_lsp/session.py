"""One client session of the runway server: open buffers, cached analyses and publishing,
behind public methods that every feature module receives (none of them imports the server).

- Pushes are debounced and computed from the newest text (:mod:`runway_lsp.schedule`): no
  result computed for an older version is ever sent (runway_lsp/publish.py). A big product
  (runway_lsp/analyses.py) is analysed on the analysis thread: its publication waits for the
  result to land and is made then, every version read checked (docs/architecture.md,
  "Threads of the server").
- What follows a publication (lens and hint refreshes, ``runway/costsChanged``) subscribes
  with :meth:`Session.on_published` and runs, in subscription order, after every group is
  published, also a group published because another one changed.

The session talks to the client through ``client``: the pygls ``LanguageServer`` (its
public request and notification methods, ``client_capabilities`` and ``workspace``). The
catalogue is loaded once by the caller and passed in (docs/architecture.md §6).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any, Callable

from lsprotocol import types

from runway_core.analysis import Analysis, parse_file
from runway_core.catalog import Catalog
from runway_core.yamlsrc import ParsedYaml

from . import convert
from .analyses import Analyses
from .convert import messages
from .documents import Buffers, Document
from .held import Held, HeldCosts
from .publish import Publisher
from .request_receipts import MAX_RECEIPTS, RequestReceipts
from .schedule import PublishSchedule
from .typing_pause import TYPED_LINES, TypingPause, changed_lines
from .uris import path_to_uri, uri_to_path

log = logging.getLogger("runway_lsp")

PublishListener = Callable[[str], None]


class Session:
    """Open buffers (:attr:`documents`), analyses (:attr:`analyses`), publishing
    (:attr:`publisher`) and the negotiated client features of one client session."""

    def __init__(self, client: Any, catalog: Catalog) -> None:
        self.client = client
        self.encoding: Any = "utf-16"
        self.pull = False  # the client pulls diagnostics (textDocument.diagnostic)
        self.refresh_support = False  # ... and accepts workspace/diagnostic/refresh
        self.documents = Buffers()
        self.analyses = Analyses(self.documents, catalog)
        self.publisher = Publisher(self)
        self._listeners: list[PublishListener] = []
        self.schedule = PublishSchedule(self)
        self.analyses.landed.append(self.schedule.landed)
        self.idle_gc = False  # see runway_lsp.schedule.IDLE_GC_S
        #: Lines being typed on: their diagnostics wait for the pause (runway_lsp/typing_pause.py).
        self.typing = TypingPause()
        self._pause_timers: dict[str, asyncio.TimerHandle] = {}
        self.stopped = False  # after shutdown: nothing more is scheduled or published
        #: Whether a group's closed files keep their diagnostics once none of its files is
        #: open (the workspace scan's :meth:`~runway_lsp.scan.WorkspaceScan.keeps`); else cleared.
        self.keeps_closed: Callable[[str], bool] = lambda key: False
        self._stop_listeners: list[Callable[[], None]] = []
        self.requests = RequestReceipts()  # which request arrived before which edit
        #: The last complete cost of items whose size is being fixed (runway_lsp/held.py).
        self.held_costs = HeldCosts()

    # --- the client -------------------------------------------------------------------------

    @property
    def capabilities(self) -> types.ClientCapabilities:
        """The client's capabilities (from ``initialize``)."""
        return self.client.client_capabilities

    @property
    def catalog(self) -> Catalog:
        return self.analyses.catalog

    def set_client(self, caps: types.ClientCapabilities, encoding: Any) -> None:
        """Note what ``initialize`` negotiated: the position encoding, pull diagnostics."""
        self.encoding = convert.encoding_of(encoding)
        td = caps.text_document
        self.pull = td is not None and td.diagnostic is not None
        ws = caps.workspace
        self.refresh_support = bool(ws is not None and ws.diagnostics is not None and ws.diagnostics.refresh_support)
        log.info("client: position encoding %s, pull diagnostics %s, refresh %s", self.encoding, self.pull, self.refresh_support)

    def warn(self, message: str) -> None:
        """Show ``message`` as a warning (``window/showMessage``)."""
        self.client.window_show_message(messages.warning(message))

    def uri_of(self, path: str) -> str:
        """The client's URI of ``path``: its open buffer's, else the ``file:`` URI."""
        doc = self.documents.get(path)
        return doc.uri if doc is not None else path_to_uri(path)

    # --- reading and analyses ---------------------------------------------------------------

    def read_live(self, path: str) -> str:
        """Text of ``path``: the open buffer if any, else the disk (may raise OSError)."""
        return self.documents.read_live(path)

    def analysis(self, key: str) -> Analysis:
        """The analysis of group ``key`` for the current buffers (cached while they hold)."""
        return self.analyses.analysis(key)

    def held(self, key: str, an: Analysis | None = None) -> Held:
        """What the cost views of group ``key`` show for ``an`` (its analysis when None):
        items whose size is being fixed keep their last complete cost (runway_lsp/held.py)."""
        return self.held_costs.view(key, self.analysis(key) if an is None else an)

    def group_of(self, path: str) -> str:
        """The group (root runway, or ``path`` alone) that ``path`` belongs to."""
        return self.analyses.group_of(path)

    def analysis_for(self, path: str) -> Analysis:
        return self.analyses.analysis_for(path)

    def analysis_while_typing(self, path: str) -> tuple[Analysis, ParsedYaml | None]:
        """For a request sent while the user types (completion right after a keystroke):
        ``(analysis, parse)``. When the last analysis of the file's product is stale only
        because of this file's newest keystrokes, it is returned with a fresh parse of the
        buffer (``parse_file``: the analysis that follows reuses it), so the answer waits for
        a parse, not for the whole product's analysis (issue 6: 37 -> ~15 ms on a
        3,100-line root with 70 members). Names, sizes and costs are then those of the
        last analysis, at most the keystrokes since it old; diagnostics are unaffected.
        Otherwise ``(analysis_for(path), None)``."""
        stale = self.analyses.stale_only_in(self.publisher.owner_of(path) or path, path)
        if stale is not None:
            doc = self.documents.get(path)
            assert doc is not None  # stale_only_in found its buffer
            return stale, parse_file(doc.text, path)
        return self.analysis_for(path), None

    def invalidate(self) -> None:
        """Forget every cached analysis (files on disk may have changed: a save, a watched
        file); the next request or publication analyses again."""
        self.analyses.clear()

    def use_catalog(self, catalog: Catalog) -> None:
        """Analyse every open runway again with ``catalog`` and re-publish diagnostics."""
        self.analyses.catalog = catalog
        self.analyses.clear()  # cached analyses priced with the old catalogue
        self.held_costs.forget()  # ... and the costs held while a size is fixed
        log.info("catalogue: %s", catalog.origin)
        for path in list(self.documents):
            self.touch(path)
        if self.pull and self.refresh_support:
            # Open documents are pulled, not pushed: ask the client to pull again.
            self.client.workspace_diagnostic_refresh(None).add_done_callback(log_failure("workspace/diagnostic/refresh"))

    def use_usage_file(self, usage_file: str | None) -> None:
        """Read ``usage_file`` (relative to each root's folder; None: ``runway.usage.yaml``
        beside it) as every product's usage file, analyse every open runway again and
        re-publish (the ``usagePath`` setting)."""
        if usage_file == self.analyses.usage_file:
            return
        self.analyses.usage_file = usage_file
        self.analyses.clear()
        log.info("usage file: %s", usage_file or "runway.usage.yaml beside each root")
        for path in list(self.documents):
            self.touch(path)
        if self.pull and self.refresh_support:
            self.client.workspace_diagnostic_refresh(None).add_done_callback(log_failure("workspace/diagnostic/refresh"))

    # --- buffers ----------------------------------------------------------------------------

    def opened(self, doc: Document) -> None:
        self.documents.add(doc)
        self.activate(doc)
        if self.pull:
            self.publisher.clear_if_pushed(doc.path)  # from now on the client pulls it: no duplicates
        self.touch(doc.path)

    def view(self, uri: str, path: str) -> Document | None:
        """The open buffer of ``uri`` (``path`` is its real path), if open."""
        return self.documents.view(uri, path)

    def activate(self, doc: Document) -> None:
        """Make ``doc`` the buffer analyses read for its file (it was opened or edited last)."""
        if self.documents.activate(doc):
            # Versions are per URI: an analysis of the other buffer may carry the same number.
            self.analyses.clear()
            self.publisher.forget_sent(doc.path)

    def edited(self, path: str, before: str, after: str) -> None:
        """A didChange turned ``before`` into ``after``: the lines it changed are busy, and
        once they are left alone for :data:`~runway_lsp.typing_pause.PAUSE_S` the held
        diagnostics go out (:meth:`_pause_over`)."""
        self.typing.moved(path, before, after)  # even for a paste: what is shown moves with it
        lines = changed_lines(before, after)
        if len(lines) > TYPED_LINES:
            return  # a paste, an applied edit: not typing, nothing to wait for
        self.typing.edited(path, lines)
        due = self.typing.due_in(path)
        if due is None or self.stopped:
            return
        old = self._pause_timers.pop(path, None)
        if old is not None:
            old.cancel()
        self._pause_timers[path] = asyncio.get_running_loop().call_later(due + 0.005, self._pause_over, path)

    def _pause_over(self, path: str) -> None:
        self._pause_timers.pop(path, None)
        if self.stopped:
            return
        due = self.typing.due_in(path)
        if due is not None:  # typed again meanwhile: wait for that pause
            self._pause_timers[path] = asyncio.get_running_loop().call_later(due + 0.005, self._pause_over, path)
            return
        held = self.publisher.held.pop(path, False)
        self.touch(path)  # push clients get the whole set; lenses and costs refresh after it
        if held and self.pull and self.refresh_support and path in self.documents:
            self.client.workspace_diagnostic_refresh(None).add_done_callback(log_failure("workspace/diagnostic/refresh"))

    def closed(self, uri: str, path: str) -> None:
        other = self.documents.remove(uri, path)
        if other is not None:
            self.activate(other)
        else:
            self.typing.forget(path)
            timer = self._pause_timers.pop(path, None)
            if timer is not None:
                timer.cancel()
        self.touch(path)

    def lost_change(self, uri: str) -> None:
        """A didChange for ``uri`` could not be read: its open buffer no longer matches the
        editor's. Its diagnostics, costs and edits stay those of the last version read (edits
        carry that version, so an editor refuses them) until the file is reopened or the
        editor sends its whole text; the user is told once."""
        try:
            doc = self.view(uri, uri_to_path(uri))
        except Exception:  # noqa: BLE001 - an odd URI: nothing open under it
            return
        if doc is None or not doc.in_sync:
            return
        doc.in_sync = False
        name = os.path.basename(doc.path)
        self.warn(f"runway: the editor sent an edit to {name} that could not be read; its diagnostics and costs "
                  f"are paused at the last version read. Close and reopen {name} to resume.")

    # --- requests: cancellation and superseding ---------------------------------------------

    def received(self, msg_id: Any, uri: str) -> None:
        """Note that request ``msg_id`` about ``uri`` arrived now (before any handler ran):
        :meth:`checkpoint` compares the document's edits since."""
        try:
            path = uri_to_path(uri)
        except ValueError:
            return
        self.requests.received(msg_id, path)

    async def checkpoint(self) -> None:
        """Await this before the expensive part of a request handler (a task: pygls runs
        ``async`` handlers as tasks). It lets every message that arrived meanwhile be handled
        first (runway_lsp/transport.py reads them on a thread): a ``$/cancelRequest`` for
        this request cancels it here (RequestCancelled, -32800); an edit, open, close or save
        of its document since it was received raises :class:`Superseded` (ContentModified,
        -32801); after ``shutdown`` it is cancelled."""
        msg_id = self.client.protocol.msg_id
        await asyncio.sleep(0)
        read = getattr(self.client, "messages_read", None)
        handled = getattr(self.client, "messages_handled", None)
        if read is not None and handled is not None:
            # The messages read by now are handled before this request; not those read later:
            # while a client types without a pause (a message every few milliseconds) and a
            # publication steps between them, waiting for none to be pending held a request
            # for seconds (round 3, a fresh reviewer: ContentModified 5 s late).
            read_by_now = read()
            for _ in range(MAX_RECEIPTS):  # bounded
                if handled() >= read_by_now:
                    break
                await asyncio.sleep(0)
        if self.stopped:
            raise asyncio.CancelledError
        self.requests.check(msg_id)

    def on_stop(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` once when the session stops (shutdown, exit, end of stdin)."""
        self._stop_listeners.append(listener)

    def stop(self) -> None:
        """The client asked to shut down (or left): cancel the debounce and collection timers
        and tell the :meth:`on_stop` listeners (the workspace scan), so nothing scheduled
        writes to the client after ``exit`` closed stdout (issue 16)."""
        if self.stopped:
            return
        self.stopped = True
        self.schedule.stop()
        self.analyses.stop()  # jobs not started are cancelled; nothing lands after this
        for timer in self._pause_timers.values():  # held diagnostics of typed lines
            timer.cancel()
        self._pause_timers.clear()
        for listener in self._stop_listeners:
            try:
                listener()
            except Exception:  # noqa: BLE001 - docs/architecture.md §7
                log.exception("stopping %s failed", getattr(listener, "__qualname__", listener))

    # --- scheduling and publishing ----------------------------------------------------------

    def on_published(self, listener: PublishListener) -> None:
        """Call ``listener(group_key)`` after the diagnostics of a group are published; an
        exception it raises is logged and does not stop the others."""
        self._listeners.append(listener)

    def publish_group(self, key: str, changed: set[str]) -> None:
        """Publish the diagnostics of group ``key`` (``changed``: the paths edited since the
        last publication), then tell the :meth:`on_published` listeners."""
        self.publisher.publish_group(key, changed)
        for listener in self._listeners:
            try:
                listener(key)
            except Exception:  # noqa: BLE001 - docs/architecture.md §7
                log.exception("after publishing %s: %s failed", key, getattr(listener, "__qualname__", listener))

    def touch(self, path: str) -> None:
        """Note a change of ``path`` and (re)start the debounce timer (:class:`PublishSchedule`)."""
        self.requests.changed(path)
        self.analyses.changed()  # an analysis in steps under way reads older texts
        if not self.stopped:
            self.schedule.touch(path)


def log_failure(what: str) -> Callable[[Any], None]:
    """A done-callback for a request to the client: log (not raise) an error answer."""

    def check(future: Any) -> None:
        try:
            future.result()
        except Exception as exc:  # noqa: BLE001 - the client may not support it: not fatal
            log.info("%s: the client answered %s", what, exc)

    return check
