"""Pure tests of runway_core.ide.completion.completions_at: no server (docs/architecture.md §2).

Documents are written with a cursor mark ``‸``; the example's files are read from disk and
the edited one from the test, so examples/ is never modified. Accepted candidates are applied
to the text and the result compared with the expected full text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.ide import completion as complete_mod
from runway_core.ide.completion import CompletionCandidate, completions_at
from runway_core.ide.completion import facts as facts_mod
from runway_core.planner import plan_environment
from runway_core.positions import LineIndex, Position
from runway_core.whatif import resized
from runway_core.workspace import read_disk
from runway_core.yamlsrc import parse_yaml
from mdtables import flat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ORDERS = EXAMPLES / "orders" / "runway.yaml"
CHECKOUT = EXAMPLES / "orders" / "services" / "checkout" / "runway.yaml"
ROOT_TEXT = ORDERS.read_text(encoding="utf-8")
CHECKOUT_TEXT = CHECKOUT.read_text(encoding="utf-8")
MARK = "‸"


def cursor(marked: str) -> tuple[str, Position]:
    assert marked.count(MARK) == 1, "one cursor mark"
    i = marked.index(MARK)
    text = marked.replace(MARK, "")
    return text, LineIndex(text).position(i)


def edited(old: str, new: str, text: str = ROOT_TEXT) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


class Session:
    """One completion request: the analysis of examples/orders with one file's text replaced."""

    def __init__(self, catalog, marked: str, file: Path = ORDERS, root: Path = ORDERS) -> None:
        self.text, self.pos = cursor(marked)
        self.file = str(file.resolve())
        target = os.path.realpath(file)

        def read(path: str) -> str:
            return self.text if os.path.realpath(path) == target else read_disk(path)

        self.analysis = analyze(str(root.resolve()), catalog, read)
        self.items = completions_at(self.analysis, self.file, self.pos)

    @property
    def labels(self) -> list[str]:
        return [c.label for c in sorted(self.items, key=lambda c: (c.sort_text or "", c.label))]

    def get(self, label: str) -> CompletionCandidate:
        found = [c for c in self.items if c.label == label]
        assert len(found) == 1, (label, self.labels)
        return found[0]

    def accept(self, label: str) -> str:
        """The text after accepting ``label`` (its plain text)."""
        return apply(self.text, self.get(label), self.pos)


def apply(text: str, c: CompletionCandidate, pos: Position) -> str:
    assert c.range.start.line == c.range.end.line == pos.line, "a completion edit stays on the cursor's line"
    assert c.range.start <= pos <= c.range.end, "the edit contains the cursor"
    lines = LineIndex(text)
    return text[: lines.offset(c.range.start)] + c.new_text + text[lines.offset(c.range.end) :]


def lone(catalog, tmp_path: Path, marked: str) -> Session:
    """A root runway of its own (no members), written to ``tmp_path``."""
    f = tmp_path / "runway.yaml"
    text, _pos = cursor(marked)
    f.write_text(text, encoding="utf-8")
    return Session(catalog, marked, f, f)


# --- keys ----------------------------------------------------------------------------------------


def test_top_level_keys_on_an_empty_line_skip_present_keys_and_carry_their_docs(catalog, tmp_path):
    s = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\n{MARK}\n")
    assert s.labels == ["region", "members", "environments", "resources", "workloads"]
    region = s.get("region")
    assert region.kind == "key" and region.detail == "optional"
    assert "AWS region used for prices and provisioning" in region.documentation
    assert s.accept("resources") == "runway: 1\nproduct: shop\nresources:\n  \n"
    assert s.get("resources").snippet == "resources:\n  $0"
    assert s.accept("members") == "runway: 1\nproduct: shop\nmembers:\n  - \n"


