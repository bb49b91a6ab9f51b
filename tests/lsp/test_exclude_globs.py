"""``runway.exclude`` globs (runway_lsp/exclude.py): VS Code's glob syntax, matched against the
path relative to the workspace folder and every folder above the file."""

from __future__ import annotations

import pytest

from runway_lsp.exclude import exclusions, glob_regex

WS = ["/ws"]


@pytest.mark.parametrize(
    ("globs", "path", "excluded"),
    [
        (["tests/**"], "/ws/tests/golden/x/runway.yaml", True),
        (["tests"], "/ws/tests/golden/x/runway.yaml", True),  # a folder excludes what it holds
        (["tests/**"], "/ws/testsuite/runway.yaml", False),
        (["examples/broken/**"], "/ws/examples/orders/runway.yaml", False),
        (["**/.git"], "/ws/a/.git/runway.yaml", True),
        (["{a,b}/x"], "/ws/b/x/runway.yaml", True),
        (["{a,b}/x"], "/ws/c/x/runway.yaml", False),
        (["services/*/runway.yaml"], "/ws/services/api/runway.yaml", True),
        (["services/*/runway.yaml"], "/ws/services/api/v2/runway.yaml", False),
        (["svc-?"], "/ws/svc-1/runway.yaml", True),
        (["[ab]"], "/ws/b/runway.yaml", True),
        (["/ws/examples/**"], "/ws/examples/orders/runway.yaml", True),  # absolute
        (["tests/**"], "/elsewhere/tests/runway.yaml", False),  # outside the workspace folders
        ([], "/ws/tests/runway.yaml", False),
    ],
)
def test_globs(globs, path, excluded):
    assert exclusions(globs).excluded(path, WS) is excluded


def test_glob_regex_escapes_the_rest():
    assert glob_regex("a.b+c") == r"^a\.b\+c$"
    assert not exclusions(["a.b"]).excluded("/ws/axb/runway.yaml", WS)


# --- issue 23: globs that made the backtracking matcher hang; bounds
_PATHOLOGICAL = r'''
import sys
from runway_lsp.exclude import exclusions
ws = ["/ws"]
stars = exclusions(["**/" * 30 + "x"])
assert stars.excluded("/ws/a/b/x/runway.yaml", ws)
assert not stars.excluded("/ws/" + "a/" * 40 + "y/runway.yaml", ws)
assert not stars.excluded("/ws/" + "a/" * 40 + "runway.yaml", ws)
many = exclusions(["*a" * 30 + "b"])
assert not many.excluded("/ws/" + "a" * 200 + "/runway.yaml", ws)
assert many.excluded("/ws/" + "a" * 60 + "b/runway.yaml", ws)
braces = exclusions(["{" * 20 + "**/" * 20 + "x" + "}" * 20])
assert not braces.excluded("/ws/" + "a/" * 40 + "runway.yaml", ws)
mixed = exclusions(["**" * 40 + "/x/" + "**/" * 40 + "z"])
assert not mixed.excluded("/ws/" + "x/" * 60 + "runway.yaml", ws)
print("ok")
'''


def test_pathological_exclude_globs_match_without_backtracking(python_exe) -> None:
    # `(?:.*/)?` thirty times, `[^/]*a` thirty times: Python's backtracking re took
    # exponential / O(n^30) time on a path the glob does not match (the scan hung).
    import subprocess

    done = subprocess.run([python_exe, "-c", _PATHOLOGICAL], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_bad_character_class_or_unbalanced_brace_never_raises() -> None:
    from runway_lsp.exclude import exclusions

    for glob in ["[z-a]", "[", "[]", "{a,b", "a}", "[!/]", "\\", "[a-]x"]:
        exclusions([glob]).excluded("/ws/a/runway.yaml", ["/ws"])
    assert exclusions(["[a-c]x"]).excluded("/ws/bx/runway.yaml", ["/ws"])
    assert not exclusions(["[!a-c]x"]).excluded("/ws/bx/runway.yaml", ["/ws"])
    assert exclusions(["{a,}b"]).excluded("/ws/b/runway.yaml", ["/ws"])


def test_exclude_globs_are_bounded_in_length_and_number() -> None:
    from runway_lsp.exclude import MAX_EXCLUDE_GLOBS, MAX_GLOB_CHARS
    from runway_lsp.settings import parse_settings

    settings, problems = parse_settings({"exclude": ["a" * (MAX_GLOB_CHARS + 1)]})
    assert settings.exclude == () and len(problems) == 1
    assert f"at most {MAX_GLOB_CHARS:,} characters" in problems[0] and "a" * 100 not in problems[0]
    settings, problems = parse_settings({"exclude": [f"g{i}" for i in range(MAX_EXCLUDE_GLOBS + 1)]})
    assert settings.exclude == () and f"at most {MAX_EXCLUDE_GLOBS:,}" in problems[0]
    settings, problems = parse_settings({"exclude": [f"g{i}" for i in range(MAX_EXCLUDE_GLOBS)]})
    assert len(settings.exclude) == MAX_EXCLUDE_GLOBS and problems == []
