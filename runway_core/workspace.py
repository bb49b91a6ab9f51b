"""The workspace on disk: which file is a root runway, reading runway files, and where a
member folder's runway file is (docs/format.md, "Member runway").

- :func:`find_root`: from a file or folder up to the nearest root runway;
- :func:`read_disk`: one runway file as UTF-8, bounded by :data:`MAX_FILE_BYTES`;
- :func:`read_json` / :func:`loads_json`: the one bounded reader of every JSON document the
  tools read (a plan JSON, a receipt, ``--network FILE``, a price-list index): regular file
  only, at most :data:`MAX_JSON_BYTES`, nesting at most :data:`MAX_JSON_DEPTH`, no
  NaN/Infinity; anything else is :class:`JsonDocumentError`;
- :func:`is_lone_member`: a file analysed as a root that is really a member runway;
- :func:`member_folder` and :func:`member_runway`: a ``members:`` item resolved inside the
  product's repository, and its folder's runway file (symlinks that leave the repository,
  or point back at the root, refused: docs/reliability.md).

Reads the file system (stat, realpath, open); never writes. Errors are returned (or, for
:func:`read_disk`, raised as documented), never printed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Callable

from .files import NotRegularFile, open_regular
from .yamlsrc import ParsedYaml, YMap

ROOT_NAMES = ("runway.yaml", "runway.yml")
#: Largest runway file read from disk (a 10 MB file is hostile input, not a runway).
#: Largest runway analysed, in characters (UTF-8 bytes on disk). A real runway is a few
#: kilobytes; the ×8 benchmark workspace's root is ~0.8 MB. Past this, RW011 instead of a parse
#: (analysis memory grows ~350 bytes per character: a bound, not a hang).
MAX_FILE_CHARS = 1024 * 1024
MAX_FILE_BYTES = MAX_FILE_CHARS


class FileTooLarge(OSError):
    """A runway file over the limit; ``size`` in ``unit`` ("bytes" on disk, "characters" in
    an editor buffer). ``at_least``: ``size`` is only what was read to see the limit passed (a
    stream such as standard input, whose length nobody knows), not the file's size."""

    def __init__(self, size: int, unit: str = "bytes", at_least: bool = False) -> None:
        said = f"more than {MAX_FILE_BYTES:,} {unit}" if at_least else f"{size:,} {unit}"
        super().__init__(f"the file is {said}, over the 1 MiB limit for a runway")
        self.size = size
        self.unit = unit
        self.at_least = at_least


Reader = Callable[[str], str]


