"""Pure tests of runway_core.ide.fixes: every quick fix applied to the source text and compared
with the whole expected file (no server, docs/architecture.md §2).

Runways live in memory (``analyze`` reads through a dict) unless members are needed. Each
test states the text before and after, so comments, quoting, indentation and line endings
that must survive are visible in the test itself.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.ide.fixes import Fix, TextEdit, fixes_for, guess_kind, resize_edits
from runway_core.positions import LineIndex, Position, Range
from runway_core.whatif import cheaper_sizes, fit_under_cap, resized_plan
from runway_core.workspace import read_disk

ROOT = os.path.abspath("/virtual/shop/runway.yaml")
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIGEST = "0123456789abcdef" * 4
HEAD = "runway: 1\nproduct: shop\n"


# --- helpers ------------------------------------------------------------------------------------


def apply_edits(text: str, edits: tuple[TextEdit, ...] | list[TextEdit]) -> str:
    """Apply core edits (code-point positions of ``text``), as an editor would: all relative
    to the original text, so from the last to the first."""
    lines = LineIndex(text)
    spans = sorted(((lines.offset(e.range.start), lines.offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for (start, end, _t), nxt in zip(spans, spans[1:]):
        assert nxt[1] <= start, "edits overlap"
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def analyse(text: str, catalog):
    """Analyse ``text`` as the root runway ``ROOT`` (in memory; there is no other file)."""

    def read(path: str) -> str:
        if path != ROOT:
            raise FileNotFoundError(path)
        return text

    return analyze(ROOT, catalog, read=read)


def diags(an, code: str, file: str = ROOT):
    return [d for d in an.diagnostics.get(file, []) if d.code == code]


def fixes(text: str, catalog, code: str, nth: int = 0) -> list[Fix]:
    an = analyse(text, catalog)
    found = diags(an, code)
    assert len(found) > nth, f"no {code} #{nth} in {[(d.code, d.message) for d in an.all_diagnostics()]}"
    return fixes_for(an, ROOT, [found[nth]])


def titles(text: str, catalog, code: str, nth: int = 0) -> list[str]:
    return [f.title for f in fixes(text, catalog, code, nth)]


def applied(text: str, catalog, code: str, title: str, nth: int = 0) -> str:
    """The text after applying the fix titled ``title`` (or starting with it) of ``code``."""
    found = [f for f in fixes(text, catalog, code, nth) if f.title == title or f.title.startswith(title)]
    assert len(found) == 1, [f.title for f in fixes(text, catalog, code, nth)]
    assert list(found[0].edits) == [ROOT]
    return apply_edits(text, found[0].edits[ROOT])


def workload(name: str = "api", extra: str = "", indent: str = "  ") -> str:
    body = [
        f"image: registry.example.com/{name}@sha256:{DIGEST}",
        "port: 8080",
        "health: { path: /health }",
    ]
    return f"{indent}{name}:\n" + "".join(f"{indent}  {line}\n" for line in body) + extra


# --- RW130 unknown size -------------------------------------------------------------------------


def test_unknown_size_offers_each_size_with_its_cost_keeping_the_comment(catalog):
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size: { staging: medum }  # staging needs more\n"
    fs = fixes(text, catalog, "RW130")
    assert [f.title for f in fs] == [
        "Change size to small ($36.28/mo in staging)",
        "Change size to medium ($139.47/mo in staging)",
        "Change size to large ($325.81/mo in staging)",
    ]
    assert [f.is_preferred for f in fs] == [False, True, False]
    assert {f.kind for f in fs} == {"quickfix"}
    assert applied(text, catalog, "RW130", "Change size to medium") == text.replace("medum", "medium")


@pytest.mark.parametrize("quote", ["'", '"'])
def test_unknown_size_keeps_the_quotes(catalog, quote):
    text = HEAD + f"resources:\n  db:\n    kind: postgres\n    size:\n      dev: {quote}medum{quote}   # why\n"
    assert applied(text, catalog, "RW130", "Change size to medium") == text.replace("medum", "medium")


def test_unknown_size_for_every_environment_shows_each_cost(catalog):
    text = HEAD + "workloads:\n" + workload(extra="    size: huge\n    scale: { production: 2 }\n    reason: \"no-managed-fit: ours\"\n")
    assert titles(text, catalog, "RW130")[1] == "Change size to medium (dev $32.02 · staging $32.02 · production $64.03 per month)"
    text = HEAD + "resources:\n  files:\n    kind: bucket\n    size: no   # YAML 1.2: a string\n"
    assert titles(text, catalog, "RW130")[0] == "Change size to small ($2.05/mo in every environment)"
    assert applied(text, catalog, "RW130", "Change size to small") == text.replace("size: no ", "size: small ")


def test_unknown_size_of_a_shared_pool(catalog):
    text = HEAD + "environments:\n  dev:\n    shared: { cache: tiny }\n"
    assert titles(text, catalog, "RW130") == [
        "Change size to small ($9.34/mo in dev)",
        "Change size to medium ($37.38/mo in dev)",
        "Change size to large ($184.54/mo in dev)",
    ]
    assert applied(text, catalog, "RW130", "Change size to small") == text.replace("tiny", "small")


def test_unknown_size_after_an_emoji_on_the_line(catalog):
    # Code points: the emoji is one character here; the LSP edge counts it as 2 or 4 units.
    text = HEAD + f'workloads:\n  web: {{ reason: "🚀 no-managed-fit", size: medum, image: "web@sha256:{DIGEST}", port: 80, health: {{ path: / }} }}\n'
    fs = fixes(text, catalog, "RW130")
    line = text.splitlines()[3]
    assert fs[1].edits[ROOT][0].range == Range.at(3, line.index("medum"), line.index("medum") + 5)
    assert applied(text, catalog, "RW130", "Change size to medium") == text.replace("medum", "medium")


def test_crlf_file_keeps_its_line_endings(catalog):
    text = (HEAD + "resources:\n  db:\n    kind: postgres\n    size: larg\n").replace("\n", "\r\n")
    assert applied(text, catalog, "RW130", "Change size to large") == text.replace("larg\r\n", "large\r\n")


# --- RW170 over cap -----------------------------------------------------------------------------

OVER_DEV = (
    "# dev is over its default cap\n"
    "runway: 1\n"
    "product: overdev\n"
    "resources:\n"
    "  main-db:\n"
    "    kind: postgres\n"
    "    size: medium   # everywhere\n"
    "  cache:\n"
    "    kind: cache\n"
    "    size: { dev: medium, production: large }\n"
    "workloads:\n" + workload(extra="    uses: [main-db, cache]\n    expose: public\n    reason: \"no-managed-fit: our API\"\n")
)


def test_over_cap_offers_resizes_with_savings_and_one_fit(catalog):
    fs = fixes(OVER_DEV, catalog, "RW170")
    assert [(f.title, f.is_preferred) for f in fs] == [
        ("Fit dev under its cap: resize main-db to small — total $111.24", True),
        ("Resize main-db in dev to small — saves $103.19/month, dev total becomes $111.24", False),
        ("Resize cache in dev to small — saves $28.04/month, dev total becomes $186.39", False),
    ]
    # One size everywhere becomes a map: dev gets the new size, the others keep theirs.
    assert apply_edits(OVER_DEV, fs[0].edits[ROOT]) == OVER_DEV.replace(
        "    size: medium   # everywhere\n", "    size: {dev: small, staging: medium, production: medium}   # everywhere\n"
    )
    assert apply_edits(OVER_DEV, fs[2].edits[ROOT]) == OVER_DEV.replace("{ dev: medium, production: large }", "{ dev: small, production: large }")


def test_applying_the_fit_removes_the_over_cap_error(catalog):
    fit = fixes(OVER_DEV, catalog, "RW170")[0]
    after = analyse(apply_edits(OVER_DEV, fit.edits[ROOT]), catalog)
    assert diags(after, "RW170") == []
    assert after.plans["dev"].total == Decimal("111.24")
    assert after.plans["staging"].total == analyse(OVER_DEV, catalog).plans["staging"].total  # untouched


def _capped(cap: int) -> str:
    return (
        HEAD
        + f"environments:\n  dev:\n    limits: {{ monthly: {cap} }}\n"
        + "resources:\n  main-db:\n    kind: postgres\n    size: medium\n  cache:\n    kind: cache\n    size: { dev: medium }\n"
        + "workloads:\n"
        + workload(extra="    size: medium\n    uses: [main-db, cache]\n    expose: public\n    reason: \"no-managed-fit: our API\"\n")
    )


def test_fit_changes_as_few_items_as_possible_then_saves_least(catalog):
    # $238.44 in dev. Over $200 by $38.44: cache + api would save less ($52.05) than main-db
    # alone ($103.19), but one change beats two.
    assert titles(_capped(200), catalog, "RW170")[0] == "Fit dev under its cap: resize main-db to small — total $135.25"
    # Over $220 by $18.44: api alone ($24.01) saves the least of the single changes that fit.
    assert titles(_capped(220), catalog, "RW170")[0] == "Fit dev under its cap: resize api to small — total $214.43"
    # Over $140 by $98.44 ... main-db alone saves $103.19.
    # Over $110 by $128.44: two changes are needed; main-db + api ($127.20) is short, so
    # main-db + cache ($131.23).
    assert titles(_capped(110), catalog, "RW170")[0] == "Fit dev under its cap: resize main-db to small, cache to small — total $107.21"
    fit = fixes(_capped(110), catalog, "RW170")[0]
    assert apply_edits(_capped(110), fit.edits[ROOT]) == (
        _capped(110)
        .replace("    size: medium\n  cache:", "    size: {dev: small}\n  cache:")
        .replace("{ dev: medium }", "{ dev: small }")
    )


def test_no_fit_when_nothing_can_fit(catalog):
    ts = titles(_capped(0), catalog, "RW170")
    assert not any(t.startswith("Fit") for t in ts)
    assert ts[0] == "Resize main-db in dev to small — saves $103.19/month, dev total becomes $135.25"


def _scaled(cap: int, scale: str = "{ dev: 6 }") -> str:
    """dev holds one workload at the smallest size, run as several tasks: only fewer tasks help."""
    return (
        HEAD
        + f"environments:\n  dev:\n    limits: {{ monthly: {cap} }}\n"
        + "workloads:\n"
        + workload("metabase", extra=f"    scale: {scale}   # tasks\n    reason: \"on-prem-parity: BI\"\n")
    )


def test_over_cap_scales_down_when_resizing_cannot_help(catalog):
    # 6 small tasks: $43.26 of Fargate, $4.77 of CloudWatch Logs (9 GB ingested $4.50, stored
    # $0.27) and $1.10 of Cloud Map (each internal task is a registered instance, $0.10): $49.13.
    # One task fewer ($41.03) saves $8.10. Over $33 by $16.13: 4 tasks ($32.92) fit.
    assert [(f.title, f.is_preferred) for f in fixes(_scaled(33), catalog, "RW170")] == [
        ("Fit dev under its cap: scale metabase to 4 tasks — total $32.92", True),
        ("Scale metabase in dev to 5 tasks — saves $8.10/month, dev total becomes $41.03", False),
        ("Scale metabase in dev to 4 tasks — saves $16.21/month, dev total becomes $32.92", False),
    ]
    after = applied(_scaled(33), catalog, "RW170", "Fit dev")
    assert after == _scaled(33).replace("{ dev: 6 }", "{ dev: 4 }")
    assert analyse(after, catalog).plans["dev"].total == Decimal("32.92") and diags(analyse(after, catalog), "RW170") == []
    # Nothing fits even at one task: the smallest cut and the most it saves, no fit.
    assert titles(_scaled(5), catalog, "RW170") == [
        "Scale metabase in dev to 5 tasks — saves $8.10/month, dev total becomes $41.03",
        "Scale metabase in dev to 1 task — saves $40.52/month, dev total becomes $8.61",
    ]


def test_scale_down_of_one_count_for_every_environment_keeps_the_others(catalog):
    text = _scaled(20, "4").replace("  dev:\n    limits: { monthly: 20 }\n", "  dev:\n    limits: { monthly: 20 }\n  production: {}\n")
    assert titles(text, catalog, "RW170")[0] == "Fit dev under its cap: scale metabase to 2 tasks — total $16.71"
    assert applied(text, catalog, "RW170", "Fit dev") == text.replace("scale: 4 ", "scale: {dev: 2, production: 4} ")


def test_over_cap_fixes_price_entries_alone_and_plan_once(catalog, monkeypatch):
    """Each choice is priced on its own (planner.entry_cost); the environment is re-planned
    once, to confirm the fit -- never once per candidate (issue: 66 s at 1,000 entries)."""
    import runway_core.whatif as fixes_module

    entries = "".join(f"  db-{i}:\n    kind: postgres\n    size: {{ dev: medium }}\n" for i in range(40))
    text = HEAD + "environments:\n  dev:\n    limits: { monthly: 5000 }\nresources:\n" + entries
    an = analyse(text, catalog)
    (d,) = diags(an, "RW170")
    calls = []
    real = fixes_module.plan_environment
    monkeypatch.setattr(fixes_module, "plan_environment", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    fs = fixes_for(an, ROOT, [d])
    assert len(calls) == 1  # the fit, confirmed
    assert fs[0].title.startswith("Fit dev under its cap: resize ") and fs[0].is_preferred
    after = analyse(apply_edits(text, fs[0].edits[ROOT]), catalog)
    assert diags(after, "RW170") == [] and fs[0].title.endswith(f"— total ${after.plans['dev'].total:,.2f}")


def test_over_cap_resizes_a_shared_pool(catalog):
    text = HEAD + "environments:\n  dev:\n    shared:\n      cache: large   # big\n"
    assert titles(text, catalog, "RW170") == [
        "Fit dev under its cap: resize shared-cache to medium — total $37.38",
        "Resize shared-cache in dev to medium — saves $147.16/month, dev total becomes $37.38",
        "Resize shared-cache in dev to small — saves $175.20/month, dev total becomes $9.34",
    ]
    assert applied(text, catalog, "RW170", "Fit dev") == text.replace("cache: large", "cache: medium")


def test_over_cap_with_an_explicit_cap_and_a_size_map(catalog):
    text = (GOLDEN / "rw170_explicit_cap" / "runway.yaml").read_text(encoding="utf-8")
    assert titles(text, catalog, "RW170") == [
        "Fit production under its cap: resize main-db to small — total $69.20",
        "Resize main-db in production to medium — saves $186.34/month, production total becomes $172.39",
        "Resize main-db in production to small — saves $289.53/month, production total becomes $69.20",
        # api runs 4 tasks in production: one fewer, and (nothing fits by scaling alone) one task.
        "Scale api in production to 3 tasks — saves $8.10/month, production total becomes $350.63",
        "Scale api in production to 1 task — saves $24.31/month, production total becomes $334.42",
    ]
    assert applied(text, catalog, "RW170", "Scale api in production to 3") == text.replace("{ production: 4 }", "{ production: 3 }")
    assert applied(text, catalog, "RW170", "Fit production") == text.replace("{ production: large }", "{ production: small }")


# --- resize edits in every shape of `size:` -----------------------------------------------------

RESIZE_SHAPES = [
    # (size lines of `db`, expected after resizing db in dev to medium)
    ("    size:\n      staging: large\n      production: large\n", "    size:\n      dev: medium\n      staging: large\n      production: large\n"),
    ("    size:\n      staging: large  # s\n", "    size:\n      dev: medium\n      staging: large  # s\n"),
    ("    size: { staging: large }\n", "    size: { dev: medium, staging: large }\n"),
    ("    size: {}\n", "    size: {dev: medium}\n"),
    ("    size: { dev: small }\n", "    size: { dev: medium }\n"),
    ("    size:\n      dev: 'small'\n", "    size:\n      dev: 'medium'\n"),
    ('    size: "large"  # all\n', "    size: {dev: medium, staging: large, production: large}  # all\n"),
    ("    size:\n", "    size: {dev: medium}\n"),
    ("    size: ~\n", "    size: {dev: medium}\n"),
    ("", "    size: {dev: medium}\n"),
]


@pytest.mark.parametrize(("before", "after"), RESIZE_SHAPES, ids=range(len(RESIZE_SHAPES)))
def test_resize_edits_in_every_shape(catalog, before, after):
    text = HEAD + "resources:\n  db:\n    kind: postgres\n" + before + "  files:\n    kind: bucket\n"
    an = analyse(text, catalog)
    assert apply_edits(text, resize_edits(an, "db", "dev", "medium")) == text.replace(before + "  files", after + "  files")


def test_resize_edits_in_order_of_declared_environments_and_at_the_end(catalog):
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size: { dev: large }\n"
    an = analyse(text, catalog)
    assert apply_edits(text, resize_edits(an, "db", "production", "medium")) == text.replace("{ dev: large }", "{ dev: large, production: medium }")
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size:\n      dev: large"  # no final newline
    an = analyse(text, catalog)
    assert apply_edits(text, resize_edits(an, "db", "staging", "medium")) == text + "\n      staging: medium"


def test_resize_edits_in_flow_entries(catalog):
    text = HEAD + "resources:\n  db: { kind: postgres }\n  kv: {kind: cache, size: large}\n"
    an = analyse(text, catalog)
    assert apply_edits(text, resize_edits(an, "db", "dev", "medium")) == text.replace("{ kind: postgres }", "{ kind: postgres, size: {dev: medium} }")
    assert apply_edits(text, resize_edits(an, "kv", "dev", "medium")) == text.replace(
        "size: large}", "size: {dev: medium, staging: large, production: large}}"
    )


def test_resize_never_edits_shared_anchors_or_merges(catalog):
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size: &big { dev: large }\n  db2:\n    kind: postgres\n    size: *big\n  db3:\n    <<: { kind: postgres, size: large }\n"
    an = analyse(text, catalog)
    assert resize_edits(an, "db", "dev", "medium") is None
    assert resize_edits(an, "db2", "dev", "medium") is None
    assert resize_edits(an, "db3", "dev", "medium") is None


def test_resized_plan_and_cheaper_sizes(catalog):
    an = analyse(OVER_DEV, catalog)
    plan = an.plans["dev"]
    assert plan.total == Decimal("214.43")
    new = resized_plan(an.spec, catalog, "dev", {"main-db": "small", "cache": "small"})
    assert (new.item("main-db").size, new.item("cache").size, new.total) == ("small", "small", Decimal("83.20"))
    assert an.plans["dev"].total == Decimal("214.43")  # pure: the analysis's plan is unchanged
    assert [(d.size, d.monthly_usd) for d in cheaper_sizes(an.spec, catalog, plan, "main-db")] == [("small", Decimal("36.28"))]
    assert cheaper_sizes(an.spec, catalog, plan, "alb") == []
    choice, fitted = fit_under_cap(an.spec, catalog, plan, ["main-db", "cache"])
    assert {n: (d.size, d.scale, d.saves) for n, d in choice.items()} == {"main-db": ("small", None, Decimal("103.19"))}
    assert fitted.total == Decimal("111.24")
    assert fit_under_cap(an.spec, catalog, plan, ["cache"]) is None  # cache alone saves $28.04 of $63.63


# --- RW150 / RW152 unknown uses -----------------------------------------------------------------

USES = (
    HEAD
    + "resources:\n"
    + "  main-db:\n    kind: postgres\n"
    + "\n"
    + "  mail-db:\n    kind: postgres\n"
    + "\n"
    + "  main-cache:   # sessions\n    kind: cache\n"
    + "workloads:\n"
    + workload(extra='    uses: ["main_db", jobs]\n    reason: "no-managed-fit: ours"\n')
)


def test_unknown_use_offers_close_names_keeping_quotes(catalog):
    fs = fixes(USES, catalog, "RW150")
    assert [(f.title, f.is_preferred) for f in fs] == [
        ("Change `main_db` to `main-db`", True),
        ("Change `main_db` to `mail-db`", False),
    ]
    assert apply_edits(USES, fs[0].edits[ROOT]) == USES.replace('"main_db"', '"main-db"')


def test_unknown_use_creates_a_resource_with_a_kind_from_its_name(catalog):
    # Resource entries are kept apart by blank lines: so is the new one.
    assert titles(USES, catalog, "RW150", 1) == ["Create resource `jobs` (kind: queue)"]
    assert applied(USES, catalog, "RW150", "Create resource", 1) == USES.replace(
        "    kind: cache\n", "    kind: cache\n\n  jobs:\n    kind: queue\n"
    )


def test_create_resource_without_a_resources_section(catalog):
    text = HEAD + "\nworkloads:\n" + workload(extra="    uses: [order-events]\n    reason: \"no-managed-fit: ours\"\n")
    assert applied(text, catalog, "RW150", "Create resource `order-events` (kind: topic)") == text.replace(
        "\nworkloads:", "\nresources:\n  order-events:\n    kind: topic\n\nworkloads:"
    )


def test_create_resource_in_a_flow_resources_map(catalog):
    text = HEAD + "resources: {db: {kind: postgres}}\nworkloads:\n" + workload(extra="    uses: [db, files]\n    reason: \"no-managed-fit: ours\"\n")
    assert applied(text, catalog, "RW150", "Create resource `files`") == text.replace(
        "{db: {kind: postgres}}", "{db: {kind: postgres}, files: {kind: bucket}}"
    )


@pytest.mark.parametrize(
    ("name", "kind"),
    [("main-db", "postgres"), ("orders_pg", "postgres"), ("jobs", "queue"), ("email-queue", "queue"), ("order-events", "topic"),
     ("sessions", "cache"), ("redis", "cache"), ("uploads", "bucket"), ("invoice-files", "bucket"), ("maindb", "postgres"), ("ledger", "postgres")],
)
def test_guess_kind(name, kind):
    assert guess_kind(name) == kind


def test_a_create_resource_title_says_when_postgres_is_only_a_guess(catalog):
    text = HEAD + "resources:\n  main-db:\n    kind: postgres\nworkloads:\n" + workload(extra="    uses: [main-db, ledger-store, ledger-db]\n    reason: \"no-managed-fit: our API\"\n")
    assert titles(text, catalog, "RW150", 0)[-1] == "Create resource `ledger-store` (kind: postgres — change as needed)"
    assert titles(text, catalog, "RW150", 1)[-1] == "Create resource `ledger-db` (kind: postgres)"  # `db`: not a guess


def test_member_uses_unknown_edits_the_member_and_creates_in_the_root(catalog, tmp_path):
    root = tmp_path.resolve() / "runway.yaml"
    member = tmp_path.resolve() / "services" / "billing" / "runway.yaml"
    member.parent.mkdir(parents=True)
    root_text = HEAD + "members: [services/billing]\nresources:\n  main-db:\n    kind: postgres\n  invoices:\n    kind: bucket\n"
    member_text = "runway: 1\nmember: billing\nuses: [main-db, invoice, ledger]  # what billing reads\n"
    root.write_text(root_text)
    member.write_text(member_text)
    an = analyze(str(root), catalog)
    found = diags(an, "RW152", str(member))
    fs = fixes_for(an, str(member), [found[0]])
    assert [(f.title, f.is_preferred) for f in fs] == [
        ("Change `invoice` to `invoices`", True),
        ("Create resource `invoice` (kind: postgres — change as needed)", False),  # no hint in the name: a guess
    ]
    assert apply_edits(member_text, fs[0].edits[str(member)]) == member_text.replace("invoice,", "invoices,")
    assert list(fs[1].edits) == [str(root)]
    assert apply_edits(root_text, fs[1].edits[str(root)]) == root_text + "  invoice:\n    kind: postgres\n"


# --- RW141 missing reason -----------------------------------------------------------------------


def test_missing_reason_is_inserted_at_the_workload_indentation(catalog):
    text = HEAD + "workloads:\n" + workload(extra="    expose: public  # behind the ALB\n") + workload("worker", extra='    reason: "residency: x"\n')
    assert titles(text, catalog, "RW141") == ["Add reason: no-managed-fit", "Add reason: residency", "Add reason: on-prem-parity"]
    assert applied(text, catalog, "RW141", "Add reason: residency") == text.replace(
        "# behind the ALB\n", '# behind the ALB\n    reason: "residency: "\n'
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("reason: ~", 'reason: "on-prem-parity: "'),
        ("reason:", 'reason: "on-prem-parity: "'),
        ("reason:    # later", 'reason: "on-prem-parity: "    # later'),
        ("reason: '  '", "reason: 'on-prem-parity: '"),
        ('reason: "   "', 'reason: "on-prem-parity: "'),
    ],
)
def test_empty_reason_gets_a_value(catalog, before, after):
    text = HEAD + "workloads:\n" + workload(extra=f"    {before}\n")
    assert applied(text, catalog, "RW141", "Add reason: on-prem-parity") == text.replace(before, after)


def test_missing_reason_in_a_flow_workload_and_in_a_crlf_file(catalog):
    text = HEAD + f'workloads:\n  web: {{ image: "web@sha256:{DIGEST}", port: 80, health: {{ path: / }} }}\n'
    assert applied(text, catalog, "RW141", "Add reason: residency") == text.replace("} }\n", '}, reason: "residency: " }\n')
    crlf = (HEAD + "workloads:\n" + workload()).replace("\n", "\r\n")
    assert applied(crlf, catalog, "RW141", "Add reason: residency") == crlf + '    reason: "residency: "\r\n'


def _note_and_reason(text: str) -> tuple[object, object]:
    """The workload ``api``'s ``env.NOTE`` and ``reason`` as ruamel.yaml reads ``text`` (an
    independent parser: the edit is judged by the value YAML gives, not by our own tree)."""
    from ruamel.yaml import YAML

    api = YAML(typ="safe").load(text)["workloads"]["api"]
    return api["env"]["NOTE"], api.get("reason")


@pytest.mark.parametrize("header", ["|+", ">+", "|2+", "|+2", "|", "|-", ">", "|2-", "|2"])
@pytest.mark.parametrize(
    "after",
    ["\n\n\n", "\n  \n\n", "\n\n# about the worker\n", "\n\n  worker:\n    image: w\n", "", "<eof>"],
    ids=["blank-lines", "spaced-blank", "comment", "next-workload", "no-blank", "eof-no-newline"],
)
def test_add_reason_after_a_block_scalar_keeps_its_value_byte_for_byte(catalog, header, after):
    """Seventh adversary F2 (issue 23): under keep chomping (``|+``) the blank lines after a
    block scalar are part of its value; the reason was inserted before them, cutting them
    off. At the end of a file without a final line break, a clip or keep scalar has no line
    break either: a line after it would add one, so the reason goes before the first key."""
    body = "        first line\n\n          indented\n        last line"
    tail = "" if after == "<eof>" else "\n" + after
    text = HEAD + "workloads:\n" + workload(extra=f"    env:\n      NOTE: {header}\n{body}{tail}")
    note, reason = _note_and_reason(text)
    assert reason is None
    fixed = applied(text, catalog, "RW141", "Add reason: residency")
    new_note, new_reason = _note_and_reason(fixed)
    assert new_note.encode() == note.encode()
    assert new_reason == "residency: "
    # One line added, at the workload's indentation; nothing else of the text changed.
    lines = fixed.split("\n")
    lines.remove('    reason: "residency: "')
    assert "\n".join(lines) == text


@pytest.mark.parametrize("header", ["|+", "|2+", "|", ">", "|-"])
@pytest.mark.parametrize("after", ["\n\n      OTHER: y\n", "\n", ""], ids=["lines-after", "last-line", "eof-no-newline"])
def test_deleting_the_entry_after_a_block_scalar_keeps_its_value(catalog, header, after):
    """The same loss on delete (seventh adversary F2): a duplicate key removed right after a
    ``|+`` scalar let the blank lines after it join the scalar's value, and the last line of
    a file was deleted with the line break before it -- the scalar's own."""
    text = HEAD + "workloads:\n" + workload(extra=f"    env:\n      NOTE: {header}\n        x\n\n      NOTE: again{after}")
    note, _reason = _note_and_reason(text.replace("NOTE: again", "AGAIN: again"))  # ruamel.yaml refuses the duplicate
    fixed = applied(text, catalog, "RW002", "Remove duplicate key `NOTE`")
    new_note, _reason = _note_and_reason(fixed)
    assert new_note.encode() == note.encode()
    assert "again" not in fixed


