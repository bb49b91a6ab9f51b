"""The two sides of ``runway-deploy diff``: what BASE and HEAD name, read into plans
(docs/cli.md, "diff").

A side is a runway path (a folder or a runway file: analysed and planned here), a plan JSON
file (``plan --format json`` output, ending in ``.json``), or ``REV:PATH``, a runway or plan
file at a git revision (``origin/main:products/orders``; PATH relative to the repository's top
unless it starts with ``./`` or ``../``). A revision's runway is read from the committed tree
of its root's folder (``git ls-tree``, ``git cat-file --batch``) into a temporary folder (members live inside the root's folder, so that is the whole
runway; a member PATH resolves to its root in the revision's tree); a base PATH absent at that
revision is an empty plan (a product this change adds), a head PATH absent is exit 3. Raises
:class:`~deploy_engine.exits.InputError` (exit 3) for an unreadable side or an unknown revision.
"""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import re
import subprocess
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Iterator

from deploy_engine.cli import gitrun
from deploy_engine.cli.inputs import Loaded, load_path, refuse_folder_link, resolve_root
from deploy_engine.exits import REFUSAL_CODES, InputError
from deploy_engine.folders import TemporaryFolder, make_folders
from deploy_engine.terminal import printable
from runway_core.catalog import Catalog
from runway_core.diagnostics import Severity
from runway_core.plan_diff import PlanDocumentError, PlanSide, side_of_json, side_of_plan
from runway_core.planner import Plan
from runway_core.workspace import MAX_FILE_BYTES, MAX_JSON_BYTES, ROOT_NAMES, JsonDocumentError, declares_product, loads_json, read_json

_GIT_SPEC = re.compile(r"^(?P<rev>[^:\s][^:]*):(?P<path>.*)$")


@dataclass
class Side:
    """One side: what the user named (``label``), its plan, and when it was analysed here its
    analysis (``loaded``); ``invalid`` when it has an error other than RW170 (for a plan JSON
    file: in its ``diagnostics``)."""

    label: str
    plan: PlanSide
    loaded: Loaded | None = None
    invalid: bool = False
    note: str | None = None
    errors: int = 0  # the errors that make it invalid (at least 1 when invalid)
    keep: list[Any] = field(default_factory=list)  # temporary folders, removed with the side

    def close(self) -> None:
        for tmp in self.keep:
            tmp.cleanup()
        self.keep.clear()


def _side_of_analysis(label: str, loaded: Loaded) -> Side:
    an = loaded.analysis
    spec = an.spec
    plan = Plan(spec.product if spec else None, spec.region if spec else None, tuple(an.plans.values()), an.catalog.origin)  # type: ignore[arg-type]
    errors = sum(1 for d in an.all_diagnostics() if d.severity == Severity.ERROR and d.code not in REFUSAL_CODES)
    if an.files[an.root_file].role == "member":
        # A lone member (no root lists it, in the working tree or at REV) has no plan: compared,
        # it was an empty product, every environment "removed" and exit 0 past any gate (ninth
        # adversary C7). Refused as `plan` refuses it (docs/cli.md, PATH).
        raise InputError(f"{label}: no plan: a member runway alone has none (no root runway above it lists it); "
                         "diff the root runway that lists it")
    if spec is None:
        errors = max(errors, 1)
    return Side(label, side_of_plan(plan), loaded, errors > 0, errors=errors)


def _side_of_json_text(label: str, text: Any) -> Side:
    """A side from a plan JSON document: its bytes or text, or the document already read."""
    try:
        doc = loads_json(text, parse_float=Decimal, unique_keys=True) if isinstance(text, (str, bytes)) else text
        side = side_of_json(doc)
        errors = plan_json_errors(doc)
    except (ValueError, PlanDocumentError) as exc:
        raise InputError(f"{label}: not a valid plan JSON document (runway-deploy plan --format json): {exc}") from None
    return Side(label, side, None, errors > 0, errors=errors)


#: A Diagnostic's ``severity`` in the JSON documents (docs/cli.md, "Diagnostic").
_SEVERITIES = ("error", "warning", "information", "hint")


