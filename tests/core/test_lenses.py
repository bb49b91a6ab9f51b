"""Pure tests of the cost-in-view queries (runway_core.ide.lenses) and their baselines
(runway_core.baseline), including a real git repository made by the test.

No server (docs/architecture.md §2). Texts are read from examples/orders and changed in memory, or in a
temporary copy when git or the disk is involved; examples/ is never written.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.baseline import Baselines, BaselineStore, cost_deltas, plans_of, run_git
from runway_core.ide._deltas import delta_parts
from runway_core.ide.hover import hover_at
from runway_core.ide.lenses import Lens, code_lenses, inlay_hints
from runway_core.money import MINUS, signed_usd, whole_usd
from runway_core.positions import Position, Range

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ORDERS = EXAMPLES / "orders"
ROOT_TEXT = (ORDERS / "runway.yaml").read_text(encoding="utf-8")
HAS_GIT = shutil.which("git") is not None


def analysis_of(catalog, root_text: str = ROOT_TEXT, folder: Path = ORDERS):
    """The orders analysis with the root runway's text replaced by ``root_text``."""
    root = str(folder / "runway.yaml")

    def read(path: str) -> str:
        if os.path.abspath(path) == os.path.abspath(root):
            return root_text
        return Path(path).read_text(encoding="utf-8")

    return analyze(root, catalog, read), root


def at_line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def titles_at(lenses: list[Lens], line: int) -> list[str]:
    return [lens.title for lens in lenses if lens.range.start.line == line]


# --- money formatting -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "text"),
    # One rule: cents under $10, whole dollars (half up) from $10.
    [("36.28", "$36.28"), ("139.47", "$139"), ("325.81", "$326"), ("36.50", "$36.50"), ("0.50", "$0.50"), ("0.40", "$0.40"), ("7.21", "$7.21"),
     ("9.99", "$9.99"), ("9.995", "$10.00"), ("10", "$10.00"), ("99.995", "$100"), ("100", "$100"), ("0", "$0.00"), ("1234.5", "$1,235")],
)
def test_whole_dollars_round_half_up(amount, text):
    assert whole_usd(Decimal(amount)) == text


def test_signed_deltas_use_a_real_minus_sign():
    assert signed_usd(Decimal("103.19")) == "+$103.19"
    assert signed_usd(Decimal("-3")) == f"{MINUS}$3.00" == "−$3.00"
    assert signed_usd(Decimal("0.004")) == "±$0.00"


# --- code lenses ----------------------------------------------------------------------------


def test_environment_lenses_show_total_cap_and_share(catalog):
    an, root = analysis_of(catalog)
    lenses = code_lenses(an, root)
    assert titles_at(lenses, at_line(ROOT_TEXT, "  dev:")) == ["dev $126.88 / $150 · 85%"]
    assert titles_at(lenses, at_line(ROOT_TEXT, "  staging:")) == ["staging $258.11 / $500 · 52%"]
    assert titles_at(lenses, at_line(ROOT_TEXT, "  production:")) == ["production $828.03 / $2,500 · 33%"]
    dev = next(lens for lens in lenses if lens.title.startswith("dev $126.88"))
    line = at_line(ROOT_TEXT, "  dev:")
    assert dev.range == Range(Position(line, 2), Position(line, 5))
    assert dev.data == {"env": "dev"}
    assert "default cap" in dev.tooltip


def test_resource_lenses_show_whole_dollars_per_environment_and_consumers(catalog):
    an, root = analysis_of(catalog)
    lenses = code_lenses(an, root)
    line = at_line(ROOT_TEXT, "  main-db:")
    assert titles_at(lenses, line) == ["dev $36.28 · staging $139 · production $326", "used by 4"]
    used = [lens for lens in lenses if lens.range.start.line == line][1]
    assert used.tooltip == "metabase, zitadel, checkout, billing"
    assert used.range == Range(Position(line, 2), Position(line, 9))
    # Under a dollar is not free; 50 cents rounds up.
    assert titles_at(lenses, at_line(ROOT_TEXT, "  order-events:")) == ["dev $0.50 · staging $0.50 · production $0.50", "used by 1"]
    # A workload nobody uses has no "unused" lens; its scale counts (3 tasks in production).
    assert titles_at(lenses, at_line(ROOT_TEXT, "  pdf-renderer:")) == ["dev $32.02 · staging $32.02 · production $96.04"]


