"""Arguments more than one command takes (PATH, ``--catalog``, ``--usage``, ``--plan-digest``)."""

from __future__ import annotations

import argparse

from deploy_engine.argtypes import named  # noqa: F401 - the commands take it from here


class IntermixedParser(argparse.ArgumentParser):
    """A subcommand parser whose positionals may come after its options
    (``receipts export --to DIR PATH``, as docs/cli.md writes it): argparse's own
    ``parse_known_intermixed_args`` (Python 3.7+), used when the parent hands over the words."""

    _mixing = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def, override]
        if self._mixing:
            return super().parse_known_args(args, namespace)
        self._mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False


def intermixed(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``p`` (made by ``sub.add_parser``, of the command line's parser class) parsing positionals
    after options; its class gains :class:`IntermixedParser`'s ``parse_known_args``."""
    p.__class__ = type(f"Intermixed{type(p).__name__}", (IntermixedParser, type(p)), {})
    return p


def add_usage_argument(p: argparse.ArgumentParser) -> None:
    """``--usage FILE``: the usage file instead of ``runway.usage.yaml`` beside the root."""
    p.add_argument("--usage", metavar="FILE", default=None, type=named("--usage FILE"),
                   help="usage file with the team's own usage quantities (default: runway.usage.yaml beside the root runway, when it exists)")


def add_path_arguments(p: argparse.ArgumentParser) -> None:
    """``PATH`` (default the current folder), ``--catalog DIR`` and ``--usage FILE``."""
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="a folder holding runway.yaml (or runway.yml), or a runway file; a member runway resolves to its root (default: the current folder)")
    p.add_argument("--catalog", metavar="DIR", default=None, type=named("--catalog DIR"),
                   help="catalogue folder holding sizes.toml and prices.csv (default: the packaged catalogue)")
    add_usage_argument(p)


def digest_arg(text: str) -> str:
    """A ``--plan-digest`` value: 64 hex digits (any case; compared in lowercase)."""
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError("a plan digest is 64 hex digits (the plan_digest of `plan --format json`)")
    return value


def add_paths_argument(p: argparse.ArgumentParser) -> None:
    """``PATH...`` (default the current folder; ``-`` standard input), ``--catalog DIR`` and
    ``--usage FILE`` (with one PATH only)."""
    p.add_argument("paths", nargs="*", default=[], metavar="PATH",
                   help="a folder holding runway.yaml (or runway.yml), a runway file, or - for one runway on standard input; "
                   "a member runway resolves to its root; a folder with no runway at its top stands for every root runway "
                   "under it (default: the current folder)")
    p.add_argument("--catalog", metavar="DIR", default=None, type=named("--catalog DIR"),
                   help="catalogue folder holding sizes.toml and prices.csv (default: the packaged catalogue)")
    add_usage_argument(p)


def add_ci_arguments(p: argparse.ArgumentParser) -> None:
    """``--output FILE`` and ``--summary`` / ``--no-summary`` (docs/cli.md, "In CI")."""
    p.add_argument("--output", metavar="FILE", default=None, type=named("--output FILE"),
                   help="write the --format output to FILE (UTF-8) and print the text output on standard output")
    p.add_argument("--summary", action=argparse.BooleanOptionalAction, default=None,
                   help="append one labelled section to $GITHUB_STEP_SUMMARY (default: when it is set and standard "
                   "output is for people: --format text, markdown or github, or --output)")
