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