# --- RW142 reason without a ground --------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('reason: "the team likes it"  # sure?', 'reason: "residency: the team likes it"  # sure?'),
        ("reason: 'it''s what we know'", "reason: 'residency: it''s what we know'"),
        ('reason: we "like" it', 'reason: "residency: we \\"like\\" it"'),
        ("reason: |\n      the team\n      likes it", "reason: |\n      residency: the team\n      likes it"),
    ],
    ids=["double", "single", "plain", "block"],
)
def test_reason_is_prefixed_with_a_ground_in_its_quoting_style(catalog, before, after):
    text = HEAD + "workloads:\n" + workload(extra=f"    {before}\n")
    assert titles(text, catalog, "RW142") == ["Prefix reason with no-managed-fit", "Prefix reason with residency", "Prefix reason with on-prem-parity"]
    fixed = applied(text, catalog, "RW142", "Prefix reason with residency")
    assert fixed == text.replace(before, after)
    assert diags(analyse(fixed, catalog), "RW142") == []


# --- RW102 unknown key, RW120 unknown kind ------------------------------------------------------


def test_unknown_key_is_renamed_to_close_keys(catalog):
    text = HEAD + "resources:\n  files:\n    kind: bucket\n    sise: medium   # typo\n"
    assert [(f.title, f.is_preferred) for f in fixes(text, catalog, "RW102")] == [("Rename `sise` to `size`", True)]
    assert applied(text, catalog, "RW102", "Rename") == text.replace("sise:", "size:")
    text = HEAD + "environments:\n  dev:\n    limits: { montly: 10, monthly: 20 }\n"
    assert titles(text, catalog, "RW102") == []  # `monthly` is taken: renaming would duplicate it
    text = "runway: 1\nproduct: shop\nworkloads:\n" + workload(extra='    "exposed": public\n    reason: "residency: x"\n')
    assert applied(text, catalog, "RW102", "Rename `exposed` to `expose`") == text.replace('"exposed"', '"expose"')