def plan_json_errors(doc: Any) -> int:
    """The errors (other than the refusal codes, :data:`REFUSAL_CODES`) a plan JSON document's
    ``diagnostics`` lists: the list `plan --format json` always writes, of Diagnostic objects
    whose ``severity`` is one of :data:`_SEVERITIES` and ``code`` a string. Anything else --
    missing, a string, an object, ``"severity": "Error"`` -- raises
    :class:`~runway_core.plan_diff.PlanDocumentError`: read as "no errors" it passed a head
    with errors (ninth adversary C2; fail closed)."""
    diags = doc.get("diagnostics") if isinstance(doc, dict) else None
    if not isinstance(diags, list):
        got = "nothing" if not isinstance(doc, dict) or "diagnostics" not in doc else type(diags).__name__
        raise PlanDocumentError(f"diagnostics: expected a list of Diagnostic objects (plan --format json writes one), got {got}")
    for n, d in enumerate(diags):
        if not isinstance(d, dict) or d.get("severity") not in _SEVERITIES or not isinstance(d.get("code"), str):
            raise PlanDocumentError(f"diagnostics[{n}]: expected a Diagnostic object with a severity "
                                    f"({', '.join(_SEVERITIES)}) and a code")
    return sum(1 for d in diags if d["severity"] == "error" and d["code"] not in REFUSAL_CODES)


#: What a file side may be named: a runway (YAML) or a plan JSON document.
_SIDE_SUFFIXES = (".yaml", ".yml", ".json")


def _refuse_odd_file(label: str, name: str) -> None:
    """InputError (exit 3) for a file side that is neither a runway nor a plan JSON: read as a
    runway it would resolve to the root above it and compare against the wrong plan (or none)."""
    if not name.lower().endswith(_SIDE_SUFFIXES):
        raise InputError(f"{label}: neither a runway (.yaml, .yml, or a folder holding one) nor a plan JSON file (.json)")


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    """``git *args`` in ``cwd`` (:func:`deploy_engine.cli.gitrun.run`: the command's one git
    deadline, a repository holding a FIFO git would wait on refused, exit 3)."""
    return gitrun.run(args, cwd)


def git_refusal(stderr: bytes) -> str | None:
    """git's own words when it refuses the repository rather than finding none: "detected
    dubious ownership in repository at '/w'" (git >= 2.35.2, a checkout owned by another uid,
    common in container jobs) with the ``git config --global --add safe.directory`` fix git
    prints, or any other ``fatal:`` line but "not a git repository"; None for no repository."""
    text = stderr.decode("utf-8", "replace")
    if "dubious ownership" in text:
        fix = next((line.strip() for line in text.splitlines() if "safe.directory" in line), "")
        first = next((line for line in text.splitlines() if "dubious ownership" in line), "").removeprefix("fatal: ")
        return f"git refused: {first}" + (f"; to trust it: {fix}" if fix else "")
    fatal = next((line.removeprefix("fatal: ") for line in text.splitlines() if line.startswith("fatal: ")), None)
    if fatal is None or "not a git repository" in fatal:
        return None
    return f"git refused: {fatal}"


def repository_top(cwd: str) -> str:
    """The top folder of the git work tree holding ``cwd``; InputError when there is none, or
    git's own refusal (:func:`git_refusal`) when git will not read it."""
    proc = _git(["rev-parse", "--show-toplevel"], cwd)
    if proc.returncode != 0:
        refusal = git_refusal(proc.stderr)
        if refusal is not None:
            raise InputError(f"{cwd}: {refusal}")
        raise InputError(f"{cwd}: not in a git repository (REV:PATH and --base need one)")
    return os.fsdecode(proc.stdout.strip())


#: A tree entry of ``git ls-tree -r -z --full-tree``: ``<mode> SP <type> SP <object> TAB <path>``.
_TREE_ENTRY = re.compile(rb"^([0-7]{6}) (blob|tree|commit) ([0-9a-f]{40,64})\t(.+)$", re.DOTALL)
#: An entry of ``git ls-tree -l -z``: mode, type, object, size (``-`` for a tree), path.
_LONG_TREE_ENTRY = re.compile(rb"^([0-7]{6}) (blob|tree|commit) ([0-9a-f]{40,64}) +([0-9]+|-)\t(.+)$", re.DOTALL)
#: Longest symlink target read (Linux's PATH_MAX); a longer "link" is refused, never followed.
_MAX_LINK_BYTES = 4096
#: Most entries read from one revision's folder (a monorepo of 200,000 files is refused with
#: exit 3 rather than written out: name the product's folder instead).
MAX_TREE_ENTRIES = 200_000


