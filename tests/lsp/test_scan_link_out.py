"""The workspace scan never reads a runway file linked out of its folder (tenth adversary L7;
issue 23).

A repository can commit `x/runway.yaml -> /etc/...` or a file in the user's home: opening the
folder was enough for the scan to read the target and publish, under the target's path, what
the rules quote of it ("unknown key `aws_secret_access_key`", "`Hunter2Pass` is not an AWS
region"). `runway-deploy check` refuses such a link (RW151, never read: docs/format.md
"Files"); the scan now leaves it out, as it leaves out a FIFO. A link inside its folder is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

from runway_lsp.scan import find_runway_files

SECRET = "runway: 1\nproduct: leak\nregion: Hunter2Pass\naws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"


def test_a_runway_linked_out_of_its_folder_is_not_found_and_one_inside_is(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET, encoding="utf-8")
    work = tmp_path / "work"
    (work / "x").mkdir(parents=True)
    os.symlink(outside, work / "x" / "runway.yaml")  # leaves x/
    (work / "y").mkdir()
    (work / "y" / "real.yaml").write_text("runway: 1\nproduct: inside\n", encoding="utf-8")
    os.symlink("real.yaml", work / "y" / "runway.yaml")  # stays inside y/
    found = find_runway_files([str(work)])
    assert str(outside.resolve()) not in found.files and str(outside.resolve()) not in found.kinds
    assert str((work / "y" / "real.yaml").resolve()) in found.files
