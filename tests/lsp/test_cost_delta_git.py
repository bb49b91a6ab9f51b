"""The cost deltas' git calls (seventh adversary F5, F7; issue 23).

- F5: a repository whose ``.git/config`` includes a FIFO nobody writes makes every git call
  wait for it (until the 10 s timeout). The server ran them on its event loop: each hover
  that wanted a HEAD baseline held every other message. Now git runs on the baselines
  worker; a request answers with the baselines known, and nothing waits for git.
- F7: ``initializationOptions`` ``{"runway": {"costDelta": {"enabled": false}}}`` ran git all
  the same (the settings in force before ``initialized``, and the null answer of a client
  that declares ``workspace/configuration``, were the defaults). Disabled, git never runs.

Raw JSON-RPC (tests/rawlsp.py) with a recording ``git`` first on the server's ``PATH``; every
read is bounded by a deadline that only guards against a hang, never a timing assert.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from lspclient import EXAMPLES, TIMEOUT, line_of
from rawlsp import RawServer

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

CAPS = {"textDocument": {"synchronization": {"didSave": True}, "publishDiagnostics": {"versionSupport": True},
                         "hover": {"contentFormat": ["markdown", "plaintext"]},
                         "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}},
        "general": {"positionEncodings": ["utf-16"]}}
#: The same, declaring ``workspace/configuration`` (Neovim 0.8+, VS Code).
PULL_CAPS = {**CAPS, "workspace": {"configuration": True}}


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True)


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    """A git work tree holding a committed copy of examples/orders: (its folder, the root)."""
    ws = tmp_path.resolve() / "repo"
    shutil.copytree(EXAMPLES / "orders", ws / "orders")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "orders")
    return ws, ws / "orders" / "runway.yaml"


def _recording_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``git`` that appends its arguments to a log, then runs the real one: the server's
    environment with it first on ``PATH``, and the log."""
    bin_dir, log = tmp_path / "bin", tmp_path / "git-calls.log"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{GIT}" "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}, log


def _start(srv: RawServer, ws: Path, caps: dict, options: object, answer: object = "unasked") -> None:
    """``initialize`` (with ``options``) and ``initialized``; ``answer``: the client's answer
    to ``workspace/configuration`` (its ``runway`` section), when the server asks."""
    srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": caps, "initializationOptions": options}})
    srv.response("init")
    srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    if answer != "unasked":
        req = srv.wait_message(lambda m: m.get("method") == "workspace/configuration" and "id" in m)
        srv.inbox.remove(req)
        srv.send({"jsonrpc": "2.0", "id": req["id"], "result": [answer]})


def _hover(srv: RawServer, msg_id: str, path: Path, line: int, character: int) -> None:
    srv.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": character}}})


def _symbols(srv: RawServer, msg_id: str, path: Path) -> None:
    srv.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": path.as_uri()}}})


def _lenses(srv: RawServer, msg_id: str, path: Path) -> None:
    srv.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": path.as_uri()}}})


def _names(symbols: list[dict]) -> list[str]:
    out: list[str] = []
    for s in symbols or ():
        out.append(s["name"])
        out.extend(_names(s.get("children") or []))
    return out


# --- F5: git stuck on a FIFO ------------------------------------------------------------------------


def _write_to(fifo: Path, bound: float) -> bool:
    """Open ``fifo`` for writing and close it (its reader reads an empty file): True when a
    reader had it open or opened it within ``bound`` seconds (a hang guard, not a timing)."""
    opened = threading.Event()

    def run() -> None:
        try:
            fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens it
        except OSError:
            return
        opened.set()
        os.close(fd)

    threading.Thread(target=run, daemon=True).start()
    if opened.wait(bound):
        return True
    # Nobody came: unblock our own open by being its reader, and say so.
    try:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass
    return False


def _release_every_reader(fifo: Path) -> None:
    """Let every git still waiting on ``fifo`` go on (no process is left behind the test)."""
    for _ in range(50):
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader has it open
            return
        os.close(fd)


