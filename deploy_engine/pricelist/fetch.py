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

import base64

import gzip
import http.client
import io
import os
import posixpath
import socket
import stat
import string
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path
from typing import IO, Any, Callable

#: AWS's public Price List Bulk API endpoint (docs: "Getting price list files using the AWS
#: Price List Bulk API"): no credentials, no signing.
DEFAULT_SOURCE = "https://pricing.us-east-1.amazonaws.com"

#: The offer index, relative to the source.
OFFER_INDEX_PATH = "/offers/v1.0/aws/index.json"

#: Progress is reported at most this often (seconds) while a file is read.
PROGRESS_EVERY_S = 2.0

#: The total deadline of one download (seconds, ``--timeout``), from the request to the last
#: byte: a mirror that sends one byte a second restarted a per-read timeout with every byte and
#: kept a refresh running forever (issue 23, item 4). Ten minutes for one file is generous for
#: the offer files a refresh reads (AWS's largest, AmazonEC2 in eu-west-1 at 441 MB, is not
#: among them); ``--timeout`` sets it for a slow link.
DEADLINE_S = 600.0

#: The largest file one download may bring (bytes): AWS's largest offer file, AmazonEC2 in
#: eu-west-1, is 441 MB, and a refresh reads none of EC2's. A larger ``Content-Length`` is
#: refused before reading; a body that grows past it is refused when it does.
MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3

#: The most redirects one download follows, each inside the mirror (:func:`outside`); urllib's
#: own ``HTTPRedirectHandler`` allows 10 (``max_redirections``).
MAX_REDIRECTS = 5

Progress = Callable[[str], None]


class SourceError(Exception):
    """A URL could not be opened or read (HTTP status, connection refused, missing file, past
    its deadline or size limit, fewer bytes than its ``Content-Length``, a path that leaves the
    mirror); the message names the URL and the reason, never a response body."""


def check_source(source: str) -> str:
    """``source`` without a trailing ``/`` after checking its scheme (http, https or file).

    Raises ``ValueError`` with a sentence naming the accepted forms.
    """
    parsed = urllib.parse.urlsplit(source)
    if parsed.scheme not in ("http", "https", "file"):
        raise ValueError(f"--source {source!r}: expected an http://, https:// or file:// URL of a Price List mirror")
    if parsed.scheme in ("http", "https") and not parsed.netloc:
        raise ValueError(f"--source {source!r}: the URL has no host")
    # Index paths are appended to the mirror's path, so a query or fragment in it would swallow
    # them, and a NUL names no file (fifth adversary F-E: these were blamed on the index's path).
    # A backslash is a legal Linux folder name in a file:// mirror and read as one; over http(s)
    # WHATWG URL parsers read it as ``/`` and urllib does not, so which folder is meant is unclear.
    if parsed.query or parsed.fragment or "?" in source or "#" in source or "\x00" in urllib.parse.unquote(source):
        raise ValueError(f"--source {source!r}: a mirror URL has no query, fragment or NUL (index paths are appended to its path)")
    if parsed.scheme in ("http", "https") and "\\" in urllib.parse.unquote(source):
        raise ValueError(f"--source {source!r}: a backslash in an http(s) mirror URL is read as '/' by some parsers and not by "
                         "others; write the path with '/'")
    return source.rstrip("/")


