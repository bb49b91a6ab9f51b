"""``runway-deploy diff`` (issue 14): the cost change between a base and a head plan of one
product, from runway folders, plan JSON files and git revisions; the pure join in
runway_core/plan_diff.py. Expected figures come from ``plan --format json`` of each side,
never typed in: each environment's delta is exactly head total - base total, and each changed
item's delta exactly its head monthly - base monthly.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from deploy_engine.cli import main
from runway_core.plan_diff import PlanSide, SideEnvironment, SideItem, capacity_changes, diff_plans, side_of_json

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
MARKER = "<!-- runway-cost-diff -->"


def run(*argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {})
    return rc, out.getvalue(), err.getvalue()


def base_copy(dest: Path) -> Path:
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def make_head(folder: Path) -> None:
    """One workload resized, one resource added, one removed, one workload's scale changed."""
    root = folder / "runway.yaml"
    edit(root, "    size:\n      production: medium\n    scale:\n      production: 2\n",
         "    size:\n      production: large\n    scale:\n      production: 2\n")  # metabase resized
    edit(root, "  order-events:\n    kind: topic\n\n", "  jobs:\n    kind: queue\n\n")  # order-events removed, jobs added
    edit(folder / "services" / "checkout" / "runway.yaml", "uses: [main-db, order-events]", "uses: [main-db, jobs]")
    edit(root, "    scale:\n      production: 3\n    uses: [main-db]\n", "    scale:\n      production: 4\n    uses: [main-db]\n")  # zitadel 3 -> 4


def plan_json(folder: Path) -> dict:
    rc, out, err = run("plan", str(folder), "--format", "json")
    assert rc == 0, err
    return json.loads(out, parse_float=Decimal)


@pytest.fixture
def sides(tmp_path) -> tuple[Path, Path]:
    base = base_copy(tmp_path / "base")
    head = base_copy(tmp_path / "head")
    make_head(head)
    return base, head


def expected_items(base_doc: dict, head_doc: dict, env: str) -> dict[str, tuple[str, Decimal]]:
    b = {i["name"]: i for e in base_doc["environments"] if e["name"] == env for i in e["items"]}
    h = {i["name"]: i for e in head_doc["environments"] if e["name"] == env for i in e["items"]}
    out = {}
    for name in h.keys() | b.keys():
        if name not in b:
            out[name] = ("added", h[name]["monthly_usd"])
        elif name not in h:
            out[name] = ("removed", -b[name]["monthly_usd"])
        elif (h[name]["size"], h[name]["capacity"], h[name]["monthly_usd"]) != (b[name]["size"], b[name]["capacity"], b[name]["monthly_usd"]):
            out[name] = ("changed", h[name]["monthly_usd"] - b[name]["monthly_usd"])
    return out


def test_every_change_is_reported_with_its_exact_delta(sides):
    base, head = sides
    base_doc, head_doc = plan_json(base), plan_json(head)
    rc, out, err = run("diff", str(base), str(head), "--format", "json")
    assert rc == 0, err
    doc = json.loads(out, parse_float=Decimal)
    assert doc["format_version"] == 1 and doc["product"] == "orders"
    assert [e["name"] for e in doc["environments"]] == ["dev", "staging", "production"]
    for env in doc["environments"]:
        b = next(e for e in base_doc["environments"] if e["name"] == env["name"])
        h = next(e for e in head_doc["environments"] if e["name"] == env["name"])
        assert env["base_total_monthly_usd"] == b["total_monthly_usd"]
        assert env["head_total_monthly_usd"] == h["total_monthly_usd"]
        assert env["delta_monthly_usd"] == h["total_monthly_usd"] - b["total_monthly_usd"]
        assert env["cap_monthly_usd"] == h["cap_monthly_usd"] and env["head_verdict"] == h["verdict"]
        assert set(env["items"][0]) == {"name", "kind", "change", "base_size", "head_size", "base_monthly_usd",
                                        "head_monthly_usd", "delta_monthly_usd", "head_estimated", "capacity_changes"}
        changed = {i["name"]: (i["change"], i["delta_monthly_usd"]) for i in env["items"] if i["change"] != "unchanged"}
        assert changed == expected_items(base_doc, head_doc, env["name"])
        assert {i["change"] for i in env["items"]} <= {"added", "removed", "changed", "unchanged"}
    prod = {i["name"]: i for i in doc["environments"][2]["items"]}
    assert prod["jobs"]["change"] == "added" and prod["jobs"]["base_size"] is None and prod["jobs"]["base_monthly_usd"] is None
    assert prod["order-events"]["change"] == "removed" and prod["order-events"]["head_monthly_usd"] is None
    assert (prod["metabase"]["base_size"], prod["metabase"]["head_size"]) == ("medium", "large")
    assert prod["metabase"]["change"] == "changed" and prod["metabase"]["delta_monthly_usd"] > 0
    # The scale change shows although the size is the same ("medium -> medium" before issue 14).
    z = prod["zitadel"]
    assert z["change"] == "changed" and z["base_size"] == z["head_size"] == "medium"
    assert {"key": "tasks", "base": 3, "head": 4} in z["capacity_changes"]
    assert z["delta_monthly_usd"] > 0
    assert prod["main-db"]["change"] == "unchanged" and prod["main-db"]["delta_monthly_usd"] == 0


