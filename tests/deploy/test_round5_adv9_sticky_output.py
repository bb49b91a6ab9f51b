"""Ninth fresh adversary, CLI C3 (issue 23): ``--output st/out.json`` as uid 65534, where
``st`` is a sticky world-writable folder (``/tmp``-like) and out.json a mode-0666 file of root
(the folder's owner: a CI runner's pre-made report) was exit 3 "cannot write st/out.json:
Operation not permitted": the temporary file could be made, but the kernel refuses renaming
it over another user's file in a sticky folder, although the file itself is writable. Such a
file is now written in place (docs/cli.md, ``--output FILE``); one of a third user is refused
naming the cause, as the kernel's ``fs.protected_regular`` would."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from deploy_engine.cli import output
from unprivileged import UID, run_as_nobody, unprivileged  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"


def product(folder: Path) -> Path:
    dest = folder / "o"
    shutil.copytree(ORDERS, dest)
    for p in [dest, *dest.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dest


def sticky_with_report(folder: Path, owner: int) -> Path:
    st = folder / "st"
    st.mkdir()
    st.chmod(0o1777)
    out = st / "out.json"
    out.write_text("victim\n", encoding="utf-8")
    out.chmod(0o666)
    if os.geteuid() == 0:
        os.chown(out, owner, owner)
    return out


@pytest.mark.parametrize("command", ["check", "plan"])
def test_a_writable_report_of_the_folders_owner_in_a_sticky_folder_is_written(unprivileged, command):
    if os.geteuid() != 0:
        pytest.skip("needs root: the report must belong to another user (the folder's owner) than the one writing it")
    o = product(unprivileged)
    out = sticky_with_report(unprivileged, 0)
    got = run_as_nobody([sys.executable, "-m", "deploy_engine", command, str(o), "--format", "json", "--output", "st/out.json"], unprivileged)
    # Before: exit 3, "cannot write st/out.json: Operation not permitted", out.json as it was.
    assert got.returncode in (0, 1, 2), (got.returncode, got.stderr)
    assert "cannot write" not in got.stderr, got.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and doc, doc
    st = out.stat()
    assert (st.st_uid, st.st_mode & 0o7777) == (0, 0o666)  # the same file, written in place
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.json"]  # no temporary file left


def test_a_report_of_a_third_user_in_a_sticky_folder_is_refused_naming_why(unprivileged):
    if os.geteuid() != 0:
        pytest.skip("needs root: the report must belong to a third user")
    o = product(unprivileged)
    out = sticky_with_report(unprivileged, UID - 1)  # neither the writer (65534) nor the folder's owner (root)
    got = run_as_nobody([sys.executable, "-m", "deploy_engine", "check", str(o), "--format", "json", "--output", "st/out.json"], unprivileged)
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert (f"cannot write st/out.json: the folder st is sticky and out.json belongs to another user (uid {UID - 1}): "
            "the replacement cannot be renamed over it") in got.stderr, got.stderr
    assert out.read_text(encoding="utf-8") == "victim\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.json"]


def test_writing_in_place_keeps_the_old_content_when_the_disk_is_full(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_bytes(b"old report\n")

    def full(fd, offset, length):
        os.ftruncate(fd, offset + length)  # as glibc's emulation may leave it: grown, then ENOSPC
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    with pytest.raises(OSError) as exc:
        output.write_in_place(str(target), b'{"a much longer": "new report"}\n')
    assert exc.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"old report\n"


def test_writing_in_place_writes_the_old_content_back_when_a_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_bytes(b"old report, longer than the new one\n")
    real = os.pwrite
    calls = []

    def failing(fd, data, offset):
        calls.append(offset)
        if len(calls) == 1:
            real(fd, bytes(data[:3]), offset)  # a part written, then the device fails
            raise OSError(errno.EIO, "Input/output error")
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", failing)
    with pytest.raises(OSError):
        output.write_in_place(str(target), b"new\n")
    assert target.read_bytes() == b"old report, longer than the new one\n"


def test_writing_in_place_never_follows_a_symlink(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"kept\n")
    (tmp_path / "out.json").symlink_to(elsewhere)
    with pytest.raises(OSError) as exc:
        output.write_in_place(str(tmp_path / "out.json"), b"new\n")
    assert exc.value.errno == errno.ELOOP
    assert elsewhere.read_bytes() == b"kept\n"


def test_a_writable_report_in_a_folder_this_user_may_not_write_is_written_in_place(unprivileged):
    if os.geteuid() != 0:
        pytest.skip("needs root: the folder must belong to another user")
    o = product(unprivileged)
    ro = unprivileged / "ro"
    ro.mkdir()
    ro.chmod(0o755)  # root's: uid 65534 cannot make the temporary file beside the report
    out = ro / "out.json"
    out.write_text("victim\n", encoding="utf-8")
    out.chmod(0o666)
    got = run_as_nobody([sys.executable, "-m", "deploy_engine", "check", str(o), "--format", "json", "--output", "ro/out.json"], unprivileged)
    assert got.returncode in (0, 1, 2) and "cannot write" not in got.stderr, (got.returncode, got.stderr)
    assert isinstance(json.loads(out.read_text(encoding="utf-8")), dict)
    assert sorted(p.name for p in ro.iterdir()) == ["out.json"]


def test_a_symlink_of_a_third_user_in_a_sticky_folder_is_refused_never_followed(unprivileged):
    if os.geteuid() != 0:
        pytest.skip("needs root: the link must belong to a third user")
    o = product(unprivileged)
    st = unprivileged / "st"
    st.mkdir()
    st.chmod(0o1777)
    target = unprivileged / "elsewhere.json"
    target.write_text("kept\n", encoding="utf-8")
    target.chmod(0o666)
    (st / "out.json").symlink_to(target)
    os.lchown(st / "out.json", UID - 1, UID - 1)
    got = run_as_nobody([sys.executable, "-m", "deploy_engine", "check", str(o), "--format", "json", "--output", "st/out.json"], unprivileged)
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert "the folder st is sticky and out.json (a symbolic link) belongs to another user" in got.stderr, got.stderr
    assert target.read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in st.iterdir()) == ["out.json"]