def test_a_half_typed_key_in_an_empty_file_is_replaced(catalog, tmp_path):
    s = lone(catalog, tmp_path, f"runw{MARK}")
    assert s.labels[:2] == ["runway", "product"]  # required keys first
    assert s.get("runway").detail == "required"
    assert s.accept("runway") == "runway: "


def test_member_runway_keys_are_not_root_keys(catalog):
    s = Session(catalog, edited("uses: [main-db, order-events]\n", f"{MARK}\n", CHECKOUT_TEXT), CHECKOUT)
    assert s.labels == ["uses"]
    assert "Resources of the root runway" in s.get("uses").documentation
    assert s.get("uses").snippet == "uses: [$0]"


@pytest.mark.parametrize(
    ("old", "new", "labels", "accepted"),
    [
        # A bare word on its own line: the file parses (`kin` is order-events' value).
        ("    kind: topic\n", f"    kin{MARK}\n", ["kind", "engine", "size"], "    kind: \n"),
        # Before a sibling key the same word is a syntax error: the tree is cut short, and
        # the sibling below still counts as present.
        ("    kind: topic\n", f"    kin{MARK}\n    size: small\n", ["kind", "engine"], "    kind: \n    size: small\n"),
        # After a sibling: a syntax error too.
        ("    kind: topic\n", f"    kind: topic\n    si{MARK}\n", ["engine", "size"], None),
    ],
    ids=["bare-word", "syntax-error-below", "syntax-error-above"],
)
def test_resource_keys_on_a_half_typed_line(catalog, old, new, labels, accepted):
    s = Session(catalog, edited(old, new))
    assert s.labels == labels
    if accepted is not None:
        assert s.accept("kind") == edited(old, accepted)
    else:
        assert s.accept("size") == edited(old, "    kind: topic\n    size: \n")


def test_a_syntax_error_still_counts_keys_written_around_the_cursor(catalog):
    s = Session(catalog, edited("    kind: topic\n", f"    kind: topic\n    {MARK}x: [\n"))
    assert s.analysis.files[str(ORDERS.resolve())].parsed.partial
    assert s.labels == ["engine", "size"]


RESOURCE = "runway: 1\nproduct: shop\nresources:\n  db:\n    kind: postgres\n    engine:\n      flavor: rds\n{cursor}\n"


@pytest.mark.parametrize(
    ("indent", "expected"),
    [
        (0, ["region", "members", "environments", "workloads"]),
        (2, ["new resource"]),
        (4, ["size"]),
        (6, ["version", "proxy", "storage_gb", "backup_retention_days"]),
    ],
)
def test_empty_lines_at_each_indentation_level(catalog, tmp_path, indent, expected):
    s = lone(catalog, tmp_path, RESOURCE.format(cursor=" " * indent + MARK))
    assert s.labels == expected
    for c in s.items:
        assert c.range.start == c.range.end == s.pos  # nothing typed: an insertion at the cursor


def test_engine_keys_follow_the_resource_kind(catalog, tmp_path):
    queue = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  jobs:\n    kind: queue\n    engine:\n      {MARK}\n")
    assert queue.labels == ["fifo", "visibility_timeout_s", "dead_letter"]
    assert queue.accept("dead_letter").endswith("    engine:\n      dead_letter:\n        \n")
    unknown = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  jobs:\n    kind: kafka\n    engine:\n      {MARK}\n")
    assert unknown.labels == []


def test_keys_inside_a_flow_mapping_insert_key_and_colon(catalog):
    s = Session(catalog, edited("    health:\n      path: /api/health\n", f"    health: {{path: /api/health, {MARK}}}\n"))
    assert s.labels == ["interval_s", "timeout_s", "command"]
    assert "    health: {path: /api/health, timeout_s: }\n" in s.accept("timeout_s")


