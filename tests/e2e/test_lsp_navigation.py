"""End to end: navigation, symbols, document links and the initial workspace scan of the real
runway-lsp over stdio (pytest-lsp).

Every test runs with three clients: VS Code-like (utf-16, pulls diagnostics, WorkspaceEdit
``documentChanges``), Neovim-like (utf-16, ``changes``) and Neovim-like offering utf-8.
Edits returned by the server are applied here, in the negotiated encoding, and the result is
compared with the expected file text. Tests await responses and notifications; none sleeps.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lspclient import TIMEOUT, codes, did_change, did_open, files, init, last_version, line_of, make_client, neovim_caps, pull, until, vscode_caps

CLIENTS: list[tuple[str, Callable[[], types.ClientCapabilities], str]] = [
    ("vscode", vscode_caps, "utf-16"),
    ("neovim", neovim_caps, "utf-16"),
    ("neovim-utf8", lambda: neovim_caps(utf8=True), "utf-8"),
]
each_client = pytest.mark.parametrize(("caps", "encoding"), [(c, e) for _n, c, e in CLIENTS], ids=[n for n, _c, _e in CLIENTS])
PROGRESS = types.PROGRESS


# --- helpers ------------------------------------------------------------------------------------


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the encoding's units (written here, not taken from the server)."""
    return len(text.encode("utf-8")) if encoding == "utf-8" else len(text.encode("utf-16-le")) // 2


def pos(path: Path, needle: str, encoding: str, nth: int = 0, shift: int = 1) -> types.Position:
    """A position ``shift`` characters into the ``nth`` occurrence of ``needle``, in units."""
    text = path.read_text(encoding="utf-8")
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    line = text.count("\n", 0, i)
    start = text.rfind("\n", 0, i) + 1
    return types.Position(line=line, character=units(text[start : i + shift], encoding))


def rng(path: Path, needle: str, encoding: str, nth: int = 0) -> tuple[int, int, int, int]:
    start = pos(path, needle, encoding, nth, shift=0)
    return (start.line, start.character, start.line, start.character + units(needle, encoding))


def tup(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def _offset(text: str, p: types.Position, encoding: str) -> int:
    lines = text.split("\n")
    off = sum(len(line) + 1 for line in lines[: p.line])
    line, count, i = lines[p.line], 0, 0
    while i < len(line) and count < p.character:
        count += units(line[i], encoding)
        i += 1
    return off + i


def apply_edits(text: str, edits, encoding: str) -> str:
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(edit: types.WorkspaceEdit, texts: dict[str, str], encoding: str) -> tuple[dict[str, str], dict[str, int | None]]:
    """The texts after ``edit`` (by URI) and the version each TextDocumentEdit named."""
    out, versions = dict(texts), {}
    if edit.document_changes is not None:
        assert edit.changes is None
        for change in edit.document_changes:
            assert isinstance(change, types.TextDocumentEdit)
            uri = change.text_document.uri
            versions[uri] = change.text_document.version
            out[uri] = apply_edits(out[uri], change.edits, encoding)
    else:
        for uri, edits in (edit.changes or {}).items():
            out[uri] = apply_edits(out[uri], edits, encoding)
    return out, versions


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


async def wait(coro):
    return await asyncio.wait_for(coro, TIMEOUT)


async def start(client: LanguageClient, caps, encoding: str, folder: Path) -> None:
    result = await init(client, caps(), folder)
    assert result.capabilities.position_encoding == encoding


# --- definition, references, highlight ---------------------------------------------------------


@each_client
async def test_definition_from_a_member_use_and_from_a_member_path(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, _billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, checkout)
    got = await wait(client.text_document_definition_async(types.DefinitionParams(text_document=doc(checkout), position=pos(checkout, "main-db", encoding))))
    assert [(loc.uri, tup(loc.range)) for loc in got] == [(root.as_uri(), (27, 2, 27, 9))]
    assert line_of(root, "  main-db:")[0] == 27

    did_open(client, root)
    got = await wait(client.text_document_definition_async(types.DefinitionParams(text_document=doc(root), position=pos(root, "services/checkout", encoding, shift=3))))
    assert [(loc.uri, tup(loc.range)) for loc in got] == [(checkout.as_uri(), (0, 0, 0, 0))]
    # The implicit shared-queue: where the environments size it (dev, production).
    got = await wait(client.text_document_definition_async(types.DefinitionParams(text_document=doc(checkout), position=pos(checkout, "queue", encoding))))
    assert [(loc.uri, loc.range.start.line) for loc in got] == [(root.as_uri(), 13), (root.as_uri(), 24)]


@each_client
async def test_references_of_main_db(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, root)
    at = pos(root, "main-db", encoding)
    with_decl = await wait(client.text_document_references_async(types.ReferenceParams(text_document=doc(root), position=at, context=types.ReferenceContext(include_declaration=True))))
    assert [(loc.uri, loc.range.start.line) for loc in with_decl] == [
        (root.as_uri(), 27),  # the declaration
        (root.as_uri(), 59),  # metabase
        (root.as_uri(), 73),  # zitadel
        (checkout.as_uri(), 4),
        (billing.as_uri(), 4),
    ]
    without = await wait(client.text_document_references_async(types.ReferenceParams(text_document=doc(root), position=at, context=types.ReferenceContext(include_declaration=False))))
    assert len(without) == 4 and (root.as_uri(), 27) not in [(loc.uri, loc.range.start.line) for loc in without]


@each_client
async def test_document_highlight(client: LanguageClient, orders: Path, caps, encoding):
    root, _checkout, _billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, root)
    got = await wait(client.text_document_document_highlight_async(types.DocumentHighlightParams(text_document=doc(root), position=pos(root, "uses: [main-db]", encoding, shift=9))))
    assert [(tup(h.range), h.kind) for h in got] == [
        ((27, 2, 27, 9), types.DocumentHighlightKind.Write),
        ((59, 11, 59, 18), types.DocumentHighlightKind.Read),
        ((73, 11, 73, 18), types.DocumentHighlightKind.Read),
    ]