def join(source: str, path: str) -> str:
    """The URL of ``path`` (an absolute path as the indexes give it) under ``source``.

    The path comes from a document the mirror serves, so it is confined to the mirror: a
    ``..`` segment (also percent-encoded, ``%2e%2e``), a backslash, a NUL, a query or fragment
    is refused with :class:`SourceError` (a ``file://`` mirror's ``currentVersionUrl`` of
    ``/../../etc/passwd`` opened files outside it; an http mirror under a prefix would be asked
    for another prefix's files); the URL made must pass :func:`outside` (the rule a redirect
    target is held to); in a ``file://`` mirror, so must the path a symbolic link leads to."""
    decoded = urllib.parse.unquote(path)
    segments = decoded.replace("\\", "/").split("/")
    if ".." in segments or "\\" in decoded or "\x00" in decoded or "?" in path or "#" in path:
        raise SourceError(f"{public(source)}: an index names the path {path[:200]!r}, which leaves the mirror; refused")
    if not path.startswith("/"):
        path = "/" + path
    url = source + posixpath.normpath(path).replace("//", "/")
    why = outside(source, url)
    if why is not None:
        raise SourceError(f"{public(source)}: an index names the path {path[:200]!r}, which leaves the mirror ({why}); refused")
    if urllib.parse.urlsplit(source).scheme == "file":
        # A symbolic link inside a file:// mirror is followed only while it stays inside.
        root, target = os.path.realpath(_file_path(source)), os.path.realpath(_file_path(url))
        if os.path.commonpath([root, target]) != root:
            raise SourceError(f"{public(source)}: the path {path[:200]!r} leads out of the mirror through a symbolic link; refused")
    return url


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 "Remove Dot Segments", step by step: ``/a/b/../../../x`` -> ``/x``,
    ``/a/./b/..`` -> ``/a/``. (``posixpath.normpath`` is not it: it also folds ``//`` and keeps
    a leading ``//``.)"""
    out: list[str] = []
    rest = path
    while rest:
        if rest.startswith("../"):
            rest = rest[3:]
        elif rest.startswith("./"):
            rest = rest[2:]
        elif rest.startswith("/./"):
            rest = rest[2:]
        elif rest == "/.":
            rest = "/"
        elif rest.startswith("/../") or rest == "/..":
            rest = "/" + rest[4:]
            if out:
                out.pop()
        elif rest in (".", ".."):
            rest = ""
        else:
            cut = rest.find("/", 1)
            cut = len(rest) if cut < 0 else cut
            out.append(rest[:cut])
            rest = rest[cut:]
    return "".join(out)


_DEFAULT_PORT = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, str, int | None] | None:
    """``(scheme, user info, host, port)`` of ``url``, lower-cased, the scheme's default port
    filled in (``http://h`` is ``http://h:80``), ``file://localhost`` as ``file://``; None for a
    port that is not a number."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    userinfo = parts.netloc.rpartition("@")[0]
    host = (parts.hostname or "").lower()
    if scheme == "file" and host == "localhost":
        host = ""
    return scheme, userinfo, host, port if port is not None else _DEFAULT_PORT.get(scheme)


def outside(root: str, url: str) -> str | None:
    """Why ``url`` is not inside the mirror ``root``, or None when it is: the mirror's scheme,
    host and port (its user info too), and a path under the mirror's base path once
    percent-decoded and its dot segments removed (RFC 3986 §5.2.4, :func:`remove_dot_segments`):
    ``http://m/prices`` holds ``http://m/prices/offers/...`` and ``http://m:80/prices/a/../b``,
    not ``http://m/prices/../x``, ``http://m/prices%2F..%2Fx``, ``http://m/pricesX``,
    ``http://m:81/prices/...``, ``https://m/prices/...`` nor ``ftp://...``. A backslash, NUL,
    query or fragment is refused too, as in an index's paths (:func:`join`). Decoding before
    resolving is the cautious order: a server that decodes ``%2e%2e`` or ``%2f`` must stay
    inside as well as one that does not."""
    want, got = _origin(root), _origin(url)
    if got is None:
        return "a port that is not a number"
    assert want is not None, root  # check_source made it
    if got[0] != want[0]:
        return f"another scheme, {got[0] or 'none'}:// for {want[0]}://"
    if got[2:] != want[2:]:
        shown = lambda o: f"{o[2]}:{o[3]}" if o[3] is not None else (o[2] or "(local)")  # noqa: E731
        return f"another host or port, {shown(got)} for {shown(want)}"
    if got[1] != want[1]:
        return "other user info"  # never quoted: it may be a credential
    parts = urllib.parse.urlsplit(url)
    after = url.split("//", 1)[1][len(parts.netloc):] if "//" in url else parts.path
    decoded = urllib.parse.unquote(parts.path)
    # A backslash the file:// mirror's own folder name holds is that folder's (check_source);
    # one past it came from an index or a redirect.
    own = urllib.parse.unquote(urllib.parse.urlsplit(root).path)
    beyond = decoded[len(own):] if decoded.startswith(own) else decoded
    if "?" in after or "#" in after or "\\" in beyond or "\x00" in decoded:
        return "a query, fragment, backslash or NUL"
    base = remove_dot_segments(own).rstrip("/")
    path = remove_dot_segments(decoded) or "/"
    if not (path == base or path.startswith(base + "/")):
        return f"a path outside {base or '/'} once its dot segments and percent-escapes are resolved"
    return None


def _without_userinfo(url: str) -> str:
    """``url`` without the ``user:password@`` of its authority."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))