def test_a_half_typed_key_in_a_flow_mapping_gets_its_colon_as_in_block_style(catalog, tmp_path):
    # `si` parses as a key without a value: accepting `size` writes `size: `, as a block key would.
    flow = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  db: {{kind: postgres, si{MARK}}}\n")
    assert flow.labels == ["engine", "size"]
    assert flow.accept("size").endswith("  db: {kind: postgres, size: }\n")
    block = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  db:\n    kind: postgres\n    si{MARK}\n")
    assert block.accept("size").endswith("    size: \n")
    # A colon already there is not written twice.
    written = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  db: {{kind: postgres, si{MARK}: small}}\n")
    assert written.accept("size").endswith("  db: {kind: postgres, size: small}\n")


def test_health_path_and_command_say_exactly_one_of_them(catalog):
    s = Session(catalog, edited("    health:\n      path: /api/health\n", f"    health:\n      {MARK}\n"))
    for key in ("path", "command"):
        assert s.get(key).detail == "exactly one of path, command"
        assert "Exactly one of `path` and `command`." in (s.get(key).documentation or "")


def test_a_tab_indented_line_above_does_not_end_completion(catalog, tmp_path):
    """A tab cannot indent YAML (RW006): the line above is skipped, not taken for the parent."""
    s = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  db:\n\tkind: postgres\n    si{MARK}\n")
    assert "size" in s.labels and s.accept("size").endswith("    size: \n")


# --- kinds ---------------------------------------------------------------------------------------


def test_kinds_are_the_five_with_a_line_each_and_never_reserved(catalog):
    s = Session(catalog, edited("    kind: topic\n", f"    kind: {MARK}\n"))
    assert s.labels == ["postgres", "queue", "topic", "cache", "bucket"]
    assert s.get("cache").detail == "ElastiCache for Valkey"
    assert "kafka" in s.get("cache").documentation  # named as refused, never offered
    assert s.accept("cache") == ROOT_TEXT.replace("    kind: topic\n", "    kind: cache\n", 1)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f"    kind:{MARK}\n", "    kind: queue\n"),  # right after the colon: a space first
        (f"    kind: qu{MARK}\n", "    kind: queue\n"),  # half-typed
        (f"    kind: to{MARK}pic\n", "    kind: queue\n"),  # inside a written value: the whole word
        (f'    kind: "q{MARK}"\n', '    kind: "queue"\n'),  # quoted: inside the quotes
    ],
    ids=["after-colon", "half-typed", "inside-word", "quoted"],
)
def test_a_value_replaces_the_word_at_the_cursor(catalog, line, expected):
    s = Session(catalog, edited("    kind: topic\n", line))
    assert s.accept("queue") == ROOT_TEXT.replace("    kind: topic\n", expected, 1)


# --- sizes ---------------------------------------------------------------------------------------


def test_sizes_carry_the_environment_cost_and_sort_by_it(catalog):
    s = Session(catalog, edited("      staging: medium\n", f"      staging: {MARK}\n"))
    assert s.labels == ["small", "medium", "large"]
    assert [s.get(x).detail for x in s.labels] == ["$36.28/mo in staging", "$139.47/mo in staging", "$325.81/mo in staging"]
    medium = s.get("medium")
    assert medium.kind == "size"
    # The environment's total if chosen, against its cap (staging: $500).
    assert "| staging | $139.47 | $258.11 | $500.00 (52%) |" in flat(medium.documentation)
    assert "db.t4g.medium, Multi-AZ" in medium.documentation
    assert s.accept("large") == ROOT_TEXT.replace("      staging: medium\n", "      staging: large\n", 1)


def test_the_current_size_is_marked_and_an_over_cap_choice_is_flagged(catalog):
    s = Session(catalog, edited("    shared:\n      cache: small\n", f"    shared:\n      cache: {MARK}small\n"))
    assert s.get("small").detail == "$9.34/mo in dev · current"
    assert s.get("medium").detail == "$37.38/mo in dev"
    # dev: $126.88 today; a medium shared cache adds $28.04 and passes the $150 cap.
    assert "| dev | $37.38 | $154.92 | $150.00 (103%) ✗ over |" in flat(s.get("medium").documentation)


