"""The commands of ``runway-deploy``, one module each, in the order ``--help`` lists them.

Each module exposes ``NAME``, ``add_parser(subparsers) -> ArgumentParser`` (adds its subparser
and arguments) and ``run(args, ctx) -> int`` (the exit code; ``ctx`` a
:class:`deploy_engine.context.Context`). A new command is a new module and one line in
:data:`COMMANDS`.
"""

from __future__ import annotations

from deploy_engine.cli.commands import catalog, check, destroy, diff, drift, plan, preview, receipts, resources, schema, state, up, usage

#: Registration order = the order of ``runway-deploy --help``.
COMMANDS = (
    check,
    plan,
    diff,
    schema,
    preview,
    up,
    drift,
    destroy,
    receipts,
    state,
    resources,
    catalog,
    usage,
)

__all__ = ["COMMANDS"]
