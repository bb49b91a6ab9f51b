"""``diff BASE HEAD`` / ``diff PATH... --base REV``: the cost change between two plans of one
product, or of every product of a monorepo, per environment and per item (docs/cli.md,
"diff"). Each side is a runway path, a plan JSON file or ``REV:PATH`` from git
(:mod:`deploy_engine.cli.sides`); the diffing itself is pure (:mod:`runway_core.plan_diff`).

With ``--base REV``, several PATHs or a folder with no runway at its top diff every root runway
found on either side (a monorepo): JSON ``{"format_version", "products": [...]}``, one combined
Markdown comment (:func:`~deploy_engine.cli.formats.markdown.products_markdown`).

Exit 0; 1 when a head is invalid (an error other than RW170); 2 when a head environment is over
its cap, or with ``--max-increase USD`` when one grows by more than that many USD per month;
3 a side unreadable or an unknown revision; 64 usage.
"""

from __future__ import annotations

import argparse
import os
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import deploy_engine.cli.summary as summary
from deploy_engine.cli.commands._args import add_ci_arguments
from deploy_engine.cli.formats import github, markdown, text
from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats._shared import file_count
from deploy_engine.cli.inputs import catalog_for, entries_of, files_read, stderr_warn, warn_same_product
from deploy_engine.cli.output import Output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_OK, EXIT_REFUSED, PROG, UsageError
from runway_core.planner import FORMAT_VERSION

if TYPE_CHECKING:  # imported when a diff runs (git, tar and the pure diff are no cost of check or plan)
    from deploy_engine.cli.sides import Side
    from runway_core.plan_diff import PlanDiff, PlanSide

NAME = "diff"


#: An amount as people write one: digits, thousands commas, cents; an optional leading `$`.
#: Not Python's wider Decimal syntax: `1_000`, `1e3`, `Infinity` are refused as the YAML cap
#: (`limits.monthly`) refuses them (docs/format.md; usage error, 64).
#: ASCII digits only (``re.ASCII``: `١٠٠` and `１００` were read as 100; sixth adversary F5),
#: as action.yml's own check of `max-increase` (`[0-9]`).
_AMOUNT = re.compile(r"\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", re.ASCII)


def _usd(text_value: str) -> Decimal:
    if not _AMOUNT.fullmatch(text_value.strip()):
        raise argparse.ArgumentTypeError(f"{text_value!r} is not an amount in USD (e.g. 100 or 99.50)")
    try:
        value = Decimal(text_value.strip().lstrip("$").replace(",", ""))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text_value!r} is not an amount in USD (e.g. 100 or 99.50)") from None
    if not value.is_finite() or value < 0:
        raise argparse.ArgumentTypeError("the increase is a non-negative amount in USD per month")
    return value


#: ``--comment-tag NAME``: what may follow ``runway-cost-diff:`` in the marker (never ``--`` or
#: ``>``, which would end the HTML comment).
_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/]*(?:-[A-Za-z0-9._/]+)*")


