"""Issue 22, found by a fresh user: no output says "ok" while an estimate is incomplete or the
job fails. ``plan`` of an environment holding an item it could not estimate (an unknown size,
RW130) is ``invalid`` with an "at least" total in every format (as ``diff`` calls such a head);
``diff`` never shows an unestimated item as a saving, never reads "ok" beside an exceeded
``--max-increase``; the combined comment's shortened failing list counts right.
Expected figures come from ``plan --format json`` of examples/orders."""

from __future__ import annotations

import io
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from deploy_engine.cli import main
from deploy_engine.cli.formats.markdown import MAX_COMMENT_CHARS, products_markdown, utf16_len
from runway_core.plan_diff import PlanSide, SideEnvironment, SideItem, diff_plans

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"


def run(*argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {})
    return rc, out.getvalue(), err.getvalue()


def orders(tmp_path: Path, name: str, *, staging_db: str = "medium", fix_digest: bool = False) -> Path:
    dest = tmp_path / name
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    text = text.replace("      staging: medium\n", f"      staging: {staging_db}\n", 1)
    if fix_digest:
        text = text.replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    root.write_text(text, encoding="utf-8")
    return dest


# --------------------------------------------------------------------------------------
# plan: an item not estimated
# --------------------------------------------------------------------------------------