def test_one_size_for_every_environment_lists_each_environment(catalog):
    s = Session(catalog, edited("  order-events:\n    kind: topic\n", f"  order-events:\n    kind: topic\n    size: {MARK}\n"))
    assert s.labels == ["small", "medium", "large"]
    assert s.get("large").detail == "$50.00/mo in dev"
    doc = s.get("large").documentation
    assert "| dev | $50.00 | $176.38 |" in flat(doc) and "| staging | $50.00 |" in flat(doc) and "| production | $50.00 |" in flat(doc)


def test_a_workload_size_counts_its_tasks(catalog):
    s = Session(catalog, edited("    size: medium\n    scale:\n      production: 3\n", f"    size: {{production: {MARK}}}\n    scale:\n      production: 3\n"))
    # pdf-renderer runs 3 tasks in production.
    assert [s.get(x).detail for x in s.labels] == ["$24.02/mo in production", "$96.04/mo in production", "$384.18/mo in production"]
    assert s.accept("large").count("    size: {production: large}\n") == 1


def test_sizes_in_a_flow_map_insert_just_the_value(catalog):
    s = Session(catalog, edited("  order-events:\n    kind: topic\n", f"  order-events:\n    kind: topic\n    size: {{dev: {MARK}}}\n"))
    assert s.accept("medium") == ROOT_TEXT.replace("  order-events:\n    kind: topic\n", "  order-events:\n    kind: topic\n    size: {dev: medium}\n", 1)


