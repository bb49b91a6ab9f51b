"""End to end: quick fixes from the real runway-lsp over stdio (pytest-lsp).

For each client capability set (VS Code: pull diagnostics, utf-16, ``documentChanges``;
Neovim 0.9: push diagnostics, ``changes``, utf-16 or utf-8), the test takes a diagnostic the
server published or answered, asks for its code actions, applies the returned WorkspaceEdit
to the text itself (positions decoded here in the negotiated encoding, independently of the
server's code) and compares the whole file; then sends the edit back as ``didChange`` and
awaits the diagnostic's disappearance. Tests await responses and notifications; never sleep.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_change, did_open, files, init, last_version, line_of, neovim_caps, pull, pull_until, until, vscode_caps

DIGEST = "0123456789abcdef" * 4

CLIENTS = [
    pytest.param(vscode_caps, "utf-16", True, id="vscode-pull-utf16"),
    pytest.param(neovim_caps, "utf-16", False, id="neovim-push-utf16"),
    pytest.param(lambda: neovim_caps(utf8=True), "utf-8", False, id="neovim-push-utf8"),
]


# --- applying edits as a client would ----------------------------------------------------------


def _offset(text: str, pos: types.Position, encoding: str) -> int:
    """Code-point offset of an LSP position (lines end at \\r\\n, \\r or \\n; ``character``
    counts utf-16 code units or utf-8 bytes)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    start = starts[pos.line]
    end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
    line = text[start:end].rstrip("\r\n")
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return start + i
        units += len(ch.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(ch.encode("utf-8"))
    return start + len(line)


def apply_text_edits(text: str, edits, encoding: str) -> str:
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_by_uri(action: types.CodeAction, document_changes: bool) -> dict[str, tuple[int | None, list[types.TextEdit]]]:
    """The action's edits per URI with the version they were made for; asserts the shape the
    client asked for (documentChanges or changes, never both)."""
    edit = action.edit
    assert edit is not None
    if document_changes:
        assert edit.changes is None
        return {dc.text_document.uri: (dc.text_document.version, list(dc.edits)) for dc in edit.document_changes}
    assert edit.document_changes is None
    return {uri: (None, list(es)) for uri, es in edit.changes.items()}


def send_edits(client: LanguageClient, path: Path, version: int, edits: list[types.TextEdit]) -> None:
    """The applied edit as one didChange: incremental changes, last position first (each
    range is relative to the text before the edit, as a client applies a WorkspaceEdit)."""
    changes = [
        types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    ]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version), content_changes=changes
        )
    )


async def diagnostics_of(client: LanguageClient, path: Path, code: str, pulls: bool) -> list[types.Diagnostic]:
    if pulls:
        return [d for d in await pull_until(client, path, lambda items: code in [d.code for d in items]) if d.code == code]
    await until(client, lambda: code in codes(client, path))
    return [d for d in client.diagnostics[path.as_uri()] if d.code == code]


async def gone(client: LanguageClient, path: Path, code: str, version: int, pulls: bool) -> None:
    if pulls:
        assert code not in [d.code for d in await pull(client, path)]
    else:
        await until(client, lambda: last_version(client, path) == version)
        assert code not in codes(client, path)


async def actions(client: LanguageClient, path: Path, rng: types.Range, diagnostics: list[types.Diagnostic], only=None) -> list[types.CodeAction]:
    result = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                range=rng,
                context=types.CodeActionContext(diagnostics=diagnostics, only=only),
            )
        ),
        TIMEOUT,
    )
    return list(result or [])


# --- unknown size after an emoji ---------------------------------------------------------------

EMOJI = (
    "runway: 1\n"
    "product: shop\n"
    "workloads:\n"
    f'  web: {{ reason: "🚀 no-managed-fit", size: \'medum\', image: "web@sha256:{DIGEST}", port: 80, health: {{ path: / }} }}  # 🚀 launch\n'
)