def _nobody_reads(fifo: Path) -> bool:
    """True when no process has ``fifo`` open for reading (no git waits on it)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno == errno.ENXIO
    os.close(fd)
    return False


def test_requests_are_answered_and_no_git_waits_on_a_fifo_its_config_includes(tmp_path: Path):
    """F5, then the ninth adversary's C5: the repository's files are checked before git
    starts (runway_core.gitcmd.blocking_file), so no git ever opens the FIFO (before: each git
    waited on it until its 10 s timeout, on the worker)."""
    ws, root = _repo(tmp_path)
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)
    with open(ws / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(f"[include]\n\tpath = {fifo}\n")
    env, log_file = _recording_git(tmp_path)
    srv = RawServer(ws, env=env)
    try:
        _start(srv, ws, CAPS, None)
        srv.open(root.as_uri(), root.read_text(encoding="utf-8"))
        dev_line, _ = line_of(root, "  dev:")
        for n in range(3):  # each wants the HEAD baseline
            _hover(srv, f"h{n}", root, dev_line, 4)
            _symbols(srv, f"s{n}", root)
        for n in range(3):
            hover = srv.response(f"h{n}", timeout=20)["result"]
            assert hover is not None and "dev" in hover["contents"]["value"] and "vs HEAD" not in hover["contents"]["value"]
            assert "main-db" in _names(srv.response(f"s{n}", timeout=20)["result"])
        _lenses(srv, "l", root)
        assert srv.response("l", timeout=20)["result"] is not None
        assert _nobody_reads(fifo), "a git waits on the FIFO"
    finally:
        _release_every_reader(fifo)
        rc, log = srv.close()
        _release_every_reader(fifo)
    assert rc == 0 and "Traceback" not in log, log[-3000:]
    assert not log_file.exists(), "git ran on a repository holding a FIFO it would wait on"


# --- L1: a promisor remote's lazy fetch ------------------------------------------------------------


def test_a_missing_blob_is_not_fetched_from_a_promisor_remote(tmp_path: Path):
    """The ninth adversary's L1 (repro L1.py): HEAD's runway.yaml missing from .git/objects, a
    promisor remote whose ``core.sshCommand`` (or ``ext::`` URL) makes a file. Hover and lenses
    ask the HEAD baseline: ``git show`` fails (no baseline), nothing runs."""
    ws, root = _repo(tmp_path)
    mark, mark2 = tmp_path / "PWNED", tmp_path / "PWNED2"
    blob = subprocess.run([GIT, "-C", str(ws), "rev-parse", "HEAD:orders/runway.yaml"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (ws / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in [("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true"), ("remote.origin.url", "ssh://example.invalid/x"),
                       ("core.sshCommand", f"touch {mark}; false"), ("remote.other.promisor", "true"),
                       ("remote.other.url", f"ext::sh -c touch% {mark2}"), ("protocol.ext.allow", "always")]:
        _git(ws, "config", key, value)
    bin_dir, log = tmp_path / "bin", tmp_path / "git-calls.log"
    bin_dir.mkdir()
    fake = bin_dir / "git"  # logs each call's start and end: the test waits for the `show` to end
    fake.write_text(f'#!/bin/sh\nprintf "start %s\\n" "$*" >> "{log}"\n"{GIT}" "$@"\nrc=$?\n'
                    f'printf "end %s\\n" "$*" >> "{log}"\nexit $rc\n', encoding="utf-8")
    fake.chmod(0o755)
    srv = RawServer(ws, env={"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    try:
        _start(srv, ws, CAPS, None)
        text = root.read_text(encoding="utf-8")
        srv.open(root.as_uri(), text)
        srv.change(root.as_uri(), 2, text + "\n")  # an unsaved change, as in the repro
        for n in range(60):  # until the `git show` of the HEAD baseline has ended (a hang guard)
            _hover(srv, f"h{n}", root, line_of(root, "  dev:")[0], 4)
            hover = srv.response(f"h{n}", timeout=20)["result"]
            assert hover is not None and "vs HEAD" not in hover["contents"]["value"]
            if log.exists() and any(line.startswith("end ") and " show " in line for line in log.read_text().splitlines()):
                break
            threading.Event().wait(0.5)  # let the worker run git; not a timing assert
        else:
            raise AssertionError("the HEAD baseline's git show never ended")
        _lenses(srv, "l", root)
        assert srv.response("l", timeout=20)["result"] is not None
    finally:
        rc, out = srv.close()
    assert rc == 0 and "Traceback" not in out, out[-3000:]
    assert not mark.exists() and not mark2.exists(), "a program of the repository's config ran"


# --- F7: costDelta.enabled false runs no git ------------------------------------------------------


OFF = {"runway": {"costDelta": {"enabled": False}}}


def _session(tmp_path: Path, caps: dict, options: object, answer: object) -> list[str]:
    """One session in a git work tree: open the root, hover its environments, ask its lenses,
    resize a database and ask again; the git calls the server made."""
    ws, root = _repo(tmp_path)
    env, log_file = _recording_git(tmp_path)
    srv = RawServer(ws, env=env)
    try:
        _start(srv, ws, caps, options, answer)
        text = root.read_text(encoding="utf-8")
        srv.open(root.as_uri(), text)
        for n, env_name in enumerate(("dev", "staging", "production")):
            _hover(srv, f"h{n}", root, line_of(root, f"  {env_name}:")[0], 4)
            assert srv.response(f"h{n}")["result"] is not None
        _lenses(srv, "l1", root)
        assert srv.response("l1")["result"]
        srv.change(root.as_uri(), 2, text.replace("staging: medium", "staging: large", 1))
        _lenses(srv, "l2", root)
        titles = [lens["command"]["title"] for lens in srv.response("l2")["result"]]
        _hover(srv, "h9", root, line_of(root, "  staging:")[0], 4)
        hover = srv.response("h9")["result"]["contents"]["value"]
    finally:
        rc, log = srv.close()
    assert rc == 0 and "Traceback" not in log, log[-3000:]
    calls = log_file.read_text(encoding="utf-8").splitlines() if log_file.exists() else []
    if calls:
        assert any("vs HEAD" in t for t in titles) and "vs HEAD" in hover  # the deltas git made
    else:
        assert not any("since save" in t or "vs HEAD" in t for t in titles) and "since save" not in hover
    return calls


@pytest.mark.parametrize(("caps", "answer"), [
    pytest.param(CAPS, "unasked", id="initializationOptions"),
    pytest.param(PULL_CAPS, None, id="configuration-answered-null"),
    pytest.param(PULL_CAPS, {"costDelta": {"enabled": False}}, id="configuration-says-off-too"),
])
def test_cost_delta_disabled_in_initialization_options_runs_no_git(tmp_path: Path, caps, answer):
    assert _session(tmp_path, caps, OFF, answer) == []


def test_cost_delta_enabled_runs_git(tmp_path: Path):
    calls = _session(tmp_path, CAPS, {"runway": {"costDelta": {"enabled": True}}}, "unasked")
    assert any(c.startswith("-c core.fsmonitor=false") and " rev-parse " in c for c in calls), calls