def _unsafe_entry(path: str, dest: str, link: str | None) -> str | None:
    """Why the tree entry at ``path`` (relative, ``/`` separators) may not be written under
    ``dest`` (None: it may): an absolute path, one with a ``..``, ``.`` or empty part, or one
    leaving ``dest``; a symlink (``link``: its target) that is absolute or resolves outside
    ``dest``. The rules of tarfile's ``data`` filter (PEP 706), as the ``git archive`` form of
    this reader applied them."""
    root = os.path.realpath(dest)

    def inside(rel: str) -> bool:
        full = os.path.realpath(os.path.join(root, rel))
        return full == root or full.startswith(root + os.sep)

    parts = path.split("/")
    if path.startswith(("/", "\\")) or os.path.isabs(path) or any(p in ("", ".", "..") for p in parts) or not inside(path):
        return "its path leaves the product's folder"
    if link is not None and (os.path.isabs(link) or not inside(os.path.join(os.path.dirname(path), link))):
        return "a symlink that leaves the product's folder"
    return None


def _tree_entries(rev: str, folder: str, top: str, label: str) -> list[tuple[str, str, str, str]]:
    """``(mode, type, object, path)`` of every entry under ``folder`` at ``rev`` (``''``: the
    whole tree), paths from the repository's top. Raises InputError when git refuses or the
    folder holds more than :data:`MAX_TREE_ENTRIES` entries."""
    # --literal-pathspecs: a folder named `a*` or `:(glob)x` is that folder, never a pattern.
    args = ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", rev, "--", folder] if folder else ["ls-tree", "-r", "-z", "--full-tree", rev]
    proc = _git(args, top)
    if proc.returncode != 0:
        raise InputError(f"{label}: git ls-tree failed: {proc.stderr.decode('utf-8', 'replace').strip().splitlines()[:1]}")
    raws = [raw for raw in proc.stdout.split(b"\0") if raw]
    if len(raws) > MAX_TREE_ENTRIES:
        raise InputError(f"{label}: {len(raws):,} files at {rev}, over the {MAX_TREE_ENTRIES:,} read from one revision; name the product's folder")
    out = []
    for raw in raws:
        m = _TREE_ENTRY.match(raw)
        if m is None:
            raise InputError(f"{label}: git ls-tree gave an entry runway cannot read; refused")
        mode, kind, oid, path = (g.decode("utf-8", "surrogateescape") for g in m.groups())
        out.append((mode, kind, oid, path))
    return out


class _Blobs:
    """``git cat-file --batch`` (git-cat-file(1), "BATCH OUTPUT": ``<oid> SP <type> SP <size>
    LF <contents> LF``): each blob streamed by object id, one at a time, into a file or a
    bounded bytes value; memory at one 1 MiB chunk whatever the blob's size."""

    def __init__(self, top: str, label: str) -> None:
        self.label = label
        self.git = gitrun.Stream(["cat-file", "--batch"], top)  # killed past the command's git deadline
        self.proc = self.git.proc

    def _feed(self, oids: list[str]) -> None:
        """Write ``oids`` to git's stdin (in a thread: git answers while it reads, and a pipe
        that fills both ways would block both)."""
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):  # git exited: the reader says so
            self.proc.stdin.write(b"".join(oid.encode("ascii") + b"\n" for oid in oids))
            self.proc.stdin.flush()

    def batch(self, oids: list[str]) -> Iterator[tuple[str, int]]:
        """``(oid, size)`` of each of ``oids`` in order, all asked at once (one round trip, not
        one per file); the caller reads each with :meth:`copy_sized` or :meth:`small_sized`
        before the next."""
        feeder = threading.Thread(target=self._feed, args=(oids,), daemon=True)
        feeder.start()
        done = False
        try:
            for oid in oids:
                yield oid, self._header(oid)
            done = True
        finally:
            if not done:
                # Left midway (a refused entry, a failed write): git may be blocked writing
                # answers nobody reads, the feeder blocked writing to git; end git so both return.
                self.git.kill()
            feeder.join()

    def _header(self, oid: str) -> int:
        assert self.proc.stdout is not None
        header = self.proc.stdout.readline(256).split()
        self.git.check()
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            raise InputError(f"{self.label}: git cat-file could not read object {oid} (missing from the repository: runway never "
                             f"fetches an object from a remote, a partial clone's promisor included)")
        return int(header[2])

    def _stream(self, oid: str, size: int, out: IO[bytes] | None) -> None:
        """Read the ``size`` bytes of object ``oid`` (into ``out``, or skipped) and its LF."""
        assert self.proc.stdout is not None
        left = size
        while left:
            chunk = self.proc.stdout.read(min(left, 1 << 20))
            if not chunk:
                self.git.check()
                raise InputError(f"{self.label}: git cat-file ended inside object {oid}")
            if out is not None:
                out.write(chunk)
            left -= len(chunk)
        self.proc.stdout.read(1)

    def copy_sized(self, oid: str, size: int, out: IO[bytes]) -> None:
        """Stream blob ``oid`` of ``size`` bytes (from :meth:`batch`) into ``out``."""
        self._stream(oid, size, out)

    def small_sized(self, oid: str, size: int, limit: int) -> bytes | None:
        """The bytes of blob ``oid`` (``size`` from :meth:`batch`), or None (skipped) when over
        ``limit`` bytes."""
        if size > limit:
            self._stream(oid, size, None)
            return None
        buf = io.BytesIO()
        self._stream(oid, size, buf)
        return buf.getvalue()

    def close(self) -> None:
        """End git: its stdout closed first (a git still writing answers gets EPIPE and exits,
        never waits for a reader), then its stdin (end of requests)."""
        for pipe in (self.proc.stdout, self.proc.stdin):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        self.git.finish()


