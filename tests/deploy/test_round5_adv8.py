"""The eighth fresh adversary's CLI findings (issue 23, round 5).

- F3: a product folder's name is input (a pull request adds it). Its newline and escape
  characters reached standard error raw in three warnings (two runways declaring one product;
  a folder holding both ``runway.yaml`` and ``runway.yml``; a path skipped past PATH_MAX), so a
  folder named ``a<LF>::error title=forged::...`` put a line of its own on stderr, which GitHub's
  runner reads for workflow commands as it reads stdout (docs.github.com, "Workflow commands
  for GitHub Actions": commands are lines of the step's output, ``::name params::message``),
  and ESC/BEL sequences drove the terminal. Every warning line is now escaped
  (:func:`deploy_engine.cli.inputs.stderr_warn`).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"

FORGED = "products/a\n::error title=forged::injected by a folder name\x1b]0;pwned\x07"
SHADOWED = "products/c\n::warning::yml-injected\x1b[2J"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ={})
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def hostile_monorepo(tmp_path, monkeypatch) -> Path:
    """A git work tree: ``products/b`` and a folder named FORGED declare product ``orders``;
    a folder named SHADOWED holds both runway.yaml and runway.yml (product ``other``)."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    for name in (FORGED, "products/b", SHADOWED):
        shutil.copytree(ORDERS, ws / name)
    root = ws / SHADOWED / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace("product: orders", "product: other", 1), encoding="utf-8")
    shutil.copy(root, ws / SHADOWED / "runway.yml")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    monkeypatch.chdir(ws)
    return ws


def _forged_lines(err: str) -> list[str]:
    return [line for line in err.split("\n") if line.startswith("::")]


@pytest.mark.parametrize("argv", [
    ["check", "products", "--format", "github"],
    ["plan", "products", "--format", "json"],
    ["diff", "products", "--base", "main"],
], ids=["check", "plan", "diff"])
def test_a_folder_name_never_starts_a_line_of_its_own_in_a_warning(hostile_monorepo, argv):
    rc, _out, err = run(*argv)
    assert rc < 3, err
    # Both warnings were given (so the assertions below are about them) ...
    assert "runways declare product 'orders'" in err
    if argv[0] != "diff":  # diff names the products it compares, not their shadowed files
        assert "runway.yml is ignored" in err
    # ... with the folder names escaped: no forged workflow command, no terminal escape.
    assert _forged_lines(err) == []
    assert "\x1b" not in err and "\x07" not in err
    assert "products/a\\n::error title=forged" in err
