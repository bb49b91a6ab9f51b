"""What ``preview``, ``up`` and ``drift`` share: their arguments, and loading and refusing an
invalid runway (exit 1) before :func:`deploy_engine.pipeline.guards.run_deploy` runs the rest
(docs/deploy.md). Pulumi is imported only inside the pipeline, after its guards."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments, digest_arg, named
from deploy_engine.cli.formats.json import dump
from deploy_engine.cli.formats.text import Style, print_diagnostics
from deploy_engine.cli.inputs import load
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_INVALID, EXIT_NO_INPUT, EXIT_USAGE, PROG, REFUSAL_CODES, InputError, UsageError
from deploy_engine.links import DOCS
from deploy_engine.pipeline.guards import run_deploy
from deploy_engine.pipeline.run import DeployOptions, SigtermRaises, json_error
from runway_core.diagnostics import Severity


def add_deploy_parser(sub: Any, name: str, short: str, long: str, *, plan_digest: bool = True) -> argparse.ArgumentParser:
    """The parser of one deploy command: PATH, ``--catalog``, ``--env`` (required), ``--backend``,
    ``--network``, ``--format text|json``, and ``--plan-digest`` unless ``plan_digest`` is false
    (``destroy`` declares no plan)."""
    cmd = sub.add_parser(name, help=short, description=f"{long} See {DOCS.deploy}.")
    add_path_arguments(cmd)
    cmd.add_argument("--env", required=True, metavar="ENV", help="the environment (one)")
    cmd.add_argument("--backend", metavar="URL", default=None, type=named("--backend URL"),
                     help="Pulumi state backend: file://<folder> or s3://<bucket>[/<prefix>] "
                     "(default: $PULUMI_BACKEND_URL, else file://<product repo>/.runway/state)")
    cmd.add_argument("--network", metavar="FILE", default=None, type=named("--network FILE"),
                     help="JSON file of network settings (RUNWAY_VPC_ID, RUNWAY_PRIVATE_SUBNET_IDS... override its keys)")
    cmd.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    if plan_digest:
        cmd.add_argument("--plan-digest", metavar="SHA256", type=digest_arg, default=None,
                         help="refuse (exit 8) unless the environment's plan has this digest: the plan_digest that "
                         "`plan --format json` printed for the reviewed plan (64 hex digits)")
    return cmd


def _print_json_error(args: argparse.Namespace, ctx: Context, code: int, message: str) -> None:
    if getattr(args, "format", None) == "json":
        dump(json_error(code, message), ctx.stdout)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``preview``, ``up`` or ``drift`` of one environment through the Automation API.

    Guards in order: 1 invalid runway (here), then in the pipeline 2 over the cap (no pulumi
    import, nothing declared), 8 not the reviewed plan, 4 ``up`` outside the protected job, 5 no
    Pulumi CLI, 3 configuration missing, 6 lease held (``up``); then 7 when Pulumi or Infisical
    fails, else 0.
    """
    # SIGTERM (CI cancel or timeout) ends the run like Ctrl-C: receipt, lease released, exit 143.
    with SigtermRaises():
        try:
            an, base = load(args)
            spec = an.spec
            if spec is not None and args.env not in an.plans:
                known = ", ".join(an.plans) or "none"
                raise UsageError(f"{PROG} {args.command}: error: --env {args.env}: no such environment in {Path(an.root_file).name} (declared: {known})")
        except InputError as exc:
            _print_json_error(args, ctx, EXIT_NO_INPUT, str(exc))
            raise
        except UsageError as exc:
            _print_json_error(args, ctx, EXIT_USAGE, str(exc))
            raise
        diags = an.all_diagnostics()
        if diags:
            print_diagnostics(an, diags, base, ctx.stderr, Style(ctx.stderr, ctx.environ), ctx.environ)
        if spec is None or any(d.severity == Severity.ERROR and d.code not in REFUSAL_CODES for d in diags):
            print(f"{PROG} {args.command}: the runway has errors; nothing was run", file=ctx.stderr)
            _print_json_error(args, ctx, EXIT_INVALID, "the runway has errors; nothing was run (run `runway-deploy check`)")
            return EXIT_INVALID
        options = DeployOptions(
            command=args.command, env=args.env, backend=args.backend, network=args.network, format=args.format,
            plan_digest=getattr(args, "plan_digest", None), rotate_credentials=bool(getattr(args, "rotate_credentials", False)),
            include_protected=bool(getattr(args, "include_protected", False)),
        )
        return run_deploy(ctx, an, options)