def public(url: str) -> str:
    """``url`` as a message may show it: without user info (a credential), query or fragment (a
    signed URL's signature), cut to 300 characters."""
    try:
        parts = urllib.parse.urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        shown = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        if parts.query or parts.fragment or "?" in url or "#" in url:
            shown += "?..."
    except ValueError:
        shown = "(an unparsable URL)"
    return shown if len(shown) <= 300 else shown[:300] + "..."


def _file_path(url: str) -> Path:
    parsed = urllib.parse.urlsplit(url)
    return Path(urllib.parse.unquote(parsed.netloc + parsed.path) if parsed.netloc not in ("", "localhost") else urllib.parse.unquote(parsed.path))


class _Counting(io.RawIOBase):
    """A read-only raw stream that counts bytes, reports progress (bytes of total) and holds
    the download to its bounds: past the deadline of ``watch`` (:class:`_Watchdog`), past
    :data:`MAX_DOWNLOAD_BYTES`, or ending before ``total`` (its ``Content-Length``) bytes, a
    read raises :class:`SourceError`."""

    def __init__(self, raw: IO[bytes], label: str, total: int | None, progress: Progress | None,
                 url: str, watch: _Watchdog) -> None:
        self._raw = raw
        self._label = label
        self._total = total
        self._progress = progress
        self._url = url
        self._watch = watch
        self.count = 0
        self._last = time.monotonic()

    def readable(self) -> bool:
        return True

    def _check_deadline(self) -> None:
        if self._watch.expired():
            raise SourceError(f"{self._url}: not read within its {self._watch.timeout_s:g} s deadline "
                              f"({_mb(self.count)} arrived); refused")

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        self._check_deadline()
        # read1: at most one read of the socket, so the deadline is checked between reads
        # too (a plain read(n) loops until n bytes have come).
        read1 = getattr(self._raw, "read1", None)
        try:
            data = read1(len(b)) if read1 is not None else self._raw.read(len(b))
        except (OSError, http.client.HTTPException) as exc:
            self._check_deadline()  # the watchdog shut the socket: that is the reason
            raise SourceError(f"{self._url}: {getattr(exc, 'strerror', None) or type(exc).__name__} while reading") from None
        if not data:
            self._check_deadline()
        n = len(data)
        if n == 0 and self._total is not None and self.count != self._total:
            raise SourceError(f"{self._url}: {self.count:,} of the {self._total:,} bytes its Content-Length announced arrived: truncated; refused")
        if self._total is not None and self.count + n > self._total:
            raise SourceError(f"{self._url}: more bytes than the {self._total:,} its Content-Length announced; refused")
        if self.count + n > MAX_DOWNLOAD_BYTES:
            raise SourceError(f"{self._url}: over the {MAX_DOWNLOAD_BYTES:,}-byte limit of a download; refused")
        b[:n] = data
        self.count += n
        if self._progress is not None:
            now = time.monotonic()
            if now - self._last >= PROGRESS_EVERY_S:
                self._last = now
                self._progress(f"{self._label}: {_mb(self.count)}" + (f" of {_mb(self._total)}" if self._total else "") + " read")
        return n

    def close(self) -> None:
        self._watch.cancel()
        try:
            self._raw.close()
        finally:
            super().close()


def _mb(n: int | None) -> str:
    return f"{(n or 0) / 1_000_000:.1f} MB"