def write_tree(entries: list[tuple[str, str, str, str]], blobs: _Blobs, dest: str, label: str, rev: str) -> None:
    """Write the tree ``entries`` (:func:`_tree_entries`: paths from the repository's top, so
    ``dest`` mirrors its layout) under ``dest``, refusing (InputError, exit 3) any entry
    :func:`_unsafe_entry` rejects before anything is written: a symlink at REV that is absolute
    or leaves the folder (``services/a -> /etc``) is never followed (the working tree's
    ``check`` reports it as RW151). Files first, symlinks last, so no write goes through a
    link; a submodule is an empty folder, as ``git archive`` writes it."""
    links: list[tuple[str, str]] = []
    files: list[tuple[str, str, str]] = []
    folders: list[str] = []
    link_entries = [(oid, path) for mode, kind, oid, path in entries if kind == "blob" and mode == "120000"]
    targets: dict[str, str] = {}
    for (oid, size), (_oid, path) in zip(blobs.batch([oid for oid, _path in link_entries]), link_entries):
        target = blobs.small_sized(oid, size, _MAX_LINK_BYTES)
        if target is None:
            raise InputError(f"{label}: {path} at {rev} is a symlink over {_MAX_LINK_BYTES:,} bytes; refused, never followed")
        targets[path] = target.decode("utf-8", "surrogateescape")
    for mode, kind, oid, path in entries:
        link = targets.get(path) if kind == "blob" and mode == "120000" else None
        why = _unsafe_entry(path, dest, link)
        if why is not None:
            raise InputError(f"{label}: {path} at {rev} is {why}; refused, never followed")
        if link is not None:
            links.append((path, link))
        elif kind == "blob":
            files.append((mode, oid, path))
        elif kind == "commit":
            folders.append(path)
    for path in folders:
        make_folders(os.path.join(dest, *path.split("/")))
    for (oid, size), (mode, _oid, path) in zip(blobs.batch([oid for _mode, oid, _path in files]), files):
        full = os.path.join(dest, *path.split("/"))
        make_folders(os.path.dirname(full))
        fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o755 if mode == "100755" else 0o644)
        with os.fdopen(fd, "wb") as out:
            blobs.copy_sized(oid, size, out)
    for path, link in links:
        full = os.path.join(dest, *path.split("/"))
        make_folders(os.path.dirname(full))
        os.symlink(link, full)


