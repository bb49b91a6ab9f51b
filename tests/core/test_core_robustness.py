"""Bad input is normal input: any text, any mutation of the example -> diagnostics, never an
exception, every range inside its document (property-based, hypothesis)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runway_core.analysis import analyze
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
