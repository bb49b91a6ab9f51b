"""``runway_core.yamlsrc.splice.reparse`` (issue 16 item 10): a keystroke's parse built by
parsing one entry again must be exactly ``parse_yaml`` of the new text, node by node
(ranges, values, styles, order, key index, node count, diagnostics), or None."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from runway_core.analysis import cache
from runway_core.yamlsrc import YMap, YScalar, YSeq, parse_yaml
from runway_core.yamlsrc.splice import reparse

REPO = Path(__file__).resolve().parents[2]
ORDERS = (REPO / "examples" / "orders" / "runway.yaml").read_text(encoding="utf-8")


def same_tree(a, b, where="root") -> None:
    """Assert that two trees are equal, node by node."""
    stack = [(a, b, where)]
    while stack:
        x, y, at = stack.pop()
        assert type(x) is type(y), at
        assert (x.range, x.tag, x.anchor) == (y.range, y.tag, y.anchor), at
        if isinstance(x, YScalar):
            assert (x.value, x.text, x.style) == (y.value, y.text, y.style), at
            assert type(x.value) is type(y.value), at
        elif isinstance(x, YMap):
            assert x.flow == y.flow and x.keys() == y.keys() and x._index == y._index, at
            for (k1, v1), (k2, v2) in zip(x.entries, y.entries):
                stack.append((k1, k2, f"{at}.{k1.text}(key)"))
                stack.append((v1, v2, f"{at}.{k1.text}"))
        elif isinstance(x, YSeq):
            assert x.flow == y.flow and len(x.items) == len(y.items), at
            stack.extend((i, j, f"{at}[{n}]") for n, (i, j) in enumerate(zip(x.items, y.items)))


def check(before: str, after: str) -> bool:
    """True when reparse answered (and matched the full parse)."""
    old = parse_yaml(before, "/w/runway.yaml")
    got = reparse(old, after)
    if got is None:
        return False
    full = parse_yaml(after, "/w/runway.yaml")
    assert got.text == after and got.partial == full.partial and got.diagnostics == full.diagnostics
    assert got.node_count == full.node_count
    assert got.lines.all_lines() == full.lines.all_lines()
    same_tree(got.root, full.root)
    return True


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> str:
    return generate(tmp_path_factory.mktemp("ws"), 1).read_text(encoding="utf-8")


ALPHABET = "ab-_:, {}[]#\"'0.9\n"


def _edit(text: str, rnd: random.Random) -> str:
    at = rnd.randrange(len(text))
    if rnd.random() < 0.5 and text[at] != "\n":
        return text[:at] + text[at + 1 :]  # a deletion
    return text[:at] + rnd.choice(ALPHABET) + text[at:]


def test_typing_in_the_generated_workspace_matches_the_full_parse(big: str):
    rnd = random.Random(16)
    answered = 0
    for _ in range(40):
        answered += check(big, _edit(big, rnd))
    assert answered > 12  # most keystrokes are spliced, not parsed in full


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0), st.sampled_from(list(ALPHABET) + ["", "x: ", "- a", "  "]), st.booleans())
def test_any_one_line_edit_of_the_example_matches_the_full_parse(at: int, typed: str, delete: bool):
    text = ORDERS
    at %= len(text)
    after = text[:at] + ("" if not delete or text[at] == "\n" else "") + typed + text[at + (1 if delete and text[at] != "\n" else 0):]
    check(text, after)


@pytest.mark.parametrize("before, after", [
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\n    kind: postgre\n"),  # the last entry: ranges move
    ("resources:\n  db:\n    kind: postgres\n  q:\n    kind: queue\n", "resources:\n  dx:\n    kind: postgres\n  q:\n    kind: queue\n"),  # a rename
    ("resources:\n  db: {kind: postgres}\n  q: {kind: queue}\n", "resources:\n  db: {kind: postgres,}\n  q: {kind: queue}\n"),
])
def test_spliced_edits(before: str, after: str):
    assert check(before, after)


@pytest.mark.parametrize("before, after", [
    ("resources:\n  db:\n    kind: postgres\n  q:\n    kind: queue\n", "resources:\n  q:\n    kind: postgres\n  q:\n    kind: queue\n"),  # now a duplicate key
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\n    kind:\n"),  # an empty value
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\n    kind: &a postgres\n"),  # an anchor
    ("resources:\n  db:\n    note: |\n      x\n", "resources:\n  db:\n    note: |\n      xy\n"),  # a block scalar
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\n    kind: postgres\n\n"),  # a line added
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\n kind: postgres\n"),  # broken indentation
    ("resources:\n  db:\n    kind: postgres\n", "resourcesx:\n  db:\n    kind: postgres\n"),  # a section key
    ("a: 1\nb:\n  c: 1\n  # x\nd: 2\n", "a: 1\nb:\n  c: 1\nx: 2\nd: 2\n"),  # a top-level key typed in
])
def test_edits_parsed_in_full(before: str, after: str):
    assert not check(before, after)
    assert reparse(parse_yaml(before), after) is None


def test_parse_file_reuses_the_last_parse_of_the_path(big: str, tmp_path: Path):
    path = str(tmp_path / "runway.yaml")
    cache.clear_file_cache()
    first = cache.parse_file(big, path)
    at = big.index("kind: postgres", 2000) + len("kind: ")
    after = big[:at] + "x" + big[at:]
    again = cache.parse_file(after, path)
    assert again.root is not first.root and again.text == after
    assert again.root.get("environments") is first.root.get("environments")  # shared: not parsed again
    same_tree(again.root, parse_yaml(after, path).root)


def test_edits_in_several_entries_since_the_last_parse(big: str):
    """A client's edits in two entries between two parses: both entries parsed again."""
    a = big.index("kind: postgres", 2000) + len("kind: ")
    b = big.index("kind: queue", 20000) + len("kind: ")
    after = big[:a] + "x" + big[a:b] + "y" + big[b:]
    assert check(big, after)