def archive_folder(rev: str, folder: str, top: str, label: str, gitlinks: dict[str, str] | None = None) -> TemporaryFolder:
    """A temporary folder holding ``folder`` (relative to the repository's top; '' the whole
    tree) as it is committed at ``rev``; the caller cleans it up. Read from the tree itself
    (``git ls-tree``, ``git cat-file --batch``), not ``git archive``: an archive applies the
    tree's ``.gitattributes`` (``export-ignore`` left a runway out and ``diff`` said "no runway
    found"; ``export-subst`` rewrites a file's text), and its tar was read whole into memory (a
    300 MB asset was MemoryError, exit 70, under a 600 MB limit: third adversary, round 5).
    Each blob is streamed to its file. ``gitlinks`` (when given) gets each submodule's path
    and commit: written as an empty folder, whose products the caller must not call absent."""
    entries = _tree_entries(rev, folder, top, label)
    if gitlinks is not None:
        gitlinks.update({path: oid for _mode, kind, oid, path in entries if kind == "commit"})
    tmp = TemporaryFolder(prefix="runway-diff-")
    blobs = _Blobs(top, label)
    try:
        write_tree(entries, blobs, tmp.name, label, rev)
    except OSError as exc:  # the temporary folder's disk is full, say
        tmp.cleanup()
        raise InputError(f"{label}: the tree of {rev} could not be written to a temporary folder ({exc.strerror or exc})") from None
    except BaseException:
        tmp.cleanup()
        raise
    finally:
        blobs.close()
    return tmp


def submodule_at(rev: str, rel: str, top: str) -> tuple[str, str] | None:
    """``(path, commit)`` of the gitlink (a submodule: a ``commit`` entry, mode 160000) at
    ``rev`` that is ``rel`` or a folder above it, or None. git finds no object at such a path
    (the submodule's commit lives in the submodule's own repository), which is no absence."""
    parts = [p for p in rel.split("/") if p]
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    if not prefixes:
        return None
    proc = _git(["--literal-pathspecs", "ls-tree", "-z", "--full-tree", rev, "--", *prefixes], top)
    if proc.returncode != 0:
        return None
    for raw in proc.stdout.split(b"\0"):
        m = _TREE_ENTRY.match(raw) if raw else None
        if m is not None and m.group(2) == b"commit":
            path = m.group(4).decode("utf-8", "surrogateescape")
            if path in prefixes:
                return path, m.group(3).decode("ascii")
    return None


def refuse_submodule(label: str, rev: str, path: str, commit: str) -> InputError:
    """The exit-3 error for a diff side inside a git submodule at ``rev``: named, with the
    diff to run inside the submodule instead (its own repository holds that commit)."""
    return InputError(f"{label}: {path} at {rev} is a git submodule (commit {commit[:12]}), which diff does not read "
                      f"from this repository; diff it inside the submodule: cd {path} && runway-deploy diff . --base {commit[:12]}")


def root_folder_at(rev: str, folder: str, top: str, label: str) -> str:
    """The folder (relative to the repository's top, ``''`` the top) of the root runway that
    ``folder`` at ``rev`` belongs to: walking up REV's tree as
    :func:`runway_core.workspace.find_root` walks folders. In each folder the first runway file
    of :data:`~runway_core.workspace.ROOT_NAMES` decides: a top-level ``product:`` anywhere in it
    (:func:`~runway_core.workspace.declares_product`) is the root; a member (or a symlink) walks on up; a file over the 1 MiB limit
    of a runway stops the walk there (analysed, RW011: never past a broken file to a root
    above). None found above: ``folder`` itself (its runway is then analysed alone, a lone
    member refused by :func:`_side_of_analysis`, a broken root reported). One ``git ls-tree``
    of every candidate, then one ``git cat-file blob`` per runway file met, nearest first."""
    parts = [p for p in folder.split("/") if p]
    chain = ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]  # folder first, the top last
    wanted = [posixpath.join(d, name) for d in chain for name in ROOT_NAMES]
    proc = _git(["--literal-pathspecs", "ls-tree", "-z", "-l", "--full-tree", rev, "--", *wanted], top)
    if proc.returncode != 0:
        raise InputError(f"{label}: git ls-tree failed: {proc.stderr.decode('utf-8', 'replace').strip().splitlines()[:1]}")
    found: dict[str, tuple[str, str, int]] = {}  # path -> (mode, oid, size) of each runway file in the chain
    for raw in proc.stdout.split(b"\0"):
        m = _LONG_TREE_ENTRY.fullmatch(raw) if raw else None
        if m is not None and m.group(2) == b"blob":
            found[m.group(5).decode("utf-8", "surrogateescape")] = (m.group(1).decode("ascii"), m.group(3).decode("ascii"), int(m.group(4)))
    for d in chain:
        path = next((posixpath.join(d, n) for n in ROOT_NAMES if posixpath.join(d, n) in found), None)
        if path is None or found[path][0] == "120000":
            continue  # no runway file here, or a link (never followed in a tree): walk on up
        _mode, oid, size = found[path]
        if size > MAX_FILE_BYTES:
            return d
        text = _git(["cat-file", "blob", oid], top).stdout  # at most MAX_FILE_BYTES (above)
        if declares_product(text.decode("utf-8", "replace")):  # the whole text, as find_root reads it (L6)
            return d
    return folder


