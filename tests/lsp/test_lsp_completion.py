"""End to end: completion through the real runway-lsp over stdio (pytest-lsp).

Each test runs with a VS Code-like client (snippets, utf-16) and Neovim-like clients (plain
text, utf-16 or utf-8). The test applies the chosen item's ``textEdit`` (snippets expanded to
their defaults) to the document in the negotiated encoding and compares the full text with
the expected one. Tests await responses and never sleep; nothing is timed.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_change, did_close, did_open, files, init, last_version, neovim_caps, vscode_caps
from mdtables import flat

MARK = "‸"

CLIENTS = [
    pytest.param(vscode_caps, "utf-16", id="vscode-utf16"),
    pytest.param(neovim_caps, "utf-16", id="neovim-utf16"),
    pytest.param(lambda: neovim_caps(utf8=True), "utf-8", id="neovim-utf8"),
]


# --- helpers: positions in the client's encoding, applying edits, expanding snippets -------------


def units(line: str, cp: int, enc: str) -> int:
    """Code-point column ``cp`` of ``line`` in ``enc`` units (what the client sends)."""
    head = line[:cp]
    return len(head.encode("utf-8")) if enc == "utf-8" else len(head.encode("utf-16-le")) // 2


def code_points(line: str, n: int, enc: str) -> int:
    """``n`` units of ``line`` in ``enc`` as a code-point column (what the test applies)."""
    for cp in range(len(line) + 1):
        if units(line, cp, enc) >= n:
            return cp
    return len(line)


def cursor(marked: str) -> tuple[str, int, int]:
    """The text without the mark, and the mark's line and code-point column."""
    i = marked.index(MARK)
    line = marked[:i].count("\n")
    col = i - (marked.rfind("\n", 0, i) + 1)
    return marked.replace(MARK, ""), line, col


def expand(snippet: str) -> str:
    """An LSP snippet with every tab stop at its default: ``${1:x}`` -> x, ``${1|a,b|}`` -> a."""
    out = re.sub(r"\$\{\d+\|((?:[^,|\\]|\\.)*)[^}]*\|\}", r"\1", snippet)
    out = re.sub(r"\$\{\d+:((?:[^}\\]|\\.)*)\}", r"\1", out)
    out = re.sub(r"\$\d+", "", out)
    return re.sub(r"\\([$}\\,|])", r"\1", out)


def apply(text: str, item: types.CompletionItem, enc: str) -> str:
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    r = edit.range
    assert r.start.line == r.end.line, "a completion edit stays on one line"
    lines = text.split("\n")
    line = lines[r.start.line]
    start, end = code_points(line, r.start.character, enc), code_points(line, r.end.character, enc)
    new = expand(edit.new_text) if item.insert_text_format == types.InsertTextFormat.Snippet else edit.new_text
    lines[r.start.line] = line[:start] + new + line[end:]
    return "\n".join(lines)


async def complete(client: LanguageClient, path: Path, text: str, line: int, col: int, enc: str) -> types.CompletionList:
    character = units(text.split("\n")[line], col, enc)
    result = await asyncio.wait_for(
        client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                position=types.Position(line=line, character=character),
            )
        ),
        TIMEOUT,
    )
    assert isinstance(result, types.CompletionList)
    for item in result.items:  # LSP 3.17: one line, containing the cursor
        r = item.text_edit.range
        assert r.start.line == r.end.line == line and r.start.character <= character <= r.end.character
    return result


def item(result: types.CompletionList, label: str) -> types.CompletionItem:
    found = [i for i in result.items if i.label == label]
    assert len(found) == 1, (label, [i.label for i in result.items])
    return found[0]


def ordered(result: types.CompletionList) -> list[str]:
    return [i.label for i in sorted(result.items, key=lambda i: (i.sort_text or "", i.label))]


async def opened(client: LanguageClient, caps, enc: str, folder: Path, path: Path, marked: str) -> tuple[str, int, int]:
    result = await init(client, caps(), folder)
    assert result.capabilities.position_encoding == enc
    text, line, col = cursor(marked)
    did_open(client, path, text)
    return text, line, col


# --- capabilities --------------------------------------------------------------------------------