def test_a_resource_being_written_is_priced_from_the_tree(catalog, tmp_path):
    # The file is cut short by a syntax error below the cursor: no analysis spec, still costs.
    s = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n  db:\n    kind: postgres\n    size: {MARK}\n  bad: [\n")
    assert s.analysis.spec is None
    assert s.get("small").detail == "$36.28/mo in dev"
    assert "environment total" not in s.get("small").documentation  # the rest of the runway is unknown


def test_resized_replans_one_entry(catalog):
    an = analyze(str(ORDERS), catalog)
    entry = an.spec.entries["main-db"]
    plan = plan_environment(resized(an.spec, entry, "medium", "dev"), catalog, "dev")
    assert plan.item("main-db").monthly_usd == an.plans["staging"].item("main-db").monthly_usd
    assert plan.total == an.plans["dev"].total - an.plans["dev"].item("main-db").monthly_usd + plan.item("main-db").monthly_usd
    everywhere = resized(an.spec, entry, "large")
    assert {e.name: everywhere.entries["main-db"].size_in(e.name) for e in an.spec.environments} == {"dev": "large", "staging": "large", "production": "large"}


def test_size_completion_plans_each_size_once_per_environment(catalog, monkeypatch):
    # A latency sanity check without a clock: the work is bounded by sizes x environments.
    calls = []
    real = facts_mod.plan_environment

    def counting(spec, cat, env, *previous):
        calls.append(env)
        return real(spec, cat, env, *previous)

    monkeypatch.setattr(facts_mod, "plan_environment", counting)
    Session(catalog, edited("  order-events:\n    kind: topic\n", f"  order-events:\n    kind: topic\n    size: {MARK}\n"))
    assert len(calls) == 3 * 3


# --- environment names ---------------------------------------------------------------------------


def test_environment_names_in_size_maps_are_the_declared_ones_not_yet_named(catalog):
    s = Session(catalog, edited("      staging: medium\n", f"      staging: medium\n      {MARK}\n"))
    assert s.labels == ["dev"]
    dev = s.get("dev")
    assert dev.kind == "environment" and dev.detail == "now small · $36.28/mo"
    assert s.accept("dev") == ROOT_TEXT.replace("      staging: medium\n", "      staging: medium\n      dev: \n", 1)


def test_environment_names_in_a_flow_scale_map(catalog):
    s = Session(catalog, edited("    scale:\n      production: 2\n", f"    scale: {{production: 2, {MARK}}}\n"))
    assert s.labels == ["dev", "staging"]
    assert s.get("staging").detail == "now 1 · $8.01/mo"
    assert "    scale: {production: 2, staging: }\n" in s.accept("staging")


# --- uses ----------------------------------------------------------------------------------------

METABASE_USES = "    uses: [main-db]\n    expose: internal\n    reason: \"on-prem"


def test_uses_items_in_a_flow_list_skip_itself_and_listed_names(catalog):
    s = Session(catalog, edited(METABASE_USES, f"    uses: [main-db, {MARK}]\n    expose: internal\n    reason: \"on-prem"))
    assert s.labels == ["order-events", "invoices", "shared-queue", "shared-cache", "zitadel", "pdf-renderer"]
    assert s.get("order-events").detail == "topic · $0.50/mo in dev"
    assert s.get("shared-cache").detail == "cache (shared pool) · $9.34/mo in dev"
    assert s.get("zitadel").detail == "workload · $8.01/mo in dev"
    assert "dev $36.28" not in s.get("invoices").documentation
    assert "dev $2.05 · staging $2.05 · production $20.50 per month" in s.get("invoices").documentation
    assert "    uses: [main-db, invoices]\n" in s.accept("invoices")


def test_a_uses_item_named_true_is_written_quoted(catalog):
    """A resource declared `"true":` (a DNS label; YAML reads plain `true` as a boolean, 1.2.2
    §10.3.2) was completed into `uses: [main-db, true]`, an RW100 (fifth adversary)."""
    text = edited("  order-events:\n", '  "true":\n')
    s = Session(catalog, edited(METABASE_USES, f"    uses: [main-db, {MARK}]\n    expose: internal\n    reason: \"on-prem", text))
    assert '    uses: [main-db, "true"]\n' in s.accept("true")
    assert s.get("true").filter_text == "true"
    assert "    uses: [main-db, invoices]\n" in s.accept("invoices")  # an ordinary name stays plain


def test_a_uses_item_written_before_another_gets_its_comma(catalog):
    s = Session(catalog, edited(METABASE_USES, f"    uses: [main-db,{MARK} invoices]\n    expose: internal\n    reason: \"on-prem"))
    assert "invoices" not in s.labels and "main-db" not in s.labels
    assert "    uses: [main-db, order-events, invoices]\n" in s.accept("order-events")


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (f"    uses:\n      - main-db\n      - {MARK}\n", "    uses:\n      - main-db\n      - invoices\n"),
        (f"    uses:\n    - main-db\n    -{MARK}\n", "    uses:\n    - main-db\n    - invoices\n"),
        (f"    uses: {MARK}\n", "    uses: [invoices]\n"),
        (f"    uses: [\n      main-db,\n      {MARK}\n    ]\n", "    uses: [\n      main-db,\n      invoices\n    ]\n"),
        (f"    uses: [main-db, {MARK}\n", "    uses: [main-db, invoices\n"),  # unclosed: a syntax error
    ],
    ids=["block", "block-same-indent", "value", "multi-line-flow", "unclosed-flow"],
)
def test_uses_items_in_every_layout(catalog, block, expected):
    s = Session(catalog, edited(METABASE_USES, block + "    expose: internal\n    reason: \"on-prem"))
    assert "invoices" in s.labels and "metabase" not in s.labels
    assert ("main-db" in s.labels) == (block.startswith("    uses: ") and "main-db" not in block)
    assert s.accept("invoices") == edited(METABASE_USES, expected + "    expose: internal\n    reason: \"on-prem")


