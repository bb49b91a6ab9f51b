"""The workspace scan analyses a big product on the analysis thread, not on the event loop
(issue 16 item 7; docs/architecture.md "Threads", docs/reliability.md): requests for open
documents are answered while a product of 1,001 members is being analysed, a member of that
very product is answered from its own text and then from the product, and the scan still
publishes every closed file's diagnostics, with RW155 on the root.

"While", with no clock: the test hook ``runway/_holdAnalyses`` (RUNWAY_LSP_TEST_HOOKS=1)
holds the analysis thread before ``initialized``, so the scan's analysis of the product
cannot finish until the test releases it; every request below is answered in that time.
Before this change the analysis was one step of the event loop: a request sent during it
was answered only after it (and the server had no such hook).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lspclient import PUBLISH, TIMEOUT, did_open, make_client, neovim_caps, until
from rawlsp import RawServer

HOLD = "runway/_holdAnalyses"

MEMBERS = 1001  # one past the cap: RW155 on the root's 1,001st item
KINDS = ("postgres", "queue", "topic", "cache", "bucket")
OTHER = "runway: 1\nproduct: other\nregion: us-east-1\nenvironments:\n  dev: {}\nresources:\n  jobs: {kind: queue}\n"
SCAN_TIMEOUT = 240  # seconds: a guard against a hung server on a loaded machine, never a wait


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``product/`` listing 1,001 members (each requires two kinds and uses a resource) and
    ``other/``, a small product."""
    ws = tmp_path_factory.mktemp("bigscan").resolve()
    root = ws / "product" / "runway.yaml"
    root.parent.mkdir()
    resources = [f"{KINDS[i % 5]}-{i}" for i in range(20)]
    lines = ["runway: 1", "product: big", "region: us-east-1", "members:"]
    lines += [f"  - services/svc-{i:05d}" for i in range(MEMBERS)]
    lines += ["environments:", "  dev: {}", "resources:"]
    lines += [f"  {name}: {{kind: {name.split('-')[0]}}}" for name in resources]
    root.write_text("\n".join(lines) + "\n")
    for i in range(MEMBERS):
        folder = root.parent / "services" / f"svc-{i:05d}"
        folder.mkdir(parents=True)
        (folder / "runway.yaml").write_text(
            f"runway: 1\nmember: svc-{i:05d}\nrequires: [{KINDS[i % 5]}]\nuses: [{resources[i % 20]}]\n")
    (ws / "other").mkdir()
    (ws / "other" / "runway.yaml").write_text(OTHER)
    return ws


def _member(ws: Path, i: int) -> Path:
    return ws / "product" / "services" / f"svc-{i:05d}" / "runway.yaml"


def _caps() -> types.ClientCapabilities:
    caps = neovim_caps()
    caps.window = types.WindowClientCapabilities(work_done_progress=True)
    return caps


def _values(client: LanguageClient) -> list:
    return [v for reports in client.progress_reports.values() for v in reports]


async def _progress(client: LanguageClient, predicate) -> None:
    async def loop() -> None:
        while not any(predicate(v) for v in _values(client)):
            await client.wait_for_notification("$/progress")

    await asyncio.wait_for(loop(), SCAN_TIMEOUT)


def _ended(v) -> bool:
    return isinstance(v, types.WorkDoneProgressEnd)


def _member_publishes(client: LanguageClient, ws: Path) -> list:
    prefix = (ws / "product" / "services").as_uri() + "/"
    return [p for p in client.published if p.uri.startswith(prefix)]  # type: ignore[attr-defined]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "runway_lsp", "--stdio"], client_factory=make_client,
                                              server_env={**os.environ, "RUNWAY_LSP_TEST_HOOKS": "1"}))
async def hooked(lsp_client: LanguageClient):
    yield
    await lsp_client.protocol.send_request_async(HOLD, {"hold": False})
    await lsp_client.shutdown_session()


async def _held(client: LanguageClient, workspace: Path) -> None:
    """initialize; hold the analysis thread; initialized (the scan starts); the small
    product is analysed and reported, the big one waits on the thread."""
    client.capabilities = _caps()  # what initialize_session notes (it would send initialized at once)
    await asyncio.wait_for(client.initialize_async(types.InitializeParams(
        process_id=os.getpid(), capabilities=client.capabilities, root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)])), TIMEOUT)
    await asyncio.wait_for(client.protocol.send_request_async(HOLD, {"hold": True}), TIMEOUT)
    client.initialized(types.InitializedParams())


async def _release(client: LanguageClient) -> None:
    await asyncio.wait_for(client.protocol.send_request_async(HOLD, {"hold": False}), TIMEOUT)


