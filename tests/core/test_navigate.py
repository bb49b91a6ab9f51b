"""Pure tests of runway_core.ide.navigation: definition, references, highlights, rename, outline,
workspace symbols and document links, on examples/orders and on tricky runways.

No server (docs/architecture.md §2). Positions are found by searching the text for what the test points
at; edits are applied to the text and compared with the expected file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runway_core.ide import navigation as navigate
from runway_core.analysis import analyze
from runway_core.ide.navigation import Location, TextEdit
from runway_core.positions import ZERO_RANGE, LineIndex, Position, Range

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROOT = EXAMPLES / "orders" / "runway.yaml"
CHECKOUT = EXAMPLES / "orders" / "services" / "checkout" / "runway.yaml"
BILLING = EXAMPLES / "orders" / "services" / "billing" / "runway.yaml"


def at(path: Path | str, needle: str, nth: int = 0, shift: int = 1) -> Position:
    """A position ``shift`` characters into the ``nth`` occurrence of ``needle``."""
    text = Path(path).read_text(encoding="utf-8")
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return LineIndex(text).position(i + shift)


def span(path: Path | str, needle: str, nth: int = 0) -> Range:
    """The range of the ``nth`` occurrence of ``needle`` in ``path``."""
    text = Path(path).read_text(encoding="utf-8")
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return LineIndex(text).range(i, i + len(needle))


def apply(text: str, edits: list[TextEdit]) -> str:
    """Apply non-overlapping edits (any order) to ``text``."""
    lines = LineIndex(text)
    for e in sorted(edits, key=lambda e: e.range.start, reverse=True):
        start, end = lines.offset(e.range.start), lines.offset(e.range.end)
        text = text[:start] + e.new_text + text[end:]
    return text


@pytest.fixture(scope="module")
def orders(catalog):
    return analyze(str(ROOT), catalog)


def loc(path: Path, needle: str, nth: int = 0) -> Location:
    return Location(str(path), span(path, needle, nth))


# --- definition ---------------------------------------------------------------------------------


def test_definition_from_a_member_use_goes_to_the_root_key(orders):
    assert navigate.definition_at(orders, str(CHECKOUT), at(CHECKOUT, "main-db")) == [loc(ROOT, "main-db")]
    assert navigate.definition_at(orders, str(BILLING), at(BILLING, "invoices")) == [loc(ROOT, "invoices")]


def test_definition_from_a_workload_use_and_from_the_declaration(orders):
    assert navigate.definition_at(orders, str(ROOT), at(ROOT, "uses: [invoices]", shift=8)) == [loc(ROOT, "invoices")]
    # On the declaring key itself: the declaration (editors then offer references).
    assert navigate.definition_at(orders, str(ROOT), at(ROOT, "main-db")) == [loc(ROOT, "main-db")]
    # The cursor right after the name still counts (editors put it there after a word).
    end = span(CHECKOUT, "main-db").end
    assert navigate.definition_at(orders, str(CHECKOUT), end) == [loc(ROOT, "main-db")]


def test_definition_of_a_requires_item_goes_to_the_environments_that_size_the_pool(orders):
    # shared-queue is sized in dev and production (staging runs the default small).
    got = navigate.definition_at(orders, str(CHECKOUT), at(CHECKOUT, "queue"))
    assert got == [loc(ROOT, "queue", 0), loc(ROOT, "queue", 1)]
    assert [r.range.start.line for r in got] == [13, 24]
    cache = navigate.definition_at(orders, str(CHECKOUT), at(CHECKOUT, "cache"))
    assert len(cache) == 3 and all(r.file == str(ROOT) for r in cache)


def test_definition_of_a_requires_item_without_shared_sizes_goes_to_the_other_requiring_members(catalog, tmp_path):
    root = write(tmp_path, ROOT_NO_SHARED, {"svc/a": "runway: 1\nmember: a\nrequires: [queue]\n", "svc/b": "runway: 1\nmember: b\nrequires: [bucket, queue]\n"})
    an = analyze(str(root), catalog)
    a, b = tmp_path / "svc/a/runway.yaml", tmp_path / "svc/b/runway.yaml"
    assert navigate.definition_at(an, str(a), at(a, "queue")) == [loc(b, "queue")]
    # The only member requiring a bucket: its own item (nowhere else to go).
    assert navigate.definition_at(an, str(b), at(b, "bucket")) == [loc(b, "bucket")]


def test_definition_from_a_members_path_opens_the_member_runway(orders):
    got = navigate.definition_at(orders, str(ROOT), at(ROOT, "services/billing", shift=5))
    assert got == [Location(str(BILLING), ZERO_RANGE)]


def test_no_definition_on_other_keys_values_or_unknown_names(orders, catalog, tmp_path):
    assert navigate.definition_at(orders, str(ROOT), at(ROOT, "product")) == []
    assert navigate.definition_at(orders, str(ROOT), at(ROOT, "postgres")) == []
    assert navigate.definition_at(orders, "/elsewhere/runway.yaml", Position(0, 0)) == []
    root = write(tmp_path, ROOT_NO_SHARED, {"svc/a": "runway: 1\nmember: a\nuses: [nope]\n", "svc/b": "runway: 1\n"})
    an = analyze(str(root), catalog)
    a = tmp_path / "svc/a/runway.yaml"
    assert navigate.definition_at(an, str(a), at(a, "nope")) == []


# --- references and highlights ------------------------------------------------------------------


def test_references_of_main_db_in_every_file(orders):
    want = [loc(ROOT, "main-db"), loc(ROOT, "main-db", 1), loc(ROOT, "main-db", 2), loc(CHECKOUT, "main-db"), loc(BILLING, "main-db")]
    for path in (ROOT, CHECKOUT, BILLING):
        assert navigate.references_at(orders, str(path), at(path, "main-db"), True) == want
        assert navigate.references_at(orders, str(path), at(path, "main-db"), False) == want[1:]
    metabase_use = span(ROOT, "main-db", 1)
    assert metabase_use.start.line == 59  # metabase's `uses: [main-db]`


def test_references_of_an_implicit_resource_are_requires_items_and_shared_keys(orders):
    got = navigate.references_at(orders, str(BILLING), at(BILLING, "queue"), False)
    assert got == [loc(ROOT, "queue", 0), loc(ROOT, "queue", 1), loc(CHECKOUT, "queue"), loc(BILLING, "queue")]
    assert navigate.references_at(orders, str(ROOT), at(ROOT, "queue"), True) == got


def test_highlights_stay_in_the_file_and_mark_the_declaration_as_write(orders):
    hs = navigate.highlights_at(orders, str(ROOT), at(ROOT, "uses: [main-db]", shift=8))
    assert [(h.range, h.kind) for h in hs] == [(span(ROOT, "main-db"), "write"), (span(ROOT, "main-db", 1), "read"), (span(ROOT, "main-db", 2), "read")]
    assert [(h.range, h.kind) for h in navigate.highlights_at(orders, str(CHECKOUT), at(CHECKOUT, "main-db"))] == [(span(CHECKOUT, "main-db"), "read")]
    shared = navigate.highlights_at(orders, str(ROOT), at(ROOT, "cache"))
    assert [h.kind for h in shared] == ["write", "write", "write"]
    assert navigate.highlights_at(orders, str(ROOT), at(ROOT, "region")) == []


# --- rename -------------------------------------------------------------------------------------


def test_rename_main_db_edits_the_root_and_both_members(orders):
    edits = navigate.rename_at(orders, str(CHECKOUT), at(CHECKOUT, "main-db"), "primary-db")
    assert isinstance(edits, dict)
    assert set(edits) == {str(ROOT), str(CHECKOUT), str(BILLING)}
    for path in (ROOT, CHECKOUT, BILLING):
        text = path.read_text(encoding="utf-8")
        assert apply(text, edits[str(path)]) == text.replace("main-db", "primary-db")
    assert len(edits[str(ROOT)]) == 3


def test_prepare_rename_gives_the_name_range_and_placeholder(orders):
    p = navigate.prepare_rename_at(orders, str(BILLING), at(BILLING, "invoices"))
    assert p == (span(BILLING, "invoices"), "invoices")
    p = navigate.prepare_rename_at(orders, str(ROOT), at(ROOT, "pdf-renderer"))
    assert p == (span(ROOT, "pdf-renderer"), "pdf-renderer")
    assert navigate.prepare_rename_at(orders, str(ROOT), at(ROOT, "runway")) is None
    assert navigate.rename_refusal_at(orders, str(ROOT), at(ROOT, "runway")) is None


def test_implicit_resources_cannot_be_renamed(orders):
    for path, needle in ((CHECKOUT, "queue"), (ROOT, "cache")):
        pos = at(path, needle)
        assert navigate.prepare_rename_at(orders, str(path), pos) is None
        why = navigate.rename_refusal_at(orders, str(path), pos)
        assert why is not None and "implicit" in why and "declare a resource" in why
        assert navigate.rename_at(orders, str(path), pos, "jobs") == why
    why = navigate.rename_refusal_at(orders, str(CHECKOUT), at(CHECKOUT, "cache"))
    assert "`requires: [cache]` in checkout" in why and "`environments.dev.shared.cache`" in why


@pytest.mark.parametrize(
    ("new_name", "says"),
    [
        ("Primary_DB", "not a valid name"),
        ("1db", "not a valid name"),
        ("primary-db-", "not a valid name"),
        ("a" * 64, "not a valid name"),
        ("invoices", "already names a resource"),
        ("metabase", "already names a workload"),
        ("shared-queue", "implicit shared queue pool"),
    ],
)
def test_rename_refuses_invalid_and_taken_names(orders, new_name, says):
    got = navigate.rename_at(orders, str(ROOT), at(ROOT, "main-db"), new_name)
    assert isinstance(got, str) and says in got


@pytest.mark.parametrize("new_name", ["x", "orders-primary-postgres-database-for-checkout", "a" * 63])
def test_rename_accepts_every_valid_resource_name(orders, new_name):
    """Resource and workload names are labels of 1 to 63 characters (RW110, rules.NAME_LABEL);
    only the product name is limited to 32."""
    got = navigate.rename_at(orders, str(ROOT), at(ROOT, "main-db"), new_name)
    assert isinstance(got, dict) and {e.new_text for es in got.values() for e in es} == {new_name}


@pytest.mark.parametrize("new_name", ["null", "true", "false"])
def test_a_rename_to_a_name_yaml_reads_as_no_string_writes_it_quoted(orders, catalog, tmp_path, new_name):
    """`null`, `true`, `false` are DNS labels (RW110 accepts them) but YAML 1.2 reads them plain
    as null and booleans (yaml.org/spec/1.2.2 §10.3.2): a rename wrote `uses: [null]` and the
    product had 4 RW100 errors (fifth adversary). Written quoted, the renamed product checks as
    the original does."""
    import shutil

    got = navigate.rename_at(orders, str(ROOT), at(ROOT, "main-db"), new_name)
    assert isinstance(got, dict) and {e.new_text for es in got.values() for e in es} == {f'"{new_name}"'}
    copy = tmp_path / "orders"
    shutil.copytree(ROOT.parent, copy)
    for path, edits in got.items():
        target = copy / Path(path).relative_to(ROOT.parent)
        target.write_text(apply(target.read_text(encoding="utf-8"), edits), encoding="utf-8")
    def codes(an) -> list[tuple[str, str]]:  # (file relative to the product, code)
        base = os.path.dirname(an.root_file)
        return sorted((os.path.relpath(f, base), d.code) for f, ds in an.diagnostics.items() for d in ds)

    after = analyze(str(copy / "runway.yaml"), catalog)
    assert codes(after) == codes(orders)  # the example's own RW140, and nothing more


def test_a_rename_whose_injected_variable_a_consumer_already_declares_is_refused(catalog, tmp_path):
    """Seventh adversary F3 (issue 23): `main-db` renamed to `primary-db` when `metabase`
    declares `env: {PRIMARY_DB_URL: ...}` (and `zitadel` `secrets: [PRIMARY_DB_PASSWORD]`)
    was applied, and the product then failed with two RW143 errors. Refused now, naming each
    variable and its consumer; a name whose variables collide with nothing still renames,
    and a collision the old name already has (RW143 now) is no reason to refuse."""
    import shutil

    copy = tmp_path / "orders"
    shutil.copytree(ROOT.parent, copy)
    root = copy / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    text = text.replace("      MB_DB_TYPE: postgres\n", "      MB_DB_TYPE: postgres\n      PRIMARY_DB_URL: postgres://elsewhere\n      MAIN_DB_HOST: db\n")
    text = text.replace("secrets: [ZITADEL_MASTERKEY]", "secrets: [ZITADEL_MASTERKEY, PRIMARY_DB_PASSWORD]")
    root.write_text(text, encoding="utf-8")
    an = analyze(str(root), catalog)
    assert [d.code for ds in an.diagnostics.values() for d in ds].count("RW143") == 1  # MAIN_DB_HOST, already
    pos = at(root, "main-db")
    assert navigate.prepare_rename_at(an, str(root), pos) == (span(root, "main-db"), "main-db")
    assert navigate.rename_refusal_at(an, str(root), pos) is None
    why = navigate.rename_at(an, str(root), pos, "primary-db")
    assert why == (
        "Renaming `main-db` to `primary-db` would inject `PRIMARY_DB_URL` into `metabase` (declared in its `env`), "
        "`PRIMARY_DB_PASSWORD` into `zitadel` (declared in its `secrets`): a variable cannot be both declared and "
        "injected (RW143). Rename or remove that variable first, or choose another name."
    )
    got = navigate.rename_at(an, str(root), pos, "primary")
    assert isinstance(got, dict) and got
    # The rename applied: no RW143 more than before (MAIN_DB_HOST's is fixed by it).
    for path, edits in got.items():
        Path(path).write_text(apply(Path(path).read_text(encoding="utf-8"), edits), encoding="utf-8")
    after = analyze(str(root), catalog)
    assert [d.code for ds in after.diagnostics.values() for d in ds].count("RW143") == 0


def test_rename_to_the_same_name_changes_nothing(orders):
    assert navigate.rename_at(orders, str(ROOT), at(ROOT, "main-db"), "main-db") == {}
    assert isinstance(navigate.rename_at(orders, str(ROOT), at(ROOT, "product"), "x-y"), str)


# --- tricky runways ------------------------------------------------------------------------------

ROOT_NO_SHARED = "runway: 1\nproduct: shop\nmembers:\n  - svc/a\n  - svc/b\n"

TRICKY_ROOT = """\
runway: 1
product: shop
members:
  - svc/a
  - "svc/b"