def test_unknown_kind_takes_the_suggestion(catalog):
    text = HEAD + "resources:\n  db:\n    kind: 'postgress'   # typo\n"
    assert [(f.title, f.is_preferred) for f in fixes(text, catalog, "RW120")] == [("Change kind to `postgres`", True)]
    assert applied(text, catalog, "RW120", "Change kind") == text.replace("postgress", "postgres")
    text = HEAD + "environments:\n  dev:\n    shared: { queues: small }\n"
    assert applied(text, catalog, "RW120", "Change kind") == text.replace("queues", "queue")
    assert titles(HEAD + "resources:\n  s:\n    kind: elasticsearch\n", catalog, "RW120") == []


# --- RW131 undeclared environment ---------------------------------------------------------------

ENVS_DEFAULT = HEAD + "resources:\n  db:\n    kind: postgres\n    size: { stagin: medium, qa: large }\n"


def test_undeclared_environment_fixes(catalog):
    assert [(f.title, f.is_preferred) for f in fixes(ENVS_DEFAULT, catalog, "RW131")] == [
        ("Rename `stagin` to `staging`", True),
        ("Declare environment `stagin`", False),
        ("Remove the `stagin` entry from `size`", False),
    ]
    assert applied(ENVS_DEFAULT, catalog, "RW131", "Rename") == ENVS_DEFAULT.replace("stagin:", "staging:")
    assert applied(ENVS_DEFAULT, catalog, "RW131", "Remove") == ENVS_DEFAULT.replace("stagin: medium, ", "")
    assert applied(ENVS_DEFAULT, catalog, "RW131", "Remove", 1) == ENVS_DEFAULT.replace(", qa: large", "")