def test_member_uses_offer_root_names_and_requires_offer_kinds(catalog):
    s = Session(catalog, edited("uses: [main-db, order-events]", f"uses: [main-db, {MARK}]", CHECKOUT_TEXT), CHECKOUT)
    assert s.labels[:2] == ["order-events", "invoices"]
    assert "main-db" not in s.labels
    assert s.get("invoices").detail == "bucket · $2.05/mo in dev"
    assert "Used by: pdf-renderer, billing" in s.get("invoices").documentation
    r = Session(catalog, edited("requires: [queue, cache]", f"requires: [queue, {MARK}]", CHECKOUT_TEXT), CHECKOUT)
    assert r.labels == ["postgres", "topic", "cache", "bucket"]
    assert r.accept("topic") == CHECKOUT_TEXT.replace("requires: [queue, cache]", "requires: [queue, topic]")
    v = Session(catalog, edited("requires: [queue, cache]", f"requires: {MARK}", CHECKOUT_TEXT), CHECKOUT)
    assert v.accept("bucket") == CHECKOUT_TEXT.replace("requires: [queue, cache]", "requires: [bucket]")


def test_member_and_format_version_values(catalog):
    m = Session(catalog, edited("member: checkout\n", f"member: {MARK}\n", CHECKOUT_TEXT), CHECKOUT)
    assert m.labels == ["checkout"]  # the folder's name, the default
    assert m.accept("checkout") == CHECKOUT_TEXT
    r = Session(catalog, edited("runway: 1\n", f"runway: {MARK}\n"))
    assert r.labels == ["1"] and r.accept("1") == ROOT_TEXT


# --- enumerated values ----------------------------------------------------------------------------


def test_expose_values(catalog):
    s = Session(catalog, edited("    expose: public\n", f"    expose: pu{MARK}\n"))
    assert s.labels == ["internal", "public"]
    assert "ALB" in s.get("public").detail
    assert s.accept("internal") == ROOT_TEXT.replace("    expose: public\n", "    expose: internal\n", 1)


def test_engine_values_show_what_they_cost(catalog):
    s = Session(catalog, edited("      flavor: rds\n", f"      flavor: {MARK}\n"))
    assert s.labels == ["rds", "aurora"]
    assert s.get("rds").detail == "$36.28/mo in dev · RDS for PostgreSQL (default)"
    assert s.get("aurora").detail.startswith("$") and "Aurora" in s.get("aurora").detail
    b = Session(catalog, edited("      flavor: rds\n", f"      flavor: rds\n      proxy: {MARK}\n"))
    assert b.labels == ["true", "false"]
    assert b.get("false").detail == "$13.98/mo in dev"  # no proxy, no proxy secret
    assert b.accept("false").count("      proxy: false\n") == 1
    v = Session(catalog, edited('      version: "16"\n', f"      version: {MARK}\n"))
    assert v.labels == ["17", "16", "15", "14"]
    assert v.accept("17").count('      version: "17"\n') == 1


def test_versioning_booleans_of_a_bucket(catalog):
    s = Session(catalog, edited("      versioning: true\n", f"      versioning: {MARK}\n"))
    assert s.labels == ["true", "false"]
    assert "(default)" in s.get("false").detail


# --- reasons -------------------------------------------------------------------------------------

REASON = 'reason: "residency: tenants in an in-country region need identity data kept in that region"'


def test_reason_grounds_start_a_quoted_reason(catalog):
    s = Session(catalog, edited(REASON, f"reason: {MARK}"))
    assert s.labels == ["no-managed-fit", "residency", "on-prem-parity"]
    ground = s.get("residency")
    assert ground.new_text == '"residency: "' and ground.snippet == '"residency: $0"'
    assert s.accept("on-prem-parity") == ROOT_TEXT.replace(REASON, 'reason: "on-prem-parity: "')
    inside = Session(catalog, edited(REASON, f'reason: "res{MARK}"'))
    assert inside.accept("residency") == ROOT_TEXT.replace(REASON, 'reason: "residency: "')
    # Free text after a ground: nothing to complete.
    assert Session(catalog, edited(REASON, f'reason: "residency: tenants{MARK}"')).items == []


