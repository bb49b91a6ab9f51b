"""Copying records out of a store into a folder on this machine: ``receipts export --to DIR``
(docs/deploy.md, "Records").

A store shared by a team (the state bucket) is input someone else controls, so its keys and
objects are checked before anything is written:

- :func:`key_problem`: a key must be ``<folder prefix><name>`` with one record name
  (``20261130T091502.123456Z.json``, ``[A-Za-z0-9][A-Za-z0-9_.-]*``, no ``..``); a segment that is
  empty, ``.``, ``..``, holds a backslash, NUL or another control character "leaves its prefix"
  and is refused, as Python's own archive extraction refuses a member outside the destination
  (PEP 706, ``tarfile.data_filter``).
- :class:`FolderWriter`: writes ``DIR/<key>`` through file descriptors, never a path: each
  folder below DIR is opened (or created) with ``O_NOFOLLOW | O_DIRECTORY`` relative to its
  parent's descriptor, so a symlink anywhere below DIR is refused, not followed, and nothing
  can be swapped in between the check and the write. DIR itself is the folder named (it may be
  a symlink to the folder meant). Each file is a temporary file in its own folder, fsynced,
  read back and compared with the sha256 of the record's bytes, then ``os.link``-ed to its name
  (never replacing a file there; another content there is a conflict). ``SHA256SUMS`` is
  written the same way and ``os.replace``-d into place.

Linux and macOS only (``dir_fd`` and ``O_NOFOLLOW``), as the deploy tooling is.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..folders import make_folders

#: One record name: what :func:`deploy_engine.records.kinds.write_unique` writes.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\.json$")


#: An S3 object key is at most 1,024 bytes of UTF-8, its prefixes included (Amazon S3 User
#: Guide, "Naming Amazon S3 objects", formerly "Creating object key names"). A store that
#: lists a longer one (an S3-compatible server that does not check) is not S3's.
MAX_KEY_BYTES = 1024
#: A file name (one path segment) is at most NAME_MAX = 255 bytes (linux/limits.h; macOS's
#: is 255 too): a longer record name cannot be written below DIR, whatever DIR is.
NAME_MAX = 255


def key_problem(key: str, prefix: str) -> str | None:
    """Why ``key`` (listed under ``prefix``, e.g. ``receipts/orders/dev/``) may not be used, or
    None. Over :data:`MAX_KEY_BYTES`: longer than S3 allows; ``leaves its prefix``: a segment
    empty, ``.``, ``..``, absolute, or holding a backslash, NUL or control character; ``not a
    record name``: anything else that is not ``prefix`` plus one record name."""
    size = len(key.encode("utf-8", "surrogatepass"))
    if size > MAX_KEY_BYTES:
        return f"is {size:,} bytes, over the {MAX_KEY_BYTES:,} bytes of UTF-8 an S3 object key may hold"
    if not key.startswith(prefix):
        return "leaves its prefix"
    if key.startswith("/") or any(c == "\\" or not c.isprintable() for c in key):
        return "leaves its prefix"
    if any(seg in ("", ".", "..") for seg in key.split("/")):
        return "leaves its prefix"
    name = key[len(prefix):]
    if "/" in name or not _NAME.fullmatch(name) or ".." in name:
        return "not a record name"
    return None


def file_name_problem(key: str) -> str | None:
    """Why ``key`` cannot be a path below a folder on this machine, or None: a segment over
    :data:`NAME_MAX` bytes (the OS would say only "File name too long")."""
    for seg in key.split("/"):
        size = len(seg.encode("utf-8", "surrogatepass"))
        if size > NAME_MAX:
            return f"holds a name of {size:,} bytes, over the {NAME_MAX} bytes a file name may hold (NAME_MAX)"
    return None


def inside_folder(dest: Path, folder: Path) -> bool:
    """Whether ``dest`` (existing or not) is ``folder`` or lies below it: by its resolved path
    (symlinks in ``dest`` or ``folder`` followed; a part of ``dest`` not yet made read as
    written) or by the device and inode of ``dest``'s nearest existing folder and each above it
    (a bind mount or a second path to the same folder). An ``receipts export --to`` into the
    records store it reads would write the copy into the live store (fourth adversary, F14)."""
    real_dest, real_folder = os.path.realpath(dest), os.path.realpath(folder)
    if real_dest == real_folder or real_dest.startswith(real_folder.rstrip(os.sep) + os.sep):
        return True
    try:
        target = os.stat(folder)
    except OSError:
        return False  # no store folder: only the path can say
    here = real_dest
    while True:
        try:
            st = os.stat(here)
        except OSError:
            st = None
        if st is not None and (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            return True
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def _refusal(path: Path, exc: OSError, what: str) -> "Refused":
    """:class:`Refused` for an ``O_NOFOLLOW`` open that failed: ``what`` (a symlink) only when
    the OS says so (ELOOP; ENOTDIR for a folder), else the OS's own reason."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return Refused(f"{path} {what}")
    return Refused(f"{path}: {exc.strerror or exc}")


