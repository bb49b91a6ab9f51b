"""Finding and analysing the runways a command names (PATHs, ``-`` for standard input,
``--catalog``), and the environments it selects (``--env``). Raises
:class:`~deploy_engine.exits.InputError` (exit 3) or :class:`~deploy_engine.exits.UsageError`
(exit 64); messages name paths, never contents.

A folder with no runway at its top stands for every root runway under it (a monorepo,
docs/cli.md "Several runways"): the files git tracks when the folder is in a git work tree,
else a walk of the folder; hidden folders, ``node_modules`` and virtual environments are
skipped either way.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Sequence

from deploy_engine.cli import gitrun
from deploy_engine.exits import PROG, InputError, UsageError
from deploy_engine.terminal import printable
from runway_core.diagnostics import Severity
from runway_core.analysis import analyze
from runway_core.catalog import PRICES_FILE, SIZES_FILE, Catalog, CatalogError, load_catalog
from runway_core.diagnostics import Diagnostic
from runway_core.facts import Analysis
from runway_core.files import blocking_kind, walk_folders
from runway_core.workspace import MAX_FILE_BYTES, ROOT_NAMES, FileTooLarge, declares_product, find_root, open_regular, read_disk

#: PATH ``-``: one runway read from standard input, shown under this name.
STDIN_PATH = "-"
STDIN_NAME = "<stdin>"
#: Folders never searched for runways (besides hidden ones and virtual environments).
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


@dataclass(frozen=True)
class Loaded:
    """One analysed root runway and the base of its paths when a file is outside the current
    folder: its root file's folder, or the folder searched when it was found under one."""

    analysis: Analysis
    base: str


#: A diagnostic with its analysis and the base of its paths.
Entry = tuple[Diagnostic, Analysis, str]


def entries_of(loaded: Sequence[Loaded]) -> list[Entry]:
    """Every diagnostic with its analysis and its root's base, runway by runway."""
    return [(d, item.analysis, item.base) for item in loaded for d in item.analysis.all_diagnostics()]


def runway_file(path: str) -> str | None:
    """The runway file PATH names (itself, or the runway.yaml/.yml of a folder), None if none."""
    p = Path(path)
    if p.is_dir():
        f = next((p / n for n in ROOT_NAMES if (p / n).is_file()), None)
        return str(f.resolve()) if f is not None else None
    return str(p.resolve()) if p.is_file() else None


