"""Where a command's ``--format`` output goes: standard output, or with ``--output FILE`` that
file (written once, UTF-8, when the command has rendered it) while the text output goes to
standard output (docs/cli.md, "In CI"). Both pass through redaction.

FILE (and ``$GITHUB_STEP_SUMMARY``, :func:`open_regular_for_writing`) is a regular file (or
does not exist yet), a character device (``/dev/null``, ``/dev/stdout`` on a terminal) or a FIFO
that a reader holds open (``--output /dev/stdout | jq``): it is opened ``O_NONBLOCK``, so a FIFO
with no reader is refused (exit 3, ENXIO) instead of blocking the run forever; a socket or a
folder is refused (exit 3). A
FILE that is one of the files the command read (the runway itself, a member, a plan JSON side,
a catalogue file) is refused too (exit 3), the file untouched: ``check DIR --output
DIR/runway.yaml`` would otherwise replace the user's runway with its diagnostics. A regular
FILE, or a symlink to one, is written as a temporary file beside it renamed over the name:
the link itself replaced, its target never written (issue 23). When the folder refuses that
(a folder this user may not write; a sticky folder and a file of another user, whose rename
the kernel refuses: ninth adversary C3), a writable regular FILE is written in place once the
report is complete (:func:`write_in_place`: not atomic, the old content kept on failure), except
a file of a third user in a sticky folder (:func:`_in_place_refusal`). The same rule keeps
``usage init --output`` off the runways and catalogue files it read, and
``$GITHUB_STEP_SUMMARY`` off every input of the run (:func:`same_input`, round 5)."""

from __future__ import annotations

import argparse
import errno
import io
import os
import re
import stat
from typing import IO, Iterable

from deploy_engine.context import FALLBACK_ERRORS, Context, Redacting
from deploy_engine.exits import InputError
from deploy_engine.folders import make_folders

#: Open flags of a report written: never blocks on a FIFO (ENXIO without a reader), never
#: inherited by a child.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


#: A link to one of this process's file descriptors: ``/proc/self/fd/N`` (what ``/dev/stdout``
#: names on Linux), ``/proc/thread-self/fd/N``, ``/proc/<this pid>/fd/N``, ``/dev/fd/N``.
_FD_PATH = re.compile(r"^/(?:proc/(?:self|thread-self|(?P<pid>\d+))/fd|dev/fd)/(?P<fd>\d+)$")


def own_descriptor(path: str) -> int | None:
    """The file descriptor of this process that ``path`` names through a chain of symlinks
    (``/dev/stdout`` -> ``/proc/self/fd/1``; a private link to it; ``/dev/fd/1``), or None.
    Such a path is written through the descriptor: never replaced (under ``> file`` the link's
    target is a regular file, and replacing the "link" replaced the machine's ``/dev/stdout``
    with a file: fourth adversary, round 5) and never reopened (``O_TRUNC`` would cut what the
    shell's redirection already holds)."""
    p = os.path.abspath(path)
    for _hop in range(40):  # the kernel's own bound on a symlink chain (MAXSYMLINKS)
        m = _FD_PATH.fullmatch(p)
        if m is not None and (m.group("pid") is None or int(m.group("pid")) == os.getpid()):
            return int(m.group("fd"))
        try:
            target = os.readlink(p)
        except OSError:
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), target))
    return None