@pytest.mark.parametrize(("caps", "encoding", "pulls"), CLIENTS)
async def test_unknown_size_fix_after_an_emoji(client: LanguageClient, tmp_path: Path, caps, encoding, pulls):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(EMOJI, encoding="utf-8")
    result = await init(client, caps(), tmp_path)
    assert result.capabilities.position_encoding == encoding
    assert list(result.capabilities.code_action_provider.code_action_kinds) == [types.CodeActionKind.QuickFix]
    did_open(client, f)
    (d,) = await diagnostics_of(client, f, "RW130", pulls)
    line = EMOJI.splitlines()[3]
    before = line[: line.index("'medum'")]
    unit = len(before.encode("utf-8")) if encoding == "utf-8" else len(before.encode("utf-16-le")) // 2
    assert (d.range.start.line, d.range.start.character) == (3, unit)

    got = await actions(client, f, d.range, [d])
    assert [(a.title, a.is_preferred) for a in got] == [
        ("Change size to small ($8.01/mo in every environment)", None),
        ("Change size to medium ($32.02/mo in every environment)", True),
        ("Change size to large ($128.06/mo in every environment)", None),
    ]
    medium = got[1]
    assert medium.kind == types.CodeActionKind.QuickFix
    assert list(medium.diagnostics) == [d]  # the client's own diagnostic, data included
    edits = edits_by_uri(medium, document_changes=pulls)
    assert list(edits) == [f.as_uri()]
    version, text_edits = edits[f.as_uri()]
    assert version == (1 if pulls else None)
    expected = EMOJI.replace("'medum'", "'medium'")
    assert apply_text_edits(EMOJI, text_edits, encoding) == expected

    send_edits(client, f, 2, text_edits)
    await gone(client, f, "RW130", 2, pulls)


# --- over cap: the fit, applied, clears RW170 (a CRLF file) -------------------------------------

OVER = (
    "# dev runs over its default cap ($150)\r\n"
    "runway: 1\r\n"
    "product: overdev\r\n"
    "resources:\r\n"
    "  main-db:\r\n"
    "    kind: postgres\r\n"
    "    size: medium   # 🐘 staging and production too\r\n"
    "  cache:\r\n"
    "    kind: cache\r\n"
    "    size:\r\n"
    "      dev: medium\r\n"
    "workloads:\r\n"
    "  api:\r\n"
    f"    image: registry.example.com/api@sha256:{DIGEST}\r\n"
    "    port: 8080\r\n"
    "    health: { path: /health }\r\n"
    "    uses: [main-db, cache]\r\n"
    "    expose: public\r\n"
    '    reason: "no-managed-fit: our API"\r\n'
)


@pytest.mark.parametrize(("caps", "encoding", "pulls"), CLIENTS)
async def test_over_cap_fit_clears_the_error(client: LanguageClient, tmp_path: Path, caps, encoding, pulls):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_bytes(OVER.encode("utf-8"))
    await init(client, caps(), tmp_path)
    did_open(client, f, OVER)
    (d,) = await diagnostics_of(client, f, "RW170", pulls)
    assert d.data["environment"] == "dev"

    got = await actions(client, f, d.range, [d])
    # The fit and "resize main-db in dev to small" are one edit: offered once (issue 15).
    assert [a.title for a in got] == [
        "Fit dev under its cap: resize main-db to small — total $111.24",
        "Resize cache in dev to small — saves $28.04/month, dev total becomes $186.39",
    ]
    assert [a.is_preferred for a in got] == [True, None]
    _version, text_edits = edits_by_uri(got[0], document_changes=pulls)[f.as_uri()]
    expected = OVER.replace("    size: medium   #", "    size: {dev: small, staging: medium, production: medium}   #")
    assert apply_text_edits(OVER, text_edits, encoding) == expected

    send_edits(client, f, 2, text_edits)
    await gone(client, f, "RW170", 2, pulls)


# --- a member's unknown use: a new resource in the (closed) root --------------------------------