def test_plan_json_files_as_sides_give_the_same_diff(sides, tmp_path):
    base, head = sides
    for name, folder in (("base.json", base), ("head.json", head)):
        rc, out, _ = run("plan", str(folder), "--format", "json")
        (tmp_path / name).write_text(out, encoding="utf-8")
    from_runways = run("diff", str(base), str(head), "--format", "json")[1]
    rc, from_files, err = run("diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"), "--format", "json")
    assert rc == 0, err
    assert json.loads(from_files) == json.loads(from_runways)
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    rc, _, err = run("diff", str(tmp_path / "base.json"), str(tmp_path / "list.json"))
    assert rc == 3 and "not a JSON object" in err
    (tmp_path / "bad.json").write_text('{"format_version": 1, "environments": [{"name": 3}]}', encoding="utf-8")
    rc, _, err = run("diff", str(tmp_path / "bad.json"), str(head))
    assert rc == 3 and "not a valid plan JSON document" in err and "environments[0]" in err


def test_markdown_is_the_pr_comment_with_the_marker(sides):
    base, head = sides
    rc, out, _ = run("diff", str(base), str(head), "--format", "markdown")
    assert rc == 0
    assert out.startswith(MARKER + "\n")
    assert "### Cost change of **orders**" in out
    lines = out.splitlines()
    head_doc, base_doc = plan_json(head), plan_json(base)
    prod_delta = head_doc["environments"][2]["total_monthly_usd"] - base_doc["environments"][2]["total_monthly_usd"]
    headline = next(ln for ln in lines if ln.startswith("- production: "))
    assert f"**+${prod_delta:,.2f}/month**" in headline and "of the $2,500.00 cap — ok" in headline
    assert "`" + "█" in out  # the cap bar
    assert any("| zitadel " in ln and "tasks 3 → 4" in ln for ln in lines)
    assert any("| order-events " in ln and "removed" in ln for ln in lines)
    # Runway names are inert in the comment.
    rc, text_out, _ = run("diff", str(base), str(head))
    assert "production: +$" in text_out and "tasks 3 → 4" in text_out


def test_exit_codes_invalid_head_over_cap_and_max_increase(sides, tmp_path):
    base, head = sides
    rc, out, _ = run("diff", str(base), str(head), "--format", "json")
    deltas = [Decimal(str(e["delta_monthly_usd"])) for e in json.loads(out)["environments"]]
    biggest = max(deltas)
    assert run("diff", str(base), str(head), "--max-increase", str(biggest))[0] == 0
    rc, out, _ = run("diff", str(base), str(head), "--max-increase", str(biggest - Decimal("0.01")), "--format", "github")
    assert rc == 2 and "::error title=over --max-increase%3A " in out
    # Head invalid: 1, even with the diff printed.
    invalid = tmp_path / "invalid"
    shutil.copytree(ORDERS, invalid)
    rc, out, err = run("diff", str(base), str(invalid))
    assert rc == 1 and "no change" in out and "RW140" in err
    # Head over a cap: 2.
    over = base_copy(tmp_path / "over")
    edit(over / "runway.yaml", "      monthly: 2500\n", "      monthly: 300\n")
    rc, out, _ = run("diff", str(base), str(over), "--format", "json")
    assert rc == 2 and json.loads(out)["environments"][2]["head_verdict"] == "over-cap"
    assert run("diff", str(base))[0] == 64
    assert run("diff", str(base), str(head), "--max-increase", "lots")[0] == 64
    rc, _, err = run("diff", str(base), str(head), "--env", "qa")
    assert rc == 64 and "--env qa: in neither side" in err
    rc, out, _ = run("diff", str(base), str(head), "--env", "dev", "--format", "json")
    assert [e["name"] for e in json.loads(out)["environments"]] == ["dev"]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout


