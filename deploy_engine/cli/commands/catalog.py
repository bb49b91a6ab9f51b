"""``catalog refresh --region R [--region R2 | all] --output DIR [--source URL]``: build a
catalogue folder (``sizes.toml`` + ``prices.csv``) from the AWS Price List Bulk API
(:mod:`deploy_engine.pricelist`; docs/cli.md "catalog refresh", catalog/README.md).

Exit codes: 0 every key priced in every region asked; 1 written, but keys without a price (each
listed on stderr); 3 the source, its offer index or the output folder unusable; 64 usage."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.context import Context
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
    return p


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``catalog refresh``: progress and the summary on stderr; the exit code of the refresh.
    The ``--source`` URL's user info and query are known secrets of the run: every message
    (a urllib error quoting ``PASSWORD@host`` as a port) is scrubbed of them."""
    from deploy_engine.receipts import url_secrets
    from deploy_engine.secrets import Redactor

    ctx.redactor = Redactor(url_secrets(args.source or ""))
    return command.run(args, ctx.stderr)
