"""``resources --env ENV [PATH]``: every resource the Pulumi program declares for one environment.

The review view of a deploy (docs/deploy.md, "Reviewing what a deploy declares"): the real
program runs against Pulumi's mock monitor (:mod:`deploy_engine.resources`): no Pulumi CLI, no
cloud call, no credentials, no state. Text: one line per resource under its component, with
``protect`` / ``ignore_changes`` / ``depends_on``; JSON: ``{"product", "environment",
"stand_ins", "resources": [{"type", "name", "urn", "parent", "custom", "inputs", "options"}]}``
with every secret input shown as ``[secret]`` and, in a container definition, every plain
``environment`` value that looks like a credential as the plan shows it
(:func:`deploy_engine.resources.hide_secret_container_env`).

Network settings as for ``preview`` (``RUNWAY_*`` variables, ``--network FILE``); when the VPC or
subnets are not configured, documented stand-in ids are used and named in ``stand_ins`` (the
view is about what is declared, not where). Exit 1 invalid runway, 2 over the cap (nothing is
declared), 3 configuration invalid, 5 the ``[deploy]`` extra (pulumi, pulumi-aws) is not
installed, 64 usage, else 0.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments, named
from deploy_engine.cli.formats.json import dump
from deploy_engine.cli.formats.text import Style, print_diagnostics
from deploy_engine.cli.inputs import load
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_CONFIG, EXIT_INVALID, EXIT_OK, EXIT_PULUMI_MISSING, EXIT_REFUSED, OVER_CAP_CODE, PROG, UsageError
from runway_core.diagnostics import Severity
from runway_core.workspace import read_json

NAME = "resources"
#: Stand-in network ids when none are configured (the format of real ids; no such resources exist).
STAND_IN_NETWORK = {
    "vpc_id": "vpc-00000000000000000",
    "private_subnet_ids": ("subnet-00000000000000001", "subnet-00000000000000002"),
    "public_subnet_ids": ("subnet-00000000000000003", "subnet-00000000000000004"),
    "public_domain": "example.com",
}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="list every resource the Pulumi program declares for one environment (mock run: no cloud, no credentials)",
                       description="Run the Pulumi program of one environment against Pulumi's mock monitor and print every "
                       "resource it declares, with its inputs and options. See docs/deploy.md.")
    add_path_arguments(p)
    p.add_argument("--env", required=True, metavar="ENV", help="the environment (one)")
    p.add_argument("--network", metavar="FILE", default=None, type=named("--network FILE"),
                   help="JSON file of network settings (RUNWAY_VPC_ID, RUNWAY_PRIVATE_SUBNET_IDS... override its keys); stand-ins when unset")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    return p


def _network(args: argparse.Namespace, ctx: Context, plan: Any) -> tuple[Any, list[str]]:
    """(NetworkSettings, names of the stand-ins used); raises SettingsError for invalid values."""
    from deploy_engine.settings import ENV_VARS, load_network_settings

    environ = dict(ctx.environ)
    stand_ins: list[str] = []
    doc: dict[str, Any] = {}
    if args.network:
        try:
            doc = read_json(args.network)  # bounded: a FIFO, /dev/zero or deep JSON never read here
        except (OSError, ValueError):
            doc = {}  # load_network_settings reports it
        if not isinstance(doc, dict):
            doc = {}
    public = [w for w in plan.items if w.kind == "workload" and (w.capacity or {}).get("expose") == "public"]
    for field, value in STAND_IN_NETWORK.items():
        var = ENV_VARS[field]
        if (environ.get(var) or "").strip() or doc.get(field):
            continue
        if field == "public_subnet_ids" and not public:
            continue
        if field == "public_domain" and len(public) < 2:
            continue
        environ[var] = ",".join(value) if isinstance(value, tuple) else value
        stand_ins.append(var)
    return load_network_settings(environ, args.network), stand_ins


def run(args: argparse.Namespace, ctx: Context) -> int:
    an, base = load(args)
    spec = an.spec
    if spec is not None and args.env not in an.plans:
        known = ", ".join(an.plans) or "none"
        raise UsageError(f"{PROG} {NAME}: error: --env {args.env}: no such environment in {Path(an.root_file).name} (declared: {known})")
    diags = an.all_diagnostics()
    if diags:
        print_diagnostics(an, diags, base, ctx.stderr, Style(ctx.stderr, ctx.environ))
    if spec is None or any(d.severity == Severity.ERROR and d.code != OVER_CAP_CODE for d in diags):
        print(f"{PROG} {NAME}: the runway has errors; nothing was declared", file=ctx.stderr)
        return EXIT_INVALID
    plan = an.plans[args.env]
    if plan.verdict == "over-cap":
        print(f"{PROG} {NAME}: refused: {args.env} is over its cap; nothing was declared (ADR 0493 §3)", file=ctx.stderr)
        return EXIT_REFUSED
    from deploy_engine.settings import SettingsError, plan_network_check

    try:
        network, stand_ins = _network(args, ctx, plan)
    except SettingsError as exc:
        print(f"{PROG} {NAME}: configuration: {exc}", file=ctx.stderr)
        return EXIT_CONFIG
    for problem in plan_network_check(network, plan, {**ctx.environ, "RUNWAY_ALLOW_HTTP": "1"}).problems:
        print(f"{PROG} {NAME}: configuration: {problem}", file=ctx.stderr)
        return EXIT_CONFIG
    if stand_ins:
        print(f"{PROG} {NAME}: not configured, stand-in values used: {', '.join(stand_ins)}", file=ctx.stderr)
    try:
        from deploy_engine.resources import declared_resources, hide_secret_container_env, review, text_lines
    except ImportError as exc:
        print(f"{PROG} {NAME}: needs the [deploy] extra (pulumi, pulumi-aws): {exc}", file=ctx.stderr)
        return EXIT_PULUMI_MISSING
    try:
        doc = declared_resources(plan, product=spec.product, region=spec.region, network=network)
    except SettingsError as exc:
        print(f"{PROG} {NAME}: configuration: {exc}", file=ctx.stderr)
        return EXIT_CONFIG
    if args.format == "json":
        dump({"product": spec.product, "environment": doc["environment"], "stand_ins": stand_ins,
              "review": review(plan, doc["resources"]), "resources": hide_secret_container_env(doc["resources"])}, ctx.stdout)
    else:
        ctx.stdout.write("\n".join(text_lines(doc)) + "\n")
    return EXIT_OK


__all__ = ["NAME", "STAND_IN_NETWORK", "add_parser", "run"]
