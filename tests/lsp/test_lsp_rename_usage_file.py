"""End to end (pytest-lsp over stdio): a rename renames the usage file's item keys too (tenth
adversary L5). With ``environments.production.items.invoices: {storage_gb: 90000}`` in
``runway.usage.yaml``, renaming ``invoices`` to ``receipts`` edited the root and the billing
member only: applied, the usage file named an unknown item (RW201), its 90,000 GB were no
longer priced and production went from over its cap to within it. The WorkspaceEdit now holds
the usage file's key of every environment; applied and re-read, the costs are the same and no
RW201 appears.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_close, did_open, files, init, last_version, line_of, neovim_caps, until

USAGE = "usage: 1\nenvironments:\n  production:\n    items:\n      invoices: {storage_gb: 90000}\n  dev:\n    items:\n      invoices:\n        storage_gb: 10\n"


async def _request(client: LanguageClient, method: str, params: dict):
    return await asyncio.wait_for(client.protocol.send_request_async(method, params), TIMEOUT)


async def _costs(client: LanguageClient, root: Path) -> dict[str, tuple[object, object]]:
    result = await _request(client, "runway/costs", {"uri": root.as_uri()})
    return {e.name: (e.total_monthly_usd, e.verdict) for e in result.environments}


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions; these files are ASCII) from the last to the first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def _by_uri(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    if edit.document_changes:
        return {c.text_document.uri: list(c.edits) for c in edit.document_changes}
    return {uri: list(e) for uri, e in (edit.changes or {}).items()}


async def test_rename_edits_the_usage_file_and_keeps_the_costs(client: LanguageClient, orders: Path) -> None:
    root, _checkout, billing = files(orders)
    usage = orders / "runway.usage.yaml"
    usage.write_text(USAGE, encoding="utf-8")
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: last_version(client, root) == 1 and usage.as_uri() in client.diagnostics)
    before = await _costs(client, root)
    assert before["production"] == (2886.53, "over-cap")  # the 90,000 GB priced (without them: $828.03, ok)
    line, text = line_of(root, "  invoices:")
    edit = await asyncio.wait_for(client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=root.as_uri()),
        position=types.Position(line=line, character=text.index("invoices") + 1), new_name="receipts")), TIMEOUT)
    by_uri = _by_uri(edit)
    assert set(by_uri) == {root.as_uri(), billing.as_uri(), usage.as_uri()}
    assert [(e.range.start.line, e.range.start.character, e.new_text) for e in by_uri[usage.as_uri()]] == [(4, 6, "receipts"), (7, 6, "receipts")]

    # Applied as an editor saves it; the root opened again.
    for path in (root, billing, usage):
        path.write_text(_apply(path.read_text(encoding="utf-8"), by_uri[path.as_uri()]), encoding="utf-8")
    assert "receipts: {storage_gb: 90000}" in usage.read_text(encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed) for p in (root, billing, usage)]))
    did_close(client, root)
    did_open(client, root, version=2)
    await until(client, lambda: last_version(client, root) == 2)
    assert not [d for ds in client.diagnostics.values() for d in ds if d.code == "RW201"]
    assert await _costs(client, root) == before
