"""Folder creation without recursion.

``os.makedirs`` and ``Path.mkdir(parents=True)`` call themselves once per missing folder
(CPython 3.11 Lib/os.py ``makedirs``: ``makedirs(head, exist_ok=exist_ok)``), so a legal
``--output`` path whose folder is missing 1,200 levels deep (2,415 characters, under
PATH_MAX) ended in RecursionError, exit 70 (fourth adversary, round 5). Must not import pulumi.
"""

from __future__ import annotations

import os


def make_folders(path: str | os.PathLike[str], mode: int = 0o777) -> None:
    """Create folder ``path`` and every missing folder above it, as ``os.makedirs(path, mode,
    exist_ok=True)`` does, iteratively: an existing folder (or a symlink to one) is left as it
    is. Raises ``FileExistsError`` when ``path`` or a folder above it is something else than a
    folder, ``OSError`` (ENAMETOOLONG past PATH_MAX, EACCES, EROFS) when one cannot be made."""
    here = os.path.abspath(os.fspath(path))
    missing: list[str] = []
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, mode)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise


__all__ = ["make_folders"]