def resolve_root(path: str) -> str:
    """The root runway file for PATH (a folder holding runway.yaml/.yml, or a runway file).

    A runway without ``product:`` (a member) resolves to the nearest root above it
    (:func:`runway_core.workspace.find_root`); with none above, it is analysed alone (a lone
    member gets RW154). Raises :class:`InputError` when nothing is found or PATH is not a
    readable file or folder; the message names the path, never the file's contents.
    """
    p = Path(path)
    if not path:
        raise InputError("no runway found: the path is empty")
    refuse_folder_link(path)
    if p.is_dir():
        candidate = next((p / n for n in ROOT_NAMES if (p / n).is_file()), None)
        if candidate is None:
            refuse_odd_runway(path)
            raise InputError(f"no runway found: {path} holds no {' or '.join(ROOT_NAMES)}")
    elif p.is_file():
        candidate = p
    elif p.exists():
        raise InputError(f"{path}: not a regular file ({_kind_of(path)}), nor a folder; a runway is a regular file, never read")
    else:
        raise InputError(f"{path}: no such file or folder")
    try:
        with open(candidate, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise InputError(f"{candidate}: cannot read: {exc.strerror or exc}") from None
    return find_root(str(candidate.resolve())) or str(candidate)


def _kind_of(path: str) -> str:
    """What ``path`` is when it is no regular file: ``a FIFO``, ``a socket``, ``a device``, ``a
    folder``, ``a symlink to nothing``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a symlink to nothing" if os.path.islink(path) else "unreadable"
    return blocking_kind(mode) or ("a folder" if stat.S_ISDIR(mode) else "not a regular file")


def refuse_odd_runway(folder: str) -> None:
    """InputError (exit 3) when ``folder`` holds a ``runway.yaml``/``runway.yml`` that is no
    regular file (a FIFO, socket, device, folder or a symlink to nothing), never opened: it was
    "holds no runway.yaml" (then the search below it), which a FIFO named so is not (sixth
    adversary); as ``check FIFO`` refuses a PATH that is one."""
    for name in ROOT_NAMES:
        f = os.path.join(folder, name)
        if os.path.lexists(f) and not os.path.isfile(f):
            raise InputError(f"{os.path.join(folder, name)}: not a regular file ({_kind_of(f)}); a runway is a regular file, never read")


def refuse_folder_link(path: str) -> None:
    """InputError (exit 3) when PATH itself is a symlink to a folder (``products/orders ->
    ../.hidden/orders``): git stores such a PATH as a link, not a folder, so a revision's tree
    holds no runway there, ``diff --base`` writes it as a link and a monorepo's discovery never
    follows it. Read here it was planned while ``diff products --base REV`` called the product
    removed and passed ``--max-increase`` (sixth adversary F11): every command refuses it alike,
    naming the folder to give instead (docs/cli.md, "PATH")."""
    bare = path.rstrip("/") or path
    try:
        linked = os.path.islink(bare) and os.path.isdir(bare)
        target = os.readlink(bare) if linked else ""
    except (OSError, ValueError):
        return  # unreadable or no such path: what follows says so
    if linked:
        leads = os.path.relpath(os.path.realpath(bare))
        shown = leads if not leads.startswith("..") else os.path.realpath(bare)
        raise InputError(f"{printable(path)} is a symlink to a folder (-> {printable(target)}), which git stores as a link, not a "
                         f"folder (a monorepo's discovery and diff --base never follow it); refused, never followed: name the "
                         f"folder it leads to ({printable(shown)})")


def catalog_for(folder: str | None) -> Catalog:
    """The catalogue in ``folder`` (``--catalog``), else the packaged one; InputError if invalid."""
    if folder is None:
        return load_catalog()
    try:
        return load_catalog(folder)
    except CatalogError as exc:
        raise InputError(f"catalogue: {exc}") from None


def load_path(path: str, catalog: Catalog, usage: str | None = None) -> Loaded:
    """The analysis for one PATH naming a runway (file or folder with one at its top);
    ``usage``, a usage file (``--usage``, relative to the current folder) instead of the
    root's ``runway.usage.yaml``."""
    root_file = resolve_root(path)
    usage = os.path.abspath(usage) if usage else None
    an = analyze(root_file, catalog, usage_file=usage)
    asked = runway_file(path)
    root_errors = any(d.severity == Severity.ERROR for d in an.diagnostics.get(an.root_file, ()))
    if (asked is not None and not root_errors and asked not in an.files
            and os.path.realpath(asked) not in {os.path.realpath(f) for f in an.files}):
        # A member a valid root above does not list: check it alone (RW154), as the editor
        # does, rather than report on a root that never reads it. A root with errors (RW001:
        # its `members` may be unreadable) is reported instead: checking a member checks the
        # product, and a broken product never passes (docs/cli.md, PATH; issue 16 item 2).
        an = analyze(asked, catalog, usage_file=usage)
    return Loaded(an, os.path.dirname(an.root_file))


def load_stdin(stream: IO[Any], catalog: Catalog, usage: str | None = None) -> Loaded:
    """One runway read from ``stream`` (bytes when it has a ``buffer``, UTF-8), analysed as if
    it were a file named ``<stdin>`` in the current folder (members it lists are read from
    there). Over 1 MiB is RW011 and bytes that are not UTF-8 RW001, as for a file."""
    raw = getattr(stream, "buffer", None)
    data: bytes | str = (raw if raw is not None else stream).read(MAX_FILE_BYTES + 1)
    virtual = os.path.join(os.getcwd(), STDIN_NAME)

    def read(path: str) -> str:
        if path != virtual:
            return read_disk(path)
        if len(data) > MAX_FILE_BYTES:
            raise FileTooLarge(len(data), at_least=True)  # what was read, not the stream's length
        return data.decode("utf-8") if isinstance(data, bytes) else data

    an = analyze(virtual, catalog, read, usage_file=os.path.abspath(usage) if usage else None)
    return Loaded(an, os.getcwd())


def _skipped(folder: Path) -> bool:
    name = folder.name
    return name.startswith(".") or name in SKIPPED_FOLDERS or (folder / "pyvenv.cfg").is_file()


Warn = Callable[[str], None]


def stderr_warn(stream: IO[str]) -> Warn:
    """The :data:`Warn` of a command: each warning one line of ``stream`` (standard error), its
    control characters escaped (:func:`deploy_engine.terminal.printable`) whatever a caller
    forgot. A folder name is input: ``products/a<LF>::error::...`` must never start a line of
    its own, since GitHub's runner reads workflow commands from standard error too (eighth
    adversary F3)."""
    return lambda line: print(printable(line), file=stream)


def _unreachable(path: Path | str, exc: OSError, warn: Warn | None) -> None:
    """A path the walk cannot stat or list (longer than PATH_MAX: ENAMETOOLONG; too many
    symlinks; a folder this user may not read: EACCES): skipped, with one warning naming it
    and the reason (never exit 70). Only the PATH_MAX skip gives the path's length."""
    if warn is not None:
        text = printable(os.fsdecode(path))
        shown = text if len(text) <= 120 else text[:117] + "..."
        length = f" ({len(text):,} characters)" if exc.errno == errno.ENAMETOOLONG else ""
        warn(f"{PROG}: warning: skipped {shown}{length}: {exc.strerror or exc}")


#: The mode of a gitlink (a submodule's commit) in git's index (gitformat-index(5)).
GITLINK_MODE = b"160000"


def _git_runway_files(folder: Path, warn: Warn | None = None) -> list[Path] | None:
    """The runway files git tracks under ``folder``, those of its checked-out submodules
    included, or None when it is in no git work tree (or git is not installed).

    ``git ls-files --stage --recurse-submodules`` (git-ls-files(1): the submodule option works
    with the cached and stage modes, this one's) lists each active, checked-out submodule's
    files under its path, as monorepo tools read them: a product kept in a submodule is checked
    and planned (it was silently left out: fourth adversary, F05). A gitlink it leaves as one
    entry (mode 160000: a submodule not checked out, not active, or a repository added inside
    without ``.gitmodules``) holds files runway cannot read from here: one ``warn`` line names
    each.

    git runs through :mod:`deploy_engine.cli.gitrun`: a repository holding a file git would wait
    on (a FIFO its ``.git/config`` includes) is refused at once, and git past the command's git
    deadline ends the command; both exit 3 (InputError), never a silent walk instead (the walk
    would read untracked runways the tracked listing leaves out)."""
    try:
        proc = gitrun.run(["ls-files", "-z", "--stage", "--recurse-submodules", "--full-name"], str(folder))
        top = gitrun.run(["rev-parse", "--show-toplevel"], str(folder)) if proc.returncode == 0 else proc
    except gitrun.GitMissing:
        return None
    if proc.returncode != 0 or top.returncode != 0:
        failed = proc if proc.returncode != 0 else top
        said = failed.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in said:
            return None  # outside any work tree: the folder is walked
        # A work tree git refuses (dubious ownership in a container job, a corrupt index, an
        # unknown extension): walking it instead planned untracked runways while `diff` of the
        # same job refused (tenth adversary C11); refused here too, in git's words.
        first = said.splitlines()[0] if said else f"exit {failed.returncode}"
        raise InputError(f"{printable(str(folder))}: git refused to list the files it tracks: {printable(first)}; "
                         f"fix the repository (or run outside it), the folder is not walked instead")
    root = Path(os.fsdecode(top.stdout.strip()))
    names = {n.encode() for n in ROOT_NAMES}
    found: list[Path] = []
    for raw in proc.stdout.split(b"\0"):
        meta, tab, path = raw.partition(b"\t")
        if not tab:
            continue
        if meta.split(b" ", 1)[0] == GITLINK_MODE:
            full = root / os.fsdecode(path)
            parts = full.relative_to(folder).parts if full.is_relative_to(folder) else full.parts
            # One under a folder the discovery skips (`.github/…`, `node_modules/…`) is not named.
            if warn is not None and not any(p.startswith(".") or p in SKIPPED_FOLDERS for p in parts):
                shown = printable(os.fsdecode(path))
                warn(f"{PROG}: warning: {shown} is a git submodule not checked out (or not active): any runway in it is "
                     f"not read; check it out first (git submodule update --init -- {shown})")
        elif path.rsplit(b"/", 1)[-1] in names:
            found.append(root / os.fsdecode(path))
    return found


def _walk_runway_files(folder: Path, warn: Warn | None = None) -> list[Path]:
    """The runway files under ``folder`` outside git: :func:`runway_core.files.walk_folders`
    (iterative: any depth, fourth adversary F03; folder symlinks never followed), skipping
    what :func:`_skipped` names; a folder that cannot be read is warned and skipped."""

    def enter(entry: os.DirEntry[str], _depth: int) -> bool:
        try:
            return not _skipped(Path(entry.path))
        except OSError as exc:
            _unreachable(entry.path, exc, warn)
            return False

    found: list[Path] = []
    for dirpath, _depth, entries in walk_folders(str(folder), enter, lambda path, exc: _unreachable(path, exc, warn)):
        names = {e.name for e in entries}
        found += [Path(dirpath, n) for n in ROOT_NAMES if n in names]
    return found


def discover_roots(folder: str, warn: Warn | None = None) -> list[str]:
    """Every root runway under ``folder`` (a file with ``product:``, and the root above each
    member found), sorted by path; hidden folders, ``node_modules`` and virtual environments
    skipped, and so are paths the system cannot reach (longer than PATH_MAX), each with a
    ``warn`` line. Raises :class:`InputError` when there is none."""
    base = Path(folder).resolve()
    files = _git_runway_files(base, warn)
    if files is None:
        files = _walk_runway_files(base, warn)
    roots: list[str] = []
    seen: set[str] = set()
    for f in sorted(files):
        rel_parts = f.relative_to(base).parts[:-1] if f.is_relative_to(base) else ()
        if any(part.startswith(".") or part in SKIPPED_FOLDERS for part in rel_parts):
            continue
        try:
            if not f.is_file() or any(_skipped(base.joinpath(*rel_parts[: i + 1])) for i in range(len(rel_parts))):
                continue
            root = find_root(str(f))
        except OSError as exc:
            _unreachable(f, exc, warn)
            continue
        if root is None or root in seen or not _is_root(root):
            continue
        seen.add(root)
        roots.append(root)
    if not roots:
        raise InputError(f"no runway found: {folder} holds no {' or '.join(ROOT_NAMES)}, nor any folder under it")
    return roots


def _is_root(path: str) -> bool:
    try:  # never opens a FIFO swapped in since find_root saw a file (open_regular)
        text = open_regular(path, MAX_FILE_BYTES)[0].decode("utf-8", "replace")
    except OSError:
        return False
    return declares_product(text)


def files_read(loaded: Iterable[Loaded | None], catalog_folder: str | None = None) -> list[str]:
    """Every file the analyses of ``loaded`` read (root and members; ``-`` for standard input,
    :data:`deploy_engine.cli.output.STDIN_INPUT`) and, with ``--catalog DIR``, its two data
    files: what ``--output FILE`` may never be (:mod:`deploy_engine.cli.output`)."""
    files = [f for item in loaded if item is not None for f in item.analysis.files]
    out = [f for f in files if os.path.basename(f) != STDIN_NAME]
    if len(out) < len(files):
        # A runway read from standard input: its file (`< runway.yaml`) is an input too, so
        # GITHUB_STEP_SUMMARY=/dev/stdin never appends to it (fourth adversary, round 5).
        out.append(STDIN_PATH)
    if catalog_folder is not None:
        out += [os.path.join(catalog_folder, SIZES_FILE), os.path.join(catalog_folder, PRICES_FILE)]
    return out


def load_all(paths: Sequence[str], catalog_folder: str | None, stdin: IO[Any], warn: Warn | None = None,
             usage: str | None = None) -> list[Loaded]:
    """One :class:`Loaded` per root runway the PATHs name, each once, in the order given
    (``-``: standard input; a folder with no runway at its top: :func:`discover_roots`, which
    says what it skipped through ``warn``). An empty PATH (``check "$UNSET"``) is InputError
    (exit 3), never the current folder."""
    catalog = catalog_for(catalog_folder)
    out: list[Loaded] = []
    seen: set[str] = set()
    if usage is not None and len(paths) > 1:
        raise InputError("--usage names the usage file of one runway: give one PATH with it")
    for path in paths or ["."]:
        if path == "":
            raise InputError("PATH is empty (an unset variable?); name a runway file or folder, or `.`")
        if path == STDIN_PATH:
            if stdin is None:
                # `check - <&-`: the process has no standard input at all (sys.stdin is None).
                raise InputError("standard input is closed; nothing to read for `-`")
            out.append(load_stdin(stdin, catalog, usage))
            continue
        p = Path(path)
        refuse_folder_link(path)
        if p.is_dir() and runway_file(path) is None:
            refuse_odd_runway(path)
            # Outside the current folder, files are shown relative to the folder searched, so
            # two products' `runway.yaml` stay apart.
            searched = str(p.resolve())
            roots = discover_roots(path, warn)
            if usage is not None and len(roots) > 1:
                raise InputError(f"--usage names the usage file of one runway, and {path} holds {len(roots)} root runways: name one")
            loaded: Iterable[Loaded] = [Loaded(analyze(r, catalog, usage_file=os.path.abspath(usage) if usage else None), searched) for r in roots]
        else:
            loaded = [load_path(path, catalog, usage)]
        for item in loaded:
            key = os.path.realpath(item.analysis.root_file)
            if key not in seen:
                seen.add(key)
                out.append(item)
                _warn_shadowed(item, warn)
    warn_same_product([(os.path.dirname(i.analysis.root_file), i.analysis.spec.product if i.analysis.spec else None) for i in out], warn)
    return out


def _shown_folder(folder: str) -> str:
    here = os.path.relpath(os.path.abspath(folder) or ".")
    return printable(Path(os.path.abspath(folder) if here.startswith("..") else here).as_posix())


def warn_same_product(named: Sequence[tuple[str, str | None]], warn: Warn | None) -> None:
    """One warning per ``product:`` name that several root runways (``(folder, product)``
    pairs) declare: the product names its stacks, its SSM parameters
    (``/runway/<product>/<env>/...``) and its rows in a comment, so two such folders would
    deploy over each other (docs/cli.md, "plan", several runways)."""
    if warn is None:
        return
    folders: dict[str, list[str]] = {}
    for folder, product in named:
        if product is not None:
            folders.setdefault(product, []).append(folder)
    for product, found in folders.items():
        if len(found) > 1:
            shown = ", ".join(_shown_folder(f) for f in found)
            warn(f"{PROG}: warning: {len(found)} runways declare product '{printable(product)}' ({shown}): its stacks and SSM "
                 f"parameters (/runway/{printable(product)}/...) would be shared; give each folder its own product name")


def _warn_shadowed(item: Loaded, warn: Warn | None) -> None:
    """One warning per folder of the analysis holding both ``runway.yaml`` and ``runway.yml``:
    ``runway.yaml`` is read, the ``.yml`` never (docs/format.md, "Root runway")."""
    if warn is None:
        return
    for f in item.analysis.files:
        folder, name = os.path.split(f)
        if name == ROOT_NAMES[0] and os.path.isfile(os.path.join(folder, ROOT_NAMES[1])):
            other = os.path.abspath(os.path.join(folder, ROOT_NAMES[1]))
            here = os.path.relpath(other)
            shown = printable(other if here.startswith("..") else here)
            warn(f"{PROG}: warning: {shown} is ignored: its folder also holds {ROOT_NAMES[0]}, which is the one read")


def load(args: argparse.Namespace) -> tuple[Analysis, str]:
    """(analysis, folder of its root runway) for ``args.path`` (one PATH) and ``args.catalog``."""
    loaded = load_path(args.path, catalog_for(args.catalog), getattr(args, "usage", None))
    return loaded.analysis, loaded.base


def selected_environments(an: Analysis, wanted: Sequence[str] | None, command: str = "plan") -> list[str]:
    """The environments ``--env`` selects, in declaration order, each once (all when none
    given); an unknown one is a :class:`UsageError` naming the declared ones."""
    declared = list(an.plans)
    if not wanted:
        return declared
    if an.spec is not None:
        unknown = [e for e in wanted if e not in an.plans]
        if unknown:
            known = ", ".join(declared) or "none"
            raise UsageError(f"{PROG} {command}: error: --env {unknown[0]}: no such environment in {Path(an.root_file).name} (declared: {known})")
    return [e for e in declared if e in set(wanted)]


__all__ = ["Entry", "Loaded", "entries_of", "catalog_for", "files_read", "discover_roots", "load", "load_all", "load_path", "load_stdin", "refuse_folder_link", "resolve_root", "runway_file", "selected_environments", "warn_same_product"]
