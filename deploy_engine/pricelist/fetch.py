"""Opening Price List URLs as byte streams, with progress on long downloads.

A *source* is the root under which the AWS Price List Bulk API layout lives: AWS's public
endpoint ``https://pricing.us-east-1.amazonaws.com`` (the default), an ``http://`` mirror, or a
``file://`` folder holding the same ``offers/v1.0/aws/...`` tree. The paths the offer index and
region indexes give (``/offers/v1.0/aws/AmazonRDS/current/region_index.json``...) are appended to
the source as they are, so a mirror only has to copy the files at the same paths.

Nothing is read whole: :func:`open_stream` returns a binary file object that the offer readers
consume incrementally (bounded memory, catalog/README.md).
"""

from __future__ import annotations

import io
import os
import stat
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable, IO

#: AWS's public Price List Bulk API endpoint (docs: "Getting price list files using the AWS
#: Price List Bulk API"): no credentials, no signing.
DEFAULT_SOURCE = "https://pricing.us-east-1.amazonaws.com"

#: The offer index, relative to the source.
OFFER_INDEX_PATH = "/offers/v1.0/aws/index.json"

#: Progress is reported at most this often (seconds) while a file is read.
PROGRESS_EVERY_S = 2.0

Progress = Callable[[str], None]


class SourceError(Exception):
    """A URL could not be opened or read (HTTP status, connection refused, missing file); the
    message names the URL and the reason, never a response body."""


def check_source(source: str) -> str:
    """``source`` without a trailing ``/`` after checking its scheme (http, https or file).

    Raises ``ValueError`` with a sentence naming the accepted forms.
    """
    parsed = urllib.parse.urlsplit(source)
    if parsed.scheme not in ("http", "https", "file"):
        raise ValueError(f"--source {source!r}: expected an http://, https:// or file:// URL of a Price List mirror")
    if parsed.scheme in ("http", "https") and not parsed.netloc:
        raise ValueError(f"--source {source!r}: the URL has no host")
    return source.rstrip("/")


def join(source: str, path: str) -> str:
    """The URL of ``path`` (an absolute path as the indexes give it) under ``source``."""
    if not path.startswith("/"):
        path = "/" + path
    return source + path


def _file_path(url: str) -> Path:
    parsed = urllib.parse.urlsplit(url)
    return Path(urllib.parse.unquote(parsed.netloc + parsed.path) if parsed.netloc not in ("", "localhost") else urllib.parse.unquote(parsed.path))


class _Counting(io.RawIOBase):
    """A read-only raw stream that counts bytes and reports progress (bytes of total)."""

    def __init__(self, raw: IO[bytes], label: str, total: int | None, progress: Progress | None) -> None:
        self._raw = raw
        self._label = label
        self._total = total
        self._progress = progress
        self.count = 0
        self._last = time.monotonic()

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        data = self._raw.read(len(b))
        n = len(data)
        b[:n] = data
        self.count += n
        if self._progress is not None:
            now = time.monotonic()
            if now - self._last >= PROGRESS_EVERY_S:
                self._last = now
                self._progress(f"{self._label}: {_mb(self.count)}" + (f" of {_mb(self._total)}" if self._total else "") + " read")
        return n

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


def _mb(n: int | None) -> str:
    return f"{(n or 0) / 1_000_000:.1f} MB"


def open_stream(url: str, label: str, progress: Progress | None = None, timeout_s: float = 60.0) -> IO[bytes]:
    """Open ``url`` for streaming reads; ``label`` names it in progress lines.

    Returns a buffered binary file object (close it). Raises :class:`SourceError` for an HTTP
    error status, an unreachable host or a missing file.
    """
    scheme = urllib.parse.urlsplit(url).scheme
    try:
        if scheme == "file":
            path = _file_path(url)
            # Regular files only, opened O_NONBLOCK and checked again on the descriptor: a FIFO
            # would block the refresh forever, /dev/zero never end (docs/cli.md, "catalog refresh").
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise SourceError(f"{url}: not a regular file (a FIFO, socket, device or folder); never read")
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise SourceError(f"{url}: not a regular file (a FIFO, socket, device or folder); never read")
            raw: IO[bytes] = os.fdopen(fd, "rb")
            total: int | None = path.stat().st_size
        else:
            request = urllib.request.Request(url, headers={"User-Agent": "runway-deploy catalog refresh"})
            raw = urllib.request.urlopen(request, timeout=timeout_s)  # noqa: S310 - the scheme is checked
            length = raw.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
    except urllib.error.HTTPError as exc:
        raise SourceError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise SourceError(f"{url}: {exc.reason}") from None
    except OSError as exc:
        raise SourceError(f"{url}: {exc.strerror or exc}") from None
    return io.BufferedReader(_Counting(raw, label, total, progress), buffer_size=1 << 20)
