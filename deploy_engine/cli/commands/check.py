"""``check [PATH]``: the diagnostics of a root runway and its members; exit 1 when any is an error."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments
from deploy_engine.cli.formats import github, sarif, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import summary_text
from deploy_engine.cli.inputs import load
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_OK

NAME = "check"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="print diagnostics; exit 1 when any is an error",
                       description="Print the diagnostics of a root runway and its members.")
    add_path_arguments(p)
    p.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                   help="output format: text, json, github (workflow-command annotations) or sarif (SARIF 2.1.0); default text")
    return p


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Diagnostics of the root runway and its members; exit 1 when any is an error."""
    an, base = load(args)
    diags = an.all_diagnostics()
    if args.format == "json":
        json_format.dump(json_format.check_document(an, diags, base), ctx.stdout)
    elif args.format == "sarif":
        json_format.dump(sarif.sarif_document(an, diags, base, ctx.environ), ctx.stdout)
    elif args.format == "github":
        for d in diags:
            print(github.diagnostic_github(d, an, base, ctx.environ), file=ctx.stdout)
        github.print_inert(summary_text(an, diags), ctx.stdout)
    else:
        text.print_diagnostics(an, diags, base, ctx.stdout, text.Style(ctx.stdout, ctx.environ))
    return EXIT_INVALID if an.has_errors() else EXIT_OK
