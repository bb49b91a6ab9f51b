"""What a ``runway-deploy`` command may touch: streams, environment variables, the clock and
``which`` (docs/architecture.md §6), and the redacting stream every output goes through.

Shared by the command line (:mod:`deploy_engine.cli`) and the deploy pipeline
(:mod:`deploy_engine.pipeline`). Must not import pulumi.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from typing import IO, Any, Callable, Mapping

from runway_core.text import redact


class Redacting:
    """A text stream whose writes pass through :func:`runway_core.text.redact`: whatever a
    command prints (diagnostics, plans in every format, errors), a credential-shaped string
    the user pasted somewhere in a runway is never printed into a CI log. Each write is a
    whole message, line or document, so no value is split across two. Everything else
    (``isatty``, ``fileno``, ``flush``) is the wrapped stream's."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Context:
    """A command's streams, environment variables, clock (aware UTC datetimes) and ``which``."""

    def __init__(
        self,
        stdout: IO[str],
        stderr: IO[str],
        environ: Mapping[str, str],
        clock: Callable[[], datetime] | None = None,
        which: Callable[..., str | None] = shutil.which,
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.environ = environ
        self.clock = clock
        self.which = which
        self.redactor: Any = None  # set by a deploy run, for the RUNWAY_DEBUG traceback

    def now(self) -> datetime:
        if self.clock is not None:
            return self.clock()
        from deploy_engine.leases import utc_now

        return utc_now()


__all__ = ["Context", "Redacting"]
