"""The one way runway runs git: the language server (:class:`runway_core.baseline.GitRunner`,
:func:`runway_core.baseline.run_git`), the CLI (``deploy_engine.cli.gitrun``: ``git ls-files``,
``ls-tree``, ``cat-file``, ``rev-parse``, ``show``) and the deploy's receipt
(``deploy_engine.receipts.git_commit``) start every git with :func:`start` (or build its
command line with :func:`git_argv`, its environment with :func:`git_env`, after
:func:`refuse_blocking`).

A repository is input someone else may have prepared (an extracted archive with its ``.git``,
a shared runner's workspace, a folder opened in an editor), and its ``.git/config`` can name
programs git runs on its own. Reading it must run none of them:

- ``-c core.fsmonitor=false``: git runs the file-system monitor hook ``core.fsmonitor`` names
  on every command that reads the index (``ls-files``, ``status``); the command line wins over
  the repository's config (git-config(1), "core.fsmonitor"; ``-c`` is passed on to the git
  processes of submodules through ``GIT_CONFIG_PARAMETERS``).
- No transport ever starts (ninth adversary L1): a blob missing from a repository whose config
  names a promisor remote (``extensions.partialClone``, ``remote.origin.promisor``) is fetched
  lazily by a ``git fetch`` that git starts itself, which runs ``core.sshCommand``, an ``ext::``
  URL's command (with ``protocol.ext.allow=always`` in the same config), a remote helper or a
  credential helper. ``GIT_ALLOW_PROTOCOL`` set to a list makes git "behave as if
  protocol.allow is set to never, and each of the listed protocols has protocol.<name>.allow
  set to always (overriding any existing configuration)" (git(1), ENVIRONMENT; transport.c
  ``is_transport_allowed`` consults the list before any config): every transport and remote
  helper (``transport_helper_init`` checks its name too) dies with "transport 'ssh' not
  allowed" before running anything. The list holds one name, :data:`NO_PROTOCOL`, that no
  protocol has. It is not empty on purpose: an empty variable allows the protocol named ""
  (``string_list_split("")`` is one empty item), which ``remote.origin.vcs=`` (empty) selects,
  and git then runs ``git remote-``, which an ``alias.remote-`` in the same config defines. A
  ``remote.origin.vcs`` naming :data:`NO_PROTOCOL` itself runs ``git remote-runway_none``: no
  alias can have that name (``_`` is not allowed in a config key) and ``-c help.autocorrect=0``
  keeps git from running the closest alias instead (``help.autocorrect=immediate`` did).
  ``GIT_NO_LAZY_FETCH=1`` skips the lazy fetch altogether where git honours it (since the
  2024 security releases, 2.39.4 among them; an older git ignores it, hence the list); ``GIT_SSH_COMMAND``,
  ``GIT_ASKPASS`` (``false``) and ``-c credential.helper=`` override the repository's
  ``core.sshCommand``, ``core.askPass`` and credential helpers, a second wall never reached.
  A read of a missing object then fails like any missing object: no baseline in the server,
  exit 3 in the CLI.
- ``GIT_TERMINAL_PROMPT=0``: never prompt for credentials; ``GIT_OPTIONAL_LOCKS=0``: take no
  optional lock (``git status`` refreshing the index), so it never competes with the user's own
  git commands (git(1), "GIT_OPTIONAL_LOCKS").

Nor may reading it wait forever (ninth adversary C5; seventh F5): git opens the files of a
repository blocking, and a FIFO nobody writes among them (``[include] path = /tmp/fifo`` in
``.git/config``, a ``.git/HEAD`` that is a FIFO) holds git until it is killed.
:func:`blocking_file` finds, by ``stat`` alone (nothing is opened but regular files, non-
blocking), the first file git would open there that is a FIFO, socket or device: along git's
own discovery from the folder up (each folder's ``.git``, a ``.git`` file's ``gitdir:``, a
``HEAD`` that makes a folder a bare repository, ``commondir``), then the repository's
``config`` and ``config.worktree`` with their include chains (``include.path``,
``includeIf.*.path``: relative to the including file, ``~/`` and ``%(prefix)/`` expanded, 10
levels deep as git's ``MAX_INCLUDE_DEPTH``), ``HEAD``, the ref it names, ``index``,
``packed-refs``, ``shallow``, ``info/grafts`` and ``objects/info/alternates``. :func:`start`
refuses such a repository (:class:`GitRefused`) before any git starts. Other files (a loose
object that is a FIFO, a submodule's files) are bounded by the caller's deadline.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import subprocess
from typing import IO, Any, Mapping, NamedTuple, Sequence

from .files import blocking_kind, open_regular

#: The one protocol ``GIT_ALLOW_PROTOCOL`` allows: a name no transport or remote helper has
#: and no config key can spell (``_``), so nothing is allowed (module docstring).
NO_PROTOCOL = "runway_none"
#: Options before every git subcommand (module docstring).
GIT_OPTIONS: tuple[str, ...] = ("-c", "core.fsmonitor=false", "-c", "help.autocorrect=0", "-c", "credential.helper=")
#: Variables set in every git call's environment (module docstring).
GIT_ENV: Mapping[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_ALLOW_PROTOCOL": NO_PROTOCOL,
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_SSH_COMMAND": "false",
    "GIT_ASKPASS": "false",
    # git's own (untranslated) messages: the CLI tells "not a git repository" from a refusal
    # by them, and quotes them (gettext ignores LANGUAGE when LC_ALL is C).
    "LC_ALL": "C",
}
#: git's own bound on nested config includes (config.c ``MAX_INCLUDE_DEPTH``).
MAX_INCLUDE_DEPTH = 10
#: At most this many config files are read for includes (a chain that fans out); the rest are
#: left to the caller's deadline.
MAX_CONFIG_FILES = 256
#: Bytes of a config, ``commondir``, ``.git`` or ``HEAD`` file read at most.
_READ_LIMIT = 4 << 20


class Blocking(NamedTuple):
    """A file git would open and wait on: ``path``; ``kind``: ``"a FIFO"``, ``"a socket"`` or
    ``"a device"``; ``via``: the config file whose include names it, else None."""

    path: str
    kind: str
    via: str | None = None


class GitRefused(OSError):
    """A repository holding a file git would wait on (:class:`Blocking`): no git is run."""

    def __init__(self, found: Blocking) -> None:
        self.found = found
        via = f" (included by {found.via})" if found.via else ""
        super().__init__(f"{found.path}{via} is not a regular file ({found.kind}), which git would wait on: "
                         f"git is not run on this repository")


def git_argv(*args: str) -> list[str]:
    """``git`` with :data:`GIT_OPTIONS`, then ``args`` (``-C DIR`` included, when wanted)."""
    return ["git", *GIT_OPTIONS, *args]


def git_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) with :data:`GIT_ENV` set."""
    return {**(os.environ if environ is None else environ), **GIT_ENV}


