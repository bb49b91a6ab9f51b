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


def _documented(cands) -> list[tuple]:
    return [(c.label, c.detail, c.documentation) for c in cands]


def test_the_texts_of_uses_candidates_follow_the_cost_of_the_keystroke_and_match_a_cold_build(catalog):
    """The detail and documentation of `uses` candidates are remembered per plan item (the
    planner reuses the items of entries that did not change): after a resize, the resized
    entry's texts carry its new cost, and every text is what a build with nothing remembered
    writes."""
    from runway_core.ide.completion import candidates

    text = Path(ROOT).read_text(encoding="utf-8")
    read = lambda t: (lambda p: t if p == ROOT else Path(p).read_text(encoding="utf-8"))  # noqa: E731
    first = analyze(ROOT, catalog, read(text))
    needle = "uses: [main-db"
    at = text.index(needle) + len(needle)
    pos = Position(text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1))
    before = {c.label: c for c in completions_at(first, ROOT, pos)}
    assert "order-events" in before and "$" in (before["order-events"].documentation or "")
    resized = text.replace("production: large", "production: small", 1)
    assert resized != text
    second = analyze(ROOT, catalog, read(resized), previous=first)
    remembered = completions_at(second, ROOT, pos)
    candidates._REFERENCE_TEXTS.clear()
    cold = completions_at(second, ROOT, pos)
    assert _documented(remembered) == _documented(cold)
    changed = [c.label for c in remembered if c.documentation != before[c.label].documentation]
    assert changed and all(before[c].documentation != next(x for x in cold if x.label == c).documentation for c in changed)
