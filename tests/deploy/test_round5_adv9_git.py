"""The ninth fresh adversary's git findings for the CLI (issue 23, round 5).

- L1: a repository whose blob is missing and whose ``.git/config`` names a promisor remote
  (``extensions.partialClone``) made ``diff --base`` / ``diff REV:PATH``'s ``git cat-file``
  fetch it lazily, which ran the config's ``core.sshCommand`` (or an ``ext::`` URL's command,
  a remote helper an alias defines). Every git now runs with ``GIT_ALLOW_PROTOCOL`` naming no
  protocol (runway_core.gitcmd): nothing runs, the missing object is exit 3.
- C5: a ``.git/config`` including a FIFO (or a ``HEAD``, ``index``, ``packed-refs`` that is
  one) held ``check DIR`` and ``diff`` for 60 s per git call. The repository's files are
  checked before git starts (refused at once, exit 3), and the git calls of one command share
  one deadline (``RUNWAY_GIT_TIMEOUT_S``).

Subprocess runs of ``runway-deploy`` under a generous ``timeout`` that only guards a hang; the
FIFOs never get a writer, so a command that opened one could not have finished.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

#: Guards a hang only: the default git deadline is 120 s, so a run that waited on a FIFO (and was
#: cut by that deadline, or waited 60 s per call before) never ends within it.
HANG_GUARD_S = 100

DIFFS = [["diff", "products/orders", "--base", "HEAD"], ["diff", "HEAD:products/orders", "products/orders"]]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def cli(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "RUNWAY_GIT_TIMEOUT_S"}
    environ.update({"HOME": str(cwd.parent / "home"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "deploy_engine", *argv], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL)


def _monorepo(tmp_path: Path) -> Path:
    ws = tmp_path / "repo"
    (tmp_path / "home").mkdir()
    shutil.copytree(ORDERS, ws / "products" / "orders")
    git(ws.parent, "init", "-q", "-b", "main", str(ws))
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    return ws


# --- L1: a lazy fetch from a promisor remote ------------------------------------------------------


def _promisor(ws: Path, settings: list[tuple[str, str]]) -> None:
    """Remove every blob of products/orders from ``.git/objects`` and name a promisor remote."""
    for path in git(ws, "ls-tree", "-r", "--name-only", "HEAD", "products/orders").splitlines():
        blob = git(ws, "rev-parse", f"HEAD:{path}")
        (ws / ".git" / "objects" / blob[:2] / blob[2:]).unlink(missing_ok=True)
    for key, value in [("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true"), *settings]:
        git(ws, "config", key, value)


def _hostile_remotes(mark: Path) -> dict[str, list[tuple[str, str]]]:
    return {
        "core.sshCommand": [("remote.origin.url", "ssh://example.invalid/x"), ("core.sshCommand", f"touch {mark}; false")],
        "ext-url": [("remote.origin.url", f"ext::sh -c touch% {mark}"), ("protocol.ext.allow", "always")],
        # An empty vcs selects the protocol named "" (allowed by an empty GIT_ALLOW_PROTOCOL):
        # git runs `git remote-`, which the alias defines.
        "empty-vcs-alias": [("remote.origin.url", "x"), ("remote.origin.vcs", ""), ("alias.remote-", f"!touch {mark}")],
        # vcs naming the one allowed (fake) protocol: `git remote-runway_none` is no command, and
        # help.autocorrect=immediate would run the closest alias.
        "autocorrected-alias": [("remote.origin.url", "x"), ("remote.origin.vcs", "runway_none"),
                                ("help.autocorrect", "immediate"), ("alias.remote-runwaynone", f"!touch {mark}")],
    }


@pytest.mark.parametrize("remote", ["core.sshCommand", "ext-url", "empty-vcs-alias", "autocorrected-alias"])
@pytest.mark.parametrize("argv", DIFFS, ids=["--base", "REV:PATH"])
def test_a_missing_blob_is_never_fetched_from_a_promisor_remote(tmp_path, remote, argv):
    ws = _monorepo(tmp_path)
    mark = tmp_path / "PWNED"
    _promisor(ws, _hostile_remotes(mark)[remote])
    if remote != "autocorrected-alias":  # plain git runs the program: the setup is a real one
        subprocess.run(["git", "-C", str(ws), "cat-file", "-p", "HEAD:products/orders/runway.yaml"], capture_output=True)
        assert mark.exists(), "plain git must run the remote's program, or this test proves nothing"
        mark.unlink()
    proc = cli(ws, *argv)
    assert not mark.exists(), f"{remote}: a program of the repository's config ran"
    assert proc.returncode == 3, proc.stderr
    assert "missing from the repository: runway never fetches an object from a remote" in proc.stderr


def test_the_autocorrected_alias_setup_runs_for_plain_git_with_that_allow_list(tmp_path):
    """Why ``-c help.autocorrect=0``: with only GIT_ALLOW_PROTOCOL, the vcs naming the allowed
    name reaches ``git remote-runway_none``, autocorrected to the repository's alias."""
    ws = _monorepo(tmp_path)
    mark = tmp_path / "PWNED"
    _promisor(ws, _hostile_remotes(mark)["autocorrected-alias"])
    subprocess.run(["git", "-C", str(ws), "cat-file", "-p", "HEAD:products/orders/runway.yaml"], capture_output=True,
                   env={**os.environ, "GIT_ALLOW_PROTOCOL": "runway_none"})
    assert mark.exists()