resources:
  "db":              # a quoted key
    kind: postgres
  'cache-1': {kind: cache}
workloads:
  web:
    uses:
      - db           # a block sequence
      - 'cache-1'
  api:
    uses: [ "db" ,web ]
  esc:
    uses: ["d\\x62"]   # an escape: still `db`
"""
TRICKY_A = "runway: 1\nmember: a\nuses: [db, web]\nrequires: [queue]\n"
TRICKY_B = "runway: 1\nuses:\n  - \"db\"   # quoted\nrequires:\n  - queue\n"


def write(base: Path, root_text: str, members: dict[str, str]) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    root = base.resolve() / "runway.yaml"
    root.write_text(root_text, encoding="utf-8")
    for folder, text in members.items():
        d = base.resolve() / folder
        d.mkdir(parents=True, exist_ok=True)
        (d / "runway.yaml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def tricky(catalog, tmp_path):
    root = write(tmp_path, TRICKY_ROOT, {"svc/a": TRICKY_A, "svc/b": TRICKY_B})
    return analyze(str(root), catalog), root, tmp_path.resolve() / "svc/a/runway.yaml", tmp_path.resolve() / "svc/b/runway.yaml"


def test_tricky_references_find_quoted_block_and_flow_uses(tricky):
    an, root, a, b = tricky
    assert an.diagnostics[str(root)], "workloads without image/port/health/reason: schema errors, navigation still works"
    refs = navigate.references_at(an, str(b), at(b, "db"), True)
    # Quotes are outside every range.
    assert refs == [
        loc(root, "db", 0),  # "db": key
        loc(root, "db", 1),  # - db
        loc(root, "db", 2),  # [ "db" ,
        Location(str(root), span(root, '"d\\x62"')),  # written with an escape: the whole scalar
        loc(a, "db"),
        loc(b, "db"),
    ]


def test_tricky_rename_keeps_quoting_comments_and_spacing(tricky):
    an, root, a, b = tricky
    edits = navigate.rename_at(an, str(root), at(root, "db", 1), "main-db")
    assert isinstance(edits, dict) and set(edits) == {str(root), str(a), str(b)}
    assert apply(root.read_text(), edits[str(root)]) == TRICKY_ROOT.replace('"db":', '"main-db":').replace("- db ", "- main-db ").replace('"db" ,', '"main-db" ,').replace('"d\\x62"', '"main-db"')
    assert apply(a.read_text(), edits[str(a)]) == "runway: 1\nmember: a\nuses: [main-db, web]\nrequires: [queue]\n"
    assert apply(b.read_text(), edits[str(b)]) == "runway: 1\nuses:\n  - \"main-db\"   # quoted\nrequires:\n  - queue\n"


def test_tricky_rename_of_a_workload_used_by_a_member_and_a_single_quoted_key(tricky):
    an, root, a, _b = tricky
    edits = navigate.rename_at(an, str(a), at(a, "web"), "frontend")
    assert apply(root.read_text(), edits[str(root)]) == TRICKY_ROOT.replace("  web:", "  frontend:").replace(",web ]", ",frontend ]")
    assert apply(a.read_text(), edits[str(a)]) == TRICKY_A.replace("web", "frontend")
    edits = navigate.rename_at(an, str(root), at(root, "cache-1"), "cache-2")
    assert apply(root.read_text(), edits[str(root)]) == TRICKY_ROOT.replace("cache-1", "cache-2")


def test_a_name_used_in_two_members_and_a_member_named_after_its_folder(tricky):
    an, root, a, b = tricky
    refs = navigate.references_at(an, str(root), at(root, "db"), False)
    assert {r.file for r in refs} == {str(root), str(a), str(b)}
    # svc/b has no `member:`: its folder names it.
    uses = [o for o in navigate.occurrences(an) if o.file == str(b)]
    assert {o.owner for o in uses} == {"b"}


def test_aliased_uses_are_edited_once(catalog, tmp_path):
    text = "runway: 1\nproduct: shop\nresources:\n  db: {kind: postgres}\nworkloads:\n  w1:\n    uses: &u [db]\n  w2:\n    uses: *u\n"
    root = write(tmp_path, text, {})
    an = analyze(str(root), catalog)
    edits = navigate.rename_at(an, str(root), at(root, "db"), "pg")
    assert apply(text, edits[str(root)]) == text.replace("db", "pg")
    assert len(navigate.references_at(an, str(root), at(root, "db"), True)) == 2


def test_a_name_declared_twice_and_an_undeclared_name_are_not_renamed(catalog, tmp_path):
    text = "runway: 1\nproduct: shop\nresources:\n  x: {kind: queue}\nworkloads:\n  x:\n    uses: [ghost]\n"
    root = write(tmp_path, text, {})
    an = analyze(str(root), catalog)
    why = navigate.rename_refusal_at(an, str(root), at(root, "x"))
    assert why is not None and "declared 2 times" in why
    assert navigate.definition_at(an, str(root), at(root, "x")) == [loc(root, "x", 0), loc(root, "x", 1)]
    ghost = at(root, "ghost")
    assert navigate.prepare_rename_at(an, str(root), ghost) is None
    assert "not declared" in navigate.rename_refusal_at(an, str(root), ghost)


def test_a_declared_shared_name_is_reached_from_requires_but_not_renamed_there(catalog, tmp_path):
    text = ROOT_NO_SHARED + "resources:\n  shared-queue: {kind: queue}\n"
    root = write(tmp_path, text, {"svc/a": TRICKY_A, "svc/b": "runway: 1\n"})
    an = analyze(str(root), catalog)
    a = tmp_path.resolve() / "svc/a/runway.yaml"
    assert navigate.definition_at(an, str(a), at(a, "queue")) == [loc(root, "shared-queue")]
    assert "a kind, not a name" in navigate.rename_refusal_at(an, str(a), at(a, "queue"))


# --- outline, workspace symbols, links -----------------------------------------------------------


def _walk(symbols, depth=0):
    for s in symbols:
        yield s, depth
        yield from _walk(s.children, depth + 1)


def test_root_outline(orders):
    symbols = navigate.document_symbols(orders, str(ROOT))
    assert [(s.name, s.kind) for s in symbols] == [
        ("runway", "number"), ("product", "string"), ("region", "string"),
        ("members", "namespace"), ("environments", "namespace"), ("resources", "namespace"), ("workloads", "namespace"),
    ]
    by = {s.name: s for s in symbols}
    assert [(c.name, c.detail) for c in by["environments"].children] == [
        ("dev", "$126.88 / $150.00 cap"), ("staging", "$258.11 / $500.00 cap"), ("production", "$828.03 / $2,500.00 cap"),
    ]
    assert [(c.name, c.kind, c.detail) for c in by["resources"].children] == [
        ("main-db", "class", "postgres · small/medium/large"),
        ("order-events", "class", "topic · small/small/small"),
        ("invoices", "class", "bucket · small/small/medium"),
    ]
    assert [(c.name, c.detail) for c in by["workloads"].children] == [
        ("metabase", "workload · small/small/medium · 1/1/2 tasks"),
        ("zitadel", "workload · small/small/medium · 1/1/3 tasks"),
        ("pdf-renderer", "workload · medium/medium/medium · 1/1/3 tasks"),
    ]
    assert [(c.name, c.kind, c.detail) for c in by["members"].children] == [("checkout", "package", "services/checkout"), ("billing", "package", "services/billing")]
    main_db = by["resources"].children[0]
    assert main_db.selection_range == span(ROOT, "main-db")
    assert [c.name for c in main_db.children] == ["kind", "engine", "size"]
    assert [(c.name, c.detail) for c in main_db.children[2].children] == [("staging", "medium"), ("production", "large")]


def test_member_outline(orders):
    symbols = navigate.document_symbols(orders, str(CHECKOUT))
    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("runway", "number", "1"), ("member", "string", "checkout"), ("requires", "array", "queue, cache"), ("uses", "array", "main-db, order-events"),
    ]
    assert [(c.name, c.detail) for c in symbols[2].children] == [("queue", "shared-queue · small/small/medium"), ("cache", "shared-cache · small/medium/large")]
    assert [(c.name, c.detail) for c in symbols[3].children] == [("main-db", "postgres · small/medium/large"), ("order-events", "topic · small/small/small")]


@pytest.mark.parametrize(
    "value",
    [
        "[hunter2-flow-list]",
        "\n        - hunter2-block-list",
        "{value: hunter2-flow-map}",
        "\n        value: hunter2-block-map",
        "\n        - {value: hunter2-nested}",
        "[AKIAIOSFODNN7EXAMPLE]",
    ],
    ids=["flow-list", "block-list", "flow-map", "block-map", "list-of-maps", "key-shaped-item"],
)
def test_the_outline_never_shows_a_secret_written_as_a_list_or_map(catalog, tmp_path, value):
    """Seventh adversary F4 (issue 23): `DB_PASSWORD: hunter2` showed `looks like a secret
    (RW147)`, but `DB_PASSWORD: [hunter2]` showed `[hunter2]` as its detail and `{value:
    hunter2}` a child `value` with `hunter2`. Now the list or map under a secret-named key
    (or holding a secret-shaped item) is masked as a scalar is, with no children; other
    `env` entries and `secrets` names are still shown."""
    name = "DB_PASSWORD" if "AKIA" not in value else "IDS"
    root = tmp_path / "runway.yaml"
    root.write_text(
        "runway: 1\nproduct: shop\nworkloads:\n  api:\n"
        f"    image: registry.example.com/api@sha256:{'0' * 64}\n    port: 8080\n    health: {{ path: /health }}\n"
        f"    env:\n      MODE: live\n      {name}: {value}\n      TAGS: [a, b]\n    secrets: [API_TOKEN]\n",
        encoding="utf-8",
    )
    an = analyze(str(root), catalog)
    symbols = list(_walk(navigate.document_symbols(an, str(root))))
    shown = " ".join(f"{s.name} {s.detail}" for s, _depth in symbols)
    assert "hunter2" not in shown and "AKIA" not in shown
    (secret,) = [s for s, _depth in symbols if s.name == name]
    assert (secret.detail, secret.children) == ("looks like a secret (RW147)", ())
    details = {s.name: s.detail for s, _depth in symbols}
    assert (details["MODE"], details["TAGS"], details["secrets"]) == ("live", "[a, b]", "[API_TOKEN]")


def test_member_outline_reads_only_its_own_file(catalog):
    """A member's outline never builds the product's occurrences (issue 16 item 7: in a
    product of 1,000 members that was ~0.15 s per first outline, on the event loop); its
    names' selection ranges are still where occurrences() puts them."""
    an = analyze(str(ROOT), catalog)  # not the shared fixture: its memo must stay unbuilt
    symbols = navigate.document_symbols(an, str(CHECKOUT))
    assert an.occurrences is None
    items = [c for s in symbols if s.name in ("requires", "uses") for c in s.children]
    occs = {(o.range, o.role): o.name_range for o in navigate.occurrences(an) if o.file == os.path.abspath(CHECKOUT)}
    assert items and all(c.selection_range == occs[(c.range, "requires" if c.detail.startswith("shared-") else "use")] for c in items)


