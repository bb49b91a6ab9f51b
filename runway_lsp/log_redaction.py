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
"""

from __future__ import annotations

import logging

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


__all__ = ["RedactingFormatter", "redact_handlers"]
