"""``runway-deploy diff PATH... --base REV`` over a monorepo, and a diff that never hides a
failure (issue 22): every root runway on either side (one changed, one deleted, one added),
one products document, one combined comment kept under GitHub's 65,536-character limit, an
invalid head that is never "ok", ``--max-increase`` said in the headline, region and cap
changes; a revision read from its committed tree, hostile entries refused; git's dubious-ownership
refusal as git words it. Expected figures come from ``plan --format json`` of each side.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest

from deploy_engine.cli import main
from deploy_engine.cli.formats.markdown import MAX_COMMENT_CHARS, products_markdown, utf16_len
from runway_core.plan_diff import PlanSide, SideEnvironment, SideItem, diff_plans
from test_cli_diff import edit  # noqa: F401  (also used by test_ci_action)

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
MARKER = "<!-- runway-cost-diff -->"
ZITADEL_3 = "    scale:\n      production: 3\n    uses: [main-db]\n"
ZITADEL_4 = "    scale:\n      production: 4\n    uses: [main-db]\n"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def run(*argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {})
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def product(ws: Path, name: str, rel: str) -> Path:
    dest = ws / rel
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0").replace("product: orders", f"product: {name}")
    root.write_text(text, encoding="utf-8")
    return root


def make_monorepo(ws: Path) -> str:
    """main: orders and billing; the pull request: orders' zitadel 3 -> 4 tasks, billing
    deleted, search added. Returns main's commit."""
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    product(ws, "orders", "products/orders")
    product(ws, "billing", "products/billing")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "main")
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-qb", "pr")
    edit(ws / "products" / "orders" / "runway.yaml", ZITADEL_3, ZITADEL_4)
    shutil.rmtree(ws / "products" / "billing")
    product(ws, "search", "products/search")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "orders grows, billing goes, search comes")
    return base


@pytest.fixture
def mono(tmp_path, monkeypatch) -> Path:
    ws = tmp_path / "ws"
    make_monorepo(ws)
    monkeypatch.chdir(ws)
    return ws


def plan_of(ws: Path, rev: str | None, rel: str) -> dict:
    """``plan --format json`` of ``rel`` at ``rev`` (a fresh worktree) or in the working tree."""
    if rev is None:
        rc, out, err = run("plan", str(ws / rel), "--format", "json")
    else:
        wt = ws.parent / f"wt-{rev}"
        if not wt.exists():
            git(ws, "worktree", "add", "-q", "--detach", str(wt), rev)
        rc, out, err = run("plan", str(wt / rel), "--format", "json")
    assert rc == 0, err
    return json.loads(out, parse_float=Decimal)


def test_a_monorepo_in_one_command_lists_every_product_with_its_change(mono):
    rc, out, err = run("diff", "products", "--base", "main", "--format", "json")
    assert rc == 0, err
    doc = json.loads(out, parse_float=Decimal)
    assert set(doc) == {"format_version", "products"} and doc["format_version"] == 1
    assert [(p["path"], p["product"], p["change"]) for p in doc["products"]] == [
        ("products/billing", "billing", "removed"), ("products/orders", "orders", "changed"), ("products/search", "search", "added")]
    billing, orders, search = doc["products"]
    # Removed: head total 0, every item removed; its base totals are main's plan.
    base_billing = plan_of(mono, "main", "products/billing")
    for env, planned in zip(billing["environments"], base_billing["environments"]):
        assert env["head_total_monthly_usd"] == 0 and env["head_verdict"] is None
        assert env["base_total_monthly_usd"] == planned["total_monthly_usd"] and env["delta_monthly_usd"] == -planned["total_monthly_usd"]
        assert {i["change"] for i in env["items"]} == {"removed"}
    # Added: base total 0; head totals are the working tree's plan.
    head_search = plan_of(mono, None, "products/search")
    for env, planned in zip(search["environments"], head_search["environments"]):
        assert env["base_total_monthly_usd"] == 0 and env["head_total_monthly_usd"] == planned["total_monthly_usd"]
        assert env["head_verdict"] == planned["verdict"]
    # Changed: exactly head - base of the two plans.
    base_orders, head_orders = plan_of(mono, "main", "products/orders"), plan_of(mono, None, "products/orders")
    for env, b, h in zip(orders["environments"], base_orders["environments"], head_orders["environments"]):
        assert env["delta_monthly_usd"] == h["total_monthly_usd"] - b["total_monthly_usd"]
    assert [e["delta_monthly_usd"] > 0 for e in orders["environments"]] == [False, False, True]
    assert orders["base_region"] == orders["head_region"] == "us-east-1" and billing["head_region"] is None
    # Each product entry is the one-product document (plus its path).
    rc, one, _ = run("diff", "products/orders", "--base", "main", "--format", "json")
    assert {k: v for k, v in orders.items() if k != "path"} == json.loads(one, parse_float=Decimal)
    # --env keeps each product's change (an added product stays added).
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "json", "--env", "production")
    assert [(p["change"], [e["name"] for e in p["environments"]]) for p in json.loads(out)["products"]] == [
        ("removed", ["production"]), ("changed", ["production"]), ("added", ["production"])]
    # Several PATHs are the same monorepo; the deleted product alone is `removed`, not "added".
    rc, out, _ = run("diff", "products/orders", "products/billing", "products/search", "--base", "main", "--format", "json")
    assert [p["change"] for p in json.loads(out)["products"]] == ["removed", "changed", "added"]
    rc, out, err = run("diff", "products/billing", "--base", "main", "--format", "json")
    assert rc == 0 and json.loads(out)["change"] == "removed" and "counts as removed" in err
    # A PATH on neither side is a typo, never silently nothing: exit 3 naming it.
    rc, _, err = run("diff", "products", "prodcts/orders", "--base", "main", "--format", "json")
    assert rc == 3 and "prodcts/orders: no such file or folder, in the working tree or at main" in err
    rc, _, err = run("diff", "products", "--base", "no-such-rev")
    assert rc == 3 and "unknown revision 'no-such-rev'" in err


