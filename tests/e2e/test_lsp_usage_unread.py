"""End to end: a usage file the server refuses to read (tenth adversary L3), through the real
runway-lsp over stdio (pytest-lsp, Neovim's push capability set). Its RW200 ("cannot read the
usage file") is counted in ``runway/plan`` and printed by ``runway-deploy check``; the editor
is told too: under the usage file's own URI when a client can name it (a ``usagePath`` file
that does not exist, a FIFO, a link leaving the product, a mode-000 file the server may not
read), on the root's first line when it cannot be a document (a folder). Either way the count
the editor shows is the plan's. Await notifications; never sleep.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lspclient import EXAMPLES, TIMEOUT, did_open, init, make_client, neovim_caps, pull, until, vscode_caps
from unprivileged import as_nobody, unprivileged  # noqa: F401 - the fixture

PLAN = "runway/plan"


async def plan_errors(client: LanguageClient, root: Path) -> int:
    result = await asyncio.wait_for(client.protocol.send_request_async(PLAN, {"uri": root.as_uri()}), TIMEOUT)
    counts = result["diagnostics"] if isinstance(result, dict) else result.diagnostics
    return counts["error"] if isinstance(counts, dict) else counts.error


def shown_errors(client: LanguageClient) -> int:
    return sum(1 for ds in client.diagnostics.values() for d in ds if d.severity == 1)


def rw200(client: LanguageClient) -> dict[str, list[tuple[int, int, str]]]:
    """URI -> (line, character, message) of every RW200 the client shows."""
    out = {uri: [(d.range.start.line, d.range.start.character, d.message) for d in ds if d.code == "RW200"] for uri, ds in client.diagnostics.items()}
    return {uri: found for uri, found in out.items() if found}


async def test_a_missing_usage_path_file_is_published_at_its_uri(client: LanguageClient, orders: Path) -> None:
    root = orders / "runway.yaml"
    missing = orders / "missing.yaml"
    await init(client, neovim_caps(), orders, {"runway": {"usagePath": "missing.yaml"}})
    did_open(client, root)
    await until(client, lambda: missing.as_uri() in rw200(client))
    ((line, character, message),) = rw200(client)[missing.as_uri()]
    assert (line, character) == (0, 0) and message.startswith("cannot read the usage file: No such file")
    assert list(rw200(client)) == [missing.as_uri()]
    assert shown_errors(client) == await plan_errors(client, root)


async def test_a_fifo_is_published_at_its_uri_and_never_opened(client: LanguageClient, orders: Path) -> None:
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    os.mkfifo(usage)  # a read would block: the server checks the type first (runway_core/files.py)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: usage.as_uri() in rw200(client))
    ((line, character, message),) = rw200(client)[usage.as_uri()]
    assert (line, character) == (0, 0) and message.startswith("cannot read the usage file")
    assert shown_errors(client) == await plan_errors(client, root)


async def test_a_link_leaving_the_product_is_published_at_its_uri(client: LanguageClient, orders: Path, tmp_path: Path) -> None:
    """Refused before any read: no version of a text to check its RW200 against (the link's
    target on disk has one, which the publisher took for a newer text than the analysis's)."""
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("usage: 1\nenvironments: {}\n", encoding="utf-8")
    usage.symlink_to(outside)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: usage.as_uri() in rw200(client))
    ((line, character, message),) = rw200(client)[usage.as_uri()]
    assert (line, character) == (0, 0) and "symlink that leaves the product's folder" in message
    assert shown_errors(client) == await plan_errors(client, root)


async def test_a_link_inside_the_product_is_read_and_published_at_its_uri(client: LanguageClient, orders: Path) -> None:
    """Found alongside L3: a usage file that is a link to a file inside the product is read
    (recorded under its target's path) but keyed by the link's: its RW202 was counted by the
    plan and taken for stale by the publisher, published nowhere."""
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    (orders / "usage").mkdir()
    (orders / "usage" / "prod.yaml").write_text("usage: 1\nenvironments:\n  production:\n    items:\n      invoices: {storag_gb: 5}\n", encoding="utf-8")
    usage.symlink_to("usage/prod.yaml")
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: "RW202" in [d.code for d in client.diagnostics.get(usage.as_uri(), [])])
    assert [(d.code, d.range.start.line, d.range.start.character) for d in client.diagnostics[usage.as_uri()]] == [("RW202", 4, 17)]
    assert shown_errors(client) == await plan_errors(client, root)


async def test_a_folder_is_published_on_the_root(client: LanguageClient, orders: Path) -> None:
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    usage.mkdir()
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: root.as_uri() in rw200(client))
    ((line, character, message),) = rw200(client)[root.as_uri()]
    assert (line, character) == (0, 0)
    assert message == "cannot read the usage file: runway.usage.yaml is not a regular file (a FIFO, socket, device or folder); never read"
    assert list(rw200(client)) == [root.as_uri()]  # never a folder's URI
    assert shown_errors(client) == await plan_errors(client, root)


async def test_a_folder_is_pulled_on_the_root(client: LanguageClient, orders: Path) -> None:
    """A pulling client (VS Code) gets the folder's RW200 in the root's pulled report."""
    root = orders / "runway.yaml"
    (orders / "runway.usage.yaml").mkdir()
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    items = await pull(client, root)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in items if d.code == "RW200"] == [("RW200", 0, 0)]
    assert rw200(client) == {}  # nothing pushed for a folder's URI either


# --- a mode-000 file, the server running as uid 65534 (CI runs as root: root reads anything) --

_NOBODY_HOME = tempfile.gettempdir()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=as_nobody([sys.executable, "-m", "runway_lsp", "--stdio"]), client_factory=make_client,
                                              server_env={**{k: v for k, v in os.environ.items() if not k.startswith("RUNWAY_")},
                                                          "HOME": _NOBODY_HOME, "PYTHONDONTWRITEBYTECODE": "1"}))
async def nobody_client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def test_a_file_the_server_may_not_read_is_published_at_its_uri(unprivileged: Path, nobody_client: LanguageClient) -> None:  # noqa: F811
    client = nobody_client
    orders = unprivileged / "orders"
    shutil.copytree(EXAMPLES / "orders", orders)
    root = orders / "runway.yaml"
    usage = orders / "runway.usage.yaml"
    usage.write_text("usage: 1\nenvironments: {}\n", encoding="utf-8")
    usage.chmod(0o000)  # root's, mode 000: the server (uid 65534) may not read it
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: usage.as_uri() in rw200(client))
    ((line, character, message),) = rw200(client)[usage.as_uri()]
    assert (line, character) == (0, 0) and message == "cannot read the usage file: Permission denied"
    assert shown_errors(client) == await plan_errors(client, root)
