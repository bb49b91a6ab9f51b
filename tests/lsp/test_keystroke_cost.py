"""What a didChange costs does not grow with the lines before and after the edit (round 3, a
fresh reviewer: at 10 ms keystrokes in a 12,758-line runway the server fell seconds behind,
indexing and diffing the whole text at every keystroke). The cheap forms give what the whole-
text forms gave: ranges decoded from the lines the range spans; changed lines from the first
and last characters that differ."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

import runway_lsp.convert.positions as positions
from runway_core.positions import LineIndex
from runway_lsp.convert.positions import apply_change, from_position
from runway_lsp.typing_pause import changed_lines, line_by_line

TEXT = st.lists(st.sampled_from(["a", "é", "😀", "\n", "\r\n", "\r", " ", "b"]), max_size=40).map("".join)


def whole_text(text: str, change, enc) -> str:
    """apply_change as it was: the whole text indexed."""
    lines = LineIndex(text)
    start = lines.offset(from_position(change.range.start, lines, enc))
    end = lines.offset(from_position(change.range.end, lines, enc))
    start, end = min(start, end), max(start, end)
    return text[:start] + change.text + text[end:]


@settings(max_examples=400, deadline=None)
@given(text=TEXT, l1=st.integers(0, 12), c1=st.integers(0, 9), l2=st.integers(0, 12), c2=st.integers(0, 9),
       new=st.sampled_from(["", "x", "\n", "é", "😀\r\n"]), enc=st.sampled_from(["utf-16", "utf-8", "utf-32"]))
def test_a_change_applied_from_the_lines_it_spans_is_the_change_applied_to_the_whole_text(text, l1, c1, l2, c2, new, enc):
    change = types.TextDocumentContentChangePartial(range=types.Range(types.Position(l1, c1), types.Position(l2, c2)), text=new)
    saved = positions._SPAN
    positions._SPAN = 5  # several spans even in a short text
    try:
        assert apply_change(text, change, enc) == whole_text(text, change, enc)
    finally:
        positions._SPAN = saved


LF_TEXT = st.lists(st.sampled_from(["a", "b", " ", "\n", "\r\n"]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=LF_TEXT, at=st.integers(0, 40), cut=st.integers(0, 5), typed=st.sampled_from(["", "a", "xy", " "]))
def test_a_keystroke_on_one_line_changes_the_lines_the_line_by_line_diff_found(text, at, cut, typed):
    at = min(at, len(text))
    removed = text[at:at + cut]
    if "\n" in removed or "\r" in removed:
        removed = ""
    after = text[:at] + typed + text[at + len(removed):]
    if after != text:
        assert changed_lines(text, after) == line_by_line(text, after)


def test_enter_and_a_paste_change_the_lines_they_write():
    text = "a: 1\nbb: 2\ncc: 3\n"
    assert changed_lines(text, text.replace("bb: 2", "bb:\n 2")) == range(1, 3)  # Enter inside line 1
    assert changed_lines(text, text.replace("bb: 2\n", "bb: 2\n\n")) == range(2, 3)  # Enter at its end: the new line
    assert changed_lines(text, text.replace("bb: 2", "x: 1\ny: 2\nz: 3")) == range(1, 4)  # a paste
    assert changed_lines(text, text.replace("bb: 2\n", "")) == range(1, 2)  # a line removed


def test_a_keystroke_near_the_end_of_a_long_text():
    text = "".join(f"  line-{i}: value\r\n" for i in range(20_000))
    at = text.index("line-19990")
    after = text[:at] + "x" + text[at:]
    assert changed_lines(text, after) == range(19_990, 19_991)
    change = types.TextDocumentContentChangePartial(range=types.Range(types.Position(19_990, 2), types.Position(19_990, 2)), text="x")
    assert apply_change(text, change, "utf-16") == after
