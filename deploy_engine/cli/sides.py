"""The two sides of ``runway-deploy diff``: what BASE and HEAD name, read into plans
(docs/cli.md, "diff").

A side is a runway path (a folder or a runway file: analysed and planned here), a plan JSON
file (``plan --format json`` output, ending in ``.json``), or ``REV:PATH``, a runway or plan
file at a git revision (``origin/main:products/orders``; PATH relative to the repository's top
unless it starts with ``./`` or ``../``). A revision's runway is read from ``git archive`` of
its folder into a temporary folder (members live inside the root's folder, so that is the whole
runway); a PATH absent at that revision is an empty plan (a product this change adds). Raises
:class:`~deploy_engine.exits.InputError` (exit 3) for an unreadable side or an unknown revision.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from deploy_engine.cli.inputs import Loaded, load_path, resolve_root
from deploy_engine.exits import REFUSAL_CODES, InputError
from runway_core.catalog import Catalog
from runway_core.diagnostics import Severity
from runway_core.plan_diff import PlanDocumentError, PlanSide, side_of_json, side_of_plan
from runway_core.planner import Plan
from runway_core.workspace import MAX_JSON_BYTES, JsonDocumentError, loads_json, read_json

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
    keep: list[Any] = field(default_factory=list)  # temporary folders, removed with the side

    def close(self) -> None:
        for tmp in self.keep:
            tmp.cleanup()
        self.keep.clear()


def _side_of_analysis(label: str, loaded: Loaded) -> Side:
    an = loaded.analysis
    spec = an.spec
    plan = Plan(spec.product if spec else None, spec.region if spec else None, tuple(an.plans.values()), an.catalog.origin)  # type: ignore[arg-type]
    invalid = any(d.severity == Severity.ERROR and d.code not in REFUSAL_CODES for d in an.all_diagnostics())
    invalid = invalid or (spec is None and an.files[an.root_file].role != "member")
    return Side(label, side_of_plan(plan), loaded, invalid)


def _side_of_json_text(label: str, text: Any) -> Side:
    """A side from a plan JSON document: its bytes or text, or the document already read."""
    try:
        doc = loads_json(text, parse_float=Decimal) if isinstance(text, (str, bytes)) else text
        side = side_of_json(doc)
    except (ValueError, PlanDocumentError) as exc:
        raise InputError(f"{label}: not a valid plan JSON document (runway-deploy plan --format json): {exc}") from None
    diags = doc.get("diagnostics") if isinstance(doc, dict) else None
    invalid = isinstance(diags, list) and any(
        isinstance(d, dict) and d.get("severity") == "error" and d.get("code") not in REFUSAL_CODES for d in diags)
    return Side(label, side, None, invalid)


#: What a file side may be named: a runway (YAML) or a plan JSON document.
_SIDE_SUFFIXES = (".yaml", ".yml", ".json")


def _refuse_odd_file(label: str, name: str) -> None:
    """InputError (exit 3) for a file side that is neither a runway nor a plan JSON: read as a
    runway it would resolve to the root above it and compare against the wrong plan (or none)."""
    if not name.lower().endswith(_SIDE_SUFFIXES):
        raise InputError(f"{label}: neither a runway (.yaml, .yml, or a folder holding one) nor a plan JSON file (.json)")


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", cwd, *args], capture_output=True, timeout=300)
    except OSError as exc:
        raise InputError(f"git: {exc.strerror or exc} (REV:PATH and --base read the runway from git)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {args[0]}: timed out") from None


def repository_top(cwd: str) -> str:
    """The top folder of the git work tree holding ``cwd``; InputError when there is none."""
    proc = _git(["rev-parse", "--show-toplevel"], cwd)
    if proc.returncode != 0:
        raise InputError(f"{cwd}: not in a git repository (REV:PATH and --base need one)")
    return os.fsdecode(proc.stdout.strip())


def git_side(rev: str, rel: str, catalog: Catalog, label: str, cwd: str) -> Side:
    """The side at ``rev`` of ``rel`` (a path relative to the repository's top, ``/``
    separators): a plan JSON file, a runway file or a folder holding one."""
    top = repository_top(cwd)
    if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top).returncode != 0:
        raise InputError(f"{label}: unknown revision {rev!r}")
    rel = rel.strip("/")
    kind = _git(["cat-file", "-t", f"{rev}:{rel}"], top)
    if kind.returncode != 0:
        # A product (or runway) this change adds: nothing at the base, every item added.
        return Side(label, PlanSide(None, None, ()), note=f"{label}: absent at {rev}; every item counts as added")
    if kind.stdout.strip() == b"blob" and rel.endswith(".json"):
        blob = _git(["show", f"{rev}:{rel}"], top).stdout
        if len(blob) > MAX_JSON_BYTES:
            raise InputError(f"{label}: not a valid plan JSON document: {len(blob):,} bytes, over the {MAX_JSON_BYTES // (1024 * 1024)} MiB limit")
        return _side_of_json_text(label, blob)
    if kind.stdout.strip() == b"blob":
        _refuse_odd_file(label, rel)
    folder = rel if kind.stdout.strip() == b"tree" else os.path.dirname(rel)
    archive = _git(["archive", "--format=tar", rev, "--", folder] if folder else ["archive", "--format=tar", rev], top)
    if archive.returncode != 0:
        raise InputError(f"{label}: git archive failed: {archive.stderr.decode('utf-8', 'replace').strip().splitlines()[:1]}")
    tmp = tempfile.TemporaryDirectory(prefix="runway-diff-")
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                tar.extractall(tmp.name, filter="data")
        except tarfile.FilterError as exc:
            # A symlink at REV that is absolute or leaves the folder (`services/a -> /etc`): the
            # working tree's `check` refuses it (RW151), never reading through it; so does the
            # base, which has no positions to put a diagnostic at: exit 3 with the reason.
            member = getattr(getattr(exc, "tarinfo", None), "name", "?")
            raise InputError(f"{label}: {member} at {rev} is a symlink (or file) that leaves the product's folder "
                             f"({type(exc).__name__}); refused, never followed") from None
        except tarfile.TarError as exc:
            raise InputError(f"{label}: git archive of {rev} could not be read ({type(exc).__name__})") from None
        local = Path(tmp.name, *([p for p in rel.split("/") if p] or ["."]))
        side = _side_of_analysis(label, load_path(str(local), catalog))
    except BaseException:
        tmp.cleanup()
        raise
    side.keep.append(tmp)
    return side


def _top_relative(path: str, cwd: str) -> str:
    """``path`` (of a ``REV:PATH``) relative to the repository's top: as written, unless it
    starts with ``./`` or ``../`` (then relative to ``cwd``, as git reads it)."""
    if path in (".", "..") or path.startswith(("./", "../")):
        top = repository_top(cwd)
        return Path(os.path.relpath(os.path.normpath(os.path.join(os.path.abspath(cwd), path)), top)).as_posix()
    return path


def resolve_side(spec: str, catalog: Catalog) -> Side:
    """The side ``spec`` names (module docstring)."""
    cwd = os.getcwd()
    match = _GIT_SPEC.match(spec)
    if match and not os.path.exists(spec):
        rel = _top_relative(match["path"], cwd)
        return git_side(match["rev"], "" if rel == "." else rel, catalog, spec, cwd)
    if spec.endswith(".json") and os.path.lexists(spec):
        try:
            doc = read_json(spec, parse_float=Decimal)
        except JsonDocumentError as exc:
            raise InputError(f"{spec}: not a valid plan JSON document (runway-deploy plan --format json): {exc}") from None
        except OSError as exc:
            raise InputError(f"{spec}: cannot read: {exc.strerror or exc}") from None
        return _side_of_json_text(spec, doc)
    if os.path.lexists(spec) and not os.path.isdir(spec):
        _refuse_odd_file(spec, spec)
    return _side_of_analysis(spec, load_path(spec, catalog))


def base_of(path: str, rev: str, catalog: Catalog) -> Side:
    """``diff PATH --base REV``: the same runway at ``rev`` (PATH's root folder, relative to the
    repository's top)."""
    cwd = os.getcwd()
    top = repository_top(cwd)
    root_folder = os.path.dirname(os.path.abspath(resolve_root(path)))
    rel = Path(os.path.relpath(root_folder, top)).as_posix()
    if rel.startswith(".."):
        raise InputError(f"{path}: outside the git repository at {top}")
    return git_side(rev, "" if rel == "." else rel, catalog, f"{rev}:{rel}", cwd)


__all__ = ["Side", "base_of", "git_side", "repository_top", "resolve_side"]