def git_side(rev: str, rel: str, catalog: Catalog, label: str, cwd: str, role: str = "base") -> Side:
    """The side at ``rev`` of ``rel`` (a path relative to the repository's top, ``/``
    separators): a plan JSON file, a runway file or a folder holding one; a member resolves to
    its root in ``rev``'s tree (:func:`root_folder_at`). Absent at ``rev``: an empty side
    (``present`` False) whose items count as added (``role`` base), InputError (``role`` head:
    a typo must never pass a gate as the whole product removed)."""
    top = repository_top(cwd)
    if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top).returncode != 0:
        raise InputError(f"{label}: unknown revision {rev!r}")
    rel = rel.strip("/")
    if rel and posixpath.normpath(rel).split("/")[0] == "..":
        # `HEAD:../../etc`: git answers "outside repository" like a missing path, which would
        # read as "absent" (every item added, exit 0); `--base REV` refuses the same path.
        raise InputError(f"{label}: {rel!r} is outside the git repository at {top}")
    # `HEAD:products/orders/../orders`: git looks a tree path up as written (no `..` inside),
    # so it read as absent (fourth adversary, F13); normalised, as `--base`'s path is.
    rel = posixpath.normpath(rel) if rel else rel
    rel = "" if rel == "." else rel
    kind = _git(["cat-file", "-t", f"{rev}:{rel}"], top)
    if kind.returncode != 0:
        gitlink = submodule_at(rev, rel, top)
        if gitlink is not None:
            raise refuse_submodule(label, rev, *gitlink)
        if role == "head":
            # `diff orders HEAD:ordrs`: a typo read as "product removed" passed every gate
            # (ninth adversary C7). A deleted product is `diff PATH --base REV` of the gone PATH.
            raise InputError(f"{label}: no such file or folder at {rev}; a head side must exist (a product the change "
                             f"deletes: runway-deploy diff PATH --base REV, PATH gone from the working tree, is `removed`)")
        # A product (or runway) this change adds: nothing at the base, every item added.
        return Side(label, PlanSide(None, None, (), present=False), note=f"{label}: absent at {rev}; every item counts as added")
    if kind.stdout.strip() == b"blob" and rel.endswith(".json"):
        blob = _git(["show", f"{rev}:{rel}"], top).stdout
        if len(blob) > MAX_JSON_BYTES:
            raise InputError(f"{label}: not a valid plan JSON document: {len(blob):,} bytes, over the {MAX_JSON_BYTES // (1024 * 1024)} MiB limit")
        return _side_of_json_text(label, blob)
    if kind.stdout.strip() == b"blob":
        _refuse_odd_file(label, rel)
    folder = rel if kind.stdout.strip() == b"tree" else os.path.dirname(rel)
    # A member at REV resolves to its root in REV's tree, as a working-tree PATH and --base do;
    # read alone it had no plan and was compared as an empty product (ninth adversary C7).
    tmp = archive_folder(rev, root_folder_at(rev, folder, top, label), top, label)
    try:
        local = Path(tmp.name, *([p for p in rel.split("/") if p] or ["."]))
        side = _side_of_analysis(label, load_path(str(local), catalog))
    except BaseException:
        tmp.cleanup()
        raise
    side.keep.append(tmp)
    return side


def _top_relative(path: str, cwd: str) -> str:
    """``path`` (of a ``REV:PATH``) relative to the repository's top: as written, unless it
    starts with ``./`` or ``../`` (then relative to ``cwd``, as git reads it) or is absolute
    (then relative to the top, or outside it: refused by :func:`git_side`)."""
    if path in (".", "..") or path.startswith(("./", "../")):
        top = repository_top(cwd)
        return Path(os.path.relpath(os.path.normpath(os.path.join(os.path.abspath(cwd), path)), top)).as_posix()
    if os.path.isabs(path):
        # `HEAD:$PWD/products/orders`: relative to the top when inside the repository; `HEAD:/etc`
        # becomes `../../etc`, which git_side refuses as outside it (it was read as absent, every
        # item added: fifth adversary).
        top = os.path.realpath(repository_top(cwd))
        return Path(os.path.relpath(os.path.realpath(path), top)).as_posix()
    return path