def test_implicit_shared_resources_have_their_lens_on_the_first_shared_key(catalog):
    an, root = analysis_of(catalog)
    lenses = code_lenses(an, root)
    cache_line = at_line(ROOT_TEXT, "      cache: small")  # dev's, the first
    assert titles_at(lenses, cache_line) == ["shared-cache: dev $9.34 · staging $37.38 · production $185", "used by 1"]
    assert titles_at(lenses, at_line(ROOT_TEXT, "      cache: medium")) == []  # only once
    assert titles_at(lenses, at_line(ROOT_TEXT, "      queue: small")) == ["shared-queue: dev $0.40 · staging $0.40 · production $10.00", "used by 2"]


def test_unused_resource_no_cap_and_over_cap_variants(catalog):
    text = ROOT_TEXT.replace("  dev:                      # default cap: $150/month\n", "  dev:\n    limits:\n      monthly: 100\n")
    text = text.replace("    limits:\n      monthly: 500\n", "    limits:\n      monthly: null\n")
    text = text.replace("      monthly: 2500\n", "      monthly: 2500.5\n")
    text = text.replace("    uses: [invoices]\n", "")
    an, root = analysis_of(catalog, text)
    lenses = code_lenses(an, root)
    assert titles_at(lenses, at_line(text, "  dev:")) == ["dev $126.88 / $100 · 127% · over cap by $26.88"]
    assert titles_at(lenses, at_line(text, "  staging:")) == ["staging $258.11 · no cap"]
    assert titles_at(lenses, at_line(text, "  production:")) == ["production $828.03 / $2,500.50 · 33%"]
    # pdf-renderer no longer uses invoices; the billing member still does.
    assert titles_at(lenses, at_line(text, "  invoices:"))[1] == "used by 1"
    text2 = text.replace("  order-events:\n    kind: topic\n", "  order-events:\n    kind: topic\n  spare:\n    kind: queue\n")
    an2, root2 = analysis_of(catalog, text2)
    assert titles_at(code_lenses(an2, root2), at_line(text2, "  spare:")) == ["dev $0.40 · staging $0.40 · production $0.40", "unused"]


def test_default_environments_show_on_the_product_key(catalog, tmp_path):
    text = "runway: 1\nproduct: shop\nresources:\n  db:\n    kind: postgres\n"
    (tmp_path / "runway.yaml").write_text(text, encoding="utf-8")
    an = analyze(str(tmp_path / "runway.yaml"), catalog)
    lenses = code_lenses(an, str(tmp_path / "runway.yaml"))
    assert titles_at(lenses, 1) == ["dev $36.28 / $150 · 24%", "staging $36.28 / $500 · 7%", "production $36.28 · no cap"]
    assert titles_at(lenses, 3) == ["dev $36.28 · staging $36.28 · production $36.28", "unused"]


def test_member_lenses_show_what_requires_costs_and_none_in_broken_runways_or_unknown_files(catalog, tmp_path):
    an, root = analysis_of(catalog)
    checkout = str(ORDERS / "services" / "checkout" / "runway.yaml")
    assert [(lens.range.start.line, lens.title) for lens in code_lenses(an, checkout)] == [
        (3, "shared-queue: dev $0.40 · staging $0.40 · production $10.00"), (3, "used by 2"),
        (3, "shared-cache: dev $9.34 · staging $37.38 · production $185"), (3, "used by 1"),
    ]
    assert [h.label for h in inlay_hints(an, checkout, env="production")] == ["≈ $10.00/mo in production", "≈ $184.54/mo in production"]
    assert code_lenses(an, str(tmp_path / "elsewhere.yaml")) == []
    broken, root2 = analysis_of(catalog, "runway: 1\nproduct: [\n")
    assert code_lenses(broken, root2) == [] and inlay_hints(broken, root2) == []


# --- deltas ---------------------------------------------------------------------------------


STAGING_LARGE = ROOT_TEXT.replace("      staging: medium\n      production: large\n", "      staging: large\n      production: large\n")