def read_disk(path: str) -> str:
    """Read a runway file from disk as UTF-8 (a BOM is kept and reported by the loader).

    Raises :class:`FileTooLarge` past :data:`MAX_FILE_BYTES` (read no further),
    :class:`NotRegularFile` for a FIFO, socket, device or folder (never opened: a FIFO would
    block), OSError when unreadable, UnicodeDecodeError when not UTF-8.
    """
    data, size = open_regular(path, MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        # The size the system gives (a /proc file says 0): else only what was read is known.
        raise FileTooLarge(size, at_least=False) if size > MAX_FILE_BYTES else FileTooLarge(len(data), at_least=True)
    return data.decode("utf-8")


#: Largest JSON document read (a plan JSON of the x8 benchmark workspace is ~2 MB; a receipt,
#: a network file or a price-list offer index is kilobytes). Past it: refused, read no further.
MAX_JSON_BYTES = 32 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted (a plan JSON nests 6 deep). Deeper is
#: hostile: json's C scanner would raise RecursionError, and every walk of the document after.
MAX_JSON_DEPTH = 64


class JsonDocumentError(ValueError):
    """A JSON document refused by :func:`loads_json` / :func:`read_json`; the message says why
    (never quoting the document)."""


def _no_constant(name: str) -> Any:
    raise JsonDocumentError(f"{name} is not a JSON number (NaN and Infinity are refused)")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent as a float; JsonDocumentError when it does
    not fit one (``1e999999`` is ``inf`` to ``float``: RFC 8259 §6 numbers are finite)."""
    value = float(text)
    if value in (_INF, -_INF):
        raise JsonDocumentError(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is out of range (not a finite number)")
    return value


_INF = float("inf")


def _check_depth(doc: Any, limit: int) -> None:
    """Iterative (no recursion) walk: JsonDocumentError past ``limit`` levels."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                raise JsonDocumentError(f"nested deeper than {limit} levels")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members as a dict; JsonDocumentError when a name repeats (RFC 8259 §4: names
    SHOULD be unique; ``json`` keeps the last value silently)."""
    doc: dict[str, Any] = {}
    for name, value in pairs:
        if name in doc:
            raise JsonDocumentError(f"duplicate key {name[:40]!r}")
        doc[name] = value
    return doc


def _duplicate_at(text: str) -> str | None:
    """Where the first object naming a member twice starts in ``text`` (JSON that parsed):
    ``line L column C`` (1-based; the column counts characters), or None. Only called once a
    duplicate was found (json's C scanner gives the hook no position): a second parse with
    json's pure-Python scanner, whose object parser is handed the offset."""
    import json.decoder
    import json.scanner

    found: list[int] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        start = s_and_end[1] - 1  # the `{`
        pairs, end = json.decoder.JSONObject(s_and_end, *args[:-3], None, lambda p: p, *args[-1:])
        names = [name for name, _ in pairs]
        if not found and len(set(names)) < len(names):
            found.append(start)
        return dict(pairs), end

    decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=str)
    decoder.parse_object = parse_object  # type: ignore[assignment]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        decoder.decode(text)
    except (ValueError, RecursionError):
        return None
    if not found:
        return None
    line = text.count("\n", 0, found[0]) + 1
    column = found[0] - (text.rfind("\n", 0, found[0]) + 1) + 1
    return f"line {line} column {column}"


