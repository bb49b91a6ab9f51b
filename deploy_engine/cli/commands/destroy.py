"""``destroy --env ENV [PATH]``: destroy one environment (pulumi destroy), only in the protected
deploy job; refuses while ``protect``ed resources remain unless ``--include-protected``; writes
its receipt and starts the 7-year retention of the environment's receipts
(:mod:`deploy_engine.pipeline.destroy`, docs/deploy.md "Destroy")."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._deploy import add_deploy_parser, run

NAME = "destroy"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    cmd = add_deploy_parser(sub, NAME, "destroy one environment (pulumi destroy); only in the protected deploy job",
                            "Run pulumi destroy of one environment, write its receipt and lock the environment's "
                            "receipts until its end + 7 years.", plan_digest=False)
    cmd.add_argument("--include-protected", action="store_true",
                     help="also destroy resources marked `protect` (they are unprotected first); without it, "
                     "destroy refuses (exit 9) while any remain")
    return cmd


__all__ = ["NAME", "add_parser", "run"]
