"""The ``catalog refresh`` command: arguments, progress on stderr, the summary and exit code.

Kept apart from the CLI's parser so the command module of ``runway-deploy`` only wires it in
(``add_arguments`` on its sub-parser, ``run`` as the handler). Exit codes (docs/cli.md):
0 every key priced in every region asked; 1 the folder was written but some keys have no
price (each listed on stderr: reported, never invented); 3 the source, its offer index or the
output folder is unusable, or the refreshed catalogue does not load (the output folder is then
left as it was); 64 a bad argument.
"""

from __future__ import annotations

import argparse
from typing import IO

from deploy_engine.argtypes import named, seconds_value
from deploy_engine.terminal import printable
from runway_core.catalog import is_region_code

from .fetch import DEADLINE_S, DEFAULT_SOURCE, check_source
from .refresh import LISTED_REGIONS, MAX_REGIONS, RefreshError, refresh

EXIT_OK = 0
EXIT_INCOMPLETE = 1
EXIT_NO_INPUT = 3
EXIT_USAGE = 64


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``catalog refresh``."""
    p.add_argument("--source", metavar="URL", default=DEFAULT_SOURCE,
                   help=f"root of the AWS Price List Bulk API layout: AWS's public endpoint (default {DEFAULT_SOURCE}), "
                   "or an http:// or file:// mirror holding the same offers/v1.0/aws/... paths")
    p.add_argument("--region", action="append", metavar="REGION", required=True,
                   help="price this region (repeatable, at most 1000), or 'all' for every region the offers publish (at most 1000)")
    # An empty DIR (`--output "$UNSET"`) is a usage error, as for every FILE/DIR option of the
    # CLI: before, `--output ""` wrote into the current folder, `" "` made a folder named so.
    p.add_argument("--output", metavar="DIR", required=True, type=named("--output DIR"),
                   help="folder to write sizes.toml and prices.csv into (created if needed)")
    p.add_argument("--catalog", metavar="DIR", default=None, type=named("--catalog DIR"),
                   help="take sizes.toml (the capacity tables, copied unchanged) from this catalogue folder (default: the packaged catalogue)")
    p.add_argument("--offer-format", choices=("json", "csv"), default="json",
                   help="read the JSON or the CSV offer files (default json)")
    p.add_argument("--timeout", metavar="SECONDS", type=_seconds, default=DEADLINE_S,
                   help=f"the total deadline of each download, from the request to the last byte (default {DEADLINE_S:g})")


def _seconds(text: str) -> float:
    """``--timeout``: a number of seconds, more than 0 and at most a day."""
    value = seconds_value(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds (ASCII digits, e.g. 30 or 2.5)")
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError("expected more than 0 and at most 86400 seconds")
    return value


def run(args: argparse.Namespace, stderr: IO[str]) -> int:
    """Run the refresh described by ``args``; progress and the summary go to ``stderr``, each
    line through :func:`deploy_engine.terminal.printable`: a mirror's paths, SKUs and error
    texts are someone else's, and an ESC in them must not drive the terminal (issue 23)."""
    regions = [r.strip() for r in args.region]
    if "all" in regions and len(regions) > 1:
        print("catalog refresh: --region all cannot be combined with other regions", file=stderr)
        return EXIT_USAGE
    # A region the written catalogue could not hold (`--region ''`, `EU West`) is a usage error
    # before any download: before, every offer file was read, then the catalogue did not load
    # (exit 3, naming the temporary folder; fourth adversary, F02). The shape is the
    # catalogue's own (runway_core.catalog.is_region_code).
    wanted = list(dict.fromkeys(regions))
    if len(wanted) <= MAX_REGIONS:  # more: refresh()'s own usage error says how many
        bad = [r for r in wanted if r != "all" and not is_region_code(r)]
        if bad:
            print(printable(f"catalog refresh: --region {bad[0][:60]!r} is not a region code (e.g. eu-west-1), nor `all`"
                            + (f"; and {len(bad) - 1:,} more" if len(bad) > 1 else "")), file=stderr)
            return EXIT_USAGE
    try:
        check_source(args.source)
    except ValueError as exc:
        print(printable(f"catalog refresh: {exc}"), file=stderr)
        return EXIT_USAGE

    def progress(message: str) -> None:
        print(printable(f"catalog refresh: {message}"), file=stderr, flush=True)

    try:
        result = refresh(args.source, regions, args.output, catalog_dir=args.catalog,
                         file_format=args.offer_format, progress=progress, timeout_s=args.timeout)
    except RefreshError as exc:
        print(printable(f"catalog refresh: {exc}"), file=stderr)
        return EXIT_NO_INPUT
    except ValueError as exc:
        print(printable(f"catalog refresh: {exc}"), file=stderr)
        return EXIT_USAGE
    missing = sorted(result.missing, key=lambda m: (m.region, m.key))
    shown = sorted({m.region for m in missing})[:LISTED_REGIONS]
    last = shown[-1] if shown else ""
    for m in missing:
        if m.region > last:
            break
        print(printable(f"catalog refresh: no {m.region} price for {m.key}: {m.reason}"), file=stderr)
    rest = [m for m in missing if m.region > last]
    if rest:
        print(printable(f"catalog refresh: {len({m.region for m in rest}):,} more region(s) lack {len(rest):,} price(s), not listed "
                        f"one by one (the first {LISTED_REGIONS} regions' are)"), file=stderr)
    names = ", ".join(result.regions[:LISTED_REGIONS]) + (f" and {len(result.regions) - LISTED_REGIONS:,} more"
                                                          if len(result.regions) > LISTED_REGIONS else "")
    print(printable(f"catalog refresh: wrote {result.output}: {len(result.found)} prices for {len(result.regions)} region(s)"
                    f" ({names}); {len(result.missing)} missing"), file=stderr)
    return EXIT_INCOMPLETE if result.missing else EXIT_OK


def main(argv: list[str] | None = None, stderr: IO[str] | None = None) -> int:
    """``python -m deploy_engine.pricelist refresh ...`` (the same as ``runway-deploy catalog refresh``).
    Its stderr is redacted as the CLI's is (:class:`deploy_engine.context.Redacting`): a
    ``--source`` with a password in it is never echoed by an error quoting the URL."""
    import sys

    from deploy_engine.context import Redacting

    err = Redacting(stderr if stderr is not None else sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m deploy_engine.pricelist refresh",
                                     description="Build a catalogue folder from the AWS Price List Bulk API.")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    return run(args, err)
