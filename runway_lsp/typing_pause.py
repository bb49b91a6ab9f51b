"""Quiet while typing: a diagnostic on the line being edited waits until the user pauses.

While a word is half typed (``size: {dev: me``) its "unknown size" is noise: the completion
list is still open. So a diagnostic whose range covers a line changed less than
:data:`PAUSE_S` ago is held back, unless the client already shows that same diagnostic (it
does not flicker away and back), and then with the words the client shows until the pause:
a message that changes at every key (``unknown size `sm```, ``sma``) is news too. A file that does not parse while a line is busy (an open
``{`` not closed yet: the YAML error lands on the next line, and every other diagnostic of
the file is gone with the model) keeps what the client shows, minus the busy lines, until
the pause: a syntax error is reported once the user stops typing, not at every keystroke. Every other diagnostic goes out as fast as before; once the
line has been left alone for :data:`PAUSE_S` the held ones are sent (the session schedules
that, :meth:`TypingPause.due_in`). The cost views follow the same rule: while the only
reason a plan is incomplete is a held diagnostic, they keep the last complete figures
(runway_lsp/cost_view.py).

Pure apart from the clock (injectable for tests). Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Collection, Iterable, Sequence

from runway_core.diagnostics import Diagnostic
from runway_core.positions import Position, common_prefix, common_suffix, split_lines

#: Codes of a file that cannot be read as YAML at all (docs/diagnostics.md "Loader codes").
UNREADABLE = frozenset({"RW001", "RW003", "RW004", "RW006"})

#: How long a line must be left alone before its diagnostics are shown, in seconds.
PAUSE_S = 0.4
#: A change within this many lines is typing (a keystroke, Enter splitting a line, a completion
#: accepted); a paste or an edit applied across more lines (a rename, a quick fix that adds a
#: block) is not, and holds nothing back.
TYPED_LINES = 2
#: Most line moves remembered between two publications of a file (each is two ints).
MAX_SHIFTS = 1_000


def _numbered_lines(text: str) -> list[str]:
    """Item N is line N as positions count lines (a lone CR ends one too: docs/format.md
    "Reading the files"), since the changed range is compared with diagnostics' lines; items
    may keep a CR of their CRLF (only equality is asked). Without a lone CR, a plain split at
    "\n" numbers the same and costs a quarter of the regular expression's (1 MiB CRLF: 11 vs
    40 ms)."""
    if text.count("\r") == text.count("\r\n"):
        return text.split("\n")
    return split_lines(text)


def changed_lines(before: str, after: str) -> range:
    """The 0-based lines of ``after`` that a change made from ``before`` wrote: from the line
    of the first character that differs to that of the last one written, and the line after a
    line break written last inside a line (Enter splitting it); an empty range when the texts
    are equal. For an edit on one line, what comparing the texts line by line finds.

    Found from the first and the last character that differ (``common_prefix`` and
    ``common_suffix`` of :mod:`runway_core.positions`; ~1.5 ms for a keystroke in a
    12,758-line CRLF runway, where comparing its lines one by one cost ~25 ms at every
    didChange and a fresh reviewer's server fell seconds behind at 10 ms keystrokes); with a
    lone CR in either text, line by line (lines are numbered as positions number them)."""
    if before == after:
        return range(0)
    if before.count("\r") == before.count("\r\n") and after.count("\r") == after.count("\r\n"):
        first = common_prefix(before, after)
        end = len(after) - common_suffix(before, after, min(len(before), len(after)) - first)
        # after[first:end] replaced before's: its first line to its last; when it ends with a
        # line break and began inside a line (Enter splitting a line), the line it starts too.
        head = after.count("\n", 0, first)
        last = head
        if end > first:
            last = after.count("\n", 0, end - 1)
            if after[end - 1] == "\n" and first > 0 and after[first - 1] != "\n":
                last += 1
        return range(head, max(head + 1, last + 1))
    return line_by_line(before, after)


def line_by_line(before: str, after: str) -> range:
    """:func:`changed_lines` by comparing the common leading and trailing lines one by one (what
    it did before round 3; still its way with a lone CR): O(lines) of Python."""
    a = _numbered_lines(before)
    b = _numbered_lines(after)
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return range(head, max(head + 1, len(b) - tail))


#: How an edit moved positions: ``(line, column, new line, new column)``. A position of the text
#: before it at or after ``(line, column)`` (code points), below the text the edit replaced,
#: is at ``(new line, new column)`` plus its distance on that line, or ``new line - line``
#: lines further down on a later line. ``column`` None: whole lines moved (a lone-CR text).
Shift = tuple[int, int | None, int, int | None]


def line_shift(before: str, after: str) -> Shift | None:
    """How the edit that turned ``before`` into ``after`` moved what follows it, or None when
    no line moved (most keystrokes: the hot path costs a few counts). The text after the edit
    is the common suffix of the two; its start in each text gives the shift (Enter at the end
    of line 1 moves line 2 to 3; Enter inside a line moves the rest of it to the next line).
    Lines and columns are numbered as positions number them (code points; a lone CR ends a
    line too: then whole lines, by :func:`line_by_line`)."""
    if before.count("\r") == before.count("\r\n") and after.count("\r") == after.count("\r\n"):
        if after.count("\n") == before.count("\n"):
            return None
        first = common_prefix(before, after)
        tail = common_suffix(before, after, min(len(before), len(after)) - first)
        b_at, a_at = len(before) - tail, len(after) - tail
        b_line, a_line = before.count("\n", 0, b_at), after.count("\n", 0, a_at)
        return b_line, b_at - (before.rfind("\n", 0, b_at) + 1), a_line, a_at - (after.rfind("\n", 0, a_at) + 1)
    a, b = _numbered_lines(before), _numbered_lines(after)
    if len(a) == len(b):
        return None
    changed = line_by_line(before, after)
    tail = len(b) - changed.stop  # lines after the change, the same in both
    return len(a) - tail - 1, None, len(b) - tail - 1, None


def _moved(pos: Position, shift: Shift) -> Position:
    line, column, new_line, new_column = shift
    if pos.line > line:
        return dataclasses.replace(pos, line=pos.line + new_line - line)
    if pos.line == line and column is not None and new_column is not None and pos.character >= column:
        return dataclasses.replace(pos, line=new_line, character=pos.character - column + new_column)
    return pos


def _shifted(d: Diagnostic, shifts: Sequence[Shift]) -> Diagnostic:
    """``d`` (a range of the text before ``shifts``) moved with the text after each edit; a
    range before an edit stays where it is."""
    start, end = d.range.start, d.range.end
    for shift in shifts:
        start, end = _moved(start, shift), _moved(end, shift)
    if (start, end) == (d.range.start, d.range.end):
        return d
    return dataclasses.replace(d, range=dataclasses.replace(d.range, start=start, end=end))


class TypingPause:
    """When each line of each open file was last changed (monotonic seconds), and how the
    lines moved since the client was last sent its diagnostics."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, pause_s: float = PAUSE_S) -> None:
        self.clock = clock
        self.pause_s = pause_s
        self._edited: dict[str, dict[int, float]] = {}
        #: path -> the :data:`Shift` of each edit since the last :meth:`split` that moved a
        #: line (its ``shown`` ranges are those of the text before them); None: too many.
        self._shifts: dict[str, list[Shift] | None] = {}

    def moved(self, path: str, before: str, after: str) -> None:
        """A change turned ``before`` into ``after``: what the client shows moves with its
        lines until the next :meth:`split` (ninth adversary L9: a kept diagnostic stayed on
        its old line number after an Enter above it, clipped to a zero width there)."""
        shift = line_shift(before, after)
        if shift is not None:
            shifts = self._shifts.setdefault(path, [])
            if shifts is not None and len(shifts) < MAX_SHIFTS:
                shifts.append(shift)
            else:  # a publication this far behind keeps nothing shown: wrong lines are worse
                self._shifts[path] = None

    def edited(self, path: str, lines: Iterable[int]) -> None:
        now = self.clock()
        at = self._edited.setdefault(path, {})
        for line in lines:
            at[line] = now
        # Lines left alone long ago no longer matter: keep the map small.
        for line in [n for n, t in at.items() if now - t >= self.pause_s]:
            del at[line]

    def forget(self, path: str) -> None:
        self._edited.pop(path, None)
        self._shifts.pop(path, None)

    def _busy(self, path: str, now: float) -> dict[int, float]:
        return {n: t for n, t in self._edited.get(path, {}).items() if now - t < self.pause_s}

    def is_held(self, d: Diagnostic, busy: dict[int, float]) -> bool:
        return any(d.range.start.line <= n <= d.range.end.line for n in busy)

    def split(self, path: str, diags: Sequence[Diagnostic], shown: Collection[Diagnostic] = ()) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """``(to send now, held)``: a diagnostic on a line changed less than :data:`PAUSE_S`
        ago is held unless ``shown`` (what the client has) holds the same code on that line;
        then it is sent with the shown one's message (and held too when its own differs, so
        the pause sends it). ``shown`` is of the text before the edits since the last split:
        it is moved with their lines first."""
        shifts = self._shifts.pop(path, ())
        if shifts is None:
            shown = ()
        elif shifts:
            shown = [_shifted(d, shifts) for d in shown]
        busy = self._busy(path, self.clock())
        if not busy:
            return list(diags), []
        if any(d.code in UNREADABLE and d.file == path for d in diags):
            kept = [d for d in shown if not self.is_held(d, busy)]
            return kept, [d for d in diags if d not in kept]
        # Already on screen: the same code on the same line. Its range follows the text, its
        # wording waits: correcting `smal` to `small` a key at a time must not say "unknown
        # size `s`", "`sm`", "`sma`" at each key (issue 26), so until the pause the message
        # the client shows is sent with the new range, and the new one is held.
        known = {(d.code, d.range.start.line): d for d in shown}
        now, held = [], []
        for d in diags:
            if not self.is_held(d, busy):
                now.append(d)
                continue
            old = known.get((d.code, d.range.start.line))
            if old is None:
                held.append(d)
            elif old.message == d.message:
                now.append(d)
            else:
                now.append(dataclasses.replace(d, message=old.message))
                held.append(d)
        return now, held

    def due_in(self, path: str) -> float | None:
        """Seconds until the last busy line of ``path`` has been left alone for
        :data:`PAUSE_S`; None when no line is busy."""
        now = self.clock()
        busy = self._busy(path, now)
        if not busy:
            return None
        return max(0.0, max(busy.values()) + self.pause_s - now)

    def busy_paths(self) -> list[str]:
        now = self.clock()
        return [p for p in self._edited if self._busy(p, now)]