_CR_LINES = "a: 1\r\r\nb: 2\r\r\nc: 3\r\r\nd: 4\r\r\ne: 5\r\r\nf: 6\r\r\n"


@pytest.mark.parametrize("before, after", [
    # Two lines edited in a `\r\r\n` file: counted at "\n" the change is on lines 4-5, which
    # are lines 2-3 (unchanged) of the trees' line model; the earlier tree came back as is.
    (_CR_LINES, _CR_LINES.replace("e: 5", "e: 7").replace("f: 6", "f: 8")),
    ("resources:\r\n  db:\r\n    kind: postgres\r\n", "resources:\r\n  db:\r\n    kind: postgre\r\n"),  # CRLF
    ("resources:\n  db:\n    kind: postgres\n  q:\r    kind: queue\n", "resources:\n  db:\n    kind: postgrex\n  q:\r    kind: queue\n"),  # a lone CR elsewhere
    ("resources:\n  db:\n    kind: postgres\n", "resources:\n  db:\r    kind: postgres\n"),  # a CR typed in
])
def test_edits_in_a_text_with_a_cr_are_parsed_in_full(before: str, after: str):
    """Lines break at a lone CR too (docs/format.md "Reading the files"): never spliced."""
    assert reparse(parse_yaml(before), after) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["\n", "\r\n", "\r\r\n"]), st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(list(ALPHABET) + ["\r", ""])), min_size=1, max_size=3))
def test_edits_of_the_example_with_any_line_ends_match_the_full_parse(eol: str, edits):
    """Edits on up to three lines of the example, whatever its line ends: reparse answers the
    full parse's tree or None."""
    before = ORDERS.replace("\n", eol)
    after = before
    for at, typed in edits:
        at %= len(after)
        after = after[:at] + typed + after[at + (after[at] not in "\r\n"):]
    check(before, after)
