"""`check --deployed` and `diff` show the changes AWS refuses (issue 24, RW190-RW193), with
positions, through the real command line (deploy_engine.cli.main)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

from deploy_engine.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _orders(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(ROOT / "examples" / "orders", dest)
    text = (dest / "runway.yaml").read_text()
    # examples/orders keeps one 63-digit digest on purpose (RW140); fixed here.
    (dest / "runway.yaml").write_text(re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", text))
    return dest


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err, environ={"NO_COLOR": "1"}), out.getvalue(), err.getvalue()


def _shrink(folder: Path) -> int:
    path = folder / "runway.yaml"
    text = path.read_text()
    path.write_text(text.replace("      production: large\n", "      production: medium\n", 1))
    return next(i for i, line in enumerate(text.splitlines()) if line == "  main-db:") + 1


def test_check_deployed_file_reports_the_shrink_at_the_resource(tmp_path):
    folder = _orders(tmp_path, "orders")
    rc, plan, _ = _run("plan", str(folder), "--format", "json")
    assert rc == 0
    (tmp_path / "deployed.json").write_text(plan)
    assert _run("check", str(folder), "--deployed", str(tmp_path / "deployed.json"))[0] == 0
    line = _shrink(folder)
    rc, out, _ = _run("check", str(folder), "--deployed", str(tmp_path / "deployed.json"))
    assert rc == 1
    found = [ln for ln in out.splitlines() if "RW191" in ln]
    assert len(found) == 1 and re.search(rf"runway\.yaml:{line}:3: error RW191: production: `main-db` allocated storage 250 -> 100 GB", found[0])
    rc, out, _ = _run("check", str(folder), "--deployed", str(tmp_path / "deployed.json"), "--format", "json")
    (d,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "RW191"]
    assert d["range"]["start"] == {"line": line - 1, "character": 2} and d["severity"] == "error"


def test_check_deployed_that_is_no_plan_is_exit_3(tmp_path):
    folder = _orders(tmp_path, "orders")
    (tmp_path / "deployed.json").write_text('{"not": "a plan"}')
    rc, _, err = _run("check", str(folder), "--deployed", str(tmp_path / "deployed.json"))
    assert rc == 3 and "not a plan document" in err


def test_diff_shows_the_refused_change_on_the_head(tmp_path):
    base = _orders(tmp_path, "base")
    head = _orders(tmp_path, "head")
    line = _shrink(head)
    rc, out, err = _run("diff", str(base), str(head))
    assert rc == 1  # the head is invalid: AWS would refuse it
    assert re.search(rf"runway\.yaml:{line}:3: error RW191: production: `main-db` allocated storage 250 -> 100 GB", err), err
    assert "against the base side" in err
    rc, _, err = _run("diff", str(base), str(base))
    assert rc == 0 and "RW19" not in err


def test_diff_of_a_monorepo_against_a_git_base_shows_it_on_the_head(tmp_path, monkeypatch):
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    product = _orders(repo, "orders")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    line = _shrink(product)
    monkeypatch.chdir(repo)
    for argv in (["diff", "orders", "--base", "HEAD"], ["diff", ".", "--base", "HEAD"]):  # one product; every product
        rc, _, err = _run(*argv)
        assert rc == 1, err
        assert re.search(rf"runway\.yaml:{line}:3: error RW191: production: `main-db`", err), (argv, err)