def test_one_combined_comment_with_a_table_and_a_details_block_per_changed_product(mono):
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown")
    assert rc == 0
    assert out.startswith(MARKER + "\n### Cost change of 3 products (1 changed, 1 added, 1 removed)\n")
    assert out.count(MARKER) == 1 and out.count("<details>") == 3 and out.count("</details>") == 3
    table = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")]
    assert table[0] == ["product", "change", "dev", "staging", "production"]
    rows = {r[0]: r[1:] for r in table[1:]}
    assert rows["billing (`products/billing`)"] == ["removed", "−$126.88 removed", "−$258.11 removed", "−$828.03 removed"]
    assert rows["orders (`products/orders`)"][:3] == ["changed", "±$0.00 ok", "±$0.00 ok"]
    assert rows["orders (`products/orders`)"][3].startswith("+$") and rows["orders (`products/orders`)"][3].endswith(" ok")
    assert rows["search (`products/search`)"] == ["added", "+$126.88 ok", "+$258.11 ok", "+$828.03 ok"]
    assert "product removed: every item is removed" in out and "product added: every item is new" in out
    billing = out.split("<summary><b>billing</b>", 1)[1].split("</details>", 1)[0]
    assert "% of the" not in billing  # no cap bar for an environment that is gone
    assert "tasks 3 → 4" in out
    # --comment-tag: a distinct marker for another job's comment.
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown", "--comment-tag", "eu-products")
    assert out.startswith("<!-- runway-cost-diff:eu-products -->\n") and MARKER not in out
    rc, _, err = run("diff", "products", "--base", "main", "--comment-tag", "x-->y")
    assert rc == 64 and "--comment-tag" in err


def test_skip_unchanged_prints_nothing_when_no_cost_changed(mono):
    git(mono, "commit", "-q", "--allow-empty", "-m", "nothing")
    rc, out, _ = run("diff", "products", "--base", "HEAD", "--format", "markdown", "--skip-unchanged")
    assert rc == 0 and out == ""
    rc, out, _ = run("diff", "products", "--base", "HEAD", "--format", "json", "--skip-unchanged")
    assert json.loads(out) == {"format_version": 1, "products": []}
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "json", "--skip-unchanged")
    assert [p["change"] for p in json.loads(out)["products"]] == ["removed", "changed", "added"]
    rc, out, _ = run("diff", "products/orders", "--base", "HEAD", "--skip-unchanged")
    assert rc == 0 and out == ""
    # A failure is never skipped: unchanged, but over its cap.
    edit(mono / "products" / "orders" / "runway.yaml", "      monthly: 2500\n", "      monthly: 100\n")
    git(mono, "commit", "-qam", "a cap below the estimate")
    rc, out, _ = run("diff", "products/orders", "--base", "HEAD", "--format", "markdown", "--skip-unchanged")
    assert rc == 2 and "OVER THE CAP (refused)" in out


