"""Markdown tables that read as well in plain text as rendered.

Editors render hover and completion documentation as markdown, but not all of them render
tables: Neovim's hover window shows the markdown source, and so does a CI log of ``plan
--format markdown``. So every table here is padded to equal column widths, with money
columns right-aligned (``---:``), which renders the same in VS Code and GitHub and reads as a
table in a terminal.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import unicodedata
from typing import Collection, Iterable, Sequence


def width(text: str) -> int:
    """Terminal columns of ``text``: 2 for wide East Asian characters and emoji, 0 for
    combining marks, else 1."""
    if text.isascii():
        return len(text)
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def table(header: Sequence[str], rows: Iterable[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """The lines of a GitHub-flavoured markdown table: ``header``, the delimiter row and one
    line per row, every column padded to its widest cell (``right``: indexes of the columns
    aligned right, e.g. amounts in USD). Cells are written as given: escape ``|`` first.
    A row shorter than the header is filled with empty cells.

    >>> table(["item", "monthly"], [["main-db", "$36.28"], ["cache", "$9.34"]], right={1})
    ['| item    | monthly |', '|---------|--------:|', '| main-db |  $36.28 |', '| cache   |   $9.34 |']
    """
    body = [list(r) + [""] * (len(header) - len(r)) for r in rows]
    widths = [max([3, width(h)] + [width(r[c]) for r in body]) for c, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        padded = []
        for c, cell in enumerate(cells):
            gap = " " * (widths[c] - width(cell))
            padded.append(gap + cell if c in right else cell + gap)
        return "| " + " | ".join(padded) + " |"

    delim = "|" + "|".join("-" * (w + 1) + ":" if c in right else "-" * (w + 2) for c, w in enumerate(widths)) + "|"
    return [line(header), delim] + [line(r) for r in body]


__all__ = ["table", "width"]
