"""What the report commands (``check``, ``plan``) share: reading their PATHs, and a valid SARIF
log even when there is nothing to read."""

from __future__ import annotations

import argparse

from deploy_engine.cli.formats import json as json_format
from deploy_engine.cli.formats import sarif
from deploy_engine.cli.inputs import Loaded, load_all, stderr_warn
from deploy_engine.cli.output import Output
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_NO_INPUT, InputError


def load_reported(args: argparse.Namespace, ctx: Context, output: Output, command: str) -> list[Loaded]:
    """The runways of ``args.paths`` (:func:`~deploy_engine.cli.inputs.load_all`). Raises
    :class:`~deploy_engine.exits.InputError` (exit 3) when there is none to read; with
    ``--format sarif`` a SARIF log of no result, naming ``command``, exit code 3 and the reason,
    is written to ``output`` (and closed) first: the upload step needs a valid log even when
    there was nothing to check."""
    try:
        return load_all(args.paths, args.catalog, ctx.stdin, stderr_warn(ctx.stderr), getattr(args, "usage", None))
    except InputError as exc:
        if args.format == "sarif":
            json_format.dump(sarif.sarif_log([], ctx.environ, command=command, exit_code=EXIT_NO_INPUT, failure=str(exc)), output.formatted)
            output.close()
        raise


__all__ = ["load_reported"]
