"""The runway language server (pygls 2): the one place where every LSP method is registered.

A thin adapter (docs/architecture.md §1-2): :class:`runway_lsp.session.Session` keeps the
open buffers and the analyses (:func:`runway_core.analysis.analyze` with a reader where open
buffers take precedence over the disk) and publishes diagnostics; each feature module
receives the session (and the settings where it needs them), never this module, and answers
with values built by :mod:`runway_lsp.convert`. :func:`create_server` registers each method
exactly once (pygls refuses a second handler); a notification that several features need
(``initialized``) is one handler that calls each of them in turn.

- didOpen, didChange and didClose are the protocol's own methods
  (:class:`runway_lsp.protocol.RunwayProtocol`), on the session's buffers.
- Handlers catch, log (stderr) and degrade to an empty result (runway_lsp/guard.py): no input
  crashes the server. ``RUNWAY_LSP_TEST_HOOKS=1`` adds the test-only request
  ``runway/_documentText`` (docs/reliability.md).
- Modules whose first use may wait (completion, quick fixes) are imported by their handler
  on first use, not at start-up (issue 6).

The catalogue is loaded once by the caller and passed in (docs/architecture.md §6).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from runway_core.catalog import Catalog

from . import __version__, convert, text_sync
from .convert import actions as convert_actions
from .convert import completion as convert_completion
from .convert import cost as convert_cost
from .guard import degrades
from .protocol import RunwayProtocol, _UnreadableJsonFilter
from .session import Session, Superseded
from .uris import uri_to_path

log = logging.getLogger("runway_lsp")

#: Set to ``1`` to register the test-only requests below (docs/reliability.md). Never set by
#: an editor: without it the server does not know these methods (MethodNotFound).
TEST_HOOKS_VARIABLE = "RUNWAY_LSP_TEST_HOOKS"
#: ``runway/_documentText`` (test hook): ``{uri}`` -> ``{uri, version, sha256, length}`` of the
#: server's buffer (UTF-8 sha256 of the text; length in code points), or null when not open.
DOCUMENT_TEXT_HOOK = "runway/_documentText"


class RunwayLanguageServer(LanguageServer):
    """pygls' server with the runway protocol and one :class:`Session` (``session``)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__("runway-lsp", __version__, protocol_cls=RunwayProtocol)
        pygls_log = logging.getLogger("pygls.server")
        if not any(isinstance(f, _UnreadableJsonFilter) for f in pygls_log.filters):
            pygls_log.addFilter(_UnreadableJsonFilter())
        rpc_log = logging.getLogger("pygls.protocol.json_rpc")
        if not any(isinstance(f, _SupersededFilter) for f in rpc_log.filters):
            rpc_log.addFilter(_SupersededFilter())
        self.session = Session(self, catalog)

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve on stdio with :mod:`runway_lsp.transport` (messages read on a thread, so a
        cancellation or an edit is seen while a handler waits at a checkpoint) instead of
        pygls' loop; returns after ``exit`` or the end of stdin."""
        import asyncio
        import sys
        import threading

        from . import transport

        self._stop_event = threading.Event()
        self.protocol.set_writer(transport.StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(transport.serve(stdin or sys.stdin.buffer, self.protocol, self.report_server_error, self.session.stop))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows "Error in server: ..." for out-of-band errors. A message body that is
        not JSON is no server error (and its id is unknown, so there is nothing to answer):
        it is only logged (:class:`_UnreadableJsonFilter`); a request superseded by an edit
        is answered with ContentModified and is no error either. Everything else keeps
        pygls' pop-up."""
        if isinstance(error, ValueError) and not isinstance(error, JsonRpcException):
            return
        if isinstance(error, Superseded):
            return
        super().report_server_error(error, source)


class _SupersededFilter(logging.Filter):
    """pygls logs every JsonRpcException a handler raises with its traceback; a request
    superseded by an edit (:class:`Superseded`) is ordinary, answered with ContentModified:
    one debug line at most."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, Superseded)


def checkpointed(session: Session, handler: Any) -> Any:
    """``handler`` (plain or ``async``) as an ``async`` handler that first awaits
    :meth:`Session.checkpoint`: a cancelled request stops there (RequestCancelled), one whose
    document was edited since it was sent is answered ContentModified; neither runs its
    expensive part. The wrapper keeps the signature (pygls reads its annotations)."""
    import inspect

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            await session.checkpoint()
            return await handler(*args, **kwargs)

        return run_async

    @functools.wraps(handler)
    async def run(*args: Any, **kwargs: Any) -> Any:
        await session.checkpoint()
        return handler(*args, **kwargs)

    return run


#: Navigation requests that walk a whole product (others answer from one node at once).
_CANCELLABLE_NAVIGATION = frozenset({types.TEXT_DOCUMENT_REFERENCES, types.TEXT_DOCUMENT_RENAME, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL})


def create_server(catalog: Catalog) -> RunwayLanguageServer:
    """A server with every feature registered; start it with ``start_io()``."""
    from . import cost_view, custom, navigation, scan, settings  # the features (they never import this module)

    server = RunwayLanguageServer(catalog)
    session = server.session
    config = settings.SettingsManager(session)
    workspace = scan.WorkspaceScan(session)
    costs_in_view = cost_view.CostView(session, config)
    notifier = custom.CostsNotifier(session, config)
    config.subscribe(costs_in_view.on_settings)
    # After every publication: lens/hint refreshes, then runway/costsChanged.
    session.on_published(costs_in_view.after_publish)
    session.on_published(notifier.after_publish)
    navigation.install_log_filter()
    feature = server.feature
    session.on_stop(workspace.stop)

    def cancellable(fn: Any) -> Any:  # the requests whose answer may take long on a big runway
        return checkpointed(session, fn)

    # --- lifecycle and settings ---------------------------------------------------------------

    @feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        config.on_initialize(params)

    @feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        workspace.start()  # a task: the scan must not hold up what follows
        config.on_initialized()
        text_sync.watch_files(session)

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        config.did_change_configuration(params)

    @feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        workspace.folders_changed(params)

    @feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        text_sync.did_change_watched_files(session, params)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        text_sync.did_save(session, params)

    # --- diagnostics, hovers, cost in view ----------------------------------------------------

    @feature(types.TEXT_DOCUMENT_DIAGNOSTIC, convert.diagnostic_options())
    @degrades("textDocument/diagnostic", lambda: convert.full_report([]))
    def diagnostic(params: types.DocumentDiagnosticParams):
        return convert.full_report(session.publisher.pull_diagnostics(params.text_document.uri))

    @feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams):
        return costs_in_view.hover_request(params)

    @feature(types.TEXT_DOCUMENT_CODE_LENS, convert_cost.code_lens_options())
    @cancellable
    async def code_lens(params: types.CodeLensParams):
        return await costs_in_view.code_lens_request(params)

    @feature(types.TEXT_DOCUMENT_INLAY_HINT, convert_cost.inlay_hint_options())
    @cancellable
    async def inlay_hint(params: types.InlayHintParams):
        return await costs_in_view.inlay_hint_request(params)

    @server.command(cost_view.SHOW_COST)
    def show_cost(*args):  # no annotations: pygls reads them to convert arguments
        return costs_in_view.show_cost_command(*args)

    @feature(custom.COSTS)
    @cancellable
    def runway_costs(params: Any):
        return custom.costs_request(session, config, params)

    @feature(custom.PLAN)
    @cancellable
    def runway_plan(params: Any):
        return custom.plan_request(session, config, params)

    # --- editing --------------------------------------------------------------------------------

    @feature(types.TEXT_DOCUMENT_CODE_ACTION, convert_actions.code_action_options())
    @cancellable
    @degrades("textDocument/codeAction", list)
    def code_action(params: types.CodeActionParams):
        from . import code_actions  # imported on first use: not at start-up (issue 6)

        return code_actions.code_actions(session, params)

    @feature(types.TEXT_DOCUMENT_COMPLETION, convert_completion.completion_options(convert_completion.TRIGGER_CHARACTERS))
    @cancellable
    @degrades("textDocument/completion", convert_completion.empty_list)
    def completion(params: types.CompletionParams):
        from . import completion as complete  # imported on first use: not at start-up (issue 6)

        return complete.complete(session, params)

    # --- navigation: handlers of (session, params), each method once ---------------------------

    for method, query in (
        (types.TEXT_DOCUMENT_DEFINITION, navigation.definition),
        (types.TEXT_DOCUMENT_REFERENCES, navigation.references),
        (types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, navigation.highlight),
        (types.TEXT_DOCUMENT_PREPARE_RENAME, navigation.prepare_rename),
        (types.TEXT_DOCUMENT_RENAME, navigation.rename),
        (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, navigation.document_symbol),
        (types.TEXT_DOCUMENT_DOCUMENT_LINK, navigation.document_link),
    ):
        handler = functools.partial(query, session)
        feature(method)(cancellable(handler) if method in _CANCELLABLE_NAVIGATION else handler)

    @feature(types.WORKSPACE_SYMBOL)
    @cancellable
    async def workspace_symbol(params: types.WorkspaceSymbolParams):
        return await workspace.workspace_symbol(params)

    if os.environ.get(TEST_HOOKS_VARIABLE) == "1":
        _register_test_hooks(server)
    return server


def _register_test_hooks(server: RunwayLanguageServer) -> None:
    import hashlib

    session = server.session

    @server.feature(DOCUMENT_TEXT_HOOK)
    def document_text(params: Any):
        uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
        doc = session.view(uri, uri_to_path(uri)) if isinstance(uri, str) else None
        if doc is None:
            return None
        digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()
        return {"uri": doc.uri, "version": doc.version, "sha256": digest, "length": len(doc.text)}
