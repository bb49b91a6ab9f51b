"""The CLI's report writing against the sixth fresh adversary's inputs (issue 23, round 5).

- F8: a nearly full disk. A tmpfs of 128 KiB is mounted (the tests run as root), filled to
  its last 4 KiB page, and the real CLI writes a report bigger than that over an existing
  file: every write must be complete or the command fails (exit 3), the old file intact and
  no temporary file left.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_deploy_cli import orders  # noqa: F401

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OLD = b"the user's file, before the run\n"
OLD_USAGE = b"# the team's usage file, before the run\nusage: 1\n"  # valid: `usage init --force` rewrites it


def cli(*argv: str, env: dict[str, str] | None = None, cwd: str | os.PathLike[str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real CLI as a process (``python -m deploy_engine``); output kept as bytes."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNWAY_"))}
    base.update(env or {})
    return subprocess.run([sys.executable, "-m", "deploy_engine", *argv], env=base, cwd=cwd, capture_output=True, timeout=120)


@pytest.fixture
def small_disk(tmp_path):
    """A 128 KiB tmpfs at ``tmp_path/disk``, unmounted afterwards; skipped only when mounting
    is not permitted (no root, no CAP_SYS_ADMIN in this container)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(disk)], capture_output=True, text=True)
    if got.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path, leave: int = 4096) -> None:
    """Fill ``disk`` but its last ``leave`` bytes (one page of tmpfs)."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "fill", "wb") as fh:
        fh.write(b"\0" * (free - leave))
    assert os.statvfs(disk).f_bavail * st.f_frsize == leave


def leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n not in keep)


@pytest.mark.parametrize("how", ["check-sarif", "schema"])
def test_a_report_that_does_not_fit_the_disk_is_exit_3_and_the_old_file_is_kept(small_disk, how) -> None:
    # Before: exit 0 and FILE replaced by the first 4 KiB of the report (raw FileIO short write).
    target = small_disk / "report.out"
    target.write_bytes(OLD)
    fill(small_disk)
    if how == "schema":
        got = cli("schema", "--output", str(target))
    else:
        got = cli("check", str(EXAMPLES / "broken"), "--format", "sarif", "--output", str(target))
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert b"cannot write" in got.stderr and b"No space left on device" in got.stderr, got.stderr
    assert target.read_bytes() == OLD
    assert leftovers(small_disk, {"fill", "report.out"}) == []


def test_usage_init_force_on_a_full_disk_keeps_the_usage_file(small_disk) -> None:
    product = orders(small_disk)  # examples/orders with its image digest fixed: exit 0 with room
    usage = product / "runway.usage.yaml"
    usage.write_bytes(OLD_USAGE)
    fill(small_disk)
    got = cli("usage", "init", str(product), "--force")
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert b"No space left on device" in got.stderr, got.stderr
    assert usage.read_bytes() == OLD_USAGE
    assert leftovers(product, {"runway.yaml", "runway.usage.yaml", "services"}) == []


def test_the_same_writes_succeed_with_room(small_disk) -> None:
    # The control: with the room, the report is written whole (the tmpfs is not the failure).
    target = small_disk / "schema.json"
    target.write_bytes(OLD)
    got = cli("schema", "--output", str(target))
    assert got.returncode == 0, got.stderr
    assert target.read_bytes() == cli("schema").stdout


def test_a_state_folder_file_cut_by_a_full_disk_is_removed_never_kept(small_disk) -> None:
    # `.runway/.gitignore` and `.runway/pulumi-passphrase` are created once (O_EXCL) and never
    # rewritten: before, a full disk left them empty (the passphrase file unignored; an empty
    # passphrase read on the next run). Now the cut file is removed and the error raised.
    from deploy_engine.backend import Backend, resolve_passphrase
    from deploy_engine.workdir import StateFolderError, runway_folder

    (small_disk / ".runway").mkdir()
    fill(small_disk, leave=0)
    with pytest.raises(StateFolderError, match="No space left on device"):
        runway_folder(small_disk)
    assert os.listdir(small_disk / ".runway") == []
    (small_disk / "fill").unlink()
    runway_folder(small_disk)  # .gitignore written whole with room
    fill(small_disk, leave=0)
    with pytest.raises(OSError):
        resolve_passphrase(Backend(f"file://{small_disk}/.runway/state", embedded=True), {}, small_disk)
    assert sorted(os.listdir(small_disk / ".runway")) == [".gitignore"]


def test_catalog_refresh_on_a_full_disk_leaves_the_catalogue_as_it_was(small_disk) -> None:
    from deploy_engine.pricelist.refresh import RefreshError, write_catalogue
    from runway_core.catalog import PRICES_FILE, SIZES_FILE

    folder = small_disk / "catalog"
    shutil.copytree(EXAMPLES.parent / "catalog", folder, ignore=shutil.ignore_patterns("*.json", "*.md"))
    before = {n: (folder / n).read_bytes() for n in (SIZES_FILE, PRICES_FILE)}
    fill(small_disk, leave=0)
    with pytest.raises(RefreshError, match="No space left on device"):
        write_catalogue(folder, before[SIZES_FILE], [])
    assert {n: (folder / n).read_bytes() for n in (SIZES_FILE, PRICES_FILE)} == before
    assert leftovers(small_disk, {"fill", "catalog"}) == []


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_folder_name_that_is_not_utf8_never_crashes_and_the_output_is_utf8(tmp_path, fmt) -> None:
    # Before: --output exit 70 (UnicodeEncodeError); to stdout the raw 0xE9 byte (not UTF-8).
    import json
    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9")
    shutil.copytree(EXAMPLES / "broken", folder)
    out = tmp_path / f"out.{fmt}"
    got = cli("check", folder, "--format", fmt, "--output", str(out), cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    for raw in (out.read_bytes(), cli("check", folder, "--format", fmt, cwd=tmp_path).stdout):
        doc = json.loads(raw.decode("utf-8"))  # strict UTF-8
        if fmt == "json":
            assert any(os.fsencode(d["file"]).startswith(b"caf\xe9/") for d in doc["diagnostics"])
        else:
            uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
            assert "caf%E9/runway.yaml" in uris, uris
