"""End to end: quiet while typing (issue 15). A diagnostic on the line being typed on waits
until the line has been left alone for runway_lsp.typing_pause.PAUSE_S (0.4 s); the other
diagnostics go out with the keystroke as before. Asserted on the order of what the client
receives (never on wall-clock time): the publication that answers the keystroke lacks the
half-typed word's error, a later one (after the pause, with no further edit) has it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_change, did_open, files, init, last_version, line_of, neovim_caps, pull, until, vscode_caps
from runway_lsp.typing_pause import changed_lines


def _publishes(client: LanguageClient, path: Path, version: int) -> list[types.PublishDiagnosticsParams]:
    return [p for p in client.published if p.uri == path.as_uri() and p.version == version]  # type: ignore[attr-defined]


def _on_lines(diags, lines: range) -> list[str]:
    return [f"{d.code}@{d.range.start.line}" for d in diags if d.range.start.line in lines or d.range.end.line in lines]


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("    size: {dev: me", "RW001"),  # the brace not closed yet: the YAML error lands on the next line
        ("    size: {dev: me}", "RW130"),  # unknown size `me`
    ],
    ids=["open-brace", "closed-brace"],
)
async def test_a_half_typed_size_waits_for_the_pause(client: LanguageClient, orders: Path, typed: str, code: str):
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    line_no, line = line_of(root, "    size: medium")  # pdf-renderer's size
    assert line == "    size: medium"

    did_change(client, root, 2, (line_no, 0), (line_no, len(line)), typed)
    await until(client, lambda: len(_publishes(client, root, 2)) >= 1)
    first = _publishes(client, root, 2)[0].diagnostics
    # The keystroke's answer: nothing on the typed line (nor the next, where an open brace
    # is reported), and the rest of the file's diagnostics as before.
    assert _on_lines(first, range(line_no, line_no + 2)) == []
    assert [d.code for d in first] == ["RW140"]

    # No further edit: after the pause the error arrives, in a later publication.
    await until(client, lambda: code in codes(client, root))
    assert len(_publishes(client, root, 2)) >= 2  # the same version published again: the pause, not an edit
    assert any(d.code == code and d.range.start.line in (line_no, line_no + 1) for d in client.diagnostics[root.as_uri()])


async def test_a_diagnostic_on_another_line_is_not_held(client: LanguageClient, orders: Path):
    """Typing on one line holds back only that line's news: the errors the edit causes
    elsewhere (here RW150 on each `uses: [main-db]` once the resource is renamed away) are
    sent with the keystroke."""
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    line_no, line = line_of(root, "  main-db:")
    did_change(client, root, 2, (line_no, 2), (line_no, 9), "main-dbx")
    await until(client, lambda: len(_publishes(client, root, 2)) >= 1)
    first = _publishes(client, root, 2)[0].diagnostics
    assert "RW150" in [d.code for d in first]
    assert all(d.range.start.line != line_no for d in first)


async def test_an_error_already_shown_on_the_line_stays_while_typing(client: LanguageClient, orders: Path):
    """No flicker: RW140 on the metabase image line stays in every publication while that
    line is edited (its range follows the text)."""
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    line_no, line = line_of(root, "image: metabase/")
    did_change(client, root, 2, (line_no, len(line)), (line_no, len(line)), "x")
    await until(client, lambda: len(_publishes(client, root, 2)) >= 1)
    assert [d.code for d in _publishes(client, root, 2)[0].diagnostics] == ["RW140"]


async def test_an_error_kept_while_the_file_does_not_parse_moves_with_an_enter_above_it(client: LanguageClient, orders: Path):
    """Ninth adversary L9: an unclosed quote typed above the metabase image (the file stops
    parsing, so what the client shows is kept until the pause), then Enter on that line. The
    kept RW140 stayed on its old line number, now the line above its text, clipped to a zero
    width there, until the pause. It now moves with its line, whole."""
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    (shown,) = client.diagnostics[root.as_uri()]
    image_line, _ = line_of(root, "image: metabase/")
    assert shown.range.start.line == image_line
    width = shown.range.end.character - shown.range.start.character
    typed_at = line_of(root, "  dev:")[0]
    did_change(client, root, 2, (typed_at, 2), (typed_at, 2), '"')  # `  "dev:`: no longer YAML
    await until(client, lambda: len(_publishes(client, root, 2)) >= 1)
    did_change(client, root, 3, (typed_at, 3), (typed_at, 3), "\n")  # Enter after the quote
    await until(client, lambda: len(_publishes(client, root, 3)) >= 1)
    kept = [d for d in _publishes(client, root, 3)[0].diagnostics if d.code == "RW140"]
    assert [(d.range.start.line, d.range.end.line, d.range.end.character - d.range.start.character) for d in kept] == [
        (image_line + 1, image_line + 1, width)]


async def test_correcting_a_shown_error_key_by_key_sends_no_new_words_before_the_pause(client: LanguageClient, orders: Path):
    """Issue 26: fixing `smal` one key at a time (delete back to `s`, type `mall`) must not
    publish "unknown size `sma`", "`sm`", "`s`" at each key. Until the pause the client keeps
    the words it shows (the range follows the text); `small` clears the error at once; and a
    pause on a half-fixed word sends that word's message."""
    root, _checkout, _billing = files(orders)
    line_no, line = line_of(root, "    size: medium")  # pdf-renderer's size
    text = root.read_text(encoding="utf-8").replace(line, "    size: smal", 1)
    await init(client, neovim_caps(), orders)
    did_open(client, root, text)
    await until(client, lambda: "RW130" in codes(client, root))
    shown = next(d for d in client.diagnostics[root.as_uri()] if d.code == "RW130")
    assert "`smal`" in shown.message and shown.range.start.line == line_no
    col = len("    size: ")
    version = 1
    # Back to `s`, then forward to `small`, one key per didChange (as an editor sends them).
    # Each key's publication is awaited before the next key (a human's pace, under the pause).
    for k in range(3):
        version += 1
        did_change(client, root, version, (line_no, col + 3 - k), (line_no, col + 4 - k), "")
        await until(client, lambda: last_version(client, root) == version)
    for k, ch in enumerate("mall"):
        version += 1
        did_change(client, root, version, (line_no, col + 1 + k), (line_no, col + 1 + k), ch)
        await until(client, lambda: last_version(client, root) == version)
    keyed = [p for p in client.published if p.uri == root.as_uri() and 1 < (p.version or 0) < version]  # type: ignore[attr-defined]
    messages = {d.message for p in keyed for d in p.diagnostics if d.code == "RW130"}
    assert messages <= {shown.message}, messages  # never a new wording while typing
    await until(client, lambda: "RW130" not in codes(client, root))  # `small`: fixed

    # A pause on a half-typed word: its own message comes with the pause.
    version += 1
    did_change(client, root, version, (line_no, col + 4), (line_no, col + 5), "")  # `smal` again
    await until(client, lambda: any("`smal`" in d.message for d in client.diagnostics.get(root.as_uri(), []) if d.code == "RW130"))
    version += 1
    did_change(client, root, version, (line_no, col + 3), (line_no, col + 4), "")  # `sma`
    await until(client, lambda: last_version(client, root) == version)
    first = next(p for p in client.published if p.uri == root.as_uri() and p.version == version)  # type: ignore[attr-defined]
    assert [d.message for d in first.diagnostics if d.code == "RW130"] in ([], [shown.message])
    await until(client, lambda: any("`sma`" in d.message for d in client.diagnostics.get(root.as_uri(), []) if d.code == "RW130"))