def _through_descriptor(fd: int, path: str, label: str) -> IO[str]:
    """A text stream writing at the current offset of this process's descriptor ``fd`` (a
    duplicate: closing it leaves ``fd`` open). Raises InputError (exit 3) when ``fd`` is not
    open, not open for writing (``/dev/stdin`` from ``< file``), or a socket or folder."""
    def refuse(why: str) -> InputError:
        return InputError(f"{label} {path} is {why}; not written")

    try:
        dup = os.dup(fd)
    except OSError:
        raise refuse(f"file descriptor {fd}, which this process does not have open") from None
    try:
        try:
            import fcntl  # POSIX; where there is none, the write below says what is wrong
            read_only = fcntl.fcntl(dup, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except ImportError:
            read_only = False
        if read_only:
            raise refuse(f"file descriptor {fd}, open for reading only")
        if not _writable_kind(os.fstat(dup).st_mode):
            raise refuse("not a regular file, character device or FIFO (a socket or a folder)")
        return io.open(dup, "w", encoding="utf-8", errors=FALLBACK_ERRORS, newline="\n", closefd=True)
    except BaseException:
        os.close(dup)
        raise


def open_regular_for_writing(path: str, *, append: bool, label: str) -> IO[str]:
    """``path`` opened for writing text (UTF-8, ``\\n`` newlines): appended to, or truncated
    (a regular file). A character device or a FIFO with a reader is written as it is (the open
    is non-blocking: a FIFO with no reader fails at once with ENXIO, then its writes block as a
    pipe's do, as ``tee``'s). Raises InputError (exit 3) when ``path`` is a socket or a folder,
    a FIFO no process reads, or (appending) a symbolic link to nothing; OSError when it cannot be opened. ``label`` names it in the
    message."""
    def refuse(why: str) -> InputError:
        return InputError(f"{label} {path} is {why}; not written")

    fd = own_descriptor(path)
    if fd is not None:
        return _through_descriptor(fd, path, label)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if not append and _replaced(path, mode):
        try:
            return _replacing(path, mode)
        except OSError as exc:
            if mode is None or os.path.islink(path) or exc.errno not in (errno.EACCES, errno.EPERM):
                raise
            # A writable file in a folder that is not: written in place when closed (never
            # truncated before the report is complete). Only then: a temporary file refused
            # for another reason (ENOSPC, no inode left) is the error.
            fh = _InPlaceOnClose(newline="\n")
            fh._target = path
            return fh
    if mode is not None and not _writable_kind(mode):
        raise refuse("not a regular file, character device or FIFO (a socket or a folder)")
    if append and mode is None and os.path.islink(path):
        # Appending through a link to nothing would create its target, wherever it points
        # (``GITHUB_STEP_SUMMARY`` -> a missing file elsewhere). A truncating write replaces
        # the link itself instead (_replaced); an append has nothing to add to.
        raise refuse("a symbolic link to nothing (its target does not exist)")
    try:
        fd = os.open(path, _WRITE_FLAGS | (os.O_APPEND if append else 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader: opening it blocking would hang
            raise refuse("a FIFO that no process reads") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not _writable_kind(mode):
            raise refuse("not a regular file, character device or FIFO (a socket or a folder)")
        if stat.S_ISREG(mode):
            if not append:
                os.ftruncate(fd, 0)
        else:  # a pipe or a device: ordinary (blocking) writes from here on
            os.set_blocking(fd, True)
        return io.open(fd, "w", encoding="utf-8", errors=FALLBACK_ERRORS, newline="\n", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def _replaced(path: str, mode: int | None) -> bool:
    """Whether a truncating write of ``path`` goes to a new file renamed over it: when it is a
    symlink to a regular file (or to nothing), so the link itself is replaced and its target
    (maybe outside the folder asked for: issue 23) never written; and when it is a regular
    file or absent, so a reader never sees half a report. A symlink to a character device or
    a FIFO (``/dev/stdout`` -> ``/proc/self/fd/1``) is written through, as ``tee`` does."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False  # the open reports it
    return mode is None or stat.S_ISREG(mode)


class _ReplaceOnClose(io.TextIOWrapper):
    """A temporary file beside ``target``, renamed over it (``os.replace``: the name, a
    symlink included, now names the new file) when closed without an exception, and only
    once every byte is written and on disk (flushed, ``fsync``); removed when the ``with``
    block raised or any write, the flush or the fsync failed (``ENOSPC``: the OSError is
    raised, ``target`` untouched). Wraps a buffered writer, which writes again after a short
    write and raises on an error: a raw ``FileIO`` returns a short count that
    ``TextIOWrapper`` ignores, and a nearly full disk renamed a report cut at 4 KiB over the
    user's file, exit 0 (sixth adversary F8)."""

    _tmp: str
    _target: str

    def __exit__(self, kind, value, tb):  # type: ignore[no-untyped-def]
        if kind is None:
            self.close()
        else:
            self._discard()
        return False

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.flush()
            os.fsync(self.fileno())
            super().close()
            try:
                os.replace(self._tmp, self._target)
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EACCES):
                    raise
                # The rename is refused although the temporary file could be made beside the
                # target: a sticky folder (/tmp-like) and a file of another user, which this
                # user may still write (ninth adversary C3). Written in place, or refused
                # saying why (_in_place_refusal); the target untouched until then.
                _in_place_refusal(self._target, exc)
                with open(self._tmp, "rb") as fh:
                    data = fh.read()
                write_in_place(self._target, data)
                _unlink(self._tmp)
        except BaseException:
            self._discard()
            raise

    def _discard(self) -> None:
        """Close without writing what is left (a failed flush is retried by close: dropped
        here, the file is removed anyway) and remove the temporary file."""
        try:
            super().close()
        except OSError:
            pass
        finally:
            _unlink(self._tmp)


class _InPlaceOnClose(io.StringIO):
    """The report held in memory and written over ``target`` in place when closed without an
    exception (:func:`write_in_place`); nothing written when the ``with`` block raised."""

    _target: str

    def __exit__(self, kind, value, tb):  # type: ignore[no-untyped-def]
        if kind is None:
            self.close()
        else:
            super().close()
        return False

    def close(self) -> None:
        if self.closed:
            return
        data = self.getvalue().encode("utf-8", FALLBACK_ERRORS)
        super().close()
        write_in_place(self._target, data)


def _in_place_refusal(path: str, exc: OSError) -> None:
    """Raise ``exc``, or an OSError naming the cause, when ``path`` may not be written in place
    after its replacement was refused: it is no regular file (a symlink is replaced, never
    written through), or it lies in a sticky folder and belongs to another user than this one
    and the folder's owner. The last is the kernel's own rule for opening such a file
    (``fs.protected_regular``): a file another user made in a shared ``/tmp`` is theirs to
    read and change after the run, so a report is never written into it (CWE-377); a file
    of the folder's owner (a CI runner's pre-made report) is written."""
    try:
        st = os.lstat(path)
        folder = os.stat(os.path.dirname(os.path.abspath(path)))
    except OSError:
        raise exc from None
    if folder.st_mode & stat.S_ISVTX and st.st_uid not in (os.geteuid(), folder.st_uid):
        shown = os.path.dirname(path) or "."
        what = "" if stat.S_ISREG(st.st_mode) else " (a symbolic link)" if stat.S_ISLNK(st.st_mode) else " (not a regular file)"
        raise OSError(exc.errno, f"the folder {shown} is sticky and {os.path.basename(path)}{what} belongs to another user (uid {st.st_uid}): "
                      "the replacement cannot be renamed over it, and a file another user owns there is never written into; "
                      "remove it or name another file", path) from None
    if not stat.S_ISREG(st.st_mode):
        raise exc


def write_in_place(path: str, data: bytes) -> None:
    """Write ``data`` over the existing regular file ``path`` in place: opened without
    following a symlink, never created, the file kept (owner, mode, inode: hard links see the
    new content). Not atomic: a reader meanwhile, or a run killed in the middle, sees part
    of it. The old content is kept when it fails: the space the new content needs is reserved
    first (``posix_fallocate``: a full disk or quota is refused before any byte changes), and
    when a write fails after that (EIO) the old bytes are written back when the file could
    be read. Raises OSError (ELOOP a symlink, ENOENT gone, EACCES not writable, ENOSPC, ...)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        readable = True
    except PermissionError:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        readable = False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        old = _read_all(fd, st.st_size) if readable else None
        if len(data) > st.st_size and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    _restore_size(fd, st.st_size)
                    raise
        try:
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except BaseException:
            if old is not None:
                try:
                    _write_all(fd, old)
                    os.ftruncate(fd, len(old))
                    os.fsync(fd)
                except OSError:
                    pass
            raise
    finally:
        os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    chunks, pos = [], 0
    while True:
        chunk = os.pread(fd, max(size - pos, 1 << 16), pos)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        pos += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view, pos = memoryview(data), 0
    while pos < len(data):
        pos += os.pwrite(fd, view[pos:], pos)


def _restore_size(fd: int, size: int) -> None:
    try:
        if os.fstat(fd).st_size > size:
            os.ftruncate(fd, size)
    except OSError:
        pass


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _replacing(path: str, mode: int | None) -> IO[str]:
    """``path`` written through :class:`_ReplaceOnClose`; a regular file's permission bits
    kept (a new one: 0666 less the umask)."""
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    for n in range(100):
        tmp = os.path.join(folder, f".{base}.{os.getpid()}.{n}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", path)
    try:
        if mode is not None and stat.S_ISREG(mode) and not os.path.islink(path):
            os.fchmod(fd, stat.S_IMODE(mode))
        fh = _ReplaceOnClose(io.BufferedWriter(io.FileIO(fd, "w", closefd=True)), encoding="utf-8", errors=FALLBACK_ERRORS, newline="\n")
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    fh._tmp = tmp
    fh._target = path
    return fh


def _writable_kind(mode: int) -> bool:
    """A regular file, a character device or a FIFO: what a report can be written to."""
    return stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


#: How :func:`same_input` names standard input among the inputs (``-``: a runway or plan read
#: from it, :func:`deploy_engine.cli.inputs.files_read`).
STDIN_INPUT = "-"


def same_input(path: str, inputs: Iterable[str]) -> str | None:
    """The first of ``inputs`` that is the file ``path`` names (same device and inode: a
    symlink or a hard link counts; ``-`` is standard input's file, so ``/dev/stdin`` or
    ``/proc/self/fd/0`` is the runway read from it), or None (also when ``path`` does not exist
    yet)."""
    try:
        target = os.stat(path)
    except OSError:
        return None
    for name in inputs:
        try:
            st = os.fstat(0) if name == STDIN_INPUT else os.stat(name)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            return name
    return None


class Output:
    """``formatted``: the stream of the ``--format`` output; ``text``: the stream of the text
    output when ``--output`` is given (else None: the format goes to stdout alone)."""

    def __init__(self, args: argparse.Namespace, ctx: Context) -> None:
        self.path: str | None = getattr(args, "output", None)
        if self.path:
            refuse_step_summary_as_output(self.path, ctx.environ.get("GITHUB_STEP_SUMMARY"))
        self._buffer = io.StringIO()
        self.formatted: IO[str] = Redacting(self._buffer) if self.path else ctx.stdout  # type: ignore[assignment]
        self.text: IO[str] | None = ctx.stdout if self.path else None

    def close(self, inputs: Iterable[str] = ()) -> None:
        """Write FILE (nothing without ``--output``). InputError (exit 3), FILE untouched, when
        it is one of ``inputs`` (the files the command read) or no regular file; InputError
        when it cannot be written."""
        if not self.path:
            return
        refuse_input_as_output(self.path, inputs)
        if self.text is not None:
            # Written through a descriptor (`--output /dev/stdout > file`), the report follows
            # the text output already printed, never lands before it.
            self.text.flush()
        try:
            folder = os.path.dirname(os.path.abspath(self.path))
            make_folders(folder)
            with open_regular_for_writing(self.path, append=False, label="--output") as fh:
                fh.write(self._buffer.getvalue())
        except OSError as exc:
            raise InputError(f"cannot write {self.path}: {exc.strerror or exc}") from None


def refuse_step_summary_as_output(path: str, summary: str | None) -> None:
    """InputError (exit 3), raised when the command starts so nothing is written, when
    ``--output`` names the job's summary file (``$GITHUB_STEP_SUMMARY``: the same name, a link
    to it, or a hard link): the report would be written there and the command's summary
    section appended after it, so neither the SARIF/JSON nor the summary would be what it
    says (sixth adversary F6)."""
    if not summary:
        return
    if os.path.realpath(path) == os.path.realpath(summary) or same_input(path, [summary]) is not None:
        raise InputError(f"--output {path} is the job's step summary file (GITHUB_STEP_SUMMARY); not written "
                         "(name another FILE: the summary is appended to by the command itself)")


def refuse_input_as_output(path: str, inputs: Iterable[str], label: str = "--output") -> None:
    """InputError (exit 3) when ``path`` is one of the files in ``inputs`` (module docstring);
    ``label`` names where ``path`` came from in the message."""
    same = same_input(path, inputs)
    if same is not None:
        raise InputError(f"{label} {path} is a file this command read{shown_input(same, path)}; not overwritten (name another FILE)")


def shown_input(same: str, path: str) -> str:
    """`` (<the input>)`` for a message saying ``path`` is an input, or ``""`` when it is the
    same name; standard input as such."""
    if same == STDIN_INPUT:
        return " (standard input)"
    return "" if os.path.abspath(same) == os.path.abspath(path) else f" ({same})"


def refuse_runway_as_output(path: str, label: str = "--output") -> None:
    """InputError (exit 3) when ``path`` is an existing runway file (named ``runway.yaml`` or
    ``runway.yml``, :data:`runway_core.workspace.ROOT_NAMES`, or a link to one): for a command
    that reads no runway (``schema``), the one input :func:`refuse_input_as_output` cannot know."""
    from runway_core.workspace import ROOT_NAMES

    if not os.path.lexists(path):
        return
    if os.path.basename(path) in ROOT_NAMES or os.path.basename(os.path.realpath(path)) in ROOT_NAMES:
        raise InputError(f"{label} {path} is a runway file; not overwritten (name another FILE, e.g. runway.schema.json)")


__all__ = ["STDIN_INPUT", "Output", "open_regular_for_writing", "own_descriptor", "refuse_input_as_output", "refuse_runway_as_output",
           "refuse_step_summary_as_output",
           "same_input", "shown_input", "write_in_place"]