@pytest.mark.parametrize("root", [ROOT, EXAMPLES / "broken" / "runway.yaml"], ids=["orders", "broken"])
def test_outline_ranges_nest(catalog, root):
    an = analyze(str(root), catalog)
    for path in an.files:
        for s, _depth in _walk(navigate.document_symbols(an, path)):
            assert s.range.start <= s.selection_range.start and s.selection_range.end <= s.range.end, s
            for c in s.children:
                assert s.range.start <= c.range.start and c.range.end <= s.range.end, (s.name, c.name)


def test_workspace_symbols(orders, catalog, tricky):
    an2 = tricky[0]
    names = [(s.name, s.kind, s.container) for s in navigate.workspace_symbols([orders, an2], "")]
    assert ("main-db", "class", "orders") in names and ("db", "class", "shop") in names
    assert ("dev", "module", "orders") in names and ("checkout", "package", "orders") in names and ("b", "package", "shop") in names
    got = navigate.workspace_symbols([orders], "mdb")
    assert [s.name for s in got] == ["main-db"]
    assert got[0].range == span(ROOT, "main-db") and got[0].file == str(ROOT)
    queue = navigate.workspace_symbols([orders], "shared-queue")
    assert [(s.file, s.range) for s in queue] == [(str(ROOT), span(ROOT, "queue"))]  # its first origin
    assert navigate.workspace_symbols([orders], "zzz") == []
    # Prefix matches first.
    assert [s.name for s in navigate.workspace_symbols([orders], "in")][:1] == ["invoices"]