def _tag(value: str) -> str:
    if not _TAG.fullmatch(value) or len(value) > 100:
        raise argparse.ArgumentTypeError(f"{value!r}: a tag is letters, digits, '.', '_', '/' and single '-' (at most 100)")
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="the cost change between two plans (a PR's base and head); exit 2 over a cap or --max-increase",
                       description="Compare two plans of one product: per environment base and head totals, delta, cap and verdict; "
                       "per item added, removed, changed or unchanged with size, capacity and money changes. BASE and HEAD are each "
                       "a runway path, a plan JSON file (plan --format json) or REV:PATH from git (origin/main:products/orders).")
    p.add_argument("sides", nargs="+", metavar="SIDE",
                   help="BASE HEAD, or with --base REV one or more PATHs (head: the working tree; a folder with no runway at "
                   "its top stands for every root runway under it, on either side)")
    p.add_argument("--base", metavar="REV", default=None, help="the base is PATH at this git revision (e.g. origin/main, HEAD~1)")
    p.add_argument("--env", action="append", metavar="ENV", help="only this environment (repeatable; default: all)")
    p.add_argument("--format", choices=("text", "json", "markdown", "github"), default="text",
                   help="output format: text, json, markdown (the PR comment, with the marker <!-- runway-cost-diff -->) or "
                   "github (annotations on the changed items, then the text); default text")
    p.add_argument("--max-increase", metavar="USD", type=_usd, default=None,
                   help="exit 2 when an environment's monthly total grows by more than USD")
    p.add_argument("--catalog", metavar="DIR", default=None,
                   help="catalogue folder holding sizes.toml and prices.csv (default: the packaged catalogue), for runway sides")
    p.add_argument("--skip-unchanged", action="store_true",
                   help="leave out products whose cost did not change (and did not fail); print nothing when none is left "
                   "(--format json: an empty products list)")
    p.add_argument("--comment-tag", metavar="NAME", type=_tag, default=None,
                   help="markdown: the marker <!-- runway-cost-diff:NAME -->, so several jobs keep separate comments")
    add_ci_arguments(p)
    return p


def _only(side: PlanSide, wanted: set[str]) -> PlanSide:
    from runway_core.plan_diff import PlanSide

    return PlanSide(side.product, side.region, tuple(e for e in side.environments if e.name in wanted), side.present)


def monorepo(args: argparse.Namespace) -> bool:
    """``--base REV`` with several PATHs, or one that is a folder with no runway at its top."""
    from deploy_engine.cli.inputs import runway_file

    if args.base is None:
        return False
    return len(args.sides) > 1 or (os.path.isdir(args.sides[0]) and runway_file(args.sides[0]) is None)


def _sides(args: argparse.Namespace, ctx: Context) -> tuple[Side, Side]:
    from deploy_engine.cli.sides import absent_head, base_of, resolve_side

    catalog = catalog_for(args.catalog)
    if args.base is not None:
        path = args.sides[0]
        base = base_of(path, args.base, catalog)
        try:
            # A product the change deletes: PATH gone from the working tree, found at REV.
            return base, (resolve_side(path, catalog, "head") if os.path.lexists(path) else absent_head(path))
        except BaseException:
            base.close()
            raise
    if len(args.sides) != 2:
        raise UsageError(f"{PROG} diff: error: name BASE and HEAD (or one PATH with --base REV); got {len(args.sides)}")
    base = resolve_side(args.sides[0], catalog)
    try:
        return base, resolve_side(args.sides[1], catalog, "head")
    except BaseException:
        base.close()
        raise


def exit_code(diff: PlanDiff, head: Side, max_increase: Decimal | None = None) -> int:
    """1 head invalid; 2 a head environment over its cap or growing by more than ``max_increase``; else 0."""
    if head.invalid or any(e.head_verdict == "invalid" for e in diff.environments):
        return EXIT_INVALID
    if any(e.head_verdict in ("over-cap", "unpriced") for e in diff.environments):
        return EXIT_REFUSED
    if any(e.max_increase_exceeded or (max_increase is not None and e.delta > max_increase) for e in diff.environments):
        return EXIT_REFUSED
    return EXIT_OK


def shown(diff: PlanDiff, code: int, args: argparse.Namespace) -> bool:
    """False when ``--skip-unchanged`` leaves the product out: its cost did not change and
    nothing about it fails the run (a failure is never skipped)."""
    return not args.skip_unchanged or diff.change != "unchanged" or code != EXIT_OK


def _render(fmt: str, diff: PlanDiff, base: Side, head: Side, args: argparse.Namespace, stream: Any, ctx: Context) -> None:
    if fmt == "json":
        from runway_core.plan_diff import diff_json

        json_format.dump(diff_json(diff), stream)
    elif fmt == "markdown":
        stream.write(markdown.diff_markdown(diff, base.label, head.label, args.comment_tag))
    elif fmt == "github":
        _print_github([(diff, base, head)], args, stream, ctx)
    else:
        stream.write(text.diff_text(diff, base.label, head.label, text.Style(stream, ctx.environ)))