# --- the files git opens ---------------------------------------------------------------------


def _kind(path: str) -> str | None:
    """``"a FIFO"``, ``"a socket"`` or ``"a device"`` when ``path`` (links followed) is one;
    None for anything else: a regular file, a folder, nothing there (git skips a missing file
    or fails on a folder with its own message)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return blocking_kind(mode)


def _read(path: str) -> bytes | None:
    """The bytes of the regular file ``path`` (never blocking), or None."""
    try:
        return open_regular(path, _READ_LIMIT)[0]
    except (OSError, ValueError):
        return None


def _isdir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


_SPACE = frozenset(b" \t\n\v\f\r")


def _keychar(c: int) -> bool:
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 45  # [0-9A-Za-z-]


def _lower(c: int) -> int:
    return c + 32 if 65 <= c <= 90 else c


class _Config:
    """git's config file parser (config.c ``git_parse_source``, ``get_base_var``,
    ``get_value``, ``parse_value``), reduced to what includes need: sections and their
    quoted subsections, keys, quoted values with ``\\`` escapes and line continuations,
    ``#``/``;`` comments. It stops at the first syntax error, where git stops too (failing)."""

    def __init__(self, data: bytes) -> None:
        self.data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        self.i = 0
        self.eof = False

    def _get(self) -> int:
        if self.i >= len(self.data):
            self.eof = True
            return 10
        c = self.data[self.i]
        self.i += 1
        if c == 13 and self.i < len(self.data) and self.data[self.i] == 10:
            self.i += 1
            return 10
        return c

    def includes(self) -> list[bytes]:
        """The values of ``include.path`` and every ``includeif.<condition>.path`` (whatever
        the condition: a file git might open is checked)."""
        out: list[bytes] = []
        base = b""
        comment = False
        while True:
            c = self._get()
            if c == 10:
                if self.eof:
                    return out
                comment = False
                continue
            if comment or c in _SPACE:
                continue
            if c in b"#;":
                comment = True
                continue
            if c == 0x5B:  # [
                section = self._section()
                if not section:
                    return out
                base = section + b"."
                continue
            if not (65 <= c <= 90 or 97 <= c <= 122):
                return out
            got = self._entry(bytearray(base + bytes([_lower(c)])))
            if got is None:
                return out
            name, value = got
            if value is not None and (name == b"include.path" or (name.startswith(b"includeif.") and name.endswith(b".path"))):
                out.append(value)

    def _section(self) -> bytes | None:
        name = bytearray()
        while True:
            c = self._get()
            if self.eof:
                return None
            if c == 0x5D:  # ]
                return bytes(name)
            if c in _SPACE:
                return self._subsection(name, c)
            if not (_keychar(c) or c == 0x2E):
                return None
            name.append(_lower(c))

    def _subsection(self, name: bytearray, c: int) -> bytes | None:
        while True:
            if c == 10:
                return None
            c = self._get()
            if c not in _SPACE:
                break
        if c != 0x22:  # "
            return None
        name.append(0x2E)
        while True:
            c = self._get()
            if c == 10:
                return None
            if c == 0x22:
                break
            if c == 0x5C:  # backslash
                c = self._get()
                if c == 10:
                    return None
            name.append(c)
        return bytes(name) if self._get() == 0x5D else None

    def _entry(self, name: bytearray) -> tuple[bytes, bytes | None] | None:
        while True:
            c = self._get()
            if self.eof or not _keychar(c):
                break
            name.append(_lower(c))
        while c in (32, 9):
            c = self._get()
        if c == 10:
            return bytes(name), None
        if c != 0x3D:  # =
            return None
        value = self._value()
        return None if value is None else (bytes(name), value)

    def _value(self) -> bytes | None:
        quote = comment = False
        space = 0
        out = bytearray()
        while True:
            c = self._get()
            if c == 10:
                return None if quote else bytes(out)
            if comment:
                continue
            if c in _SPACE and not quote:
                if out:
                    space += 1
                continue
            if not quote and c in b"#;":
                comment = True
                continue
            out += b" " * space
            space = 0
            if c == 0x5C:
                c = self._get()
                if c == 10:
                    continue
                c = {0x74: 9, 0x62: 8, 0x6E: 10, 0x5C: 0x5C, 0x22: 0x22}.get(c, -1)
                if c < 0:
                    return None
                out.append(c)
            elif c == 0x22:
                quote = not quote
            else:
                out.append(c)


