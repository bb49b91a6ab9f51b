"""The YAML loader: positions, YAML 1.2 scalars, and every malformed input as a diagnostic."""

import pytest

from runway_core.positions import Position, Range
from runway_core.yamlsrc import ALIAS_EXPANSION_LIMIT, YMap, YScalar, YSeq, node_path_at, parse_yaml, to_python


def codes(text):
    return [(d.code, d.range.start.line, d.range.start.character) for d in parse_yaml(text).diagnostics]


def test_positions_of_keys_and_values():
    p = parse_yaml("a: 1\nb:\n  - x\n  - 'y'\nc: {d: e}\n")
    root = p.root
    assert isinstance(root, YMap)
    assert root.key_node("b").range == Range(Position(1, 0), Position(1, 1))
    seq = root.get("b")
    assert isinstance(seq, YSeq)
    assert seq.items[1].range == Range(Position(3, 4), Position(3, 7))
    c = root.get("c")
    assert c.flow and c.get("d").range == Range(Position(4, 7), Position(4, 8))


def test_yaml_12_core_schema():
    p = parse_yaml("a: on\nb: no\nc: 0755\nd: 1e3\ne: 0o17\nf: yes\ng: ~\nh: '1'\ni: .inf\nj: 0x1F\nk: True\n")
    assert to_python(p.root) == {
        "a": "on", "b": "no", "c": 755, "d": 1000.0, "e": 15, "f": "yes", "g": None, "h": "1",
        "i": float("inf"), "j": 31, "k": True,
    }


def test_duplicate_key_reported_at_second():
    p = parse_yaml("a: 1\nb: 2\na: 3\n")
    assert [(d.code, d.range) for d in p.diagnostics] == [("RW002", Range(Position(2, 0), Position(2, 1)))]
    assert to_python(p.root) == {"a": 1, "b": 2}
    assert "line 1" in p.diagnostics[0].message


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", [("RW004", 0, 0)]),
        ("# only a comment\n\n", [("RW004", 0, 0)]),
        ("a: 1\n---\nb: 2\n", [("RW003", 1, 0)]),
        ("a:\n\tb: 1\n", [("RW006", 1, 0)]),
        ("\ufeffa: 1\n", [("RW007", 0, 0)]),
        ("a: !Ref x\n", [("RW008", 0, 3)]),
        ("? [k]\n: v\n", [("RW009", 0, 2)]),
        ("a: b: c\n", [("RW001", 0, 4)]),
        ("a: [1,\n", [("RW001", 1, 0)]),
        ("a: 1\x00\n", [("RW001", 0, 4)]),
    ],
)
def test_malformed_inputs_are_positioned_diagnostics(text, expected):
    assert codes(text) == expected


def test_syntax_error_keeps_partial_tree():
    p = parse_yaml("runway: 1\nproduct: x\nresources:\n  db:\n    kind: [postgres\n")
    assert p.partial
    assert to_python(p.root)["product"] == "x"


def test_alias_bomb_is_bounded_and_positioned():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    p = parse_yaml("\n".join(lines) + "\n")
    # Bounded by construction: composing stops at the alias that crosses the limit (time is
    # measured in benchmarks/, never asserted here).
    assert p.node_count < ALIAS_EXPANSION_LIMIT
    [d] = [d for d in p.diagnostics if d.code == "RW005"]
    assert f"{ALIAS_EXPANSION_LIMIT:,}" in d.message
    assert d.range.start.line >= 4  # at the alias that crossed the limit


def test_merge_keys_and_anchors():
    p = parse_yaml("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n")
    assert to_python(p.root)["m"] == {"y": 3, "x": 1}
    assert p.diagnostics == []


def test_deep_nesting_is_bounded():
    p = parse_yaml("a: " + "[" * 10000 + "]" * 10000 + "\n")
    assert any(d.code == "RW010" for d in p.diagnostics)


def test_unicode_line_separator_does_not_shift_lines():
    # libyaml breaks lines at U+2028; LSP does not. Positions follow LSP.
    p = parse_yaml("a: 'x\u2028y'\nb: z\n")
    assert p.root.key_node("b").range.start == Position(1, 0)


def test_node_path_at():
    p = parse_yaml("resources:\n  db:\n    size: {dev: small}\n")
    chain = node_path_at(p.root, Position(2, 17))
    assert [c[0] for c in chain] == ["resources", "db", "size", "dev"]
    assert isinstance(chain[-1][1], YScalar) and chain[-1][1].value == "small"