async def test_completion_is_advertised_with_its_trigger_characters(client: LanguageClient, orders: Path):
    result = await init(client, vscode_caps(), orders)
    provider = result.capabilities.completion_provider
    assert provider is not None
    assert set(provider.trigger_characters) == {":", " ", "[", ",", "{", "-"}


# --- flow collections after an emoji (the encodings differ) ----------------------------------------

EMOJI_WORKLOAD = '  web: {{reason: "🚀 residency: tenants", size: {{dev: {cursor}}}}}\n'


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_size_in_a_flow_map_after_an_emoji(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    marked = base + EMOJI_WORKLOAD.format(cursor=MARK)
    text, line, col = await opened(client, caps, enc, orders, root, marked)
    result = await complete(client, root, text, line, col, enc)
    assert ordered(result) == ["small", "medium", "large"]
    medium = item(result, "medium")
    assert medium.detail == "$32.02/mo in dev"  # one Fargate task, 1 vCPU / 2 GB
    assert medium.kind == types.CompletionItemKind.Unit
    assert medium.documentation.kind == types.MarkupKind.Markdown and "| dev | $32.02 |" in flat(medium.documentation.value)
    assert apply(text, medium, enc) == base + EMOJI_WORKLOAD.format(cursor="medium")


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_uses_item_after_an_emoji(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    line_text = '  web: {{reason: "🚀 on-prem-parity", uses: [main-db, {cursor}]}}\n'
    text, line, col = await opened(client, caps, enc, orders, root, base + line_text.format(cursor=MARK))
    result = await complete(client, root, text, line, col, enc)
    labels = ordered(result)
    assert "main-db" not in labels and "web" not in labels
    assert labels[:2] == ["order-events", "invoices"]
    assert item(result, "invoices").detail == "bucket · $2.05/mo in dev"
    assert apply(text, item(result, "invoices"), enc) == base + line_text.format(cursor="invoices")


# --- snippets: VS Code expands them, Neovim gets plain text ----------------------------------------


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_new_resource_from_an_empty_line(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    marked = base.replace("\n  order-events:\n", f"\n  {MARK}\n  order-events:\n", 1)
    text, line, col = await opened(client, caps, enc, orders, root, marked)
    result = await complete(client, root, text, line, col, enc)
    new = item(result, "new resource")
    assert new.kind == types.CompletionItemKind.Snippet
    assert new.insert_text_mode == types.InsertTextMode.AsIs  # the text carries its own indentation
    snippets = caps is vscode_caps
    assert new.insert_text_format == (types.InsertTextFormat.Snippet if snippets else types.InsertTextFormat.PlainText)
    assert ("${2|postgres,queue,topic,cache,bucket|}" in new.text_edit.new_text) == snippets
    expected = base.replace("\n  order-events:\n", "\n  name:\n    kind: postgres\n    size: small\n  order-events:\n", 1)
    assert apply(text, new, enc) == expected


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_new_workload_named_as_typed(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    marked = base.replace("\n  zitadel:\n", f"\n  search{MARK}\n  zitadel:\n", 1)
    text, line, col = await opened(client, caps, enc, orders, root, marked)
    result = await complete(client, root, text, line, col, enc)
    assert result.is_incomplete  # the snippet embeds the typed name: ask again as it grows
    new = item(result, "new workload")
    expected = base.replace(
        "\n  zitadel:\n",
        "\n  search:\n    image: registry/image@sha256:<64 hex digits>\n    port: 8080\n    health:\n      path: /health\n"
        '    expose: internal\n    reason: "no-managed-fit: why no managed resource fits"\n  zitadel:\n',
        1,
    )
    assert apply(text, new, enc) == expected


# --- a half-typed document, edited through didChange ------------------------------------------------


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_key_typed_into_a_document_with_a_syntax_error(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    text, _line, _col = await opened(client, caps, enc, orders, root, base + MARK)
    # Type `    si` under order-events: `si` after `kind: topic` is a YAML syntax error.
    anchor = "  order-events:\n    kind: topic\n"
    line = base[: base.index(anchor) + len(anchor)].count("\n")
    did_change(client, root, 2, (line, 0), (line, 0), "    si\n")
    text = text.replace(anchor, anchor + "    si\n", 1)
    result = await complete(client, root, text, line, len("    si"), enc)
    assert ordered(result) == ["engine", "size"]  # `kind` is already there
    size = item(result, "size")
    assert size.kind == types.CompletionItemKind.Property
    assert "an environment it does not name runs small" in size.documentation.value
    assert apply(text, size, enc) == base.replace(anchor, anchor + "    size: \n", 1)


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_kind_after_the_colon(client: LanguageClient, orders: Path, caps, enc):
    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    marked = base.replace("    kind: topic\n", f"    kind:{MARK}\n", 1)
    text, line, col = await opened(client, caps, enc, orders, root, marked)
    result = await complete(client, root, text, line, col, enc)
    assert ordered(result) == ["postgres", "queue", "topic", "cache", "bucket"]
    assert apply(text, item(result, "queue"), enc) == base.replace("    kind: topic\n", "    kind: queue\n", 1)


# --- member runways --------------------------------------------------------------------------------


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_member_uses_and_requires(client: LanguageClient, orders: Path, caps, enc):
    _root, checkout, _billing = files(orders)
    base = checkout.read_text(encoding="utf-8")
    marked = base.replace("requires: [queue, cache]", f"requires: [queue, {MARK}]")
    text, line, col = await opened(client, caps, enc, orders, checkout, marked)
    result = await complete(client, checkout, text, line, col, enc)
    assert ordered(result) == ["postgres", "topic", "cache", "bucket"]
    assert apply(text, item(result, "bucket"), enc) == base.replace("requires: [queue, cache]", "requires: [queue, bucket]")

    # The same buffer, now right after a comma of `uses`: root names with their cost, and a
    # comma of its own before the item that follows.
    uses_line = text.split("\n").index("uses: [main-db, order-events]")
    result = await complete(client, checkout, text, uses_line, len("uses: [main-db,"), enc)
    assert "main-db" not in ordered(result) and "order-events" not in ordered(result)
    invoices = item(result, "invoices")
    assert invoices.detail == "bucket · $2.05/mo in dev"
    assert apply(text, invoices, enc) == marked.replace(MARK, "").replace("uses: [main-db, order-events]", "uses: [main-db, invoices, order-events]")


# --- right after `uses:` with a list written (ninth adversary L2) ---------------------------------


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_name_chosen_right_after_uses_goes_into_the_written_list(client: LanguageClient, orders: Path, caps, enc):
    """L2: at 59:9 of the root (`    uses: [main-db]`, the cursor right after the colon) the
    server sent an empty range with ` [order-events]`: `uses: [order-events] [main-db]`, RW001
    for the whole file, and offered `main-db` itself. The choice now goes into the list; the
    edit, sent back as the client's didChange, is a file the server parses (no RW001)."""
    from lspclient import pull, until

    root = files(orders)[0]
    text = root.read_text(encoding="utf-8")
    await init(client, caps(), orders)
    did_open(client, root, text)
    line = text.split("\n").index("    uses: [main-db]")
    assert line == 59
    result = await complete(client, root, text, line, len("    uses:"), enc)
    labels = ordered(result)
    assert "main-db" not in labels and "metabase" not in labels and "order-events" in labels
    chosen = item(result, "order-events")
    after = apply(text, chosen, enc)
    assert after.split("\n")[line] == "    uses: [order-events, main-db]"
    r = chosen.text_edit.range
    did_change(client, root, 2, (r.start.line, r.start.character), (r.end.line, r.end.character), chosen.text_edit.new_text)
    # Reopened (as after a save and :e): its diagnostics at once, none held back as on a line
    # being typed on (runway_lsp/typing_pause.py), so a file that no longer parses shows RW001.
    did_close(client, root)
    did_open(client, root, after, version=3)
    if caps is vscode_caps:  # pulls its diagnostics
        found = [d.code for d in await pull(client, root)]
    else:
        await until(client, lambda: last_version(client, root) == 3)
        found = [d.code for d in client.diagnostics[root.as_uri()]]
    assert "RW001" not in found and "RW152" not in found, found


@pytest.mark.parametrize(("caps", "enc"), CLIENTS)
async def test_a_key_chosen_inside_a_written_usage_key_replaces_it(client: LanguageClient, orders: Path, caps, enc):
    """L4 (tenth adversary): in `runway.usage.yaml`, `usage: 1` at 0:3 got an edit of
    `usa` -> `usage: 1`, leaving `usage: 1ge: 1` (no longer YAML). The written key is replaced
    whole now, its `: 1` kept; in the indentation before `    items:` nothing is offered."""
    from ruamel.yaml import YAML

    usage = orders / "runway.usage.yaml"
    text = "usage: 1\nenvironments:\n  dev:\n    items:\n      main-db:\n        io_requests_millions: 3\n"
    usage.write_text(text, encoding="utf-8")
    await init(client, caps(), orders)
    did_open(client, orders / "runway.yaml")
    did_open(client, usage, text)
    result = await complete(client, usage, text, 0, 3, enc)
    chosen = item(result, "usage")
    after = apply(text, chosen, enc)
    assert after.split("\n")[0] == "usage: 1"
    YAML(typ="safe").load(after)  # raised before: `usage: 1ge: 1`
    assert not (await complete(client, usage, text, 3, 1, enc)).items  # was ` dev:   items:`


# --- robustness and a sanity check of responsiveness (no clock) -------------------------------------


async def test_every_line_of_the_example_answers(client: LanguageClient, orders: Path):
    """A completion at the end of every line of the root, in a row: each answers (within the
    harness' hang guard) with well-formed edits. Nothing is timed."""
    root = files(orders)[0]
    await init(client, vscode_caps(), orders)
    text = root.read_text(encoding="utf-8")
    did_open(client, root, text)
    answered = 0
    for n, line in enumerate(text.split("\n")):
        await complete(client, root, text, n, len(line), "utf-16")
        answered += 1
    assert answered == len(text.split("\n"))


async def test_an_unknown_document_and_out_of_range_positions(client: LanguageClient, tmp_path: Path):
    await init(client, neovim_caps(), tmp_path)
    ghost = tmp_path.resolve() / "runway.yaml"
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=ghost.as_uri()), position=types.Position(line=0, character=0))
    )
    assert isinstance(result, types.CompletionList)  # not open, not on disk: an empty runway
    did_open(client, ghost, "runway: 1\nproduct: x\n")
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=ghost.as_uri()), position=types.Position(line=99, character=99))
    )
    # Clamped into the text (its empty last line): the top-level keys not yet written.
    assert [i.label for i in result.items][:1] == ["region"]
    assert {i.text_edit.range.start.line for i in result.items} == {2}


