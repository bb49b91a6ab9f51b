"""LSP lifecycle rules, files changed on disk and one file under two URIs, against the real
runway-lsp in raw JSON-RPC (tests/rawlsp.py). Each case replays a public bug report of another
language server (docs/reliability.md names them):

- LSP 3.17 §"Initialize Request", §"Shutdown Request", §"Exit Notification": a request before
  ``initialize`` is refused with ServerNotInitialized (-32002), a second ``initialize`` and
  any request after ``shutdown`` with InvalidRequest (-32600), never left unanswered; the
  exit code is 0 after a shutdown, else 1.
- ``workspace/didChangeWatchedFiles``: a member deleted on disk loses its diagnostics and its
  root reports RW151 at once (esbonio#291, dockerfile-language-server#214).
- One file open under two URIs (a symlinked folder, vscode#84826): each URI keeps its own
  buffer, diagnostics go to the one edited last, closing one keeps the other.
"""

from __future__ import annotations

import os
from pathlib import Path

from rawlsp import RawServer, sha256

HOVER = "textDocument/hover"


def hover_params(uri: str) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}


def test_requests_outside_the_session_are_refused_not_dropped(tmp_path: Path):
    uri = (tmp_path / "runway.yaml").as_uri()
    srv = RawServer(tmp_path)
    try:
        srv.send({"jsonrpc": "2.0", "id": "early", "method": HOVER, "params": hover_params(uri)})
        assert srv.response("early")["error"]["code"] == -32002  # ServerNotInitialized
        srv.open(uri, "runway: 1\nproduct: shop\n")  # a notification before initialize: dropped
        result = srv.initialize(tmp_path, {"general": {"positionEncodings": ["utf-16"]}})
        assert result["capabilities"]["positionEncoding"] == "utf-16"
        # A second initialize is refused and changes nothing (the encoding stays utf-16).
        srv.send({"jsonrpc": "2.0", "id": "again", "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}}})
        assert srv.response("again")["error"]["code"] == -32600  # InvalidRequest
        srv.open(uri, "runway: 1\nproduct: shop\n😀: 1\n")
        unknown = [d for d in srv.wait_publish(uri, 1)["diagnostics"] if d["code"] == "RW102"]
        assert unknown[0]["range"]["end"]["character"] == 2  # the emoji is two UTF-16 units
        srv.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        assert srv.response("bye")["result"] is None
        for msg_id, method in (("late", HOVER), ("bye-again", "shutdown")):
            srv.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": hover_params(uri) if method == HOVER else None})
            assert srv.response(msg_id)["error"]["code"] == -32600
        srv.send({"jsonrpc": "2.0", "method": "exit"})
        srv.proc.stdin.close()
        assert srv.proc.wait(30) == 0
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()


def test_exit_without_shutdown_exits_with_1(tmp_path: Path):
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        srv.send({"jsonrpc": "2.0", "method": "exit"})
        srv.proc.stdin.close()
        assert srv.proc.wait(30) == 1
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()


ROOT = "runway: 1\nproduct: shop\nmembers: [services/a]\nresources:\n  db: {kind: postgres}\n"


def test_a_member_deleted_on_disk_is_cleared_and_its_root_rechecked(tmp_path: Path):
    (tmp_path / "services" / "a").mkdir(parents=True)
    (tmp_path / "runway.yaml").write_text(ROOT, encoding="utf-8")
    member = tmp_path / "services" / "a" / "runway.yaml"
    member.write_text("runway: 1\nmember: a\nuses: [db, nope]\n", encoding="utf-8")
    root_uri, member_uri = (tmp_path / "runway.yaml").as_uri(), member.as_uri()
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
        # The server asks the client to watch every runway file (awaited: it loads its
        # modules after the initialize response, so a quiet moment proves nothing).
        srv.wait_message(lambda m: m.get("method") == "client/registerCapability")
        asks = [m for m in srv.inbox if m.get("method") == "client/registerCapability"]
        watchers = [r["registerOptions"]["watchers"] for m in asks for r in m["params"]["registrations"]
                    if r["method"] == "workspace/didChangeWatchedFiles"]
        assert watchers == [[{"globPattern": "**/runway.{yaml,yml}"}]]
        srv.open(root_uri, ROOT)
        srv.wait_publish(root_uri, 1)
        srv.drain(0.5)
        assert [d["code"] for d in srv.publishes(member_uri)[-1]["diagnostics"]] == ["RW152"]  # `nope`
        member.unlink()
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": member_uri, "type": 3}]}})
        srv.drain(0.5)
        assert srv.publishes(member_uri)[-1]["diagnostics"] == []
        root_codes = [(d["code"], d["range"]["start"]["line"]) for d in srv.publishes(root_uri)[-1]["diagnostics"]]
        assert ("RW151", 2) in root_codes  # `members: [services/a]`: the folder holds no runway.yaml
        # ... and created again: the root is rechecked without an edit.
        member.write_text("runway: 1\nmember: a\nuses: [db]\n", encoding="utf-8")
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": member_uri, "type": 1}]}})
        srv.drain(0.5)
        assert "RW151" not in [d["code"] for d in srv.publishes(root_uri)[-1]["diagnostics"]]
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_a_closed_root_deleted_then_restored_on_disk_gets_its_diagnostics_back(tmp_path: Path):
    # A fresh user deleted examples/orders/runway.yaml (not open) and restored it with `git
    # checkout`: its RW140 stayed gone from Problems until the file was opened.
    root = tmp_path / "runway.yaml"
    root.write_text(ROOT.replace("members: [services/a]\n", "") + "  bad: {kind: nope}\n", encoding="utf-8")
    root_uri = root.as_uri()
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
        def published(empty: bool, after: int) -> dict:
            return srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                    and m["params"]["uri"] == root_uri and (m["params"]["diagnostics"] == []) == empty
                                    and any(m is x for x in srv.inbox[after:]))

        first = published(False, 0)  # the start-up scan (diagnosticMode workspace)
        codes = sorted(d["code"] for d in first["params"]["diagnostics"])
        text = root.read_text(encoding="utf-8")
        root.unlink()
        seen = len(srv.inbox)
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": root_uri, "type": 3}]}})
        published(True, seen)
        root.write_text(text, encoding="utf-8")
        seen = len(srv.inbox)
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": root_uri, "type": 1}]}})
        back = published(False, seen)
        assert sorted(d["code"] for d in back["params"]["diagnostics"]) == codes
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_no_watcher_is_registered_without_dynamic_registration(tmp_path: Path):
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": False}}})
        srv.drain(0.3)
        assert not [m for m in srv.inbox if m.get("method") == "client/registerCapability"]
    finally:
        srv.close()


def test_one_file_under_two_uris_keeps_two_buffers(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    head = "runway: 1\nproduct: shop\n"
    (real / "runway.yaml").write_text(head, encoding="utf-8")
    u_real, u_link = (real / "runway.yaml").as_uri(), (tmp_path / "link" / "runway.yaml").as_uri()
    srv = RawServer(tmp_path, hooks=True)

    def buffer(uri: str) -> dict | None:
        srv.send({"jsonrpc": "2.0", "id": f"text-{uri}", "method": "runway/_documentText", "params": {"uri": uri}})
        return srv.response(f"text-{uri}")["result"]

    def unknown_keys(params: dict) -> list[str]:
        return [d["message"].split("`")[1] for d in params["diagnostics"] if d["code"] == "RW102"]

    try:
        srv.initialize(tmp_path)
        srv.open(u_real, head + "sise: 1\n")
        assert unknown_keys(srv.wait_publish(u_real, 1)) == ["sise"]
        srv.open(u_link, head + "kind2: 1\n")
        assert unknown_keys(srv.wait_publish(u_link, 1)) == ["kind2"]
        srv.drain(0.3)
        assert srv.publishes(u_real)[-1]["diagnostics"] == []  # shown where the file was opened last
        srv.change(u_real, 2, head + "zzz: 3\n")
        # `zzz` is new on the line just typed on: the typing pause holds it (runway_lsp/
        # typing_pause.py; this URI shows nothing there: the other URI's `kind2` is not on its
        # screen), so it comes with the pause's publication.
        zzz = srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u_real
                               and m["params"].get("version") == 2 and unknown_keys(m["params"]))
        assert unknown_keys(zzz["params"]) == ["zzz"]
        assert all(unknown_keys(m["params"]) in ([], ["zzz"]) for m in srv.inbox
                   if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u_real and m["params"].get("version") == 2)
        srv.drain(0.3)
        assert srv.publishes(u_link)[-1]["diagnostics"] == []
        # Each URI kept its own text.
        assert buffer(u_real)["sha256"] == sha256(head + "zzz: 3\n") and buffer(u_link)["sha256"] == sha256(head + "kind2: 1\n")
        # Closing one keeps the other open: its edits go on being analysed.
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": u_link}}})
        assert buffer(u_link) is None and buffer(u_real)["version"] == 2
        srv.change(u_real, 3, head + "yyy: 4\n")
        # the words shown (`zzz`) stay on the line typed on until the pause (issue 26), then `yyy`
        assert srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u_real
                                and m["params"].get("version") == 3 and unknown_keys(m["params"]) == ["yyy"])
        # Closing the last: where they were shown, the buffer's problems give way to the disk's
        # (the workspace mode: docs/reliability.md "Close").
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": u_real}}})
        srv.drain(0.3)
        assert unknown_keys(srv.publishes(u_real)[-1]) == [] and srv.publishes(u_real)[-1].get("version") is None
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_closing_a_file_opened_through_a_symlinked_folder_republishes_under_its_uri(tmp_path: Path):
    """The server keys files by real path but must publish, and clear, under the client's URI:
    after the close, the problems of the text on disk replace the buffer's there (the
    workspace mode; a file outside the workspace folders is cleared)."""
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    (real / "runway.yaml").write_text("runway: 1\nproduct: shop\n", encoding="utf-8")
    uri = (tmp_path / "link" / "runway.yaml").as_uri()
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        srv.open(uri, "runway: 1\nproduct: shop\nzzz: 1\n")
        assert "zzz" in str(srv.wait_publish(uri, 1)["diagnostics"])
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
        srv.drain(0.3)
        last = srv.publishes(uri)[-1]
        assert "zzz" not in str(last["diagnostics"]) and last.get("version") is None
    finally:
        srv.close()


