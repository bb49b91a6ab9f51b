"""End to end (pytest-lsp over stdio): a rename's new name is checked as a whole name
(ninth adversary L11).

``textDocument/rename`` with ``newName: "primary\\n"`` (a client passing the input line with
its line break) was accepted: the DNS-label check let the final line break through (Python's
``$`` matches before it), and every occurrence became ``primary⏎`` — ``  main-db:`` turned
into ``  primary`` / ``:``, the root stopped parsing (RW001) and the members' uses dangled.
Now it is refused with ``RequestFailed`` like ``primary\\r`` or `` primary``, the break
written ``\\n`` in the message, and nothing is edited.
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


async def _rename(client: LanguageClient, root: Path, new_name: str):
    line, _text = line_of(root, "  main-db:")
    pos = types.Position(line=line, character=3)
    return await _wait(client.text_document_rename_async(types.RenameParams(text_document=_doc(root), position=pos, new_name=new_name)))


@pytest.mark.parametrize(
    ("new_name", "shown"),
    [("primary\n", r"primary\n"), ("primary\r\n", r"primary\r\n"), ("primary\n\n", r"primary\n\n"), ("\nprimary", r"\nprimary")],
    ids=["lf", "crlf", "two-lf", "leading-lf"],
)
async def test_a_new_name_with_a_line_break_is_refused(client: LanguageClient, orders: Path, new_name: str, shown: str):
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    with pytest.raises(JsonRpcException, match=r"`" + shown.replace("\\", r"\\") + r"` is not a valid name: use a DNS label"):
        await _rename(client, root, new_name)
    # The same name without the break renames, one line each: nothing was held back.
    edit = await _rename(client, root, "primary")
    assert {e.new_text for change in edit.document_changes for e in change.edits} == {"primary"}


@pytest.mark.parametrize(
    ("new_name", "what"),
    [
        ("alb", "the environment's load balancer"),
        ("service-discovery", "the environment's service discovery namespace"),
        ("shared-cache", "the implicit shared cache pool"),
        ("shared-postgres", "the implicit shared postgres pool"),
    ],
)
async def test_a_name_rw111_reserves_is_refused(client: LanguageClient, orders: Path, new_name: str, what: str):
    """Ninth adversary L12: `alb` and `service-discovery` were accepted (RW111 afterwards) while
    `shared-cache` was refused; every name RW111 reserves is refused now, from its one list."""
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    with pytest.raises(JsonRpcException, match=rf"`{new_name}` is the name of {what} \(RW111\); choose another name"):
        await _rename(client, root, new_name)
    edit = await _rename(client, root, "albs")  # a name that is only close to one is fine
    assert {e.new_text for change in edit.document_changes for e in change.edits} == {"albs"}
