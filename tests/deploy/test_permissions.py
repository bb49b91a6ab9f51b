"""Permissions as a user who lacks them (issue 23 item 7): CI runs the suite as root, who reads
a mode-0600 file and writes a mode-0555 folder, so each command below runs in a child process
as uid/gid 65534 (tests/unprivileged.py: ``setpriv --reuid=65534 --regid=65534
--clear-groups``) in a folder that user can reach, holding a file or folder it may not read or
write. These replace the tests that injected ``PermissionError`` or a fake ``geteuid``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from unprivileged import UID, owned_by_nobody, python_as_nobody, run_as_nobody, unprivileged  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0123456789abcdef2,subnet-0123456789abcdef3",
}


def product(folder: Path) -> Path:
    dest = folder / "orders"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    for p in [dest, *dest.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dest


def deploy_cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "deploy_engine", *argv]


def test_an_unreadable_runway_is_exit_3_saying_permission_denied(unprivileged):
    root = product(unprivileged)
    (root / "runway.yaml").chmod(0o600)  # root's, and unreadable to uid 65534
    for command in ("check", "plan"):
        got = run_as_nobody(deploy_cli(command, str(root)), unprivileged)
        assert got.returncode == 3, (got.stdout, got.stderr)
        assert "Permission denied" in got.stderr and "internal error" not in got.stderr


def test_an_unreadable_member_folder_says_permission_denied(unprivileged):
    root = product(unprivileged)
    (root / "services" / "billing").chmod(0o700)  # not searchable by uid 65534
    got = run_as_nobody(deploy_cli("check", str(root), "--format", "json"), unprivileged)
    assert "internal error" not in got.stderr, got.stderr
    doc = json.loads(got.stdout)
    msgs = [d["message"] for d in doc["diagnostics"] if d["code"] == "RW151"]
    assert msgs == ["member folder `services/billing` cannot be read (Permission denied); its runway.yaml was not checked"], doc


def _preview_as_nobody(root: Path, cwd: Path):
    # `which` reports a pulumi binary (as tests/deploy/test_deploy_cli.py's found_pulumi does):
    # the run stops at the state folder, before Pulumi would run.
    code = ("import sys; from deploy_engine.cli import main; "
            f"sys.exit(main(['preview', {str(root)!r}, '--env', 'dev'], environ={dict(NETWORK, RUNWAY_DEPLOY_JOB='protected')!r}, "
            "which=lambda name, path=None: '/opt/pulumi/bin/pulumi'))")
    return python_as_nobody(code, cwd)


def test_a_read_only_state_folder_is_exit_3_with_the_reason(unprivileged):
    root = product(unprivileged)
    owned_by_nobody(root)
    (root / ".runway").mkdir()
    owned_by_nobody(root / ".runway")
    (root / ".runway").chmod(0o555)  # its owner may not write it
    got = _preview_as_nobody(root, unprivileged)
    assert got.returncode == 3, (got.stdout, got.stderr)
    assert "Permission denied" in got.stderr and "internal error" not in got.stderr
    assert sorted(os.listdir(root / ".runway")) == []


def test_a_state_folder_of_another_user_is_refused(unprivileged):
    root = product(unprivileged)
    owned_by_nobody(root)
    (root / ".runway").mkdir(mode=0o777)  # root's (the test's user), writable by anyone: still refused
    (root / ".runway").chmod(0o777)
    got = _preview_as_nobody(root, unprivileged)
    if os.geteuid() == 0:
        assert got.returncode == 3, (got.stdout, got.stderr)
        assert f"not by you (uid {UID})" in got.stderr


def test_the_steps_of_an_unreadable_root_are_the_analysis_of_it(unprivileged):
    """tests/core/test_analysis_steps.py's comparison of the whole analysis with the one in steps,
    where the root really cannot be read (as root, chmod 0 changed nothing)."""
    root = product(unprivileged)
    (root / "runway.yaml").chmod(0o600)
    code = (
        "import sys; from pathlib import Path; sys.path[:0] = [%r, %r]; "
        "from test_analysis_steps import in_steps, same; "
        "from runway_core.analysis import analyze; from runway_core.catalog import load_catalog; "
        "c = load_catalog(); f = %r; whole = analyze(f, c); stepped, n = in_steps(Path(f), c); same(whole, stepped); "
        "msgs = [d.message for ds in whole.diagnostics.values() for d in ds]; print(msgs); "
        "sys.exit(0 if n == 1 and any('Permission denied' in m for m in msgs) else 1)"
    ) % (str(REPO / "tests" / "core"), str(REPO / "tests"), str(root / "runway.yaml"))
    got = python_as_nobody(code, unprivileged)
    assert got.returncode == 0, (got.stdout, got.stderr)