def test_declaring_an_environment_keeps_the_defaults(catalog):
    fixed = applied(ENVS_DEFAULT, catalog, "RW131", "Declare environment `qa`", 1)
    assert fixed == ENVS_DEFAULT.replace(
        "resources:", "environments:\n  dev: {}\n  staging: {}\n  production: {}\n  qa: {}\nresources:"
    )
    an = analyse(fixed, catalog)
    assert an.environment_names == ("dev", "staging", "production", "qa")
    assert an.plans["dev"].cap == 150 and an.plans["staging"].cap == 500  # default caps by name


@pytest.mark.parametrize(
    ("envs", "after"),
    [
        ("environments:\n  dev:\n    limits: { monthly: 90 }\n  production: {}\n", "environments:\n  dev:\n    limits: { monthly: 90 }\n  production: {}\n  qa: {}\n"),
        ("environments: { dev: {}, production: {} }\n", "environments: { dev: {}, production: {}, qa: {} }\n"),
        ("environments: {}\n", "environments: {dev: {}, staging: {}, production: {}, qa: {}}\n"),
        ("environments:   # defaults\n", "environments: {dev: {}, staging: {}, production: {}, qa: {}}   # defaults\n"),
    ],
    ids=["block", "flow", "empty", "null"],
)
def test_declaring_an_environment_in_each_shape(catalog, envs, after):
    text = HEAD + envs + "resources:\n  db:\n    kind: postgres\n    size:\n      qa: large\n"
    assert applied(text, catalog, "RW131", "Declare environment `qa`") == text.replace(envs, after)


