"""Pure tests of runway_core.ide.hover.hover_at on examples/orders and on broken runways.

No server here (docs/architecture.md §2: the query is testable without one). Positions are found by
searching the example's text, so the tests say what they hover over.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.ide import hover as hover_mod
from runway_core.ide.hover import HoverResult, hover_at
from runway_core.positions import Position
from mdtables import flat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ORDERS = EXAMPLES / "orders" / "runway.yaml"
CHECKOUT = EXAMPLES / "orders" / "services" / "checkout" / "runway.yaml"
BILLING = EXAMPLES / "orders" / "services" / "billing" / "runway.yaml"


def pos_of(path: Path, line_pattern: str, needle: str, nth: int = 0) -> Position:
    """The position of ``needle`` (plus one character, inside it) on the ``nth`` line
    matching the regex ``line_pattern``."""
    hits = [(i, line) for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if re.search(line_pattern, line)]
    i, line = hits[nth]
    return Position(i, line.index(needle) + 1)


@pytest.fixture(scope="module")
def orders(catalog):
    return analyze(str(ORDERS), catalog)


def hover(an, path: Path, pos: Position) -> HoverResult:
    h = hover_at(an, str(path), pos)
    assert h is not None, f"no hover at {pos}"
    assert h.range.contains(pos)
    return h


# --- names -------------------------------------------------------------------------------------


def test_resource_name_shows_costs_side_by_side_and_consumers(orders):
    h = hover(orders, ORDERS, pos_of(ORDERS, r"^  main-db:", "main-db"))
    md = h.markdown
    assert "main-db" in md.splitlines()[0]
    assert "postgres" in md
    # One column per environment, costs on one row: dev, staging, production.
    assert "| | dev | staging | production |" in flat(md)
    assert "| monthly | $36.28 | $139.47 | $325.81 |" in flat(md)
    assert "| size | small | medium | large |" in flat(md)
    assert "metabase, zitadel, checkout, billing" in md
    assert "`MAIN_DB_URL`" in md and "`MAIN_DB_PASSWORD`" in md
    assert "`<env>:/runtime/main-db/`" in md
    # The hover range is the declaring key.
    line = ORDERS.read_text().splitlines()[h.range.start.line]
    assert line[h.range.start.character : h.range.end.character] == "main-db"


def test_uses_item_in_workload_and_member_hover_the_resource(orders):
    in_root = hover(orders, ORDERS, pos_of(ORDERS, r"uses: \[invoices\]", "invoices"))
    assert "### invoices" in in_root.markdown and "$20.50" in in_root.markdown
    in_member = hover(orders, CHECKOUT, pos_of(CHECKOUT, r"^uses:", "main-db"))
    assert "| monthly | $36.28 | $139.47 | $325.81 |" in flat(in_member.markdown)


def test_member_requires_item_hovers_the_implicit_shared_pool(orders):
    md = hover(orders, BILLING, pos_of(BILLING, r"^requires:", "queue")).markdown
    assert "### shared-queue" in md
    assert "implicit" in md
    assert "`requires: [queue]` in checkout, billing" in md
    assert "`environments.dev.shared.queue`" in md
    assert "| monthly | $0.40 | $0.40 | $10.00 |" in flat(md)
    assert "checkout, billing" in md and "`SHARED_QUEUE_URL`" in md


def test_environment_shared_key_hovers_the_implicit_pool(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^      cache: small", "cache")).markdown
    assert "### shared-cache" in md and "implicit" in md
    assert "| monthly | $9.34 | $37.38 | $184.54 |" in flat(md)


def test_workload_name_shows_tasks(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^  zitadel:", "zitadel")).markdown
    assert "| tasks | 1 | 1 | 3 |" in flat(md)
    assert "`ZITADEL_URL`" in md
    assert "- **Uses:** main-db" in md


# --- sizes ---------------------------------------------------------------------------------------


def test_size_value_shows_capacity_line_items_and_sources(orders):
    # resources.main-db.size.staging: medium
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^      staging: medium", "medium")).markdown
    assert "main-db in staging: medium, $139.47/month" in md
    assert "db.t4g.medium, Multi-AZ, 100 GB gp3" in md
    assert "| db.t4g.medium Multi-AZ, 730 h | 730 x $0.129 / instance-hour | $94.17 | secondary source [1] |" in flat(md)
    assert "1,460 x $0.015 / vCPU-hour" in md and "AWS Price List" in md
    assert "**$139.47**" in md
    # Sources are cited, and the two caveats are said.
    assert re.search(r"^\[1\] .*InvAI hosting cost comparison", md, re.M)
    assert "Free tiers are ignored" in md
    assert "not estimated" in md and "Network" in md


def test_single_size_string_covers_every_environment(orders):
    # pdf-renderer: `size: medium` for all, scale 3 in production only.
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^    size: medium", "medium")).markdown
    assert "pdf-renderer in dev, staging: medium, $32.02/month" in md
    assert "pdf-renderer in production: medium, $96.04/month" in md
    assert "1 vCPU, 2 GB memory per task, 3 tasks" in md
    assert "2,190 x $0.03238 / vCPU-hour" in md
    # Its log group: the assumption in the capacity line, both lines with unit price and source.
    assert "assumed 6 GB logs/month per task (30-day retention)" in md
    assert "| CloudWatch Logs ingestion, assumed 6 GB x 3 task(s) | 18 x $0.50 / GB | $9.00 | secondary source [3] |" in flat(md)
    assert "| CloudWatch Logs storage, assumed 18 GB kept 30 days | 18 x $0.03 / GB-month | $0.54 | secondary source [4] |" in flat(md)
    assert re.search(r"^\[3\] c3x\.dev blog 'CloudWatch Logs cost optimization'", md, re.M)


def test_shared_size_value_shows_that_environment(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^      cache: large", "large")).markdown
    assert "shared-cache in production: large, $184.54/month" in md
    assert "2 x cache.m7g.large node(s)" in md


# --- environments --------------------------------------------------------------------------------


def test_environment_key_shows_total_against_cap(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^  dev:", "dev")).markdown
    assert "$126.88 of $150.00 cap, 85%" in md
    assert "(default cap)" in md
    assert "within its cap" in md
    rows = [line for line in flat(md).splitlines() if line.startswith("| ") and "$" in line]
    assert rows[0] == "| main-db | small | $36.28 |"
    assert len(rows) == 5  # top 5 contributors
    assert md.count("not estimated") == 1


def test_limits_monthly_value_hovers_the_environment(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"monthly: 2500", "2500")).markdown
    assert "$828.03 of $2,500.00 cap, 33%" in md
    assert "(default cap)" not in md


def test_environment_over_cap_and_without_cap(tmp_path, catalog):
    f = tmp_path / "runway.yaml"
    f.write_text(
        "runway: 1\nproduct: shop\nenvironments:\n  dev:\n    limits: { monthly: 20 }\n  production: {}\n"
        "resources:\n  db:\n    kind: postgres\n"
    )
    an = analyze(str(f), catalog)
    dev = hover(an, f, pos_of(f, r"^  dev:", "dev")).markdown
    assert "$36.28 of $20.00 cap" in dev and "over its cap by $16.28" in dev and "refused" in dev
    # db is already at its smallest: no resize can fit, and the hover says how low it can go.
    assert "Even at its smallest (every item at its cheapest size, one task per workload) dev costs $36.28, over its cap by $16.28" in dev
    prod = hover(an, f, pos_of(f, r"^  production:", "production")).markdown
    assert "no cap" in prod and "environments.production.limits.monthly" in prod


def test_missing_prices_for_the_region_are_flagged(tmp_path):
    from conftest import catalog_without

    catalog = catalog_without(tmp_path / "cat", {("rds:db.m7g.large:multi-az", "eu-central-1"), ("rds:gp3:multi-az", "eu-central-1")})
    f = tmp_path / "runway.yaml"
    f.write_text("runway: 1\nproduct: shop\nregion: eu-central-1\nresources:\n  db:\n    kind: postgres\n    size: large\n")
    an = analyze(str(f), catalog)
    md = hover(an, f, pos_of(f, r"^  db:", "db")).markdown
    assert "No eu-central-1 price for" in md
    size_md = hover(an, f, pos_of(f, r"size: large", "large")).markdown
    assert "No eu-central-1 price for" in size_md


# --- key documentation ---------------------------------------------------------------------------


def test_key_doc_from_the_model_with_allowed_values(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^\s+flavor: rds", "flavor")).markdown
    assert "**resources.main-db.engine.flavor**" in md
    assert "Aurora PostgreSQL" in md
    assert "Allowed: `rds`, `aurora`" in md
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^    expose:", "expose")).markdown
    assert "Allowed: `internal`, `public`" in md
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^region:", "region")).markdown
    assert "`us-east-1`" in md and "AWS region" in md
    md = hover(orders, CHECKOUT, pos_of(CHECKOUT, r"^requires:", "requires")).markdown
    assert "shared-<kind>" in md and "`postgres`" in md


def test_plain_value_falls_back_to_its_key_doc(orders):
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^    port: 8080", "8080")).markdown
    assert "**workloads.zitadel.port**" in md and "1 to 65535" in md


def test_nothing_under_a_comment_or_blank(orders):
    text = ORDERS.read_text().splitlines()
    blank = next(i for i, line in enumerate(text) if not line.strip())
    assert hover_at(orders, str(ORDERS), Position(blank, 0)) is None
    assert hover_at(orders, str(ORDERS), Position(len(text) + 10, 0)) is None
    assert hover_at(orders, "/nowhere/runway.yaml", Position(0, 0)) is None


# --- degraded input ------------------------------------------------------------------------------

BROKEN = [
    # syntax error after some valid keys: no plans, key docs still work
    "runway: 1\nproduct: shop\nresources:\n  db:\n    kind: postgres\n    size: [small\n",
    # wrong shapes everywhere
    "runway: one\nproduct: 7\nenvironments: [dev]\nresources:\n  db: 3\n  q:\n    kind: kafka\n    size: {dev: huge}\nworkloads:\n  w:\n    uses: nope\n",
    # not a mapping
    "- a\n- b\n",
    "",
    "resources:\n  db:\n    kind: postgres\n    size:\n      nowhere: large\n",
    "environments:\n  dev:\n    limits:\n      monthly: -5\n    shared:\n      cache: gigantic\n",
]


@pytest.mark.parametrize("text", BROKEN)
def test_broken_documents_never_raise(tmp_path, catalog, text):
    f = tmp_path / "runway.yaml"
    f.write_text(text)
    an = analyze(str(f), catalog)
    lines = text.splitlines() or [""]
    for line_no, line in enumerate(lines):
        for ch in range(len(line) + 1):
            # The private entry point: hover_at would hide an exception as None.
            h = hover_mod._hover(an, str(f), Position(line_no, ch))
            assert h is None or isinstance(h.markdown, str)


def test_syntax_error_still_gives_key_docs(tmp_path, catalog):
    f = tmp_path / "runway.yaml"
    f.write_text(BROKEN[0])
    an = analyze(str(f), catalog)
    assert not an.plans
    md = hover(an, f, pos_of(f, r"kind: postgres", "kind")).markdown
    assert "**resources.db.kind**" in md and "`postgres`" in md
    name = hover_at(an, str(f), pos_of(f, r"^  db:", "db"))
    assert name is None or "No estimate" in name.markdown


def test_every_position_of_the_example_is_safe(orders):
    for path in (ORDERS, CHECKOUT, BILLING):
        for line_no, line in enumerate(path.read_text().splitlines()):
            for ch in range(len(line) + 1):
                h = hover_mod._hover(orders, str(path), Position(line_no, ch))
                assert h is None or h.range.contains(Position(line_no, ch))


def test_hover_tables_are_aligned_for_clients_that_show_markdown_as_text(orders):
    """Neovim's hover window shows the markdown source: every table's lines are one width,
    and money columns are right-aligned (``---:``)."""
    from runway_core.markdown import width

    for pattern, word in ((r"^  main-db:", "main-db"), (r"^      staging: medium", "medium"), (r"^  dev:", "dev")):
        md = hover(orders, ORDERS, pos_of(ORDERS, pattern, word)).markdown
        tables: list[list[str]] = []
        for line in md.splitlines():
            if line.startswith("|"):
                if not tables or not tables[-1]:
                    tables.append([])
                tables[-1].append(line)
            elif tables and tables[-1]:
                tables.append([])
        tables = [t for t in tables if t]
        assert tables, md
        for t in tables:
            assert len({width(line) for line in t}) == 1, "\n".join(t)
            assert ":|" in t[1], t[1]  # the money column is right-aligned


def test_markdown_table_pads_wide_characters_and_fills_short_rows():
    from runway_core.markdown import table, width

    lines = table(["name", "monthly"], [["データ", "$1.00"], ["x"]], right={1})
    assert lines == ["| name   | monthly |", "|--------|--------:|", "| データ |   $1.00 |", "| x      |         |"]
    assert len({width(line) for line in lines}) == 1


def test_the_markdown_module_examples_hold():
    import doctest

    from runway_core import markdown

    assert doctest.testmod(markdown).failed == 0


def test_size_hover_sources_are_brief_with_the_full_text_in_a_details_block(orders):
    """Issue 13: each source briefly (offer, SKU, date) so a size hover fits on one screen; the
    full texts behind a details block."""
    md = hover(orders, ORDERS, pos_of(ORDERS, r"^      staging: medium", "medium")).markdown
    shown, _, hidden = md.partition("<details><summary>Price sources in full</summary>")
    assert hidden and "</details>" in hidden
    briefs = [line for line in shown.splitlines() if re.match(r"^\[\d\] ", line)]
    assert len(briefs) == 4 and all(len(b) <= 130 for b in briefs)
    assert any("SKU AHVT2C6WP2BB5BXQ" in b and "AmazonRDS offer" in b and "2026-08-12" in b for b in briefs)
    assert all(re.search(r"20\d\d-\d\d", b) for b in briefs)  # every brief keeps a date
    assert len(shown.splitlines()) <= 20  # one screen
    # The full text is all there, once, behind the details block.
    assert "'Minimum Charge: 2 vCPUs'" in hidden and "'Minimum Charge: 2 vCPUs'" not in shown