def resolve_side(spec: str, catalog: Catalog, role: str = "base") -> Side:
    """The side ``spec`` names (module docstring); ``role`` base or head (what an absent
    ``REV:PATH`` means: :func:`git_side`)."""
    cwd = os.getcwd()
    match = _GIT_SPEC.fullmatch(spec)
    if match and not os.path.exists(spec):
        rel = _top_relative(match["path"], cwd)
        return git_side(match["rev"], "" if rel == "." else rel, catalog, spec, cwd, role)
    if spec.endswith(".json") and os.path.lexists(spec):
        try:
            doc = read_json(spec, parse_float=Decimal, unique_keys=True)
        except JsonDocumentError as exc:
            raise InputError(f"{spec}: not a valid plan JSON document (runway-deploy plan --format json): {exc}") from None
        except OSError as exc:
            raise InputError(f"{spec}: cannot read: {exc.strerror or exc}") from None
        return _side_of_json_text(spec, doc)
    if os.path.lexists(spec) and not os.path.isdir(spec):
        _refuse_odd_file(spec, spec)
    return _side_of_analysis(spec, load_path(spec, catalog))


def absent_head(path: str) -> Side:
    """The head of a product the change deletes (PATH gone from the working tree)."""
    return Side(path, PlanSide(None, None, (), present=False), note=f"{path}: absent in the working tree; every item counts as removed")


def base_of(path: str, rev: str, catalog: Catalog) -> Side:
    """``diff PATH --base REV``: the same runway at ``rev`` (PATH's root folder, relative to the
    repository's top; PATH itself when it is gone from the working tree)."""
    cwd = os.getcwd()
    top = repository_top(cwd)
    if not os.path.lexists(path):
        rel = _inside(path, top)
        side = git_side(rev, "" if rel == "." else rel, catalog, f"{rev}:{rel}", cwd)
        if not side.plan.present:
            side.close()
            raise InputError(f"{path}: no such file or folder, in the working tree or at {rev}")
        return side
    root_folder = os.path.dirname(os.path.abspath(resolve_root(path)))
    rel = Path(os.path.relpath(root_folder, top)).as_posix()
    if rel.startswith(".."):
        raise InputError(f"{path}: outside the git repository at {top}")
    return git_side(rev, "" if rel == "." else rel, catalog, f"{rev}:{rel}", cwd)


def _inside(path: str, top: str) -> str:
    """``path`` relative to the repository's top (``/`` separators); InputError outside it."""
    rel = Path(os.path.relpath(os.path.abspath(path), top)).as_posix()
    if rel == ".." or rel.startswith("../"):
        raise InputError(f"{path}: outside the git repository at {top}")
    return rel


@dataclass
class ProductPair:
    """One product of a monorepo diff: its root runway's folder relative to the repository's
    top (``path``), and its two sides (an absent one ``present`` False)."""

    path: str
    base: Side
    head: Side

    def close(self) -> None:
        self.base.close()
        self.head.close()


def _roots_under(path: str, warn: Any) -> list[str]:
    """The root runways PATH names: every one under a folder with no runway at its top
    (:func:`~deploy_engine.cli.inputs.discover_roots`), else PATH's own root; none when PATH
    does not exist or holds none (the other side may have them)."""
    from deploy_engine.cli.inputs import discover_roots, runway_file

    if not os.path.lexists(path):
        return []
    try:
        if os.path.isdir(path) and runway_file(path) is None:
            return discover_roots(path, warn)
        return [resolve_root(path)]
    except InputError:
        return []


def _refuse_linked_head(key: str, top: str, rev: str) -> None:
    """InputError (exit 3) when the product at ``rev`` whose folder is ``key`` (relative to the
    repository's top) has, in the working tree, a symlink at that folder or at a folder above
    it (``products/orders -> ../.hidden/orders``): the discovery never follows a folder link
    (git stores it as a link), so the product would read as removed and a ``--max-increase``
    gate would pass on a saving nobody made (sixth adversary F11). Refused, fail closed."""
    parts = key.split("/")
    for i in range(len(parts)):
        here = os.path.join(top, *parts[: i + 1])
        if os.path.islink(here):
            shown = "/".join(parts[: i + 1])
            raise InputError(f"{key}: a product at {rev}, and in the working tree {shown} is a symlink (-> "
                             f"{printable(os.readlink(here))}), which git stores as a link, not a folder; diff never follows it, "
                             f"so the product is refused rather than called removed: name the folder it leads to")