def config_includes(data: bytes) -> list[bytes]:
    """The include paths (``include.path``, ``includeIf.*.path``) a git config file's bytes
    name, as written (not expanded), in order."""
    return _Config(data).includes()


def _git_prefix() -> str | None:
    """git's ``%(prefix)`` (its installation prefix: ``/usr`` for ``/usr/bin/git``), or None."""
    found = shutil.which("git")
    return os.path.dirname(os.path.dirname(os.path.realpath(found))) if found else None


def _expand(path: str, including: str, environ: Mapping[str, str]) -> str | None:
    """An include path as git reads it (config.c ``handle_path_include``, path.c
    ``interpolate_path``): ``~/``, ``~user/`` and ``%(prefix)/`` expanded, a relative path
    taken from the including file's folder; None when git could not expand it."""
    if path.startswith("~"):
        user, sep, rest = path[1:].partition("/")
        try:
            home = environ.get("HOME") if not user else pwd.getpwnam(user).pw_dir
        except (KeyError, OSError):
            return None
        if not home:
            return None
        path = os.path.join(home, rest) if sep else home
    elif path.startswith("%(prefix)/"):
        prefix = _git_prefix()
        if prefix is None:
            return None
        path = os.path.join(prefix, path[len("%(prefix)/"):])
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(including), path)
    return path


