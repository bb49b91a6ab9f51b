"""The guards of the deploy pipeline, in their documented order (docs/deploy.md, "Guards and
exit codes"), then the command's own part: :func:`run_deploy`.

Over the cap or unpriced (2), not the reviewed plan (8), ``up``/``destroy`` outside the
protected deploy job (4), the ``[deploy]`` extra missing (3), no Pulumi CLI (5), the deploy
configuration missing or the network pre-flight failing (3); the lease (6) is taken by the
command's part (:func:`deploy_engine.pipeline.run.under_lease`). A state folder that is a file,
a link out of the repository or not the user's is 3 before anything is written.

Must not import pulumi at module level: only the paths past the guards import
:mod:`deploy_engine.automation`, lazily.
"""

from __future__ import annotations

from typing import Any, Sequence

from deploy_engine.context import Context
from deploy_engine.exits import (
    EXIT_CONFIG,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_NOT_PROTECTED,
    EXIT_PLAN_MISMATCH,
    EXIT_PULUMI_MISSING,
    EXIT_REFUSED,
    PROG,
    Terminated,
)
from deploy_engine.pipeline.preview import run_drift, run_preview
from deploy_engine.pipeline.run import DeployOptions, DeployRun, under_lease
from deploy_engine.pipeline.up import run_up
from runway_core.facts import Analysis
from runway_core.money import usd
from runway_core.planner import FORMAT_VERSION, cap_unchecked_text, plan_digest


#: ``up`` runs only where this variable is ``protected``: a protected deploy job (its CI
#: environment) sets it (ADR 0493 §6; docs/deploy.md). Anything else is refused with exit 4.
PROTECTED_VARIABLE = "RUNWAY_DEPLOY_JOB"
PROTECTED_VALUE = "protected"


#: The Python modules of the ``[deploy]`` extra (pyproject.toml): ``up`` needs all of them,
#: ``preview`` and ``drift`` the Pulumi ones.
DEPLOY_EXTRA_MODULES = ("pulumi", "pulumi_aws", "infisical_sdk")
INSTALL_DEPLOY_EXTRA = "pip install 'runway-tooling[deploy]'"


def missing_deploy_modules(command: str) -> list[str]:
    """The modules of the ``[deploy]`` extra that ``command`` needs and this Python cannot
    import (found without importing them: :func:`importlib.util.find_spec`)."""
    import importlib.util

    needed = DEPLOY_EXTRA_MODULES if command == "up" else DEPLOY_EXTRA_MODULES[:2]
    missing = []
    for name in needed:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def deploy_extra_message(command: str, missing: Sequence[str]) -> str:
    """Why ``command`` cannot run without the ``[deploy]`` extra, and how to install it (exit 3)."""
    return (f"`{command}` needs the [deploy] extra (Pulumi, pulumi-aws, the Infisical SDK), which is not installed "
            f"(no module {', '.join(missing)}): {INSTALL_DEPLOY_EXTRA}; nothing was run")


def run_deploy(ctx: Context, an: Analysis, options: DeployOptions) -> int:
    """``preview``, ``up`` or ``drift`` of ``options.env`` of a valid runway; returns the exit code.

    Every ``up`` leaves a receipt, and a JSON run its error object, a bug, Ctrl-C and SIGTERM
    included (the exception is re-raised for the command line to report; its type only is
    recorded: no message, no value). Sets ``ctx.redactor`` to the run's redactor.
    """
    from deploy_engine.workdir import StateFolderError, check_runway_folder

    run = DeployRun(options, ctx, an, an.plans[options.env])
    ctx.redactor = run.redactor
    try:
        # Before anything is written (an `up` writes a receipt even when refused): a state
        # folder that is a file, a link out of the repository or not the user's is exit 3.
        check_runway_folder(run.root)
        return _guarded_deploy(run)
    except StateFolderError as exc:
        # No receipt: the folder it would be written to is the problem.
        run.receipt = None
        return run.finish(EXIT_CONFIG, "failed", str(exc))
    except BaseException as exc:
        if not run.finished:
            if isinstance(exc, (KeyboardInterrupt, Terminated)):
                code = exc.exit_code if isinstance(exc, Terminated) else EXIT_INTERRUPTED
                what = f"cancelled: terminated ({exc.name})" if isinstance(exc, Terminated) else "cancelled: interrupted (Ctrl-C)"
                run.finish(code, "cancelled", what, announce=False)
            else:
                run.finish(EXIT_INTERNAL, "failed", f"internal error ({type(exc).__name__})", announce=False)
        raise


