"""Completion items, once accepted, leave a file that still parses (ninth adversary L2, L3;
issue 23): right after ``key:`` with a value already written, the choice replaces it or goes
into its list; over a block value on the lines below nothing is offered (docs/features.md,
"Completion"). Pure tests of the query the server calls (runway_core.ide.completion), no
server; tests/lsp/test_lsp_completion.py has the real-server case.

Positions are 0-based (line, code point), as the adversary's report gives them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from runway_core.analysis import analyze
from runway_core.ide import completion as complete_mod
from runway_core.ide.completion import CompletionCandidate, completions_at
from runway_core.positions import LineIndex, Position
from runway_core.workspace import read_disk
from runway_core.yamlsrc import ParsedYaml, parse_yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ORDERS = EXAMPLES / "orders"
ROOT = ORDERS / "runway.yaml"
CHECKOUT = ORDERS / "services" / "checkout" / "runway.yaml"
BILLING = ORDERS / "services" / "billing" / "runway.yaml"
FIRST = 3  # items applied at each column: the first few, in the query's order


def apply(text: str, c: CompletionCandidate) -> str:
    lines = LineIndex(text)
    return text[: lines.offset(c.range.start)] + c.new_text + text[lines.offset(c.range.end) :]


def parses(text: str) -> str | None:
    """None when ruamel.yaml (the C loader, as a client's YAML tooling) reads ``text``, else why not."""
    try:
        YAML(typ="safe", pure=False).load(text)
    except Exception as e:  # noqa: BLE001 - any loader error is the finding
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return None


def at(catalog, file: Path, line: int, col: int, text: str | None = None) -> tuple[str, list[CompletionCandidate]]:
    """The candidates at (line, col) of ``file`` in examples/orders, its text replaced by
    ``text`` when given (the other files from disk)."""
    body = file.read_text(encoding="utf-8") if text is None else text

    def read(path: str) -> str:
        return body if Path(path).resolve() == file.resolve() else read_disk(path)

    an = analyze(str(ROOT), catalog, read)
    return body, completions_at(an, str(file), Position(line, col))


def accepted(text: str, items: list[CompletionCandidate], label: str) -> str:
    found = [c for c in items if c.label == label]
    assert len(found) == 1, (label, [c.label for c in items])
    return apply(text, found[0])


def line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, t in enumerate(text.split("\n")) if t == needle][nth]


# --- L2: a flow list written after `uses:` / `requires:` ---------------------------------------


@pytest.mark.parametrize("col", [9, 10], ids=["after-the-colon", "on-the-space"])
def test_a_name_chosen_after_uses_goes_into_the_written_list(catalog, col):
    """L2: `    uses: [main-db]` (line 60, character 9) gave `uses: [order-events] [main-db]`
    (RW001) and offered `main-db` itself; on the space (59:10) `[order-events][main-db]`."""
    text = ROOT.read_text(encoding="utf-8")
    line = line_of(text, "    uses: [main-db]")
    assert line == 59
    text, items = at(catalog, ROOT, line, col)
    labels = [c.label for c in items]
    assert "main-db" not in labels and "metabase" not in labels  # listed already; the workload itself
    assert "order-events" in labels and "zitadel" in labels
    after = accepted(text, items, "order-events")
    assert after.split("\n")[line] == "    uses: [order-events, main-db]"
    assert parses(after) is None


def test_a_kind_chosen_after_a_members_requires_goes_into_the_written_list(catalog):
    text, items = at(catalog, CHECKOUT, 3, 9)  # `requires: [queue, cache]`
    assert [c.label for c in items] == ["postgres", "topic", "bucket"]
    assert accepted(text, items, "postgres").split("\n")[3] == "requires: [postgres, queue, cache]"


def test_an_empty_written_list_gets_the_name_alone(catalog):
    text = ROOT.read_text(encoding="utf-8").replace("    uses: [main-db]\n", "    uses: []  # none yet\n", 1)
    line = line_of(text, "    uses: []  # none yet")
    text, items = at(catalog, ROOT, line, 9, text)
    assert "main-db" in [c.label for c in items]
    assert accepted(text, items, "main-db").split("\n")[line] == "    uses: [main-db]  # none yet"


def test_a_list_cut_short_still_takes_the_name_first(catalog):
    """A file that does not parse: the names written on the line count as listed."""
    text = ROOT.read_text(encoding="utf-8").replace("    uses: [main-db]\n", "    uses: [main-db, \n", 1)
    line = line_of(text, "    uses: [main-db, ")
    text, items = at(catalog, ROOT, line, 9, text)
    assert "main-db" not in [c.label for c in items]
    assert accepted(text, items, "invoices").split("\n")[line] == "    uses: [invoices, main-db, "


