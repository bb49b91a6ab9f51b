"""End to end: the usage file in the editor (docs/format.md "Usage file", docs/features.md
`runway.usagePath`), through the real runway-lsp over stdio (pytest-lsp), with Neovim's
capability set (push diagnostics). The usage file beside the root is checked with its
product: a bad key is a positioned RW202 on the usage file's URI; fixing it clears it and the
root's hover prices the item with the usage file's quantity; completion in it offers the
item's keys with the catalogue's assumption shown. Await notifications; never sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_change, did_open, init, line_of, neovim_caps, until

USAGE = "usage: 1\nenvironments:\n  production:\n    items:\n      shared-queue:\n        request_millions: 400\n"


async def test_usage_file_is_checked_and_feeds_the_plan(client: LanguageClient, orders: Path) -> None:
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    usage.write_text(USAGE, encoding="utf-8")
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    did_open(client, usage)

    def usage_codes() -> list[tuple[str, int, int]]:
        return [(d.code, d.range.start.line, d.range.start.character) for d in client.diagnostics.get(usage.as_uri(), [])]

    await until(client, lambda: usage_codes() == [("RW202", 5, 8)])
    (message,) = [d.message for d in client.diagnostics[usage.as_uri()]]
    assert "did you mean `requests_millions`?" in message

    # Fix the key: the problem clears, and the root's hover of the queue pool's size... the
    # production plan prices 400 M requests from the usage file.
    did_change(client, usage, 2, (5, 8), (5, 24), "requests_millions")
    await until(client, lambda: usage_codes() == [])
    line, text = line_of(root, "queue: medium")
    hover = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()),
                                                           position=types.Position(line=line, character=text.index("medium") + 1))),
        TIMEOUT)
    assert hover is not None
    value = hover.contents.value if hasattr(hover.contents, "value") else str(hover.contents)
    assert "400 (usage file)" in value and "(usage file L6)" in value

    # Completion on a new line under the item offers nothing already written; under another
    # item its keys, each with the catalogue's assumption.
    did_change(client, usage, 3, (6, 0), (6, 0), "      invoices:\n        \n")
    result = await asyncio.wait_for(
        client.text_document_completion_async(types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=usage.as_uri()),
                                                                     position=types.Position(line=7, character=8))),
        TIMEOUT)
    items = result.items if isinstance(result, types.CompletionList) else result
    labels = {i.label: i.detail for i in items}
    assert set(labels) == {"storage_gb", "put_requests_thousands", "get_requests_thousands"}
    assert labels["storage_gb"] == "GB-month; default 500 (catalogue assumption)"  # bucket medium in production
