"""``schema [--member | --usage-file] [--output FILE]``: the JSON Schema (draft-07) of runway.yaml
(:mod:`runway_core.schema`), or of the usage file ``runway.usage.yaml``, for YAML editors; exit 3 when FILE cannot be written or is a runway
file (``runway.yaml``/``runway.yml``, through a symlink too: never replaced by the schema);
64 for an empty FILE."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._args import named
from deploy_engine.cli.output import open_regular_for_writing, refuse_runway_as_output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_OK, InputError

NAME = "schema"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="print the JSON Schema of runway.yaml (for YAML editors)",
                       description="Print the JSON Schema (draft-07) of runway.yaml: a root runway when it has `product`, else a member.")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--member", action="store_true", help="the schema of a member runway only")
    which.add_argument("--usage-file", action="store_true", help="the schema of the usage file, runway.usage.yaml (docs/format.md, \"Usage file\")")
    p.add_argument("--output", metavar="FILE", default=None, type=named("--output FILE"), help="write the schema to FILE instead of standard output")
    return p


def run(args: argparse.Namespace, ctx: Context) -> int:
    """The JSON Schema of runway.yaml; exit 3 when FILE cannot be written."""
    from runway_core.schema import schema_text

    schema = schema_text(member=args.member, usage=args.usage_file)
    if args.output is None:
        ctx.stdout.write(schema)
        return EXIT_OK
    refuse_runway_as_output(args.output)
    try:
        with open_regular_for_writing(args.output, append=False, label="--output") as fh:  # a FIFO: exit 3, never blocks
            fh.write(schema)
    except OSError as exc:
        raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    return EXIT_OK