# --- shared pools --------------------------------------------------------------------------------


def test_shared_pool_kinds_not_yet_sized(catalog):
    s = Session(catalog, edited("      cache: small\n      queue: small\n", f"      cache: small\n      queue: small\n      {MARK}\n"))
    assert s.labels == ["postgres", "topic", "bucket"]
    assert s.accept("bucket") == edited("      cache: small\n      queue: small\n", "      cache: small\n      queue: small\n      bucket: \n")
    assert "shared-bucket" in s.get("bucket").documentation


def test_a_new_shared_pool_is_priced(catalog):
    s = Session(catalog, edited("      cache: small\n      queue: small\n", f"      cache: small\n      queue: small\n      topic: {MARK}\n"))
    assert s.get("medium").detail == "$12.50/mo in dev"


# --- snippets ------------------------------------------------------------------------------------


def test_new_resource_snippet_where_a_resource_name_is_expected(catalog):
    s = Session(catalog, edited("\n  order-events:\n", f"\n  {MARK}\n  order-events:\n"))
    c = s.get("new resource")
    assert c.kind == "snippet"
    assert c.snippet == "${1:name}:\n    kind: ${2|postgres,queue,topic,cache,bucket|}\n    size: ${3|small,medium,large|}"
    text = s.accept("new resource")
    assert text == edited("\n  order-events:\n", "\n  name:\n    kind: postgres\n    size: small\n  order-events:\n")
    named = Session(catalog, edited("\n  order-events:\n", f"\n  jobs{MARK}\n  order-events:\n"))
    job = named.get("new resource")
    assert job.snippet.startswith("${1:jobs}:\n") and job.volatile and job.filter_text == "jobs"
    assert named.accept("new resource") == edited("\n  order-events:\n", "\n  jobs:\n    kind: postgres\n    size: small\n  order-events:\n")


def test_new_workload_snippet_has_every_required_key(catalog):
    s = Session(catalog, edited("\n  zitadel:\n", f"\n  {MARK}\n  zitadel:\n"))
    c = s.get("new workload")
    assert c.snippet == (
        "${1:name}:\n"
        "    image: ${2:registry/image}@sha256:${3:<64 hex digits>}\n"
        "    port: ${4:8080}\n"
        "    health:\n"
        "      path: ${5:/health}\n"
        "    expose: ${6|internal,public|}\n"
        '    reason: "${7|no-managed-fit,residency,on-prem-parity|}: ${8:why no managed resource fits}"'
    )
    text = s.accept("new workload")
    an = analyze(str(ORDERS), catalog, lambda p: text if os.path.realpath(p) == str(ORDERS.resolve()) else read_disk(p))
    mine = [d for d in an.diagnostics[str(ORDERS.resolve())] if d.range.start.line in range(s.pos.line, s.pos.line + 7)]
    # Every required key is there: the only complaint is the digest placeholder to fill in.
    assert [d.code for d in mine] == ["RW140"]


def test_new_environment_snippets(catalog, tmp_path):
    s = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nenvironments:\n  dev:\n    limits:\n      monthly: 150\n  {MARK}\n")
    assert s.labels == ["new environment", "staging", "production"]
    assert s.get("new environment").snippet == "${1:name}:\n    limits:\n      monthly: ${2:150}"
    assert s.accept("staging").endswith("  staging:\n    limits:\n      monthly: 500\n")
    assert s.accept("production").endswith("  production:\n    limits:\n      monthly: null\n")


def test_snippets_follow_the_file_indentation(catalog, tmp_path):
    s = lone(catalog, tmp_path, f"runway: 1\nproduct: shop\nresources:\n    db:\n        kind: postgres\n    {MARK}\n")
    assert s.accept("new resource").endswith("    name:\n        kind: postgres\n        size: small\n")


