"""Every git call of the CLI (monorepo discovery's ``git ls-files``, ``diff``'s ``REV:PATH`` and
``--base``: ``rev-parse``, ``ls-tree``, ``cat-file``, ``show``), through :mod:`runway_core.gitcmd`
(no program of the repository runs, no transport starts, a repository holding a file git would
wait on is refused before git starts), under one deadline per command.

The deadline (:data:`GIT_TIMEOUT_S` seconds, ``RUNWAY_GIT_TIMEOUT_S``) starts at the command's
first git call and bounds all of them together: a git still running when it passes is killed
(its process group: the ``git`` of each submodule too) and the command ends with exit 3, "git did
not answer within N s", where each call had waited 60 or 300 s of its own (ninth adversary C5).
Raises :class:`~deploy_engine.exits.InputError` (exit 3) for a refusal, a timeout, a bad
``RUNWAY_GIT_TIMEOUT_S``, or a git that cannot start (:class:`GitMissing`, which discovery takes
as "no repository").
"""

from __future__ import annotations

import math
import subprocess
import threading
import time
from typing import IO, Any, Mapping, Sequence

from deploy_engine.argtypes import seconds_value
from deploy_engine.exits import InputError
from runway_core import gitcmd

#: The total time the git calls of one command may take, in seconds (module docstring).
GIT_TIMEOUT_S = 120.0
GIT_TIMEOUT_VARIABLE = "RUNWAY_GIT_TIMEOUT_S"


class GitMissing(InputError):
    """git could not start (not installed, not executable): exit 3 naming it."""


class _Deadline:
    """The deadline of the running command's git calls: ``limit`` seconds from the first call."""

    def __init__(self) -> None:
        self.limit: float = GIT_TIMEOUT_S
        self.error: str | None = None
        self.ends: float | None = None
        self.armed = False  # by new_command; a call outside a command gets the whole limit alone

    def reset(self, environ: Mapping[str, str]) -> None:
        self.ends, self.error, self.limit, self.armed = None, None, GIT_TIMEOUT_S, True
        raw = (environ.get(GIT_TIMEOUT_VARIABLE) or "").strip()
        if raw:
            parsed = seconds_value(raw)
            value = math.nan if parsed is None else parsed
            if 0 < value <= 86400:
                self.limit = value
            else:
                self.error = f"{GIT_TIMEOUT_VARIABLE} must be a number of seconds above 0 and at most 86400, not {raw[:20]!r}"

    def left(self, what: str) -> float:
        """Seconds left (the clock starts at the first call); InputError when none are."""
        if self.error is not None:
            raise InputError(self.error)
        now = time.monotonic()
        if not self.armed:
            return self.limit  # a library call (a test), not a command: no shared clock to run down
        if self.ends is None:
            self.ends = now + self.limit
        if now >= self.ends:
            raise self.expired(what)
        return self.ends - now

    def expired(self, what: str) -> InputError:
        return InputError(f"git did not answer within {self.limit:g} s (git {what}; {GIT_TIMEOUT_VARIABLE} bounds all the git "
                          f"calls of one command): the repository or its file system is not answering")


_DEADLINE = _Deadline()


def new_command(environ: Mapping[str, str]) -> None:
    """Start a command: its git calls get a fresh deadline, from ``environ``'s
    ``RUNWAY_GIT_TIMEOUT_S`` (a bad value is exit 3 at the first git call, not before)."""
    _DEADLINE.reset(environ)


def run(args: Sequence[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    """``git *args`` in ``cwd``, stdout and stderr captured, within the command's deadline."""
    left = _DEADLINE.left(args[0])
    try:
        return gitcmd.run(args, cwd, left)
    except gitcmd.GitRefused as exc:
        raise InputError(str(exc)) from None
    except subprocess.TimeoutExpired:
        raise _DEADLINE.expired(args[0]) from None
    except OSError as exc:
        raise GitMissing(f"git: {exc.strerror or exc} (REV:PATH, --base and monorepo discovery run git)") from None


class Stream:
    """A git process read as it answers (``cat-file --batch``): started by
    :func:`runway_core.gitcmd.start`, killed when the command's deadline passes (then
    :attr:`expired` is true and :meth:`check` raises the deadline's error)."""

    def __init__(self, args: Sequence[str], cwd: str, stdin: int | IO[Any] | None = subprocess.PIPE) -> None:
        self.what = args[0]
        left = _DEADLINE.left(self.what)
        try:
            self.proc = gitcmd.start(args, cwd, stdin=stdin, stderr=subprocess.DEVNULL)
        except gitcmd.GitRefused as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise GitMissing(f"git: {exc.strerror or exc} (REV:PATH, --base and monorepo discovery run git)") from None
        self.expired = False
        self._timer = threading.Timer(left, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        gitcmd.kill(self.proc)

    def check(self) -> None:
        """Raise the deadline's InputError when git was killed for it."""
        if self.expired:
            raise _DEADLINE.expired(self.what)

    def kill(self) -> None:
        gitcmd.kill(self.proc)

    def finish(self) -> None:
        """Wait for git to end (killed after 30 s, or at the deadline); the timer stopped."""
        try:
            self.proc.wait(timeout=30)  # its pipes closed, git ends at once; the deadline's timer still runs
        except subprocess.TimeoutExpired:
            gitcmd.kill(self.proc)
            self.proc.wait()
        finally:
            self._timer.cancel()


__all__ = ["GIT_TIMEOUT_S", "GIT_TIMEOUT_VARIABLE", "GitMissing", "Stream", "new_command", "run"]
