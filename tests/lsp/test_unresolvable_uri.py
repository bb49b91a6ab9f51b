"""Round 5 (issue 23, A06): a document URI whose path ``os.path.realpath`` cannot resolve.

CPython 3.11's ``posixpath._joinrealpath`` (Lib/posixpath.py) catches ``OSError`` from
``os.lstat`` but calls ``os.readlink`` outside any ``try``: a symlink this process may not read
raises ``PermissionError`` out of ``realpath``. ``/proc/1/root`` is such a link for a process in
a container without ``CAP_SYS_PTRACE`` over PID 1 (proc(5): "permission to dereference or read
this symbolic link is governed by a ptrace access mode PTRACE_MODE_READ_FSCREDS check"). Before
the fix every handler keying that URI raised: hover, pull diagnostics and document symbols got
no answer at all (the client waits forever), didOpen and didChangeWatchedFiles logged
tracebacks and a whole watched-files batch was dropped, valid events included.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lspclient import EXAMPLES
from rawlsp import RawServer
from runway_lsp import uris

UNRESOLVABLE = "/proc/1/root/tmp/runway.yaml"


def test_a_path_realpath_cannot_resolve_is_keyed_by_its_absolute_path(monkeypatch) -> None:
    def refuse(path, *a, **k):  # what posixpath._joinrealpath raises for an unreadable link
        raise PermissionError(13, "Permission denied", "/proc/1/root")

    monkeypatch.setattr(os.path, "realpath", refuse)
    assert uris.uri_to_path("file:///proc/1/root/tmp/../tmp/runway.yaml") == UNRESOLVABLE
    assert uris.real_path(UNRESOLVABLE) == UNRESOLVABLE


def _readlink_refused() -> bool:
    try:
        os.path.realpath(UNRESOLVABLE)
    except OSError:
        return True
    return False


@pytest.mark.skipif(not _readlink_refused(), reason="this process may read /proc/1/root (CAP_SYS_PTRACE over PID 1), "
                    "so no path here makes os.path.realpath raise; the unit test above covers the rule")
def test_every_request_on_an_unresolvable_uri_is_answered_and_the_batch_kept(tmp_path: Path) -> None:
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    srv = RawServer(ws)
    uri = "file://" + UNRESOLVABLE
    answers = {}
    try:
        srv.initialize(ws)
        srv.open(uri, "runway: 1\nproduct: x\n")
        srv.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
                  "params": {"changes": [{"uri": uri, "type": 2}, {"uri": (ws / "runway.yaml").as_uri(), "type": 2}]}})
        for n, (method, params) in enumerate([
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}),
            ("textDocument/diagnostic", {"textDocument": {"uri": uri}}),
            ("textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
            ("runway/plan", {"uri": uri}),
        ], start=1):
            srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
            answers[method] = srv.response(n)  # raises when no answer comes within the timeout
        srv.send({"jsonrpc": "2.0", "id": 99, "method": "runway/plan", "params": {"uri": (ws / "runway.yaml").as_uri()}})
        good = srv.response(99)
        assert good["result"]["environments"], good
    finally:
        rc, stderr = srv.close()
    for method, answer in answers.items():
        assert "result" in answer or "error" in answer, (method, answer)
    assert rc == 0 and "Traceback" not in stderr, stderr
