"""The runway server's JSON-RPC protocol: pygls' LanguageServerProtocol made robust.

- A request whose params do not fit its method is answered with InvalidParams, never left
  unanswered; a notification that does not fit is logged in one line and dropped (an
  unreadable didChange marks its document out of sync); JSON that is no JSON-RPC message is
  answered with Invalid Request when it has an id.
- The lifecycle of LSP 3.17: nothing before ``initialize``, ``initialize`` once, nothing after
  ``shutdown`` (each refused request answered).
- The position encoding: utf-8 when offered, else utf-16.
- didOpen, didChange and didClose are handled here, on the session's buffers
  (runway_lsp/text_sync.py), instead of by pygls' workspace.

``self._server`` is the :class:`runway_lsp.server.RunwayLanguageServer` (its ``session``).
Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from runway_core.text import redact_doc

from . import convert
from .convert import messages
from .convert.redacted import is_redacted
from .uris import uri_in

log = logging.getLogger("runway_lsp")

#: Keys whose values leave the server verbatim (see RunwayProtocol._send_data): an edit's text
#: and URIs, and the structural fields that never carry user text (positions, ranges, numbers,
#: enums, the rule's documentation link), which are not walked at all.
_KEEP_VERBATIM = frozenset({
    "newText", "uri", "targetUri", "oldUri", "newUri", "scopeUri", "rootUri",
    "range", "selectionRange", "targetRange", "targetSelectionRange", "originSelectionRange",
    "position", "severity", "tags", "paddingLeft", "paddingRight", "codeDescription", "jsonrpc",
})


@dataclass
class _UnreadableRequest:
    """A request whose params (or id) do not fit its method: answered with an error, never
    dropped (pygls 2 raises while decoding it, so the client would wait forever)."""

    id: Any
    method: str
    error: Exception
    jsonrpc: str = "2.0"


class _NotAMessage:
    """A JSON object with "jsonrpc" but neither "method" nor "result"/"error"."""


@dataclass
class _UnreadableNotification:
    """A notification whose params do not fit its method: there is no one to answer, so it
    is logged in one line (no traceback, no "Error in server" pop-up) and dropped; an
    unreadable didChange also marks its document out of sync (:attr:`Document.in_sync`)."""

    method: str
    uri: str | None
    jsonrpc: str = "2.0"


def _strict_str(value: Any, _type: Any) -> str:
    """A JSON string as it is; anything else (null, a number, a boolean, an array, an object)
    raises TypeError (cattrs turns it into the message's ClassValidationError)."""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a string, got {type(value).__name__}")


class RunwayProtocol(LanguageServerProtocol):
    """pygls' protocol with three changes: the position encoding preference (utf-8 when
    offered, else utf-16), open buffers kept by the server alone (pygls' workspace splits
    lines with ``str.splitlines``, which LSP does not: U+2028 would shift every edit), and
    requests with invalid params (a negative position, a string where an object belongs)
    answered with a JSON-RPC error, InvalidParams (-32602), instead of no answer at all."""

    _initialize_seen = False

    def __init__(self, server: Any, converter: Any, *args: Any, **kwargs: Any):
        super().__init__(server, converter, *args, **kwargs)
        # cattrs structures a `str` field with `str(value)`: `"text": null` became the buffer
        # "None", `12345` the buffer "12345", `newName: ["x"]` the name "['x']" (eighth
        # adversary F1). A value that is no JSON string now fails structuring, so the message
        # is refused like any other that does not fit (InvalidParams / one log line).
        # `Optional[str]` and `int | str` unions still take None / a number: lsprotocol's
        # union hooks try their other members first.
        converter.register_structure_hook(str, _strict_str)

    def structure_message(self, data: dict[str, Any]):
        if isinstance(data, dict) and "jsonrpc" in data and "method" not in data and "result" not in data and "error" not in data:
            return _NotAMessage()  # neither a request, a notification nor a response
        if not (isinstance(data, dict) and "jsonrpc" in data and "method" in data and "error" not in data and "result" not in data):
            return super().structure_message(data)  # a nested object or a response
        method = data["method"]
        is_request = "id" in data
        # The same decoding as pygls' structure_message, without its logged traceback: a
        # message that does not fit is the client's mistake, answered or noted in one line.
        known = self.get_message_type(method) if isinstance(method, str) else None
        fallback = JsonRPCRequestMessage if is_request else JsonRPCNotification
        try:
            return self._converter.structure(data, known or fallback)
        except Exception as exc:  # noqa: BLE001 - cattrs ClassValidationError and friends
            if is_request:
                msg_id = data["id"] if isinstance(data["id"], (int, str)) and not isinstance(data["id"], bool) else None
                log.warning("answering %s request %r with InvalidParams: its params do not fit the method", method, msg_id)
                return _UnreadableRequest(msg_id, str(method), exc)
            return _UnreadableNotification(str(method), uri_in(data.get("params")))

    def handle_message(self, message: Any):
        if isinstance(message, _NotAMessage) or not hasattr(message, "jsonrpc"):
            # JSON, but no JSON-RPC message: `[]`, `42`, `null`, an object without "jsonrpc".
            # JSON-RPC 2.0 §5: Invalid Request (-32600), answered when an id can be read.
            msg_id = message.get("id") if isinstance(message, dict) else None
            if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) and "method" in message:
                self._send_data(messages.error_response(msg_id, -32600, "not a JSON-RPC 2.0 request"))
            log.warning("ignoring a message that is not JSON-RPC 2.0 (%s)", type(message).__name__)
            return None
        if isinstance(message, _UnreadableRequest):
            from pygls.exceptions import JsonRpcInvalidParams

            error = JsonRpcInvalidParams(f"invalid params for {message.method}: they do not match the LSP specification").to_response_error()
            self._send_data(messages.error_answer(message.id, error))
            return None
        if isinstance(message, _UnreadableNotification):
            log.warning("ignoring a %s notification: its params do not fit the method", message.method)
            if message.method == types.TEXT_DOCUMENT_DID_CHANGE and message.uri is not None:
                self._server.session.lost_change(message.uri)
            return None
        method = getattr(message, "method", None)
        if method == types.CANCEL_REQUEST:
            msg_id = getattr(getattr(message, "params", None), "id", None)
            if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
                # JSON-RPC ids are numbers or strings; pygls would look a list or an object up
                # in a dict (TypeError: "Error in server"). Nothing can be cancelled by it.
                log.warning("ignoring $/cancelRequest: its id is a %s, not a number or string", type(msg_id).__name__)
                return None
        if method is not None and method != types.EXIT:
            # The lifecycle of LSP 3.17 §"Initialize Request" and §"Shutdown Request": pygls
            # drops such requests silently, and a client waiting for the answer hangs.
            is_request = getattr(message, "id", None) is not None
            refusal = None
            if self._shutdown:
                refusal = (-32600, f"{method} after shutdown: the server is shutting down")  # InvalidRequest
            elif method == types.INITIALIZE:
                if self._initialize_seen:
                    refusal = (-32600, "initialize may only be sent once")  # InvalidRequest
                self._initialize_seen = True
            elif not self._initialize_seen:
                refusal = (-32002, f"{method} before initialize")  # ServerNotInitialized
            if refusal is not None:
                if is_request:
                    self._send_data(messages.error_response(message.id, refusal[0], refusal[1]))
                log.warning("refused %s %s", "request" if is_request else "notification", refusal[1])
                return None
        if method is not None and getattr(message, "id", None) is not None and not self._shutdown:
            td = getattr(getattr(message, "params", None), "text_document", None)
            uri = getattr(td, "uri", None)
            if isinstance(uri, str):
                self._server.session.received(message.id, uri)  # for Session.checkpoint
        return super().handle_message(message)

    def _send_data(self, data: Any):
        """Every message to the client passes through one redaction (issue 16 item 3): each
        string of the message (diagnostics and their ``data``, hovers, symbols, lenses, hints,
        ``runway/plan``, ``runway/costs``...) through :func:`runway_core.text.redact`, as the
        CLI's every write is. Diagnostics, lenses, hints, the outline and completion lists are
        redacted where they are built (:mod:`runway_lsp.convert.redacted`: a ``Redacted`` list,
        :func:`~runway_lsp.convert.redacted.is_redacted`), so only the rest of such a message
        (its id, a URI) is walked here; every other message is walked whole. Edits' ``newText``
        and URIs are kept: a fix must write the user's own text, and a URI names a file.
        Positions, ranges and the other structural LSP fields (:data:`_KEEP_VERBATIM`) are not
        walked, and strings already found clean are not scanned again (the memo of
        :func:`runway_core.text.redact`): ~0.08x the keystroke's analysis
        (benchmarks/RESULTS.md, "Issue 16 items 10 and 3")."""
        if data and hasattr(data, "__attrs_attrs__"):
            # Diagnostics, lenses, hints and the outline were redacted where they were built
            # (runway_lsp/convert/redacted.py): the rest of such a message (its id, method,
            # a URI, a version) is walked, not them again.
            field = "result" if hasattr(data, "result") else "params" if hasattr(data, "params") else None
            value = getattr(data, field) if field is not None else None
            done = is_redacted(value)
            if done and isinstance(value, list):
                setattr(data, field, list(value))  # a plain list: cattrs unstructures its items by their type
            data = self._converter.unstructure(data)
            if done and isinstance(data, dict) and field in data:
                rest = {k: v for k, v in data.items() if k != field}
                clean = redact_doc(rest, _KEEP_VERBATIM)
                if clean is not rest:
                    data = {**clean, field: data[field]}
            else:
                data = redact_doc(data, _KEEP_VERBATIM)
        return super()._send_data(data)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        offered = general.position_encodings if general is not None else None
        if general is not None and offered:
            # pygls picks the client's first supported encoding; state ours instead.
            general.position_encodings = [convert.preferred_encoding(offered)]
        result = yield from super().lsp_initialize(params)
        try:
            self._server.set_client(params.capabilities, result.capabilities.position_encoding)
        except Exception:  # noqa: BLE001 - odd capabilities: keep the defaults (utf-16, push)
            log.exception("reading client capabilities failed")
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        # Nothing scheduled may write after the exit that follows (issue 16).
        self._server.stop_session()
        return (yield from super().lsp_shutdown(*args))

    # Text synchronisation replaces pygls' own (see the class docstring): the session keeps
    # the buffers (runway_lsp/text_sync.py).

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        from . import text_sync  # loaded after initialize (runway_lsp/server.py, "start-up")

        yield text_sync.did_open, (self._server.session, params), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        from . import text_sync  # loaded after initialize (runway_lsp/server.py, "start-up")

        yield text_sync.did_change, (self._server.session, params), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        from . import text_sync  # loaded after initialize (runway_lsp/server.py, "start-up")

        yield text_sync.did_close, (self._server.session, params), None


class _UnreadableJsonFilter(logging.Filter):
    """pygls logs a message body that is not JSON (or not UTF-8) with a full traceback; it is
    the client's mistake and nothing in the server failed, so it becomes one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ValueError):  # json.JSONDecodeError, UnicodeDecodeError
            record.msg, record.args = "ignoring a message that is not JSON-RPC: %s", (type(exc).__name__,)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True
