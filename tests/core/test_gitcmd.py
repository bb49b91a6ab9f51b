"""runway_core.gitcmd: the files git would wait on (ninth adversary C5) and the environment that
starts no transport (L1). Real repositories in tmp, real FIFOs, git itself as the reference
for its config syntax; a subprocess ``timeout`` only guards a hang."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from runway_core import gitcmd
from runway_core.gitcmd import GIT_ENV, MAX_INCLUDE_DEPTH, NO_PROTOCOL, blocking_file, config_includes

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run([GIT, "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, timeout=60).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    ws = tmp_path / "repo"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    (ws / "f").write_text("x\n", encoding="utf-8")
    git(ws, "add", "f")
    git(ws, "commit", "-q", "-m", "x")
    return ws


# --- the include paths, as git's own parser reads them --------------------------------------------

CONFIGS = [
    b"[include]\n\tpath = /a\n",
    b"[InClUdE]\n  PaTh=/b ; a comment\n",
    b'[include] path = "/c d" # a comment\n',
    b'[includeIf "gitdir:/x/"]\n path = /e\n',
    b'[includeIf "onbranch:main"]path=f\\\n g\n',
    b'[include "sub"]\npath = /no\n[include]\npath=/yes\n',
    b"\xef\xbb\xbf[include]\npath=/bom\n",
    b"[core]\n\tbare = false\n[include]\r\n\tpath = /crlf\r\n",
    b'[include]\npath = "a\\"b\\\\c"\n',
    b"[include]\n path = x\n path = y\n[other]\n path = /not-an-include\n",
    b'[includeIf "gitdir:~/q\\"r/"]\n path = z\n',
    b"[include.x]\npath=/old-style-subsection\n",
    b"# [include]\n; path = /commented\n[include]\n\tpath = /after-comments\t \n",
    b"[include]\n\tpath = /tab\\tin\\tit\n",
]


@pytest.mark.parametrize("data", CONFIGS, ids=range(len(CONFIGS)))
def test_config_includes_reads_what_git_reads(tmp_path, data):
    f = tmp_path / "cfg"
    f.write_bytes(data)
    out = subprocess.run([GIT, "config", "--file", str(f), "--no-includes", "--null", "--get-regexp",
                          r"^include\.path$|^includeif\..*\.path$"], capture_output=True, timeout=60, cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    expected = [entry.split(b"\n", 1)[1] for entry in out.stdout.split(b"\0") if b"\n" in entry]
    assert config_includes(data) == expected


# --- blocking_file ----------------------------------------------------------------------------------


def test_a_clean_repository_has_no_blocking_file(tmp_path):
    ws = _repo(tmp_path)
    assert blocking_file(str(ws)) is None
    assert blocking_file(str(tmp_path)) is None  # no repository at all


def _chain(tmp_path: Path, ws: Path, depth: int) -> Path:
    """``.git/config`` includes c1, which includes c2 ... the include at ``depth`` is a FIFO."""
    folder = tmp_path / "chain"
    folder.mkdir()
    fifo = folder / f"c{depth}"
    os.mkfifo(fifo)
    for n in range(1, depth):
        (folder / f"c{n}").write_text(f"[include]\n\tpath = c{n + 1}\n", encoding="utf-8")
    with open(ws / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(f"[include]\n\tpath = {folder / 'c1'}\n")
    return fifo


def test_a_fifo_at_gits_deepest_include_is_found(tmp_path):
    ws = _repo(tmp_path)
    fifo = _chain(tmp_path, ws, MAX_INCLUDE_DEPTH)
    found = blocking_file(str(ws))
    assert found is not None and found.path == str(fifo) and found.kind == "a FIFO"
    assert found.via == str(tmp_path / "chain" / f"c{MAX_INCLUDE_DEPTH - 1}")


def test_a_fifo_one_include_deeper_is_not_opened_by_git_either(tmp_path):
    ws = _repo(tmp_path)
    _chain(tmp_path, ws, MAX_INCLUDE_DEPTH + 1)
    assert blocking_file(str(ws)) is None
    # git gives up before opening it (config.c: "exceeded maximum include depth"): no hang.
    proc = subprocess.run([GIT, "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "include depth" in proc.stderr


def test_a_linked_worktree_reads_the_common_config(tmp_path):
    ws = _repo(tmp_path)
    wt = tmp_path / "wt"
    git(ws, "worktree", "add", "-q", str(wt))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with open(ws / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(f"[include]\n\tpath = {fifo}\n")
    found = blocking_file(str(wt))  # wt/.git is a file: gitdir -> .git/worktrees/wt -> commondir
    assert found is not None and found.path == str(fifo)


def test_a_linked_worktrees_own_head_is_found(tmp_path):
    ws = _repo(tmp_path)
    wt = tmp_path / "wt"
    git(ws, "worktree", "add", "-q", str(wt))
    head = ws / ".git" / "worktrees" / "wt" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    found = blocking_file(str(wt / "."))
    assert found is not None and found.path.endswith(os.path.join("worktrees", "wt", "HEAD"))


@pytest.mark.parametrize("name", ["shallow", os.path.join("info", "grafts"), os.path.join("objects", "info", "alternates"),
                                  os.path.join("refs", "heads", "main")])
def test_the_other_files_git_reads_first(tmp_path, name):
    ws = _repo(tmp_path)
    path = ws / ".git" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    found = blocking_file(str(ws / "."))
    assert found is not None and found.path == str(path)


def test_a_socket_is_named_a_socket(tmp_path):
    import socket
    ws = _repo(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(ws / ".git" / "s"))
        with open(ws / ".git" / "config", "a", encoding="utf-8") as fh:
            fh.write("[include]\n\tpath = s\n")
        found = blocking_file(str(ws))
        assert found is not None and found.kind == "a socket"
    finally:
        sock.close()


def test_start_refuses_before_any_git_starts(tmp_path):
    ws = _repo(tmp_path)
    os.mkfifo(ws / ".git" / "packed-refs")
    with pytest.raises(gitcmd.GitRefused, match=r"packed-refs is not a regular file \(a FIFO\), which git would wait on"):
        gitcmd.start(["rev-parse", "HEAD"], str(ws))


# --- L1: the environment ---------------------------------------------------------------------------


def test_no_protocol_is_allowed_and_the_one_name_cannot_be_an_alias():
    assert GIT_ENV["GIT_ALLOW_PROTOCOL"] == NO_PROTOCOL and GIT_ENV["GIT_NO_LAZY_FETCH"] == "1"
    assert NO_PROTOCOL and ":" not in NO_PROTOCOL and "_" in NO_PROTOCOL and "." not in NO_PROTOCOL
    assert "help.autocorrect=0" in gitcmd.GIT_OPTIONS


def _missing_blob(tmp_path: Path, settings: list[tuple[str, str]]) -> Path:
    ws = _repo(tmp_path)
    blob = git(ws, "rev-parse", "HEAD:f")
    (ws / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in [("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true"), *settings]:
        git(ws, "config", key, value)
    return ws


def _remotes(tmp_path: Path, mark: Path) -> dict[str, list[tuple[str, str]]]:
    return {
        "ssh": [("remote.origin.url", "ssh://example.invalid/x"), ("core.sshCommand", f"touch {mark}; false")],
        "ext": [("remote.origin.url", f"ext::sh -c touch% {mark}"), ("protocol.ext.allow", "always")],
        # even file:// (and a plain path) is a transport: it runs the remote's uploadpack
        "file": [("remote.origin.url", f"file://{tmp_path}"), ("remote.origin.uploadpack", f"touch {mark}; false")],
        "empty-vcs": [("remote.origin.url", "x"), ("remote.origin.vcs", ""), ("alias.remote-", f"!touch {mark}")],
        "vcs-autocorrect": [("remote.origin.url", "x"), ("remote.origin.vcs", NO_PROTOCOL), ("help.autocorrect", "immediate"),
                            ("alias.remote-runwaynone", f"!touch {mark}")],
    }


@pytest.mark.parametrize("remote", ["ssh", "ext", "file", "empty-vcs", "vcs-autocorrect"])
def test_the_allow_list_alone_starts_no_transport(tmp_path, remote):
    """``GIT_NO_LAZY_FETCH`` is honoured by the git here (2.39.5: the 2024 security releases
    brought it), not by an older one: without it, the allow list and the options still run
    nothing of the repository's config."""
    mark = tmp_path / "PWNED"
    ws = _missing_blob(tmp_path, _remotes(tmp_path, mark)[remote])
    if remote != "vcs-autocorrect":
        subprocess.run([GIT, "cat-file", "-p", "HEAD:f"], cwd=ws, capture_output=True, timeout=60)
        assert mark.exists(), "plain git must run it, or this test proves nothing"
        mark.unlink()
    env = {k: v for k, v in gitcmd.git_env().items() if k != "GIT_NO_LAZY_FETCH"}
    proc = subprocess.run(gitcmd.git_argv("cat-file", "-p", "HEAD:f"), cwd=ws, env=env, capture_output=True, timeout=60)
    assert proc.returncode != 0
    assert not mark.exists(), proc.stderr


def test_no_lazy_fetch_at_all_through_run(tmp_path):
    mark = tmp_path / "PWNED"
    ws = _missing_blob(tmp_path, _remotes(tmp_path, mark)["ssh"])
    proc = gitcmd.run(["cat-file", "-p", "HEAD:f"], str(ws), 60)
    assert proc.returncode != 0 and not mark.exists()
