"""A ``file:`` URI whose path is past PATH_MAX (20,000 segments) names no file: the
``runway.showCost`` command, a watched-file event and an added workspace folder of it are
skipped at once, no folder walked for it (eighth adversary F4: each held the message loop
~15-20 s, every other request waiting). The command also follows the custom requests' URI rule
(runway_lsp.uris.request_file_uri): a relative or non-file URI is answered with null."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from lsprotocol import types
from lspclient import EXAMPLES
from rawlsp import RawServer

from runway_lsp import text_sync
from runway_lsp.cost_view import CostView
from runway_lsp.scan import WorkspaceScan

LONG = "file://" + "/a" * 20_000 + "/runway.yaml"
LONG_FOLDER = "file://" + "/a" * 20_000


class Recorder:
    """A stand-in whose every attribute call is recorded (and answers ``None``/empty)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.documents: dict = {}

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            self.calls.append(name)
            return [] if name in ("published_groups", "folders") else None

        return call


@pytest.mark.parametrize("uri", [LONG, "untitled:Untitled-1", "http://h/x/runway.yaml", "runway.yaml", "file:runway.yaml"])
def test_show_cost_walks_nothing_for_a_long_or_non_file_uri(uri: str) -> None:
    session = Recorder()
    view = SimpleNamespace(session=session, view=lambda key: pytest.fail("no view for such a uri"))
    assert CostView.show_cost(view, uri, {"env": "dev"}) is None
    assert session.calls == []  # group_of never called


def test_watched_change_of_a_long_path_touches_nothing() -> None:
    session = Recorder()
    session.publisher = Recorder()
    params = types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=LONG, type=types.FileChangeType.Created),
                                                        types.FileEvent(uri=LONG, type=types.FileChangeType.Changed)])
    text_sync.did_change_watched_files(session, params)
    assert session.calls == [] and session.publisher.calls == []


def test_created_long_path_and_added_long_folder_start_no_scan() -> None:
    scan = Recorder()
    scan.session = Recorder()
    scan.session.publisher = Recorder()
    scan.roots = []
    created = types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=LONG, type=types.FileChangeType.Created)])
    WorkspaceScan.files_created(scan, created)
    added = types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(uri=LONG_FOLDER, name="deep")], removed=[]))
    WorkspaceScan.folders_changed(scan, added)
    assert "start" not in scan.calls
    assert scan.session.publisher.calls == []


def test_show_cost_of_a_long_uri_answers_null_and_the_server_goes_on(tmp_path: Path) -> None:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    root = ws / "runway.yaml"
    srv = RawServer(ws)
    try:
        srv.initialize(ws)
        srv.open(root.as_uri(), root.read_text(encoding="utf-8"))
        srv.wait_publish(root.as_uri(), 1)
        srv.send({"jsonrpc": "2.0", "id": "cmd", "method": "workspace/executeCommand",
                  "params": {"command": "runway.showCost", "arguments": [LONG, {"env": "dev"}]}})
        srv.send({"jsonrpc": "2.0", "id": "hover", "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": root.as_uri()}, "position": {"line": 0, "character": 0}}})
        assert srv.response("cmd") == {"jsonrpc": "2.0", "id": "cmd", "result": None}
        assert "error" not in srv.response("hover")
    finally:
        rc, err = srv.close()
    assert rc == 0
    assert "runway.showCost: the document's path is longer than the OS opens" in err
    assert "Traceback" not in err
