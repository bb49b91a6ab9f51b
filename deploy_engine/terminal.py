"""Text that is safe to print: control characters shown as escapes, paths relative with ``/``.

A leaf of :mod:`deploy_engine` shared by the command line and the deploy pipeline, so a hostile
runway cannot drive the terminal or a CI log through either. Imports nothing of the project.
"""

from __future__ import annotations

import os
from pathlib import Path


def printable(text: str) -> str:
    """Replace control characters so a hostile runway cannot drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def printable_lines(text: str) -> str:
    """:func:`printable` per line, the line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def rel_path(path: str, base: str) -> str:
    """``path`` relative to ``base`` with ``/`` separators (``path`` itself on another drive)."""
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive on Windows
        rel = path
    return Path(rel).as_posix()


__all__ = ["printable", "printable_lines", "rel_path"]
