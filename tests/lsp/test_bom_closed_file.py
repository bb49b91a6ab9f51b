"""A file the editor has not open, saved with a UTF-8 byte-order mark (tenth adversary L1;
issue 23). The server read it from disk with its BOM and counted the BOM as the first
character of line 1, while editors open it without one: VS Code decodes it as `utf8bom` and
keeps it out of the document (src/vs/workbench/services/textfile/common/encoding.ts), Neovim
sets 'bomb' (:help 'bomb'). So a rename's edit for such a member landed one character to the
right: `uses: [main-db, order-events]` became `uses: [mprimary-db order-events]` (seen applied by
Neovim 0.7.2's apply_workspace_edit). A closed file is now read as editors open it.

Real runway-lsp over stdio through pytest-lsp; the edit is applied to the text the editor holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_open, files, init, line_of, vscode_caps


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """``edits`` (UTF-16 positions; this text is ASCII) applied to ``text``, last first."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a = starts[e.range.start.line] + e.range.start.character
        b = starts[e.range.end.line] + e.range.end.character
        text = text[:a] + e.new_text + text[b:]
    return text


async def test_a_rename_edits_a_closed_bom_member_where_the_editor_shows_its_text(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    body = checkout.read_text(encoding="utf-8")
    assert "uses: [main-db, order-events]\n" in body
    editor_text = "uses: [main-db, order-events]\n" + body.replace("uses: [main-db, order-events]\n", "")  # on line 1
    checkout.write_bytes(b"\xef\xbb\xbf" + editor_text.encode("utf-8"))  # saved with a BOM
    await init(client, vscode_caps(), orders)
    did_open(client, root)  # the member stays closed
    line, _ = line_of(root, "  main-db:")
    edit = await asyncio.wait_for(client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=line, character=4),
        new_name="primary-db")), TIMEOUT)
    assert edit is not None
    if edit.document_changes is not None:  # VS Code's capabilities: TextDocumentEdit per file
        mine = [e for dc in edit.document_changes if isinstance(dc, types.TextDocumentEdit) and dc.text_document.uri == checkout.as_uri()
                for e in dc.edits]
    else:
        mine = list((edit.changes or {}).get(checkout.as_uri(), []))
    assert mine
    renamed = _apply(editor_text, mine)
    assert renamed.split("\n")[0] == "uses: [primary-db, order-events]"