# --- right after a keystroke ----------------------------------------------------------------------


async def test_completion_right_after_a_keystroke_sees_the_new_text(client: LanguageClient, orders: Path):
    """The server may complete from the last analysis while the user types (issue 6: the
    answer then waits for a parse only); the cursor's context is still the newest text, and
    a resource declared since that analysis is offered."""
    from lspclient import until

    root = files(orders)[0]
    base = root.read_text(encoding="utf-8")
    line_text = '  web: {{reason: "on-prem-parity", uses: [main-db, {cursor}]}}\n'
    text, line, col = await opened(client, neovim_caps, "utf-16", orders, root, base + line_text.format(cursor=MARK))  # push
    await until(client, lambda: last_version(client, root) == 1)
    res_line = text.split("\n").index("resources:") + 1
    new_entry = "  fresh-db: {kind: postgres}\n"
    did_change(client, root, 2, (res_line, 0), (res_line, 0), new_entry)  # no wait: completion at once
    text = "\n".join([*text.split("\n")[:res_line], new_entry.rstrip("\n"), *text.split("\n")[res_line:]])
    result = await complete(client, root, text, line + 1, col, "utf-16")
    labels = ordered(result)
    assert "fresh-db" in labels and "main-db" not in labels
    assert apply(text, item(result, "fresh-db"), "utf-16").split("\n")[line + 1] == line_text.format(cursor="fresh-db").rstrip("\n")
    # ... and the diagnostics that follow are the new text's, with its costs.
    await until(client, lambda: last_version(client, root) == 2)
    again = await complete(client, root, text, line + 1, col, "utf-16")
    assert item(again, "fresh-db").detail == "postgres · $36.28/mo in dev"
