"""A document opened again under the version it had before, with another text (seventh
adversary F1; issue 23): Neovim 0.7's ``:e!`` after the file changed on disk sends
``didClose`` then ``didOpen`` with version 1 again. LSP 3.17 (``didOpen``): the open transfers
the whole content, and a version only increases within one open. The server answered
diagnostics, outline and hovers from the text of the earlier open (its analysis was cached by
version), so a rename or a quick fix would have edited a text the editor no longer shows.

Real runway-lsp over stdio through pytest-lsp; awaits answers and publishes, never sleeps.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import PUBLISH, TIMEOUT, codes, did_close, did_open, init, neovim_caps

TEXT_A = "runway: 1\nproduct: shop\nregion: us-east-1\nresources:\n  alpha:\n    kind: kafka\n"
TEXT_B = ("runway: 1\nproduct: shop\nregion: us-east-1\nresources:\n  beta:\n    kind: topic\n"
          "workloads:\n  web:\n    image: nginx:latest\n    port: 80\n")


async def _symbols(client: LanguageClient, path: Path) -> list[str]:
    result = await asyncio.wait_for(
        client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))),
        TIMEOUT)
    names: list[str] = []

    def walk(items) -> None:
        for s in items or ():
            names.append(s.name)
            walk(getattr(s, "children", None))

    walk(result)
    return names


async def _hover(client: LanguageClient, path: Path, line: int, character: int) -> str:
    hover = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                                                           position=types.Position(line=line, character=character))),
        TIMEOUT)
    return hover.contents.value if hover is not None else ""


async def _published(client: LanguageClient, path: Path, after: int, predicate) -> list[str]:
    """The codes of the first publish for ``path`` past the ``after`` first ones satisfying
    ``predicate``; awaits notifications (the timeout only guards against a hang)."""

    async def loop() -> list[str]:
        while True:
            got = [p for p in client.published[after:] if p.uri == path.as_uri()]  # type: ignore[attr-defined]
            for p in got:
                found = sorted(str(d.code) for d in p.diagnostics)
                if predicate(found):
                    return found
            await client.wait_for_notification(PUBLISH)

    return await asyncio.wait_for(loop(), TIMEOUT)


@pytest.mark.parametrize("close_first", [True, False], ids=["close-then-open", "open-again"])
async def test_a_reopen_under_the_same_version_takes_the_new_text(client: LanguageClient, tmp_path: Path, close_first: bool):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(TEXT_A, encoding="utf-8")
    await init(client, neovim_caps(), tmp_path)
    did_open(client, f, TEXT_A, version=1)
    a_codes = await _published(client, f, 0, lambda found: bool(found))
    assert "RW121" in a_codes and "RW140" not in a_codes  # text A's reserved kind
    assert "alpha" in await _symbols(client, f)  # text A's analysis is cached now

    f.write_text(TEXT_B, encoding="utf-8")  # changed on disk, then `:e!`
    seen = len(client.published)  # type: ignore[attr-defined]
    if close_first:
        did_close(client, f)
    did_open(client, f, TEXT_B, version=1)

    names = await _symbols(client, f)
    assert "beta" in names and "web" in names and "alpha" not in names
    assert "workloads.web.image" in await _hover(client, f, 8, 12)
    b_codes = await _published(client, f, seen, lambda found: "RW140" in found)
    assert "RW121" not in b_codes  # text B's unpinned image, not text A's reserved kind
    assert "RW140" in codes(client, f) and "RW121" not in codes(client, f)
