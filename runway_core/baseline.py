"""Baselines for cost deltas: the runway as last saved, and the runway at git HEAD.

:class:`BaselineStore` answers :meth:`~BaselineStore.baselines` for a root runway: the plans
of the files on disk (what the editor last saved, or opened) and the plans of the same files
at the git HEAD commit, each ``{env: EnvironmentPlan}`` or None. The language server feeds
them to :func:`runway_core.ide.lenses.code_lenses` and to the hover; :func:`cost_deltas` is the
change of every environment and item against one of them.

- *Saved*: :func:`runway_core.analysis.analyze` over the disk. Cached by the content of
  every file that analysis read (a save or an external change of any of them recomputes).
- *HEAD*: the same analysis, each file read with ``git show <commit>:<path>``, only when the
  root's folder is inside a git work tree. Texts are cached by (commit id, path), plans by
  (commit id, root). The commit id is re-read (``git rev-parse``) only when git's ``HEAD``,
  reflog, index, ``packed-refs`` or the checked-out branch's ref file changes on disk, so a
  commit or a checkout is noticed without running git on every keystroke.
  Member folders are still found on disk (the analysis checks folders exist); a member file
  absent from HEAD is reported inside the baseline analysis and simply not counted.

Git runs through an injected :data:`Runner` (docs/architecture.md §6: pass things in); the default,
:func:`run_git`, calls the ``git`` executable with a timeout and never prompts. Nothing here
raises: no git, not a repository, no commit yet, a file not in HEAD, a baseline that does
not parse — each gives ``None`` for that baseline.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from .analysis import analyze
from . import gitcmd
from .files import open_regular
from .planner import EnvironmentPlan
from .workspace import MAX_FILE_BYTES, read_disk

if TYPE_CHECKING:
    from .catalog import Catalog

log = logging.getLogger("runway_core.baseline")

#: ``(git arguments, working directory) -> (exit status, stdout bytes)``; never raises.
Runner = Callable[[Sequence[str], str], tuple[int, bytes]]

#: Upper bound on one git call, in seconds: a hung git (a network file system, a lock) must
#: not freeze the editor's language server.
GIT_TIMEOUT_S = 10

Plans = Mapping[str, EnvironmentPlan]


_ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Baselines:
    """What the current plans are compared with: each is ``{env: EnvironmentPlan}`` or None
    when unavailable (no save yet, not a git repository, the file not in HEAD, ...).

    ``saved``: the runway as last saved (the files on disk). ``head``: the runway at git HEAD.
    """

    saved: Mapping[str, EnvironmentPlan] | None = None
    head: Mapping[str, EnvironmentPlan] | None = None


@dataclass(frozen=True)
class EnvDelta:
    """Change of one environment's monthly cost (USD per month), current minus baseline.

    ``items`` maps each item name on either side to its change (an item on one side only
    counts in full). ``current``/``baseline`` are the totals, None where the environment is
    absent (a new environment's delta is its whole total).
    """

    env: str
    total: Decimal
    items: Mapping[str, Decimal] = field(default_factory=dict)
    current: Decimal | None = None
    baseline: Decimal | None = None


def cost_deltas(current_plans: Mapping[str, EnvironmentPlan], baseline_plans: Mapping[str, EnvironmentPlan]) -> dict[str, EnvDelta]:
    """Per environment (current ones first, in order, then removed ones): the change of its
    total and of each item's monthly cost, in USD per month (current minus baseline)."""
    out: dict[str, EnvDelta] = {}
    for env in list(current_plans) + [e for e in baseline_plans if e not in current_plans]:
        cur = current_plans.get(env)
        base = baseline_plans.get(env)
        cur_items = {i.name: i.monthly_usd for i in cur.items} if cur is not None else {}
        base_items = {i.name: i.monthly_usd for i in base.items} if base is not None else {}
        items = {n: cur_items.get(n, _ZERO) - base_items.get(n, _ZERO) for n in list(cur_items) + [n for n in base_items if n not in cur_items]}
        cur_total = cur.total if cur is not None else None
        base_total = base.total if base is not None else None
        out[env] = EnvDelta(env, (cur_total or _ZERO) - (base_total or _ZERO), items, cur_total, base_total)
    return out


def run_git(args: Sequence[str], cwd: str) -> tuple[int, bytes]:
    """Run ``git *args`` in ``cwd``: (exit status, stdout). -1 when git cannot run, times out,
    or is not run: the repository holds a file git would wait on (a FIFO its config includes,
    ninth adversary C5).

    Runs no program the repository names (``core.fsmonitor``, a promisor remote's lazy fetch
    and its ``core.sshCommand``: opening a folder in an editor must not run a program from it),
    never prompts, takes no optional lock: :mod:`runway_core.gitcmd`, shared with the CLI.
    """
    try:
        done = gitcmd.run(args, cwd, GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git %s in %s failed: %s", " ".join(args), cwd, exc)
        return -1, b""
    return done.returncode, done.stdout


class GitRunner:
    """A :data:`Runner` like :func:`run_git` that can be stopped: :meth:`stop` kills every git
    it started that has not finished (a git waiting on a file :func:`runway_core.gitcmd.
    blocking_file` does not look at waits until its timeout, and a process that exits leaves it
    behind otherwise), and it starts none after that. A repository holding a file git would wait
    on (a FIFO its config includes: seventh adversary F5, ninth C5) runs no git at all: -1 at
    once. Safe to call from any thread."""

    def __init__(self, timeout: float = GIT_TIMEOUT_S) -> None:
        self.timeout = timeout
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.stopped = False

    def __call__(self, args: Sequence[str], cwd: str) -> tuple[int, bytes]:
        with self._lock:
            if self.stopped:
                return -1, b""
            try:
                proc = gitcmd.start(args, cwd, stderr=subprocess.DEVNULL)
            except (OSError, ValueError) as exc:
                log.debug("git %s in %s not run: %s", " ".join(args), cwd, exc)
                return -1, b""
            self._live.add(proc)
        try:
            out, _ = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            log.debug("git %s in %s: no answer in %ss; killed", " ".join(args), cwd, self.timeout)
            gitcmd.kill(proc)
            proc.communicate()
            return -1, b""
        finally:
            with self._lock:
                self._live.discard(proc)
        return (proc.returncode, out) if not self.stopped else (-1, b"")

    def stop(self) -> None:
        """Kill every git still running and start no other."""
        with self._lock:
            self.stopped = True
            live = list(self._live)
        for proc in live:
            gitcmd.kill(proc)


def plans_of(root_file: str, catalog: "Catalog", read: Callable[[str], str]) -> Plans | None:
    """The plans of the runway at ``root_file`` read through ``read``; None when it cannot be
    planned (unreadable, a syntax error, not a runway) or on any internal error."""
    try:
        an = analyze(root_file, catalog, read)
    except Exception:  # noqa: BLE001 - a baseline is optional: never let it break a feature
        log.exception("analysing the baseline of %s failed", root_file)
        return None
    return dict(an.plans) if an.spec is not None and an.plans else None


@dataclass(frozen=True)
class _Repo:
    toplevel: str  # real path of the work tree's top folder
    git_dir: str  # this work tree's git dir (HEAD, index, logs/HEAD)
    common_dir: str  # refs and packed-refs (differs from git_dir in a linked worktree)


@dataclass
class _Saved:
    fingerprint: tuple[tuple[str, str | None], ...]
    catalog: "Catalog"
    plans: Plans | None


class BaselineStore:
    """Cached baselines of root runways (see the module docstring).

    ``runner`` runs git; ``read`` reads a file from disk (raising OSError or
    UnicodeDecodeError); ``stat`` stats a path. All three are injectable for tests.
    """

    def __init__(self, runner: Runner = run_git, read: Callable[[str], str] = read_disk, stat: Callable[[str], os.stat_result] = os.stat) -> None:
        self._run = runner
        self._read = read
        self._stat = stat
        self._saved: dict[str, _Saved] = {}
        self._repos: dict[str, _Repo | None] = {}  # folder -> its repository, or None
        self._commits: dict[str, tuple[tuple, str | None]] = {}  # git dir -> (stamp, commit id)
        self._texts: dict[tuple[str, str], str | None] = {}  # (commit, real path) -> text
        self._head: dict[tuple[str, str], tuple["Catalog", Plans | None]] = {}  # (commit, root)

    def clear(self) -> None:
        """Forget everything (settings changed, or a repository appeared)."""
        self._saved.clear()
        self._repos.clear()
        self._commits.clear()
        self._texts.clear()
        self._head.clear()

    def baselines(self, root_file: str, catalog: "Catalog", saved: bool = True, head: bool = True) -> Baselines:
        """The saved and HEAD baselines of the runway rooted at ``root_file`` (each None when
        unavailable or not asked for). Never raises."""
        try:
            s = self.saved(root_file, catalog) if saved else None
        except Exception:  # noqa: BLE001
            log.exception("saved baseline of %s failed", root_file)
            s = None
        try:
            h = self.head(root_file, catalog) if head else None
        except Exception:  # noqa: BLE001
            log.exception("HEAD baseline of %s failed", root_file)
            h = None
        return Baselines(saved=s, head=h)

    # --- saved: the disk ----------------------------------------------------------------

    def _digest(self, path: str) -> str | None:
        try:
            return hashlib.sha1(self._read(path).encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()
        except (OSError, UnicodeDecodeError, ValueError):
            return None

    def saved(self, root_file: str, catalog: "Catalog") -> Plans | None:
        """Plans of the runway as on disk; recomputed when any file it read changed."""
        try:
            root_file = os.path.realpath(root_file)
        except OSError:  # a link this process may not read (posixpath._joinrealpath's readlink): no baseline
            return None
        hit = self._saved.get(root_file)
        if hit is not None and hit.catalog is catalog and all(self._digest(p) == d for p, d in hit.fingerprint):
            return hit.plans
        read_paths: list[str] = []

        def read(path: str) -> str:
            read_paths.append(os.path.realpath(path))
            return self._read(path)

        plans = plans_of(root_file, catalog, read)
        fingerprint = tuple((p, self._digest(p)) for p in dict.fromkeys([root_file, *read_paths]))
        self._saved[root_file] = _Saved(fingerprint, catalog, plans)
        if hit is not None and self._repos.get(os.path.dirname(root_file), False) is None:
            # The disk changed: a `git init` may have happened since; look again.
            self._repos.pop(os.path.dirname(root_file), None)
        return plans

    # --- HEAD: git ----------------------------------------------------------------------

    def _git(self, args: Sequence[str], cwd: str) -> tuple[int, bytes]:
        try:
            return self._run(args, cwd)
        except Exception:  # noqa: BLE001 - an injected runner must not break a feature either
            log.exception("git runner failed")
            return -1, b""

    def repo_of(self, folder: str) -> _Repo | None:
        """The git work tree holding ``folder``, or None (not a repository, no git)."""
        folder = os.path.realpath(folder)
        if folder in self._repos:
            return self._repos[folder]
        repo = None
        code, out = self._git(["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], folder)
        lines = out.decode("utf-8", "replace").splitlines() if code == 0 else []
        if len(lines) >= 4 and lines[0].strip() == "true":
            common = lines[3].strip()
            git_dir = lines[2].strip()
            if not os.path.isabs(common):
                common = os.path.join(folder, common)
            repo = _Repo(os.path.realpath(lines[1].strip()), os.path.realpath(git_dir), os.path.realpath(common))
        self._repos[folder] = repo
        return repo

    def _stamp(self, repo: _Repo) -> tuple:
        """What changes on disk when HEAD moves: size and mtime of git's own files."""
        paths = [os.path.join(repo.git_dir, n) for n in ("HEAD", os.path.join("logs", "HEAD"), "index")]
        paths.append(os.path.join(repo.common_dir, "packed-refs"))
        try:  # never blocking: a HEAD swapped for a FIFO since git read it is not waited on
            head = open_regular(os.path.join(repo.git_dir, "HEAD"), 4096)[0].decode("utf-8", "replace").strip()
        except OSError:
            head = ""
        if head.startswith("ref: "):
            paths.append(os.path.join(repo.common_dir, head[5:].strip()))
        out = [head]
        for p in paths:
            try:
                st = self._stat(p)
                out.append((p, st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                out.append((p, None))
        return tuple(out)

    def head_commit(self, folder: str) -> str | None:
        """The commit id HEAD names for the work tree holding ``folder``; None without one."""
        repo = self.repo_of(folder)
        if repo is None:
            return None
        stamp = self._stamp(repo)
        hit = self._commits.get(repo.git_dir)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        code, out = self._git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repo.toplevel)
        commit = out.decode("ascii", "replace").strip() if code == 0 else ""
        commit = commit if len(commit) >= 40 and all(c in "0123456789abcdef" for c in commit) else None
        self._commits[repo.git_dir] = (stamp, commit)
        return commit

    def read_at(self, repo: _Repo, commit: str, path: str) -> str:
        """The text of ``path`` at ``commit``. Raises FileNotFoundError when the commit does
        not hold it (outside the work tree, not committed), UnicodeDecodeError when not UTF-8."""
        real = os.path.realpath(path)
        key = (commit, real)
        if key not in self._texts:
            rel = os.path.relpath(real, repo.toplevel)
            text = None
            if not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
                code, out = self._git(["show", "--no-textconv", f"{commit}:{rel.replace(os.sep, '/')}"], repo.toplevel)
                if code == 0 and len(out) <= MAX_FILE_BYTES:
                    try:
                        text = out.decode("utf-8")
                    except UnicodeDecodeError:
                        text = None
            self._texts[key] = text
        text = self._texts[key]
        if text is None:
            raise FileNotFoundError(f"{path} is not in commit {commit[:12]}")
        return text

    def head(self, root_file: str, catalog: "Catalog") -> Plans | None:
        """Plans of the runway at git HEAD; None outside a repository, without a commit, or
        when the root runway is not in HEAD."""
        try:
            root_file = os.path.realpath(root_file)
        except OSError:  # as in saved()
            return None
        folder = os.path.dirname(root_file)
        commit = self.head_commit(folder)
        repo = self.repo_of(folder)
        if commit is None or repo is None:
            return None
        hit = self._head.get((commit, root_file))
        if hit is not None and hit[0] is catalog:
            return hit[1]
        try:
            self.read_at(repo, commit, root_file)
        except (OSError, UnicodeDecodeError):
            plans = None  # the root is not in HEAD: a new runway has no HEAD baseline
        else:
            plans = plans_of(root_file, catalog, lambda p: self.read_at(repo, commit, p))
        self._head[(commit, root_file)] = (catalog, plans)
        return plans


__all__ = ["BaselineStore", "GitRunner", "Runner", "run_git", "plans_of", "GIT_TIMEOUT_S"]