# --- L2: a quoted scalar written after `key:` -----------------------------------------------------


@pytest.mark.parametrize("col", [11, 12], ids=["after-the-colon", "on-the-space"])
def test_a_ground_chosen_after_reason_replaces_the_quoted_reason(catalog, col):
    """L2: `reason: "residency: …"` at 75:11 gave `reason: "no-managed-fit: " "residency: …"`."""
    text = ROOT.read_text(encoding="utf-8")
    line = line_of(text, '    reason: "residency: tenants in an in-country region need identity data kept in that region"')
    assert line == 75
    text, items = at(catalog, ROOT, line, col)
    after = accepted(text, items, "no-managed-fit")
    assert after.split("\n")[line] == '    reason: "no-managed-fit: "'
    assert parses(after) is None


def test_a_quoted_version_is_replaced_and_nothing_after_its_closing_quote(catalog):
    text = ROOT.read_text(encoding="utf-8")
    line = line_of(text, '      version: "16"')
    for col in (14, 15):
        text, items = at(catalog, ROOT, line, col)
        assert accepted(text, items, "17").split("\n")[line] == '      version: "17"'
    assert at(catalog, ROOT, line, len('      version: "16"'))[1] == []  # `"16"‸`: was `"17` (unclosed)


@pytest.mark.parametrize("written", ["{dev: small}", "&s small", "*s", '"small', "!!str small"],
                         ids=["flow-map", "anchor", "alias", "open-quote", "tag"])
def test_nothing_is_offered_before_a_value_neither_replaced_nor_listed(catalog, written):
    text = ROOT.read_text(encoding="utf-8").replace("    size: medium\n", f"    size: {written}\n", 1)
    line = line_of(text, f"    size: {written}")
    assert at(catalog, ROOT, line, len("    size:"), text)[1] == []


# --- L3: a block value on the lines below -----------------------------------------------------------


@pytest.mark.parametrize(("needle", "col"), [("    env:", 8), ("    size:", 9)], ids=["env", "size"])
def test_nothing_inline_over_a_block_map_below(catalog, needle, col):
    """L3: `    env:` (53:8) offered `true`/`false`, `    size:` (33:9) `small`/`medium`: accepted,
    `env: true` over the variables below (RW001)."""
    text = ROOT.read_text(encoding="utf-8")
    line = line_of(text, needle)
    assert at(catalog, ROOT, line, col)[1] == []
    assert at(catalog, ROOT, line, col + 1, text.replace(needle + "\n", needle + " \n", 1))[1] == []  # after a space too


def test_nothing_inline_over_a_block_list_below_at_any_indentation(catalog):
    base = ROOT.read_text(encoding="utf-8")
    for block in ("    uses:\n      - main-db\n", "    uses:\n    - main-db\n", "    uses:\n      # the db\n      - main-db\n"):
        text = base.replace("    uses: [main-db]\n", block, 1)
        assert at(catalog, ROOT, line_of(text, "    uses:"), 9, text)[1] == []


def test_a_value_is_still_offered_where_the_next_line_is_a_sibling(catalog):
    text = ROOT.read_text(encoding="utf-8").replace("    kind: topic\n", "    kind:\n", 1)
    line = line_of(text, "    kind:")
    text, items = at(catalog, ROOT, line, 9, text)
    assert accepted(text, items, "queue").split("\n")[line] == "    kind: queue"


def test_a_key_is_not_offered_inside_the_indentation_of_a_written_key(catalog):
    """`  ‸  shared:` offered `disposable` (`   disposable:  shared:`), found by the sweep below."""
    text = ROOT.read_text(encoding="utf-8")
    line = line_of(text, "    shared:")
    assert at(catalog, ROOT, line, 3)[1] == []


# --- flow collections (found by the sweep below over examples/broken) ------------------------------


def test_a_flow_key_chosen_before_a_written_entry_gets_its_comma(catalog):
    text = ROOT.read_text(encoding="utf-8").replace("    kind: topic\n", "    kind: topic\n    engine: { fifo: true }\n", 1)
    text = text.replace("  order-events:\n    kind: topic\n    engine: { fifo: true }", "  order-events:\n    kind: queue\n    engine: { fifo: true }", 1)
    line = line_of(text, "    engine: { fifo: true }")
    text, items = at(catalog, ROOT, line, len("    engine: {"), text)
    assert items, "the queue's other engine keys"
    first = items[0]
    assert apply(text, first).split("\n")[line] == f"    engine: {{{first.label}: , fifo: true }}"  # was `{dlq:  fifo: true }`
    assert first.snippet == f"{first.label}: $0,"
    assert parses(apply(text, first)) is None


