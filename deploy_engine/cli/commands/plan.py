"""``plan [PATH]``: each selected environment's plan: items, monthly estimate (USD per month,
730 h a month) against the cap, verdict ``ok`` / ``over-cap`` (refused) / ``no-cap``; exit 1
invalid, 2 refused (over cap), else 0. The markdown tables are also appended to
``$GITHUB_STEP_SUMMARY`` when it is set."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments
from deploy_engine.cli.formats import github, markdown, sarif, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import count
from deploy_engine.cli.inputs import load, selected_environments
from deploy_engine.context import Context
from deploy_engine.exits import InputError, EXIT_INVALID, EXIT_OK, EXIT_REFUSED, OVER_CAP_CODE
from runway_core.diagnostics import Severity
from runway_core.planner import Plan

NAME = "plan"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="print each environment's plan and estimate; exit 2 when one is over its cap",
                       description="Print each environment's plan: items, monthly estimate (USD), cap and verdict.")
    add_path_arguments(p)
    p.add_argument("--env", action="append", metavar="ENV", help="only this environment (repeatable; default: all, in declaration order)")
    p.add_argument("--format", choices=("text", "json", "markdown", "github", "sarif"), default="text",
                   help="output format: text, json, markdown, github (annotations, then the text table) or sarif; default text. "
                   "The markdown tables are also appended to $GITHUB_STEP_SUMMARY when it is set")
    p.add_argument("--details", action="store_true", help="show each item's line items (quantity x unit price, confidence)")
    return p


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Each selected environment's plan; exit 1 invalid, 2 refused (over cap), else 0."""
    an, base = load(args)
    if an.files[an.root_file].role == "member":
        # Fail closed: a CI job planning a lone member would otherwise pass with no plan at all.
        raise InputError(f"{args.path or '.'}: a member runway that no root runway above lists has no plan; "
                         "plan the root runway that lists it (`check` checks a member alone)")
    names = selected_environments(an, args.env)
    diags = an.all_diagnostics()
    spec = an.spec
    envs = tuple(an.plans[n] for n in names)
    # product / region are null in JSON when the root could not be read (docs/cli.md).
    plan = Plan(spec.product if spec else None, spec.region if spec else None, envs, an.catalog.origin)  # type: ignore[arg-type]
    if args.format == "json":
        json_format.dump(json_format.plan_document(plan, an, diags, base), ctx.stdout)
    elif args.format == "markdown":
        if envs:
            ctx.stdout.write(markdown.plan_markdown(plan, args.details))
        else:
            ctx.stdout.write(f"**No plan:** the runway has {count(diags, Severity.ERROR)} error(s); run `runway-deploy check`.\n")
    elif args.format == "sarif":
        json_format.dump(sarif.sarif_document(an, diags, base, ctx.environ), ctx.stdout)
    elif args.format == "github":
        # Annotations on stdout (the runner reads workflow commands there), then the plain table,
        # which holds the runway's own names: never read as commands.
        for d in diags:
            print(github.diagnostic_github(d, an, base, ctx.environ), file=ctx.stdout)
        if envs:
            github.print_inert(text.plan_text(plan, args.details, text.Style(ctx.stdout, {"NO_COLOR": "1"})), ctx.stdout)
    elif envs:
        ctx.stdout.write(text.plan_text(plan, args.details, text.Style(ctx.stdout, ctx.environ)))
    elif an.files[an.root_file].role == "member":
        ctx.stdout.write("no plan: a member runway alone has none; plan the root runway that lists it\n")
    else:
        # A PR bot posting stdout must never post an empty comment.
        ctx.stdout.write(f"no plan: the runway has {count(diags, Severity.ERROR)} error(s) (listed on stderr)\n")
    markdown.append_step_summary(plan, args.details, ctx)
    if diags and args.format != "github":
        text.print_diagnostics(an, diags, base, ctx.stderr, text.Style(ctx.stderr, ctx.environ))
    invalid = any(d.severity == Severity.ERROR and d.code != OVER_CAP_CODE for d in diags)
    if invalid or (spec is None and an.files[an.root_file].role != "member"):
        return EXIT_INVALID
    if any(p.verdict == "over-cap" for p in envs):
        return EXIT_REFUSED
    return EXIT_OK
