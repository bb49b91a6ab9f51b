"""Ninth adversary L8 (issue 23): `dev: {limits: {monthly: 20}, disposable: maybe}` — the server
said "cap invalid (RW100): `environments.dev.limits.monthly` must be a number …", `runway/costs`
cap null and verdict `no-cap`, and dev's RW170 was not published. Now the error is only at
`disposable`, dev's $20 cap is checked: RW170 published, verdict `over-cap`. Real runway-lsp over
stdio through pytest-lsp."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_open, init, neovim_caps, until

TEXT = ("runway: 1\nproduct: shop\nenvironments:\n  dev: {limits: {monthly: 20}, disposable: maybe}\n"
        "  prod: {limits: {monthly: 20}}\nresources:\n  db: {kind: postgres, size: large}\n")


async def test_a_bad_sibling_leaves_the_cap_checked(client: LanguageClient, tmp_path: Path):
    root = tmp_path.resolve() / "runway.yaml"
    root.write_text(TEXT, encoding="utf-8")
    await init(client, neovim_caps(), tmp_path.resolve())
    did_open(client, root, TEXT)
    await until(client, lambda: "RW100" in codes(client, root))
    diags = client.diagnostics[root.as_uri()]
    assert [d.range.start.line for d in diags if d.code == "RW100"] == [3]
    assert any(d.code == "RW170" and d.message.startswith("dev:") for d in diags), [d.message for d in diags]
    costs = await asyncio.wait_for(client.protocol.send_request_async("runway/costs", {"uri": root.as_uri()}), TIMEOUT)
    dev = next(e for e in costs.environments if e.name == "dev")
    assert (dev.cap_monthly_usd, dev.verdict) == (20.0, "over-cap")
    hover = await asyncio.wait_for(client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=3, character=3))), TIMEOUT)
    assert hover is not None and "cap invalid" not in hover.contents.value and "over its cap" in hover.contents.value