def test_a_flow_value_chosen_after_the_colon_replaces_the_written_one(catalog):
    text = ROOT.read_text(encoding="utf-8").replace('      flavor: rds\n      version: "16"\n', "      flavor: rds\n", 1)
    text = text.replace("    engine:\n      flavor: rds\n", "    engine: { flavor: rds, version: 13 }\n", 1)
    line = line_of(text, "    engine: { flavor: rds, version: 13 }")
    col = len("    engine: { flavor: rds, version:")
    text, items = at(catalog, ROOT, line, col, text)
    assert accepted(text, items, "17").split("\n")[line] == '    engine: { flavor: rds, version: "17" }'  # was `"17" 13 }`


def test_nothing_after_a_closed_flow_entry_nor_on_a_document_marker(catalog):
    text = CHECKOUT.read_text(encoding="utf-8").replace("requires: [queue, cache]", "requires: [[queue], cache]")
    assert at(catalog, CHECKOUT, 3, len("requires: [[queue]"), text)[1] == []  # was `[[queue]postgres, cache]`
    text = "---\n" + CHECKOUT.read_text(encoding="utf-8")
    assert at(catalog, CHECKOUT, 0, 0, text)[1] == []  # was `uses: ` over the `---`


# --- the sweep: every column of every example -----------------------------------------------------


def _examples() -> list[Path]:
    """Every example runway ruamel.yaml reads (examples/broken holds some it refuses)."""
    return [p for p in sorted(EXAMPLES.glob("**/runway.y*ml")) if parses(p.read_bytes().decode("utf-8", "replace")) is None]


@pytest.fixture(scope="module")
def analyses(catalog):
    """The analysis of each example product, by its root's path."""
    return {str(root): analyze(str(root), catalog) for root in sorted(EXAMPLES.glob("*/runway.yaml"))}


