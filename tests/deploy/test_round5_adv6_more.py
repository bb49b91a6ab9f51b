"""The sixth fresh adversary's remaining findings (issue 23, round 5).

- F11: a monorepo product moved into a hidden folder with a symlink at its old path
  (``products/orders -> ../.hidden/orders``): ``diff products --base main`` called it removed
  and passed ``--max-increase 0`` while ``plan products/orders`` followed the link and planned
  it. git stores the link as a link (mode 120000), not a folder; ``diff --base`` writes it as a
  link and the discovery never follows one, so every command refuses it alike (exit 3).
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
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"


def run(*argv: str, environ: dict | None = None, stdin=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {}, **({"stdin": stdin} if stdin is not None else {}))
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def moved_behind_a_link(tmp_path, monkeypatch) -> Path:
    """main: products/orders, a folder; the working tree: the product moved to .hidden/orders
    (production's zitadel 3 -> 9 tasks: dearer) and products/orders a symlink to it, committed."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    shutil.copytree(ORDERS, ws / "products" / "orders")
    root = ws / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "main")
    git(ws, "checkout", "-qb", "pr")
    (ws / ".hidden").mkdir()
    git(ws, "mv", "products/orders", ".hidden/orders")
    moved = ws / ".hidden" / "orders" / "runway.yaml"
    text = moved.read_text(encoding="utf-8")
    assert "      production: 3\n" in text
    moved.write_text(text.replace("      production: 3\n", "      production: 9\n"), encoding="utf-8")
    (ws / "products" / "orders").symlink_to("../.hidden/orders", target_is_directory=True)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "orders behind a link")
    monkeypatch.chdir(ws)
    return ws


def test_a_product_replaced_by_a_folder_symlink_is_refused_by_diff_and_plan_alike(moved_behind_a_link):
    # Before: `diff products --base main --max-increase 0` exit 0, "product removed: every item
    # is removed", while `plan products/orders` exit 0 followed the link and planned it.
    for fmt in ("text", "json", "markdown"):
        rc, out, err = run("diff", "products", "--base", "main", "--max-increase", "0", "--format", fmt)
        assert rc == 3, (fmt, rc, out[:300], err)
        assert "products/orders" in err and "symlink" in err and "never follows" in err, err
        assert "removed" not in out
    # Every other form reads the same PATH the same way: refused, never followed.
    for argv in (("plan", "products/orders"), ("check", "products/orders"), ("check", "products/orders/"),
                 ("diff", "products/orders", "--base", "main", "--max-increase", "0"),
                 ("diff", "main:products/orders", "products/orders")):
        rc, out, err = run(*argv)
        assert rc == 3, (argv, rc, err)
        assert "is a symlink to a folder" in err and "(.hidden/orders)" in err, (argv, err)
    # The folder it leads to is still read when named.
    rc, out, err = run("plan", ".hidden/orders", "--env", "production")
    assert rc == 0 and "production —" in out, err

