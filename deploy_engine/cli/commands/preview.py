"""``preview --env ENV [PATH]``: what ``up`` would change (pulumi preview); any CI job."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._deploy import add_deploy_parser, run

NAME = "preview"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    return add_deploy_parser(sub, NAME, "show what `up` would change (pulumi preview); any CI job",
                             "Run pulumi preview of one environment's plan.")


__all__ = ["NAME", "add_parser", "run"]
