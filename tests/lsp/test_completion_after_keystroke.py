"""Completion right after a keystroke (issue 16 item 10), through the real runway-lsp over
stdio (pytest-lsp): the server answers a completion sent right after a ``didChange`` from the
last analysis and a parse of the new buffer (runway_lsp/session.py ``analysis_while_typing``;
the parse splices the one entry the keystroke changed, runway_core/yamlsrc/splice.py). Its
items must be those the same request gets once the keystroke's analysis is published: at a
size, a ``uses`` item and a kind, and with a name the keystroke declared or renamed.
Nothing is timed; the tests await responses and publications."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import did_change, files, last_version, neovim_caps, until
from test_lsp_completion import complete, opened

MARK = "‸"


def _items(result: types.CompletionList) -> list[tuple]:
    """What the editor shows and applies: label, kind, sort, filter, edit."""
    return sorted((i.label, i.kind, i.sort_text, i.filter_text, i.text_edit.range.start.character, i.text_edit.range.end.character,
                   i.text_edit.new_text, i.insert_text_format) for i in result.items)


def _line_col(text: str, needle: str, offset: int) -> tuple[int, int]:
    at = text.index(needle) + offset
    return text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)


# (what is typed, where: the needle and the offset in it, the label that must be offered)
KEYSTROKES = [
    pytest.param("l", "production: large", len("production: "), "large", id="size"),
    pytest.param(", o", "uses: [main-db]", len("uses: [main-db"), "order-events", id="uses"),
    pytest.param("q", "kind: topic", len("kind: "), "queue", id="kind"),
]


@pytest.mark.parametrize("typed, needle, offset, label", KEYSTROKES)
async def test_right_after_a_keystroke_the_items_are_those_after_its_analysis(client: LanguageClient, orders: Path, typed, needle, offset, label):
    root = files(orders)[0]
    text = root.read_text(encoding="utf-8")
    text, _l, _c = await opened(client, neovim_caps, "utf-16", orders, root, text + MARK)
    await until(client, lambda: last_version(client, root) == 1)
    line, col = _line_col(text, needle, offset)
    did_change(client, root, 2, (line, col), (line, col), typed)  # ASCII: utf-16 columns are code points
    lines = text.split("\n")
    lines[line] = lines[line][:col] + typed + lines[line][col:]
    text = "\n".join(lines)
    right_after = await complete(client, root, text, line, col + len(typed), "utf-16")
    await until(client, lambda: last_version(client, root) == 2)
    analysed = await complete(client, root, text, line, col + len(typed), "utf-16")
    assert label in [i.label for i in right_after.items]
    assert _items(right_after) == _items(analysed)


async def test_a_name_renamed_by_the_keystroke_replaces_the_old_one(client: LanguageClient, orders: Path):
    """Typing into a resource's key renames it: right after the keystroke, as after its
    analysis, `uses` offers the new name and not the old one."""
    root = files(orders)[0]
    text = root.read_text(encoding="utf-8")
    text, _l, _c = await opened(client, neovim_caps, "utf-16", orders, root, text + MARK)
    await until(client, lambda: last_version(client, root) == 1)
    kline, kcol = _line_col(text, "  order-events:", len("  order-events"))
    did_change(client, root, 2, (kline, kcol), (kline, kcol), "x")
    lines = text.split("\n")
    lines[kline] = lines[kline][:kcol] + "x" + lines[kline][kcol:]
    text = "\n".join(lines)
    line, col = _line_col(text, "uses: [main-db]", len("uses: [main-db"))
    did_change(client, root, 3, (line, col), (line, col), ", ")
    lines = text.split("\n")
    lines[line] = lines[line][:col] + ", " + lines[line][col:]
    text = "\n".join(lines)
    right_after = await complete(client, root, text, line, col + 2, "utf-16")
    labels = [i.label for i in right_after.items]
    assert "order-eventsx" in labels and "order-events" not in labels
    await until(client, lambda: last_version(client, root) == 3)
    analysed = await complete(client, root, text, line, col + 2, "utf-16")
    assert _items(right_after) == _items(analysed)
