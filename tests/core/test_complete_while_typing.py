"""Completion from the last analysis and a parse of the newer text (what the language server
answers right after a keystroke, issue 16 item 10) offers what the analysis of the newer text
offers: same labels, edits and order, at sizes, ``uses`` items and kinds, and with a name the
keystroke declared, renamed or removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runway_core.analysis import analyze, cache
from runway_core.catalog import load_catalog
from runway_core.ide.completion import completions_at
from runway_core.positions import Position

ROOT = os.path.abspath(Path(__file__).resolve().parents[2] / "examples" / "orders" / "runway.yaml")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _offered(cands) -> list[tuple]:
    return [(c.label, c.kind, c.range, c.new_text, c.snippet, c.sort_text, c.filter_text) for c in cands]


# (the text replaced, by what, where the cursor goes in the new text: after this needle)
EDITS = [
    pytest.param(("production: large", "production: l"), "production: l", id="size"),
    pytest.param(("uses: [main-db]", "uses: [main-db, o]"), "uses: [main-db, o", id="uses"),
    pytest.param(("kind: topic", "kind: q"), "kind: q", id="kind"),
    pytest.param(("  order-events:", "  order-eventsx:"), "uses: [main-db", id="renamed"),
    pytest.param(("  invoices:", "  fresh-db: {kind: postgres}\n  invoices:"), "uses: [main-db", id="declared"),
    pytest.param(("  order-events:\n    kind: topic\n", ""), "uses: [main-db", id="removed"),
]


@pytest.mark.parametrize("edit, cursor_after", EDITS)
def test_the_last_analysis_and_a_fresh_parse_offer_what_the_next_analysis_offers(catalog, edit, cursor_after):
    text = Path(ROOT).read_text(encoding="utf-8")
    last = analyze(ROOT, catalog, lambda p: text if p == ROOT else Path(p).read_text(encoding="utf-8"))
    old, new = edit
    assert old in text
    after = text.replace(old, new, 1)
    at = after.index(cursor_after) + len(cursor_after)
    pos = Position(after.count("\n", 0, at), at - (after.rfind("\n", 0, at) + 1))
    parsed = cache.parse_file(after, ROOT)  # spliced from the last parse where it can be
    right_after = completions_at(last, ROOT, pos, parsed=parsed)
    analysed = completions_at(analyze(ROOT, catalog, lambda p: after if p == ROOT else Path(p).read_text(encoding="utf-8")), ROOT, pos)
    assert right_after and _offered(right_after) == _offered(analysed)
