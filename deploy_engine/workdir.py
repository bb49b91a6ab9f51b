"""The product repository's ``.runway/`` folder, and the ``.gitignore`` written with it.

Every part of the deploy side that creates something under ``.runway/`` (the embedded backend's
``state/``, the generated passphrase, ``leases/``, ``receipts/``) goes through
:func:`runway_folder` (or :func:`runway_subfolder` for one of those children), so
``.runway/.gitignore`` exists whenever ``.runway/`` does and keeps the passphrase and the live
leases out of git. An existing ``.gitignore`` is never overwritten.

The folder is refused (:class:`StateFolderError`, exit 3 through :class:`InputError`) when it
is not a folder (a file, a link to ``/dev/null``), when it or one of its children resolves
outside the product repository (a symlink to ``/tmp/elsewhere``: the passphrase and receipts
would be written there), when it is not owned by the user running the deploy, or when it
cannot be written (read-only): the same rule as members outside the repository
(docs/reliability.md, docs/deploy.md "The state folder"). :func:`check_runway_folder`
validates without creating anything, for a run that must refuse before it writes.
Must not import pulumi.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from .exits import InputError

RUNWAY_FOLDER = ".runway"
PASSPHRASE_FILE = "pulumi-passphrase"
GITIGNORE_TEXT = f"# written by runway-deploy: never commit these\n{PASSPHRASE_FILE}\nleases/\n"
#: The children of ``.runway/`` runway-deploy creates (each checked like the folder itself).
CHILDREN = ("state", "leases", "receipts")


class StateFolderError(InputError):
    """``.runway/`` (or a child of it) cannot be used: the message says why (exit 3)."""


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _check(path: Path, root: Path) -> None:
    """Raise :class:`StateFolderError` if ``path`` exists and is not a folder of the user's inside ``root``."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StateFolderError(f"{path}: state folder unreadable: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        target = path.resolve()
        if not _within(target, root):
            raise StateFolderError(
                f"{path}: state folder is a link to {target}, outside the product repository {root}; "
                "runway-deploy writes the Pulumi passphrase and receipts there, so it refuses (replace the link with a folder)"
            )
        try:
            st = os.stat(path)
        except OSError as exc:
            raise StateFolderError(f"{path}: state folder link is broken: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise StateFolderError(f"{path}: state folder is not a folder (remove it or move it away)")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise StateFolderError(f"{path}: state folder is owned by uid {st.st_uid}, not by you (uid {os.geteuid()}); refused")


#: The folders of the file records store under ``.runway/`` (``deploy_engine.records.store.KINDS``),
#: each holding one folder per environment (``receipts/<env>/``).
RECORD_FOLDERS = ("receipts", "plans", "drift", "lease-history", "ends")


def _check_record_folders(folder: Path) -> None:
    """Raise :class:`StateFolderError` when a record kind's folder, or an environment's folder
    in it (``.runway/receipts/dev``), is a link leading out of ``folder`` (``.runway/``): a
    record would be written there, and the store's reader refuses to follow it (sixth
    adversary F3: ``up`` wrote its receipt through ``receipts/dev -> /elsewhere``)."""
    real = Path(os.path.realpath(folder))
    for kind in RECORD_FOLDERS:
        kind_folder = folder / kind
        try:
            entries = [kind_folder, *kind_folder.iterdir()] if kind_folder.is_dir() else [kind_folder]
        except OSError as exc:
            raise StateFolderError(f"{kind_folder}: state folder unreadable: {exc.strerror or exc}") from None
        for path in entries:
            if not path.is_symlink():
                continue
            target = Path(os.path.realpath(path))
            if not _within(target, real):
                raise StateFolderError(
                    f"{path}: records folder is a link to {target}, outside {folder}; records would be written there "
                    "and are never read through it, so runway-deploy refuses (replace the link with a folder)")


def check_runway_folder(root: Path | str) -> Path:
    """``<root>/.runway`` checked without creating anything; raises :class:`StateFolderError` (see module docstring)."""
    base = Path(root).resolve()
    folder = base / RUNWAY_FOLDER
    _check(folder, base)
    for child in CHILDREN:
        _check(folder / child, base)
    if folder.is_dir():
        _check_record_folders(folder)
    return folder


def runway_folder(root: Path | str) -> Path:
    """``<root>/.runway`` (created with its parents, checked as :func:`check_runway_folder`), with
    ``.gitignore`` written if missing. Raises :class:`StateFolderError` for a folder that cannot be
    used or written (read-only: the OS's reason is in the message)."""
    folder = check_runway_folder(root)
    path = folder / ".gitignore"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:  # another process wrote it first
                return folder
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(GITIGNORE_TEXT)
                    fh.flush()
                    os.fsync(fh.fileno())
            except BaseException:
                # A .gitignore cut short (ENOSPC) would stay, never rewritten, and leave the
                # passphrase file unignored: removed, so the next run writes it whole.
                with contextlib.suppress(OSError):
                    os.unlink(path)
                raise
    except StateFolderError:
        raise
    except OSError as exc:
        raise StateFolderError(f"{folder}: state folder cannot be written: {exc.strerror or exc}") from None
    return folder


def runway_subfolder(root: Path | str, name: str) -> Path:
    """``<root>/.runway/<name>`` (one of :data:`CHILDREN`), created; raises :class:`StateFolderError`.

    What any writer under ``.runway/`` (the backend's state, leases, receipts, records) calls to
    get its validated folder."""
    folder = runway_folder(root) / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateFolderError(f"{folder}: state folder cannot be written: {exc.strerror or exc}") from None
    _check(folder, Path(root).resolve())
    return folder


__all__ = ["CHILDREN", "GITIGNORE_TEXT", "PASSPHRASE_FILE", "RUNWAY_FOLDER", "StateFolderError",
           "check_runway_folder", "runway_folder", "runway_subfolder"]