def test_yaml11_line_breaks_are_ordinary_characters():
    # NEL / LS / PS end no line in YAML 1.2 or LSP: a comment holding one stays a comment.
    p = parse_yaml("# note\x85with NEL\u2028and LS\na: 'x\u2028y'\nb: 1\n")
    assert p.diagnostics == []
    assert to_python(p.root) == {"a": "x\u2028y", "b": 1}
    assert p.root.key_node("b").range.start == Position(2, 0)


def test_colon_in_flow_plain_scalar_suggests_quoting():
    [d] = parse_yaml("env: { U: postgres://localhost/dev }\n").diagnostics
    assert d.code == "RW001" and "quote a value" in d.message


def test_a_number_past_pythons_digit_limit_is_infinite_not_an_error(tmp_path):
    """Python refuses int() of more than 4,300 decimal digits (ValueError); the loader never
    raises: such a plain scalar is ±inf, which the model reports at its own position."""
    from runway_core.analysis import analyze
    from runway_core.catalog import load_catalog
    from runway_core.yamlsrc import resolve_plain

    big = "9" * 5000
    assert resolve_plain(big) == float("inf") and resolve_plain("-" + big) == float("-inf")
    assert resolve_plain("9" * 4000) == int("9" * 4000)  # below the limit: still an integer
    p = parse_yaml(f"a: {big}\nb: 1\n")
    assert p.diagnostics == [] and to_python(p.root) == {"a": float("inf"), "b": 1}
    assert p.root.get("a").range == Range(Position(0, 3), Position(0, 5003))
    f = tmp_path / "runway.yaml"
    f.write_text(f"runway: 1\nproduct: shop\nenvironments:\n  dev:\n    limits: {{ monthly: {big} }}\n", encoding="utf-8")
    an = analyze(str(f), load_catalog())
    [d] = [d for d in an.all_diagnostics() if d.code == "RW100"]
    assert d.range.start == Position(4, 23) and "finite" in d.message and len(d.message) < 200


def test_a_key_past_the_plain_key_limit_names_the_limit():
    ok = parse_yaml("a: 1\n" + "k" * 1024 + ": 1\n", "/r.yaml")
    assert ok.diagnostics == [] and len(ok.root.entries) == 2
    (d,) = parse_yaml("a: 1\n" + "k" * 1025 + ": 1\n", "/r.yaml").diagnostics
    assert d.code == "RW001" and d.range.start == Position(1, 1025)
    assert "a key of 1,025 characters (from column 1); YAML allows at most 1,024 characters in an implicit key" in d.message
    # A long line with no ':' at all is another error: libyaml's message, the key's line named.
    (d,) = parse_yaml("a: 1\n" + "k" * 1030 + "\n", "/r.yaml").diagnostics
    assert "could not find expected ':'" in d.message and "started on line 2" in d.message


@pytest.mark.parametrize("text", [
    "runway: 1\n\t\nproduct: shop\n",  # a blank line holding a tab
    "runway: 1\n \t \nproduct: shop\n",
    "runway: 1\n\t# a comment after a tab\nproduct: shop\n",
    "runway: 1\r\n\t\r\nproduct: shop\r\n",
    "runway: 1\nproduct: shop\n\t",  # at the end, no line break
])
def test_tabs_on_blank_and_comment_lines_are_white_space(text):
    """YAML 1.2 §6.6: only indentation must be spaces; libyaml refuses a blank line that
    starts with a tab, which stopped the whole analysis at an invisible character."""
    parsed = parse_yaml(text, "/r.yaml")
    assert parsed.diagnostics == [] and to_python(parsed.root) == {"runway": 1, "product": "shop"}


def test_a_tab_that_indents_is_still_rw006():
    assert codes("runway: 1\n\tproduct: shop\n") == [("RW006", 1, 0)]
    assert codes("runway: 1\nresources:\n\t# c\n\tdb: {}\n") == [("RW006", 3, 0)]  # the key's line, not the comment's


@pytest.mark.parametrize("text", ["---\n", "--- # nothing here\n", "---\n...\n", " \t\n", "...\n", "# c\n... # end\n"])
def test_an_empty_document_is_an_empty_runway(text):
    parsed = parse_yaml(text, "/r.yaml")
    assert parsed.root is None and [d.code for d in parsed.diagnostics] == ["RW004"]
