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
  crashes the server. ``RUNWAY_LSP_TEST_HOOKS=1`` adds the test-only requests
  ``runway/_documentText``, ``runway/_holdAnalyses`` and ``runway/_strayOutput`` (docs/reliability.md).
- Modules whose first use may wait (completion, quick fixes) are imported by their handler
  on first use, not at start-up (issue 6).

The catalogue is loaded once by the caller and passed in (docs/architecture.md §6).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from . import __version__, convert
from .convert import actions as convert_actions
from .convert import completion as convert_completion
from .convert import cost as convert_cost
from .convert import messages as convert_messages
from .guard import Superseded, degrades
from .protocol import RunwayProtocol, _UnreadableJsonFilter
from .uris import uri_to_path

if TYPE_CHECKING:
    from runway_core.catalog import Catalog

    from .session import Session

log = logging.getLogger("runway_lsp")

#: Set to ``1`` to register the test-only requests below (docs/reliability.md). Never set by
#: an editor: without it the server does not know these methods (MethodNotFound).
TEST_HOOKS_VARIABLE = "RUNWAY_LSP_TEST_HOOKS"
#: ``runway/_documentText`` (test hook): ``{uri}`` -> ``{uri, version, sha256, length}`` of the
#: server's buffer (UTF-8 sha256 of the text; length in code points), or null when not open.
DOCUMENT_TEXT_HOOK = "runway/_documentText"
#: ``runway/_holdAnalyses`` (test hook): ``{hold: true}`` -> null: no analysis starts on the
#: analysis thread until ``{hold: false}`` (a test sees the server while a product is being
#: analysed, with no clock).
HOLD_ANALYSES_HOOK = "runway/_holdAnalyses"
#: ``runway/_strayOutput`` (test hook): ``{text}`` -> null, after writing ``text`` to stderr
#: every way but a log call: ``warnings.warn``, ``print()`` (to ``sys.stdout``, which is
#: stderr) and ``print(file=sys.stderr)``, an exception uncaught in a thread, one raised in a
#: ``__del__`` (runway_lsp.log_redaction.guard_stray_output must redact each).
STRAY_OUTPUT_HOOK = "runway/_strayOutput"


class RunwayLanguageServer(LanguageServer):
    """pygls' server with the runway protocol and one :class:`Session` (``session``).

    Start-up (issue 16, item 9): the server answers ``initialize`` with what pygls and
    lsprotocol alone need (the capabilities come from the registrations, whose options are
    built by :mod:`runway_lsp.convert`). Runway's own modules (the analysis, the pydantic
    models, the YAML loader, the features) and the catalogue are loaded by :meth:`load`, run
    right after the ``initialize`` response is written (or by the first use of
    :attr:`session`, whichever comes first); the client's ``initialized`` and ``didOpen``
    follow it, so the first diagnostics wait for the same work, moved, not added."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        super().__init__("runway-lsp", __version__, protocol_cls=RunwayProtocol)
        pygls_log = logging.getLogger("pygls.server")
        if not any(isinstance(f, _UnreadableJsonFilter) for f in pygls_log.filters):
            pygls_log.addFilter(_UnreadableJsonFilter())
        rpc_log = logging.getLogger("pygls.protocol.json_rpc")
        if not any(isinstance(f, _SupersededFilter) for f in rpc_log.filters):
            rpc_log.addFilter(_SupersededFilter())
        self._catalog = catalog
        self._session: Session | None = None
        self._client_setup: tuple[Any, Any] | None = None
        self._on_load: list[Callable[[Session], None]] = []
        #: Set by runway-lsp: the cyclic GC is off and collected when idle (Session.idle_gc).
        self.idle_gc = False

    @property
    def session(self) -> Session:
        """The client session (loaded on first use: :meth:`load`)."""
        if self._session is None:
            self.load()
        assert self._session is not None
        return self._session

    def on_load(self, listener: Callable[[Session], None]) -> None:
        """Call ``listener(session)`` when :meth:`load` has built the session."""
        self._on_load.append(listener)

    def load(self) -> None:
        """Load the catalogue (unless given) and runway's modules, build the session and the
        features. A catalogue that cannot be loaded ends the server (exit 1), as before it
        started (runway_lsp/__main__.py)."""
        if self._session is not None:
            return
        import gc

        from runway_core.catalog import CatalogError, load_catalog

        from .session import Session

        catalog = self._catalog
        if catalog is None:
            try:
                catalog = load_catalog()
            except (CatalogError, OSError) as exc:
                log.error("cannot load the catalogue: %s", exc)
                raise SystemExit(1) from None
        session = self._session = Session(self, catalog)
        session.idle_gc = self.idle_gc
        if self._client_setup is not None:
            session.set_client(*self._client_setup)
        for listener in self._on_load:
            listener(session)
        if self.idle_gc:
            gc.freeze()  # what was just loaded lives as long as the server (runway_lsp/__main__.py)

    def messages_read(self) -> int:
        """Messages read from the client so far (0 when not serving stdio)."""
        counts = getattr(self, "_counts", None)
        return counts.delivered if counts is not None else 0

    def messages_handled(self) -> int:
        """Messages read from the client and handled so far (0 when not serving stdio)."""
        counts = getattr(self, "_counts", None)
        return counts.handled if counts is not None else 0

    def set_client(self, caps: Any, encoding: Any) -> None:
        """What ``initialize`` negotiated, for the session (now, or when it is loaded)."""
        self._client_setup = (caps, encoding)
        if self._session is not None:
            self._session.set_client(caps, encoding)

    def stop_session(self) -> None:
        """``shutdown``: stop the session's timers and tasks, if it was ever loaded."""
        if self._session is not None:
            self._session.stop()

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
        self._counts = transport.Counts()
        try:
            asyncio.run(transport.serve(stdin or sys.stdin.buffer, self.protocol, self.report_server_error, self.stop_session, self._counts))
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
        if isinstance(exc, Superseded):
            return False
        if type(exc).__module__ == "pygls.exceptions" and not isinstance(exc, JsonRpcInternalError):
            # A protocol error meant for the client (InvalidParams for an unknown command,
            # MethodNotFound): its answer says it all; one line, from the first message on
            # (runway_lsp.navigation's filter, which says the same, is installed only when the
            # features load: a request read with `initialize` left a traceback, adversary F4).
            record.msg, record.args = "answered with error %s: %s", (exc.code, exc.message)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class _Features:
    """The feature objects of one server, built by :meth:`build` when the session is loaded
    (the feature modules import runway's core: not before ``initialize`` is answered)."""

    initialize_params: Any = None

    def build(self, session: Session) -> None:
        from . import cost_view, custom, navigation, scan, settings, text_sync  # the features (they never import this module)

        self.custom, self.navigation, self.text_sync = custom, navigation, text_sync
        self.config = settings.SettingsManager(session)
        self.workspace = scan.WorkspaceScan(session, self.config)
        self.costs_in_view = cost_view.CostView(session, self.config)
        self.notifier = custom.CostsNotifier(session, self.config)
        self.config.subscribe(self.costs_in_view.on_settings)
        self.config.subscribe(self.workspace.on_settings)
        # After every publication: lens/hint refreshes, then runway/costsChanged.
        session.on_published(self.costs_in_view.after_publish)
        session.on_published(self.notifier.after_publish)
        session.on_stop(self.workspace.stop)
        session.on_stop(self.costs_in_view.stop)  # the baselines worker and its git calls
        session.keeps_closed = self.workspace.keeps  # closing a file in the workspace mode (runway_lsp/publish.py)
        navigation.install_log_filter()
        if self.initialize_params is not None:
            self.config.on_initialize(self.initialize_params)


