"""A root runway whose `product:` line comes after a long header (ninth adversary L6; issue 23).

The root-or-member test read only a file's first 4 KiB (docs/format.md "Root or member"), so a
root opening with a 5 KiB licence header was taken for a member when found by walking up:
``runway-deploy check svc/x`` (a member it lists) said RW154 "not listed by a root runway
above it" and exited 0, while ``check .`` found the member's RW152 and exited 1 — a CI step that
checks the changed folders passed what the product fails. The test now reads the whole text
(up to the 1 MiB limit): :func:`runway_core.workspace.declares_product`, used by find_root, the
CLI's monorepo discovery, the server's grouping and its workspace scan.
"""

from __future__ import annotations

import io
from pathlib import Path

from deploy_engine.cli import main
from runway_core.workspace import declares_product, find_root
from runway_lsp.scan import find_runway_files

HEADER = "".join(f"# Copyright notice line {i:03d} -- lorem ipsum dolor sit amet, consectetur adipiscing elit\n" for i in range(60))
ROOT = HEADER + "runway: 1\nproduct: shop\nmembers: [svc/x]\nenvironments:\n  dev: {}\nresources:\n  q: {kind: queue}\n"
MEMBER = "runway: 1\nmember: x\nuses: [q, nope]\n"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ={})
    return rc, out.getvalue(), err.getvalue()


def product(tmp_path: Path) -> Path:
    assert len(HEADER.encode()) > 4096  # the header alone passes the old 4 KiB window
    (tmp_path / "svc" / "x").mkdir(parents=True)
    (tmp_path / "runway.yaml").write_text(ROOT, encoding="utf-8")
    (tmp_path / "svc" / "x" / "runway.yaml").write_text(MEMBER, encoding="utf-8")
    return tmp_path


def test_checking_a_member_finds_a_root_whose_product_line_is_past_4_kib(tmp_path: Path, monkeypatch):
    folder = product(tmp_path)
    monkeypatch.chdir(folder)
    rc_member, out_member, _ = run("check", "svc/x")
    rc_all, out_all, _ = run("check", ".")
    assert rc_all == 1 and "RW152" in out_all
    assert (rc_member, "RW152" in out_member, "RW154" in out_member) == (1, True, False)  # the same verdict as `check .`
    assert find_root(str(folder / "svc" / "x")) == str(folder / "runway.yaml")


def test_the_workspace_scan_calls_such_a_file_a_root(tmp_path: Path):
    folder = product(tmp_path).resolve()
    found = find_runway_files([str(folder)])
    assert found.kinds[str(folder / "runway.yaml")] == "root"


def test_the_test_reads_the_whole_text_and_a_bom():
    assert declares_product(HEADER + "product: a\n")
    assert declares_product("\ufeffproduct: a\n")
    assert not declares_product(HEADER + "  product: a\nmember: b\n")  # indented: not top-level


def _git(folder: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args], check=True, capture_output=True)


def test_a_work_tree_git_refuses_is_refused_never_walked(tmp_path: Path, monkeypatch):
    """Tenth adversary C11: when `git ls-files` failed in a work tree (dubious ownership in a
    container job, a corrupt index, an unknown extension), `check`/`plan` walked the folder
    instead and planned an untracked product, silently, while `diff` of the same job refused.
    docs/cli.md, PATH: in a git work tree only the files git tracks count, never walked instead."""
    orders = Path(__file__).resolve().parents[2] / "examples" / "orders" / "runway.yaml"
    repo = tmp_path / "repo"
    (repo / "products" / "a").mkdir(parents=True)
    (repo / "products" / "u").mkdir(parents=True)
    (repo / "products" / "a" / "runway.yaml").write_text(orders.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "products" / "u" / "runway.yaml").write_text(orders.read_text(encoding="utf-8").replace("product: orders", "product: untracked"),
                                                         encoding="utf-8")
    _git(repo, "init", "-q", ".")
    _git(repo, "add", "products/a")
    _git(repo, "commit", "-qm", "a")
    (repo / ".git" / "index").write_bytes(b"garbage\n")  # git: "index file smaller than expected"
    monkeypatch.chdir(repo)
    rc, out, err = run("plan", "products", "--format", "json")
    assert rc == 3 and "git refused to list the files it tracks" in err and "untracked" not in out, (rc, out, err)