def product_pairs(paths: list[str], rev: str, catalog: Catalog, warn: Any = None) -> list[ProductPair]:
    """``diff PATH... --base REV`` over a monorepo: every root runway found under the PATHs in
    the working tree (head) or at ``rev`` (base), joined by its folder relative to the
    repository's top, sorted by it. A product only at ``rev`` is removed (head absent), one
    only in the working tree added (base absent). InputError (exit 3) when neither side holds
    a runway, for an unknown revision, or a PATH outside the repository."""
    cwd = os.getcwd()
    top = repository_top(cwd)
    if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top).returncode != 0:
        raise InputError(f"--base: unknown revision {rev!r}")
    heads: dict[str, str] = {}
    bases: dict[str, tuple[str, Any]] = {}
    keep: list[Any] = []
    gitlinks: dict[str, str] = {}  # submodules at rev under the PATHs: path -> commit
    try:
        for path in paths:
            if path == "":
                raise InputError("PATH is empty (an unset variable?); name a runway file or folder, or `.`")
            rel = _inside(path, top)
            refuse_folder_link(path)
            for root in _roots_under(path, warn):
                key = _inside(os.path.dirname(os.path.abspath(root)), top)
                heads.setdefault(key, root)
            spec = f"{rev}:{'' if rel == '.' else rel}"
            kind = _git(["cat-file", "-t", spec], top)
            if kind.returncode != 0:
                gitlink = submodule_at(rev, "" if rel == "." else rel, top)
                if gitlink is not None:
                    gitlinks[gitlink[0]] = gitlink[1]
                    continue
                if not os.path.lexists(path):
                    # A typo is no product: neither side has the PATH at all.
                    raise InputError(f"{path}: no such file or folder, in the working tree or at {rev}")
                continue  # nothing at the base: every product under PATH is added
            folder = "" if rel == "." else (rel if kind.stdout.strip() == b"tree" else os.path.dirname(rel))
            tmp = archive_folder(rev, folder, top, spec, gitlinks)
            keep.append(tmp)
            local = os.path.join(tmp.name, *[p for p in rel.split("/") if p not in ("", ".")])
            for root in _roots_under(local, None):
                key = Path(os.path.relpath(os.path.dirname(root), tmp.name)).as_posix()
                bases.setdefault(key, (root, tmp))
        for key in sorted(heads):
            # A product in a submodule at rev: the base tree holds only its commit, never "added".
            inside = next(((g, c) for g, c in gitlinks.items() if key == g or key.startswith(g + "/")), None)
            if inside is not None:
                raise refuse_submodule(f"{rev}:{key}", rev, *inside)
        if not heads and not bases:
            raise InputError(f"no runway found: {', '.join(paths)} hold no runway in the working tree or at {rev}")
        for key in sorted(set(bases) - set(heads)):
            _refuse_linked_head(key, top, rev)
        from deploy_engine.cli.inputs import load_path

        pairs: list[ProductPair] = []
        for key in sorted(set(heads) | set(bases)):
            if key in bases:
                root, tmp = bases[key]
                base = _side_of_analysis(f"{rev}:{key}", Loaded(load_path(root, catalog).analysis, os.path.dirname(root)))
            else:
                base = Side(f"{rev}:{key}", PlanSide(None, None, (), present=False))
            head = _side_of_analysis(key, load_path(heads[key], catalog)) if key in heads else Side(key, PlanSide(None, None, (), present=False))
            pairs.append(ProductPair(key, base, head))
        if pairs:
            pairs[0].base.keep.extend(keep)  # the archives live as long as the first pair
            keep = []
        return pairs
    finally:
        for tmp in keep:
            tmp.cleanup()


__all__ = ["ProductPair", "Side", "absent_head", "archive_folder", "base_of", "write_tree", "git_refusal", "git_side",
           "product_pairs", "refuse_submodule", "repository_top", "resolve_side", "submodule_at"]