@pytest.mark.parametrize("file", _examples(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_item_at_every_column_leaves_a_file_that_parses(analyses, file):
    """The adversary's check (724 requests through a server, on the orders root and checkout)
    at every column of every example: the first few items applied one at a time, each result
    read by ruamel.yaml. The inner query is called (as tests/core/test_complete.py's robustness
    test does), so an exception fails here too."""
    text = file.read_bytes().decode("utf-8", "replace")
    parsed = parse_yaml(text, str(file))
    an = analyses[str(EXAMPLES / file.relative_to(EXAMPLES).parts[0] / "runway.yaml")]
    broken: dict[str, tuple[int, int, str]] = {}
    checked: set[str] = set()
    requests = 0
    for line in range(parsed.lines.line_count):
        for col in range(len(parsed.lines.line_text(line)) + 1):
            requests += 1
            for c in complete_mod._complete(an, str(file), Position(line, col), parsed)[:FIRST]:
                after = apply(text, c)
                if after in checked:
                    continue
                checked.add(after)
                why = parses(after)
                if why is not None:
                    broken[after.split("\n")[line]] = (line, col, c.label)
    assert requests == len(text) + 1  # every column (and the end of the file)
    assert broken == {}, "\n".join(f"{ln}:{col} {label!r} -> {t!r}" for t, (ln, col, label) in broken.items())


def test_the_sweep_covers_the_orders_root_and_its_members():
    swept = {str(p.relative_to(EXAMPLES)) for p in _examples()}
    assert {"orders/runway.yaml", "orders/services/checkout/runway.yaml", "orders/services/billing/runway.yaml"} <= swept
    assert len(swept) >= 10  # and examples/broken: 13 files when written


# --- a usage file (tenth adversary L4): the same rules as a runway file ------------------------

#: The adversary's usage file beside examples/orders (repro/usage_completion.py): items in block
#: and flow style, an empty item, an empty flow value, a blank line under an item, the network,
#: a flow `items:` and a trailing indented blank line.
USAGE = """usage: 1
environments:
  dev:
    items:
      invoices: {storage_gb: 10, }
      main-db:
        io_requests_millions: 3
      order-events:
        
      zitadel: {log_ingested_gb: }
    network:
      nat_processed_gb: 5
  staging:
    items: {invoices: {storage_gb: 1}}
  
"""
USAGE_PATH = ORDERS / "runway.usage.yaml"


def usage_at(catalog, text: str) -> tuple[object, ParsedYaml]:
    """The analysis of examples/orders with ``text`` as its usage file, and that file's parse."""

    def read(path: str) -> str:
        return text if Path(path).resolve() == USAGE_PATH.resolve() else read_disk(path)

    an = analyze(str(ROOT), catalog, read)
    assert an.files[str(USAGE_PATH)].role == "usage"
    return an, an.files[str(USAGE_PATH)].parsed


def usage_items(catalog, text: str, line: int, col: int) -> list[CompletionCandidate]:
    an, _parsed = usage_at(catalog, text)
    return completions_at(an, str(USAGE_PATH), Position(line, col))


def test_usage_a_key_the_cursor_is_inside_is_replaced_whole(catalog):
    """L4: `usage: 1` at 0:3 gave `usage: 1ge: 1`; `      nat_processed_gb: 5` at 11:8
    `nat_processed_gb: 0t_processed_gb: 5`. The written key is replaced, its `: value` kept."""
    items = usage_items(catalog, USAGE, 0, 3)
    assert [(c.label, c.new_text) for c in items] == [("usage", "usage")]
    assert apply(USAGE, items[0]).split("\n")[0] == "usage: 1"
    line = line_of(USAGE, "      nat_processed_gb: 5")
    items = usage_items(catalog, USAGE, line, 8)
    assert items and all(c.new_text == c.label for c in items)
    after = accepted(USAGE, items, "data_transfer_out_gb")
    assert after.split("\n")[line] == "      data_transfer_out_gb: 5"
    assert parses(after) is None


@pytest.mark.parametrize(("needle", "col"), [("    items:", 1), ("      main-db:", 5), ("    items:", 3)])
def test_usage_nothing_in_the_indentation_before_a_written_key(catalog, needle, col):
    """L4: `    items:` at column 1 gave ` dev:   items:`; `      main-db:` at 5 `     invoices: main-db:`."""
    assert usage_items(catalog, USAGE, line_of(USAGE, needle), col) == []


def test_usage_a_key_on_a_blank_line_only_at_its_mappings_indentation(catalog):
    """L4: the blank line under `order-events:` at column 1 gave ` dev:` (it ends the mapping)."""
    line = line_of(USAGE, "        ")
    assert usage_items(catalog, USAGE, line, 1) == []
    assert usage_items(catalog, USAGE, line, 3) == []  # between `  dev:`'s and `    items:`' columns
    keys = usage_items(catalog, USAGE, line, 8)  # the item's own keys, as before
    assert keys and all(c.new_text.startswith(f"{c.label}: ") for c in keys)
    assert all(parses(apply(USAGE, c)) is None for c in keys)


def test_usage_a_value_after_the_colon_replaces_the_written_one(catalog):
    line = line_of(USAGE, "      nat_processed_gb: 5")
    for col in (len("      nat_processed_gb:"), len("      nat_processed_gb: ")):
        items = usage_items(catalog, USAGE, line, col)
        assert len(items) == 1
        assert apply(USAGE, items[0]).split("\n")[line] == f"      nat_processed_gb: {items[0].label}"  # was `: 0 5`, `:  05`


#: Comments on lines of their own and after keys and values (`  ‸# envs` offered `staging:`,
#: giving `staging:# envs`), a blank line, an empty `network:` last.
USAGE_COMMENTED = """# usage
usage: 1  # v
environments:
  # envs
  dev:
    items:   # x
      invoices:
        storage_gb: 10  # gb

    network:
"""


@pytest.mark.parametrize("text", [USAGE, USAGE_COMMENTED, USAGE.replace("\n", "\r\n")], ids=["adversary", "comments", "crlf"])
def test_usage_every_item_at_every_column_leaves_a_file_that_parses(catalog, text):
    """The adversary's sweep (317 items, 132 broken): every column of the usage file, the
    first few items applied, each result read by ruamel.yaml."""
    assert parses(text) is None
    an, parsed = usage_at(catalog, text)
    broken: dict[str, tuple[int, int, str]] = {}
    tried = 0
    for line in range(parsed.lines.line_count):
        for col in range(len(parsed.lines.line_text(line)) + 1):
            for c in complete_mod._complete(an, str(USAGE_PATH), Position(line, col), None)[:FIRST]:
                tried += 1
                after = apply(text, c)
                why = parses(after)
                if why is not None:
                    broken[after.split("\n")[line]] = (line, col, c.label)
    assert tried >= 100  # keys, environments, items and values are still offered
    assert broken == {}, "\n".join(f"{ln}:{col} {label!r} -> {t!r}" for t, (ln, col, label) in broken.items())
