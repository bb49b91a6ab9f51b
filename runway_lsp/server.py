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
from .session import Session
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
        self.session = Session(self, catalog)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows "Error in server: ..." for out-of-band errors. A message body that is
        not JSON is no server error (and its id is unknown, so there is nothing to answer):
        it is only logged (:class:`_UnreadableJsonFilter`). Everything else keeps pygls' pop-up."""
        if isinstance(error, ValueError) and not isinstance(error, JsonRpcException):
            return
        super().report_server_error(error, source)


def create_server(catalog: Catalog) -> RunwayLanguageServer:
    """A server with every feature registered; start it with ``start_io()``."""
    from . import cost_view, custom, navigation, scan, settings  # the features (they never import this module)

    server = RunwayLanguageServer(catalog)
    session = server.session
    config = settings.SettingsManager(session)
    workspace = scan.WorkspaceScan(session, config)
    costs_in_view = cost_view.CostView(session, config)
    notifier = custom.CostsNotifier(session, config)
    config.subscribe(costs_in_view.on_settings)
    config.subscribe(workspace.on_settings)
    # After every publication: lens/hint refreshes, then runway/costsChanged.
    session.on_published(costs_in_view.after_publish)
    session.on_published(notifier.after_publish)
    navigation.install_log_filter()
    feature = server.feature

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
    async def code_lens(params: types.CodeLensParams):
        return await costs_in_view.code_lens_request(params)

    @feature(types.TEXT_DOCUMENT_INLAY_HINT, convert_cost.inlay_hint_options())
    async def inlay_hint(params: types.InlayHintParams):
        return await costs_in_view.inlay_hint_request(params)

    @server.command(cost_view.SHOW_COST)
    def show_cost(*args):  # no annotations: pygls reads them to convert arguments
        return costs_in_view.show_cost_command(*args)

    @feature(custom.COSTS)
    def runway_costs(params: Any):
        return custom.costs_request(session, config, params)

    @feature(custom.PLAN)
    def runway_plan(params: Any):
        return custom.plan_request(session, config, params)

    # --- editing --------------------------------------------------------------------------------

    @feature(types.TEXT_DOCUMENT_CODE_ACTION, convert_actions.code_action_options())
    @degrades("textDocument/codeAction", list)
    def code_action(params: types.CodeActionParams):
        from . import code_actions  # imported on first use: not at start-up (issue 6)

        return code_actions.code_actions(session, params)

    @feature(types.TEXT_DOCUMENT_COMPLETION, convert_completion.completion_options(convert_completion.TRIGGER_CHARACTERS))
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
        feature(method)(functools.partial(query, session))

    @feature(types.WORKSPACE_SYMBOL)
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
