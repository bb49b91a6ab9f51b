"""``plan [PATH...]``: each selected environment's plan: items, monthly estimate (USD per month,
730 h a month) against the cap, verdict ``ok`` / ``over-cap`` (refused) / ``unpriced`` (refused: a
price is missing, so the cap cannot be checked) / ``no-cap``; exit 1 invalid, 2 refused, else 0. Several runways: each in turn (text, markdown, github,
sarif); ``--format json`` prints one ``{"format_version", "products": [...]}`` document. The labelled job summary holds the diagnostics and the
Markdown tables (:mod:`deploy_engine.cli.summary`)."""

from __future__ import annotations

import argparse
import os
from typing import IO, Any

import deploy_engine.cli.summary as summary
from deploy_engine.cli.commands._args import add_ci_arguments, add_paths_argument
from deploy_engine.cli.commands._reports import load_reported
from deploy_engine.cli.formats import github, markdown, sarif, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import ci_path, count, file_count
from deploy_engine.cli.inputs import Loaded, entries_of, files_read, runway_file, selected_environments
from deploy_engine.cli.output import Output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_NO_INPUT, EXIT_OK, EXIT_REFUSED, PROG, REFUSAL_CODES
from runway_core.diagnostics import Severity
from runway_core.planner import FORMAT_VERSION, Plan, cap_unchecked_text

NAME = "plan"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="print each environment's plan and estimate; exit 2 when one is over its cap",
                       description="Print each environment's plan: items, monthly estimate (USD), cap and verdict.")
    add_paths_argument(p)
    p.add_argument("--env", action="append", metavar="ENV", help="only this environment (repeatable; default: all, in declaration order)")
    p.add_argument("--format", choices=("text", "json", "markdown", "github", "sarif"), default="text",
                   help="output format: text, json, markdown, github (annotations, then the text table) or sarif; default text")
    p.add_argument("--details", action="store_true", help="show each item's line items (quantity x unit price, confidence, price source)")
    add_ci_arguments(p)
    return p


def plan_of(item: Loaded, wanted: Any) -> Plan:
    """The plan of the selected environments of one analysed runway (product and region None
    when the root could not be read: null in JSON, docs/cli.md)."""
    an = item.analysis
    envs = tuple(an.plans[n] for n in selected_environments(an, wanted))
    spec = an.spec
    return Plan(spec.product if spec else None, spec.region if spec else None, envs, an.catalog.origin)  # type: ignore[arg-type]


def _no_plan_text(item: Loaded) -> str:
    an = item.analysis
    if an.files[an.root_file].role == "member":
        return "no plan: a member runway alone has none; plan the root runway that lists it\n"
    # A PR bot posting stdout must never post an empty comment.
    return f"no plan: the runway has {count(an.all_diagnostics(), Severity.ERROR)} error(s) (listed on stderr)\n"


def _render(fmt: str, item: Loaded, plan: Plan, args: argparse.Namespace, stream: IO[str], ctx: Context) -> None:
    an, base = item.analysis, item.base
    diags = an.all_diagnostics()
    if fmt == "json":
        json_format.dump(json_format.plan_document(plan, an, diags, base, ctx.environ), stream)
    elif fmt == "markdown":
        if plan.environments:
            stream.write(markdown.plan_markdown(plan, args.details))
        else:
            stream.write(f"**No plan:** the runway has {count(diags, Severity.ERROR)} error(s); run `runway-deploy check`.\n")
    elif fmt == "github":
        # Annotations on stdout (the runner reads workflow commands there), then the plain table,
        # which holds the runway's own names: never read as commands.
        github.print_diagnostics_github([(d, an, base) for d in diags], ctx.environ, stream,
                                        text.plan_text(plan, args.details, text.Style(stream, {"NO_COLOR": "1"})) if plan.environments else "")
    elif plan.environments:
        stream.write(text.plan_text(plan, args.details, text.Style(stream, ctx.environ)))
    else:
        stream.write(_no_plan_text(item))


