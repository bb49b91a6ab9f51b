"""`check --deployed` and `diff` show the changes AWS refuses (issue 24, RW190-RW193), with
positions, through the real command line (deploy_engine.cli.main)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

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


#: main-db capacity fields no plan holds (ninth adversary C6): each crashed `check` (exit 70).
_MALFORMED = [("engine_version", "\u00b2"), ("engine_version", "1" * 5000), ("engine_version", "\u0661\u0667"), ("storage_gb", True)]


def _malformed_plan(plan: str, field: str, value) -> dict:
    doc = json.loads(plan)
    for env in doc["environments"]:
        for item in env["items"]:
            if item["name"] == "main-db":
                item["capacity"][field] = value
    return doc


@pytest.mark.parametrize(("field", "value"), _MALFORMED, ids=["superscript", "5000-digits", "arabic-indic", "storage-true"])
def test_check_deployed_with_a_malformed_capacity_is_exit_3_never_70(tmp_path, field, value):
    folder = _orders(tmp_path, "orders")
    rc, plan, _ = _run("plan", str(folder), "--env", "dev", "--format", "json")
    assert rc == 0
    (tmp_path / "dep.json").write_text(json.dumps(_malformed_plan(plan, field, value)))
    rc, _, err = _run("check", str(folder), "--deployed", str(tmp_path / "dep.json"))
    assert rc == 3, err
    assert "not a plan document" in err and f"capacity.{field}" in err and "Traceback" not in err


@pytest.mark.parametrize(("field", "value"), _MALFORMED, ids=["superscript", "5000-digits", "arabic-indic", "storage-true"])
def test_check_skips_a_malformed_record_and_its_sarif_is_valid(tmp_path, sarif_schema, field, value):
    """The same plan committed under `.runway/` with a succeeded `up` naming it (a pull request
    can add both files): the record is skipped, `check` reports the runway as ever."""
    folder = _orders(tmp_path, "orders")
    rc, plan, _ = _run("plan", str(folder), "--env", "dev", "--format", "json")
    digest = "a" * 64
    (folder / ".runway/plans/dev").mkdir(parents=True)
    (folder / f".runway/plans/dev/{digest}.json").write_text(json.dumps(_malformed_plan(plan, field, value)))
    (folder / ".runway/receipts/dev").mkdir(parents=True)
    (folder / ".runway/receipts/dev/20261204T183845.017955Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))
    rc, out, err = _run("check", str(folder), "--format", "sarif")
    assert rc == 0, err
    validate_sarif(json.loads(out), sarif_schema)
    assert not [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"].startswith("RW19")]


from test_ci_formats import sarif_schema, validate_sarif  # noqa: E402,F401  (same tier folder)
