"""What a ``runway-deploy`` command may touch: streams, environment variables, the clock and
``which`` (docs/architecture.md §6), and the redacting stream every output goes through.

Shared by the command line (:mod:`deploy_engine.cli`) and the deploy pipeline
(:mod:`deploy_engine.pipeline`). Must not import pulumi.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import sys
from datetime import datetime
from typing import IO, Any, Callable, Mapping

from runway_core.text import redact

#: What a stream that cannot encode a character (``PYTHONIOENCODING=ascii``, a Windows console
#: code page) gets instead: the punctuation the output uses as its ASCII look-alike, anything
#: else as a ``\\uNNNN (four hex digits)`` escape. Never an error (docs/cli.md, "Output encoding").
ASCII_LOOKALIKES = {
    "—": "-", "–": "-", "→": "->", "←": "<-", "×": "x", "…": "...", "‘": "'", "’": "'",
    "“": '"', "”": '"', "≥": ">=", "≤": "<=", "█": "#", "░": ".", "•": "*", "·": "*",
    "\u00a0": " ", "€": "EUR", "±": "+/-", "−": "-", "Δ": "delta ",
}
FALLBACK_ERRORS = "runway-ascii-fallback"


def _fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start:exc.end]
    out = "".join(ASCII_LOOKALIKES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}") for c in chunk)
    return out, exc.end


codecs.register_error(FALLBACK_ERRORS, _fallback)


def encodable(text: str, encoding: str | None) -> str:
    """``text`` as ``encoding`` can write it: unchanged when it can, else with
    :data:`ASCII_LOOKALIKES` and ``\\uNNNN (four hex digits)`` escapes for what it cannot."""
    if not encoding:
        return text
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        try:
            return text.encode(encoding, FALLBACK_ERRORS).decode(encoding)
        except LookupError:
            return text.encode("ascii", FALLBACK_ERRORS).decode("ascii")


#: A surrogate code point: in a ``str`` from the file system, a byte of a name that is not
#: UTF-8 (``surrogateescape``: 0xE9 -> U+DCE9). No UTF-8 text holds one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with every surrogate as a ``\\udcXX`` escape (the form :func:`printable
    <deploy_engine.terminal.printable>` and JSON give it, ``git``'s quotepath and ``ls -b`` give
    a byte as an escape too): what a command writes is always valid UTF-8, whatever the stream's
    error handler (a ``surrogateescape`` stdout wrote the raw byte: sixth adversary F2)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Redacting:
    """A text stream whose writes pass through :func:`runway_core.text.redact` (the one
    recogniser of both faces; the server's is ``RunwayProtocol._send_data``): whatever a
    command prints (diagnostics, plans in every format, errors), a credential-shaped string
    the user pasted somewhere in a runway is never printed into a CI log. Each write is a
    whole message, line or document, so no value is split across two. Everything else
    (``isatty``, ``fileno``, ``flush``) is the wrapped stream's.

    Two ordinary situations never end a run: a character the stream cannot encode is written
    as its ASCII fallback (:func:`encodable`; a surrogate, a file name's byte that is not
    UTF-8, always as its ``\\udcXX`` escape: :func:`escape_surrogates`), and a closed pipe
    (``runway-deploy check | head -1``) makes every later write a no-op (:attr:`broken`; the
    file descriptor is pointed at ``/dev/null`` so the interpreter's last flush cannot fail
    either) while the command finishes with the exit status its work had."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.broken = False
        #: The run's Redactor (known values, then :func:`redact`), set through ``Context.redactor``.
        self.scrubber: Any = None

    @property
    def unicode_ok(self) -> bool:
        """True when the stream can encode any character (JSON then keeps non-ASCII text)."""
        encoding = getattr(self._stream, "encoding", None)
        if not encoding:
            return True
        try:
            return codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            return False

    def write(self, text: str) -> int:
        if self.broken:
            return len(text)
        clean = escape_surrogates(self.scrubber.scrub(text) if self.scrubber is not None else redact(text))
        try:
            try:
                self._stream.write(clean)
            except UnicodeEncodeError:
                self._stream.write(encodable(clean, getattr(self._stream, "encoding", None) or "ascii"))
        except BrokenPipeError:
            self._closed_pipe()
        return len(text)

    def flush(self) -> None:
        if self.broken:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed_pipe()
        except (ValueError, AttributeError):  # closed, or a stream without flush
            pass

    def _closed_pipe(self) -> None:
        self.broken = True
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, AttributeError):
            return
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except OSError:
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Context:
    """A command's streams, environment variables, clock (aware UTC datetimes) and ``which``;
    ``stdin`` (read by ``check -``) defaults to the process's at call time."""

    def __init__(
        self,
        stdout: IO[str],
        stderr: IO[str],
        environ: Mapping[str, str],
        clock: Callable[[], datetime] | None = None,
        which: Callable[..., str | None] = shutil.which,
        stdin: IO[Any] | None = None,
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.environ = environ
        self.clock = clock
        self.which = which
        self._stdin = stdin
        self._redactor: Any = None
        self.command: str | None = None  # the command being run, once the arguments are parsed
        #: How preview/up read an image's manifest (deploy_engine.images.Fetch); None: HTTP.
        self.image_fetch: Any = None

    @property
    def redactor(self) -> Any:
        """The run's :class:`~deploy_engine.secrets.Redactor` (set by a deploy run or a command
        that was given a URL with credentials), or None. Once set, every write to a
        :class:`Redacting` stdout and stderr is scrubbed by it too, the RUNWAY_DEBUG traceback
        included: a message a command forgot to scrub (a botocore or urllib error quoting a
        piece of the URL) still never prints a known value."""
        return self._redactor

    @redactor.setter
    def redactor(self, value: Any) -> None:
        self._redactor = value
        for stream in (self.stdout, self.stderr):
            if isinstance(stream, Redacting):
                stream.scrubber = value

    @property
    def stdin(self) -> IO[Any]:
        return self._stdin if self._stdin is not None else sys.stdin

    def now(self) -> datetime:
        if self.clock is not None:
            return self.clock()
        from deploy_engine.leases import utc_now

        return utc_now()


def json_ascii(stream: Any) -> bool:
    """Whether JSON written to ``stream`` must escape non-ASCII (``ensure_ascii``): when the
    stream cannot encode every character, so the document stays valid and exact."""
    return not getattr(stream, "unicode_ok", True)


__all__ = ["ASCII_LOOKALIKES", "Context", "Redacting", "encodable", "escape_surrogates", "json_ascii"]
