"""A document neither open nor named like a runway is never read, by any request (ninth
adversary L5; issue 23).

docs/protocol.md: "A document that is neither open nor named `runway.yaml`/`runway.yml` is
never read". `runway/costs` and `runway/plan` kept that rule for `notes.txt` holding a runway
text, but hover, `documentSymbol`, `codeLens` and `runway.showCost` read it from disk and
answered with its names and costs. Every request now asks one rule
(`runway_lsp.documents.Buffers.request_path`) and answers its empty result. Real runway-lsp
over stdio through pytest-lsp.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_open, init, vscode_caps

NOTES = "runway: 1\nproduct: leakedname\nenvironments:\n  leakedenv: {}\nresources:\n  leakedres: {kind: queue}\n"
AT = types.Position(line=5, character=3)  # on `leakedres`


async def _answers(client: LanguageClient, path: Path) -> dict[str, object]:
    """What every request about one document answers for ``path``."""
    uri = path.as_uri()
    doc = types.TextDocumentIdentifier(uri=uri)
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=6, character=0))
    calls = {
        "hover": client.text_document_hover_async(types.HoverParams(text_document=doc, position=AT)),
        "documentSymbol": client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc)),
        "codeLens": client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)),
        "inlayHint": client.text_document_inlay_hint_async(types.InlayHintParams(text_document=doc, range=whole)),
        "documentLink": client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc)),
        "definition": client.text_document_definition_async(types.DefinitionParams(text_document=doc, position=AT)),
        "references": client.text_document_references_async(
            types.ReferenceParams(text_document=doc, position=AT, context=types.ReferenceContext(include_declaration=True))),
        "documentHighlight": client.text_document_document_highlight_async(types.DocumentHighlightParams(text_document=doc, position=AT)),
        "prepareRename": client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc, position=AT)),
        "completion": client.text_document_completion_async(types.CompletionParams(text_document=doc, position=types.Position(line=5, character=0))),
        "codeAction": client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc, range=whole, context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix]))),
        "diagnostic": client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=doc)),
        "showCost": client.workspace_execute_command_async(types.ExecuteCommandParams(command="runway.showCost", arguments=[uri, {"name": "leakedres"}])),
        "showCostEnv": client.workspace_execute_command_async(types.ExecuteCommandParams(command="runway.showCost", arguments=[uri, {"environment": "leakedenv"}])),
        "runway/costs": client.protocol.send_request_async("runway/costs", {"uri": uri}),
        "runway/plan": client.protocol.send_request_async("runway/plan", {"uri": uri}),
    }
    return {name: await asyncio.wait_for(call, TIMEOUT) for name, call in calls.items()}


def _empty(name: str, answer: object) -> bool:
    if name == "completion":
        return not answer.items  # type: ignore[attr-defined]
    if name == "diagnostic":
        return not answer.items  # type: ignore[attr-defined]
    if name in ("runway/costs", "runway/plan"):
        return not answer.environments  # type: ignore[attr-defined]
    return not answer


async def test_no_request_reads_a_closed_file_not_named_like_a_runway(client: LanguageClient, tmp_path: Path):
    folder = tmp_path.resolve()
    notes = folder / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    await init(client, vscode_caps(), folder)
    answers = await _answers(client, notes)
    read = {name: answer for name, answer in answers.items() if not _empty(name, answer) or "leaked" in repr(answer)}
    assert not read, f"answered from the file: {sorted(read)}"  # each answers its empty result; nothing of it is quoted


async def test_the_same_file_open_or_named_runway_yaml_is_answered(client: LanguageClient, tmp_path: Path):
    """The rule refuses nothing the client gave: the buffer of an open notes.txt is read, and a
    closed runway.yaml is read from disk as before."""
    folder = tmp_path.resolve()
    notes = folder / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    (folder / "svc").mkdir()
    named = folder / "svc" / "runway.yaml"
    named.write_text(NOTES, encoding="utf-8")
    await init(client, vscode_caps(), folder)
    for path in (named, notes):
        if path == notes:
            did_open(client, notes)
        answers = await _answers(client, path)
        for name in ("hover", "documentSymbol", "codeLens", "showCost", "runway/costs"):
            assert "leaked" in repr(answers[name]), (path.name, name, answers[name])
