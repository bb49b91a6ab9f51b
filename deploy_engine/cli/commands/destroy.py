"""``destroy --env ENV [PATH]``: destroy one environment (pulumi destroy), only in the protected
deploy job; refuses while ``protect``ed resources remain unless ``--include-protected``; writes
its receipt and starts the 7-year retention of the environment's receipts
(:mod:`deploy_engine.destroy`, docs/deploy.md "Destroy")."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments
from deploy_engine.cli.commands._deploy import run

NAME = "destroy"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser(NAME, help="destroy one environment (pulumi destroy); only in the protected deploy job",
                         description="Run pulumi destroy of one environment, write its receipt and lock the environment's "
                         "receipts until its end + 7 years. See docs/deploy.md.")
    add_path_arguments(cmd)
    cmd.add_argument("--env", required=True, metavar="ENV", help="the environment (one)")
    cmd.add_argument("--backend", metavar="URL", default=None,
                     help="Pulumi state backend: file://<folder> or s3://<bucket>[/<prefix>] "
                     "(default: $PULUMI_BACKEND_URL, else file://<product repo>/.runway/state)")
    cmd.add_argument("--network", metavar="FILE", default=None,
                     help="JSON file of network settings (RUNWAY_VPC_ID, RUNWAY_PRIVATE_SUBNET_IDS... override its keys)")
    cmd.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    cmd.add_argument("--include-protected", action="store_true",
                     help="also destroy resources marked `protect` (they are unprotected first); without it, "
                     "destroy refuses (exit 9) while any remain")
    return cmd


__all__ = ["NAME", "add_parser", "run"]
