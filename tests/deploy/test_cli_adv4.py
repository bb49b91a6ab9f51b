"""Round 5 (issue 23): the fourth fresh adversary's findings F03, F05, F07, F13 and F14
(docs/reliability.md, "Round 5 (issue 23): the fourth fresh adversary").

- F03: monorepo discovery outside git recursed once per folder level (``os.walk``): 1,000
  nested folders were exit 70 (RecursionError). A folder the user cannot read was warned
  with "(18 characters)", text that belongs to the PATH_MAX skip only.
- F05: a product in a git submodule was silently not planned (``plan products`` exit 0 while
  ``plan products/sub`` is REFUSED); ``diff products/sub --base HEAD`` called it absent.
- F07: the CLI's git calls ran the program a repository's ``core.fsmonitor`` names.
- F13: ``HEAD:products/orders/../orders`` (a ``..`` that stays inside) read as absent.
- F14: ``receipts export --to .runway/receipts/dev`` wrote the audit copy into the live store.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deploy_engine.cli import main
from unprivileged import run_as_nobody, unprivileged  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHOP = "runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  dev:\n    limits: {monthly: 10}\n"
GIT = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"]


def run(*argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {})
    return rc, out.getvalue(), err.getvalue()


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(cwd), *args], check=True, capture_output=True)


def orders_copy(dest: Path, cap: str | None = None) -> Path:
    """A copy of examples/orders at ``dest`` (its image digest fixed); ``cap`` the production cap."""
    dest.mkdir(parents=True, exist_ok=True)
    for src in ORDERS.rglob("*"):
        if src.is_file():
            target = dest / src.relative_to(ORDERS)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = src.read_text(encoding="utf-8")
            if src.name == "runway.yaml" and src.parent == ORDERS:
                text = re.sub(r"aabbccdd$", "aabbccdd0", text, flags=re.M)
                if cap is not None:
                    text = text.replace("monthly: 2500", f"monthly: {cap}")
            target.write_text(text, encoding="utf-8")
    return dest


# --- F03: an iterative walk ------------------------------------------------------------------


def _deep(base: Path, levels: int) -> Path:
    base.mkdir(parents=True)
    here = base
    for _ in range(levels):  # one level at a time (Path.mkdir(parents=True) recurses per level)
        here = here / "d"
        here.mkdir()
    return here


def _remove_deep(base: Path) -> None:
    """Remove a tree :func:`_deep` made, deepest first (shutil.rmtree, and so pytest's own
    clean-up, recurses once per level too)."""
    chain = [base]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


@pytest.mark.parametrize("command", ["check", "plan"])
def test_a_thousand_nested_folders_outside_git_are_walked_not_exit_70(tmp_path, command):
    mono = tmp_path / "mono"
    (mono / "products" / "shop").mkdir(parents=True)
    (mono / "products" / "shop" / "runway.yaml").write_text(SHOP, encoding="utf-8")
    deep = _deep(mono / "node-cache" / "x", 1000)
    try:
        (deep / "runway.yaml").write_text(SHOP.replace("shop", "deep"), encoding="utf-8")  # found at level 1,000
        rc, out, err = run(command, str(mono))
    finally:
        _remove_deep(mono / "node-cache" / "x")
    assert rc == 0 and "internal error" not in err, err
    if command == "plan":
        assert out.count("dev — $0.00 / $10.00 cap") == 2, out[:500]  # both products, the one 1,000 levels down too


def test_the_walk_keeps_its_skips_and_does_not_follow_folder_symlinks(tmp_path):
    from deploy_engine.cli.inputs import discover_roots

    mono = tmp_path / "mono"
    for name in ("a", ".hidden", "node_modules", "venv", "env", "b"):
        (mono / name).mkdir(parents=True)
        (mono / name / "runway.yaml").write_text(SHOP.replace("shop", name.strip(".") or "x"), encoding="utf-8")
    (mono / "env" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    (mono / "link").symlink_to(mono / "a", target_is_directory=True)
    roots = discover_roots(str(mono))
    assert [Path(r).parent.name for r in roots] == ["a", "b"]


def test_an_unreadable_monorepo_folder_is_warned_without_the_path_max_wording(unprivileged):  # noqa: F811
    mono = unprivileged / "mono"
    (mono / "ok").mkdir(parents=True)
    (mono / "ok" / "runway.yaml").write_text(SHOP, encoding="utf-8")
    for name, mode in (("locked", 0o000), ("unlisted", 0o311)):  # no access at all; search but no read
        (mono / name / "p").mkdir(parents=True)
        (mono / name / "p" / "runway.yaml").write_text(SHOP.replace("shop", name), encoding="utf-8")
        (mono / name).chmod(mode)
    for p in [mono, mono / "ok", mono / "ok" / "runway.yaml"]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    try:
        done = run_as_nobody([sys.executable, "-m", "deploy_engine", "check", str(mono)], unprivileged)
    finally:
        (mono / "locked").chmod(0o755)
        (mono / "unlisted").chmod(0o755)
    err = done.stderr
    assert done.returncode == 0, err
    assert "skipped" in err and "locked" in err and "unlisted" in err, err
    assert "Permission denied" in err and "characters)" not in err, err


# --- F05: submodules ---------------------------------------------------------------------------


@pytest.fixture
def with_submodule(tmp_path) -> Path:
    """``mono/products/local`` (in the superproject) and ``mono/products/sub``, a git submodule
    holding a product capped at $25 in production (its estimate is far over it)."""
    src = orders_copy(tmp_path / "subsrc", cap="25")
    git(src, "init", "-q")
    git(src, "add", ".")
    git(src, "commit", "-qm", "sub")
    mono = tmp_path / "mono"
    orders_copy(mono / "products" / "local")
    git(mono, "init", "-q")
    git(mono, "submodule", "add", "-q", str(src), "products/sub")
    git(mono, "submodule", "add", "-q", str(src), ".tools/sub")  # under a hidden folder: skipped, never named
    git(mono, "add", ".")
    git(mono, "commit", "-qm", "super")
    return mono


def test_a_product_in_a_checked_out_submodule_is_planned(with_submodule, tmp_path, monkeypatch):
    mark = tmp_path / "RAN-IN-SUBMODULE"
    git(with_submodule / "products" / "sub", "config", "core.fsmonitor", f"touch {mark}; false")  # F07 in the submodule
    monkeypatch.chdir(with_submodule)
    assert run("plan", "products/sub", "--env", "production")[0] == 2
    rc, out, err = run("plan", "products", "--env", "production")
    assert rc == 2, (out[-400:], err)
    rc, out, err = run("check", "products")
    assert "in 6 files" in out and "products/sub/runway.yaml" in out, out[-300:]  # 3 files each
    assert not mark.exists(), "the submodule's core.fsmonitor ran"


def test_a_submodule_not_checked_out_is_named_on_stderr(with_submodule, tmp_path, monkeypatch):
    clone = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", str(with_submodule), str(clone)], check=True, capture_output=True)
    monkeypatch.chdir(clone)
    rc, out, err = run("plan", "products", "--env", "production")
    assert "products/sub" in err and "submodule" in err and "not checked out" in err, err
    rc, out, err = run("check", "products")
    assert "products/sub" in err and "submodule" in err, err
    assert "products/sub" not in run("check", "products/local")[2]  # a PATH without it says nothing of it
    err = run("check", ".")[2]
    assert "products/sub" in err and ".tools" not in err, err


def test_diff_of_a_submodule_path_at_rev_says_it_is_a_submodule_exit_3(with_submodule, monkeypatch):
    monkeypatch.chdir(with_submodule)
    for argv in (["diff", "products/sub", "--base", "HEAD"], ["diff", "HEAD:products/sub", "products/sub"],
                 ["diff", "products", "--base", "HEAD"]):
        rc, out, err = run(*argv)
        assert rc == 3, (argv, rc, out[-300:], err)
        assert "submodule" in err and "products/sub" in err and "absent" not in err + out, (argv, err)
    rc, out, err = run("diff", "products/local", "--base", "HEAD")
    assert rc == 0, err


# --- F07: core.fsmonitor ---------------------------------------------------------------------


def test_no_cli_git_call_runs_the_repository_fsmonitor(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    orders_copy(repo / "products" / "orders")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "x")
    mark = tmp_path / "RAN-BY-FSMONITOR"
    git(repo, "config", "core.fsmonitor", f"touch {mark}; false")
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True)
    assert mark.exists(), "the hook must run for plain git, or this test proves nothing"
    mark.unlink()
    monkeypatch.chdir(repo)
    for argv in (["check", "products"], ["plan", "products"], ["diff", "products", "--base", "HEAD"],
                 ["diff", "products/orders", "--base", "HEAD"], ["diff", "HEAD:products/orders", "products/orders"]):
        rc, _, err = run(*argv)
        assert rc in (0, 1, 2), (argv, err)
        assert not mark.exists(), f"{argv} ran core.fsmonitor"


def test_every_cli_git_call_goes_through_the_shared_hardened_command():
    for path in (REPO / "deploy_engine" / "cli").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""\[\s*["']git["']""", text), f"{path}: a plain git argv; use runway_core.gitcmd.git_argv (F07)"


