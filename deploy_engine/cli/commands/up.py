"""``up --env ENV [PATH]``: create or update one environment (pulumi up), only in the protected
deploy job; writes its generated secrets to Infisical and a receipt."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.commands._deploy import add_deploy_parser, run

NAME = "up"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    cmd = add_deploy_parser(sub, NAME, "create or update one environment (pulumi up); only in the protected deploy job",
                            "Run pulumi up of one environment's plan, write its generated secrets to Infisical and a receipt.")
    cmd.add_argument("--rotate-credentials", action="store_true",
                     help="generate a new admin password for every database, set it and write it to Infisical after "
                     "a successful up (default: leave existing passwords alone; generate only for a new database)")
    return cmd


__all__ = ["NAME", "add_parser", "run"]