def test_a_broken_head_is_never_ok_and_nothing_unpriced_counts_as_zero_silently(mono):
    edit(mono / "products" / "orders" / "runway.yaml", "      production: large\n\n  order-events:", "      production: hugeee\n\n  order-events:")
    rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", "json")
    doc = json.loads(out)
    assert rc == 1 and doc["head_errors"] == 1
    assert {e["head_verdict"] for e in doc["environments"]} == {"invalid"}
    production = doc["environments"][2]
    assert production["not_estimated"] == ["main-db"]
    assert next(i for i in production["items"] if i["name"] == "main-db")["head_estimated"] is False
    for fmt in ("text", "markdown", "github"):
        rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", fmt)
        assert rc == 1
        assert "head has 1 error" in out and "lower bound" in out and "not estimated" in out, fmt
        assert "— ok" not in out and "— **ok**" not in out, fmt
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown")
    assert rc == 1 and "**The job fails:**" in out and "**orders** (`products/orders`): head has 1 error(s)" in out


def test_max_increase_exceeded_is_said_in_every_format(mono):
    rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", "json", "--max-increase", "10")
    doc = json.loads(out, parse_float=Decimal)
    assert rc == 2
    assert [e["max_increase_exceeded"] for e in doc["environments"]] == [False, False, True]
    over = doc["environments"][2]["delta_monthly_usd"] - 10
    for fmt in ("text", "markdown"):
        rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", fmt, "--max-increase", "10")
        assert rc == 2 and f"OVER --max-increase $10.00 by ${over:,.2f} (refused)" in out, out
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown", "--max-increase", "10")
    assert rc == 2 and "**The job fails:**" in out and "over --max-increase" in out


def test_region_and_cap_changes_are_in_the_headline(mono):
    root = mono / "products" / "orders" / "runway.yaml"
    edit(root, "region: us-east-1\n", "region: eu-west-1\n")
    edit(root, "      monthly: 2500\n", "      monthly: 3000\n")
    rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", "json")
    doc = json.loads(out)
    assert (doc["base_region"], doc["head_region"]) == ("us-east-1", "eu-west-1")
    assert doc["environments"][2]["base_cap_monthly_usd"] == 2500 and doc["environments"][2]["cap_monthly_usd"] == 3000
    rc, out, _ = run("diff", "products/orders", "--base", "main", "--format", "markdown")
    assert "region us-east-1 → eu-west-1: every price is the new region's" in out
    assert "cap $2,500.00 → $3,000.00" in out
    # The combined comment says both above the folded details.
    rc, out, _ = run("diff", "products", "--base", "main", "--format", "markdown")
    top = out.split("<details>", 1)[0]
    assert "- **orders**: region us-east-1 → eu-west-1" in top and "- **orders** production: cap $2,500.00 → $3,000.00" in top


def _side(n: int, tasks: int) -> PlanSide:
    items = tuple(SideItem(f"worker-{k:03d}", "workload", "medium", Decimal(tasks * 10 + k) / 100, {"tasks": tasks}) for k in range(40))
    envs = tuple(SideEnvironment(env, Decimal(5000), sum((i.monthly_usd for i in items), Decimal(0)), "ok", items)
                 for env in ("dev", "staging", "production"))
    return PlanSide(f"product-{n:03d}", "us-east-1", envs)


def test_a_300_product_change_stays_under_githubs_comment_limit():
    products = [(f"products/p{n:03d}", diff_plans(_side(n, 2), _side(n, 3 + n % 2), max_increase=Decimal("0") if n == 299 else None))
                for n in range(300)]
    body = products_markdown(products, "main", "the working tree")
    assert utf16_len(body) <= MAX_COMMENT_CHARS
    assert body.startswith(MARKER + "\n### Cost change of 300 products (300 changed)")
    assert "Left out to stay under GitHub's 65,536-character comment limit: the details of " in body
    # The one failure is said at the top, whatever was folded.
    failing = body.split("**The job fails:**", 1)[1].split("| product", 1)[0]
    assert "**product-299**" in failing and "OVER --max-increase $0.00 by" in failing
    # Nothing is cut from the top: every product's name is still in the comment.
    assert all(f"product-{n:03d}" in body for n in range(300))
    # A smaller one is whole.
    small = products_markdown(products[:3], "main", "the working tree")
    assert "Left out" not in small and small.count("worker-039") == 9


