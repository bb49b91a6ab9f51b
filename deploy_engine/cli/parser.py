"""The argument parser of ``runway-deploy``: one subparser per registered command
(:data:`deploy_engine.cli.commands.COMMANDS`); usage errors raise
:class:`~deploy_engine.exits.UsageError` (exit 64, never argparse's 2, which means "plan
refused" here). The exit codes themselves are in :mod:`deploy_engine.exits`."""

from __future__ import annotations

import argparse
from typing import NoReturn

from deploy_engine.cli.commands import COMMANDS
from deploy_engine.exits import PROG, UsageError

DESCRIPTION = "Check runway.yaml files, show each environment's plan and monthly estimate, and deploy it with Pulumi."
EPILOG = (
    "Exit codes: 0 ok, 1 invalid runway, 2 plan refused (over cap), 3 no runway, unreadable input or deploy "
    "configuration missing, 4 up outside the protected deploy job, 5 Pulumi CLI missing, 6 lease held, "
    "7 deploy failed, 8 plan differs from --plan-digest, 64 usage error, 70 internal error, 143 terminated (SIGTERM). "
    "See docs/cli.md and docs/deploy.md."
)


class ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors, which means "plan refused" here."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (usage errors raise :class:`UsageError`, exit 64); each subcommand's
    ``func`` default is its module's ``run``."""
    parser = ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(func=command.run)
    return parser


__all__ = ["ArgumentParser", "build_parser"]
