"""``check [PATH...]``: the diagnostics of every root runway named and its members; exit 1 when
one is at or above ``--fail-on`` (default error), 0 with ``--exit-zero``."""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import IO, Any, Sequence

import deploy_engine.cli.summary as summary
from deploy_engine.cli.commands._args import add_ci_arguments, add_paths_argument, named
from deploy_engine.cli.commands._reports import load_reported
from deploy_engine.cli.formats import github, markdown, sarif, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import file_count, summary_line
from deploy_engine.cli.inputs import Entry, entries_of, files_read
from deploy_engine.cli.output import Output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_OK, InputError
from runway_core.diagnostics import Severity

NAME = "check"
#: ``--fail-on``: the least severe diagnostic that fails the run.
FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "information": Severity.INFORMATION, "hint": Severity.HINT}

def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="print diagnostics; exit 1 when any is an error",
                       description="Print the diagnostics of root runways and their members.")
    add_paths_argument(p)
    p.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                   help="output format: text, json, github (workflow-command annotations) or sarif (SARIF 2.1.0); default text")
    add_ci_arguments(p)
    p.add_argument("--fail-on", choices=tuple(FAIL_ON), default="error",
                   help="exit 1 when a diagnostic is this severe or more (default: error)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when diagnostics would fail the run (report only)")
    p.add_argument("--deployed", metavar="FILE", default=None, type=named("--deployed FILE"),
                   help="the plan last deployed (plan --format json, or a reviewed plan record): changes AWS refuses against it are "
                   "diagnostics (RW190-RW193); default: the product's .runway/ records when they hold one")
    return p


def add_refused_changes(loaded: Sequence[Any], deployed_file: str | None) -> None:
    """RW190-RW193 of each runway against the plan last deployed (docs/deploy.md, "Changes AWS
    refuses"): ``deployed_file`` when given (InputError, exit 3, when it is no plan), else the
    records of the product's embedded backend (``.runway/``), when they hold one."""
    from runway_core.changes import add_diagnostics, refused_changes, side_of_deployed, with_recorded_changes
    from runway_core.plan_diff import PlanDocumentError
    from runway_core.workspace import JsonDocumentError, read_json

    given = None
    if deployed_file is not None:
        try:
            given = side_of_deployed(read_json(deployed_file, parse_float=Decimal, unique_keys=True))
        except (OSError, JsonDocumentError, PlanDocumentError, ValueError) as exc:
            raise InputError(f"--deployed {deployed_file}: not a plan document (plan --format json, or a reviewed plan record): {exc}") from None
    for item in loaded:
        if given is None:
            with_recorded_changes(item.analysis)
        else:
            add_diagnostics(item.analysis, refused_changes(item.analysis, given, f"--deployed {deployed_file}"))


def render_text(entries: Sequence[Entry], files: int, stream: IO[str], ctx: Context) -> None:
    style = text.Style(stream, ctx.environ)
    for d, _, base in entries:
        print(text.diagnostic_text(d, base, style, ctx.environ), file=stream)
    print(summary_line([d for d, _, _ in entries], files), file=stream)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Diagnostics of the runways; the exit code as the module docstring says."""
    output = Output(args, ctx)
    loaded = load_reported(args, ctx, output, NAME)
    add_refused_changes(loaded, args.deployed)
    entries = entries_of(loaded)
    files = sum(file_count(item.analysis) for item in loaded)
    threshold = FAIL_ON[args.fail_on]
    failing = any(d.severity <= threshold for d, _, _ in entries)
    code = EXIT_INVALID if failing and not args.exit_zero else EXIT_OK
    stream = output.formatted
    if args.format == "json":
        json_format.dump(json_format.check_document(entries, [item.analysis for item in loaded], ctx.environ), stream)
    elif args.format == "sarif":
        json_format.dump(sarif.sarif_log(entries, ctx.environ, command=NAME, exit_code=code), stream)
    elif args.format == "github":
        github.print_diagnostics_github(entries, ctx.environ, stream, summary_line([d for d, _, _ in entries], files))
    else:
        render_text(entries, files, stream, ctx)
    if output.text is not None:
        render_text(entries, files, output.text, ctx)
    # --deployed FILE is read too: never replaced by --output nor appended to as the step summary.
    read = [*files_read(loaded, args.catalog), *([args.deployed] if args.deployed else [])]
    output.close(read)
    if summary.wanted(args, ctx):
        summary.append(args, ctx, summary.section(NAME, summary.label(loaded, ctx.environ), [markdown.diagnostics_markdown(entries, files, ctx.environ)]), read)
    return code
