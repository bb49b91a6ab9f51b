"""``drift --env ENV [PATH]``: resources changed outside Pulumi (pulumi refresh --preview-only)."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._deploy import add_deploy_parser, run

NAME = "drift"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    return add_deploy_parser(sub, NAME, "report resources changed outside Pulumi (refresh, preview only)",
                             "Run pulumi refresh --preview-only and report resources changed outside Pulumi.")


__all__ = ["NAME", "add_parser", "run"]