async def test_a_pulling_client_gets_the_held_error_after_a_refresh(client: LanguageClient, orders: Path):
    """VS Code pulls after each keystroke: that answer lacks the half-typed word's error; at
    the pause the server asks it to pull again (workspace/diagnostic/refresh), and the next
    answer has it."""
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    assert [d.code for d in await pull(client, root)] == ["RW140"]
    line_no, line = line_of(root, "    size: medium")
    did_change(client, root, 2, (line_no, 0), (line_no, len(line)), "    size: {dev: me}")
    client.refreshed.clear()  # type: ignore[attr-defined]
    assert [d.code for d in await pull(client, root)] == ["RW140"]
    await asyncio.wait_for(client.refreshed.wait(), TIMEOUT)  # type: ignore[attr-defined]
    after = await pull(client, root)
    assert sorted(d.code for d in after) == ["RW130", "RW140"]
    rw130 = next(d for d in after if d.code == "RW130")
    assert rw130.range.start.line == line_no


def test_the_lines_typed_on_count_a_lone_cr_as_positions_do():
    """The busy lines are compared with diagnostics' lines: in a `\\r\\r\\n` file the third
    "\\n"-line is line 4 of every position (docs/format.md "Reading the files")."""
    before = "a: 1\r\r\nb: 2\r\r\nc: 3\r\r\n"
    assert changed_lines(before, before.replace("c: 3", "c: 33")) == range(4, 5)
    assert changed_lines("a: 1\rb: 2\n", "a: 1\rb: 22\n") == range(1, 2)
    assert changed_lines("a: 1\r\nb: 2\r\n", "a: 1\r\nb: 22\r\n") == range(1, 2)


def test_line_shift_says_where_the_text_after_an_edit_went():
    """The shift is the start of the common suffix in each text (line, column: code points)."""
    from runway_core.diagnostics import Diagnostic, Severity
    from runway_core.positions import Position, Range
    from runway_lsp.typing_pause import _shifted, line_shift

    text = "a: 1\nb: 2\nc: 3\n"
    assert line_shift(text, text.replace("b: 2", "b: 22")) is None  # within a line: nothing moves
    assert line_shift(text, text.replace("b: 2\n", "b: 2\n\n")) == (2, 0, 3, 0)  # Enter at the end of line 1
    assert line_shift(text, text.replace("a: 1\nb", "a: 1b")) == (1, 0, 0, 4)  # line 1 joined to line 0
    assert line_shift(text, text.replace("b: 2", "b:\n 2")) == (1, 2, 2, 0)  # Enter inside line 1
    lone = text.replace("\n", "\r")  # a lone CR ends a line too, as positions count them
    assert line_shift(lone, lone.replace("b: 2\r", "b: 2\r\r")) == (1, None, 2, None)  # whole lines below line 1: +1

    def at(line: int, c0: int, c1: int) -> Diagnostic:
        return Diagnostic("f", Range(Position(line, c0), Position(line, c1)), Severity.ERROR, "RW100", "m")

    moved = _shifted(at(1, 3, 4), [line_shift(text, text.replace("b: 2", "b:\n 2"))])  # `2` went to line 2, column 1
    assert (moved.range.start.line, moved.range.start.character, moved.range.end.character) == (2, 1, 2)
    assert _shifted(at(0, 0, 1), [(2, 0, 3, 0)]) == at(0, 0, 1)  # above the edit: unmoved
    assert _shifted(at(2, 0, 4), [(2, 0, 3, 0)]).range.start.line == 3