# --- C5: a file git would wait on -----------------------------------------------------------------


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


def _include(ws: Path, line: str, section: str = "[include]") -> None:
    with open(ws / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(f"{section}\n\t{line}\n")


def _place(ws: Path, tmp_path: Path, where: str) -> Path:
    """Make the FIFO ``where`` names; its path."""
    if where == "include-absolute":
        fifo = _fifo(tmp_path / "x" / "fifo")
        _include(ws, f"path = {fifo}")
    elif where == "include-relative":
        fifo = _fifo(ws / ".git" / "more.fifo")
        _include(ws, "path = more.fifo")
    elif where == "includeIf-home":
        fifo = _fifo(tmp_path / "home" / "cfg" / "fifo")
        _include(ws, 'path = "~/cfg/fifo"', f'[includeIf "gitdir:{ws}/"]')
    elif where == "include-nested":
        fifo = _fifo(tmp_path / "x" / "deep" / "fifo")
        (tmp_path / "x" / "one.cfg").write_text("[include]\n  path = deep/fifo\n", encoding="utf-8")
        _include(ws, f"PATH = {tmp_path / 'x' / 'one.cfg'} ; a comment")
    else:  # a file of .git itself
        fifo = _fifo(ws / ".git" / where)
    return fifo


def _nobody_reads(fifo: Path) -> bool:
    """True when no process has ``fifo`` open for reading (no git left waiting on it)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno == errno.ENXIO
    os.close(fd)
    return False


WHERE = ["include-absolute", "include-relative", "includeIf-home", "include-nested", "HEAD", "index", "packed-refs",
         "commondir"]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("argv", [["check", "."], *DIFFS], ids=["check-DIR", "--base", "REV:PATH"])
def test_a_repository_holding_a_fifo_git_would_wait_on_is_refused_at_once(tmp_path, where, argv):
    ws = _monorepo(tmp_path)
    fifo = _place(ws, tmp_path, where)
    proc = cli(ws, *argv)  # never a writer: a git that opened the FIFO would still wait
    assert proc.returncode == 3, proc.stderr
    assert f"{fifo}" in proc.stderr and "is not a regular file (a FIFO), which git would wait on" in proc.stderr, proc.stderr
    assert _nobody_reads(fifo)


def test_a_fifo_named_head_above_the_folder_is_refused_as_git_discovery_would_open_it(tmp_path):
    """git looks for a bare repository in every folder on its way up (``is_git_directory``
    opens ``HEAD``): ``products/HEAD`` as a FIFO held ``check products``."""
    ws = _monorepo(tmp_path)
    fifo = _fifo(ws / "products" / "HEAD")
    proc = cli(ws, "check", "products")
    assert proc.returncode == 3 and f"{fifo} is not a regular file (a FIFO)" in proc.stderr, proc.stderr


def test_a_folder_named_head_or_a_missing_include_changes_nothing(tmp_path):
    ws = _monorepo(tmp_path)
    (ws / "products" / "HEAD").mkdir()
    _include(ws, f"path = {tmp_path / 'nothing-here'}")
    proc = cli(ws, "check", ".")
    assert proc.returncode in (0, 1, 2) and "not a regular file" not in proc.stderr, proc.stderr


def test_the_git_calls_of_a_command_share_one_deadline(tmp_path):
    """A FIFO the pre-check does not look at (a loose object): git waits on it; the command
    ends at its git deadline, exit 3, saying so (the FIFO has no writer)."""
    ws = _monorepo(tmp_path)
    blob = git(ws, "rev-parse", "HEAD:products/orders/runway.yaml")
    fifo = _fifo(ws / ".git" / "objects" / blob[:2] / blob[2:])
    proc = cli(ws, "diff", "HEAD:products/orders", "products/orders", env={"RUNWAY_GIT_TIMEOUT_S": "2"})
    assert proc.returncode == 3, proc.stderr
    assert "git did not answer within 2 s" in proc.stderr and "RUNWAY_GIT_TIMEOUT_S" in proc.stderr, proc.stderr
    assert _nobody_reads(fifo), "git was left waiting on the FIFO"


def test_a_bad_git_deadline_is_exit_3_naming_it(tmp_path):
    ws = _monorepo(tmp_path)
    proc = cli(ws, "diff", "products/orders", "--base", "HEAD", env={"RUNWAY_GIT_TIMEOUT_S": "1e3"})
    assert proc.returncode == 3 and "RUNWAY_GIT_TIMEOUT_S must be a number of seconds" in proc.stderr, proc.stderr
