"""Issue 23: a diagnostic's range is its offending token, exactly. The text sliced at the
reported range (code points here; UTF-16 through the real server in
tests/lsp/test_diagnostic_ranges_utf16.py) is the token: RW141's `reason` key (or the
workload's key when there is none), RW142's reason value, whatever properties (`&anchor`,
`!tag`) stand before it. Then the same check, by shape, over every rule's diagnostics on
every runway in examples/ and tests/golden/.

Before the fix a tagged or anchored quoted scalar (`&k "reason": ~`, `reason: &r "x"`) or
collection (`reason: &r [a]`) pointed at its properties, not at its token."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runway_core.analysis import analyze

ROOT = Path(__file__).resolve().parent.parent.parent
HEAD = ("runway: 1\nproduct: reasons\nenvironments:\n  dev: {}\nworkloads:\n  cron:\n"
        "    image: registry.example.com/a@sha256:" + "0" * 64 + "\n    port: 8080\n    health: { path: /h }\n")
FLOW = ("runway: 1\nproduct: reasons\nenvironments:\n  dev: {}\nworkloads:\n"
        "  cron: { note: \"😀\", image: 'registry.example.com/a@sha256:" + "0" * 64 + "', port: 8080, health: { path: /h }, %s }\n")

#: (id, text, code, the token its range must be)
CASES = [
    ("no reason", HEAD, "RW141", "cron"),
    ("null", HEAD + "    reason: ~\n", "RW141", "reason"),
    ("empty", HEAD + "    reason:\n", "RW141", "reason"),
    ("blank quoted", HEAD + '    reason: "   "\n', "RW141", "reason"),
    ("comment", HEAD + "    reason: # later\n", "RW141", "reason"),
    ("end of file", HEAD + "    reason:", "RW141", "reason"),
    ("quoted key", HEAD + '    "reason": ~\n', "RW141", '"reason"'),
    ("anchored key", HEAD + "    &k reason: ~\n", "RW141", "reason"),
    ("anchored quoted key", HEAD + '    &k "reason": ~\n', "RW141", '"reason"'),
    ("tagged quoted key", HEAD + '    !!str "reason": ~\n', "RW141", '"reason"'),
    ("explicit key", HEAD + "    ? reason\n    : ~\n", "RW141", "reason"),
    ("crlf", (HEAD + "    reason: ~\n").replace("\n", "\r\n"), "RW141", "reason"),
    ("flow", FLOW % "reason: ~", "RW141", "reason"),
    ("no ground", HEAD + "    reason: because\n", "RW142", "because"),
    ("no ground, quoted", HEAD + '    reason: "because"\n', "RW142", '"because"'),
    ("no ground, anchored quoted", HEAD + '    reason: &r "because"\n', "RW142", '"because"'),
    ("no ground, tagged quoted", HEAD + "    reason: !!str 'because'\n", "RW142", "'because'"),
    ("no ground, tagged", HEAD + "    reason: !!str because\n", "RW142", "because"),
    ("no ground, after a comment", HEAD + "    reason: &r # why\n      \"because\"\n", "RW142", '"because"'),
    ("no ground, flow", FLOW % "reason: because", "RW142", "because"),
    ("a list, anchored", HEAD + "    reason: &r [a]\n", "RW100", "[a]"),
    ("a map, tagged", HEAD + "    reason: !!map { a: b }\n", "RW100", "{ a: b }"),
]


def _lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def sliced(text: str, d) -> str:
    lines = _lines(text)
    s, e = d.range.start, d.range.end
    if s.line == e.line:
        return lines[s.line][s.character : e.character]
    return "\n".join([lines[s.line][s.character :], *lines[s.line + 1 : e.line], lines[e.line][: e.character]])


@pytest.mark.parametrize("text, code, token", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_reason_diagnostic_is_its_token(tmp_path: Path, catalog, text: str, code: str, token: str) -> None:
    f = tmp_path / "runway.yaml"
    f.write_bytes(text.encode("utf-8"))
    got = [d for d in analyze(str(f), catalog).diagnostics.get(str(f), []) if d.code == code]
    assert got, f"no {code}"
    assert [sliced(text, d) for d in got][-1] == token


#: Diagnostics whose range is by rule not one token: a syntax error at the end of the text
#: (RW001: the place the parser stopped), an empty runway (RW004: at 1:1, there is no token),
#: a tab (RW006: the tab itself), a tag (RW008: the tag and its value).
_NOT_A_TOKEN = {"RW001", "RW004", "RW006", "RW008"}
_WORD = re.compile(r"[\w.@/-]")
RUNWAYS = sorted({*ROOT.glob("examples/**/runway.y*ml"), *ROOT.glob("tests/golden/**/runway.y*ml")})


def token_problems(line: str, start: int, end: int, code: str) -> list[str]:
    """What is wrong with ``line[start:end]`` as a diagnostic's token (one line): empty, white
    space at an edge, a word cut at either end, or properties (`&a`, `!t`) included."""
    if code in _NOT_A_TOKEN:
        return []
    text = line[start:end]
    problems = []
    if not text:
        problems.append("empty")
        return problems
    if text[0].isspace() or text[-1].isspace():
        problems.append("white space at an edge")
    if start > 0 and _WORD.match(line[start - 1]) and _WORD.match(text[0]):
        problems.append("a word cut at its start")
    if end < len(line) and _WORD.match(line[end]) and _WORD.match(text[-1]):
        problems.append("a word cut at its end")
    if text[0] in "&!":
        problems.append("properties included")
    return problems


def test_every_rule_s_ranges_on_the_examples_and_golden_runways_are_tokens(catalog) -> None:
    assert len(RUNWAYS) > 50
    bad = []
    for root in RUNWAYS:
        an = analyze(str(root), catalog)
        for file, diags in an.diagnostics.items():
            try:
                lines = _lines(Path(file).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # RW001 of an unreadable file: at 1:1
            for d in diags:
                s, e = d.range.start, d.range.end
                if s.line != e.line or s.line >= len(lines):
                    continue  # a block (a collection, a block scalar): its own start is checked above
                for problem in token_problems(lines[s.line], s.character, e.character, d.code):
                    bad.append(f"{Path(file).relative_to(ROOT)}:{s.line}:{s.character}-{e.character} {d.code} {lines[s.line][s.character:e.character]!r}: {problem}")
    assert not bad, "\n".join(sorted(set(bad)))