def _deploy_header(run: DeployRun, backend_url: str) -> dict[str, Any]:
    from deploy_engine.automation import project_name
    from deploy_engine.receipts import estimate_json, public_backend_url

    return {
        "format_version": FORMAT_VERSION,
        "command": run.command,
        "product": run.product,
        "environment": run.env,
        "region": run.region,
        "project": project_name(run.product),
        "stack": run.stack,
        "backend": public_backend_url(backend_url),
        "plan_digest": plan_digest(run.plan, run.product, run.region),
        "estimate": estimate_json(run.plan),
    }


def _deploy_config(run: DeployRun) -> tuple[Any, Any, Any, Any] | None:
    """(network, infisical config or None, backend, passphrase), or None after printing every problem (exit 3)."""
    from deploy_engine.backend import DeployConfigError, resolve_backend, resolve_passphrase
    from deploy_engine.infisical import InfisicalConfig, InfisicalConfigError
    from deploy_engine.settings import SettingsError, load_network_settings, plan_network_check

    problems: list[str] = []
    network = infisical = backend = passphrase = None
    if run.store_problem is not None:
        problems.append(run.store_problem)
    try:
        network = load_network_settings(run.ctx.environ, run.options.network)
    except SettingsError as exc:
        problems.append(str(exc))
    else:
        # What this environment's plan needs from the network (public subnets, domain, HTTPS):
        # refused here, before Pulumi, rather than as an error inside the program.
        check = plan_network_check(network, run.plan, run.ctx.environ)
        problems.extend(check.problems)
        for warning in check.warnings:
            run.err(f"{PROG} {run.command}: warning: {warning}")
    if run.command == "up":
        try:
            infisical = InfisicalConfig.from_environ(run.ctx.environ, [run.env])
            run.redactor.add(infisical.client_secret)
        except InfisicalConfigError as exc:
            problems.append(str(exc))
    try:
        backend = resolve_backend(run.options.backend, run.ctx.environ, run.root)
        if run.command == "up" and backend.embedded and run.ctx.environ.get("RUNNER_ENVIRONMENT") == "github-hosted":
            # GitHub sets RUNNER_ENVIRONMENT to `github-hosted` on its own runners (GitHub docs,
            # "Variables": default environment variables): state kept in the checkout is gone
            # when the job ends, so the next `up` would create every resource again. An unset
            # secret (`PULUMI_BACKEND_URL: ${{ secrets.X }}`) lands here; refused, not guessed.
            raise DeployConfigError(
                "the embedded file:// backend on a GitHub-hosted runner: its state is gone when the job ends, so the next `up` "
                "would create every resource again; set PULUMI_BACKEND_URL (or --backend) to s3://<bucket>[/<prefix>] "
                "(docs/deploy.md, Backend)", ("PULUMI_BACKEND_URL",))
        passphrase = resolve_passphrase(backend, run.ctx.environ, run.root)
        run.redactor.add(passphrase)
    except DeployConfigError as exc:
        problems.append(str(exc))
    except OSError as exc:
        problems.append(f"backend or passphrase folder: {exc.strerror or exc}")
    if problems:
        for p in problems:
            run.err(f"{PROG} {run.command}: configuration: {p}")
        return None
    return network, infisical, backend, passphrase


