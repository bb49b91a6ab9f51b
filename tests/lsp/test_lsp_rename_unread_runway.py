"""End to end (pytest-lsp over stdio): no rename while a file of the runway is read only in part.

Issue 15's code-server E2E saw VS Code apply a rename of ``main-db`` with no preview. The
buffer it renamed in still held a syntax error (``oops: x: y`` on line 91, put back by a
revert to what auto-save had written). The server then answered from the tree the syntax
error cut short: three edits in the root, none in the two members (their ``uses: [main-db]``
left dangling, RW150), and without the ``needsConfirmation`` annotation, because a cut tree
knows no consumer's injected variables, so VS Code applied it straight away. Now
``prepareRename`` and ``rename`` refuse (``RequestFailed``, the reason shown by the editor)
and name where the file stops being read; once it reads whole, the rename is the full,
annotated one again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_change, did_open, files, init, line_of, vscode_caps


def _doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


async def _wait(coro):
    return await asyncio.wait_for(coro, TIMEOUT)


def _main_db(root: Path) -> types.Position:
    line, _text = line_of(root, "  main-db:")
    return types.Position(line=line, character=3)


async def _rename(client: LanguageClient, root: Path) -> types.WorkspaceEdit:
    return await _wait(client.text_document_rename_async(types.RenameParams(text_document=_doc(root), position=_main_db(root), new_name="primary-db")))


def _edits(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    return {change.text_document.uri: list(change.edits) for change in edit.document_changes or []}


async def test_no_rename_while_the_root_has_a_syntax_error_then_the_full_annotated_one(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    text = root.read_text(encoding="utf-8")
    end = text.count("\n")  # the empty line after the final line break, where Ctrl+End lands
    # As the E2E types it: a new line, then a mapping value where none is allowed.
    did_change(client, root, 2, (end, 0), (end, 0), "\noops: x: y")
    where = f"at {end + 2}:8"  # 1-based: the line below the empty one, at the second ':'

    with pytest.raises(JsonRpcException, match=f"`runway.yaml` has a syntax error {where}: a rename now would miss the names past it; the members are not read"):
        await _wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=_doc(root), position=_main_db(root))))
    with pytest.raises(JsonRpcException, match=f"syntax error {where}.*Fix it first, then rename"):
        await _rename(client, root)

    # The line removed again: the whole rename, every edit held for confirmation.
    did_change(client, root, 3, (end, 0), (end + 1, len("oops: x: y")), "")
    prep = await _wait(client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=_doc(root), position=_main_db(root))))
    assert prep.placeholder == "main-db"
    edit = await _rename(client, root)
    by_file = _edits(edit)
    assert {uri: len(e) for uri, e in by_file.items()} == {root.as_uri(): 3, checkout.as_uri(): 1, billing.as_uri(): 1}
    assert edit.change_annotations is not None
    # Each consumer's use needs confirmation; the declaration does not (issue 26).
    assert {aid for aid, a in edit.change_annotations.items() if a.needs_confirmation} == {f"runway.rename.reads.{c}" for c in ("billing", "checkout", "metabase", "zitadel")}
    assert all(isinstance(e, types.AnnotatedTextEdit) and e.annotation_id in edit.change_annotations for edits in by_file.values() for e in edits)


async def test_no_rename_while_a_member_has_a_syntax_error(client: LanguageClient, orders: Path):
    """A member cut short would keep its ``uses`` of the old name past the cut: refused too,
    naming the member's file (relative to the root's folder)."""
    root, checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    did_open(client, checkout, checkout.read_text(encoding="utf-8").replace("runway: 1\n", "runway: 1\nbroken: [a\n", 1))
    with pytest.raises(JsonRpcException, match=r"`services/checkout/runway.yaml` has a syntax error at \d+:\d+: a rename now would miss the names past it\. Fix it first"):
        await _rename(client, root)
