"""The GitHub Actions job summary: one labelled Markdown section per ``runway-deploy`` run,
appended to ``$GITHUB_STEP_SUMMARY`` (docs/ci.md, "Step summary").

``--summary`` always writes it (when the variable is set), ``--no-summary`` never; by default
only a run whose standard output is for people does (``--format text``, ``markdown`` or
``github``, or any format with ``--output FILE``), so ``plan --format json > plan.json`` adds
nothing. Every section is redacted; a write failure is a warning on stderr, never a failure,
but a ``GITHUB_STEP_SUMMARY`` that is no file a summary can go to is exit 3, never opened: a
folder, a socket, a FIFO no process reads (opening it would block), or one of the files the run
read (the runway, a member, the usage file, a catalogue file, a plan JSON; the same file by
device and inode, so a symlink or a hard link to one counts): appending Markdown there would
corrupt the user's runway (round 5, F06), as ``--output`` refuses to replace it.
"""

from __future__ import annotations

import argparse
import os
from typing import Iterable, Mapping, Sequence

from deploy_engine.cli.formats._shared import ci_path
from deploy_engine.cli.formats.markdown import md
from deploy_engine.cli.inputs import Loaded
from deploy_engine.cli.output import open_regular_for_writing, same_input, shown_input

from deploy_engine.context import Context
from deploy_engine.exits import PROG, InputError
from runway_core.text import redact

HUMAN_FORMATS = frozenset({"text", "markdown", "github"})


def wanted(args: argparse.Namespace, ctx: Context) -> bool:
    """Whether this run appends its section (``$GITHUB_STEP_SUMMARY`` set, and the rule above)."""
    if not ctx.environ.get("GITHUB_STEP_SUMMARY"):
        return False
    choice = getattr(args, "summary", None)
    if choice is not None:
        return bool(choice)
    return getattr(args, "format", "text") in HUMAN_FORMATS or getattr(args, "output", None) is not None


def section(command: str, label: str, parts: Sequence[str]) -> str:
    """A ``### runway-deploy <command> — <label>`` heading and the parts, separated by blank
    lines (no HTML: nothing in a job summary is markup but the tables)."""
    head = f"### {PROG} {command} — {label}"
    return "\n\n".join([head, *(p.strip("\n") for p in parts if p.strip())]) + "\n\n"


def label(loaded: Sequence[Loaded], environ: Mapping[str, str]) -> str:
    """The runways of a run as a section heading names them: their folders, shown as paths are."""
    names = [ci_path(os.path.dirname(item.analysis.root_file), item.base, environ) or "." for item in loaded]
    return ", ".join(f"`{md(n)}`" for n in names) or "no runway"


def append(args: argparse.Namespace, ctx: Context, text: str, inputs: Iterable[str] = ()) -> None:
    """Append ``text`` (one :func:`section`) when :func:`wanted`. ``inputs``: the files the run
    read (:func:`deploy_engine.cli.inputs.files_read`); a summary that is one of them is
    InputError (exit 3), never opened (module docstring)."""
    if not wanted(args, ctx):
        return
    path = ctx.environ["GITHUB_STEP_SUMMARY"]
    same = same_input(path, inputs)
    if same is not None:
        raise InputError(f"GITHUB_STEP_SUMMARY {path} is a file this command read{shown_input(same, path)}; "
                         "not appended (it must name the job's summary file)")
    try:
        # A FIFO, device or folder there is refused (exit 3), never opened in a way that blocks.
        with open_regular_for_writing(path, append=True, label="GITHUB_STEP_SUMMARY") as fh:
            fh.write(redact(text))
    except OSError as exc:
        print(f"{PROG}: warning: cannot append to GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}", file=ctx.stderr)


__all__ = ["append", "label", "section", "wanted"]