# --- rename ----------------------------------------------------------------------------------------

CHECKOUT_RENAMED = "# Member runway of the checkout service.\n# edited\nrunway: 1\nmember: checkout\nrequires: [queue, cache]\nuses: [primary-db, order-events]\n"
BILLING_RENAMED = "# Member runway of the billing service.\nrunway: 1\nmember: billing\nrequires: [queue]\nuses: [primary-db, invoices]\n"


@each_client
async def test_rename_main_db_in_the_root_and_both_members(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, billing = files(orders)
    result = await init(client, caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    # An unsaved edit in checkout (version 2): the rename works on the buffer, not the disk.
    checkout_text = checkout.read_text().replace("\nrunway: 1", "\n# edited\nrunway: 1")
    did_change(client, checkout, 2, (1, 0), (1, 0), "# edited\n")
    at = pos(checkout, "main-db", encoding)
    at = types.Position(line=at.line + 1, character=at.character)  # below the inserted line

    prep = await wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(checkout), position=at)))
    assert prep.placeholder == "main-db" and tup(prep.range) == (5, 7, 5, 14)

    edit = await wait(client.text_document_rename_async(types.RenameParams(text_document=doc(checkout), position=at, new_name="primary-db")))
    texts = {root.as_uri(): root.read_text(), checkout.as_uri(): checkout_text, billing.as_uri(): billing.read_text()}
    after, versions = apply_workspace_edit(edit, texts, encoding)

    assert after[checkout.as_uri()] == CHECKOUT_RENAMED
    assert after[billing.as_uri()] == BILLING_RENAMED
    expected_root = root.read_text().replace("  main-db:\n", "  primary-db:\n").replace("    uses: [main-db]\n", "    uses: [primary-db]\n")
    assert after[root.as_uri()] == expected_root
    assert expected_root.count("primary-db") == 3 and "main-db" not in expected_root
    if caps is vscode_caps:
        # documentChanges: the open documents' versions, null for the closed billing file.
        assert edit.changes is None
        assert versions == {root.as_uri(): 1, checkout.as_uri(): 2, billing.as_uri(): None}
    else:
        assert edit.document_changes is None and set(edit.changes) == set(texts)
    assert result.capabilities.rename_provider.prepare_provider is True

    # The editor applies the edit (a closed file is opened to be edited): no dangling use.
    did_change(client, root, 2, (0, 0), (10_000, 0), after[root.as_uri()])
    did_change(client, checkout, 3, (0, 0), (10_000, 0), after[checkout.as_uri()])
    did_open(client, billing, after[billing.as_uri()])
    if caps is vscode_caps:  # a pulling client asks for each open document's diagnostics
        assert [[d.code for d in await pull(client, p)] for p in (root, checkout, billing)] == [["RW140"], [], []]
    else:
        await until(client, lambda: last_version(client, billing) == 1 and last_version(client, checkout) == 3 and last_version(client, root) == 2)
        assert [codes(client, p) for p in (root, checkout, billing)] == [["RW140"], [], []]