class Refused(Exception):
    """A file was not written: a symlink or non-folder on the way, a conflict, a failed check."""


@dataclass
class FolderWriter:
    """Writes files strictly inside ``dest`` (module docstring). Use as a context manager: it
    opens ``dest`` (creating it and its parents) and closes every descriptor at the end."""

    dest: Path
    _fds: dict[str, int] = field(default_factory=dict)

    def __enter__(self) -> "FolderWriter":
        """Raises :class:`Refused` when ``dest`` is no folder, OSError when it cannot be made."""
        make_folders(self.dest)
        try:
            self._fds[""] = os.open(self.dest, os.O_RDONLY | os.O_DIRECTORY)
        except NotADirectoryError:
            raise Refused(f"{self.dest} is not a folder") from None
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def folder(self, rel: str) -> int:
        """The descriptor of ``dest/rel`` (``a/b``), each part opened or created without
        following a symlink. Raises :class:`Refused`."""
        if rel in self._fds:
            return self._fds[rel]
        parent, _, name = rel.rpartition("/")
        pfd = self.folder(parent)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=pfd)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=pfd)
        except OSError as exc:
            raise _refusal(self.dest / rel, exc, "is a symlink or not a folder; not followed") from None
        self._fds[rel] = fd
        return fd

    def existing(self, rel: str, limit: int) -> bytes | None:
        """The bytes of the regular file ``dest/rel`` (at most ``limit + 1``), None when there is
        none. Raises :class:`Refused` for a symlink, a FIFO, a device or a folder there."""
        parent, _, name = rel.rpartition("/")
        pfd = self.folder(parent)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=pfd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _refusal(self.dest / rel, exc, "is a symlink; not followed") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Refused(f"{self.dest / rel} is not a regular file; not read")
            return _read_fd(fd, limit + 1)
        finally:
            os.close(fd)

    def create(self, rel: str, data: bytes, *, replace: bool = False) -> str:
        """Write ``data`` to ``dest/rel`` atomically; returns its sha256 (checked by reading the
        written file back). Without ``replace`` an existing name is never replaced (raises
        :class:`FileExistsError`); with it, only a regular file is. Raises :class:`Refused` (a
        symlink on the way or, with ``replace``, at the name itself)."""
        parent, _, name = rel.rpartition("/")
        pfd = self.folder(parent)
        if replace:
            # What is replaced must be a regular file: a symlink there (DIR/SHA256SUMS -> elsewhere)
            # is refused as every symlink below DIR is, never silently swapped for a file.
            try:
                st = os.lstat(name, dir_fd=pfd)
            except FileNotFoundError:
                pass
            else:
                if not stat.S_ISREG(st.st_mode):
                    raise Refused(f"{self.dest / rel} is a symlink or not a regular file; not replaced")
        digest = hashlib.sha256(data).hexdigest()
        tmp = f".tmp-{uuid.uuid4().hex}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=pfd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
                os.lseek(fd, 0, os.SEEK_SET)
                if hashlib.sha256(_read_fd(fd, len(data) + 1)).hexdigest() != digest:
                    raise Refused(f"{self.dest / rel}: the file written does not match the record's sha256; removed")
            finally:
                os.close(fd)
            if replace:
                os.replace(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
            else:
                os.link(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd, follow_symlinks=False)
            with contextlib.suppress(OSError):
                os.fsync(pfd)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=pfd)
        return digest

    def sums(self, folders: tuple[str, ...], limit: int) -> list[tuple[str, str]]:
        """``(sha256, rel)`` of every regular ``*.json`` file under ``dest/<folder>``, sorted by
        path; symlinks are neither followed nor listed (``os.fwalk`` from DIR's descriptor)."""
        out: list[tuple[str, str]] = []
        for top in folders:
            try:
                fd = self.folder(top)
            except Refused:
                continue
            for dirpath, _, files, dfd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
                for name in files:
                    rel = os.path.normpath(f"{top}/{dirpath}/{name}")
                    if not name.endswith(".json") or name.startswith(".tmp-"):
                        continue
                    try:
                        ffd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
                    except OSError:
                        continue  # a symlink: never listed
                    try:
                        if stat.S_ISREG(os.fstat(ffd).st_mode):
                            out.append((hashlib.sha256(_read_fd(ffd, limit + 1)).hexdigest(), rel))
                    finally:
                        os.close(ffd)
        return sorted(out, key=lambda pair: pair[1])


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in _chunks(fd):
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def _chunks(fd: int) -> Iterator[bytes]:
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return
        yield chunk


__all__ = ["FolderWriter", "Refused", "inside_folder", "key_problem"]
