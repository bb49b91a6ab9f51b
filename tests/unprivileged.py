"""Permission tests that mean something when the suite runs as root (CI's ``.ci/run`` does).

Root reads a mode-0600 file of another user and writes a mode-0555 folder, so a test that
chmods a file and expects "Permission denied" proves nothing as root. Here the command under
test runs in a child process as a throwaway user instead: uid/gid 65534 (``nobody``/
``nogroup``), through util-linux ``setpriv --reuid=65534 --regid=65534 --clear-groups`` (the
real and effective ids and no supplementary groups; setpriv(1)), or ``runuser -u nobody`` when
setpriv is missing. Run by another user than root, the child runs as that user (the modes then
bind it already).

``unprivileged`` (fixture): a folder that uid 65534 can reach (``/tmp/runway-unpriv-*``, mode
0755; pytest's own ``tmp_path`` is under a mode-0700 folder of root's), removed afterwards, and
:func:`run_as_nobody` to run ``argv`` there as that user. A file the test wants unreadable
stays root's with mode 0600 (or a folder 0700): reachable folder, unreadable file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

import pytest

UID = GID = 65534


def as_nobody(argv: Sequence[str]) -> list[str]:
    """``argv`` prefixed to run as uid/gid 65534 when this process is root; ``argv`` otherwise."""
    if os.geteuid() != 0:
        return list(argv)
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={UID}", f"--regid={GID}", "--clear-groups", *argv]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--", *argv]
    pytest.fail("running as root without setpriv or runuser (util-linux): cannot drop privileges for a permission test")


def run_as_nobody(argv: Sequence[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd`` as the throwaway user (module docstring); text output captured.
    ``HOME`` is ``cwd`` (nobody's home, /nonexistent, cannot hold a cache)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNWAY_", "PULUMI_", "AWS_"))}
    env.update(HOME=str(cwd), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(as_nobody(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def python_as_nobody(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -c code`` (this interpreter, the project importable) as the throwaway user."""
    return run_as_nobody([sys.executable, "-c", code], cwd)


@pytest.fixture
def unprivileged() -> Iterator[Path]:
    """A fresh folder uid 65534 can reach and read (mode 0755), removed after the test. Skips,
    saying why, only when this interpreter cannot run as that user at all (installed under a
    folder only root may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="runway-unpriv-"))
    try:
        folder.chmod(0o755)
        probe = python_as_nobody("import runway_core, deploy_engine", folder)
        if probe.returncode != 0:
            pytest.skip(f"{sys.executable} cannot run as uid {UID} (installed where it may not read?): {probe.stderr[-300:]}")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def owned_by_nobody(path: Path) -> None:
    """``path`` and everything under it owned by uid/gid 65534 (as root; a no-op otherwise)."""
    if os.geteuid() != 0:
        return
    for p in [path, *path.rglob("*")]:
        os.chown(p, UID, GID, follow_symlinks=False)


__all__ = ["GID", "UID", "as_nobody", "owned_by_nobody", "python_as_nobody", "run_as_nobody", "unprivileged"]