@pytest.mark.parametrize(("caps", "encoding", "pulls"), CLIENTS)
async def test_member_unknown_use_creates_a_resource_in_the_root(client: LanguageClient, orders: Path, caps, encoding, pulls):
    root, checkout, _billing = files(orders)
    await init(client, caps(), orders)
    did_open(client, checkout)
    if not pulls:
        await until(client, lambda: last_version(client, checkout) == 1)
    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db, order-event, payments-queue]")
    if not pulls:
        await until(client, lambda: last_version(client, checkout) == 2)
    found = await diagnostics_of(client, checkout, "RW152", pulls)
    assert [x.data["name"] for x in found] == ["order-event", "payments-queue"]

    typo = await actions(client, checkout, found[0].range, [found[0]])
    assert [(a.title, a.is_preferred) for a in typo] == [
        ("Change `order-event` to `order-events`", True),
        ("Create resource `order-event` (kind: topic)", None),
    ]
    got = await actions(client, checkout, found[1].range, [found[1]])
    assert [a.title for a in got] == ["Create resource `payments-queue` (kind: queue)"]
    edits = edits_by_uri(got[0], document_changes=pulls)
    assert list(edits) == [root.as_uri()]
    version, text_edits = edits[root.as_uri()]
    assert version is None  # the root is not open: no version to check against
    root_text = root.read_text(encoding="utf-8")
    # After the last resource, kept apart by a blank line as the others are.
    assert root_text.count("\n\nworkloads:") == 1
    expected = root_text.replace("\n\nworkloads:", "\n\n  payments-queue:\n    kind: queue\n\nworkloads:")
    assert apply_text_edits(root_text, text_edits, encoding) == expected


# --- requests without diagnostics, kinds filter, robustness -------------------------------------


async def test_range_without_diagnostics_kinds_filter_and_unknown_documents(client: LanguageClient, tmp_path: Path):
    f = tmp_path.resolve() / "runway.yaml"
    text = "runway: 1\nproduct: shop\nresources:\n  files:\n    kind: bucket\n    sise: medium\n"
    f.write_text(text, encoding="utf-8")
    await init(client, neovim_caps(), tmp_path)
    did_open(client, f)
    await until(client, lambda: "RW102" in codes(client, f))
    cursor = types.Range(start=types.Position(line=5, character=6), end=types.Position(line=5, character=6))
    # No diagnostics in the context (some clients send none): our diagnostics at the range.
    got = await actions(client, f, cursor, [])
    assert [a.title for a in got] == ["Rename `sise` to `size`"]
    assert got[0].diagnostics[0].code == "RW102"
    assert apply_text_edits(text, got[0].edit.changes[f.as_uri()], "utf-16") == text.replace("sise", "size")
    # Only refactorings asked for: no quick fixes; quick fixes asked for: there they are.
    assert await actions(client, f, cursor, [], only=[types.CodeActionKind.Refactor]) == []
    assert len(await actions(client, f, cursor, [], only=[types.CodeActionKind.QuickFix])) == 1
    # Someone else's diagnostic is not ours to fix; a stale one of ours matches nothing.
    other = types.Diagnostic(range=cursor, message="x", source="yaml", code="RW102")
    stale = types.Diagnostic(range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=3)), message="x", source="runway", code="RW102")
    assert await actions(client, f, cursor, [stale]) == []
    assert [a.title for a in await actions(client, f, cursor, [other])] == ["Rename `sise` to `size`"]
    # Unknown documents and absurd positions degrade to no actions.
    ghost = tmp_path.resolve() / "ghost" / "runway.yaml"
    far = types.Range(start=types.Position(line=999, character=999), end=types.Position(line=999, character=999))
    assert await actions(client, ghost, far, []) == []
    assert await actions(client, f, far, []) == []


async def test_a_client_without_code_action_literals_gets_none(client: LanguageClient, tmp_path: Path):
    # LSP 3.17: without codeActionLiteralSupport the client expects Commands; a quick fix is an edit.
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text("runway: 1\nproduct: shop\nresources:\n  files:\n    kind: bucket\n    sise: medium\n", encoding="utf-8")
    caps = neovim_caps()
    caps.text_document.code_action = types.CodeActionClientCapabilities(dynamic_registration=False)
    await init(client, caps, tmp_path)
    did_open(client, f)
    await until(client, lambda: "RW102" in codes(client, f))
    d = next(d for d in client.diagnostics[f.as_uri()] if d.code == "RW102")
    assert await actions(client, f, d.range, [d]) == []


# --- RW006: tabs replaced with spaces, the whole file at once -----------------------------------

TABBED = (
    "runway: 1\n"
    "product: tabs   # 🐪 tab-indented\n"
    "resources:\n"
    "\tdb:\n"
    "\t\tkind: postgres\n"
    "\tjobs:\n"
    "\t\tkind: queue\n"
)