async def test_rename_asks_for_confirmation_naming_the_injected_variables_and_their_readers(client: LanguageClient, orders: Path):
    """Issues 15 and 26: renaming main-db renames every consumer's MAIN_DB_* variables, which
    running services read. A client with change annotations (VS Code) gets each consumer's
    ``uses`` edit under an annotation naming it and the variables, which needs confirmation,
    and the declaration under one that does not. VS Code's Refactor Preview groups edits by
    annotation label and starts unticked only those that need confirmation
    (bulkEditPreview.ts, ``BulkFileOperations._init``: ``updateChecked(edit,
    !edit.metadata?.needsConfirmation)``; categories keyed by ``metadata.label``)."""
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    at = pos(root, "  main-db:", "utf-16", shift=3)
    edit = await wait(client.text_document_rename_async(types.RenameParams(text_document=doc(root), position=at, new_name="primary-db")))
    annotations = edit.change_annotations
    assert annotations is not None
    labels = {aid: (a.label, a.needs_confirmation) for aid, a in annotations.items()}
    reads = "reads MAIN_DB_* (URL, HOST, PORT, USER, PASSWORD, DATABASE) → PRIMARY_DB_*"
    assert labels == {
        "runway.rename.declaration": ("Rename main-db to primary-db", False),
        **{f"runway.rename.reads.{c}": (f"{c} {reads}", True) for c in ("billing", "checkout", "metabase", "zitadel")},
    }
    assert annotations["runway.rename.reads.checkout"].description == (
        "checkout's code must read the new names: MAIN_DB_URL → PRIMARY_DB_URL, MAIN_DB_HOST → PRIMARY_DB_HOST, MAIN_DB_PORT → PRIMARY_DB_PORT, "
        "MAIN_DB_USER → PRIMARY_DB_USER, MAIN_DB_PASSWORD → PRIMARY_DB_PASSWORD, MAIN_DB_DATABASE → PRIMARY_DB_DATABASE."
    )
    by_file = {change.text_document.uri: [e.annotation_id for e in change.edits] for change in edit.document_changes}
    assert all(isinstance(e, types.AnnotatedTextEdit) for change in edit.document_changes for e in change.edits)
    # The root: the declaration, metabase's and zitadel's uses; each member: its own use.
    assert sorted(by_file[root.as_uri()]) == ["runway.rename.declaration", "runway.rename.reads.metabase", "runway.rename.reads.zitadel"]
    assert by_file[_checkout.as_uri()] == ["runway.rename.reads.checkout"]
    assert by_file[_billing.as_uri()] == ["runway.rename.reads.billing"]


async def test_rename_without_readers_or_annotation_support_needs_no_confirmation(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)  # no changeAnnotationSupport
    did_open(client, root)
    edit = await wait(client.text_document_rename_async(types.RenameParams(text_document=doc(root), position=pos(root, "  main-db:", "utf-16", shift=3), new_name="primary-db")))
    assert edit.change_annotations is None and edit.changes is not None


@each_client
async def test_rename_refusals_carry_the_reason(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, _billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, checkout)
    with pytest.raises(JsonRpcException, match="implicit resource"):
        await wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(checkout), position=pos(checkout, "queue", encoding))))
    at = pos(checkout, "main-db", encoding)
    for bad, says in (("Primary_DB", "not a valid name"), ("invoices", "already names a resource"), ("shared-cache", "implicit shared cache pool")):
        with pytest.raises(JsonRpcException, match=says):
            await wait(client.text_document_rename_async(types.RenameParams(text_document=doc(checkout), position=at, new_name=bad)))
    # Nowhere near a name: no rename, and no error either.
    assert await wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(checkout), position=types.Position(line=1, character=2)))) is None