def test_one_products_comment_stays_under_githubs_comment_limit():
    # Round 5 A07: `diff PATH --format markdown` of one product (diff_markdown) had no limit:
    # 1,500 changed items made a body GitHub's API refuses ("Body is too long (maximum is 65536
    # characters)"). The headlines, which carry every verdict, stay; the tables are cut and counted.
    from deploy_engine.cli.formats.markdown import diff_markdown
    def side(tasks: int, n: int = 600) -> PlanSide:
        items = tuple(SideItem(f"worker-{k:03d}", "workload", "medium", Decimal(tasks * 10 + k) / 100, {"tasks": tasks}) for k in range(n))
        envs = tuple(SideEnvironment(env, Decimal(5000), sum((i.monthly_usd for i in items), Decimal(0)), "ok", items)
                     for env in ("dev", "staging", "production"))
        return PlanSide("orders", "us-east-1", envs)

    diff = diff_plans(side(2), side(3), max_increase=Decimal("0"))
    body = diff_markdown(diff, "main", "the working tree")
    assert utf16_len(body) <= MAX_COMMENT_CHARS
    assert "OVER --max-increase $0.00 by" in body
    assert "more changed item(s) (comment size limit; `runway-deploy diff --format json` lists them)." in body
    whole = diff_markdown(diff, "main", "the working tree", limit=10**9)
    assert utf16_len(whole) > MAX_COMMENT_CHARS and "comment size limit" not in whole
    small = diff_markdown(diff_plans(side(2, 40), side(3, 40)), "main", "the working tree")
    assert "comment size limit" not in small


def _hostile_commit(repo: Path, entry: str, mode: str, content: bytes) -> None:
    """A commit whose ``products/orders`` tree also holds ``entry`` (a name git's index would
    refuse: ``..``; or a symlink, mode 120000, whose target is ``content``), made with
    ``git mktree``/``commit-tree`` as a hostile pusher would; HEAD moves to it."""
    def plumb(*args: str, stdin: bytes = b"") -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(repo), *args],
                              input=stdin, check=True, capture_output=True).stdout.decode().strip()

    blob = plumb("hash-object", "-w", "--stdin", stdin=content)
    orders = plumb("rev-parse", "HEAD:products/orders")
    listing = plumb("ls-tree", orders) + f"\n{mode} blob {blob}\t{entry}\n"
    new_orders = plumb("mktree", stdin=listing.encode())
    top_products = plumb("ls-tree", "HEAD:products").replace(orders, new_orders)
    products = plumb("mktree", stdin=(top_products + "\n").encode())
    top = plumb("ls-tree", "HEAD").replace(plumb("rev-parse", "HEAD:products"), products)
    tree = plumb("mktree", stdin=(top + "\n").encode())
    commit = plumb("commit-tree", tree, "-p", "HEAD", "-m", "hostile")
    plumb("update-ref", "HEAD", commit)


@pytest.mark.parametrize("entry, mode, content, why", [
    ("a", "120000", b"/etc", "a symlink that leaves"),
    ("a", "120000", b"../../../etc", "a symlink that leaves"),
    ("..", "100644", b"runway: 1\n", "its path leaves"),
    ("a", "120000", b"x" * 5000, "a symlink over 4,096 bytes"),
])
def test_a_tree_that_leaves_the_folder_is_refused_and_nothing_is_written(mono, tmp_path, entry, mode, content, why):
    """A revision is input from whoever pushed it: git's own checkout refuses a `..` entry and
    never writes through a link (read-tree's verify_path), and so does this reader, before it
    writes a single file (the tarfile `data` filter's rules, PEP 706, which the `git archive`
    form applied)."""
    _hostile_commit(mono, entry, mode, content)
    before = set(Path(tempfile.gettempdir()).glob("runway-diff-*"))
    rc, _, err = run("diff", "HEAD:products/orders", "products/orders")
    assert rc == 3 and why in err and "never followed" in err, err
    assert set(Path(tempfile.gettempdir()).glob("runway-diff-*")) == before  # the temporary folder removed


def test_every_git_form_of_diff_keeps_a_link_inside_the_folder(mono):
    (mono / "products" / "orders" / "services" / "inner").symlink_to("checkout")  # a link inside the folder is kept
    git(mono, "add", "-A")
    git(mono, "commit", "-qm", "inner link")
    assert run("diff", "products", "--base", "HEAD", "--format", "json")[0] == 0
    assert run("diff", "products/orders", "--base", "main")[0] == 0
    assert run("diff", "main:products/orders", "pr:products/orders")[0] == 0
    # billing is gone at pr: a head REV:PATH that does not exist is exit 3, never "removed" (ninth
    # adversary C7); the deleted product's diff is PATH --base REV, PATH gone.
    rc, _, err = run("diff", "main:products/billing", "pr:products/billing", "--format", "json")
    assert rc == 3 and "no such file or folder at pr" in err, err
    assert run("diff", "products/billing", "--base", "main", "--format", "json")[0] == 0