def test_document_links_from_members_to_member_runways(orders, catalog, tmp_path):
    links = navigate.document_links(orders, str(ROOT))
    assert links == [(span(ROOT, "services/checkout"), str(CHECKOUT)), (span(ROOT, "services/billing"), str(BILLING))]
    assert navigate.document_links(orders, str(CHECKOUT)) == []
    # A missing member folder gets no link (RW151 says why); a quoted path links without its quotes.
    root = write(tmp_path, 'runway: 1\nproduct: shop\nmembers:\n  - "svc/a"\n  - svc/missing\n  - ./svc/a/\n', {"svc/a": TRICKY_A})
    an = analyze(str(root), catalog)
    a = str(tmp_path.resolve() / "svc/a/runway.yaml")
    assert navigate.document_links(an, str(root)) == [(span(root, "svc/a"), a), (span(root, "./svc/a/"), a)]


# --- robustness ------------------------------------------------------------------------------------


@pytest.mark.parametrize("root", [ROOT, EXAMPLES / "broken" / "runway.yaml"], ids=["orders", "broken"])
def test_every_query_at_every_position_never_raises(catalog, root):
    an = analyze(str(root), catalog)
    for path, src in an.files.items():
        lines = src.parsed.lines
        for line in range(lines.line_count + 1):
            for ch in range(0, len(lines.line_text(line)) + 2, 3):
                pos = Position(line, ch)
                navigate.definition_at(an, path, pos)
                navigate.references_at(an, path, pos, True)
                navigate.highlights_at(an, path, pos)
                navigate.prepare_rename_at(an, path, pos)
                navigate.rename_refusal_at(an, path, pos)
                navigate.rename_at(an, path, pos, "renamed")
        navigate.document_symbols(an, path)
        navigate.document_links(an, path)
    navigate.workspace_symbols([an], "a")