def committed_orders(tmp_path: Path) -> Path:
    """A git repository holding the base copy of the example at ``products/orders``, committed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base_copy(repo / "products" / "orders")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_base_rev_in_a_git_repository(tmp_path, monkeypatch):
    repo = committed_orders(tmp_path)
    make_head(repo / "products" / "orders")
    git(repo, "commit", "-qam", "head")
    # The same change, worked out from two folders outside git.
    reference = tmp_path / "ref"
    base_copy(reference / "base")
    base_copy(reference / "head")
    make_head(reference / "head")
    expected = json.loads(run("diff", str(reference / "base"), str(reference / "head"), "--format", "json")[1])
    monkeypatch.chdir(repo)
    for argv in (["products/orders", "--base", "HEAD~1"], ["products/orders/services/checkout", "--base", "HEAD~1"],
                 ["HEAD~1:products/orders", "HEAD:products/orders"], ["HEAD~1:products/orders", "products/orders"]):
        rc, out, err = run("diff", *argv, "--format", "json")
        assert rc == 0, (argv, err)
        assert json.loads(out) == expected, argv
    monkeypatch.chdir(repo / "products")
    rc, out, err = run("diff", "HEAD~1:./orders", "orders", "--format", "json")
    assert rc == 0 and json.loads(out) == expected, err
    rc, out, _ = run("diff", "orders", "--base", "HEAD~1", "--format", "markdown")
    assert out.startswith(MARKER) and "base `HEAD~1:products/orders`" in out
    # A product the change adds: absent at the base, every item added.
    base_copy(repo / "products" / "billing")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "billing")
    rc, out, err = run("diff", "billing", "--base", "HEAD~1", "--format", "json")
    assert rc == 0 and "absent at HEAD~1" in err
    doc = json.loads(out)
    assert all(i["change"] == "added" for e in doc["environments"] for i in e["items"])
    assert all(e["base_total_monthly_usd"] == 0 for e in doc["environments"])
    rc, _, err = run("diff", "orders", "--base", "no-such-rev")
    assert rc == 3 and "unknown revision" in err
    monkeypatch.chdir(tmp_path)
    rc, _, err = run("diff", str(reference / "head"), "--base", "HEAD~1")
    assert rc == 3 and "not in a git repository" in err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("spec", ["HEAD:../../etc", "HEAD:./../..", "HEAD:products/../../x", "HEAD:..", "HEAD:/etc", "HEAD:/tmp"])
def test_a_rev_side_leaving_the_repository_is_refused_as_base_rev_is(tmp_path, monkeypatch, spec):
    """git reads `HEAD:../x` from the repository's top as "outside repository" (git's
    get_oid_with_context: "'%s' is outside repository at '%s'"), which `git cat-file -t` fails
    like a missing path: the side read as absent, every item added, exit 0 (round 5 leftover);
    `diff PATH --base REV` refuses a PATH outside the repository (exit 3). Both refuse now."""
    repo = committed_orders(tmp_path)
    monkeypatch.chdir(repo)
    rc, out, err = run("diff", spec, "products/orders", "--format", "json")
    assert rc == 3, (rc, out, err)
    assert "outside the git repository" in err and "absent" not in err, err
    rc, _, err = run("diff", "products/orders", spec)
    assert rc == 3 and "outside the git repository" in err, err


def test_one_labelled_step_summary_for_a_diff(sides, tmp_path):
    base, head = sides
    summary = tmp_path / "summary.md"
    run("diff", str(base), str(head), "--format", "markdown", "--output", str(tmp_path / "comment.md"),
        environ={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text(encoding="utf-8")
    assert text.count("### runway-deploy diff — ") == 1 and MARKER not in text
    assert "**0 errors, 0 warnings, 0 hints in 3 files**" in text and "Cost change of **orders**" in text
    assert (tmp_path / "comment.md").read_text(encoding="utf-8").startswith(MARKER)


def test_pure_diff_joins_by_name_and_keeps_decimal():
    def side(*items: tuple[str, str, str, str, dict]) -> PlanSide:
        its = tuple(SideItem(n, k, s, Decimal(m), c) for n, k, s, m, c in items)
        return PlanSide("p", "r", (SideEnvironment("dev", Decimal("100"), sum((i.monthly_usd for i in its), Decimal("0.00")), "ok", its),))

    base = side(("a", "queue", "small", "0.10", {}), ("w", "workload", "medium", "28.83", {"tasks": 3, "image": "x@sha256:1"}))
    head = side(("w", "workload", "medium", "38.44", {"tasks": 4, "image": "x@sha256:2"}), ("b", "bucket", "small", "0.20", {}))
    d = diff_plans(base, head)
    (env,) = d.environments
    assert [(i.name, i.change, i.delta_monthly_usd) for i in env.items] == [
        ("w", "changed", Decimal("9.61")), ("b", "added", Decimal("0.20")), ("a", "removed", Decimal("-0.10"))]
    assert env.delta == Decimal("9.71") and isinstance(env.delta, Decimal)
    assert [c.key for c in env.items[0].capacity_changes] == ["tasks"]  # the image is configuration
    assert capacity_changes({"n": 2}, {"n": 2.0}) == ()
    # An environment only on one side.
    only_head = diff_plans(PlanSide(None, None, ()), head).environments[0]
    assert only_head.base_total == 0 and all(i.change == "added" for i in only_head.items)
    only_base = diff_plans(base, PlanSide(None, None, ())).environments[0]
    assert only_base.head_verdict is None and all(i.change == "removed" for i in only_base.items)
    with pytest.raises(ValueError):
        side_of_json({"format_version": 2, "environments": []})


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_large_file_at_the_base_revision_is_never_read_into_memory(tmp_path):
    """Third adversary, round 5: `diff PATH --base REV` read the whole `git archive` of the
    product folder into memory, so a 300 MB asset committed beside the runway ended in
    MemoryError (exit 70) under a 600 MB address-space limit (RLIMIT_AS, as a CI job's cgroup
    or `ulimit -v` sets; git itself needs the blob's size once, so the limit is above that).
    The archive now goes to a temporary file and is read back member by member."""
    import resource
    import sys

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base_copy(repo / "orders")
    (repo / "orders" / "assets").mkdir()
    with open(repo / "orders" / "assets" / "model.bin", "wb") as fh:
        fh.truncate(300_000_000)  # zeros: git stores them compressed, the tar holds 300 MB
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base with an asset")
    limit = 600 * 1024 * 1024

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    got = subprocess.run([sys.executable, "-m", "deploy_engine", "diff", "orders", "--base", "HEAD", "--format", "json"],
                         cwd=repo, capture_output=True, text=True, preexec_fn=limited, timeout=300)
    assert got.returncode == 0, (got.returncode, got.stderr[-500:])
    doc = json.loads(got.stdout)
    assert all(i["change"] == "unchanged" for e in doc["environments"] for i in e["items"]), doc


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_an_absolute_rev_path_inside_the_repository_is_read_from_the_top(tmp_path, monkeypatch):
    """Fifth adversary: `HEAD:$PWD/products/orders` was read as absent (every item added)."""
    repo = committed_orders(tmp_path)
    monkeypatch.chdir(repo)
    rc, out, err = run("diff", f"HEAD:{repo / 'products' / 'orders'}", "products/orders", "--format", "json")
    assert rc == 0 and "absent" not in err, err
    assert all(i["change"] == "unchanged" for e in json.loads(out)["environments"] for i in e["items"])
