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



def remove_tree(root: str | os.PathLike[str]) -> None:
    """Remove folder ``root`` and all it holds, however deep, without recursion, without a
    path longer than three names below ``root`` and without holding a descriptor per level:
    each child folder's own folders are moved up beside it (``os.rename`` within ``root``),
    then the child, now flat, is emptied and removed; links are removed, never followed.
    ``shutil.rmtree`` (and so ``tempfile.TemporaryDirectory.cleanup``) recurses once per level:
    a revision holding a folder 1,200 levels deep ended ``diff`` in RecursionError. A ``root``
    already gone is no error; ``OSError`` for one that cannot be removed."""
    root = os.path.abspath(os.fspath(root))
    moved = 0
    while True:
        try:
            entries = list(os.scandir(root))
        except FileNotFoundError:
            return
        if not entries:
            break
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
                continue
            for inner in list(os.scandir(entry.path)):
                if inner.is_dir(follow_symlinks=False):
                    while True:
                        moved += 1
                        up = os.path.join(root, f".runway-rm-{moved}")
                        if not os.path.lexists(up):
                            break
                    os.rename(inner.path, up)
                else:
                    os.unlink(inner.path)
            os.rmdir(entry.path)
    os.rmdir(root)


class TemporaryFolder:
    """A new folder under the system's temporary folder (``tempfile.mkdtemp``: mode 0700),
    ``name`` its path; :meth:`cleanup` removes it with :func:`remove_tree` (what
    ``tempfile.TemporaryDirectory`` does with ``shutil.rmtree``, which recurses)."""

    def __init__(self, prefix: str) -> None:
        import tempfile

        self.name = tempfile.mkdtemp(prefix=prefix)

    def cleanup(self) -> None:
        """Remove the folder and what it holds; never raises (a temporary folder left behind
        is the system's to clear)."""
        try:
            remove_tree(self.name)
        except OSError:
            pass


__all__ = ["TemporaryFolder", "make_folders", "remove_tree"]