class _Watchdog:
    """The total deadline of one download: at ``timeout_s`` after the request, the socket of
    its connection is shut down (from a timer thread), so a read blocked on a silent or
    dripping server returns at once, in the headers as in the body. The connection's socket
    is recorded when it is made (:meth:`opener`: ``http.client`` connection classes whose
    ``connect`` reports ``self.sock``; a redirect's new connection replaces it)."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.at = time.monotonic() + timeout_s
        self.sock: Any = None
        self.fired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(timeout_s, self._fire)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()

    def expired(self) -> bool:
        return self.fired or time.monotonic() >= self.at

    def _shut(self, sock: Any) -> None:
        try:
            # socket.socket's own shutdown, not ssl.SSLSocket's (which also drops its SSL
            # object under the reading thread): the read sees the end of the stream.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sock = self.sock
        if sock is not None:
            self._shut(sock)

    def connected(self, sock: Any) -> None:
        with self._lock:
            self.sock = sock
            fired = self.fired
        if fired:
            self._shut(sock)

    def opener(self, root: str) -> urllib.request.OpenerDirector:
        """An opener whose connections report their socket here and whose redirects stay
        inside the mirror ``root`` (:class:`_ConfinedRedirects`)."""
        watch = self

        class HTTP(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                watch.connected(self.sock)

        class HTTPS(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                watch.connected(self.sock)

        class HTTPHandler(urllib.request.HTTPHandler):
            def http_open(self, req):  # noqa: ANN001 - urllib's signature
                return self.do_open(HTTP, req)

        class HTTPSHandler(urllib.request.HTTPSHandler):
            def https_open(self, req):  # noqa: ANN001 - urllib's signature
                return self.do_open(HTTPS, req, context=getattr(self, "_context", None))  # urllib keeps its context there

        return urllib.request.build_opener(HTTPHandler, HTTPSHandler, _ConfinedRedirects(root))


class _ConfinedRedirects(urllib.request.HTTPRedirectHandler):
    """urllib's redirect handler, held to the mirror (issue 23, F08). CPython 3.11's
    ``HTTPRedirectHandler.http_error_302`` (``Lib/urllib/request.py``) follows a ``Location``
    of any host, and of the schemes ``http``, ``https``, ``ftp`` and none (a ``file:`` one is
    refused with an ``HTTPError`` whose reason quotes the whole URL, credential included); it
    reads the redirect's body whole (``fp.read()``) before following; it stops only after 10
    redirects (``max_redirections``). Here the target, made as urllib makes it (the first
    ``Location`` or ``URI`` header, an empty path as ``/``, non-ASCII bytes and specials
    percent-encoded from ISO-8859-1, joined to the request's URL), must pass :func:`outside`
    against the mirror, the body is closed unread, and the :data:`MAX_REDIRECTS` + 1st
    redirect is refused: each a :class:`SourceError` naming the target without its user info
    or query (:func:`public`)."""

    max_redirections = MAX_REDIRECTS

    def __init__(self, root: str) -> None:
        self.root = root

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: ANN001, ANN201 - urllib's signature
        location = headers.get("location") or headers.get("uri")
        if location is None:
            return None  # urllib's too: the 3xx is then an HTTPError ("HTTP 302 Found")
        parts = urllib.parse.urlparse(location)
        if not parts.path and parts.netloc:
            parts = parts._replace(path="/")
        target = urllib.parse.urljoin(req.full_url, urllib.parse.quote(
            urllib.parse.urlunparse(parts), encoding="iso-8859-1", safe=string.punctuation))
        fp.close()
        why = outside(self.root, target)
        if why is not None:
            raise SourceError(f"{public(req.full_url)}: the mirror answers {code} with a Location that leaves the mirror "
                              f"{public(self.root)} ({why}: {public(target)}); not followed, refused")
        hops = getattr(req, "runway_redirects", 0) + 1
        if hops > MAX_REDIRECTS:
            raise SourceError(f"{public(req.full_url)}: more than {MAX_REDIRECTS} redirects (the last to {public(target)}); refused")
        new = self.redirect_request(req, fp, code, msg, headers, target)
        if new is None:
            return None
        new.runway_redirects = hops
        return self.parent.open(new, timeout=req.timeout)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _content_length(values: list[str], url: str, raw: IO[bytes]) -> int | None:
    """The one length the ``Content-Length`` header fields of a response give, or None without
    one. RFC 9110 §8.6: the value is ``1*DIGIT``; a list of one repeated value may be taken as
    that value; RFC 9112 §6.3 (item 5): differing values, or one that is not a number
    (``-1``), are an unrecoverable framing error. CPython 3.11's ``http.client`` reads only
    the first field and takes ``-1`` as "until close", so the check is ours. Raises
    :class:`SourceError` (``raw`` closed), quoting at most 24 characters of a value."""
    given = [v.strip() for field in values for v in field.split(",")]
    if not given:
        return None
    bad = next((v for v in given if not (v.isascii() and v.isdigit() and len(v) <= 19)), None)
    if bad is not None or len(set(map(int, given))) > 1:
        raw.close()
        what = f"Content-Length {bad[:24]!r} is not a number of bytes" if bad is not None else \
            f"{len(given)} differing Content-Length values"
        raise SourceError(f"{url}: {what} (RFC 9112 §6.3: the body cannot be framed); refused")
    return int(given[0])


def open_stream(url: str, label: str, progress: Progress | None = None, timeout_s: float = DEADLINE_S,
                root: str | None = None) -> IO[bytes]:
    """Open ``url`` for streaming reads; ``label`` names it in progress lines; ``timeout_s``:
    the total deadline of the download, from the request to the last byte (seconds);
    ``root``: the mirror (``--source``) that ``url`` and every redirect must stay inside
    (:func:`outside`; default: the scheme, host and port of ``url``).

    Returns a buffered binary file object (close it). Raises :class:`SourceError` for a URL or
    redirect that leaves the mirror, more than :data:`MAX_REDIRECTS` redirects, an HTTP error
    status, an unreachable host or a missing file, and, while reading, past the deadline or
    :data:`MAX_DOWNLOAD_BYTES`, or for a body shorter than its ``Content-Length``.
    """
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme
    if root is None:
        root = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    why = outside(root, url)
    headers = {"User-Agent": "runway-deploy catalog refresh"}
    if why is None and scheme in ("http", "https") and "@" in parts.netloc:
        # A mirror behind HTTP Basic authentication (`https://user:token@artifactory/...`, as
        # pip and curl read one): urllib would take `user:token@host` for the host name. The
        # user info becomes the Authorization header (RFC 7617; percent-decoded, RFC 3986
        # §3.2.1) and leaves both URLs, so a redirect, which never carries it, is compared
        # with the mirror without it (still confined to the mirror: its host and path).
        user, _, password = parts.netloc.rpartition("@")[0].partition(":")
        token = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode("utf-8")
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
        url, root = _without_userinfo(url), _without_userinfo(root)
    if why is not None:
        raise SourceError(f"{public(url)} leaves the mirror {public(root)} ({why}); refused")
    watch = _Watchdog(timeout_s)
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
            request = urllib.request.Request(url, headers=headers)
            watch.start()
            try:
                raw = watch.opener(root).open(request, timeout=timeout_s)
            except BaseException:
                watch.cancel()
                raise
            try:
                total = _content_length(raw.headers.get_all("Content-Length") or [], url, raw)
            except SourceError:
                watch.cancel()
                raise
            if total is not None and total > MAX_DOWNLOAD_BYTES:
                watch.cancel()
                raw.close()
                raise SourceError(f"{url}: Content-Length {total:,} is over the {MAX_DOWNLOAD_BYTES:,}-byte limit of a download; not read")
    except urllib.error.HTTPError as exc:
        raise SourceError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise SourceError(f"{url}: {exc.reason}") from None
    except (OSError, http.client.HTTPException) as exc:
        watch.cancel()
        if watch.expired():
            raise SourceError(f"{url}: no answer within its {timeout_s:g} s deadline; refused") from None
        if isinstance(exc, http.client.HTTPException):
            raise SourceError(f"{url}: {type(exc).__name__}") from None
        raise SourceError(f"{url}: {exc.strerror or exc}") from None
    gzipped = urllib.parse.urlsplit(url).path.endswith(".gz")
    if scheme != "file":
        encoding = (raw.headers.get("Content-Encoding") or "").strip().lower()
        gzipped = gzipped or encoding in ("gzip", "x-gzip")
    counted = io.BufferedReader(_Counting(raw, label, total, progress, url, watch), buffer_size=1 << 20)
    if not gzipped:
        return counted
    return io.BufferedReader(_Gunzip(counted, url), buffer_size=1 << 20)


class _Gunzip(io.RawIOBase):
    """The decompressed bytes of a gzip download (a ``.gz`` path, or ``Content-Encoding:
    gzip``): a stream that is corrupt or ends before its trailer (a transfer cut midway) is a
    :class:`SourceError`, never a short document read as complete; at most
    :data:`MAX_DOWNLOAD_BYTES` decompressed (a gzip bomb stops there)."""

    def __init__(self, inner: IO[bytes], url: str) -> None:
        self._inner = inner
        self._gz = gzip.GzipFile(fileobj=inner, mode="rb")
        self._url = url
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        try:
            n = self._gz.readinto(b)
        except SourceError:
            raise
        except (OSError, EOFError, zlib.error) as exc:
            why = "ends before its end (truncated)" if isinstance(exc, EOFError) else "is corrupt"
            raise SourceError(f"{self._url}: the gzip stream {why}; refused") from None
        self.count += n
        if self.count > MAX_DOWNLOAD_BYTES:
            raise SourceError(f"{self._url}: over the {MAX_DOWNLOAD_BYTES:,}-byte limit of a download once decompressed; refused")
        return n

    def close(self) -> None:
        try:
            self._gz.close()
            self._inner.close()
        finally:
            super().close()