def test_an_unknown_command_is_refused_in_one_log_line(tmp_path: Path):
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        srv.send({"jsonrpc": "2.0", "id": "cmd", "method": "workspace/executeCommand", "params": {"command": "nope"}})
        assert srv.response("cmd")["error"]["code"] == -32602
    finally:
        rc, stderr = srv.close()
    assert rc == 0 and "Traceback" not in stderr and "answered with error -32602" in stderr, stderr[-4000:]


def copy_orders(folder: Path) -> Path:
    import shutil

    from lspclient import EXAMPLES

    shutil.copytree(EXAMPLES / "orders", folder)
    return folder


def test_workspace_folders_added_and_removed_at_run_time(tmp_path: Path):
    """An added folder is scanned like the first ones (diagnostics, workspace/symbol); a
    removed one's runways leave workspace/symbol and their diagnostics are cleared (VS Code
    multi-root; python-language-server#951)."""
    a, b = copy_orders(tmp_path / "a"), copy_orders(tmp_path / "b")
    srv = RawServer(tmp_path)

    def codes(folder: Path) -> list[str]:
        pubs = srv.publishes((folder / "runway.yaml").as_uri())
        return [d["code"] for d in pubs[-1]["diagnostics"]] if pubs else []

    def symbol_roots() -> set[str]:
        srv.send({"jsonrpc": "2.0", "id": "sym", "method": "workspace/symbol", "params": {"query": "main-db"}})
        return {Path(s["location"]["uri"].removeprefix("file://")).parent.name for s in srv.response("sym")["result"]}

    try:
        srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "processId": None, "rootUri": a.as_uri(), "workspaceFolders": [{"uri": a.as_uri(), "name": "a"}],
            "capabilities": {"workspace": {"workspaceFolders": True}}}})
        srv.response("init")
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        assert symbol_roots() == {"a"} and codes(a) == ["RW140"]  # the example's digest
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders",
                  "params": {"event": {"added": [{"uri": b.as_uri(), "name": "b"}], "removed": []}}})
        assert symbol_roots() == {"a", "b"}
        srv.drain(0.3)
        assert codes(b) == ["RW140"]
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders",
                  "params": {"event": {"added": [], "removed": [{"uri": a.as_uri(), "name": "a"}]}}})
        assert symbol_roots() == {"b"}
        srv.drain(0.3)
        assert codes(a) == [] and codes(b) == ["RW140"]
    finally:
        rc, stderr = srv.close()
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_an_open_member_whose_root_is_deleted_is_checked_alone_at_once(tmp_path: Path):
    orders = copy_orders(tmp_path / "orders")
    member = orders / "services" / "billing" / "runway.yaml"
    srv = RawServer(orders)
    try:
        srv.initialize(orders, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
        srv.open(member.as_uri(), member.read_text(encoding="utf-8"))
        srv.wait_publish(member.as_uri(), 1)
        (orders / "runway.yaml").unlink()
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
                  "params": {"changes": [{"uri": (orders / "runway.yaml").as_uri(), "type": 3}]}})
        srv.drain(0.5)
        assert [d["code"] for d in srv.publishes(member.as_uri())[-1]["diagnostics"]] == ["RW154"]  # no root lists it now
    finally:
        rc, stderr = srv.close()
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_a_runway_that_is_not_utf8_is_reported_by_the_workspace_scan(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "runway.yaml").write_bytes(b"runway: 1\nproduct: caf\xe9\n")  # Latin-1
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        srv.wait_publish((tmp_path / "a" / "runway.yaml").as_uri(), None)
        pubs = srv.publishes((tmp_path / "a" / "runway.yaml").as_uri())
        assert [d["code"] for d in pubs[-1]["diagnostics"]] == ["RW001"]
        srv.send({"jsonrpc": "2.0", "id": "raw", "method": "[]"})  # and a request with an odd method name
        assert srv.response("raw")["error"]["code"] in (-32601, -32602)  # answered, never dropped
    finally:
        rc, stderr = srv.close()
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]