def test_partial_and_empty_runways(catalog, tmp_path):
    root = write(tmp_path, "runway: 1\nproduct: shop\nresources:\n  db: {kind: postgres}\nworkloads:\n  w:\n    uses: [db\n", {})
    an = analyze(str(root), catalog)
    assert navigate.references_at(an, str(root), at(root, "db"), True)[0] == loc(root, "db")
    assert navigate.document_symbols(an, str(root))
    empty = write(tmp_path / "e", "", {})
    an = analyze(str(empty), catalog)
    assert navigate.document_symbols(an, str(empty)) == [] and navigate.workspace_symbols([an], "") == []
    assert os.path.basename(an.root_file) == "runway.yaml"


def test_rename_impact_names_the_injected_variables_and_their_readers(orders):
    """Issue 15: what a rename of main-db changes for the services that use it."""
    key = at(ROOT, "  main-db:", shift=3)
    impact = navigate.rename_impact(orders, str(ROOT), key, "primary-db")
    assert impact is not None
    assert impact.kind == "postgres"
    assert impact.variables[0] == ("MAIN_DB_URL", "PRIMARY_DB_URL") and len(impact.variables) == 6
    assert impact.consumers == ("billing", "checkout", "metabase", "zitadel")
    # Issue 26: each use it edits, by consumer, and what changes for one in a few words.
    assert sorted((c, os.path.basename(os.path.dirname(f)), r.start.line + 1) for c, f, r in impact.uses) == [
        ("billing", "billing", 5), ("checkout", "checkout", 5), ("metabase", "orders", 60), ("zitadel", "orders", 74)
    ]
    assert impact.reads("checkout") == "checkout reads MAIN_DB_* (URL, HOST, PORT, USER, PASSWORD, DATABASE) → PRIMARY_DB_*"
    assert navigate.rename_impact(orders, str(ROOT), key, "main-db") is None  # no change
    assert navigate.rename_impact(orders, str(ROOT), key, "Bad_Name") is None  # refused


