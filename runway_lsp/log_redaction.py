"""The server's stderr log (VS Code's "Runway" output channel, Neovim's LSP log) without
credentials: every record's final line, traceback included, passes through the one recogniser
(:func:`runway_core.text.redact`) as every protocol message does (docs/reliability.md).

A log line quotes what the client sent: a settings value (`runway.catalogPath: /tmp/ghp_…`),
an unknown method or command name, a URI, a request's params in pygls' "Unable to handle
message" traceback. The protocol's own redaction (``RunwayProtocol._send_data``) never sees
them; this formatter does, at the one handler stderr has.

Cheap when nothing matches: :func:`redact` checks each shape's literal hint with
``str.__contains__`` before running its regex (a log line of a few hundred characters costs
a few microseconds), and a line is built only when its level is enabled.

Stray writes (round 3, :func:`guard_stray_output`): what reaches stderr without a log call —
a ``print()``, a library's ``warnings.warn``, the traceback of an exception uncaught in a
thread, an exception in a ``__del__`` — goes through the same recogniser: warnings and
uncaught or unraisable exceptions become log records (so the formatter above redacts them),
and ``sys.stdout`` / ``sys.stderr`` become :class:`RedactingStream` writers. Not covered: a
write to file descriptor 2 below Python (a C extension's ``fprintf``, ``faulthandler``).
"""

from __future__ import annotations

import io
import logging
import sys
import threading
from typing import Any, TextIO

from runway_core.text import redact


class RedactingFormatter(logging.Formatter):
    """A :class:`logging.Formatter` whose output (message, arguments, exception text) is
    passed through :func:`runway_core.text.redact`."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def redact_handlers(logger: logging.Logger | None = None) -> None:
    """Give every handler of ``logger`` (default: the root logger, where
    ``logging.basicConfig`` put the stderr handler) a :class:`RedactingFormatter` with the
    format it had."""
    for handler in (logger or logging.getLogger()).handlers:
        old = handler.formatter
        if isinstance(old, RedactingFormatter):
            continue
        fmt = old._fmt if old is not None else None  # noqa: SLF001 - the format string the handler was given
        datefmt = old.datefmt if old is not None else None
        handler.setFormatter(RedactingFormatter(fmt, datefmt))


class RedactingStream(io.TextIOBase):
    """A text stream that writes to ``target`` what it is given passed through
    :func:`runway_core.text.redact`: for ``sys.stdout`` / ``sys.stderr`` of the server.

    Text is held until a write ends a line (``print()`` writes its text and then ``"\\n"``),
    so that one print is redacted whole, a multi-line one too (a private key block spans
    lines); held text is written anyway past :data:`HOLD_CHARS` characters, on ``flush()``
    and on ``close()``. No ``buffer`` attribute: bytes written below the text layer would not
    be redacted."""

    #: Held text written anyway past this many characters (a writer that never ends a line).
    HOLD_CHARS = 1 << 20

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self._target = target
        self._held: list[str] = []
        self._held_chars = 0
        self._lock = threading.Lock()  # threads print too

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        with self._lock:
            self._held.append(s)
            self._held_chars += len(s)
            if s.endswith("\n") or self._held_chars >= self.HOLD_CHARS:
                self._write_held()
        return len(s)

    def _write_held(self) -> None:
        text = "".join(self._held)
        self._held.clear()
        self._held_chars = 0
        if text:
            self._target.write(redact(text))

    def flush(self) -> None:
        with self._lock:
            self._write_held()
        self._target.flush()

    def close(self) -> None:  # the target is not ours: only what is held is written
        self.flush()

    def fileno(self) -> int:
        return self._target.fileno()

    def isatty(self) -> bool:
        return self._target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._target, "errors", None)


def guard_stray_output(logger: logging.Logger | None = None) -> None:
    """Route what would reach stderr without a log call through the redaction: Python's
    ``warnings`` as log records (:func:`logging.captureWarnings`, logger ``py.warnings``),
    exceptions uncaught in a thread (:data:`threading.excepthook`), in the main thread
    (:data:`sys.excepthook`) or raised where Python cannot raise them (``__del__``, a
    finaliser: :data:`sys.unraisablehook`) as ERROR records of ``logger`` (default
    ``runway_lsp``) with their traceback, and ``sys.stdout`` / ``sys.stderr`` wrapped in a
    :class:`RedactingStream` (the logging handler keeps the stream it was given). Call once,
    after the stderr handler exists (:func:`redact_handlers`)."""
    log = logger or logging.getLogger("runway_lsp")
    logging.captureWarnings(True)

    def thread_hook(args: Any) -> None:
        if args.exc_type is SystemExit:  # as threading's own hook: a thread's sys.exit() is quiet
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error("uncaught exception in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))

    def unraisable_hook(u: Any) -> None:
        try:
            what = f"{u.err_msg or 'Exception ignored in'}: {u.object!r}"
        except Exception:  # noqa: BLE001 - the object's repr may fail too
            what = u.err_msg or "Exception ignored"
        log.error("%s", what, exc_info=(u.exc_type, u.exc_value, u.exc_traceback) if u.exc_type else None)

    def main_hook(exc_type: Any, exc: Any, tb: Any) -> None:
        log.error("uncaught exception", exc_info=(exc_type, exc, tb))

    threading.excepthook = thread_hook
    sys.unraisablehook = unraisable_hook
    sys.excepthook = main_hook
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)
    if not isinstance(sys.stdout, RedactingStream):
        sys.stdout = RedactingStream(sys.stdout)


__all__ = ["RedactingFormatter", "RedactingStream", "guard_stray_output", "redact_handlers"]
