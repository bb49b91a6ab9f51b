"""Where a command's ``--format`` output goes: standard output, or with ``--output FILE`` that
file (written once, UTF-8, when the command has rendered it) while the text output goes to
standard output (docs/cli.md, "In CI"). Both pass through redaction."""

from __future__ import annotations

import argparse
import io
import os
from typing import IO

from deploy_engine.context import Context, Redacting
from deploy_engine.exits import InputError


class Output:
    """``formatted``: the stream of the ``--format`` output; ``text``: the stream of the text
    output when ``--output`` is given (else None: the format goes to stdout alone)."""

    def __init__(self, args: argparse.Namespace, ctx: Context) -> None:
        self.path: str | None = getattr(args, "output", None)
        self._buffer = io.StringIO()
        self.formatted: IO[str] = Redacting(self._buffer) if self.path else ctx.stdout  # type: ignore[assignment]
        self.text: IO[str] | None = ctx.stdout if self.path else None

    def close(self) -> None:
        """Write FILE (nothing without ``--output``); InputError (exit 3) when it cannot be written."""
        if not self.path:
            return
        try:
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, exist_ok=True)
            with open(self.path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(self._buffer.getvalue())
        except OSError as exc:
            raise InputError(f"cannot write {self.path}: {exc.strerror or exc}") from None


__all__ = ["Output"]