def checkpointed(server: RunwayLanguageServer, handler: Any) -> Any:
    """``handler`` (plain or ``async``) as an ``async`` handler that first awaits
    :meth:`Session.checkpoint`: a cancelled request stops there (RequestCancelled), one whose
    document was edited since it was sent is answered ContentModified; neither runs its
    expensive part. The wrapper keeps the signature (pygls reads its annotations)."""
    import inspect

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            await server.session.checkpoint()
            return await handler(*args, **kwargs)

        return run_async

    @functools.wraps(handler)
    async def run(*args: Any, **kwargs: Any) -> Any:
        await server.session.checkpoint()
        return handler(*args, **kwargs)

    return run


#: Navigation requests that walk a whole product (others answer from one node at once).
_CANCELLABLE_NAVIGATION = frozenset({types.TEXT_DOCUMENT_REFERENCES, types.TEXT_DOCUMENT_RENAME, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL})


def create_server(catalog: Catalog | None = None) -> RunwayLanguageServer:
    """A server with every feature registered; start it with ``start_io()``. ``catalog``:
    the catalogue, else the packaged one, loaded after ``initialize`` (see
    :class:`RunwayLanguageServer`)."""
    server = RunwayLanguageServer(catalog)
    feature = server.feature
    f = _Features()
    server.on_load(f.build)

    def session() -> Session:
        return server.session

    def features() -> _Features:
        server.load()
        return f

    def cancellable(fn: Any) -> Any:  # the requests whose answer may take long on a big runway
        return checkpointed(server, fn)

    # --- lifecycle and settings ---------------------------------------------------------------

    @feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        import asyncio

        f.initialize_params = params
        # After this handler the initialize response is written at once (pygls' generator
        # handlers finish synchronously); the load is the loop's next step, before the
        # client's `initialized` is handled.
        asyncio.get_running_loop().call_soon(server.load)

    @feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        ff = features()
        ff.workspace.start()  # a task: the scan must not hold up what follows
        ff.config.on_initialized()
        ff.text_sync.watch_files(session())

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        features().config.did_change_configuration(params)

    @feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        features().workspace.folders_changed(params)

    @feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        features().text_sync.did_change_watched_files(session(), params)
        features().workspace.files_created(params)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        features().text_sync.did_save(session(), params)

    # --- diagnostics, hovers, cost in view ----------------------------------------------------

    @feature(types.TEXT_DOCUMENT_DIAGNOSTIC, convert.diagnostic_options())
    @degrades("textDocument/diagnostic", lambda: convert.full_report([]))
    def diagnostic(params: types.DocumentDiagnosticParams):
        return convert.full_report(session().publisher.pull_diagnostics(params.text_document.uri))

    @feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams):
        return await features().costs_in_view.hover_request(params)

    @feature(types.TEXT_DOCUMENT_CODE_LENS, convert_cost.code_lens_options())
    @cancellable
    async def code_lens(params: types.CodeLensParams):
        return await features().costs_in_view.code_lens_request(params)

    @feature(types.TEXT_DOCUMENT_INLAY_HINT, convert_cost.inlay_hint_options())
    @cancellable
    async def inlay_hint(params: types.InlayHintParams):
        return await features().costs_in_view.inlay_hint_request(params)

    @server.command(convert_cost.SHOW_COST)
    def show_cost(*args):  # no annotations: pygls reads them to convert arguments
        return features().costs_in_view.show_cost_command(*args)

    @feature(convert_messages.COSTS)
    @cancellable
    def runway_costs(params: Any):
        ff = features()
        return ff.custom.costs_request(session(), ff.config, params)

    @feature(convert_messages.PLAN)
    @cancellable
    def runway_plan(params: Any):
        ff = features()
        return ff.custom.plan_request(session(), ff.config, params)

    # --- editing --------------------------------------------------------------------------------

    @feature(types.TEXT_DOCUMENT_CODE_ACTION, convert_actions.code_action_options())
    @cancellable
    @degrades("textDocument/codeAction", list)
    def code_action(params: types.CodeActionParams):
        from . import code_actions  # imported on first use: not at start-up (issue 6)

        return code_actions.code_actions(session(), params)

    @feature(types.TEXT_DOCUMENT_COMPLETION, convert_completion.completion_options(convert_completion.TRIGGER_CHARACTERS))
    @cancellable
    @degrades("textDocument/completion", convert_completion.empty_list)
    def completion(params: types.CompletionParams):
        from . import completion as complete  # imported on first use: not at start-up (issue 6)

        return complete.complete(session(), params)

    # --- navigation: handlers of (session, params), each method once ---------------------------

    for method, name in (
        (types.TEXT_DOCUMENT_DEFINITION, "definition"),
        (types.TEXT_DOCUMENT_REFERENCES, "references"),
        (types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, "highlight"),
        (types.TEXT_DOCUMENT_PREPARE_RENAME, "prepare_rename"),
        (types.TEXT_DOCUMENT_RENAME, "rename"),
        (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, "document_symbol"),
        (types.TEXT_DOCUMENT_DOCUMENT_LINK, "document_link"),
    ):
        def handler(params: Any, _name: str = name) -> Any:
            nav = features().navigation
            with session().analyses.memoised():  # synchronous: no buffer changes inside
                return getattr(nav, _name)(session(), params)

        feature(method)(cancellable(handler) if method in _CANCELLABLE_NAVIGATION else handler)

    @feature(types.WORKSPACE_SYMBOL)
    @cancellable
    async def workspace_symbol(params: types.WorkspaceSymbolParams):
        return await features().workspace.workspace_symbol(params)

    if os.environ.get(TEST_HOOKS_VARIABLE) == "1":
        _register_test_hooks(server)
    return server


