"""Diagnostics: the core's one shape for every problem found in a runway.

User mistakes are data (STYLE.md §7): the loader, the model and every rule return
:class:`Diagnostic` values and never raise for bad input. Codes are stable and documented in
docs/diagnostics.md. Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from .positions import Range


class Severity(enum.IntEnum):
    """LSP DiagnosticSeverity values (LSP 3.17 §"Diagnostic")."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at a range of one file.

    ``file`` is the absolute path of the runway file the range belongs to. ``data`` carries
    what a quick fix needs (issue: diagnostic.data) and must never hold a secret value.
    ``tags`` are LSP DiagnosticTag values (1 = unnecessary, 2 = deprecated).
    """

    file: str
    range: Range
    severity: Severity
    code: str
    message: str
    data: dict[str, Any] | None = field(default=None, compare=False)
    tags: tuple[int, ...] = ()

    def sort_key(self) -> tuple:
        return (self.file, self.range.start, self.range.end, self.code, self.message)