def test_removing_the_only_entry_removes_the_key(catalog):
    text = HEAD + "workloads:\n" + workload(extra="    scale:\n      qa: 2   # test runs\n    reason: \"residency: x\"\n")
    assert applied(text, catalog, "RW131", "Remove the `qa` entry from `scale`") == text.replace("    scale:\n      qa: 2   # test runs\n", "")
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size:\n      dev: medium\n      qa: large\n      staging: large\n"
    assert applied(text, catalog, "RW131", "Remove") == text.replace("      qa: large\n", "")


# --- RW002 duplicate key ------------------------------------------------------------------------


def test_duplicate_key_is_removed_with_its_lines(catalog):
    text = (
        HEAD
        + "resources:\n  db:\n    kind: postgres\n    size: medium\n"
        + "  db:   # again\n    kind: cache\n    size: large\n\n  # files come next\n  files:\n    kind: bucket\n"
        + "product: again"  # no final newline
    )
    assert titles(text, catalog, "RW002") == ["Remove duplicate key `db`"]
    assert applied(text, catalog, "RW002", "Remove duplicate key") == text.replace("  db:   # again\n    kind: cache\n    size: large\n", "")
    assert applied(text, catalog, "RW002", "Remove duplicate key", 1) == text.replace("\nproduct: again", "")


