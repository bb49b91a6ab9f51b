"""The ``.runway`` state folder is refused (exit 3, with the reason) when it cannot be used safely
(issue 16 items 4 and 5; deploy_engine/workdir.py; docs/reliability.md hostile table).

A link to a folder outside the product, a file, a link to /dev/null, a folder the OS refuses to
write (injected: the suite runs as root, who may write a mode-0555 folder) and a folder owned by
another uid: `preview` and `up` exit 3 naming the reason, write nothing outside the product and
never exit 70.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deploy_engine import workdir
from deploy_engine.workdir import StateFolderError, check_runway_folder, runway_folder, runway_subfolder
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


def test_a_state_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    (tmp_path / ".runway").mkdir()
    me = os.geteuid()
    monkeypatch.setattr(workdir.os, "geteuid", lambda: me + 1)
    with pytest.raises(StateFolderError, match="not by you"):
        runway_folder(tmp_path)


@pytest.mark.parametrize("command", ["preview", "up"])
def test_a_read_only_state_folder_is_exit_3_with_the_reason(capsys, tmp_path, monkeypatch, command):
    root = orders(tmp_path)
    (root / ".runway").mkdir()
    real_open = os.open

    def read_only(path, flags, *a, **k):
        # What a read-only folder does to a non-root user (root ignores mode 0555).
        if str(path).startswith(str(root / ".runway")) and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(workdir.os, "open", read_only)
    rc, err = run(capsys, command, root)
    assert rc == 3, err
    assert "Permission denied" in err and "internal error" not in err