def exit_code(item: Loaded, plan: Plan) -> int:
    """3 a lone member (no plan), 1 invalid (an error other than a refusal code RW170/RW162/RW163, or no root read), 2 a
    selected environment refused (over its cap, or unpriced under a cap: fail closed), else 0."""
    an = item.analysis
    if an.files[an.root_file].role == "member":
        # A lone member has no plan: fail closed, a CI job planning it must not pass with
        # nothing planned (docs/cli.md, PATH; issue 16 item 2).
        return EXIT_NO_INPUT
    invalid = any(d.severity == Severity.ERROR and d.code not in REFUSAL_CODES for d in an.all_diagnostics())
    if invalid or (an.spec is None and an.files[an.root_file].role != "member"):
        return EXIT_INVALID
    return EXIT_REFUSED if any(p.refused for p in plan.environments) else EXIT_OK


def product_path(item: Loaded, environ: Any) -> str:
    """The folder of a product's root runway as every path is shown (docs/cli.md, "Paths"):
    relative to ``$GITHUB_WORKSPACE`` or the current folder, ``/`` separators."""
    folder = os.path.dirname(os.path.abspath(item.analysis.root_file))
    return ci_path(folder, os.getcwd(), environ)


def several(args: argparse.Namespace) -> bool:
    """What ``--format json`` prints a products document for: more than one PATH, or a folder
    with no runway at its top (a monorepo: the shape never depends on how many were found)."""
    paths = args.paths or ["."]
    return len(paths) > 1 or (paths[0] != "-" and os.path.isdir(paths[0]) and runway_file(paths[0]) is None)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Each selected environment's plan of each runway; exit 1 invalid, 2 refused (over cap or unpriced), else 0."""
    output = Output(args, ctx)
    loaded = load_reported(args, ctx, output, NAME)
    plans = [plan_of(item, args.env) for item in loaded]
    codes = [exit_code(item, plan) for item, plan in zip(loaded, plans)]
    code = EXIT_INVALID if EXIT_INVALID in codes else max(codes, default=EXIT_OK)
    entries = entries_of(loaded)
    if args.format == "sarif":
        json_format.dump(sarif.sarif_log(entries, ctx.environ, command=NAME, exit_code=code), output.formatted)
    elif args.format == "json" and several(args):
        # A monorepo: one document, each product's the one-product document unchanged.
        # Each with its folder in front, as `diff`'s products (docs/cli.md, "plan").
        docs = [{"path": product_path(item, ctx.environ),
                 **json_format.plan_document(plan, item.analysis, item.analysis.all_diagnostics(), item.base, ctx.environ)}
                for item, plan in zip(loaded, plans)]
        json_format.dump({"format_version": FORMAT_VERSION, "products": docs}, output.formatted)
    else:
        for item, plan in zip(loaded, plans):
            _render(args.format, item, plan, args, output.formatted, ctx)
    if output.text is not None:
        for item, plan in zip(loaded, plans):
            _render("text", item, plan, args, output.text, ctx)
    read = files_read(loaded, args.catalog)
    output.close(read)
    if entries and args.format != "github":
        style = text.Style(ctx.stderr, ctx.environ)
        for item in loaded:
            diags = item.analysis.all_diagnostics()
            if diags:
                text.print_diagnostics(item.analysis, diags, item.base, ctx.stderr, style, ctx.environ)
            spec = item.analysis.spec
            if spec is not None:
                for p in plan_of(item, args.env).environments:
                    if p.verdict == "unpriced":
                        # Fail closed (issue 13): the estimate misses a price, so the cap is not checked.
                        print(f"{PROG}: {p.name}: refused: {cap_unchecked_text(p, spec.region)}", file=ctx.stderr)
    if summary.wanted(args, ctx):
        parts = [markdown.diagnostics_markdown(entries, sum(file_count(i.analysis) for i in loaded), ctx.environ)]
        parts += [markdown.plan_markdown(plan, args.details) for plan in plans if plan.environments]
        summary.append(args, ctx, summary.section(NAME, summary.label(loaded, ctx.environ), parts), read)
    return code
