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


def workflow_escaped(text: str) -> str:
    """``text`` escaped as a GitHub workflow command's message, nothing else: control characters
    other than CR and LF as escapes (:func:`printable`), then ``%`` -> ``%25``, CR -> ``%0D``,
    LF -> ``%0A`` (``@actions/core`` ``command.ts`` ``escapeData``). No redaction: the caller
    redacts first (:func:`deploy_engine.cli.formats.github.github_escape_data`), and the run's
    :class:`deploy_engine.secrets.Redactor` also knows each value in this form."""
    text = "".join(c if c.isprintable() or c in "\r\n" else c.encode("unicode_escape").decode("ascii") for c in text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property_escaped(text: str) -> str:
    """:func:`workflow_escaped`, plus ``:`` -> ``%3A`` and ``,`` -> ``%2C`` (``escapeProperty``)."""
    return workflow_escaped(text).replace(":", "%3A").replace(",", "%2C")


def rel_path(path: str, base: str) -> str:
    """``path`` relative to ``base`` with ``/`` separators (``path`` itself on another drive)."""
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive on Windows
        rel = path
    return Path(rel).as_posix()


__all__ = ["printable", "printable_lines", "rel_path", "workflow_escaped", "workflow_property_escaped"]
