"""The file store of the records: ``<product repo>/.runway/``, for a ``file://`` backend or
none (:mod:`deploy_engine.records`). Conditional create by ``os.link``; compare-and-swap on the
sha256 of a file's content, through an exclusive claim file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid
from datetime import datetime
from pathlib import Path

from runway_core.workspace import MAX_JSON_BYTES, NotRegularFile, open_regular

from ..workdir import runway_folder
from .kinds import parse_stamp
from .store import Record, RecordChanged, RecordExists, RecordStore, RecordTooLarge, StoreError

def _etag_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


class FileStore(RecordStore):
    """The records under ``<root>/.runway/`` (module docstring). Creating anything writes
    ``.runway/.gitignore`` first (:func:`deploy_engine.workdir.runway_folder`)."""

    scheme = "file"

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.folder = self.root / ".runway"

    def _owner(self, product: str, environment: str) -> list[str]:
        # One product per repository: `.runway/receipts/<env>/`, as before.
        return [environment]

    def path(self, key: str) -> Path:
        return self.folder / key

    def location(self, key: str) -> str:
        return str(self.path(key))

    def _tmp(self, directory: Path, data: bytes) -> Path:
        runway_folder(self.root)
        # Written only where the reader would read it (_leaves): never through a link out of
        # `.runway/` (`receipts/dev -> /elsewhere`; sixth adversary F3).
        why = self._leaves(directory)
        if why is not None:
            raise StoreError(f"{directory} {why}; nothing written there")
        directory.mkdir(parents=True, exist_ok=True)
        why = self._leaves(directory)
        if why is not None:
            raise StoreError(f"{directory} {why}; nothing written there")
        tmp = directory / f".tmp-{uuid.uuid4().hex}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return tmp

    def create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        dest = self.path(key)
        tmp = self._tmp(dest.parent, data)
        try:
            try:
                # link, not replace: an existing record is never overwritten.
                os.link(tmp, dest)
            except FileExistsError:
                raise RecordExists(f"{dest} exists; records are never overwritten") from None
            return _etag_of(data)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def read(self, key: str, *, limit: int = MAX_JSON_BYTES) -> Record | None:
        path = self.path(key)
        why = self._leaves(path)
        if why is not None:
            raise StoreError(f"{path} {why}; not followed")
        try:
            # Regular files only, bounded (a FIFO would block, /dev/zero never end): a record is
            # a small JSON document (runway_core.workspace.MAX_JSON_BYTES).
            data, _ = open_regular(str(path), limit + 1)
        except FileNotFoundError:
            return None
        except NotRegularFile:
            raise StoreError(f"{path} is not a regular file (a FIFO, socket, device or folder); never read") from None
        except OSError as exc:
            # This one record (a symlink loop: ELOOP, a file denied to this user: EACCES), named
            # with the OS's reason: never an error of the export folder nor an exit 70 (round 5, F12).
            raise StoreError(f"{path}: {exc.strerror or exc}; not read") from None
        if len(data) > limit:
            raise RecordTooLarge(f"{path} is over the {limit:,}-byte limit for this record; not read")
        return Record(key, data, _etag_of(data))

    def _claim(self, key: str, etag: str, data: bytes) -> Path:
        """Claim the swap from ``etag`` (exclusive ``link``), or raise :class:`RecordChanged`."""
        path = self.path(key)
        claim = path.with_name(f"{path.name}.takeover-{etag}")
        tmp = self._tmp(path.parent, data)
        try:
            try:
                os.link(tmp, claim)
            except FileExistsError:
                raise RecordChanged(f"{path} is being changed by another process (if none is running, delete {claim})",
                                    claim=str(claim)) from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        current = self.read(key)
        if current is None or current.etag != etag:
            os.unlink(claim)
            raise RecordChanged(f"{path} changed since it was read" if current else f"{path} is gone")
        return claim

    def replace(self, key: str, data: bytes, etag: str) -> str:
        claim = self._claim(key, etag, data)
        os.replace(claim, self.path(key))  # atomic: the claim (holding `data`) becomes the record
        return _etag_of(data)

    def delete(self, key: str, etag: str) -> None:
        claim = self._claim(key, etag, b"")
        try:
            os.unlink(self.path(key))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(claim)

    def _leaves(self, path: Path) -> str | None:
        """Why ``path`` is not read: a symlink (at it or at a folder above it inside the
        store) whose target lies outside ``.runway/`` (a receipt linked to ``/etc/passwd``, a
        folder linked to ``/etc``: issue 23), or None."""
        try:
            base = os.path.realpath(self.folder)
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return "cannot be resolved"
        if os.path.commonpath([base, real]) != base:
            return "is a symlink (or lies below one) that leads out of the store folder"
        return None

    def _is_dir(self, path: Path) -> bool:
        """Whether ``path`` is a folder; raises :class:`StoreError` when a folder above it
        cannot be searched (``Path.is_dir`` raises ``PermissionError`` for EACCES: only
        ENOENT, ENOTDIR, EBADF and ELOOP read as "not a folder", CPython pathlib ``_ignore_error``)."""
        try:
            return path.is_dir()
        except OSError as exc:
            # Name the first folder of the store, from `.runway/` down, this user cannot search.
            chain = [self.folder, *(p for p in reversed(path.parents) if self.folder in p.parents)]
            blocked = next((p for p in chain if not os.access(p, os.X_OK)), path.parent)
            raise StoreError(f"{blocked}: {exc.strerror or exc}; cannot list the records in it") from None

    def list(self, prefix: str) -> list[str]:
        """Keys under ``prefix``, sorted: every entry but a folder, and a folder whose name
        ends with ``.json`` (a record's name), each as itself; a symlink is never walked into
        or through (:meth:`read` refuses one that leads out of ``.runway/``, and a FIFO, socket,
        device or folder, so a reader lists each as unreadable with that reason); temporary
        and claim files left out.

        Raises :class:`StoreError` naming the folder when a folder of the store exists but
        cannot be searched or listed by this user (EACCES), or is a symlink (or lies below one)
        leading out of the store: never "no receipts", which would read as an empty history
        and export an empty SHA256SUMS (round 5, A05; fifth adversary)."""
        base = self.path(prefix)
        folder = base if prefix.endswith("/") or self._is_dir(base) else base.parent
        why = self._leaves(folder)
        if why is not None and os.path.lexists(folder):
            # `.runway/receipts/staging -> elsewhere`: never followed, and never "no records"
            # either (an empty history, an empty SHA256SUMS export): exit 3 naming it (fifth
            # adversary; a linked receipt file is unreadable the same way).
            raise StoreError(f"{folder} {why}; not followed, cannot list the records in it")
        if not self._is_dir(folder) or why is not None:
            return []
        keys = []
        stack = [str(folder)]
        while stack:
            here = stack.pop()
            try:
                entries = list(os.scandir(here))
            except FileNotFoundError:
                continue  # removed while listing (a prune of another run): nothing under it
            except OSError as exc:
                raise StoreError(f"{here}: {exc.strerror or exc}; cannot list the records in it") from None
            for entry in entries:
                if entry.name.startswith(".tmp-") or ".takeover-" in entry.name:
                    continue
                # A folder named like a record (`<stamp>.json/`) is listed as itself, as a FIFO,
                # socket or device is: read() refuses each with its reason, so a reader shows it
                # as unreadable and an export fails, never "0 receipt(s)" (third adversary, T5).
                if entry.is_dir(follow_symlinks=False) and not entry.name.endswith(".json"):
                    stack.append(entry.path)
                    continue
                key = Path(entry.path).relative_to(self.folder).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def prune(self, prefix: str, older_than: datetime) -> int:
        n = 0
        for key in self.list(prefix):
            t = parse_stamp(key.rsplit("/", 1)[-1])
            if t is not None and t < older_than:
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):  # a `<stamp>.json/` folder stays
                    os.unlink(self.path(key))
                    n += 1
        return n


__all__ = ["FileStore"]
