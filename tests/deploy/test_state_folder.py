"""The ``.runway`` state folder is refused (exit 3, with the reason) when it cannot be used safely
(issue 16 items 4 and 5; deploy_engine/workdir.py; docs/reliability.md hostile table).

A link to a folder outside the product, a file, a link to /dev/null: `preview` and `up` exit 3
naming the reason, write nothing outside the product and never exit 70. A folder the OS refuses to
write and one owned by another uid are tests/deploy/test_permissions.py's, run as uid 65534 (the
suite runs as root, who may write a mode-0555 folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy_engine.workdir import StateFolderError, check_runway_folder, runway_subfolder
from test_deploy_cli import INFISICAL_OK, NETWORK, deploy, found_pulumi, orders

ENV = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, **INFISICAL_OK}


def run(capsys, command: str, root: Path) -> tuple[int, str]:
    rc, _out, err = deploy(capsys, command, str(root), "--env", "dev", environ=ENV, which=found_pulumi)
    return rc, err


@pytest.mark.parametrize("command", ["preview", "up"])
def test_a_state_folder_linked_outside_the_product_is_refused(capsys, tmp_path, command):
    root = orders(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".runway").symlink_to(elsewhere)
    rc, err = run(capsys, command, root)
    assert rc == 3, err
    assert "outside the product repository" in err and "internal error" not in err
    assert list(elsewhere.iterdir()) == []  # no .gitignore, passphrase, receipt or state


@pytest.mark.parametrize("command", ["preview", "up"])
@pytest.mark.parametrize("kind", ["file", "devnull"])
def test_a_state_folder_that_is_not_a_folder_is_exit_3(capsys, tmp_path, command, kind):
    root = orders(tmp_path)
    if kind == "file":
        (root / ".runway").write_text("not a folder\n")
    else:
        (root / ".runway").symlink_to("/dev/null")
    rc, err = run(capsys, command, root)
    assert rc == 3, err
    assert ("is not a folder" in err or "outside the product" in err) and "internal error" not in err


def test_a_child_link_out_of_the_product_is_refused(tmp_path):
    root = tmp_path / "product"
    (root / ".runway").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (root / ".runway" / "receipts").symlink_to(tmp_path / "out")
    with pytest.raises(StateFolderError, match="outside the product"):
        check_runway_folder(root)


def test_a_link_inside_the_product_is_accepted(tmp_path):
    (tmp_path / "real-state").mkdir()
    (tmp_path / ".runway").symlink_to(tmp_path / "real-state")
    assert runway_subfolder(tmp_path, "leases").is_dir()
    assert (tmp_path / "real-state" / ".gitignore").exists()


# A read-only state folder and one of another user: tests/deploy/test_permissions.py, as uid
# 65534 (root writes a mode-0555 folder, and owns everything it makes).


@pytest.mark.parametrize("command", ["preview", "up"])
@pytest.mark.parametrize("linked", ["receipts/dev", "plans/dev", "plans"])
def test_a_records_folder_linked_out_of_the_state_folder_is_refused_before_anything_is_written(capsys, tmp_path, command, linked):
    # Sixth adversary F3: `.runway/receipts/dev -> /elsewhere` (only `.runway/receipts` itself
    # was checked): `up` exited 4 and wrote its receipt there, while `receipts` refuses to read
    # through the same link. docs/deploy.md "Backend": checked before anything is written.
    root = orders(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = root / ".runway" / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere)
    rc, err = run(capsys, command, root)
    assert rc == 3, err
    assert "records folder is a link to" in err and "internal error" not in err, err
    assert list(elsewhere.iterdir()) == []


def test_the_file_store_never_writes_through_a_link_out_of_the_state_folder(tmp_path, monkeypatch):
    from deploy_engine.records.file_store import FileStore
    from deploy_engine.records.store import StoreError

    root = tmp_path / "product"
    (root / ".runway" / "receipts").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (root / ".runway" / "receipts" / "dev").symlink_to(tmp_path / "out")
    with pytest.raises(StateFolderError, match="records folder is a link to"):
        FileStore(root).create("receipts/dev/20261203T000000.000000Z.json", b"{}")
    # Past the state folder's check (a link made after it): the store's own rule, as its reader's.
    import deploy_engine.records.file_store as file_store

    monkeypatch.setattr(file_store, "runway_folder", lambda root: Path(root) / ".runway")
    store = FileStore(root)
    with pytest.raises(StoreError, match="leads out of the store folder; nothing written there"):
        store._tmp(root / ".runway" / "receipts" / "dev", b"{}")
    assert list((tmp_path / "out").iterdir()) == []
    monkeypatch.undo()
    (root / ".runway" / "receipts" / "dev").unlink()
    # A link that stays inside `.runway/` is written through, as it is read.
    (root / ".runway" / "receipts" / "real").mkdir()
    (root / ".runway" / "receipts" / "staging").symlink_to("real")
    FileStore(root).create("receipts/staging/20261203T000000.000000Z.json", b"{}")
    assert (root / ".runway" / "receipts" / "real" / "20261203T000000.000000Z.json").exists()