# --- F13: a `..` that stays inside ---------------------------------------------------------------


def test_a_rev_path_with_a_dotdot_inside_the_repository_is_normalised(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    orders_copy(repo / "products" / "orders")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "x")
    monkeypatch.chdir(repo)
    plain = run("diff", "HEAD:products/orders", "products/orders")
    rc, out, err = run("diff", "HEAD:products/orders/../orders", "products/orders")
    assert rc == plain[0] == 0, err
    assert "absent" not in out + err and "+$" not in out, out
    rc, _, err = run("diff", "HEAD:products/../../etc", "products/orders")
    assert rc == 3 and "outside the git repository" in err


# --- F14: export into the live store -------------------------------------------------------------


def _store(product: Path) -> Path:
    folder = product / ".runway" / "receipts" / "dev"
    folder.mkdir(parents=True)
    for i in range(3):
        (folder / f"20261130T090{i}00.000000Z.json").write_text(json.dumps({
            "format_version": 1, "command": "up", "product": "orders", "environment": "dev", "outcome": "succeeded",
            "exit_code": 0, "started_at": f"2026-11-30T09:0{i}:00Z", "resources": [], "changes": {}, "lease": {},
            "secrets_written": [], "credentials": {}}), encoding="utf-8")
    return folder


def _tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("to", [".runway/receipts/dev", ".runway", ".runway/receipts", ".runway/receipts/dev/new/deeper", "link", "link/x"])
def test_receipts_export_into_the_store_it_reads_is_refused_exit_3(tmp_path, monkeypatch, to):
    product = orders_copy(tmp_path / "p")
    _store(product)
    (product / "link").symlink_to(product / ".runway" / "receipts", target_is_directory=True)
    before = _tree(product / ".runway")
    monkeypatch.chdir(product)
    rc, out, err = run("receipts", "export", "--to", to, ".")
    assert rc == 3, (rc, out, err)
    assert "records store" in err and "inside" in err, err
    assert _tree(product / ".runway") == before
    rc, out, err = run("receipts", "export", "--to", str(tmp_path / "audit"), ".")
    assert rc == 0 and "3 new" in out + err, (out, err)