# --- nothing to offer --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "marked",
    [
        edited("product: orders", f"product: orders  # the pro{MARK}duct"),
        edited("    image: metabase/", f"    image: meta{MARK}base/"),
        edited("    kind: topic\n", f"    kind: topic {MARK}\n"),
        edited("    port: 3000\n", f"    port: {MARK}\n"),
        edited(REASON, f"reason: >\n      resid{MARK}"),
        edited("    kind: topic\n", f"    kind: topic\n      {MARK}\n"),
    ],
    ids=["comment", "image", "after-a-value", "free-number", "block-scalar", "under-an-inline-value"],
)
def test_nothing_where_nothing_fits(catalog, marked):
    assert Session(catalog, marked).items == []


# --- robustness ------------------------------------------------------------------------------------


def _all_runways() -> list[Path]:
    return sorted(EXAMPLES.glob("**/runway.y*ml"))


@pytest.mark.parametrize("path", _all_runways(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_position_of_every_example_is_safe(catalog, path):
    """Bugs surface here: the inner query is called, not the catching wrapper."""
    text = path.read_bytes().decode("utf-8", "replace")
    parsed = parse_yaml(text, str(path))
    an = analyze(str(EXAMPLES / path.relative_to(EXAMPLES).parts[0] / "runway.yaml"), catalog)
    lines = parsed.lines
    for line in range(lines.line_count):
        length = len(lines.line_text(line))
        for col in sorted({0, length // 2, length}):
            pos = Position(line, col)
            for c in complete_mod._complete(an, str(path), pos, parsed):
                assert c.range.start.line == c.range.end.line == line
                assert c.range.start <= pos <= c.range.end
                assert c.kind in complete_mod.CANDIDATE_KINDS


def test_a_file_outside_the_analysis_gets_nothing(catalog):
    an = analyze(str(ORDERS), catalog)
    assert completions_at(an, "/nowhere/runway.yaml", Position(0, 0)) == []
    assert completions_at(an, str(ORDERS), Position(9999, 9999)) == []


@pytest.mark.parametrize("line, after", [
    ("    kind:‸ postgres", "    kind: queue"),
    ("    kind:‸ postgres  # the main store", "    kind: queue  # the main store"),
    ("    kind:‸postgres", "    kind: queue"),
])
def test_a_choice_right_after_the_colon_replaces_the_written_value(catalog, tmp_path, line, after):
    """yaml-language-server#363: the cursor right after `kind:` with a value already there;
    the choice must replace it, not land before it (`kind: queue postgres`)."""
    s = lone(catalog, tmp_path, "runway: 1\nproduct: shop\nresources:\n  db:\n" + line + "\n")
    assert s.accept("queue").splitlines()[4] == after


def test_a_flow_list_after_the_colon_takes_the_choice_first_never_a_second_list(catalog, tmp_path):
    """Ninth adversary L2: `uses:‸ [db]` gave `uses: [q] [db]` (RW001); now `[db]` is kept and
    the name goes in first (tests/core/test_completion_applied.py has the rest)."""
    s = lone(catalog, tmp_path, "runway: 1\nproduct: shop\nresources:\n  db: {kind: postgres}\n  q: {kind: queue}\nworkloads:\n  api:\n    image: x\n    uses:‸ [db]\n")
    assert "db" not in s.labels
    assert s.accept("q").splitlines()[-1] == "    uses: [q, db]"


def test_region_values_priced_first_then_every_commercial_aws_region(catalog):
    from runway_core.catalog import aws_regions

    s = Session(catalog, edited("region: us-east-1", f"region: {MARK}"))
    priced = sorted(catalog.regions)
    assert s.labels[: len(priced)] == priced
    rest = s.labels[len(priced):]
    assert rest == sorted(r for r, p in aws_regions().items() if p == "aws" and r not in catalog.regions)
    assert "eu-west-2" in rest and "cn-north-1" not in rest
    assert "RW160" in s.get("eu-west-2").detail and s.get("eu-west-1").detail == "priced by the catalogue"
