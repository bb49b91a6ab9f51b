"""The product repository's ``.runway/`` folder, and the ``.gitignore`` written with it.

Every part of the deploy side that creates something under ``.runway/`` (the embedded backend's
``state/``, the generated passphrase, ``leases/``, ``receipts/``) goes through
:func:`runway_folder`, so ``.runway/.gitignore`` exists whenever ``.runway/`` does and keeps the
passphrase and the live leases out of git. An existing ``.gitignore`` is never overwritten.
Must not import pulumi.
"""

from __future__ import annotations

import os
from pathlib import Path

RUNWAY_FOLDER = ".runway"
PASSPHRASE_FILE = "pulumi-passphrase"
GITIGNORE_TEXT = f"# written by runway-deploy: never commit these\n{PASSPHRASE_FILE}\nleases/\n"


def runway_folder(root: Path | str) -> Path:
    """``<root>/.runway`` (created with its parents), with ``.gitignore`` written if missing."""
    folder = Path(root) / RUNWAY_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".gitignore"
    if not path.exists():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # another process wrote it first
            return folder
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(GITIGNORE_TEXT)
    return folder


__all__ = ["GITIGNORE_TEXT", "PASSPHRASE_FILE", "RUNWAY_FOLDER", "runway_folder"]
