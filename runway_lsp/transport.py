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

log = logging.getLogger("pygls.server")  # where pygls' own loop logs (its filters apply)

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


class _FdReader:
    """``readline``/``read`` over a file descriptor with ``os.read`` and a buffer of our own.
    The reader thread is a daemon blocked in a read when the server exits; a blocked
    ``BufferedReader`` holds its lock, and the interpreter aborts at shutdown ("could not
    acquire lock for <_io.BufferedReader name='<stdin>'>"); ``os.read`` holds none."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def _fill(self) -> bool:
        chunk = os.read(self.fd, 1 << 16)
        self.buf += chunk
        return bool(chunk)

    def readline(self) -> bytes:
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[: i + 1], self.buf[i + 1 :]
                return line
            if not self._fill():
                line, self.buf = self.buf, b""
                return line

    def read(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                break
        data, self.buf = self.buf[:n], self.buf[n:]
        return data


def read_messages(stdin: Any, deliver: Callable[[bytes], None]) -> None:
    """Read framed message bodies from ``stdin`` (``readline``/``read``) until its end,
    calling ``deliver(body)`` for each (on this thread); the same framing rules as pygls'
    ``run_async``."""
    content_length = 0
    while True:
        header = stdin.readline()
        if not header:
            return
        if not content_length:
            match = _CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
        if content_length and not header.strip():
            body = stdin.read(content_length)
            if not body:
                return
            content_length = 0
            deliver(body)


def top_level_id(body: bytes) -> int | str | None:
    """The ``id`` member of the top-level JSON object in ``body`` when it is an integer or a
    string, else None. A scan that tracks strings and nesting without building anything, for
    a body too deep for ``json.loads`` (which recurses once per level). Linear in the body."""
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

    def handle(body: bytes) -> None:
        counts.handled += 1
        if done.done():
            return  # after exit: nothing more is handled (stdout is closed)
        try:
            try:
                message = json.loads(body, object_hook=protocol.structure_message)
            except RecursionError:
                refuse_too_deep(protocol, body)
                return
            protocol.handle_message(message)
        except SystemExit:
            finish()  # the exit notification (pygls' lsp_exit): end the loop, not the process here
        except Exception as exc:  # noqa: BLE001 - as pygls' loop: log, report, go on
            log.exception("Unable to handle message")
            report(exc, JsonRpcException)

    def deliver(body: bytes) -> None:
        counts.delivered += 1
        try:
            loop.call_soon_threadsafe(handle, body)
        except RuntimeError:  # the loop is closed: the server is gone
            raise SystemExit from None

    try:
        source: Any = _FdReader(stdin.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file: read it as it is
        source = stdin

    def reader() -> None:
        try:
            read_messages(source, deliver)
        except (SystemExit, OSError, ValueError):  # stdin closed under us
            pass
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