def _guarded_deploy(run: DeployRun) -> int:
    ctx, env_plan = run.ctx, run.plan

    # The cap check runs before Pulumi is called (ADR 0493 §3): nothing declared, pulumi not imported.
    # `destroy` declares nothing: an environment over its cap may always be destroyed.
    if env_plan.verdict == "over-cap" and run.command != "destroy":
        assert env_plan.cap is not None
        return run.finish(
            EXIT_REFUSED, "refused",
            f"refused: {run.env} is over its cap ({usd(env_plan.total)}/month > {usd(env_plan.cap)}); nothing was declared",
        )
    if env_plan.verdict == "unpriced":
        # Fail closed (issue 13): a capped environment whose estimate misses a price.
        return run.finish(
            EXIT_REFUSED, "refused",
            f"refused: {run.env}: {cap_unchecked_text(env_plan, run.region)}; nothing was declared",
        )
    reviewed = run.options.plan_digest
    if reviewed is not None:
        current = plan_digest(env_plan, run.product, run.region)
        if run.receipt is not None:
            run.receipt.reviewed_plan_digest = reviewed
        if reviewed != current:
            return run.finish(
                EXIT_PLAN_MISMATCH, "refused",
                f"refused: the plan of {run.env} is not the reviewed one: --plan-digest {reviewed}, but the runway now "
                f"plans {current}; nothing was declared. {_reviewed_changes(run, reviewed)}Review the new plan "
                f"(`{PROG} plan --env {run.env} --format json` gives its plan_digest) and pass that digest",
            )
    if run.command in ("up", "destroy") and ctx.environ.get(PROTECTED_VARIABLE) != PROTECTED_VALUE:
        return run.finish(
            EXIT_NOT_PROTECTED, "refused",
            f"refused: `{run.command}` runs only in a protected deploy job ({PROTECTED_VARIABLE}={PROTECTED_VALUE}, "
            "set by that job's protected environment; ADR 0493 §6). Use `preview` anywhere else",
        )

    missing = missing_deploy_modules(run.command)
    if missing:
        return run.finish(EXIT_CONFIG, "failed", deploy_extra_message(run.command, missing))

    from deploy_engine import automation

    try:
        automation.require_pulumi_cli(ctx.environ, ctx.which)
    except automation.PulumiMissing as exc:
        return run.finish(EXIT_PULUMI_MISSING, "failed", str(exc))
    config = _deploy_config(run)
    if config is None:
        return run.finish(EXIT_CONFIG, "failed", "configuration missing; see the lines above")
    network, infisical, backend, passphrase = config
    if run.receipt is not None:
        run.receipt.backend = backend.url
    if run.command in ("preview", "up"):
        problems = _network_preflight(run, network)
        if problems:
            for p in problems:
                run.err(f"{PROG} {run.command}: network: {p}")
            return run.finish(EXIT_CONFIG, "failed", "network pre-flight failed; see the lines above; nothing was run")
        refused = _image_platforms(run, network)
        if refused:
            return run.finish(EXIT_INVALID, "refused", "refused: " + "; ".join(refused) + "; nothing was run")
        refused = deployed_changes(run)
        if refused:
            return run.finish(EXIT_INVALID, "refused", "refused: " + "; ".join(refused) + "; nothing was run")

    # Credentials are chosen once the stack is open (`up`: under the lease): choose_credentials().
    target = automation.StackTarget(
        product=run.product, environment=run.env, region=run.region, plan=env_plan, network=network,
        credentials={}, backend=backend, passphrase=passphrase, redactor=run.redactor,
    )
    header = _deploy_header(run, backend.url)
    if run.command == "preview":
        return run_preview(run, target, header)
    if run.command == "drift":
        return run_drift(run, target, header)
    if run.command == "destroy":
        from deploy_engine.pipeline.destroy import destroy_under_lease

        return under_lease(run, lambda: destroy_under_lease(run, target))
    return run_up(run, target, infisical)


def _reviewed_changes(run: DeployRun, reviewed: str) -> str:
    """What changed since the reviewed plan, from the plan ``preview`` stored under its digest
    (:mod:`deploy_engine.reviewed`), as a sentence ending in a space; or why it cannot be said."""
    from deploy_engine.records.store import StoreError
    from deploy_engine.reviewed import load_reviewed_plan, plan_changes, plan_document

    try:
        stored = load_reviewed_plan(run.store, run.product, run.env, reviewed)
    except StoreError as exc:
        return f"The reviewed plan could not be read ({exc}). "
    if stored is None:
        return f"No plan with digest {reviewed} is stored for {run.env} (`{PROG} preview` stores the plan it shows). "
    changes = plan_changes(stored, plan_document(run.plan, run.product, run.region))
    return "Changed since the reviewed plan: " + "; ".join(changes) + ". "


#: Receipts read back, newest first, to find the last succeeded `up`.
MAX_RECEIPTS_READ = 200