def _resources(text: str) -> dict:
    """``resources`` as ruamel.yaml reads ``text`` (it refuses a duplicate key, so a text it
    reads has one section)."""
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(text)["resources"]


SECOND_RESOURCES = (
    HEAD
    + "resources:\n  db:\n    kind: postgres\n    size: small\n\nworkloads:\n" + workload(extra='    reason: "residency: x"\n')
    + "\n# added later\nresources:   # the second section\n    files:\n        kind: bucket\n    # the cache\n    cache:\n        kind: cache\n        size: {dev: small}\n"
)


def test_a_second_resources_section_is_merged_into_the_first(catalog):
    """Seventh adversary F6 (issue 23): the only fix of a second `resources:` section was
    "Remove duplicate key `resources`", which deleted the whole section -- its entries were
    ignored (the first value is kept), but they are the user's. First offered now: merge
    them into the first section (re-indented to its entries); the delete says what it
    removes."""
    assert [(f.title, f.is_preferred) for f in fixes(SECOND_RESOURCES, catalog, "RW002")] == [
        ("Merge the second `resources:` into the first (2 entries: files, cache)", True),
        ("Remove the second `resources:` section (2 entries, lines 16\u201322)", False),
    ]
    merged = applied(SECOND_RESOURCES, catalog, "RW002", "Merge the second `resources:`")
    assert _resources(merged) == {
        "db": {"kind": "postgres", "size": "small"},
        "files": {"kind": "bucket"},
        "cache": {"kind": "cache", "size": {"dev": "small"}},
    }
    # Moved whole and shifted by the difference of the entries' columns (4 -> 2): the lines
    # within keep their own indentation (a block scalar's included).
    assert "  files:\n      kind: bucket\n  # the cache\n  cache:\n      kind: cache\n      size: {dev: small}\n\nworkloads:" in merged
    assert diags(analyse(merged, catalog), "RW002") == []
    removed = applied(SECOND_RESOURCES, catalog, "RW002", "Remove the second `resources:` section")
    assert removed == SECOND_RESOURCES.replace(SECOND_RESOURCES[SECOND_RESOURCES.index("resources:   #") :], "")


