"""The server's bounds on hostile input (docs/reliability.md, "Round 2 bounds"):

- one ``workspace/didChangeWatchedFiles`` with 20,000 "created" events for runway files that
  do not exist (adversary S4: blocked the server 40 s) is coalesced: past
  ``text_sync.MAX_WATCHED_CHANGES`` distinct URIs every known product is re-checked once;
  under it, paths that neither exist nor were published collapse to one per folder. A
  member deleted in the same burst is still cleared and its root still reports RW151.
- a request whose params nest 100,000 arrays deep (adversary P1: never answered, traceback)
  is answered with a JSON-RPC error carrying its id.
"""

from __future__ import annotations

from pathlib import Path

from rawlsp import RawServer

ROOT = "runway: 1\nproduct: shop\nmembers: [services/a]\nresources:\n  db: {kind: postgres}\n"


def _product(tmp_path: Path) -> tuple[str, str, Path]:
    (tmp_path / "services" / "a").mkdir(parents=True)
    (tmp_path / "runway.yaml").write_text(ROOT, encoding="utf-8")
    member = tmp_path / "services" / "a" / "runway.yaml"
    member.write_text("runway: 1\nmember: a\nuses: [db, nope]\n", encoding="utf-8")
    return (tmp_path / "runway.yaml").as_uri(), member.as_uri(), member


def _burst(tmp_path: Path, n: int, member_uri: str) -> dict:
    changes = [{"uri": (tmp_path / f"svc{i}" / "runway.yaml").as_uri(), "type": 1} for i in range(n)]
    changes.insert(n // 2, {"uri": member_uri, "type": 3})
    return {"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": changes}}


def _deleted_member_cleared_after_burst(tmp_path: Path, n: int) -> str:
    root_uri, member_uri, member = _product(tmp_path)
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        srv.open(root_uri, ROOT)
        srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == member_uri)
        assert [d["code"] for d in srv.publishes(member_uri)[-1]["diagnostics"]] == ["RW152"]
        member.unlink()
        srv.send(_burst(tmp_path, n, member_uri))
        srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == member_uri
                         and m["params"]["diagnostics"] == [])
        srv.wait_message(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == root_uri
                         and "RW151" in [d["code"] for d in m["params"]["diagnostics"]])
        srv.send({"jsonrpc": "2.0", "id": "after", "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": root_uri}, "position": {"line": 3, "character": 3}}})
        assert "result" in srv.response("after")
        # No publication for any of the paths that do not exist.
        assert not [m for m in srv.notifications("textDocument/publishDiagnostics") if "/svc" in m["params"]["uri"]]
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]
    return stderr


def test_a_burst_of_20000_created_events_re_checks_known_products_once(tmp_path: Path):
    stderr = _deleted_member_cleared_after_burst(tmp_path, 20_000)
    assert "20001 changes (over 1000): every known product re-checked" in stderr


def test_a_burst_under_the_bound_is_coalesced_per_folder(tmp_path: Path):
    # 900 missing paths under one existing folder: one stands for all (unit-tested in
    # tests/lsp/test_watched_coalesce.py); the deleted member among them is still cleared.
    stderr = _deleted_member_cleared_after_burst(tmp_path, 900)
    assert "every known product re-checked" not in stderr


def test_a_request_nested_100000_deep_is_answered_with_an_error(tmp_path: Path):
    srv = RawServer(tmp_path)
    try:
        srv.initialize(tmp_path)
        deep = b"[" * 100_000 + b"]" * 100_000
        for msg_id in (b"900", b'"deep-1"'):
            body = b'{"jsonrpc":"2.0","id":' + msg_id + b',"method":"textDocument/hover","params":' + deep + b"}"
            srv.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        body = b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":' + deep + b"}"  # no id: dropped
        srv.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        srv.proc.stdin.flush()
        for msg_id in (900, "deep-1"):
            assert srv.response(msg_id)["error"]["code"] == -32600
        srv.send({"jsonrpc": "2.0", "id": "after", "method": "workspace/symbol", "params": {"query": ""}})
        assert "result" in srv.response("after")
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]
    assert stderr.count("nested too deep to decode") == 3


def test_an_open_root_linked_out_of_its_folder_gets_the_clis_rw151(tmp_path: Path):
    # Adversary M7: runway.yaml -> /proc/self/environ; the CLI said RW151, the server analysed
    # the buffer under the resolved path (no link left to see) or published nothing.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "environ").write_text("runway: 1\nproduct: other\n", encoding="utf-8")
    product = tmp_path / "product"
    product.mkdir()
    (product / "runway.yaml").symlink_to(outside / "environ")
    uri = (product / "runway.yaml").as_uri()
    srv = RawServer(product)
    try:
        srv.initialize(product)
        srv.open(uri, "runway: 1\nproduct: shop\n")
        pub = srv.wait_publish(uri, 1)
        assert [(d["code"], d["range"]["start"]) for d in pub["diagnostics"]] == [("RW151", {"line": 0, "character": 0})]
        assert "leaves the product's folder" in pub["diagnostics"][0]["message"]
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]


def test_a_version_that_does_not_increase_still_gets_fresh_diagnostics(tmp_path: Path):
    # Adversary M3: versions 3 after 63, and negative ones, were taken as they came; the
    # analysis cache keys an open buffer by its version, so a repeated version was served the
    # diagnostics of an older text. Now the change is applied (the client did apply it), the
    # cached analyses are dropped and one warning line says so (LSP 3.17: versions increase).
    uri = (tmp_path / "runway.yaml").as_uri()
    clean = "runway: 1\nproduct: shop\nenvironments:\n  dev: {}\n"
    broken = clean + "resources:\n  q: {kind: queu}\n"
    srv = RawServer(tmp_path)

    def after(change_version: int, text: str, codes: list[str]) -> None:
        # The publication of this version with these codes (diagnostics on lines just typed
        # may be held for a moment first: runway_lsp/typing_pause.py).
        seen = len(srv.inbox)
        srv.change(uri, change_version, text)
        srv.wait_message(lambda _m: any(
            m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            and m["params"].get("version") == change_version and sorted(d["code"] for d in m["params"]["diagnostics"]) == codes
            for m in srv.inbox[seen:]))

    try:
        srv.initialize(tmp_path)
        srv.open(uri, clean, version=63)
        assert srv.wait_publish(uri, 63)["diagnostics"] == []
        after(63, broken, ["RW120", "RW180"])  # the same version, another text
        after(3, clean, [])  # backwards
        after(-7, broken, ["RW120", "RW180"])  # negative
    finally:
        rc, stderr = srv.close() if srv.proc.poll() is None else (srv.proc.returncode, "")
    assert rc == 0 and "Traceback" not in stderr, stderr[-4000:]
    assert stderr.count("versions increase") == 3
