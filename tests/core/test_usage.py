"""The usage file (docs/format.md, "Usage file"): its quantities replace the catalogue's
assumptions in exactly the line items they name, each line says where its quantity came
from, and a bad usage file is positioned diagnostics (the golden cases rw190-rw192 hold the
messages). Infracost's usage file is the model: one entry per resource address, one key per
usage quantity (infracost/infracost `infracost-usage-example.yml`)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from runway_core.analysis import analyze
from runway_core.analysis.usage import usage_template
from runway_core.planner import plan_json
from runway_core.planner.plan import Plan
from runway_core.usage import CATALOGUE_ASSUMPTION, USAGE_KEYS, parse_usage

ROOT = """\
runway: 1
product: shop
region: us-east-1
environments:
  dev: {}
  production:
    limits: { monthly: 5000 }
resources:
  orders:
    kind: queue
    size: small
  events:
    kind: topic
    engine: { fifo: true }
  media:
    kind: bucket
  db:
    kind: postgres
  warehouse:
    kind: postgres
    engine: { flavor: aurora }
workloads:
  api:
    image: registry.example.com/api@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    reason: "no-managed-fit: the shop's own API"
    port: 8080
    health: { path: /health }
    scale: 2
    uses: [orders, events, media, db, warehouse]
"""

USAGE = """\
usage: 1
environments:
  production:
    items:
      orders:
        requests_millions: 400
      media:
        storage_gb: 5000
      api:
        log_ingested_gb: 12
      events:
        payload_gb: 30
      warehouse:
        io_requests_millions: 900
    network:
      nat_processed_gb: 200
      data_transfer_out_gb: 100
