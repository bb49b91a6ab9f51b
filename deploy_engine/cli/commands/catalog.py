"""``catalog refresh --region R [--region R2 | all] --output DIR [--source URL]``: build a
catalogue folder (``sizes.toml`` + ``prices.csv``) from the AWS Price List Bulk API
(:mod:`deploy_engine.pricelist`; docs/cli.md "catalog refresh", catalog/README.md).

Exit codes: 0 every key priced in every region asked; 1 written, but keys without a price (each
listed on stderr); 3 the source, its offer index or the output folder unusable; 64 usage.

``catalog diff OLD NEW [PATH...] [--format text|json|markdown]``: the prices that moved between
two catalogue folders (``packaged``: the packaged one) and each runway's environments' old and
new totals and verdicts (:mod:`deploy_engine.pricelist.diff`; docs/cli.md "catalog diff",
docs/ci.md). Exit codes: 0 the diff was printed; 2 an environment given is refused with NEW
(over its cap, or a price missing) and was not with OLD; 3 a catalogue or PATH unusable."""

from __future__ import annotations

import argparse
import os
from typing import Any

from deploy_engine.context import Context
from deploy_engine.exits import EXIT_OK, EXIT_REFUSED, InputError
from deploy_engine.pricelist import command

NAME = "catalog"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="catalogue tools: `catalog refresh` builds a catalogue folder from the AWS Price List",
                       description="Catalogue tools. `catalog refresh` reads the AWS Price List Bulk API (offer index, region "
                       "indexes, per-region offer files) and writes sizes.toml and prices.csv for the regions asked.")
    actions = p.add_subparsers(dest="catalog_action", metavar="ACTION", required=True)
    refresh = actions.add_parser("refresh", help="write sizes.toml and prices.csv from the AWS Price List Bulk API",
                                 description="Build a catalogue folder from the AWS Price List Bulk API. Every price cites its "
                                 "offer code, offer version, publication date and SKU (confidence price-list); a key the offer "
                                 "files do not have is listed on stderr, never filled in. Exit 0 complete, 1 keys missing, "
                                 "3 source or output unusable, 64 usage. See catalog/README.md.")
    command.add_arguments(refresh)
    diff = actions.add_parser("diff", help="the prices that moved between two catalogues, and each runway's totals and verdicts under both",
                              description="Compare two catalogue folders (or `packaged`): every key and region whose price changed "
                              "(old, new, %), keys added and removed, and for each runway PATH each environment's old and new "
                              "total and verdict. For a refresh job's pull request (docs/ci.md). Exit 0, 2 a verdict newly "
                              "refused, 3 input unusable.")
    diff.add_argument("old", metavar="OLD", help="the catalogue before: a folder of sizes.toml and prices.csv, or `packaged`")
    diff.add_argument("new", metavar="NEW", help="the catalogue after (the same forms)")
    diff.add_argument("paths", nargs="*", metavar="PATH", help="runways whose environments to price under both (a folder or runway file)")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output format (default text)")
    return p


def _catalog(spec: str) -> Any:
    from deploy_engine.cli.inputs import catalog_for

    if spec == "packaged":
        return catalog_for(None)
    if not os.path.isdir(spec):
        raise InputError(f"{spec}: not a catalogue folder (sizes.toml and prices.csv), nor `packaged`")
    return catalog_for(spec)


def _diff(args: argparse.Namespace, ctx: Context) -> int:
    from deploy_engine.cli.formats import json as json_format
    from deploy_engine.cli.inputs import load_path
    from deploy_engine.pricelist.diff import diff_json, diff_markdown, diff_text, price_changes, runway_change

    old, new = _catalog(args.old), _catalog(args.new)
    prices = price_changes(old, new)
    runways = []
    for path in args.paths:
        before, after = load_path(path, old), load_path(path, new)
        runways.append(runway_change(before.analysis, after.analysis, path))
    if args.format == "json":
        json_format.dump(diff_json(args.old, args.new, prices, runways), ctx.stdout)
    elif args.format == "markdown":
        ctx.stdout.write(diff_markdown(args.old, args.new, prices, runways))
    else:
        ctx.stdout.write(diff_text(args.old, args.new, prices, runways))
    refused = ("over-cap", "unpriced")
    newly = any(e.new_verdict in refused and e.old_verdict not in refused for r in runways for e in r.environments)
    return EXIT_REFUSED if newly else EXIT_OK


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``catalog refresh``: progress and the summary on stderr; the exit code of the refresh.
    The ``--source`` URL's user info and query are known secrets of the run: every message
    (a urllib error quoting ``PASSWORD@host`` as a port) is scrubbed of them.
    ``catalog diff``: the diff on stdout; its exit code (module docstring)."""
    if args.catalog_action == "diff":
        return _diff(args, ctx)
    from deploy_engine.receipts import endpoint_secrets, url_secrets
    from deploy_engine.secrets import Redactor

    ctx.redactor = Redactor(url_secrets(args.source or "") + endpoint_secrets(ctx.environ))
    return command.run(args, ctx.stderr)
