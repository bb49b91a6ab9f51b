"""``usage init [PATH] [--output FILE] [--force]``: write a commented usage file for the runway
at PATH (docs/cli.md, "usage init"; docs/format.md, "Usage file"): every environment and item
with usage keys, each at the catalogue's assumption for its size, commented out, like
Infracost's ``--sync-usage-file``. A usage file that already exists is read and its values
kept (written uncommented) with ``--force``; without it, an existing file is refused (exit 3).
A target that is one of the runways read (the root, a member) or a ``--catalog`` file is
refused even with ``--force`` (exit 3, the file untouched), by device and inode as ``check
--output`` refuses what it read (:func:`deploy_engine.cli.output.refuse_input_as_output`): the
usage file read is the one file ``--force`` rewrites.
Exit 1 when the runway cannot be planned, or its usage file has errors (rewriting it would
lose the values it could not read)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments, named
from deploy_engine.cli.inputs import load
from deploy_engine.cli.output import open_regular_for_writing, refuse_input_as_output, refuse_runway_as_output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_OK, InputError
from runway_core.analysis.usage import assumption_lines, carry_comments, usage_path, usage_template
from runway_core.catalog import PRICES_FILE, SIZES_FILE
from runway_core.diagnostics import Severity
from runway_core.workspace import MAX_FILE_CHARS, ROOT_NAMES

NAME = "usage"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="write a usage file of the team's own usage quantities",
                       description="Usage files (runway.usage.yaml): `usage init` writes a commented template with every item and the catalogue's assumptions.")
    actions = p.add_subparsers(dest="usage_action", metavar="ACTION", required=True)
    init = actions.add_parser("init", help="write runway.usage.yaml beside the root runway: every item, the catalogue's assumptions commented out",
                              description="Write a commented usage file: every environment and item with usage keys, at the catalogue's assumption for its size.")
    add_path_arguments(init)
    # `--output ""` (an unset variable) is a usage error, as for check/plan: before, it wrote the
    # default file (fourth adversary, F06).
    init.add_argument("--output", metavar="FILE", default=None, type=named("--output FILE"),
                      help="write to FILE (`-`: standard output) instead of runway.usage.yaml beside the root (or the --usage file)")
    init.add_argument("--force", action="store_true",
                      help="replace an existing usage file, keeping the values it gives (default: refuse, exit 3)")
    return p


def _previous_text(path: str) -> str:
    """The usage file being rewritten, as text ("" when it cannot be read as UTF-8 within
    the runway size limit: then no comment is carried, as before)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_CHARS + 1)
        return "" if len(data) > MAX_FILE_CHARS else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Write the template; exit 0, 1 (the runway or its usage file has errors), 3 (the file
    exists without --force, or cannot be written)."""
    an, _base = load(args)
    current = usage_path(an.root_file, os.path.abspath(args.usage) if args.usage else None)
    target = os.path.abspath(args.output) if args.output and args.output != "-" else current
    if args.output != "-":
        # Never a runway or a catalogue file this run read, whatever names it (--output, --usage,
        # a symlink or a hard link), nor any file named runway.yaml/runway.yml, even with --force.
        label = "--output" if args.output else "the usage file"
        runways = [an.root_file] + [f.path for f in an.files.values() if f.role == "member"]
        catalog = [os.path.join(args.catalog, n) for n in (SIZES_FILE, PRICES_FILE)] if args.catalog else []
        refuse_input_as_output(target, runways + catalog, label)
        refuse_runway_as_output(target, label)
        if os.path.basename(target) in ROOT_NAMES:  # a new one too: it would be read as a runway
            raise InputError(f"{label} {target} is named as a runway file; not written (name another FILE, e.g. runway.usage.yaml)")
    if an.spec is None:
        print("runway-deploy usage init: the runway cannot be read as a product; run `runway-deploy check` and fix it first", file=ctx.stderr)
        return EXIT_INVALID
    errors = [d for d in an.diagnostics.get(current, ()) if d.severity == Severity.ERROR]
    if errors:
        print(f"runway-deploy usage init: {current} has {len(errors)} error(s); run `runway-deploy check` and fix them first", file=ctx.stderr)
        return EXIT_INVALID
    text = usage_template(an)
    if os.path.isfile(current):
        # The values kept are those of the current usage file: the team's comments on them too.
        previous = _previous_text(current)
        text = carry_comments(text, previous, assumption_lines(an))
        if previous.count("\r\n") * 2 > previous.count("\n"):
            # A CRLF file stays CRLF (a Windows checkout, core.autocrlf): a rewrite to LF would
            # change every line in the team's diff (ninth adversary M3: carried lines kept a CR).
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if args.output == "-":
        ctx.stdout.write(text)
        return EXIT_OK
    if os.path.lexists(target) and not args.force:
        raise InputError(f"{target}: already exists; pass --force to rewrite it (its values are kept)")
    try:
        with open_regular_for_writing(target, append=False, label="--output") as fh:
            fh.write(text)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from exc
    print(f"wrote {target}", file=ctx.stderr)
    return EXIT_OK
