"""End to end: which runway files the workspace scan reports (``runway.exclude``,
``runway.diagnosticMode``; issue 15: 710 problems from the checkout's test fixtures drowned
the one real error). The real runway-lsp over stdio, settings from ``initializationOptions``
(a client without ``workspace/configuration``), as the VS Code extension also sends them.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import EXAMPLES, TIMEOUT, codes, did_close, did_open, init, neovim_caps, until, vscode_caps

BROKEN = "runway: 1\nproduct: fixture\nregion: us-east-1\nenvironments: {dev: {}}\nresources:\n  db:\n    kind: postgress\n"


def _workspace(tmp_path: Path) -> Path:
    """A checkout-like folder: the orders example, a test fixture and a broken example."""
    ws = tmp_path.resolve() / "ws"
    shutil.copytree(EXAMPLES / "orders", ws / "examples" / "orders")
    for rel in ("tests/golden/kind/runway.yaml", "examples/broken/runway.yaml"):
        (ws / rel).parent.mkdir(parents=True)
        (ws / rel).write_text(BROKEN, encoding="utf-8")
    return ws


def _caps() -> types.ClientCapabilities:
    caps = neovim_caps()
    caps.workspace.configuration = False  # settings come from initializationOptions
    return caps


async def _scanned(client: LanguageClient) -> None:
    # workspace/symbol is answered once the initial scan is over (its publishes came first).
    await asyncio.wait_for(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")), TIMEOUT)


def _published(client: LanguageClient, ws: Path) -> set[str]:
    return {Path(p.uri.removeprefix("file://")).relative_to(ws).as_posix() for p in client.published if p.diagnostics}  # type: ignore[attr-defined]


async def test_without_exclusions_the_scan_reports_the_fixtures_too(client: LanguageClient, tmp_path: Path):
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws)
    await _scanned(client)
    assert {"examples/orders/runway.yaml", "tests/golden/kind/runway.yaml", "examples/broken/runway.yaml"} <= _published(client, ws)


async def test_runway_exclude_leaves_the_fixtures_out_and_an_opened_one_is_still_checked(client: LanguageClient, tmp_path: Path):
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws, {"runway": {"exclude": ["tests/**", "examples/broken", "**/.git"]}})
    await _scanned(client)
    assert _published(client, ws) == {"examples/orders/runway.yaml"}
    assert codes(client, ws / "examples" / "orders" / "runway.yaml") == ["RW140"]
    # Opening an excluded file checks it all the same.
    fixture = ws / "tests" / "golden" / "kind" / "runway.yaml"
    did_open(client, fixture)
    await until(client, lambda: "RW120" in codes(client, fixture))


async def test_open_files_only_publishes_nothing_for_closed_files(client: LanguageClient, tmp_path: Path):
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws, {"runway": {"diagnosticMode": "openFilesOnly"}})
    await _scanned(client)
    assert _published(client, ws) == set()
    root = ws / "examples" / "orders" / "runway.yaml"
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    assert _published(client, ws) == {"examples/orders/runway.yaml"}


async def test_bad_exclusion_settings_are_named_and_the_defaults_used(client: LanguageClient, tmp_path: Path):
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws, {"runway": {"exclude": "tests/**", "diagnosticMode": "some"}})
    await _scanned(client)
    messages = [m.message for m in client.messages]
    assert any("`runway.exclude` must be a list of at most 100 glob strings" in m and "`runway.diagnosticMode` must be `workspace` or `openFilesOnly`" in m for m in messages), messages
    assert "tests/golden/kind/runway.yaml" in _published(client, ws)


async def test_closing_a_member_in_the_workspace_mode_keeps_the_products_problems(client: LanguageClient, tmp_path: Path):
    """Round 3 (a fresh reviewer): opening and closing a member without an edit erased the
    root's RW140 until the next scan; a file closed keeps the problems of its text on disk."""
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws, {"runway": {"exclude": ["tests/**", "examples/broken"]}})
    await _scanned(client)
    root = ws / "examples" / "orders" / "runway.yaml"
    member = ws / "examples" / "orders" / "services" / "billing" / "runway.yaml"
    assert codes(client, root) == ["RW140"]
    did_open(client, member)
    await until(client, lambda: any(p.uri == member.as_uri() for p in client.published))  # type: ignore[attr-defined]
    n = len(client.published)  # type: ignore[attr-defined]
    did_close(client, member)
    await until(client, lambda: any(p.uri == root.as_uri() for p in client.published[n:]))  # type: ignore[attr-defined]
    await asyncio.sleep(0.3)
    assert codes(client, root) == ["RW140"] and codes(client, member) == []
    # Closing the root itself: the same.
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    did_close(client, root)
    await asyncio.sleep(0.5)
    assert codes(client, root) == ["RW140"]


async def test_closing_in_open_files_only_clears(client: LanguageClient, tmp_path: Path):
    ws = _workspace(tmp_path)
    await init(client, _caps(), ws, {"runway": {"diagnosticMode": "openFilesOnly"}})
    await _scanned(client)
    root = ws / "examples" / "orders" / "runway.yaml"
    did_open(client, root)
    await until(client, lambda: codes(client, root) == ["RW140"])
    did_close(client, root)
    await until(client, lambda: codes(client, root) == [])


async def test_the_first_settings_do_not_scan_the_workspace_twice(client: LanguageClient, tmp_path: Path):
    """Issue 26 (seen in code-server): VS Code's first ``workspace/configuration`` answer is
    not the defaults (the extension adds ``files.exclude`` to ``runway.exclude``), and it came
    while the start-up scan waited for it: the scan read it, and the settings change started a
    second scan of the whole workspace. One ``begin`` of "Scanning runway files" at start."""
    ws = _workspace(tmp_path)
    caps = vscode_caps()  # pulls settings with workspace/configuration; work-done progress
    client.set_configuration({"exclude": ["tests/**", "examples/broken", "**/.git"]}, section="runway")
    await init(client, caps, ws)
    await _scanned(client)
    await asyncio.sleep(1.0)  # a second scan would have begun by now (it starts at the answer)
    begins = [v for values in client.progress_reports.values() for v in values
              if isinstance(v, types.WorkDoneProgressBegin) and v.title == "Scanning runway files"]
    assert len(begins) == 1, begins
    assert _published(client, ws) == {"examples/orders/runway.yaml"}
