"""The stdio transport of the runway server: messages read on a thread, handled on the loop.

pygls' own stdio loop (``pygls.io_.run_async``) reads each header line and body through a
thread-pool hop and handles one message before it starts reading the next. While a handler
computes on the event loop, nothing more is read: ten code-lens requests followed by nine
``$/cancelRequest`` all ran in turn, each before the cancellation behind it was even read
(issue 16, item 6). Here one reader thread reads whole messages as they come (a blocking read
of stdin, off the loop) and queues each on the loop (``call_soon_threadsafe``), in order. A
request handler that awaits :meth:`runway_lsp.session.Session.checkpoint` before its
expensive part therefore sees every message that arrived while the loop was busy: a
cancellation cancels it (pygls answers RequestCancelled, -32800), a newer edit of its document
supersedes it (ContentModified, -32801).

The framing is pygls' (``Content-Length: N\\r\\n`` then a blank line), and a message is handled
by the protocol exactly as pygls' loop does (``json.loads`` with ``structure_message``, then
``handle_message``; an exception is logged on the ``pygls.server`` logger and reported).
``exit`` ends the loop (pygls raises ``SystemExit`` in its handler); so does the end of stdin.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from typing import Any, BinaryIO, Callable

from pygls.exceptions import JsonRpcException

from .convert import messages
from .uris import NAME_MAX, unopenable, uri_file_path, uri_in

log = logging.getLogger("pygls.server")  # where pygls' own loop logs (its filters apply)

#: LSP 3.17 §"Base Protocol": a header part of ``name: value`` fields (their names as in HTTP,
#: compared without case: RFC 9110 §5.1), each ended by ``\r\n``, then an empty line; the body
#: is ``Content-Length`` bytes of UTF-8 JSON. We also accept a bare ``\n`` (hand-written
#: clients and scripts; vscode-jsonrpc and pygls require ``\r\n``, so nothing that works
#: there fails here).
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: Where a frame can start again after one that could not be trusted: a whole Content-Length
#: line. It cannot occur inside a JSON string (JSON escapes every line break), so a search for
#: it never lands inside a well-formed body.
_RESYNC = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n", re.IGNORECASE)
#: A header part longer than this is no header part (pygls reads a line of any length).
MAX_HEADER_BYTES = 8192
#: A ``Content-Length`` above this is refused as untrusted framing (a runway is kilobytes to a
#: few MB); waiting for a 10 GB body would swallow every later message.
MAX_BODY_BYTES = 64 << 20


class FramingError(ValueError):
    """A frame the server cannot trust (its header part, its ``Content-Length``, or a body
    that is not UTF-8 JSON); ``msg_id``: the request id read from the body when one could be;
    ``answer``: False when the body is a response (logged, never answered); ``code``: the
    JSON-RPC 2.0 §5.1 error it is answered with, Parse error (-32700) unless the JSON was read
    and only its ``id`` is unusable (Invalid Request, -32600)."""

    def __init__(self, reason: str, msg_id: int | str | None = None, answer: bool = True, code: int = -32700) -> None:
        super().__init__(reason)
        self.msg_id = msg_id
        #: False for a body known to be a response: answering it would answer an answer.
        self.answer = answer
        self.code = code


class TooDeep(ValueError):
    """A body that is JSON-framed and UTF-8 but nested too deep for ``json.loads``."""

    def __init__(self, body: bytes) -> None:
        super().__init__("nested too deep to decode")
        self.body = body


def _header_length(block: bytes) -> int:
    """The ``Content-Length`` of a header part (its lines, without the empty line), or
    :class:`FramingError`. Any other field (``Content-Type``) is read and ignored."""
    length = None
    for line in block.split(b"\n"):
        line = line[:-1] if line.endswith(b"\r") else line
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            raise FramingError(f"a header line is not 'Name: value' ({len(line)} bytes)")
        if name.lower() == b"content-length":
            value = value.strip(b" \t")
            if not value.isdigit() or len(value) > 12:
                raise FramingError("Content-Length is not a number of bytes")
            if length is not None and int(value) != length:
                raise FramingError("two different Content-Length headers")
            length = int(value)
    if length is None:
        raise FramingError("a header part without Content-Length")
    if length > MAX_BODY_BYTES:
        raise FramingError(f"Content-Length {length} is over the {MAX_BODY_BYTES}-byte limit")
    return length


def decode_body(body: bytes) -> Any:
    """A body as plain JSON values (strict UTF-8, then ``json.loads`` without hooks), or
    :class:`FramingError` (not UTF-8, not JSON: JSON-RPC 2.0 §5.1 Parse error) or
    :class:`TooDeep`."""
    try:
        # RFC 8259 §8.1: a parser MAY ignore a byte order mark (json.loads of a str refuses it).
        return json.loads(body.decode("utf-8").removeprefix("\ufeff"))
    except RecursionError:
        raise TooDeep(body) from None
    except UnicodeDecodeError as exc:
        raise FramingError(f"the body is not UTF-8 (byte {exc.start})", _request_id(body)) from None
    except json.JSONDecodeError as exc:
        raise FramingError(f"the body is not one JSON value ({exc.msg}, byte {exc.pos})", _request_id(body)) from None
    except ValueError:
        # Valid JSON that CPython will not carry: an integer of more than
        # sys.get_int_max_str_digits() digits (4,300 by default since 3.11; a plain ValueError
        # from int(), no JSONDecodeError: it has no .msg). Adversary F1: the reader thread
        # died on it (AttributeError) and the server exited.
        return _unrepresentable(body)
    except MemoryError:  # a body within MAX_BODY_BYTES that still does not fit in memory
        raise FramingError("the body is too large to decode", None) from None


class _HugeInt:
    """Stands for an integer of too many digits while a body is re-read for its shape."""


def _unrepresentable(body: bytes) -> Any:
    """A :class:`FramingError` for a body that is JSON but holds an integer over CPython's
    digit limit, under the request's id when its id is a usable one (the request is settled
    with Parse error, JSON-RPC 2.0 §5.1); a response (no ``method``) is never answered."""
    def huge_or_int(digits: str) -> Any:
        return _HugeInt() if len(digits.lstrip("-")) > 4000 else int(digits)

    try:
        value = json.loads(body.decode("utf-8").removeprefix("\ufeff"), parse_int=huge_or_int)
    except (ValueError, RecursionError, MemoryError):
        value = None
    reason = "the body holds an integer of more digits than the server reads (JSON-RPC 2.0 §5.1)"
    if isinstance(value, dict) and "method" not in value:
        raise FramingError(reason, None, answer=False)
    msg_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(msg_id, _HugeInt):
        # The JSON is read; only the id is no LSP integer (3.17: -2^31..2^31-1): Invalid
        # Request under id null (JSON-RPC 2.0 §5: an id that cannot be detected MUST be Null).
        raise FramingError("a request whose id is an integer of more digits than the server reads, not an integer or a string "
                           "the Language Server Protocol carries", None, code=-32600)
    raise FramingError(reason, msg_id if _valid_id(msg_id) else None)


def _request_id(body: bytes) -> int | str | None:
    """The id of the request a body that failed to decode began (a length a few bytes short
    or long), when it begins with an object; a body that begins with anything else is no one
    request's (its id would be another message's, answered again when it is framed)."""
    return top_level_id(body) if body.lstrip(b" \t\r\n")[:1] == b"{" else None


#: What :meth:`Framer.next` returns at the end of input (a body may decode to ``None``: ``null``).
END = type("EndOfInput", (), {"__repr__": lambda self: "END"})()


class Framer:
    """Messages out of a byte stream, by the base protocol's framing (:data:`_TOKEN` says what
    is accepted). ``read()`` returns the next bytes, ``b""`` at the end.

    A frame that cannot be trusted (a header part that is not one, no or a bad
    ``Content-Length``, a body that is not UTF-8 JSON, as a length a few bytes short or long
    leaves it) is returned as a :class:`FramingError`, and reading resynchronises: the stream
    is searched for the next whole ``Content-Length`` line (:data:`_RESYNC`) from the failed
    body's first byte (its header part dropped; or from the second byte of a header part that
    was the fault), and framing starts again there. A length a few bytes long reads the next
    message's first bytes into the failed body; the search from inside that body finds the
    next header line whole again. pygls' own loop
    (``pygls.io_.run_async``) matches only ``Content-Length: N\r\n`` exactly, and never
    resynchronises: after one bad frame every later message was read into a body or skipped
    as a header line, and the server lived on, deaf (issue 23, item 3)."""

    def __init__(self, read: Callable[[], bytes]) -> None:
        self._read = read
        self.buf = bytearray()
        self.resync = False

    def _fill(self) -> bool:
        chunk = self._read()
        self.buf += chunk
        return bool(chunk)

    def _search(self) -> bool:
        """Drop bytes up to the next whole Content-Length line; False at the end of input."""
        while True:
            m = _RESYNC.search(self.buf)
            if m:
                del self.buf[: m.start()]
                self.resync = False
                return True
            keep = 80  # the start of a Content-Length line cut by a read
            if len(self.buf) > keep:
                del self.buf[: len(self.buf) - keep]
            if not self._fill():
                return False

    def _refuse(self, error: FramingError, resume_at: int) -> FramingError:
        del self.buf[:resume_at]
        self.resync = True
        return error

    def next(self) -> Any:
        """The next message as plain JSON values, a :class:`FramingError` for a frame that
        cannot be trusted, a :class:`TooDeep`, or :data:`END` at the end of input."""
        while True:
            if self.resync and not self._search():
                return END
            while self.buf[:1] == b"\n" or self.buf[:2] == b"\r\n":  # empty lines between messages
                del self.buf[: 1 if self.buf[:1] == b"\n" else 2]
            end = _END_OF_HEADERS.search(self.buf, 0, MAX_HEADER_BYTES + 3)
            if end is None:
                if len(self.buf) > MAX_HEADER_BYTES:
                    return self._refuse(FramingError(f"no end of the header part within {MAX_HEADER_BYTES} bytes"), 1)
                if not self._fill():
                    return END
                continue
            try:
                length = _header_length(bytes(self.buf[: end.start()]))
            except FramingError as exc:
                return self._refuse(exc, 1)
            body_at = end.end()
            while len(self.buf) < body_at + length:
                if not self._fill():
                    return END
            body = bytes(self.buf[body_at : body_at + length])
            try:
                value = decode_body(body)
            except FramingError as exc:
                return self._refuse(exc, body_at)
            except TooDeep as exc:
                value = exc
            del self.buf[: body_at + length]
            return value


#: The empty line that ends a header part: ``\r\n\r\n`` or ``\n\n`` (or a mix).
_END_OF_HEADERS = re.compile(rb"\n\r?\n")


def read_messages(read: Callable[[], bytes], deliver: Callable[[Any], None]) -> None:
    """Read messages with a :class:`Framer` over ``read()`` until the end of input, calling
    ``deliver(item)`` on this thread for each :meth:`Framer.next` item."""
    framer = Framer(read)
    while True:
        try:
            item = framer.next()
        except (OSError, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a frame nothing above foresaw: refuse it, resynchronise
            # Never the reader thread's death (that was a live server gone for good, or an
            # exit): the frame is refused like any untrusted one, and reading resumes at the
            # next Content-Length line after its first byte.
            del framer.buf[:1]
            framer.resync = True
            item = FramingError(f"a frame that could not be read ({type(exc).__name__})")
        if item is END:
            if framer.buf.strip():
                log.warning("stdin ended inside a message (%d bytes not framed)", len(framer.buf))
            return
        deliver(item)


def top_level_id(body: bytes) -> int | str | None:
    """The ``id`` member of the top-level JSON object in ``body`` when it is an integer or a
    string, else None. A scan that tracks strings and nesting without building anything, for
    a body too deep for ``json.loads`` (which recurses once per level). Linear in the body;
    it stops at the end of the first top-level value (what follows is another message's)."""
    text = body.decode("utf-8", "replace")
    depth, i, n = 0, 0, len(text)
    decoder = json.JSONDecoder()
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if depth == 1 and text[i + 1 : end] == "id":
                j = end + 1
                while j < n and text[j] in " \t\r\n":
                    j += 1
                if j < n and text[j] == ":":
                    j += 1
                    while j < n and text[j] in " \t\r\n":
                        j += 1
                    try:
                        value, _ = decoder.raw_decode(text, j)
                    except (ValueError, RecursionError):
                        return None
                    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
            i = end + 1
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return None
        i += 1
    return None


def refuse_too_deep(protocol: Any, body: bytes) -> None:
    """A message nested too deep to decode (adversary P1: 100,000 arrays in ``params``, once
    a traceback and never an answer): answered with Invalid Request (-32600) under its ``id``
    when one can be read (JSON-RPC 2.0 §5.1), else dropped; one warning line either way."""
    msg_id = top_level_id(body)
    log.warning("a message of %d bytes nested too deep to decode: %s", len(body),
                "not handled" if msg_id is None else "answered with Invalid Request (-32600)")
    if msg_id is not None:
        protocol._send_response(msg_id, error=messages.response_error(-32600, "message nested too deep to decode; not handled"))


_NOTIFICATIONS: frozenset[str] | None = None


def notification_methods() -> frozenset[str]:
    """The methods the LSP 3.17 meta-model (lsprotocol's ``METHOD_TO_TYPES``) defines as
    notifications (every one the server registers among them: ``textDocument/didSave``,
    ``$/cancelRequest``, ``$/setTrace``...). A message that names one with an ``id`` is a
    request nobody would answer (pygls runs the notification handler and sends nothing; the
    client waits forever: adversary F2), so it is refused with Invalid Request (-32600).
    JSON-RPC 2.0 §4: "The Server MUST reply with a Response" to every request."""
    global _NOTIFICATIONS
    if _NOTIFICATIONS is None:
        from lsprotocol.types import METHOD_TO_TYPES

        _NOTIFICATIONS = frozenset(m for m, kinds in METHOD_TO_TYPES.items() if kinds[1] is None and kinds[0].__name__.endswith("Notification"))
    return _NOTIFICATIONS


def _unopenable_document(params: Any) -> bool:
    """True when ``params.textDocument.uri`` is a ``file:`` URI whose path no system call can
    open (runway_lsp.uris.unopenable); linear in the URI."""
    uri = uri_in(params)
    if uri is None or not uri.startswith("file:") or len(uri) <= NAME_MAX:
        return False
    path = uri_file_path(uri)
    return path is not None and unopenable(path)


def _valid_id(value: Any) -> bool:
    """LSP 3.17 ``RequestMessage.id``: ``integer | string`` (JSON-RPC 2.0 §4 also allows
    null and fractions, and says they SHOULD NOT be used)."""
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def refusal(value: Any) -> tuple[list[int | str | None], str] | None:
    """Why a decoded body is no JSON-RPC 2.0 message the LSP base protocol carries, or None.
    ``(answers, reason)``: the ids to answer with Invalid Request (-32600), ``None`` standing
    for null (JSON-RPC 2.0 §5: "If there was an error in detecting the id in the Request
    object (e.g. Parse error/Invalid Request), it MUST be Null"), and a reason that quotes no
    value of the client's. A malformed response is never answered (``answers`` empty): two
    peers would answer each other's errors forever.

    - a batch (an array, JSON-RPC 2.0 §6): the LSP has no batches (vscode-jsonrpc reads one
      message per frame); each request in it is refused under its id, an array without one
      (``[]``, ``[1]``) gets one refusal with id null, as §7's examples;
    - a request or notification whose ``jsonrpc`` is not ``"2.0"``, whose ``id`` is neither
      an integer nor a string, whose ``method`` is not a string, or that also holds
      ``result``/``error``; an object with none of ``method``/``result``/``error``;
    - a response without a usable ``id``, or not ``"2.0"``: dropped."""
    if isinstance(value, list):
        ids = [m["id"] for m in value if isinstance(m, dict) and "method" in m and _valid_id(m.get("id"))]
        return (ids or [None]), f"a batch of {len(value)} (JSON-RPC 2.0 §6; the Language Server Protocol has no batches)"
    if not isinstance(value, dict):
        return [None], f"a JSON {_kind(value).removeprefix('a ')}, not an object"
    version_ok = value.get("jsonrpc") == "2.0"
    if "method" in value:
        has_id = "id" in value
        answer = [value["id"] if has_id and _valid_id(value["id"]) else None]
        if has_id and not _valid_id(value["id"]):
            return answer, f"a request whose id is {_kind(value['id'])}, not an integer or a string"
        if not version_ok:
            return answer, "a message whose jsonrpc member is not \"2.0\""
        if not isinstance(value["method"], str):
            return answer, f"a message whose method is {_kind(value['method'])}, not a string"
        if "result" in value or "error" in value:
            return answer, "a request or notification that also holds a result or an error"
        return None
    if "result" in value or "error" in value:
        msg_id = value.get("id")
        if not version_ok:
            return [], "a response whose jsonrpc member is not \"2.0\""
        if not (_valid_id(msg_id) or (msg_id is None and "id" in value and "error" in value)):
            return [], f"a response whose id is {_kind(msg_id) if 'id' in value else 'missing'}"
        return None
    return [value["id"] if _valid_id(value.get("id")) else None], "an object with neither a method nor a result or an error"


_JSON_KINDS = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array", dict: "an object"}


def _kind(value: Any) -> str:
    """What JSON calls the kind of ``value`` (never the value: it may be a secret)."""
    return _JSON_KINDS.get(type(value), "a value")


def send_error(protocol: Any, msg_id: int | str | None, code: int, message: str) -> None:
    """A JSON-RPC error response, ``"id": null`` included (lsprotocol's converter drops a
    None id, and JSON-RPC 2.0 §5 requires the member)."""
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


class Counts:
    """Messages read by the thread (``delivered``, written by it alone) and handled on the
    loop (``handled``, written by the loop alone): a checkpoint waits until the messages read
    when it began are handled (runway_lsp.session.Session.checkpoint); :attr:`pending` is
    what is read and not handled yet."""

    delivered = 0
    handled = 0

    @property
    def pending(self) -> int:
        return self.delivered - self.handled


async def serve(stdin: BinaryIO, protocol: Any, report: Callable[[Exception, type], Any], on_exit: Callable[[], None],
                counts: Counts | None = None) -> None:
    """Handle messages from ``stdin`` with ``protocol`` until ``exit`` or the end of stdin;
    then ``on_exit()`` (stop timers and tasks that would write to a closed stdout).
    ``counts``: kept up to date (messages read, handled)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    counts = counts if counts is not None else Counts()

    def finish() -> None:
        if not done.done():
            done.set_result(None)

    def handle(item: Any) -> None:
        counts.handled += 1
        if done.done():
            return  # after exit: nothing more is handled (stdout is closed)
        try:
            if isinstance(item, FramingError) and not item.answer:
                log.warning("a response that cannot be read: %s; dropped", item)
                return
            if isinstance(item, FramingError):
                # JSON-RPC 2.0 §5.1 Parse error, under the request's id when one could be read
                # (the client's request is settled, not left waiting), else null (§5).
                if item.code == -32600:
                    log.warning("%s: answered with Invalid Request (-32600)", item)
                    send_error(protocol, item.msg_id, -32600, f"Invalid Request: {item}")
                    return
                log.warning("a frame that cannot be trusted: %s; answered with Parse error (-32700), reading resumes at the next Content-Length header", item)
                send_error(protocol, item.msg_id, -32700, f"Parse error: {item}")
                return
            if isinstance(item, TooDeep):
                refuse_too_deep(protocol, item.body)
                return
            refused = refusal(item)
            if refused is None and isinstance(item, dict) and "id" in item and item.get("method") in notification_methods():
                refused = [item["id"]], "a notification method sent as a request (with an id)"
            if refused is None and isinstance(item, dict) and "method" in item and _unopenable_document(item.get("params")):
                # Adversary F3: a 200 KB file: path sent the analysis through CPython's realpath
                # (quadratic in the segments) in several places; no such file can be opened.
                log.warning("a %s for a document whose path is over PATH_MAX or NAME_MAX: %s", item["method"],
                            "answered with Invalid Params (-32602)" if "id" in item else "ignored")
                if "id" in item:
                    send_error(protocol, item["id"], -32602, "Invalid params: the document's path is longer than the OS opens (PATH_MAX 4096, NAME_MAX 255)")
                return
            if refused is not None:
                answers, reason = refused
                log.warning("%s: %s", reason, f"answered with Invalid Request (-32600) {len(answers)}x" if answers else "dropped")
                for msg_id in answers:
                    send_error(protocol, msg_id, -32600, f"Invalid Request: {reason}")
                return
            # Only the top-level object is a message (pygls' json.loads hook structures every
            # nested object that happens to hold "jsonrpc" too).
            protocol.handle_message(protocol.structure_message(item))
        except SystemExit:
            finish()  # the exit notification (pygls' lsp_exit): end the loop, not the process here
        except Exception as exc:  # noqa: BLE001 - as pygls' loop: log, report, go on
            log.exception("Unable to handle message")
            report(exc, JsonRpcException)

    def deliver(item: Any) -> None:
        counts.delivered += 1
        try:
            loop.call_soon_threadsafe(handle, item)
        except RuntimeError:  # the loop is closed: the server is gone
            raise SystemExit from None

    try:
        # os.read, not the BufferedReader: the reader thread is a daemon blocked in a read
        # when the server exits; a blocked BufferedReader holds its lock, and the interpreter
        # aborts at shutdown ("could not acquire lock for <_io.BufferedReader name='<stdin>'>").
        fd = stdin.fileno()
        read: Callable[[], bytes] = lambda: os.read(fd, 1 << 16)  # noqa: E731
    except (AttributeError, OSError, ValueError):  # not a real file: read it as it is
        read = getattr(stdin, "read1", None) and (lambda: stdin.read1(1 << 16)) or (lambda: stdin.read(1 << 16))

    def reader() -> None:
        try:
            read_messages(read, deliver)
        except (SystemExit, OSError):  # stdin closed under us
            pass
        except Exception as exc:  # noqa: BLE001 - one clear line, then the client restarts the server
            log.error("reading stdin failed (%s); the server exits", type(exc).__name__)
        try:
            loop.call_soon_threadsafe(finish)
        except RuntimeError:
            pass

    thread = threading.Thread(target=reader, name="runway-lsp-stdin", daemon=True)
    thread.start()
    try:
        await done
    finally:
        on_exit()


class StdoutWriter:
    """pygls' writer interface over stdout, closed once: ``exit`` closes stdout (pygls'
    ``lsp_exit``) while work may still be scheduled (a debounced publication, a request task
    cancelled as the loop ends). Such data has nowhere to go: after :meth:`close` it is dropped
    (one debug line), never written to the closed file (issue 16: "I/O operation on closed
    file" after shutdown and exit right after edits)."""

    def __init__(self, stdout: BinaryIO) -> None:
        self._stdout = stdout
        self._lock = threading.Lock()
        self.closed = False

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                self._stdout.close()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                logging.getLogger("runway_lsp").debug("dropped %d bytes written after exit", len(data))
                return
            self._stdout.write(data)
            self._stdout.flush()


__all__ = ["Counts", "StdoutWriter", "read_messages", "serve"]
