"""Bad input is normal input: any text, any mutation of the example -> diagnostics, never an
exception, every range inside its document (property-based, hypothesis)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runway_core.analysis import analyze, clear_file_cache
from runway_core.positions import LineIndex
from runway_core.yamlsrc import parse_yaml

ORDERS = (Path(__file__).resolve().parents[2] / "examples" / "orders" / "runway.yaml").read_text()


def _in_bounds(text: str, diags) -> None:
    li = LineIndex(text)
    for d in diags:
        for p in (d.range.start, d.range.end):
            assert 0 <= p.line < li.line_count, d
            assert 0 <= p.character <= len(li.line_text(p.line)), d
        assert d.range.start <= d.range.end, d


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_text_parses_without_exception(text):
    p = parse_yaml(text)
    _in_bounds(text, p.diagnostics)


_mutation = st.tuples(
    st.sampled_from(["delete", "insert", "dup_line", "del_line", "indent", "dedent", "crlf", "tab"]),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["😀", "\t", ":", "- ", "[", "]", "{", "}", "'", '"', "&a ", "*a", "\n", "\r", "\u2028", "#", "~", "é", "\x00", "!Ref ", "<<: "]),
)


def _mutate(text: str, muts) -> str:
    for op, at, frag in muts:
        lines = text.split("\n")
        i = at % (len(text) + 1)
        li = at % max(1, len(lines))
        if op == "delete":
            text = text[:i] + text[i + 1 + at % 5 :]
        elif op == "insert":
            text = text[:i] + frag + text[i:]
        elif op == "dup_line":
            lines.insert(li, lines[li])
            text = "\n".join(lines)
        elif op == "del_line":
            del lines[li]
            text = "\n".join(lines)
        elif op == "indent":
            lines[li] = "  " + lines[li]
            text = "\n".join(lines)
        elif op == "dedent":
            lines[li] = lines[li][2:]
            text = "\n".join(lines)
        elif op == "crlf":
            text = text.replace("\n", "\r\n")
        elif op == "tab":
            lines[li] = "\t" + lines[li].lstrip()
            text = "\n".join(lines)
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(muts=st.lists(_mutation, min_size=1, max_size=6))
def test_mutated_example_analyses_without_exception(catalog, muts):
    text = _mutate(ORDERS, muts)
    root = str(Path("/nonexistent-runway-root") / "runway.yaml")
    an = analyze(root, catalog, read=lambda p: text if p == root else (_ for _ in ()).throw(FileNotFoundError(2, "No such file")))
    _in_bounds(text, an.diagnostics.get(root, []))


def _analysis(catalog, text: str):
    root = str(Path("/nonexistent-runway-root") / "runway.yaml")
    an = analyze(root, catalog, read=lambda p: text if p == root else (_ for _ in ()).throw(FileNotFoundError(2, "No such file")))
    return an.diagnostics.get(root, [])


# Each pair: an earlier text of the file, then the text analysed. Lines end in `\r\r\n` (the
# `crlf` mutation twice): two line breaks each (docs/format.md "Reading the files"). The
# incremental parse counted lines at "\n" only, took the edit for no change and returned the
# earlier tree for the new text (yamlsrc/splice.py): ranges past their lines' ends, old values.
_CR2 = ORDERS.replace("\n", "\r\r\n")
_EARLIER_THEN_NOW = [
    pytest.param(
        _CR2,
        _CR2.replace("      production: 2\r\r\n    uses: [main-db]\r\r\n", "      production: 2000\r\r\n    uses: [main-dbx]\r\r\n"),
        id="two-lines-typed-in-a-cr-cr-lf-file",
    ),
    pytest.param(  # found by test_mutated_example_analyses_without_exception (the one before it)
        _mutate(ORDERS, [("crlf", 520, "!Ref "), ("insert", 1795, '"'), ("del_line", 8850, "*a"), ("crlf", 520, "!Ref "), ("indent", 274, "'"), ("del_line", 8850, "*a")]),
        _mutate(ORDERS, [("crlf", 520, "!Ref "), ("insert", 1795, '"'), ("del_line", 8850, "*a"), ("crlf", 520, "!Ref "), ("indent", 275, "}"), ("del_line", 8850, "*a")]),
        id="hypothesis-members-indent",
    ),
]


@pytest.mark.parametrize("earlier, text", _EARLIER_THEN_NOW)
def test_an_analysis_does_not_depend_on_the_text_analysed_before(catalog, earlier, text):
    clear_file_cache()
    alone = _analysis(catalog, text)
    clear_file_cache()
    _analysis(catalog, earlier)
    after = _analysis(catalog, text)
    _in_bounds(text, after)
    assert after == alone


def test_a_value_typed_in_a_cr_cr_lf_file_is_read(catalog):
    earlier, text = _EARLIER_THEN_NOW[0].values
    clear_file_cache()
    _analysis(catalog, earlier)
    diags = _analysis(catalog, text)
    scale = [d for d in diags if d.code == "RW100" and "scale" in d.message]
    # `production: 2000`: its line in ORDERS, twice (each `\r\r\n` ends two lines)
    assert [d.range.start.line for d in scale] == [2 * ORDERS.split("\n").index("      production: 2")]
    assert any("main-dbx" in d.message for d in diags)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    eol=st.sampled_from(["\n", "\r\n", "\r\r\n", "\r"]),
    at=st.integers(min_value=0),
    edits=st.lists(st.tuples(st.integers(min_value=0, max_value=120), st.sampled_from(["x", "1", ":", " ", "-", "#", '"', "\r", ""])), min_size=1, max_size=3),
)
def test_an_edit_analyses_as_the_edited_text_alone(catalog, eol, at, edits):
    """An editor's case: the example (any line ends) analysed, then a few characters typed or
    deleted on nearby lines (each edit up to 120 characters after the one before); the second
    analysis is the analysis of its text alone (the memos of runway_core.analysis.cache never
    change a result)."""
    earlier = ORDERS.replace("\n", eol)
    text = earlier
    for step, typed in edits:
        at = (at + step) % len(text)
        text = text[:at] + typed + text[at + (text[at] not in "\r\n"):]
    clear_file_cache()
    alone = _analysis(catalog, text)
    clear_file_cache()
    _analysis(catalog, earlier)
    assert _analysis(catalog, text) == alone
