"""Ninth adversary L7 (issue 23): a workload with a schema error (`scale: {dev: "3"}`, a quoted
number: RW100) was left out of the plan, so `runway/costs` said $0.00, verdict ``ok``, the
environment lens `dev $0.00 / $100 · 0%` and its hover "✓ within its cap: the plan may
proceed", while the same runway fixed is 385% of its cap. Now the workload is not estimated:
`runway/costs` and `runway/plan` say ``invalid`` (``not_estimated: ["api"]``), the lens and the
hover say "not estimated", never "may proceed". Real runway-lsp over stdio through pytest-lsp.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_open, init, neovim_caps, until

TEXT = ("runway: 1\nproduct: shop\nenvironments:\n  dev: {limits: {monthly: 100}}\nworkloads:\n  api:\n"
        "    image: \"nginx@sha256:" + "a" * 64 + "\"\n    port: 80\n    health: {path: /}\n    size: large\n"
        "    scale: {dev: \"3\"}\n    reason: \"no-managed-fit: x\"\n")


async def _request(client: LanguageClient, method: str, path: Path):
    # pygls hands back an unknown method's result as nested named tuples (fields as attributes).
    return await asyncio.wait_for(client.protocol.send_request_async(method, {"uri": path.as_uri()}), TIMEOUT)


async def test_a_workload_with_a_quoted_scale_makes_the_costs_invalid_not_ok(client: LanguageClient, tmp_path: Path):
    root = tmp_path.resolve() / "runway.yaml"
    root.write_text(TEXT, encoding="utf-8")
    await init(client, neovim_caps(), tmp_path.resolve())
    did_open(client, root, TEXT)
    await until(client, lambda: "RW100" in codes(client, root))
    costs = await _request(client, "runway/costs", root)
    (dev,) = costs.environments
    assert dev.verdict == "invalid", dev  # was "ok" at $0.00
    plan = await _request(client, "runway/plan", root)
    (env,) = plan.environments
    assert env.verdict == "invalid" and list(env.not_estimated) == ["api"]
    lenses = await asyncio.wait_for(client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()))), TIMEOUT)
    titles = [lens.command.title for lens in lenses or [] if lens.command is not None]
    assert any(t.startswith("dev ") and "not estimated" in t for t in titles), titles
    hover = await asyncio.wait_for(client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=3, character=3))), TIMEOUT)
    assert hover is not None and "may proceed" not in hover.contents.value and "not estimated: api" in hover.contents.value
