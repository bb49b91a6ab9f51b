"""The one way runway runs git: the language server (:func:`runway_core.baseline.run_git`) and
the CLI (``deploy_engine.cli.inputs``: ``git ls-files``; ``deploy_engine.cli.sides``: ``git
ls-tree``, ``cat-file``, ``rev-parse``, ``show``) build every command line with
:func:`git_argv` and its environment with :func:`git_env`.

A repository is input someone else may have prepared (an extracted archive with its ``.git``,
a shared runner's workspace, a folder opened in an editor), and its ``.git/config`` can name
programs git runs on its own. Reading it must run none of them:

- ``-c core.fsmonitor=false``: git runs the file-system monitor hook ``core.fsmonitor`` names
  on every command that reads the index (``ls-files``, ``status``); the command line wins over
  the repository's config (git-config(1), "core.fsmonitor"; ``-c`` is passed on to the git
  processes of submodules through ``GIT_CONFIG_PARAMETERS``).
- ``GIT_TERMINAL_PROMPT=0``: never prompt for credentials; ``GIT_OPTIONAL_LOCKS=0``: take no
  optional lock (``git status`` refreshing the index), so it never competes with the user's own
  git commands (git(1), "GIT_OPTIONAL_LOCKS").

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import os
from typing import Mapping

#: Options before every git subcommand (module docstring).
GIT_OPTIONS: tuple[str, ...] = ("-c", "core.fsmonitor=false")
#: Variables set in every git call's environment (module docstring).
GIT_ENV: Mapping[str, str] = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


def git_argv(*args: str) -> list[str]:
    """``git`` with :data:`GIT_OPTIONS`, then ``args`` (``-C DIR`` included, when wanted)."""
    return ["git", *GIT_OPTIONS, *args]


def git_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) with :data:`GIT_ENV` set."""
    return {**(os.environ if environ is None else environ), **GIT_ENV}


__all__ = ["GIT_ENV", "GIT_OPTIONS", "git_argv", "git_env"]