@pytest.mark.asyncio
async def test_an_open_document_of_another_product_is_answered_while_a_big_product_is_analysed(hooked: LanguageClient, workspace: Path):
    client = hooked
    other = workspace / "other" / "runway.yaml"
    await _held(client, workspace)
    did_open(client, other, OTHER)
    doc = types.TextDocumentIdentifier(uri=other.as_uri())
    for _ in range(3):
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(text_document=doc, position=types.Position(line=1, character=2))), TIMEOUT)
        outline = await asyncio.wait_for(client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc)), TIMEOUT)
        assert hover is not None and [s.name for s in outline] == ["runway", "product", "region", "environments", "resources"], outline
    # ... and its diagnostics are published, while the product is still being analysed.
    await until(client, lambda: other.as_uri() in client.diagnostics)
    assert not _member_publishes(client, workspace)
    assert not any(_ended(v) for v in _values(client))
    await _release(client)
    # The scan goes on: every member it read gets its diagnostics pushed, the root RW155.
    await _progress(client, _ended)
    published = {p.uri for p in _member_publishes(client, workspace)}
    assert published == {_member(workspace, i).as_uri() for i in range(1000)}
    root = (workspace / "product" / "runway.yaml").as_uri()
    assert "RW155" in [d.code for d in client.diagnostics.get(root, [])]


@pytest.mark.asyncio
async def test_a_member_of_the_product_being_analysed_is_answered_from_its_own_text_then_from_the_product(hooked: LanguageClient, workspace: Path):
    client = hooked
    member = _member(workspace, 0)
    await _held(client, workspace)
    did_open(client, member)
    doc = types.TextDocumentIdentifier(uri=member.as_uri())
    outline = await asyncio.wait_for(client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc)), TIMEOUT)
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(text_document=doc, position=types.Position(line=1, character=2))), TIMEOUT)
    # Answered from the member's own parse while its product is analysed; its diagnostics
    # wait for the product's (never the member-alone RW154 "no root lists it").
    assert [s.name for s in outline][:2] == ["runway", "member"], outline
    assert hover is not None
    assert not [p for p in client.published if p.uri == member.as_uri()]  # type: ignore[attr-defined]
    await _release(client)

    async def member_published() -> None:
        while not [p for p in client.published if p.uri == member.as_uri()]:  # type: ignore[attr-defined]
            await client.wait_for_notification(PUBLISH)

    await asyncio.wait_for(member_published(), SCAN_TIMEOUT)
    assert "RW154" not in [d.code for p in client.published if p.uri == member.as_uri() for d in p.diagnostics]  # type: ignore[attr-defined]
    # Refined: navigation now reaches the root (`uses: [postgres-0]` -> its declaration).
    definition = await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(
        text_document=doc, position=types.Position(line=3, character=8))), TIMEOUT)
    targets = definition if isinstance(definition, list) else [definition]
    assert any(t is not None and getattr(t, "uri", getattr(t, "target_uri", "")).endswith("/product/runway.yaml") for t in targets), definition


@pytest.mark.parametrize("held", [True, False], ids=["analysis-held", "analysis-running"])
def test_shutdown_and_exit_during_the_scan_of_a_big_product_exit_cleanly(workspace: Path, held: bool):
    """``shutdown`` + ``exit`` while the scan's analysis of 1,001 members is unfinished (held
    on the thread by the test hook, or running): exit 0, no traceback, and nothing written
    after the ``shutdown`` answer (the job that lands or is dropped after exit publishes
    nothing)."""
    server = RawServer(workspace, hooks=True)
    server.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                 "params": {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {"window": {"workDoneProgress": True}}}})
    server.response("init", SCAN_TIMEOUT)
    if held:
        server.send({"jsonrpc": "2.0", "id": "hold", "method": HOLD, "params": {"hold": True}})
        server.response("hold", SCAN_TIMEOUT)
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    create = server.wait_message(lambda m: m.get("method") == "window/workDoneProgress/create", SCAN_TIMEOUT)
    server.send({"jsonrpc": "2.0", "id": create["id"], "result": None})
    # Held: the scan has begun and waits on the thread; running: the small product is done
    # and the big one is being analysed.
    step = "begin" if held else "(1/2)"
    server.wait_message(lambda m: m.get("method") == "$/progress" and step in str(m["params"]["value"]), SCAN_TIMEOUT)
    server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.proc.stdin.close()
    rc = server.proc.wait(SCAN_TIMEOUT)
    try:
        while True:  # everything the server wrote before its stdout closed
            server._pump(time.monotonic() + TIMEOUT)
    except EOFError:
        pass
    server.stderr.seek(0)
    stderr = server.stderr.read().decode("utf-8", "replace")
    assert rc == 0, stderr
    assert "Traceback" not in stderr and "closed file" not in stderr, stderr
    at = next(i for i, m in enumerate(server.inbox) if m.get("id") == "bye" and "method" not in m)
    assert server.inbox[at].get("result") is None
    assert server.inbox[at + 1:] == [], server.inbox[at + 1:at + 4]
