"""The LSP test harness shared by every end-to-end test: a pytest-lsp client that keeps each
publish, the VS Code-like and Neovim-like capability sets, document helpers and waiters that
await notifications (never sleep). The ``client`` and ``orders`` fixtures live in conftest.py.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TIMEOUT = 15  # seconds; a guard against a hung server, never a wait for something to happen
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


# --- client -------------------------------------------------------------------------------------


def _record_publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)  # type: ignore[attr-defined]


def _record_refresh(client: LanguageClient, params: None) -> None:
    client.diagnostic_refresh_count += 1
    client.refreshed.set()  # type: ignore[attr-defined]


def _record_request(method: str):
    def record(client: LanguageClient, params: object) -> None:
        client.requests.append(method)  # type: ignore[attr-defined]
        client.requested.set()  # type: ignore[attr-defined]

    return record


def make_client() -> LanguageClient:
    """pytest-lsp's test client, also keeping every publish (with its version) in order, and
    answering (and recording in ``client.requests``) the requests a real VS Code answers:
    code lens and inlay hint refreshes, dynamic registrations."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]
    client.refreshed = asyncio.Event()  # type: ignore[attr-defined]
    client.requests = []  # type: ignore[attr-defined]
    client.requested = asyncio.Event()  # type: ignore[attr-defined]
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[PUBLISH] = _record_publish
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = _record_refresh
    for method in (types.WORKSPACE_CODE_LENS_REFRESH, types.WORKSPACE_INLAY_HINT_REFRESH, types.CLIENT_REGISTER_CAPABILITY):
        features[method] = _record_request(method)
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "runway_lsp", "--stdio"], client_factory=make_client))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def vscode_caps() -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    # Modern VS Code (1.70+) pulls diagnostics; the recorded 1.65 set predates that.
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=True, related_document_support=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def neovim_caps(utf8: bool = False) -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("neovim@v0.9.1")  # push diagnostics only
    if utf8:
        caps.general = types.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"])
    return caps


async def init(client: LanguageClient, caps: types.ClientCapabilities, root: Path, options: object = None) -> types.InitializeResult:
    """``initialize`` + ``initialized`` for the folder ``root``; ``options`` are the
    ``initializationOptions`` (none by default)."""
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )


# --- documents and waiting ----------------------------------------------------------------------


def did_open(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="yaml", version=version, text=path.read_text(encoding="utf-8") if text is None else text)
        )
    )


def did_change(client: LanguageClient, path: Path, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    """An incremental change; ``start``/``end`` are (line, character) in the negotiated encoding."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=start[0], character=start[1]), end=types.Position(line=end[0], character=end[1])),
                    text=text,
                )
            ],
        )
    )


def did_close(client: LanguageClient, path: Path) -> None:
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


async def until(client: LanguageClient, predicate) -> None:
    """Await publishDiagnostics notifications until ``predicate()`` holds."""

    async def loop() -> None:
        while not predicate():
            await client.wait_for_notification(PUBLISH)

    await asyncio.wait_for(loop(), TIMEOUT)


def codes(client: LanguageClient, path: Path) -> list[str]:
    return [d.code for d in client.diagnostics.get(path.as_uri(), [])]


def last_version(client: LanguageClient, path: Path) -> int | None:
    versions = [p.version for p in client.published if p.uri == path.as_uri()]  # type: ignore[attr-defined]
    return versions[-1] if versions else None


async def pull(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    report = await asyncio.wait_for(
        client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))),
        TIMEOUT,
    )
    assert report.kind == "full"
    return list(report.items)


async def pull_until(client: LanguageClient, path: Path, predicate) -> list[types.Diagnostic]:
    """Pull until ``predicate(items)`` holds, pulling again after each
    ``workspace/diagnostic/refresh`` (a diagnostic on a line being typed on is answered after
    the pause the server then announces: runway_lsp/typing_pause.py)."""

    async def loop() -> list[types.Diagnostic]:
        while True:
            items = await pull(client, path)
            if predicate(items):
                return items
            await client.refreshed.wait()  # type: ignore[attr-defined]
            client.refreshed.clear()  # type: ignore[attr-defined]

    return await asyncio.wait_for(loop(), TIMEOUT)


def span(d: types.Diagnostic) -> tuple[int, int, int, int]:
    r = d.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def line_of(path: Path, needle: str) -> tuple[int, str]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if needle in line:
            return i, line
    raise AssertionError(f"{needle!r} not in {path}")


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def orders(tmp_path: Path) -> Path:
    """A private copy of examples/orders; returns the copy's folder."""
    dst = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", dst)
    return dst


def files(orders: Path) -> tuple[Path, Path, Path]:
    return orders / "runway.yaml", orders / "services" / "checkout" / "runway.yaml", orders / "services" / "billing" / "runway.yaml"