@pytest.mark.parametrize("name", ["db", "api"], ids=["a-resource", "a-workload"])
def test_a_second_section_with_a_name_taken_is_not_merged_and_the_delete_says_what_goes(catalog, name):
    text = SECOND_RESOURCES.replace("    files:\n", f"    {name}:\n")
    assert titles(text, catalog, "RW002") == ["Remove the second `resources:` section (2 entries, lines 16\u201322)"]


def test_two_resources_sections_that_touch_merge_in_one_edit(catalog):
    """The second section right after the first, at the end of a file without a final line
    break: one edit (an insertion and a deletion at one offset would depend on the client's
    order)."""
    text = HEAD + "resources:\n  db:\n    kind: postgres\nresources:\n  files:\n    kind: bucket"
    (merge,) = [f for f in fixes(text, catalog, "RW002") if f.title.startswith("Merge")]
    assert len(merge.edits[ROOT]) == 1
    merged = apply_edits(text, merge.edits[ROOT])
    assert merged == HEAD + "resources:\n  db:\n    kind: postgres\n  files:\n    kind: bucket"
    assert _resources(merged) == {"db": {"kind": "postgres"}, "files": {"kind": "bucket"}}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("{ dev: small, dev: 'large, really', staging: medium }", "{ dev: small, staging: medium }"),
        ("{ dev: small, dev: {x: 1} }", "{ dev: small }"),
        ("{\n      dev: small,\n      dev: large\n    }", "{\n      dev: small\n    }"),
    ],
)
def test_duplicate_key_in_a_flow_map(catalog, before, after):
    text = HEAD + f"resources:\n  db:\n    kind: postgres\n    size: {before}\n"
    assert applied(text, catalog, "RW002", "Remove duplicate key `dev`") == text.replace(before, after)