def test_cost_deltas_per_environment_and_item(catalog):
    now, _ = analysis_of(catalog, STAGING_LARGE)
    before, _ = analysis_of(catalog)
    deltas = cost_deltas(now.plans, before.plans)
    assert list(deltas) == ["dev", "staging", "production"]
    assert deltas["staging"].total == Decimal("186.34") == Decimal("325.81") - Decimal("139.47")
    assert deltas["staging"].items["main-db"] == Decimal("186.34")
    assert deltas["staging"].items["zitadel"] == 0
    assert deltas["dev"].total == 0
    # An environment on one side only counts in full.
    only_dev = {"dev": before.plans["dev"]}
    assert cost_deltas(only_dev, {})["dev"].total == Decimal("126.88")
    gone = cost_deltas({}, only_dev)["dev"]
    assert gone.total == Decimal("-126.88") and gone.current is None and gone.baseline == Decimal("126.88")


def test_environment_lens_shows_deltas_vs_head_and_since_save(catalog):
    now, root = analysis_of(catalog, STAGING_LARGE)
    head, _ = analysis_of(catalog)
    # As saved, staging's shared cache was large: the edit since (back to medium) saved $147.16.
    saved, _ = analysis_of(catalog, STAGING_LARGE.replace("      cache: medium\n", "      cache: large\n"))
    assert now.plans["staging"].total - saved.plans["staging"].total == Decimal("37.38") - Decimal("184.54") == Decimal("-147.16")
    lenses = code_lenses(now, root, Baselines(saved=saved.plans, head=head.plans))
    title = titles_at(lenses, at_line(STAGING_LARGE, "  staging:"))[0]
    assert title == "staging $444.45 / $500 · 89% · +$186.34/mo vs HEAD · −$147.16/mo since save"
    # No change: nothing added to the lens.
    assert titles_at(lenses, at_line(STAGING_LARGE, "  dev:")) == ["dev $126.88 / $150 · 85%"]
    assert delta_parts("dev", now.plans, Baselines(head=head.plans), keep_zero=True) == ["no change vs HEAD"]


def test_environment_hover_shows_the_delta_after_its_total(catalog):
    now, root = analysis_of(catalog, STAGING_LARGE)
    head, _ = analysis_of(catalog)
    line = at_line(STAGING_LARGE, "  staging:")
    h = hover_at(now, root, Position(line, 4), baseline=Baselines(head=head.plans))
    lines = h.markdown.split("\n")
    total = next(i for i, t in enumerate(lines) if t.startswith("**$444.45 of $500.00 cap"))
    assert lines[total + 1 : total + 3] == ["", "+$186.34/mo vs HEAD"]
    # Also over `limits.monthly`; not over a resource; unchanged without a baseline.
    cap_line = at_line(STAGING_LARGE, "monthly: 500")
    assert "+$186.34/mo vs HEAD" in hover_at(now, root, Position(cap_line, 16), baseline=Baselines(head=head.plans)).markdown
    db_line = at_line(STAGING_LARGE, "  main-db:")
    assert "vs HEAD" not in hover_at(now, root, Position(db_line, 4), baseline=Baselines(head=head.plans)).markdown
    assert "vs HEAD" not in hover_at(now, root, Position(line, 4)).markdown


# --- inlay hints ----------------------------------------------------------------------------


def test_inlay_hints_after_sizes_shared_sizes_and_caps(catalog):
    an, root = analysis_of(catalog)
    hints = inlay_hints(an, root)
    lines = ROOT_TEXT.splitlines()
    by_line = {h.position.line: h for h in hints}
    staging = at_line(ROOT_TEXT, "      staging: medium")
    assert by_line[staging].label == "≈ $139.47/mo"
    assert by_line[staging].position == Position(staging, len(lines[staging]))
    assert by_line[staging].tooltip == "main-db in staging: medium, $139.47 per month"
    assert by_line[at_line(ROOT_TEXT, "      production: large")].label == "≈ $325.81/mo"
    assert by_line[at_line(ROOT_TEXT, "      cache: small")].label == "≈ $9.34/mo"
    assert by_line[at_line(ROOT_TEXT, "monthly: 500")].label == "≈ 52% used"
    assert by_line[at_line(ROOT_TEXT, "monthly: 2500")].label == "≈ 33% used"
    # A single size names its environment: the first one unless chosen.
    single = at_line(ROOT_TEXT, "    size: medium")
    assert by_line[single].label == "≈ $32.02/mo in dev"
    chosen = {h.position.line: h for h in inlay_hints(an, root, env="production")}
    assert chosen[single].label == "≈ $96.04/mo in production"
    assert {h.position.line: h for h in inlay_hints(an, root, env="nope")}[single].label == "≈ $32.02/mo in dev"
    # Workload tooltips say the task count (metabase: `scale: {production: 2}`).
    metabase = at_line(ROOT_TEXT, "      MB_DB_TYPE") + 3
    assert by_line[metabase].tooltip == "metabase in production: medium, 2 tasks, $64.03 per month"