#: A server logging at INFO, its stderr appended to :data:`STDERR_LOG`, so a test can read it.
STDERR_LOG = Path(tempfile.gettempdir()) / f"runway-lsp-navigation-{os.getpid()}.log"
LOGGED_SERVER = ["sh", "-c", 'exec "$0" -m runway_lsp --stdio --log-level INFO 2>>"$RUNWAY_TEST_STDERR"', sys.executable]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=LOGGED_SERVER, client_factory=make_client, server_env={**os.environ, "RUNWAY_TEST_STDERR": str(STDERR_LOG)}))
async def logged(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def test_a_refused_rename_is_one_line_in_the_log_not_a_traceback(logged: LanguageClient, orders: Path):
    mark = STDERR_LOG.stat().st_size if STDERR_LOG.exists() else 0
    root, _checkout, _billing = files(orders)
    await start(logged, neovim_caps, "utf-16", orders)
    did_open(logged, root)
    with pytest.raises(JsonRpcException, match="not a valid name"):
        await wait(logged.text_document_rename_async(types.RenameParams(text_document=doc(root), position=pos(root, "main-db", "utf-16"), new_name="Primary_DB")))
    with open(STDERR_LOG, "rb") as fh:  # the server logs before it answers
        fh.seek(mark)
        log = fh.read().decode("utf-8", "replace")
    refused = [line for line in log.splitlines() if "rename refused" in line]
    assert len(refused) == 1 and " INFO " in refused[0] and "`Primary_DB` is not a valid name" in refused[0], log[-2000:]
    assert "Traceback" not in log and " ERROR " not in log, log[-2000:]


EMOJI_ROOT = (
    "runway: 1\n"
    "product: shop\n"
    "resources:\n"
    "  db: {kind: postgres}\n"
    "workloads:\n"
    '  web: {reason: "on-prem-parity 🚀 ü", image: "nginx@sha256:' + "ab" * 32 + '", port: 80, health: {path: /}, uses: [db]}\n'
)


@each_client
async def test_positions_after_an_emoji_in_both_encodings(client: LanguageClient, tmp_path: Path, caps, encoding):
    folder = tmp_path.resolve()
    root = folder / "runway.yaml"
    root.write_text(EMOJI_ROOT, encoding="utf-8")
    await start(client, caps, encoding, folder)
    did_open(client, root)
    use = pos(root, "[db]", encoding, shift=2)
    line5 = EMOJI_ROOT.splitlines()[5]
    col = units(line5[: line5.index("[db]") + 1], encoding)
    assert col == line5.index("[db]") + 1 + {"utf-8": 3 + 1, "utf-16": 1}[encoding]  # 🚀: 4 bytes or 2 units; ü: 2 bytes

    got = await wait(client.text_document_definition_async(types.DefinitionParams(text_document=doc(root), position=use)))
    assert [tup(loc.range) for loc in got] == [(3, 2, 3, 4)]
    refs = await wait(client.text_document_references_async(types.ReferenceParams(text_document=doc(root), position=types.Position(line=3, character=3), context=types.ReferenceContext(include_declaration=True))))
    assert [tup(loc.range) for loc in refs] == [(3, 2, 3, 4), (5, col, 5, col + 2)]
    edit = await wait(client.text_document_rename_async(types.RenameParams(text_document=doc(root), position=use, new_name="pg")))
    after, _versions = apply_workspace_edit(edit, {root.as_uri(): EMOJI_ROOT}, encoding)
    assert after[root.as_uri()] == EMOJI_ROOT.replace("  db:", "  pg:").replace("[db]", "[pg]")


# --- symbols and links -------------------------------------------------------------------------------


@each_client
async def test_document_symbols_outline(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, _billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, root)
    symbols = await wait(client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(root))))
    assert all(isinstance(s, types.DocumentSymbol) for s in symbols)
    assert [s.name for s in symbols] == ["runway", "product", "region", "members", "environments", "resources", "workloads"]
    by = {s.name: s for s in symbols}
    assert by["resources"].kind == types.SymbolKind.Namespace
    assert [(c.name, c.kind, c.detail) for c in by["resources"].children] == [
        ("main-db", types.SymbolKind.Class, "postgres · small/medium/large"),
        ("order-events", types.SymbolKind.Class, "topic · small/small/small"),
        ("invoices", types.SymbolKind.Class, "bucket · small/small/medium"),
    ]
    assert [(c.name, c.detail) for c in by["environments"].children] == [
        ("dev", "$126.88 / $150.00 cap"), ("staging", "$258.11 / $500.00 cap"), ("production", "$828.03 / $2,500.00 cap"),
    ]
    assert by["workloads"].children[0].detail == "workload · small/small/medium · 1/1/2 tasks"
    assert tup(by["resources"].children[0].selection_range) == (27, 2, 27, 9)
    assert tup(by["resources"].children[0].range) == (27, 2, 34, 23)

    did_open(client, checkout)
    member = await wait(client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(checkout))))
    uses = next(s for s in member if s.name == "uses")
    assert [(c.name, c.detail) for c in uses.children] == [("main-db", "postgres · small/medium/large"), ("order-events", "topic · small/small/small")]