def loads_json(data: bytes | str, *, parse_float: Callable[[str], Any] | None = None,
               max_depth: int = MAX_JSON_DEPTH, unique_keys: bool = False) -> Any:
    """``data`` (UTF-8 bytes, a BOM allowed, or text) parsed as JSON. NaN, Infinity and
    -Infinity are refused, and (without ``parse_float``) a number too large for a float
    (``1e999999``, which ``float`` reads as ``inf``), as is nesting deeper than ``max_depth``, and
    with ``unique_keys`` an object naming a member twice (a record someone else may write: which
    of two ``outcome`` values is true?). Raises :class:`JsonDocumentError` for any of these,
    invalid UTF-8 or invalid JSON."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, (bytes, bytearray)) else data
        doc = json.loads(text, parse_float=parse_float or _finite_float, parse_constant=_no_constant,
                         object_pairs_hook=_unique_pairs if unique_keys else None)
    except JsonDocumentError as exc:
        where = _duplicate_at(text) if str(exc).startswith("duplicate key") else None
        if where is not None:
            raise JsonDocumentError(f"{exc} in the object at {where}, of which JSON keeps only the last") from None
        raise
    except UnicodeDecodeError:
        raise JsonDocumentError("not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise JsonDocumentError(f"not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise JsonDocumentError(f"nested deeper than {max_depth} levels") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of over 4,300 digits
        raise JsonDocumentError(f"not JSON ({exc})") from None
    _check_depth(doc, max_depth)
    return doc


def read_json(path: str, *, limit: int = MAX_JSON_BYTES, parse_float: Callable[[str], Any] | None = None,
              unique_keys: bool = False) -> Any:
    """The JSON document in the regular file ``path`` (:func:`open_regular`: a FIFO, socket or
    device is never opened), at most ``limit`` bytes, parsed by :func:`loads_json` (with
    ``unique_keys``: an object naming a member twice refused). Raises
    :class:`NotRegularFile`, OSError (unreadable) or :class:`JsonDocumentError` (too large,
    not UTF-8, not JSON, NaN/Infinity, too deep, a duplicate key)."""
    data, size = open_regular(path, limit + 1)
    if len(data) > limit:
        raise JsonDocumentError(f"the file is {max(size, len(data)):,} bytes, over the {limit // (1024 * 1024)} MiB limit for a JSON document")
    return loads_json(data, parse_float=parse_float, unique_keys=unique_keys)


#: Linux's PATH_MAX and NAME_MAX (linux/limits.h): no longer path, nor longer name in it,
#: can be opened, so no runway can be found through one.
PATH_MAX = 4096
NAME_MAX = 255


def _ancestors(folder: str) -> list[str]:
    """``folder`` and each folder above it that a runway file in it could be opened in: by
    string slicing, linear in the path (``[p, *p.parents]`` builds each parent from its parts,
    quadratic: 100,000 segments did not finish in 40 s, adversary F3); those whose
    ``runway.yaml`` would be longer than :data:`PATH_MAX`, or whose name is longer than
    :data:`NAME_MAX`, skipped."""
    out: list[str] = []
    limit = PATH_MAX - len("/runway.yaml") - 1
    if len(folder) > limit:
        cut = folder.rfind(os.sep, 0, limit + 1)
        folder = folder[:cut] if cut > 0 else os.sep
    bad_at = None  # where the first name longer than NAME_MAX begins: no ancestor reaching it is openable
    at = 0
    for part in folder.split(os.sep):
        if len(part) > NAME_MAX:
            bad_at = at
            break
        at += len(part) + 1
    while True:
        if bad_at is None or len(folder) < bad_at:
            out.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _is_file(f: str) -> bool:
    try:
        return os.path.isfile(f)
    except (OSError, ValueError):
        return False


def declares_product(text: str) -> bool:
    """The root-or-member test (docs/format.md "Root or member"): whether ``text`` (a runway
    file's whole text, a BOM allowed) has a line starting with ``product:``. The whole text,
    not its first kilobytes: a root whose licence header runs past 4 KiB was taken for a
    member by ``check svc/x``, which then passed what ``check .`` failed (ninth adversary L6)."""
    return text.lstrip("\ufeff").startswith("product:") or "\nproduct:" in text


def shadowed_by(path: str) -> str | None:
    """The ``runway.yaml`` that shadows ``path``, or None: a ``runway.yml`` whose folder also
    holds a ``runway.yaml`` (a regular file, or a link to one) is never read by the CLI or a
    deploy (docs/format.md "Files"; docs/diagnostics.md RW158), so the editor does not analyse
    it as a product either. Costs one ``stat`` for a ``.yml``, none for any other name."""
    folder, name = os.path.split(path)
    if name != ROOT_NAMES[1]:
        return None
    other = os.path.join(folder, ROOT_NAMES[0])
    return other if _is_file(other) else None


def find_root(start: str, read: Reader | None = None) -> str | None:
    """Walk up from ``start`` (a file or folder) to the nearest root runway: a runway file with
    a top-level ``product`` key. Returns its path; when none is found above, the first runway
    file met (so that a broken root, or a lone member, is still analysed and diagnosed).

    ``read`` (default :func:`read_disk`) supplies file text, so that an editor's open buffers
    decide root-or-member (and count even when not yet saved to disk)."""
    try:
        if len(start) > PATH_MAX:  # names nothing; realpath would be quadratic in its segments
            raise OSError("ENAMETOOLONG")
        p = Path(start).resolve()
        folder = str(p) if p.is_dir() else str(p.parent)
    except (OSError, ValueError):  # ENAMETOOLONG, ELOOP, a NUL: the path names no folder
        folder = os.path.dirname(os.path.abspath(start))
    first: str | None = None
    for d in _ancestors(folder):
        found = runway_head(d, read)
        if found is None:
            continue
        f, head = found
        if first is None:
            first = f
        if declares_product(head):
            return f
        # a member (or a broken file): keep walking up
    return first


def runway_head(folder: str, read: Reader | None = None, on_disk: bool = False) -> tuple[str, str] | None:
    """The runway file of ``folder`` (``runway.yaml``, else ``runway.yml``) and the start of
    its text that :func:`declares_product` reads (all of it, up to the 1 MiB limit), or None
    when the folder holds neither.
    ``read`` (default :func:`read_disk`) supplies file text, open buffers included; a file
    too large or not UTF-8 is classified by its first bytes (it then gets RW011 or RW001),
    so that no walk goes past a broken root to another one. With ``on_disk``, None unless
    one of the two is a file on disk (a ``stat`` each), so that a reader that costs a process
    per file (``git show``: the cost baseline at HEAD) is never asked for a file not there."""
    if on_disk and not any(_is_file(os.path.join(folder, name)) for name in ROOT_NAMES):
        return None
    for name in ROOT_NAMES:
        f = os.path.join(folder, name)  # strings: a Path per ancestor re-parses every part (quadratic)
        if _is_file(f) or read is not None:
            try:
                head = (read or read_disk)(f)
            except (OSError, UnicodeDecodeError, ValueError):
                if not _is_file(f):
                    continue
                try:
                    head = open_regular(f, MAX_FILE_BYTES)[0].decode("utf-8", "replace")
                except OSError:
                    head = ""
            return f, head
    return None


_ROOT_ONLY_KEYS = frozenset({"product", "region", "members", "environments", "resources", "workloads"})
_MEMBER_ONLY_KEYS = frozenset({"member", "requires", "uses"})


def is_lone_member(parsed: ParsedYaml) -> bool:
    """True when a file analysed as a root is really a member runway (member keys, no root
    keys): it is then checked as a member and told that no root lists it."""
    root = parsed.root
    if not isinstance(root, YMap):
        return False
    keys = set(root.keys())
    return bool(keys & _MEMBER_ONLY_KEYS) and not (keys & _ROOT_ONLY_KEYS)


def _inside(base: str, real: str) -> bool:
    """True when the resolved path ``real`` lies inside the resolved folder ``base``."""
    return os.path.commonpath([base, real]) == base


def root_link_escapes(path: str) -> str | None:
    """Why the root runway ``path`` is refused, or None: a symlink whose target lies outside
    the folder holding the link (resolved) leaves the product's repository, as a member's does
    (:func:`member_runway`; docs/format.md "Files"). A link inside that folder is read. Costs
    one ``lstat`` when ``path`` is no symlink."""
    try:
        if not os.path.islink(path):
            return None
    except (OSError, ValueError):
        return None
    base = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if _inside(base, os.path.realpath(path)):
        return None
    return f"{os.path.basename(path)} is a symlink that leaves the product's folder; refused, never read"


def usage_link_escapes(path: str, root_file: str) -> str | None:
    """Why the usage file ``path`` of the root runway ``root_file`` is refused, or None: a
    symlink inside the root's folder whose target lies outside it (resolved) leaves the
    product, as a root or member runway linked out does (docs/format.md "Usage file"); such a
    file is never opened, so none of its lines come back quoted in a diagnostic. A named
    file that lies outside the product itself (``--usage /shared/u.yaml``) was asked for and
    is not refused here. Costs one ``lstat`` when ``path`` is no symlink."""
    try:
        if not os.path.islink(path):
            return None
        base = os.path.realpath(os.path.dirname(os.path.abspath(root_file)))
        if not _inside(base, os.path.realpath(os.path.dirname(os.path.abspath(path)))):
            return None
        if _inside(base, os.path.realpath(path)):
            return None
    except (OSError, ValueError):
        return None
    return f"the usage file {os.path.basename(path)} is a symlink that leaves the product's folder; refused, never read"


def member_folder(base: str, rel: str) -> tuple[str | None, str | None]:
    """Resolve a member path against ``base``, the root runway's resolved folder; (folder,
    None) or (None, reason) when it escapes or is absolute."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in rel):
        # A NUL cannot reach the OS (ValueError: embedded null byte, exit 70 before), and no
        # folder name of a product holds a control character.
        return None, "the member path holds a control character (NUL, tab, newline...); refused, never read"
    if os.path.isabs(rel) or rel.startswith("~"):
        return None, "member paths are relative to the root runway's folder; absolute paths are refused"
    target = os.path.realpath(os.path.join(base, rel))
    if os.path.commonpath([base, target]) != base:
        return None, "the member path leaves the product's repository (via `..` or a symlink); refused, never read"
    if target == base:
        return None, "a member folder cannot be the root runway's own folder"
    return target, None


