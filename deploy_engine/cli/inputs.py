"""Finding and analysing the runway a command names (PATH, ``--catalog``), and the
environments it selects (``--env``). Raises :class:`~deploy_engine.exits.InputError` (exit 3)
or :class:`~deploy_engine.exits.UsageError` (exit 64); messages name paths, never contents."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Sequence

from deploy_engine.exits import PROG, InputError, UsageError
from runway_core.analysis import Analysis, analyze
from runway_core.workspace import ROOT_NAMES, find_root
from runway_core.catalog import Catalog, CatalogError, load_catalog


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
    if p.is_dir():
        candidate = next((p / n for n in ROOT_NAMES if (p / n).is_file()), None)
        if candidate is None:
            raise InputError(f"no runway found: {path} holds no {' or '.join(ROOT_NAMES)}")
    elif p.is_file():
        candidate = p
    elif p.exists():
        raise InputError(f"{path}: not a runway file or a folder")
    else:
        raise InputError(f"{path}: no such file or folder")
    try:
        with open(candidate, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise InputError(f"{candidate}: cannot read: {exc.strerror or exc}") from None
    return find_root(str(candidate.resolve())) or str(candidate)


def catalog_for(folder: str | None) -> Catalog:
    """The catalogue in ``folder`` (``--catalog``), else the packaged one; InputError if invalid."""
    if folder is None:
        return load_catalog()
    try:
        return load_catalog(folder)
    except CatalogError as exc:
        raise InputError(f"catalogue: {exc}") from None


def load(args: argparse.Namespace) -> tuple[Analysis, str]:
    """(analysis, folder of its root runway) for ``args.path`` and ``args.catalog``."""
    root_file = resolve_root(args.path)
    catalog = catalog_for(args.catalog)
    an = analyze(root_file, catalog)
    asked = runway_file(args.path)
    if asked is not None and asked not in an.files and os.path.realpath(asked) not in {os.path.realpath(f) for f in an.files}:
        # A member the root above does not list: check it alone (RW154), as the editor does,
        # rather than report on a root that never reads it.
        an = analyze(asked, catalog)
    return an, os.path.dirname(an.root_file)


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


__all__ = ["catalog_for", "load", "resolve_root", "runway_file", "selected_environments"]