def _print_github(diffs: list[tuple[PlanDiff, Side, Side]], args: argparse.Namespace, stream: Any, ctx: Context) -> None:
    """``--format github`` of one or several products: every annotation of the run, capped to
    what GitHub shows per step (:func:`~deploy_engine.cli.formats.github.capped`: the text
    after them says everything), then each product's text, inert."""
    lines = []
    for diff, _, head in diffs:
        loaded = head.loaded
        lines += github.diff_github(diff, loaded.analysis if loaded else None, loaded.base if loaded else ".", ctx.environ, args.max_increase)
    kept, _ = github.capped([(line, "") for line in lines])
    for line in kept:
        print(line, file=stream)
    style = text.Style(stream, {"NO_COLOR": "1"})
    github.print_inert("\n".join(text.diff_text(diff, base.label, head.label, style) for diff, base, head in diffs), stream)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """The diff of the two sides (or of every product: :func:`run_products`); the exit code
    as the module docstring says."""
    from runway_core.plan_diff import diff_plans

    if args.base is None and len(args.sides) != 2:
        raise UsageError(f"{PROG} diff: error: name BASE and HEAD (or PATH... with --base REV); got {len(args.sides)}")
    if monorepo(args):
        return run_products(args, ctx)
    output = Output(args, ctx)
    base, head = _sides(args, ctx)
    try:
        base_plan, head_plan = base.plan, head.plan
        add_refused_changes(base, head)
        if args.env:
            known = {e.name for e in base_plan.environments} | {e.name for e in head_plan.environments}
            unknown = [e for e in args.env if e not in known]
            if unknown:
                raise UsageError(f"{PROG} diff: error: --env {unknown[0]}: in neither side (declared: {', '.join(sorted(known)) or 'none'})")
            base_plan, head_plan = _only(base_plan, set(args.env)), _only(head_plan, set(args.env))
        diff = diff_plans(base_plan, head_plan, head_errors=head.errors, max_increase=args.max_increase)
        code = exit_code(diff, head, args.max_increase)
        for side in (base, head):
            if side.note:
                print(f"{PROG} diff: {side.note}", file=ctx.stderr)
        if shown(diff, code, args):
            _render(args.format, diff, base, head, args, output.formatted, ctx)
            if output.text is not None:
                _render("text", diff, base, head, args, output.text, ctx)
        elif args.format == "json":
            _render(args.format, diff, base, head, args, output.formatted, ctx)
        read = files_read([base.loaded, head.loaded], args.catalog) + [s.label for s in (base, head) if s.loaded is None]
        output.close(read)
        entries = entries_of([head.loaded]) if head.loaded is not None else []
        if head.loaded is not None and entries:
            an = head.loaded.analysis
            text.print_diagnostics(an, an.all_diagnostics(), head.loaded.base, ctx.stderr, text.Style(ctx.stderr, ctx.environ), ctx.environ)
        if summary.wanted(args, ctx) and shown(diff, code, args):
            # The job summary is no PR comment: without the marker.
            parts = [markdown.diff_markdown(diff, base.label, head.label).replace(markdown.DIFF_MARKER + "\n", "", 1)]
            if head.loaded is not None:
                parts.insert(0, markdown.diagnostics_markdown(entries, file_count(head.loaded.analysis), ctx.environ))
            summary.append(args, ctx, summary.section(NAME, f"`{markdown.md(base.label)}` → `{markdown.md(head.label)}`", parts), read)
        return code
    finally:
        base.close()
        head.close()


