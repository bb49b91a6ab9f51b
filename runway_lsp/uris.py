"""Document keys: ``file:`` URIs <-> real paths, and text that JSON can carry but UTF-8 cannot.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from pathlib import Path
from typing import Any

#: As runway_core.workspace.PATH_MAX / NAME_MAX (linux/limits.h); not imported from there:
#: this module loads before initialize is answered, runway_core's loaders after it.
PATH_MAX = 4096
NAME_MAX = 255

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (JSON ``"\\ud800"`` decodes to one; no UTF-8 can hold
    it) replaced by U+FFFD: one code point and one UTF-16 unit for one, so positions hold."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


if os.name == "nt":  # what urllib.request.url2pathname is, without importing urllib.request (10 ms at start-up)
    from nturl2path import url2pathname as _url2pathname
else:
    _url2pathname = urllib.parse.unquote


def uri_to_path(uri: str) -> str:
    """The key of a document: the real path of a ``file:`` URI, else an absolute pseudo-path."""
    path = uri_file_path(uri)
    if path is not None and unopenable(path):
        return path  # no symlink to resolve in what names no file (and realpath is quadratic in its segments)
    return resolved_path(path) if path is not None else os.path.abspath(uri.replace("\x00", "%00"))


def resolved_path(path: str) -> str:
    """``os.path.realpath(path)``, or the normalised absolute path when resolving it fails:
    CPython 3.11's ``posixpath._joinrealpath`` calls ``os.readlink`` outside its ``try``, so a
    link this process may not read (``/proc/1/root`` in a container: EACCES) raised out of every
    handler that keys a URI, and hover, pull diagnostics and symbols on it got no answer (round 5
    A06). Such a path names a file the server cannot read either; it is answered from nothing."""
    try:
        return os.path.realpath(path)
    except OSError:
        return os.path.abspath(path)


def real_path(path: str) -> str:
    """``os.path.realpath(path)``, except for a path no system call can open
    (:func:`unopenable`): returned as it is (it holds no symlink the OS would follow, and
    CPython's realpath joins its segments one by one, quadratic: 200 KB paths hung analyses)."""
    return path if unopenable(path) else resolved_path(path)


def unopenable(path: str) -> bool:
    """True for a path no system call can open on Linux: longer than PATH_MAX (4096 bytes,
    linux/limits.h) or holding a name longer than NAME_MAX (255): ENAMETOOLONG. A URI that
    decodes to one (adversary F3: ``file:///a/a/…`` of 100,000 segments) names no runway;
    it is answered from nothing, at once."""
    return len(path) > PATH_MAX or any(len(part) > NAME_MAX for part in path.split(os.sep))


def unopenable_uri(uri: str) -> bool:
    """True when ``uri`` is a ``file:`` URI whose path no system call can open
    (:func:`unopenable`: past PATH_MAX or NAME_MAX). Linear in the URI; a short URI is never
    decoded. Such a URI names no file or folder: a watched-file event, an added workspace
    folder or a ``runway.showCost`` of it is skipped at once (eighth adversary F4: walking its
    20,000 parent folders held the message loop ~20 s)."""
    if not isinstance(uri, str) or len(uri) <= NAME_MAX or not uri[:5].lower() == "file:":
        return False
    path = uri_file_path(uri)
    return path is not None and unopenable(path)


def uri_file_path(uri: str) -> str | None:
    """The path a ``file:`` URI spells, symlinks not resolved (None for another scheme): what
    a root's "symlink that leaves its folder" check looks at (docs/format.md "Members")."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = _url2pathname(parsed.path)
    if "\x00" in path:
        # `%00`: no file name holds a NUL (the OS refuses it: ValueError in every call).
        # The document is an editor buffer like an unsaved one; its key keeps the
        # percent-encoded spelling, a path that names no file.
        path = parsed.path.replace("\x00", "%00")
    return os.path.abspath(path)


def path_to_uri(path: str) -> str:
    try:
        return Path(path).as_uri()
    except ValueError:
        return path


def uri_in(params: Any) -> str | None:
    """``params.textDocument.uri`` of a raw message, if it is there and a string."""
    td = params.get("textDocument") if isinstance(params, dict) else None
    uri = td.get("uri") if isinstance(td, dict) else None
    return uri if isinstance(uri, str) else None


# --------------------------------------------------------------------------------------
# The URI of a custom request (runway/costs, runway/plan): one rule, docs/protocol.md
# --------------------------------------------------------------------------------------

#: What a custom request's ``uri`` must be, as the error answer says it (docs/protocol.md,
#: "The `uri` of a custom request").
FILE_URI_RULE = "an absolute file: URI (RFC 8089), such as file:///home/me/orders/runway.yaml"

#: C0 controls and DEL: no URI holds them unencoded (RFC 3986 §2: they are not among its
#: characters); a space is tolerated (some clients send one unencoded, and it names a file).
_CONTROL = re.compile("[\x00-\x1f\x7f]")


class NotAFileUri(ValueError):
    """A custom request's ``uri`` that is not :data:`FILE_URI_RULE`; ``str()`` is one sentence
    saying what it is and what a valid one is. It quotes nothing of the URI but its scheme (a
    URI may hold a credential: ``https://user:pw@host/x``)."""


def request_file_uri(value: Any) -> str:
    """``value`` (the ``uri`` param of ``runway/costs`` or ``runway/plan``) when it is an
    absolute ``file:`` URI: scheme ``file`` (any case, RFC 3986 §3.1), an empty authority or
    ``localhost`` (RFC 8089 §2; another host is a remote share the server cannot read), an
    absolute path (``file:///x``, ``file:/x``), no control characters, parseable by
    :func:`urllib.parse.urlsplit`.

    Raises :class:`NotAFileUri` otherwise: not a string, empty, relative (``runway.yaml``,
    ``file:x``), another scheme (``untitled:x``, ``http://h/x``), malformed (``file://[::1``).
    Pure; what is then read (an open document, a file named like a runway) is decided by the
    caller (runway_lsp/custom.py)."""
    if not isinstance(value, str):
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; it is {'missing' if value is None else 'not a string'}")
    if not value:
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; it is empty")
    if _CONTROL.search(value):
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one holds a control character")
    try:
        parts = urllib.parse.urlsplit(value)
        _ = parts.port  # parses the authority: a bad port or IPv6 literal raises here
    except ValueError:
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one is malformed (its authority cannot be parsed)") from None
    if not parts.scheme:
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one is a relative reference (no scheme)")
    if parts.scheme != "file":
        # The scheme quoted only when short: a long one may be a token (`AKIA…:x` parses as one).
        scheme = f"`{parts.scheme}:`" if len(parts.scheme) <= 16 else "another one"
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one's scheme is {scheme}")
    if parts.netloc.lower() not in ("", "localhost"):
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one names another host")
    if not parts.path.startswith("/"):
        raise NotAFileUri(f"`uri` must be {FILE_URI_RULE}; this one has a relative path")
    return value