def test_inlay_hints_in_a_range_only(catalog):
    an, root = analysis_of(catalog)
    first = at_line(ROOT_TEXT, "resources:")
    last = at_line(ROOT_TEXT, "workloads:")
    hints = inlay_hints(an, root, Range(Position(first, 0), Position(last, 0)))
    assert [h.label for h in hints] == ["≈ $139.47/mo", "≈ $325.81/mo", "≈ $20.50/mo"]


def test_inlay_hints_skip_unknown_sizes_undeclared_envs_aliases_and_members(catalog):
    text = (
        "runway: 1\nproduct: shop\n"
        "environments:\n  dev: {}\n"
        "resources:\n"
        "  a: {kind: postgres, size: &s {dev: huge}}\n"
        "  b: {kind: postgres, size: {dev: small, qa: small}}\n"
        "  c: {kind: postgres, size: *s}\n"
    )
    an, root = analysis_of(catalog, text)
    hints = inlay_hints(an, root)
    assert [(h.position.line, h.label) for h in hints] == [(6, "≈ $36.28/mo")]
    line = text.splitlines()[6]
    assert hints[0].position.character == line.index("small") + len("small")
    assert inlay_hints(an, str(ORDERS / "services" / "billing" / "runway.yaml")) == []


# --- baselines: saved (disk) and git HEAD ---------------------------------------------------


@pytest.fixture
def orders_copy(tmp_path: Path) -> Path:
    dst = tmp_path.resolve() / "orders"
    shutil.copytree(ORDERS, dst)
    return dst


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout


