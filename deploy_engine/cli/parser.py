"""The argument parser of ``runway-deploy``: one subparser per registered command
(:data:`deploy_engine.cli.commands.COMMANDS`); usage errors raise
:class:`~deploy_engine.exits.UsageError` (exit 64, never argparse's 2, which means "plan
refused" here). The exit codes themselves are in :mod:`deploy_engine.exits`.

Options are never abbreviated (``--form json`` is a usage error, not ``--format json``), and
a misspelt option, command or choice gets a "did you mean" from the parser's own names.
"""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn, Sequence

from deploy_engine import __version__
from deploy_engine.cli.commands import COMMANDS
from deploy_engine.exits import PROG, UsageError
from deploy_engine.links import DOCS
from runway_core.text import suggest

DESCRIPTION = "Check runway.yaml files, show each environment's plan and monthly estimate, compare two plans, and deploy one with Pulumi."


def epilog() -> str:
    """The help's last paragraph: exit codes and where the docs are (:mod:`deploy_engine.links`,
    looked up when the parser is built)."""
    return (
        "Exit codes: 0 ok, 1 invalid runway, 2 plan refused (over cap, unpriced, or over --max-increase), 3 no runway, unreadable "
        "input, deploy configuration or the [deploy] extra missing, 4 up outside the protected deploy job, 5 Pulumi CLI "
        "missing, 6 lease held, 7 deploy failed, 8 plan differs from --plan-digest, 9 destroy refused (protected resources), 64 usage error, 70 internal error, "
        f"130 interrupted, 143 terminated (SIGTERM). Reference: {DOCS.cli}; deploying: {DOCS.deploy}; in CI: {DOCS.ci}."
    )


class ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors, which means "plan refused" here; options
    are never abbreviated; errors suggest the closest name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.commands: dict[str, argparse.ArgumentParser] = {}
        self.argv: Sequence[str] = ()

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        import sys

        self.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_args(self.argv, namespace)

    def _print_message(self, message: str, file: Any = None) -> None:
        """``--help`` and ``--version`` text, written and flushed: argparse's own swallows
        ``OSError`` (``except (AttributeError, OSError): pass``, CPython 3.11 argparse.py), so
        ``runway-deploy --help > /dev/full`` exited 0 having written nothing. Raised here, the
        write error is the CLI's "cannot write standard output" (exit 3; a closed pipe, exit 0)."""
        import sys

        if message:
            stream = file or sys.stderr
            stream.write(message)
            stream.flush()

    def error(self, message: str) -> NoReturn:
        hint = self._did_you_mean(message)
        raise UsageError(f"{self.prog}: error: {message}{hint}", usage=self.format_usage().rstrip())

    def _options_of(self, parser: argparse.ArgumentParser) -> list[str]:
        return [o for action in parser._actions for o in action.option_strings if o.startswith("--")]

    def _did_you_mean(self, message: str) -> str:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2))
            best = suggest(choice.group(1), options)
            return f" (did you mean '{best}'?)" if best else ""
        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if not unknown:
            return ""
        command = next((a for a in self.argv if a in self.commands), None)
        options = self._options_of(self.commands[command] if command else self)
        hints = []
        for token in unknown.group(1).split():
            word = token.split("=", 1)[0]
            if word.startswith("--"):
                best = suggest(word, options)
                if best:
                    hints.append(f"{word}: did you mean {best}?")
        return f" ({'; '.join(hints)})" if hints else ""


def build_parser() -> ArgumentParser:
    """The argument parser (usage errors raise :class:`UsageError`, exit 64); each subcommand's
    ``func`` default is its module's ``run``."""
    parser = ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=epilog())
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        p = command.add_parser(sub)
        p.set_defaults(func=command.run)
        parser.commands[command.NAME] = p
    return parser


__all__ = ["ArgumentParser", "build_parser"]