def member_runway(folder: str, rel: str, base: str, root_real: str) -> tuple[str | None, tuple[str, dict[str, Any]] | None]:
    """The runway file of the resolved member ``folder`` (written ``rel`` in ``members:``)
    inside ``base``, the root runway's resolved folder, whose own resolved path is
    ``root_real``: ``(path, None)``, or ``(None, (message, data))`` for an RW151 error when
    the folder is missing, holds no regular runway file, or its runway file is a symlink to
    the root runway or out of the product's repository (such a file is never read)."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        return None, (f"member folder `{rel}` cannot be read ({exc.strerror or exc})", {"member": rel})
    if st is None or not stat.S_ISDIR(st.st_mode):
        return None, (f"member folder `{rel}` does not exist", {"member": rel, "missing": "folder"})
    path = None
    odd = None  # a runway.yaml that is there but is no regular file (a FIFO, a device, a folder)
    for name in ROOT_NAMES:
        cand = os.path.join(folder, name)
        try:
            mode = os.stat(cand).st_mode
        except (FileNotFoundError, NotADirectoryError):
            if odd is None and os.path.lexists(cand):
                odd = name  # a broken symlink
            continue
        except OSError as exc:
            # Permission denied on the folder (not searchable): said as such, not "holds no
            # runway.yaml" (issue 16 item 8).
            return None, (f"member folder `{rel}` cannot be read ({exc.strerror or exc}); its runway.yaml was not checked", {"member": rel})
        if stat.S_ISREG(mode):
            path = cand
            break
        if odd is None:
            odd = name
    if path is None and odd is not None:
        return None, (f"member `{rel}`: its {odd} is not a regular file (a folder, FIFO, socket or device, or a broken symlink); refused, never read",
                      {"member": rel})
    if path is None:
        return None, (f"member folder `{rel}` holds no runway.yaml", {"member": rel, "missing": "file"})
    # The folder is resolved already: only the file itself may still be a symlink.
    real = os.path.realpath(path) if os.path.islink(path) else path
    if real == root_real:
        # A symlink back to the root runway: it is not a member runway; refused, not re-read.
        return None, (f"member `{rel}`: its runway.yaml is the root runway itself (a symlink); refused", {"member": rel})
    if not _inside(base, real):
        # The folder is inside, but its runway.yaml is a symlink that leaves the product.
        return None, (f"member `{rel}`: its {os.path.basename(path)} is a symlink that leaves the product's repository; refused, never read", {"member": rel})
    return path, None


__all__ = [
    "root_link_escapes",
    "usage_link_escapes",
    "ROOT_NAMES",
    "MAX_FILE_CHARS",
    "MAX_FILE_BYTES",
    "FileTooLarge",
    "NotRegularFile",
    "Reader",
    "open_regular",
    "read_disk",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "JsonDocumentError",
    "loads_json",
    "read_json",
    "find_root",
    "declares_product",
    "runway_head",
    "shadowed_by",
    "is_lone_member",
    "member_folder",
    "member_runway",
]