@pytest.mark.parametrize(("caps", "encoding", "pulls"), CLIENTS[:2])
async def test_tab_indentation_fix_for_the_whole_file_clears_rw006(client: LanguageClient, tmp_path: Path, caps, encoding, pulls):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(TABBED, encoding="utf-8")
    await init(client, caps(), tmp_path)
    did_open(client, f)
    (d,) = await diagnostics_of(client, f, "RW006", pulls)
    assert d.range.start.line == 3
    got = await actions(client, f, d.range, [d])
    assert [(a.title, a.is_preferred) for a in got] == [
        ("Replace tabs with spaces", True),
        ("Replace tabs with spaces in the whole file (4 lines)", None),
    ]
    version, text_edits = edits_by_uri(got[1], document_changes=pulls)[f.as_uri()]
    expected = TABBED.replace("\t\t", "    ").replace("\t", "  ")
    assert apply_text_edits(TABBED, text_edits, encoding) == expected
    send_edits(client, f, 2, text_edits)
    await gone(client, f, "RW006", 2, pulls)


# --- "Add reason" after a keep-chomped block scalar (seventh adversary F2; issue 23) -----------

KEPT = (
    "runway: 1\n"
    "product: shop\n"
    "workloads:\n"
    "  api:\n"
    f"    image: registry.example.com/api@sha256:{DIGEST}\n"
    "    port: 8080\n"
    "    health: { path: /health }\n"
    "    env:\n"
    "      BANNER: |+\n"
    "        Welcome 🚀\n"
    "\n"
    "\n"
    "  worker:\n"
    f"    image: registry.example.com/worker@sha256:{DIGEST}\n"
    '    reason: "residency: x"\n'
)


@pytest.mark.parametrize(("caps", "encoding", "pulls"), CLIENTS)
async def test_add_reason_keeps_the_blank_lines_of_a_keep_block_scalar(client: LanguageClient, tmp_path: Path, caps, encoding, pulls):
    """The WorkspaceEdit, applied and read back by ruamel.yaml, keeps `BANNER`'s two trailing
    line breaks (its value under `|+`) and adds the reason to `api`."""
    from ruamel.yaml import YAML

    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(KEPT, encoding="utf-8")
    await init(client, caps(), tmp_path)
    did_open(client, f)
    (d,) = await diagnostics_of(client, f, "RW141", pulls)
    got = await actions(client, f, d.range, [d])
    (fix,) = [a for a in got if a.title == "Add reason: residency"]
    version, text_edits = edits_by_uri(fix, document_changes=pulls)[f.as_uri()]
    fixed = apply_text_edits(KEPT, text_edits, encoding)
    before, after = YAML(typ="safe").load(KEPT)["workloads"], YAML(typ="safe").load(fixed)["workloads"]
    assert after["api"]["env"]["BANNER"].encode() == before["api"]["env"]["BANNER"].encode() == "Welcome 🚀\n\n\n".encode()
    assert after["api"]["reason"] == "residency: "
    assert fixed == KEPT.replace("\n  worker:", '\n    reason: "residency: "\n  worker:')
    send_edits(client, f, 2, text_edits)
    await gone(client, f, "RW141", 2, pulls)


# --- no "Create resource" of a name RW111 reserves (ninth adversary L10) --------------------------


async def test_no_create_fix_for_a_reserved_name(client: LanguageClient, orders: Path):
    """`uses: [alb, service-discovery, shared-topic, payments-queue]` in a member: RW152 at each
    of the first three offers no "Create resource" (the new resource would be RW111); the last one
    still does."""
    _root, checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, checkout)
    await until(client, lambda: last_version(client, checkout) == 1)
    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [alb, service-discovery, shared-topic, payments-queue]")
    await until(client, lambda: last_version(client, checkout) == 2)
    found = await diagnostics_of(client, checkout, "RW152", False)
    assert [x.data["name"] for x in found] == ["alb", "service-discovery", "shared-topic", "payments-queue"]
    for d in found[:3]:
        titles = [a.title for a in await actions(client, checkout, d.range, [d])]
        assert not [t for t in titles if t.startswith("Create resource")], (d.data["name"], titles)
    titles = [a.title for a in await actions(client, checkout, found[3].range, [found[3]])]
    assert titles == ["Create resource `payments-queue` (kind: queue)"]
