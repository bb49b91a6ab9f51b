"""A member folder that belongs to another root (ninth adversary L4; issue 23).

`runway.yaml` (`product: aa`, `members: [b]`) and `b/runway.yaml` (`product: bb`, its own
environments and resources): `runway-deploy check .` read b as aa's member and failed CI with
three RW102 (unknown key `product`, `environments`, `resources`) at b/runway.yaml, while the
server analysed b as its own product (a walk up from b finds b itself), dropped aa's analysis of
b for b's URI, and showed no error anywhere. The same for a member `x/c` listed by an outer
root and by the root `x/runway.yaml` nearer to it: the editor put c in x's product only.

Now a root refuses such a member with RW151 at its `members` entry and does not read it
(docs/format.md "Members"): a member belongs to the nearest root above it. The CLI (a real
`python -m deploy_engine` subprocess) and the real runway-lsp over stdio show the same errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pytest_lsp import LanguageClient

from lspclient import did_open, init, neovim_caps, until

ROOT = "runway: 1\nproduct: aa\nmembers: [b]\nenvironments:\n  dev: {}\nresources:\n  q: {kind: queue}\n"
INNER = "runway: 1\nproduct: bb\nenvironments:\n  dev: {}\nresources:\n  r: {kind: bucket}\n"

OUTER = "runway: 1\nproduct: aa\nmembers: [x/c]\nenvironments:\n  dev: {}\nresources:\n  q: {kind: queue}\n"
NESTED = "runway: 1\nproduct: xx\nmembers: [c]\nenvironments:\n  dev: {}\nresources:\n  db: {kind: postgres}\n"
MEMBER = "runway: 1\nuses: [db]\n"


def _tree(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def _cli_errors(folder: Path, target: str = ".") -> tuple[int, set[tuple[str, str, int]]]:
    """``runway-deploy check TARGET --format json`` run in ``folder``: its exit code and its
    errors as (file relative to ``folder``, code, line)."""
    run = subprocess.run([sys.executable, "-m", "deploy_engine", "check", target, "--format", "json"], cwd=folder,
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(run.stdout)
    found = {(str(Path(d["file"])), d["code"], d["range"]["start"]["line"]) for d in doc["diagnostics"] if d["severity"] == "error"}
    return run.returncode, found


def _server_errors(client: LanguageClient, folder: Path, paths: list[Path]) -> set[tuple[str, str, int]]:
    return {(str(p.relative_to(folder)), d.code, d.range.start.line) for p in paths for d in client.diagnostics.get(p.as_uri(), []) if d.severity == 1}


def test_check_refuses_a_member_that_holds_a_root_runway(tmp_path: Path) -> None:
    folder = _tree(tmp_path.resolve(), {"runway.yaml": ROOT, "b/runway.yaml": INNER})
    rc, errors = _cli_errors(folder)
    assert (rc, errors) == (1, {("runway.yaml", "RW151", 2)})  # at `members: [b]`, never RW102 in b
    run = subprocess.run([sys.executable, "-m", "deploy_engine", "check", "."], cwd=folder, capture_output=True, text=True, timeout=120)
    assert "member `b` holds a root runway (`product: bb`): a member runway has no `product`" in run.stdout, run.stdout
    assert _cli_errors(folder, "b") == (0, set())  # b alone is its own product, as the editor sees it


def test_check_refuses_a_member_inside_a_nested_root(tmp_path: Path) -> None:
    folder = _tree(tmp_path.resolve(), {"runway.yaml": OUTER, "x/runway.yaml": NESTED, "x/c/runway.yaml": MEMBER})
    rc, errors = _cli_errors(folder)
    assert (rc, errors) == (1, {("runway.yaml", "RW151", 2)})  # not RW152 `db` at x/c (db is xx's)
    assert _cli_errors(folder, "x") == (0, set())
    assert _cli_errors(folder, "x/c") == (0, set())  # walks up to x, which lists it


async def test_the_editor_shows_what_check_fails_on_for_a_member_that_is_a_root(client: LanguageClient, tmp_path: Path):
    folder = _tree(tmp_path.resolve(), {"runway.yaml": ROOT, "b/runway.yaml": INNER})
    root, inner = folder / "runway.yaml", folder / "b" / "runway.yaml"
    await init(client, neovim_caps(), folder)
    did_open(client, root)
    did_open(client, inner)
    await until(client, lambda: root.as_uri() in client.diagnostics and inner.as_uri() in client.diagnostics)
    rc, cli = _cli_errors(folder)
    assert rc == 1 and _server_errors(client, folder, [root, inner]) == cli == {("runway.yaml", "RW151", 2)}
    (d,) = [d for d in client.diagnostics[root.as_uri()] if d.code == "RW151"]
    assert "holds a root runway (`product: bb`)" in d.message and (d.range.start.character, d.range.end.character) == (10, 11)
    assert [d.code for d in client.diagnostics[inner.as_uri()]] == ["RW180"]  # b as its own product: a hint, no error


async def test_the_editor_shows_what_check_fails_on_for_a_member_of_a_nested_root(client: LanguageClient, tmp_path: Path):
    folder = _tree(tmp_path.resolve(), {"runway.yaml": OUTER, "x/runway.yaml": NESTED, "x/c/runway.yaml": MEMBER})
    outer, nested, member = folder / "runway.yaml", folder / "x" / "runway.yaml", folder / "x" / "c" / "runway.yaml"
    await init(client, neovim_caps(), folder)
    for p in (outer, nested, member):
        did_open(client, p)
    await until(client, lambda: all(p.as_uri() in client.diagnostics for p in (outer, nested, member)))
    rc, cli = _cli_errors(folder)
    assert rc == 1 and _server_errors(client, folder, [outer, nested, member]) == cli == {("runway.yaml", "RW151", 2)}
    (d,) = [d for d in client.diagnostics[outer.as_uri()] if d.code == "RW151"]
    assert "inside the folder of another root runway, `x/runway.yaml`" in d.message