def _config_chain(config: str, environ: Mapping[str, str]) -> Blocking | None:
    """The first file of ``config`` and its include chain that is a FIFO, socket or device."""
    todo: list[tuple[str, int, str | None]] = [(config, 0, None)]
    read = 0
    while todo and read < MAX_CONFIG_FILES:
        path, depth, via = todo.pop(0)
        kind = _kind(path)
        if kind is not None:
            return Blocking(path, kind, via)
        if depth >= MAX_INCLUDE_DEPTH:
            continue  # git dies before opening an include deeper than this one's
        data = _read(path)
        read += 1
        if data is None:
            continue
        for raw in config_includes(data):
            target = _expand(os.fsdecode(raw), path, environ)
            if target is not None:
                todo.append((target, depth + 1, path))
    return None


def _gitfile(dotgit: str) -> str | None:
    """The folder a ``.git`` file's ``gitdir: PATH`` names (relative to its folder), or None."""
    data = _read(dotgit)
    if data is None or not data.startswith(b"gitdir: "):
        return None
    lines = data[len(b"gitdir: "):].splitlines()
    target = os.fsdecode(lines[0]).rstrip() if lines else ""
    return os.path.join(os.path.dirname(dotgit), target) if target else None


def _common_dir(gitdir: str, environ: Mapping[str, str]) -> str:
    if environ.get("GIT_COMMON_DIR"):
        return environ["GIT_COMMON_DIR"]
    data = _read(os.path.join(gitdir, "commondir"))
    text = os.fsdecode(data).strip() if data else ""
    return os.path.join(gitdir, text) if text else gitdir


def _is_git_dir(gitdir: str, environ: Mapping[str, str]) -> tuple[bool, Blocking | None]:
    """Whether ``gitdir`` is a repository as git's ``is_git_directory`` tells (a ``HEAD``,
    then ``objects`` and ``refs`` in the folder ``commondir`` names), and the first of the
    files git opens to tell (``HEAD``, then ``commondir``) that is a FIFO, socket or device."""
    head = os.path.join(gitdir, "HEAD")
    kind = _kind(head)
    if kind is not None:
        return False, Blocking(head, kind)
    if not (os.path.islink(head) or os.path.isfile(head)):
        return False, None
    kind = _kind(os.path.join(gitdir, "commondir"))
    if kind is not None:
        return False, Blocking(os.path.join(gitdir, "commondir"), kind)
    common = _common_dir(gitdir, environ)
    return _isdir(os.path.join(common, "objects")) and _isdir(os.path.join(common, "refs")), None


