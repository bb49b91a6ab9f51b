"""End to end (pytest-lsp over stdio): no rename that would inject a variable a consumer
already declares (seventh adversary F3; issue 23).

``main-db`` renamed to ``primary-db`` while ``metabase`` declares ``env: {PRIMARY_DB_URL:
...}``: the server returned the edit, VS Code applied it, and the product then failed with
RW143 (an ``env`` name that an injected variable takes). ``prepareRename`` still offers the
name (the new one is not known yet); ``rename`` refuses with ``RequestFailed``, naming the
variable and its consumer, as the other refusals do; another name renames.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_open, files, init, line_of, vscode_caps


def _doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


async def _wait(coro):
    return await asyncio.wait_for(coro, TIMEOUT)


async def test_a_rename_onto_a_declared_env_variable_is_refused_naming_it(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    text = root.read_text(encoding="utf-8")
    root.write_text(text.replace("      MB_DB_TYPE: postgres\n", "      MB_DB_TYPE: postgres\n      PRIMARY_DB_URL: postgres://elsewhere\n"), encoding="utf-8")
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    line, _text = line_of(root, "  main-db:")
    pos = types.Position(line=line, character=3)

    prep = await _wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=_doc(root), position=pos)))
    assert prep.placeholder == "main-db"
    with pytest.raises(JsonRpcException, match=r"Renaming `main-db` to `primary-db` would inject `PRIMARY_DB_URL` into `metabase` \(declared in its `env`\).*\(RW143\)"):
        await _wait(client.text_document_rename_async(types.RenameParams(text_document=_doc(root), position=pos, new_name="primary-db")))
    edit = await _wait(client.text_document_rename_async(types.RenameParams(text_document=_doc(root), position=pos, new_name="primary")))
    assert {e.new_text for change in edit.document_changes for e in change.edits} == {"primary"}
