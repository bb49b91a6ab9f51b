"""RW006 (a tab used for indentation): "Replace tabs with spaces" on the diagnosed line, and
"Replace tabs with spaces in the whole file" when more lines are tab-indented.

The loader stops at the first tab that indents (libyaml reports one error and reads no
further), so the file has one RW006 however many lines are tab-indented. The fix replaces the
indentation (the run of spaces and tabs that starts the line) and nothing else: a tab after a
key's colon, after ``-`` or in a comment is YAML 1.2 separation and stays.

How wide a tab is: one width ``w`` for the whole file (tab stops every ``w`` columns, as an
editor draws them, :meth:`str.expandtabs`), chosen on the diagnosed line so that it lands
where the surrounding block expects it. The file's indent step ``unit`` is the most common
increase of indentation between a line and the space-indented line above it (2 when no line is
space-indented). Under a line that opens a block (ends with ``:``, is a bare ``-``, or ends
with a block scalar header ``|``/``>``) the
expected column is that line's indentation plus ``unit``; under any other line, the same
column as that line (a sibling). The widths ``unit``, 2, 4, 8 are tried in that order: the
first that gives the expected column wins; else the first that gives a column the block allows
(deeper than an opening line; one of the open levels above otherwise); else ``unit``.

Every fix is checked by parsing the fixed text (docs/diagnostics.md, RW006): the single fix is
offered only when the parser then reads past the line (the first syntax or tab error, if any,
is on a later line). The whole-file fix first rewrites, in one pass, every tab-indented line
that is not a block scalar's text (the lines after a ``|``/``>`` header indented deeper than
it), checked by one parse; when that parse still stops, it goes line by line instead, fixing
the next line the parser stops at with RW006 (one parse each, at most :data:`MAX_LINES`
lines). It is offered only when no RW006 is left and the parse is whole. A tab inside a block
scalar's text is content and stays.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from ...diagnostics import Diagnostic
from ...yamlsrc import parse_yaml
from ._context import Fix, _Ctx

#: The most lines the line-by-line whole-file fix rewrites (one parse each), when the one-pass
#: rewrite does not parse; past it, the single-line fix only.
MAX_LINES = 200
#: Tab widths tried after the file's own indent step, in order (2 is yaml-language-server's
#: and Prettier's YAML default, 4 VS Code's editor default, 8 a terminal's).
TAB_WIDTHS = (2, 4, 8)

_LEAD = re.compile(r"[ \t]*")
#: A line ending in a block scalar header (``key: |``, ``- >-``, ``run: |2``).
_BLOCK_HEADER = re.compile(r"(?:^|[:\-][ \t]+)[|>][0-9+-]{0,2}$")


def _content(line: str) -> str:
    """The line without its indentation and a trailing comment (a ``#`` after a space)."""
    body = line.strip(" \t\ufeff")
    return re.split(r"(?:^|[ \t])#", body, maxsplit=1)[0].rstrip(" \t")


def _structural(lines: list[str]) -> Iterator[tuple[int, str, str]]:
    """(line number, indentation, content) of each content line that is not the text of a
    block scalar (the lines after a ``|``/``>`` header indented deeper than the header's line)."""
    block_at = None  # the indentation of a block scalar header's line while in its text
    for i, line in enumerate(lines):
        body = _content(line)
        if not body:
            continue
        lead = _LEAD.match(line).group(0)  # type: ignore[union-attr]
        col = len(lead.expandtabs(1))
        if block_at is not None:
            if col > block_at:
                continue
            block_at = None
        if _BLOCK_HEADER.search(body):
            block_at = col
        yield i, lead, body


def _indent_unit(lines: list[str]) -> int:
    """The most common increase of indentation between space-indented content lines; 2 without one."""
    steps: Counter[int] = Counter()
    prev = None
    for _i, lead, _body in _structural(lines):
        if "\t" in lead:
            prev = None
            continue
        if prev is not None and len(lead) > prev:
            steps[len(lead) - prev] += 1
        prev = len(lead)
    return steps.most_common(1)[0][0] if steps else 2


def _levels(lines: list[str], upto: int) -> tuple[list[int], int | None, bool]:
    """The open indentation levels above line ``upto`` (an off-side stack, counting the
    column after each ``- ``), the indentation of the last content line above, and whether that
    line opens a block."""
    stack: list[int] = []
    prev, prev_i, opens, header = None, -1, False, False
    for i, lead, body in _structural(lines):
        if i >= upto:
            break
        col = len(lead.expandtabs(1))
        while stack and stack[-1] > col:
            stack.pop()
        if not stack or stack[-1] < col:
            stack.append(col)
        rest, at = body, col
        while rest.startswith("- "):  # `- - name: x`: each item's content is a level too
            at += 2 + len(rest[2:]) - len(rest[2:].lstrip(" "))
            rest = rest[2:].lstrip(" ")
            stack.append(at)
        prev, prev_i = col, i
        opens = body.endswith(":") or body == "-" or body.endswith(" -")
        # A block scalar's header opens a block too (its text is indented deeper), until its
        # text has begun: a line after the text ends the scalar.
        header = bool(_BLOCK_HEADER.search(body))
    if prev is not None and header:
        opens = not any(_content(line) for line in lines[prev_i + 1 : upto])
    return stack, prev, opens


def _tab_width(lines: list[str], line: int, unit: int) -> int:
    """The tab width that puts ``line``'s indentation where the block above expects it."""
    lead = _LEAD.match(lines[line]).group(0)  # type: ignore[union-attr]
    stack, prev, opens = _levels(lines, line)
    if prev is None:
        expected, allowed = 0, (lambda c: c == 0)
    elif opens:
        expected, allowed = prev + unit, (lambda c: c > prev)
    else:
        expected, allowed = prev, (lambda c: c in stack)
    widths = list(dict.fromkeys((unit, *TAB_WIDTHS)))
    cols = [(w, len(lead.expandtabs(w))) for w in widths]
    for w, c in cols:
        if c == expected:
            return w
    for w, c in cols:
        if allowed(c):
            return w
    return unit


def _first_error_line(text: str, path: str) -> tuple[int | None, bool]:
    """The line of the first RW001/RW006 of ``text`` (None when there is none) and whether it is RW006."""
    parsed = parse_yaml(text, path)
    errs = [d for d in parsed.diagnostics if d.code in ("RW001", "RW006")]
    if not errs:
        return None, False
    return errs[0].range.start.line, errs[0].code == "RW006"


def _expand(line: str, width: int) -> str:
    lead = _LEAD.match(line).group(0)  # type: ignore[union-attr]
    return lead.expandtabs(width) + line[len(lead):]


def _tab_fixes(ctx: _Ctx, diag: Diagnostic) -> list[Fix]:
    src = ctx.src()
    text = src.text
    lines = src.lines.all_lines()
    first = diag.range.start.line
    if not (0 <= first < len(lines)) or "\t" not in _LEAD.match(lines[first]).group(0):  # type: ignore[union-attr]
        return []
    width = _tab_width(lines, first, _indent_unit(lines))

    def edit(i: int):
        lead = _LEAD.match(lines[i]).group(0)  # type: ignore[union-attr]
        start = src.lines.line_start(i)
        return src.edit(start, start + len(lead), lead.expandtabs(width))

    def with_lines(fixed: dict[int, str]) -> str:
        out, pos = [], 0
        for i in sorted(fixed):
            start = src.lines.line_start(i)
            out.append(text[pos:start])
            out.append(fixed[i])
            pos = start + len(lines[i])
        out.append(text[pos:])
        return "".join(out)

    fixed = {first: _expand(lines[first], width)}
    err, is_tab = _first_error_line(with_lines(fixed), src.path)
    if err is not None and err <= first:
        return []  # the parser still stops on this line: no width makes it read on
    out: list[Fix] = []
    one = ctx.fix("Replace tabs with spaces", diag, [(ctx.path, edit(first))], preferred=True)
    if one:
        out.append(one)
    # The whole file, first in one pass: every tab-indented line that is not a block scalar's
    # text, checked by one parse. When that parse still stops (a block scalar indented with
    # tabs), line by line: fix each line the parser stops at next, while it is a tab's RW006.
    if err is not None and is_tab:
        every = {first: fixed[first]}
        every.update({i: _expand(lines[i], width) for i, lead, _b in _structural(lines) if "\t" in lead})
        if len(every) > 1 and _first_error_line(with_lines(every), src.path)[0] is None:
            fixed, err = every, None
    while err is not None and is_tab and len(fixed) < MAX_LINES:
        if err in fixed or "\t" not in _LEAD.match(lines[err]).group(0):  # type: ignore[union-attr]
            break
        fixed[err] = _expand(lines[err], width)
        last = err
        err, is_tab = _first_error_line(with_lines(fixed), src.path)
        if err is not None and err <= last:
            break
    if len(fixed) > 1 and err is None:
        many = ctx.fix(f"Replace tabs with spaces in the whole file ({len(fixed)} lines)", diag,
                       [(ctx.path, edit(i)) for i in sorted(fixed)])
        if many:
            out.append(many)
    return out