def _register_test_hooks(server: RunwayLanguageServer) -> None:
    import hashlib

    # Each hook reads ``server.session`` when it runs, never here: the session is built by
    # `initialize` from its params (initializationOptions); built here first, it ignored them,
    # so every test using the hooks ran a server unlike the real one (ninth adversary L14).

    @server.feature(DOCUMENT_TEXT_HOOK)
    def document_text(params: Any):
        uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
        doc = server.session.view(uri, uri_to_path(uri)) if isinstance(uri, str) else None
        if doc is None:
            return None
        digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()
        return {"uri": doc.uri, "version": doc.version, "sha256": digest, "length": len(doc.text)}

    @server.feature(STRAY_OUTPUT_HOOK)
    def stray_output(params: Any):
        import gc
        import sys
        import threading
        import warnings

        text = str(params.get("text") if isinstance(params, dict) else getattr(params, "text", ""))
        warnings.warn(f"a library warns about {text}", UserWarning, stacklevel=1)
        sys.stdout.write(f"a stray write to stdout (which is stderr) of {text}\n")  # what a print() does
        sys.stderr.write(f"a stray write to stderr of {text}\n")

        def fail() -> None:
            raise RuntimeError(f"a thread failed on {text}")

        t = threading.Thread(target=fail, name="stray")
        t.start()
        t.join()

        class Finaliser:
            def __del__(self) -> None:
                raise ValueError(f"a finaliser failed on {text}")

        f = Finaliser()
        del f
        gc.collect()
        sys.stderr.flush()
        return None

    @server.feature(HOLD_ANALYSES_HOOK)
    def hold_analyses(params: Any):
        hold = params.get("hold") if isinstance(params, dict) else getattr(params, "hold", None)
        gate = server.session.analyses.thread.gate
        gate.clear() if hold else gate.set()
        return None