def test_plan_of_an_unknown_size_is_invalid_with_a_lower_bound_in_every_format(tmp_path):
    bad = orders(tmp_path, "bad", staging_db="smal")
    rc, out, err = run("plan", str(bad))
    assert rc == 1 and "RW130" in err
    staging = out.split("\n\nproduction")[0].split("staging — ", 1)[1]
    assert staging.startswith("at least $118.64 / $500.00 cap (24%) — INVALID: not estimated: main-db; the total is a lower bound")
    assert " — ok" not in staging.splitlines()[0]
    assert re.search(r"main-db +postgres +- +not estimated\n", staging) and "$0.00" not in staging
    assert re.search(r"total +at least \$118\.64", staging)
    assert "not estimated: main-db (staging)" in out

    rc, out, _ = run("plan", str(bad), "--format", "markdown")
    section = out.split("## staging", 1)[1].split("## production")[0]
    assert section.startswith(" — at least $118.64 / $500.00")
    assert "Verdict: **invalid — not estimated** (main-db:" in section and "Verdict: **ok**" not in section
    assert re.search(r"\| main-db +\| postgres +\| - +\| +\*\*not estimated\*\* \|", section) and "**at least $118.64**" in section

    rc, out, _ = run("plan", str(bad), "--format", "json")
    envs = {e["name"]: e for e in json.loads(out)["environments"]}
    assert envs["staging"]["verdict"] == "invalid" and envs["staging"]["not_estimated"] == ["main-db"]
    # RW140 (an image not pinned) touches no estimate: the other verdicts stay.
    assert envs["dev"]["verdict"] == envs["production"]["verdict"] == "ok" and "not_estimated" not in envs["dev"]

    rc, out, _ = run("plan", str(bad), "--format", "github")
    assert "INVALID: not estimated: main-db" in out

    summary = tmp_path / "summary.md"
    run("plan", str(bad), environ={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text(encoding="utf-8")
    assert "Verdict: **invalid — not estimated**" in text and text.count("Verdict: **ok**") == 2


def test_an_error_that_touches_no_estimate_leaves_every_verdict_ok():
    # examples/orders has RW140 on purpose: invalid (exit 1), yet every estimate is whole.
    rc, out, err = run("plan", str(ORDERS), "--format", "json")
    assert rc == 1 and "RW140" in err
    doc = json.loads(out)
    assert [e["verdict"] for e in doc["environments"]] == ["ok", "ok", "ok"]
    assert not any("not_estimated" in e for e in doc["environments"])
    rc, out, _ = run("plan", str(ORDERS))
    assert "at least" not in out and "not estimated:" not in out and out.count(" — ok\n") == 3


def test_a_plan_json_with_an_invalid_environment_is_a_diff_side_that_stays_invalid(tmp_path):
    bad = orders(tmp_path, "bad", staging_db="smal", fix_digest=True)
    _, out, _ = run("plan", str(bad), "--format", "json")
    (tmp_path / "head.json").write_text(out, encoding="utf-8")
    # A forged document saying "ok" for it is no better than the truth: "invalid" is kept.
    rc, out, err = run("diff", str(orders(tmp_path, "base", fix_digest=True)), str(tmp_path / "head.json"), "--format", "json")
    assert rc == 1, err
    envs = {e["name"]: e for e in json.loads(out)["environments"]}
    assert envs["staging"]["head_verdict"] == "invalid"


# --------------------------------------------------------------------------------------
# diff: no saving from an unknown size; never "ok" over --max-increase
# --------------------------------------------------------------------------------------


def test_diff_of_an_unknown_size_shows_no_saving_and_a_lower_bound(tmp_path):
    base = orders(tmp_path, "base", fix_digest=True)
    head = orders(tmp_path, "head", staging_db="smal", fix_digest=True)
    rc, out, _ = run("diff", str(base), str(head), "--format", "markdown")
    assert rc == 1
    assert "−$139.47" not in out and "-$139.47" not in out
    row = next(line for line in out.splitlines() if line.startswith("| main-db"))
    assert row.rstrip().endswith("| not estimated |") and "$139.47 → **not estimated**" in row
    line = next(line for line in out.splitlines() if line.startswith("- staging:"))
    assert "change not known** ($258.11 → at least $118.64), at least 24% of the $500.00 cap" in line
    assert "`█████░░░░░░░░░░░░░░░` at least 24% of the $500.00 cap" in out
    rc, out, _ = run("diff", str(base), str(head))
    assert "−$139.47" not in out and "not estimated  not estimated" in out
    rc, out, _ = run("diff", str(base), str(head), "--format", "json")
    item = next(i for e in json.loads(out)["environments"] if e["name"] == "staging" for i in e["items"] if i["name"] == "main-db")
    assert item["head_estimated"] is False and item["delta_monthly_usd"] is None


def test_an_environment_over_max_increase_never_reads_ok(tmp_path):
    base = orders(tmp_path, "base", fix_digest=True)
    head = orders(tmp_path, "head", staging_db="large", fix_digest=True)
    rc, out, _ = run("diff", str(base), str(head), "--max-increase", "1", "--format", "markdown")
    assert rc == 2
    line = next(line for line in out.splitlines() if line.startswith("- staging:"))
    assert line.endswith("— **OVER --max-increase $1.00 by $185.34 (refused)**") and " ok" not in line
    rc, out, _ = run("diff", str(base), str(head), "--max-increase", "1")
    assert rc == 2 and "— ok;" not in out and "— OVER --max-increase $1.00 by $185.34 (refused)" in out


def test_the_summary_cell_over_max_increase_says_no_ok():
    side = lambda usd: PlanSide("p", "us-east-1", (SideEnvironment("dev", Decimal(500), Decimal(usd), "ok",  # noqa: E731
                                                                   (SideItem("w", "workload", "small", Decimal(usd), {}),)),))
    body = products_markdown([("products/p", diff_plans(side(1), side(50), max_increase=Decimal(1)))], "main", "the working tree")
    row = next(line for line in body.splitlines() if line.startswith("| p (`products/p`)"))
    assert "+$49.00 **over --max-increase**" in row and " ok " not in row


def test_a_shortened_failing_list_counts_every_failure():
    # 300 products, each of 3 environments over --max-increase: 900 failures, too many to list.
    def side(n: int, usd: int) -> PlanSide:
        return PlanSide(f"product-{n:03d}", "us-east-1", tuple(
            SideEnvironment(env, Decimal(5000), Decimal(usd), "ok", (SideItem("w", "workload", "small", Decimal(usd), {}),))
            for env in ("dev", "staging", "production")))
    products = [(f"products/p{n:03d}", diff_plans(side(n, 1), side(n, 10), max_increase=Decimal(0))) for n in range(300)]
    body = products_markdown(products, "main", "the working tree")
    assert utf16_len(body) <= MAX_COMMENT_CHARS
    failing = body.split("**The job fails:**", 1)[1].split("| product", 1)[0]
    listed = [line for line in failing.splitlines() if line.startswith("- **product-")]
    more = re.search(r"- … and (\d+) more", failing)
    assert more is not None and listed and len(listed) + int(more.group(1)) == 900


# --------------------------------------------------------------------------------------
# A monorepo: annotations, region/cap changes, an unread head, one product in two folders
# --------------------------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def mono(tmp_path, monkeypatch) -> Path:
    from test_cli_diff_monorepo import make_monorepo

    ws = tmp_path / "ws"
    make_monorepo(ws)  # orders changed, billing removed, search added: dozens of changed items
    monkeypatch.chdir(ws)
    return ws


@needs_git
def test_github_annotations_name_the_product_and_keep_within_githubs_limit_per_step(mono):
    """GitHub shows 10 annotations of each level per step and drops the rest without a word
    (actions/runner ExecutionContext.cs `_maxIssueCount = 10`; REST docs, "Update a check
    run": "limited to 10 warning annotations and 10 error annotations per step")."""
    from deploy_engine.cli.formats.github import annotation_level

    rc, out, _ = run("diff", "products", "--base", "main", "--format", "github", "--max-increase", "0")
    assert rc == 2
    annotations = [line for line in out.splitlines() if re.match(r"::(error|warning|notice)[ :]", line)]
    per_level = {lvl: [a for a in annotations if annotation_level(a) == lvl] for lvl in ("error", "warning", "notice")}
    assert all(len(v) <= 10 for v in per_level.values()) and len(annotations) <= 50
    # More changed items than that: the last of a level says how many more, the log has them all.
    assert per_level["notice"][-1].startswith("::notice title=runway-deploy%3A ") and "more notice annotation(s) not shown" in per_level["notice"][-1]
    assert "removed: billing dev" in out.replace("%3A", ":") or "cost removed: billing dev" in out.replace("%3A", ":")
    assert all(re.search(r"(billing|orders|search) ", a.split("::", 2)[2]) for a in annotations if "runway-deploy%3A" not in a)
    assert "cost change of billing" in out and "cost change of search" in out


def test_check_in_github_format_keeps_within_the_limit_and_loses_no_diagnostic():
    _, doc, _ = run("check", str(REPO / "examples" / "broken"), "--format", "json")
    total = json.loads(doc)["summary"]["errors"]
    assert total > 10
    rc, out, _ = run("check", str(REPO / "examples" / "broken"), "--format", "github")
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert rc == 1 and len(errors) == 10 and "more error annotation(s) not shown" in errors[-1]
    # Every error: 9 annotations, the others as text in the log (inert), and the count.
    more = int(re.search(r"(\d+) more error annotation", errors[-1]).group(1))
    assert more == total - 9 and len(re.findall(r": error RW\d+: ", out)) == more and f"{total} errors" in out


@needs_git
def test_a_region_or_cap_change_is_not_listed_as_failing_the_job(mono):
    # orders: its cap grows and zitadel's +$32.01 stays under --max-increase 100; search (added)
    # fails it. The cap change is said apart from the failures, not as one of them.
    root = mono / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace("      monthly: 2500\n", "      monthly: 3000\n"), encoding="utf-8")
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown", "--max-increase", "100")
    assert rc == 2
    failing = out.split("**The job fails:**", 1)[1].split("**Region and cap changes:**", 1)[0]
    assert "**search**" in failing and "orders" not in failing and "cap $" not in failing
    changes = out.split("**Region and cap changes:**", 1)[1].split("| product", 1)[0]
    assert changes.strip() == "- **orders** production: cap $2,500.00 → $3,000.00"


@needs_git
def test_a_head_that_cannot_be_read_is_said_so_never_a_region_change_or_a_saving(mono):
    root = mono / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8") + "  broken: [\n", encoding="utf-8")
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown")
    assert rc == 1
    assert "region us-east-1 → none" not in out and "→ none" not in out
    assert "- **orders** (`products/orders`): head could not be read (" in out
    row = next(line for line in out.splitlines() if line.startswith("| orders (`products/orders`)"))
    assert "−$" not in row and row.count("not known **invalid**") == 3
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "json")
    orders = next(p for p in json.loads(out)["products"] if p["product"] == "orders")
    assert orders["head_read"] is False and all(e["delta_monthly_usd"] is None and e["head_total_monthly_usd"] is None
                                                for e in orders["environments"])


@needs_git
def test_two_folders_with_one_product_name_get_a_warning_and_plan_json_carries_paths(mono):
    from test_cli_diff_monorepo import git, product

    product(mono, "orders", "products/orders-copy")
    git(mono, "add", "-A")  # a folder search of a git checkout reads what git tracks
    for argv in (("check", "products"), ("plan", "products", "--format", "json"), ("diff", "products", "--base", "main", "--format", "json")):
        rc, out, err = run(*argv)
        assert "warning: 2 runways declare product 'orders' (products/orders, products/orders-copy)" in err, argv
    rc, out, _ = run("plan", "products", "--format", "json")
    assert [p["path"] for p in json.loads(out)["products"]] == ["products/orders", "products/orders-copy", "products/search"]


@needs_git
def test_plan_json_of_several_runways_is_a_products_document_with_exit_0_as_documented(mono):
    rc, out, err = run("plan", "products", "--format", "json")
    assert rc == 0, err
    assert [p["product"] for p in json.loads(out)["products"]] == ["orders", "search"]
    docs = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    usage_row = next(line for line in docs.splitlines() if line.startswith("| 64 | usage error"))
    assert "plan --format json" not in usage_row
    assert "`plan products --format json` of three valid products under their caps is exit 0" in docs


def test_thousands_of_failing_products_still_fit_one_comment():
    # 900 products each over --max-increase: the failing list and then the table are cut,
    # never a comment GitHub refuses (422 over 65,536 characters).
    def side(n: int, usd: int) -> PlanSide:
        return PlanSide(f"product-{n:03d}", "us-east-1", (SideEnvironment("dev", Decimal(5000), Decimal(usd), "ok",
                                                                          (SideItem("w", "workload", "small", Decimal(usd), {}),)),))
    products = [(f"products/p{n:03d}", diff_plans(side(n, 1), side(n, 10), max_increase=Decimal(0))) for n in range(900)]
    body = products_markdown(products, "main", "the working tree")
    assert utf16_len(body) <= MAX_COMMENT_CHARS
    assert re.search(r"… and \d+ more changed product\(s\) \(comment size limit", body)
    assert "**The job fails:**" in body and re.search(r"- … and \d+ more \(`runway-deploy diff --format json` lists each\)", body)