def test_rename_renames_the_usage_files_item_keys_in_every_environment(tmp_path, catalog):
    """Tenth adversary L5: renaming `invoices` left `environments.<env>.items.invoices:` in
    the usage file: RW201 "unknown item" afterwards, its 90,000 GB no longer priced and
    production's cost (and verdict) changed. The item key of every environment is renamed in
    the same edit (quoted keys keep their quotes; other items and a same-named usage key stay)."""
    import shutil

    copy = tmp_path / "orders"
    shutil.copytree(ROOT.parent, copy)
    root, usage = copy / "runway.yaml", copy / "runway.usage.yaml"
    usage.write_text(
        "usage: 1\nenvironments:\n  production:\n    items:\n      invoices: {storage_gb: 90000}  # the archive\n"
        "  dev:\n    items:\n      \"invoices\":\n        storage_gb: 5\n  staging:\n    items:\n      main-db: {}\n",
        encoding="utf-8",
    )
    an = analyze(str(root), catalog)
    assert [d.code for ds in an.diagnostics.values() for d in ds if d.code.startswith("RW20")] == []
    before = {env: (plan.total, plan.verdict) for env, plan in an.plans.items()}
    got = navigate.rename_at(an, str(root), at(root, "invoices:"), "receipts")
    assert isinstance(got, dict)
    assert sorted(os.path.relpath(p, copy) for p in got) == ["runway.usage.yaml", "runway.yaml", "services/billing/runway.yaml"]
    assert got[str(usage)] == [TextEdit(span(usage, "invoices", 0), "receipts"), TextEdit(span(usage, "invoices", 1), "receipts")]
    for path, edits in got.items():
        Path(path).write_text(apply(Path(path).read_text(encoding="utf-8"), edits), encoding="utf-8")
    assert "      receipts: {storage_gb: 90000}  # the archive\n" in usage.read_text(encoding="utf-8")
    assert '      "receipts":\n' in usage.read_text(encoding="utf-8")
    after = analyze(str(root), catalog)
    assert [d.code for ds in after.diagnostics.values() for d in ds if d.code.startswith("RW20")] == []
    assert {env: (plan.total, plan.verdict) for env, plan in after.plans.items()} == before
    stored = after.plans["production"].item("receipts")
    assert stored is not None and any(li.quantity_source == "usage file L5" for li in stored.line_items)
