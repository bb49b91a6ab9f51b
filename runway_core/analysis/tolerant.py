"""Tolerance: what the editor shows while a line being typed breaks the YAML.

A parse cut short by a syntax error plans nothing; the same text with the offending line
blanked (same length, same line breaks, so every other position holds) usually parses, and
its analysis keeps costs, lenses and hovers in view (:func:`tolerant_analysis`).
"""

from __future__ import annotations

import os
from typing import Iterable

from ..facts import Analysis
from ..workspace import Reader, read_disk
from ..yamlsrc import ParsedYaml, parse_yaml
from . import run

#: libyaml problems reported past the line that caused them (a key without its `:` is found
#: out on the next line; an unclosed flow collection where the next key starts).
_REPORTED_LATE = ("could not find expected ':'", "did not find expected ',' or", "did not find expected key")


def blank_lines(parsed: ParsedYaml, lines: Iterable[int]) -> str:
    """``parsed.text`` with ``lines`` (0-based) blanked to spaces: the same length in code
    points and the same line breaks, so every position of every other line holds (a
    byte-order mark stays). Lines past the end are ignored."""
    text, index = parsed.text, parsed.lines
    out: list[str] = []
    last = 0
    for line in sorted({n for n in lines if 0 <= n < index.line_count}):
        start, end = index.line_start(line), index.line_end(line)
        if line == 0 and text.startswith("\ufeff"):
            start += 1
        out.append(text[last:start])
        out.append(" " * (end - start))
        last = end
    out.append(text[last:])
    return "".join(out)


def tolerant_text(parsed: ParsedYaml) -> str | None:
    """For a parse a syntax error cut short (``parsed.partial``), the same text with the
    offending line blanked (:func:`blank_lines`) when the result parses whole; None when
    the parse is whole already or no blanking helps.

    Tried in turn: the line the error is reported on, the last non-blank line above it (a
    key typed without its ``:`` is found out on the next line: that one is tried first for
    such errors), then both."""
    if not parsed.partial:
        return None
    errors = [d for d in parsed.diagnostics if d.code in ("RW001", "RW006")]
    if not errors:
        return None
    first = errors[0]
    line = first.range.start.line
    above = line - 1
    while above >= 0 and not parsed.lines.line_text(above).strip(" \t\ufeff").split("#", 1)[0].strip():
        above -= 1
    tries: list[tuple[int, ...]] = [(line,), (above,), (above, line)]
    if any(p in first.message for p in _REPORTED_LATE):
        tries[0], tries[1] = tries[1], tries[0]
    for blank in tries:
        if min(blank) < 0:
            continue
        text = blank_lines(parsed, blank)
        again = parse_yaml(text, parsed.path)
        if not again.partial and again.root is not None:
            return text
    return None


def tolerant_analysis(an: Analysis, read: Reader | None = None) -> Analysis | None:
    """While a file of ``an`` has a syntax error (its parse is partial, so nothing is
    planned): the analysis of the same files with each such file's offending line blanked
    (:func:`tolerant_text`), for what stays in view while typing (costs, lenses, hovers).
    None when no file is partial, or a blanked text still does not parse. Its diagnostics
    are not the files' (those come from the real text, ``an``); positions hold (same text
    length, same lines). ``read`` supplies the other files, as for :func:`analyze`."""
    texts: dict[str, str] = {}
    for path, src in an.files.items():
        if src.parsed.partial:
            text = tolerant_text(src.parsed)
            if text is None:
                return None
            texts[path] = text
    if not texts:
        return None
    base = read or read_disk

    def reread(path: str) -> str:
        return texts.get(path) or texts.get(os.path.abspath(path)) or base(path)

    tolerant = run.analyze(an.root_file, an.catalog, reread)
    if any(f.parsed.partial for f in tolerant.files.values()):
        return None
    return tolerant