# --- matching and robustness --------------------------------------------------------------------


def test_matching_by_range_and_stale_diagnostics(catalog):
    an = analyse(ENVS_DEFAULT, catalog)
    line = ENVS_DEFAULT.splitlines()[5]
    # A range touching `qa` only.
    by_range = fixes_for(an, ROOT, Range.at(5, line.index("qa"), line.index("qa")))
    assert {f.diagnostic.message.split("`")[1] for f in by_range} == {"qa"}
    # A diagnostic the client still shows for an older text matches nothing.
    stale = diags(an, "RW131")[0]
    moved = type(stale)(stale.file, Range.at(9, 0, 3), stale.severity, stale.code, stale.message)
    assert fixes_for(an, ROOT, [moved]) == []
    assert fixes_for(an, "/elsewhere/runway.yaml", [stale]) == []


def test_two_diagnostics_on_one_range_are_told_apart_by_message(catalog):
    # No `environments`: dev's and staging's default caps both point at `product`.
    text = HEAD + "resources:\n  db:\n    kind: postgres\n    size: large\n  kv:\n    kind: cache\n    size: large\n"
    an = analyse(text, catalog)
    dev, staging = sorted(diags(an, "RW170"), key=lambda d: d.message)
    assert dev.range == staging.range
    assert fixes_for(an, ROOT, [staging])[0].title.startswith("Fit staging under its cap")
    assert fixes_for(an, ROOT, [dev])[0].title.startswith("Fit dev under its cap")


def _golden_roots() -> list[Path]:
    roots = sorted(p / "runway.yaml" for p in GOLDEN.iterdir() if (p / "runway.yaml").is_file())
    broken = EXAMPLES / "broken" / "runway.yaml"
    return roots + ([broken] if broken.is_file() else []) + [EXAMPLES / "orders" / "runway.yaml"]


@pytest.mark.parametrize("root", _golden_roots(), ids=lambda p: p.parent.name)
def test_every_fix_of_every_golden_file_applies_cleanly(catalog, root):
    """Each fix parses after applying, and (resizes that don't fit aside) fixes its diagnostic."""
    an = analyze(str(root), catalog)
    for file, ds in an.diagnostics.items():
        for d in ds:
            for fix in fixes_for(an, file, [d]):
                assert fix.diagnostic is d
                texts = {p: apply_edits(an.files[p].parsed.text, es) for p, es in fix.edits.items()}
                after = analyze(str(root), catalog, read=lambda p, texts=texts: texts[p] if p in texts else read_disk(p))
                assert not [x for p in texts for x in after.diagnostics.get(p, []) if x.code == "RW001"], fix.title
                if fix.title.startswith(("Resize", "Scale")):
                    continue
                before = sum(1 for x in an.diagnostics.get(file, []) if x.code == d.code)
                now = sum(1 for x in after.diagnostics.get(file, []) if x.code == d.code)
                assert now < before, (fix.title, root)


@pytest.mark.parametrize(
    "text",
    ["", "runway: [\n", "a: &a [*a]\n", "\t- x\n", HEAD + "resources: 3\nworkloads: [1]\n", HEAD + "resources:\n  db: {kind: postgres, size: {dev: 5}}\n"],
)
def test_never_raises(catalog, text):
    an = analyse(text, catalog)
    for line in range(4):
        for ch in (0, 3, 99):
            assert isinstance(fixes_for(an, ROOT, Range(Position(line, ch), Position(line + 1, ch))), list)
    assert isinstance(fixes_for(an, ROOT, an.all_diagnostics()), list)