async def test_flat_document_symbols_for_a_client_without_hierarchy(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    caps = neovim_caps()
    caps.text_document.document_symbol.hierarchical_document_symbol_support = False
    await init(client, caps, orders)
    did_open(client, root)
    symbols = await wait(client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(root))))
    assert all(isinstance(s, types.SymbolInformation) for s in symbols)
    flat = [(s.name, s.container_name) for s in symbols]
    assert ("main-db", "resources") in flat and ("metabase", "workloads") in flat and ("dev", "environments") in flat
    assert ("kind", "main-db") not in flat  # keys below an entry would bury it
    main_db = next(s for s in symbols if s.name == "main-db")
    assert (main_db.location.uri, tup(main_db.location.range)) == (root.as_uri(), (27, 2, 27, 9))


@each_client
async def test_document_links_to_member_runways(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, billing = files(orders)
    await start(client, caps, encoding, orders)
    did_open(client, root)
    links = await wait(client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc(root))))
    assert [(tup(link.range), link.target) for link in links] == [
        (rng(root, "services/checkout", encoding), checkout.as_uri()),
        (rng(root, "services/billing", encoding), billing.as_uri()),
    ]
    # Tooltips only for a client that says it shows them (VS Code does).
    assert all((link.tooltip is not None) == (caps is vscode_caps) for link in links)


# --- the initial workspace scan -------------------------------------------------------------------------


@each_client
async def test_the_scan_alone_finds_the_root_for_workspace_symbols_and_diagnostics(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, billing = files(orders)
    await start(client, caps, encoding, orders)
    # No document is opened: everything comes from the scan.
    symbols = await wait(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="main")))
    assert [(s.name, s.location.uri, tup(s.location.range), s.container_name) for s in symbols] == [("main-db", root.as_uri(), (27, 2, 27, 9), "orders")]
    everything = await wait(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")))
    names = {s.name for s in everything}
    assert {"main-db", "order-events", "invoices", "metabase", "zitadel", "pdf-renderer", "shared-queue", "shared-cache", "dev", "staging", "production", "checkout", "billing"} <= names
    # ... and it published the diagnostics of every file of the root.
    await until(client, lambda: all(p.as_uri() in client.diagnostics for p in (root, checkout, billing)))
    assert codes(client, root) == ["RW140"] and codes(client, checkout) == [] and codes(client, billing) == []


async def _progress_done(client: LanguageClient) -> list:
    def ended():
        return any(r and isinstance(r[-1], types.WorkDoneProgressEnd) for r in client.progress_reports.values())

    async def loop():
        while not ended():
            await client.wait_for_notification(PROGRESS)

    await asyncio.wait_for(loop(), TIMEOUT)
    return next(r for r in client.progress_reports.values() if r and isinstance(r[-1], types.WorkDoneProgressEnd))


@pytest.mark.parametrize("caps", [vscode_caps, neovim_caps], ids=["vscode", "neovim"])
async def test_the_scan_reports_work_done_progress(client: LanguageClient, orders: Path, caps):
    (orders / "node_modules" / "x").mkdir(parents=True)
    (orders / "node_modules" / "x" / "runway.yaml").write_text("runway: 1\nproduct: not-scanned\n")
    await init(client, caps(), orders.parent)  # the folder above: the root is found one level down
    reports = await _progress_done(client)
    begin, *middle, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.title == "Scanning runway files"
    assert [(r.message, r.percentage) for r in middle] == [("orders/runway.yaml (1/1)", 100)]
    assert end.message == "1 runway (3 files)"
    symbols = await wait(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="not-scanned")))
    assert symbols == []


async def test_no_progress_without_client_support(client: LanguageClient, orders: Path):
    caps = neovim_caps()
    caps.window.work_done_progress = False
    await init(client, caps, orders)
    symbols = await wait(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zitadel")))
    assert [s.name for s in symbols] == ["zitadel"]  # answered after the scan ended
    assert client.progress_reports == {}