def _repository_files(gitdir: str, environ: Mapping[str, str]) -> Blocking | None:
    """The first file git opens in the repository ``gitdir`` that is a FIFO, socket or device."""
    common = _common_dir(gitdir, environ)
    for config in (os.path.join(common, "config"), os.path.join(gitdir, "config.worktree")):
        found = _config_chain(config, environ)
        if found is not None:
            return found
    names = ["HEAD", "commondir", "index", "packed-refs", "shallow", os.path.join("info", "grafts"),
             os.path.join("objects", "info", "alternates")]
    head = _read(os.path.join(gitdir, "HEAD")) or b""
    if head.startswith(b"ref:"):
        ref = os.fsdecode(head[4:].strip().split(b"\n")[0])
        if ref.startswith("refs/") and ".." not in ref.split("/"):
            names.append(ref)
    for folder in dict.fromkeys((gitdir, common)):
        for name in names:
            kind = _kind(os.path.join(folder, name))
            if kind is not None:
                return Blocking(os.path.join(folder, name), kind)
    return None


def blocking_file(folder: str, environ: Mapping[str, str] | None = None) -> Blocking | None:
    """The first file git run in ``folder`` would open that is a FIFO, socket or device
    (:class:`Blocking`; module docstring), or None: none is, or ``folder`` is in no repository. Only ``stat`` and non-blocking reads of
    regular files; never raises."""
    env = os.environ if environ is None else environ
    try:
        if env.get("GIT_DIR"):
            gitdir = os.path.join(folder, env["GIT_DIR"])
            if os.path.isfile(gitdir):
                gitdir = _gitfile(gitdir) or gitdir
            _ok, found = _is_git_dir(gitdir, env)
            return found or _repository_files(gitdir, env)
        here = os.path.realpath(folder)
        while True:
            dotgit = os.path.join(here, ".git")
            if os.path.isfile(dotgit):
                target = _gitfile(dotgit)
                if target is None:
                    return None  # git stops here: "invalid gitfile format"
                ok, found = _is_git_dir(target, env)
                return found or (_repository_files(target, env) if ok else None)
            if _isdir(dotgit):
                ok, found = _is_git_dir(dotgit, env)
                if found is not None:
                    return found
                if ok:
                    return _repository_files(dotgit, env)
            ok, found = _is_git_dir(here, env)  # a bare repository, as git looks for one
            if found is not None:
                return found
            if ok:
                return _repository_files(here, env)
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
    except (OSError, ValueError):
        return None


def refuse_blocking(folder: str, environ: Mapping[str, str] | None = None) -> None:
    """Raise :class:`GitRefused` when :func:`blocking_file` finds a file under ``folder``."""
    found = blocking_file(folder, environ)
    if found is not None:
        raise GitRefused(found)


def start(args: Sequence[str], cwd: str, *, stdin: int | IO[Any] | None = subprocess.DEVNULL,
          stdout: int | None = subprocess.PIPE, stderr: int | None = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """Start ``git *args`` in ``cwd`` (:func:`git_argv`, :func:`git_env`), in a process group
    of its own so that :func:`kill` ends what it started too (the ``git fetch`` of a lazy
    fetch, the ``git`` of each submodule). Raises :class:`GitRefused` (nothing started) when
    :func:`blocking_file` finds a file git would wait on, OSError when git cannot start."""
    refuse_blocking(cwd)
    return subprocess.Popen(git_argv(*args), cwd=cwd, env=git_env(), stdin=stdin, stdout=stdout, stderr=stderr,
                            start_new_session=True)


def kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``proc``'s process group (:func:`start`), or ``proc`` alone when that fails."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        try:
            proc.kill()
        except OSError:
            pass


def run(args: Sequence[str], cwd: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """``git *args`` in ``cwd`` to its end (:func:`start`), stdout and stderr captured.
    Raises :class:`GitRefused`, OSError, or ``subprocess.TimeoutExpired`` after ``timeout``
    seconds (git and its children killed). Any exception (Ctrl-C, SIGTERM's) kills git too."""
    proc = start(args, cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        kill(proc)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


__all__ = ["GIT_ENV", "GIT_OPTIONS", "MAX_INCLUDE_DEPTH", "NO_PROTOCOL", "Blocking", "GitRefused", "blocking_file",
           "config_includes", "git_argv", "git_env", "kill", "refuse_blocking", "run", "start"]
