"""Markdown tables with their padding removed, so tests can name a row as ``| a | b |``
whatever the widths of the other rows (runway_core.markdown pads every column)."""

from __future__ import annotations

import re

_DELIM = re.compile(r"^\s*-{3,}(:?)\s*$")


def flat(md: str) -> str:
    """``md`` with every table line rewritten as ``| a | b |`` (cells stripped; an empty cell
    as ``| |``; a delimiter cell as ``---`` or ``---:``); other lines unchanged."""
    out = []
    for line in md.split("\n"):
        if line.startswith("|") and line.endswith("|") and len(line) > 1:
            cells = [c.strip() for c in line[1:-1].split("|")]
            cells = ["---" + m.group(1) if (m := _DELIM.match(c)) else c for c in cells]
            if all(c.startswith("---") for c in cells):
                line = "|" + "|".join(cells) + "|"
            else:
                line = "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"
        out.append(line)
    return "\n".join(out)
