"""``check [PATH...]``: the diagnostics of every root runway named and its members; exit 1 when
one is at or above ``--fail-on`` (default error), 0 with ``--exit-zero``."""

from __future__ import annotations

import argparse
from typing import IO, Any, Sequence

import deploy_engine.cli.summary as summary
from deploy_engine.cli.commands._args import add_ci_arguments, add_paths_argument
from deploy_engine.cli.commands._reports import load_reported
from deploy_engine.cli.formats import github, markdown, sarif, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import file_count, summary_line
from deploy_engine.cli.inputs import Entry, entries_of, files_read
from deploy_engine.cli.output import Output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_OK
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
    return p


def render_text(entries: Sequence[Entry], files: int, stream: IO[str], ctx: Context) -> None:
    style = text.Style(stream, ctx.environ)
    for d, _, base in entries:
        print(text.diagnostic_text(d, base, style, ctx.environ), file=stream)
    print(summary_line([d for d, _, _ in entries], files), file=stream)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Diagnostics of the runways; the exit code as the module docstring says."""
    output = Output(args, ctx)
    loaded = load_reported(args, ctx, output, NAME)
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
    output.close(files_read(loaded, args.catalog))
    if summary.wanted(args, ctx):
        summary.append(args, ctx, summary.section(NAME, summary.label(loaded, ctx.environ), [markdown.diagnostics_markdown(entries, files, ctx.environ)]))
    return code