"""


def _write(tmp_path: Path, usage: str | None) -> Path:
    (tmp_path / "runway.yaml").write_text(ROOT)
    if usage is not None:
        (tmp_path / "runway.usage.yaml").write_text(usage)
    return tmp_path / "runway.yaml"


def _lines(an, env: str) -> dict[tuple[str, str], object]:
    return {(i.name, li.price_key): li for i in an.plans[env].items for li in i.line_items}


def test_a_usage_file_changes_exactly_the_line_items_it_names(tmp_path, catalog) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    without = analyze(str(_write(tmp_path / "a", None)), catalog)
    withu = analyze(str(_write(tmp_path / "b", USAGE)), catalog)
    assert [d for d in withu.all_diagnostics() if d.code.startswith("RW19")] == []
    # dev is not named: every line item equal.
    assert _lines(without, "dev") == _lines(withu, "dev")
    old, new = _lines(without, "production"), _lines(withu, "production")
    named = {
        ("orders", "sqs:standard"): (Decimal(400), 6),
        ("media", "s3:storage"): (Decimal(5000), 8),
        ("api", "logs:ingestion"): (Decimal(24), 10),  # 12 GB per task x 2 tasks
        ("api", "logs:storage"): (Decimal(24), 10),
        ("events", "sns:fifo:payload"): (Decimal(30), 12),
        ("warehouse", "aurora:io:standard"): (Decimal(900), 14),
        ("network", "nat:gb"): (Decimal(200), 16),
        ("network", "transfer:internet-out"): (Decimal(100), 17),
    }
    for key, (quantity, line) in named.items():
        li = new[key]
        assert li.quantity == quantity, key
        assert li.quantity_source == f"usage file L{line}", key
        assert li.monthly_usd == (quantity * li.unit_usd).quantize(Decimal("0.01")), key
    # Every other line item is the one planned without a usage file.
    for key, li in old.items():
        if key not in named:
            assert new[key] == li, key
    assert set(new) - set(old) == {("events", "sns:fifo:payload"), ("network", "nat:gb"), ("network", "transfer:internet-out")}
    # us-east-1 data transfer out: 100 GB x $0.09; NAT: 200 GB x $0.045 (catalog/prices.csv).
    net = withu.plans["production"].item("network")
    assert net is not None and net.monthly_usd == Decimal("18.00")
    assert withu.plans["production"].notes[0].startswith("network: only the NAT data processed")


def test_assumed_quantities_say_so(tmp_path, catalog) -> None:
    an = analyze(str(_write(tmp_path, None)), catalog)
    li = _lines(an, "production")[("orders", "sqs:standard")]
    assert li.quantity_source == CATALOGUE_ASSUMPTION and "assumed 1 M" in li.description
    assert _lines(an, "production")[("db", "rds:db.t4g.micro:single-az")].quantity_source == "runway size"
    doc = plan_json(Plan(an.spec.product, an.spec.region, tuple(an.plans.values())))
    sources = {li["quantity_source"] for e in doc["environments"] for i in e["items"] for li in i["line_items"]}
    assert sources == {"runway size", CATALOGUE_ASSUMPTION}


def test_price_confidence_sums_to_each_total(tmp_path, catalog) -> None:
    an = analyze(str(_write(tmp_path, USAGE)), catalog)
    doc = plan_json(Plan(an.spec.product, an.spec.region, tuple(an.plans.values())))
    for env_doc, plan in zip(doc["environments"], an.plans.values()):
        shares = plan.price_confidence()
        assert list(shares) == ["price-list", "aws-static", "secondary", "derived", "unverified"]
        assert sum(shares.values()) == plan.total
        assert set(env_doc["price_confidence"]) == set(shares)
        assert round(sum(env_doc["price_confidence"].values()), 2) == env_doc["total_monthly_usd"]


def test_option_the_item_does_not_bill_is_rw192(tmp_path, catalog) -> None:
    usage = "usage: 1\nenvironments:\n  dev:\n    items:\n      db: {io_requests_millions: 5}\n      orders: {payload_gb: 1}\n"
    an = analyze(str(_write(tmp_path, usage)), catalog)
    got = [(d.code, d.range.start.line, d.message) for d in an.diagnostics[str(tmp_path / "runway.usage.yaml")]]
    assert [(c, line) for c, line, _ in got] == [("RW202", 4), ("RW202", 5)]
    assert "flavor: aurora" in got[0][2] and "(its keys: requests_millions)" in got[1][2]
    # Not used: the lines keep the catalogue's assumption.
    assert _lines(an, "dev")[("orders", "sqs:standard")].quantity_source == CATALOGUE_ASSUMPTION


def test_a_named_usage_file_that_cannot_be_read_is_rw190(tmp_path, catalog) -> None:
    an = analyze(str(_write(tmp_path, None)), catalog, usage_file="nope.yaml")
    d = an.diagnostics[str(tmp_path / "nope.yaml")]
    assert [x.code for x in d] == ["RW200"] and "cannot read the usage file" in d[0].message
    # The default name is read only when it exists: no diagnostic, no file.
    an = analyze(str(_write(tmp_path, None)), catalog)
    assert str(tmp_path / "runway.usage.yaml") not in an.diagnostics


def test_usage_keys_table_is_the_one_declaration(catalog) -> None:
    # Every assumption field names a field of that kind's sizes (catalogue capacity).
    for kind, keys in USAGE_KEYS.items():
        for k in keys:
            if k.assumption is None:
                continue
            flavor = "aurora" if kind == "postgres" else None
            for size in catalog.sizes(kind):
                assert k.assumption in catalog.capacity(kind, size, flavor), (kind, k.key, size)


def test_template_parses_and_changes_nothing_until_edited(tmp_path, catalog) -> None:
    an = analyze(str(_write(tmp_path, None)), catalog)
    text = usage_template(an)
    assert parse_usage(text, "t").diagnostics == []
    assert "# requests_millions: 1" in text and "catalogue assumption" in text
    (tmp_path / "runway.usage.yaml").write_text(text)
    again = analyze(str(tmp_path / "runway.yaml"), catalog)
    assert [d for d in again.all_diagnostics() if d.code.startswith("RW19")] == []
    assert {e: p.total for e, p in again.plans.items()} == {e: p.total for e, p in an.plans.items()}
    # An edited value is kept (uncommented) when the template is written again (--force).
    (tmp_path / "runway.usage.yaml").write_text(text.replace("# requests_millions: 1 ", "requests_millions: 77", 1))
    edited = analyze(str(tmp_path / "runway.yaml"), catalog)
    assert "        requests_millions: 77" in usage_template(edited)


def test_reusing_the_previous_analysis_sees_a_usage_change(tmp_path, catalog) -> None:
    # The editor re-plans from its previous analysis (issue 6): an item whose entry did not
    # change but whose usage did must be priced again, not reused.
    root = _write(tmp_path, "usage: 1\nenvironments:\n  production:\n    items:\n      orders: {requests_millions: 10}\n")
    first = analyze(str(root), catalog)
    (tmp_path / "runway.usage.yaml").write_text("usage: 1\nenvironments:\n  production:\n    items:\n      orders: {requests_millions: 20}\n")
    reused = analyze(str(root), catalog, previous=first)
    fresh = analyze(str(root), catalog)
    assert reused.plans == fresh.plans
    assert reused.plans["production"].item("orders").line_items[0].quantity == Decimal(20)


NEAR_CAP = Path(__file__).resolve().parents[1] / "golden" / "rw172_verdict_could_flip" / "runway.yaml"


def test_near_cap_eu_environment_hover_says_what_its_total_rests_on(catalog) -> None:
    # The golden case's eu-west-1 production: $366.08 of a $374.00 cap, mostly derived prices.
    from runway_core.ide.hover import hover_at
    from runway_core.positions import Position

    an = analyze(str(NEAR_CAP), catalog)
    plan = an.plans["production"]
    assert plan.verdict == "ok" and plan.verdict_could_flip()
    assert plan.price_confidence()["derived"] == Decimal("356.96")
    assert plan.uncertainty_usd() == Decimal("17.95")
    assert not an.plans["dev"].verdict_could_flip()  # far under its default cap
    line = next(n for n, t in enumerate(NEAR_CAP.read_text().splitlines()) if t.startswith("  production:"))
    md = hover_at(an, str(NEAR_CAP), Position(line, 4)).markdown
    assert "**Prices:** $7.71 price-list, $0.40 secondary, $356.96 derived, $1.01 unverified" in md
    assert "the verdict could flip: refresh `rds:db.m7g.large:multi-az` (derived ±5%)" in md


def test_hover_of_a_size_names_the_usage_line(tmp_path, catalog) -> None:
    from runway_core.ide.hover import hover_at
    from runway_core.positions import Position

    an = analyze(str(_write(tmp_path, USAGE)), catalog)
    root = tmp_path / "runway.yaml"
    line = next(n for n, t in enumerate(ROOT.splitlines()) if t == "    size: small")  # orders' size
    md = hover_at(an, str(root), Position(line, 12)).markdown
    assert "400 (usage file)" in md and "(usage file L6)" in md


def test_lenses_price_the_usage_file(tmp_path, catalog) -> None:
    # The resource lens is the plan's item cost: with a usage file, its quantities.
    from runway_core.ide.lenses import code_lenses

    root = _write(tmp_path, USAGE)
    line = next(n for n, t in enumerate(ROOT.splitlines()) if t == "  orders:")
    titles = [lens.title for lens in code_lenses(analyze(str(root), catalog), str(root)) if lens.range.start.line == line]
    # us-east-1 SQS Standard: assumed 1 M in dev ($0.40), 400 M from the usage file in production.
    assert titles[0] == "dev $0.40 · production $160"


def test_a_figure_written_with_an_exponent_reads_as_its_plain_number(tmp_path, catalog) -> None:
    """`storage_gb: 5e3` is 5000 GB, and the line item says so: it read "S3 Standard storage,
    5E+3 GB" (and "1E+3k requests"), Decimal's scientific form leaking into the text (ninth
    adversary M2). The quantity, the cost and the plan are those of `5000`."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = analyze(str(_write(tmp_path / "a", USAGE)), catalog)
    sci = analyze(str(_write(tmp_path / "b", USAGE.replace("storage_gb: 5000", "storage_gb: 5e3").replace("requests_millions: 400", "requests_millions: 4.0E+2"))), catalog)
    for key in (("media", "s3:storage"), ("orders", "sqs:standard")):
        a, b = _lines(plain, "production")[key], _lines(sci, "production")[key]
        assert "E+" not in b.description, b.description
        assert (b.quantity, b.monthly_usd) == (a.quantity, a.monthly_usd)
    assert "5000 GB" in _lines(sci, "production")[("media", "s3:storage")].description