def test_saved_baseline_follows_the_disk(catalog, orders_copy):
    store = BaselineStore()
    root = str(orders_copy / "runway.yaml")
    first = store.saved(root, catalog)
    assert first["staging"].total == Decimal("258.11")
    assert store.saved(root, catalog) is first  # cached while the files are unchanged
    (orders_copy / "runway.yaml").write_text(STAGING_LARGE, encoding="utf-8")
    assert store.saved(root, catalog)["staging"].total == Decimal("444.45")
    # A member file counts too: checkout stops requiring the cache.
    checkout = orders_copy / "services" / "checkout" / "runway.yaml"
    checkout.write_text(checkout.read_text().replace("requires: [queue, cache]", "requires: [queue]"))
    assert store.saved(root, catalog)["dev"].item("shared-cache") is not None  # still in `shared:`
    assert store.saved(root, catalog)["dev"].item("shared-cache").consumers == ()


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_head_baseline_from_a_real_git_repository(catalog, orders_copy):
    repo = orders_copy.parent
    root = orders_copy / "runway.yaml"
    store = BaselineStore()
    assert store.head(str(root), catalog) is None  # not a repository yet
    git(repo, "init", "-q")
    store.clear()
    assert store.head(str(root), catalog) is None  # no commit yet
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "orders")
    store.clear()
    # Edit on disk (a save): the HEAD baseline keeps the committed text.
    root.write_text(STAGING_LARGE, encoding="utf-8")
    b = store.baselines(str(root), catalog)
    assert b.head["staging"].total == Decimal("258.11")
    assert b.saved["staging"].total == Decimal("444.45")
    an = analyze(str(root), catalog)
    lenses = code_lenses(an, str(root), b)
    assert titles_at(lenses, at_line(STAGING_LARGE, "  staging:")) == ["staging $444.45 / $500 · 89% · +$186.34/mo vs HEAD"]
    # Commit the edit: HEAD moves, the store notices (no clear) and the delta is gone.
    git(repo, "commit", "-q", "-am", "bigger staging db")
    b2 = store.baselines(str(root), catalog)
    assert b2.head["staging"].total == Decimal("444.45")
    assert titles_at(code_lenses(an, str(root), b2), at_line(STAGING_LARGE, "  staging:")) == ["staging $444.45 / $500 · 89%"]


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_head_baseline_absent_for_an_uncommitted_runway_and_members_not_in_head(catalog, tmp_path):
    repo = tmp_path.resolve()
    git(repo, "init", "-q")
    (repo / "README").write_text("x\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "first")
    shutil.copytree(ORDERS, repo / "orders")
    store = BaselineStore()
    assert store.head(str(repo / "orders" / "runway.yaml"), catalog) is None  # untracked root
    # The root committed without its members: they are simply not counted at HEAD.
    git(repo, "add", "orders/runway.yaml")
    git(repo, "commit", "-q", "-m", "root only")
    head = store.head(str(repo / "orders" / "runway.yaml"), catalog)
    assert head is not None and head["dev"].item("main-db").consumers == ("metabase", "zitadel")


def test_git_is_run_through_the_injected_runner_and_cached_by_commit(catalog, orders_copy):
    commit = "a" * 40
    calls: list[tuple[str, ...]] = []
    text = (orders_copy / "runway.yaml").read_text()

    def runner(args, cwd):
        calls.append(tuple(args))
        if args[0] == "rev-parse" and "--show-toplevel" in args:
            return 0, f"true\n{orders_copy}\n{orders_copy / '.git'}\n.git\n".encode()
        if args[0] == "rev-parse":
            return 0, (commit + "\n").encode()
        if args[0] == "show" and args[-1] == f"{commit}:runway.yaml":
            return 0, STAGING_LARGE.encode()
        if args[0] == "show":
            path = args[-1].split(":", 1)[1]
            if not (orders_copy / path).is_file():
                return 128, b""  # git show of a path the commit lacks: "fatal: path ... does not exist"
            return 0, (orders_copy / path).read_bytes()
        return 1, b""

    store = BaselineStore(runner=runner)
    head = store.head(str(orders_copy / "runway.yaml"), catalog)
    assert head["staging"].total == Decimal("444.45")
    shows = [c for c in calls if c[0] == "show"]
    assert shows[0] == ("show", "--no-textconv", f"{commit}:runway.yaml")
    # root + two members + the usage file beside the root (absent at HEAD), each once
    assert len(shows) == 4
    assert shows[-1] == ("show", "--no-textconv", f"{commit}:runway.usage.yaml")
    n = len(calls)
    assert store.head(str(orders_copy / "runway.yaml"), catalog) is head
    assert len(calls) == n  # git's files unchanged: no git at all
    assert (orders_copy / "runway.yaml").read_text() == text


@pytest.mark.parametrize(
    "runner",
    [
        lambda args, cwd: (-1, b""),  # no git executable
        lambda args, cwd: (128, b""),  # not a repository
        lambda args, cwd: (_ for _ in ()).throw(RuntimeError("broken runner")),
    ],
    ids=["no-git", "not-a-repo", "runner-raises"],
)
def test_no_git_means_no_head_baseline_and_no_error(catalog, orders_copy, runner):
    store = BaselineStore(runner=runner)
    b = store.baselines(str(orders_copy / "runway.yaml"), catalog)
    assert b.head is None and b.saved is not None


def test_run_git_never_raises(tmp_path):
    code, out = run_git(["rev-parse", "--is-inside-work-tree"], str(tmp_path / "missing-folder"))
    assert code != 0 and isinstance(out, bytes)


def test_plans_of_an_unplannable_runway_is_none(catalog, tmp_path):
    assert plans_of(str(tmp_path / "runway.yaml"), catalog, lambda p: "runway: 1\nproduct: [\n") is None
    assert plans_of(str(tmp_path / "runway.yaml"), catalog, lambda p: (_ for _ in ()).throw(FileNotFoundError(p))) is None