def test_the_base_is_the_committed_tree_whatever_its_gitattributes_say(mono):
    """`git archive` applies the tree's .gitattributes (gitattributes(5), "Creating an
    archive": `export-ignore` leaves a path out, `export-subst` expands `$Format:…$`): a root
    runway marked export-ignore was "absent" at the base, every item added (third adversary,
    round 5). The base is the tree as committed."""
    rc, expected, err = run("diff", "products", "--base", "HEAD", "--format", "json")
    assert rc == 0, err
    (mono / ".gitattributes").write_text("products/orders/runway.yaml export-ignore\nproducts/billing/** export-ignore\n"
                                         "products/** export-subst\n")
    git(mono, "add", "-A")
    git(mono, "commit", "-qm", "attributes")
    rc, out, err = run("diff", "products", "--base", "HEAD", "--format", "json")
    assert rc == 0, err
    assert json.loads(out) == json.loads(expected)
    assert all(i["change"] == "unchanged" for p in json.loads(out)["products"] for e in p["environments"] for i in e["items"])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown the checkout to another uid")
def test_dubious_ownership_is_reported_as_git_says_it_with_the_safe_directory_fix(mono, tmp_path, monkeypatch):
    # git >= 2.35.2 refuses a repository owned by another uid (setup.c, ensure_valid_ownership):
    # "fatal: detected dubious ownership in repository at '<dir>'" and the safe.directory fix.
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["chown", "-R", "12345:12345", str(mono)], check=True)
    rc, _, err = run("diff", "products", "--base", "main")
    assert rc == 3, err
    assert "detected dubious ownership in repository at" in err
    assert f"git config --global --add safe.directory {mono}" in err and "not in a git repository" not in err


def test_a_write_failing_midway_ends_git_at_once_and_is_exit_3(mono):
    """All blobs are asked of `git cat-file --batch` at once (one round trip); a write that
    fails midway must not leave git blocked on a pipe nobody reads and the feeding thread
    blocked on git. The failure is real: RLIMIT_FSIZE of 1 MiB (CPython ignores SIGXFSZ, so
    write() fails with EFBIG, "File too large", as a full disk fails with ENOSPC) and a 2 MiB
    asset among 400 of 256 KiB (~100 MiB of answers, far over a pipe's 64 KiB). git is ended,
    the run is exit 3 naming the cause; a hang would meet the subprocess timeout."""
    import resource
    import sys

    assets = mono / "products" / "orders" / "assets"
    assets.mkdir()
    for k in range(400):
        (assets / f"a{k:03d}.bin").write_bytes(b"\0" * (2 * 1048576 if k == 5 else 262144))
    git(mono, "add", "-A")
    git(mono, "commit", "-qm", "assets")

    def one_mib_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1048576, 1048576))

    got = subprocess.run([sys.executable, "-m", "deploy_engine", "diff", "products/orders", "--base", "HEAD"], cwd=mono,
                         capture_output=True, text=True, preexec_fn=one_mib_files, timeout=120)
    assert got.returncode == 3 and "File too large" in got.stderr, (got.returncode, got.stderr[-500:])


def test_a_tree_1200_folders_deep_at_the_base_is_written_never_a_crash(mono):
    """A revision holding a folder 1,200 levels deep (a legal path; made with git's plumbing
    as a hostile push would): its files are written under the temporary folder by
    deploy_engine.folders.make_folders, never os.makedirs's recursion (exit 70)."""
    def plumb(*args: str, stdin: bytes = b"") -> str:
        return subprocess.run(["git", "-C", str(mono), *args], input=stdin, check=True, capture_output=True).stdout.decode().strip()

    blob = plumb("hash-object", "-w", "--stdin", stdin=b"deep\n")
    tree = plumb("mktree", stdin=f"100644 blob {blob}\tleaf.txt\n".encode())
    for _ in range(1200):
        tree = plumb("mktree", stdin=f"040000 tree {tree}\tb\n".encode())
    orders = plumb("rev-parse", "HEAD:products/orders")
    new_orders = plumb("mktree", stdin=(plumb("ls-tree", orders) + f"\n040000 tree {tree}\tdeep\n").encode())
    products = plumb("mktree", stdin=(plumb("ls-tree", "HEAD:products").replace(orders, new_orders) + "\n").encode())
    top = plumb("mktree", stdin=(plumb("ls-tree", "HEAD").replace(plumb("rev-parse", "HEAD:products"), products) + "\n").encode())
    commit = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(mono), "commit-tree", top,
                             "-p", "HEAD", "-m", "deep"], check=True, capture_output=True).stdout.decode().strip()
    rc, _, err = run("diff", f"{commit}:products/orders", "HEAD:products/orders")
    assert rc in (0, 1), err
    assert "internal error" not in err