def deployed_changes(run: DeployRun) -> list[str]:
    """The changes AWS refuses (RW190-RW193, :func:`runway_core.changes.refused_changes`) of this
    environment against the plan of its last succeeded ``up``: the newest such receipt of the
    records store names its ``plan_digest``, and the reviewed plan stored under it is what is
    deployed. Errors are returned (refused, exit 1), warnings said; no such receipt or plan, or
    a store that cannot be read, is said and not refused (the stack's own checks still run)."""
    from deploy_engine.receipts import list_receipts
    from deploy_engine.records.store import StoreError
    from deploy_engine.reviewed import load_reviewed_plan
    from runway_core.changes import refused_changes, side_of_deployed
    from runway_core.diagnostics import Severity

    try:
        keys = list_receipts(run.store, run.product, run.env, [run.env])[-MAX_RECEIPTS_READ:]
        for key in reversed(keys):
            record = run.store.read(key)
            try:
                receipt = record.json() if record is not None else None
            except ValueError:
                continue
            if not isinstance(receipt, dict) or receipt.get("command") != "up" or receipt.get("outcome") != "succeeded":
                continue
            digest = receipt.get("plan_digest")
            plan = load_reviewed_plan(run.store, run.product, run.env, digest) if isinstance(digest, str) else None
            if plan is None:
                run.err(f"{PROG} {run.command}: the last succeeded up ({digest}) has no stored reviewed plan: changes against it not checked")
                return []
            side = side_of_deployed({"plan_digest": digest, "plan": plan})
            break
        else:
            return []
    except (StoreError, ValueError) as exc:
        run.err(f"{PROG} {run.command}: the deployed plan could not be read ({run.redactor.scrub(str(exc))}): changes against it not checked")
        return []
    found = [d for d in refused_changes(run.analysis, side, f"the plan of the last up, {digest[:12]}") if d.data.get("environment") == run.env]
    for d in found:
        if d.severity != Severity.ERROR:
            run.err(f"{PROG} {run.command}: {d.code}: {d.message}")
    return [f"{d.code}: {d.message}" for d in found if d.severity == Severity.ERROR]


def _image_platforms(run: DeployRun, network: Any = None) -> list[str]:
    """Each workload's image read from its registry (:func:`deploy_engine.images.check_platforms`):
    the workloads whose image lacks their ``platform`` (refused, exit 1); an image that cannot
    be read is said on stderr and not refused. With ``RUNWAY_HEALTH_PROBE_IMAGE`` set
    (``network.health_probe_image``), the health probe's image is checked too for each workload
    that runs it (the default's index has both Fargate platforms, docs/deploy.md "Health probe")."""
    from deploy_engine import images
    from deploy_engine.layout import health_probe_image

    workloads = [(i.name, str(i.capacity.get("image") or ""), str(i.capacity.get("platform") or "linux/arm64"))
                 for i in run.plan.items if i.kind == "workload" and i.capacity]
    if getattr(network, "health_probe_image", None):
        workloads += [(f"{i.name} (health probe)", probe, str(i.capacity.get("platform") or "linux/arm64"))
                      for i in run.plan.items if i.kind == "workload" and i.capacity and (probe := health_probe_image(network, i.capacity))]
    if not workloads:
        return []
    result = images.check_platforms(workloads, run.ctx.image_fetch or images.http_fetch)
    for line in result.unchecked:
        run.err(f"{PROG} {run.command}: image: {run.redactor.scrub(line)}")
    return [run.redactor.scrub(p) for p in result.problems]


def _network_preflight(run: DeployRun, network: Any) -> list[str]:
    """The network pre-flight (:func:`deploy_engine.preflight.network_problems`) through the run's
    AWS credentials; a failed AWS call is one problem naming the API (exit 3)."""
    from deploy_engine import preflight

    try:
        ec2 = preflight.aws_client("ec2", run.region, run.ctx.environ)
        return list(preflight.network_problems(network, run.plan, run.region, ec2).problems)
    except preflight.PreflightError as exc:
        return [f"could not check the network ({run.redactor.scrub(str(exc))}); the deploy role needs ec2:DescribeVpcs, "
                "ec2:DescribeSubnets, ec2:DescribeRouteTables and ec2:DescribeVpcEndpoints"]


__all__ = [
    "DEPLOY_EXTRA_MODULES", "INSTALL_DEPLOY_EXTRA", "PROTECTED_VALUE", "PROTECTED_VARIABLE", "deploy_extra_message",
    "missing_deploy_modules", "run_deploy",
]