def add_refused_changes(base: Side, head: Side) -> None:
    """The changes AWS refuses with the base as what is deployed (RW190-RW193,
    :func:`runway_core.changes.refused_changes`): added to the head's diagnostics, as diff
    already shows them; an error makes the head invalid (exit 1) and counts in its errors."""
    if head.loaded is None or not base.plan.environments:
        return
    from runway_core.changes import add_diagnostics, refused_changes
    from runway_core.diagnostics import Severity

    refused = refused_changes(head.loaded.analysis, base.plan, f"the base side {base.label}")
    add_diagnostics(head.loaded.analysis, refused)
    errors = sum(1 for d in refused if d.severity == Severity.ERROR)
    if errors:
        head.invalid = True
        head.errors += errors


def run_products(args: argparse.Namespace, ctx: Context) -> int:
    """``diff PATH... --base REV`` over every product found on either side (docs/cli.md,
    "diff", "A monorepo"): exit 1 when a head is invalid, else the highest of the products'
    codes."""
    from deploy_engine.cli.sides import product_pairs
    from runway_core.plan_diff import diff_json, diff_plans

    output = Output(args, ctx)
    pairs = product_pairs(list(args.sides), args.base, catalog_for(args.catalog), stderr_warn(ctx.stderr))
    try:
        warn_same_product([(p.path, p.head.plan.product if p.head.plan.present else p.base.plan.product) for p in pairs],
                          stderr_warn(ctx.stderr))
        results = []
        for pair in pairs:
            add_refused_changes(pair.base, pair.head)
            base_plan, head_plan = pair.base.plan, pair.head.plan
            if args.env:
                base_plan, head_plan = _only(base_plan, set(args.env)), _only(head_plan, set(args.env))
            d = diff_plans(base_plan, head_plan, head_errors=pair.head.errors, max_increase=args.max_increase)
            results.append((pair, d, exit_code(d, pair.head, args.max_increase)))
        if args.env:
            known = {e.name for p in pairs for s in (p.base, p.head) for e in s.plan.environments}
            unknown = [e for e in args.env if e not in known]
            if unknown:
                raise UsageError(f"{PROG} diff: error: --env {unknown[0]}: in no product on either side (declared: {', '.join(sorted(known)) or 'none'})")
        codes = [c for _, _, c in results]
        code = EXIT_INVALID if EXIT_INVALID in codes else max(codes, default=EXIT_OK)
        kept = [(p, d, c) for p, d, c in results if shown(d, c, args)]
        base_label, head_label = args.base, "the working tree"

        def render(fmt: str, stream: Any) -> None:
            if fmt == "json":
                json_format.dump({"format_version": FORMAT_VERSION, "products": [{"path": p.path, **diff_json(d)} for p, d, _ in kept]}, stream)
            elif not kept:
                return  # --skip-unchanged and nothing changed: nothing to post
            elif fmt == "markdown":
                stream.write(markdown.products_markdown([(p.path, d) for p, d, _ in kept], base_label, head_label, args.comment_tag))
            elif fmt == "github":
                _print_github([(d, p.base, p.head) for p, d, _ in kept], args, stream, ctx)
            else:
                for p, d, _ in kept:
                    _render(fmt, d, p.base, p.head, args, stream, ctx)
                    print("", file=stream)

        render(args.format, output.formatted)
        if output.text is not None:
            render("text", output.text)
        read = files_read([s.loaded for p in pairs for s in (p.base, p.head)], args.catalog)
        output.close(read)
        style = text.Style(ctx.stderr, ctx.environ)
        for p in pairs:
            loaded = p.head.loaded
            if loaded is not None and loaded.analysis.all_diagnostics():
                an = loaded.analysis
                text.print_diagnostics(an, an.all_diagnostics(), loaded.base, ctx.stderr, style, ctx.environ)
        if summary.wanted(args, ctx) and kept:
            body = markdown.products_markdown([(p.path, d) for p, d, _ in kept], base_label, head_label)
            summary.append(args, ctx, summary.section(NAME, f"`{markdown.md(args.base)}` → {len(kept)} product(s)",
                                                      [body.replace(markdown.DIFF_MARKER + "\n", "", 1)]), read)
        return code
    finally:
        for p in pairs:
            p.close()
