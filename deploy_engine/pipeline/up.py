"""``up`` once the guards passed: under the environment's lease, in phases (docs/deploy.md,
"Secrets flow"; :func:`run_up`), with the safety nets that end it with exit 7 (a password holder
created unawares, a database endpoint moved, a value not written to Infisical, the Infisical ->
SSM sync not done in time, a service not steady).

Must not import pulumi at module level: :mod:`deploy_engine.automation` is imported inside the
functions that run Pulumi.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from deploy_engine.exits import EXIT_DEPLOY_FAILED, EXIT_INVALID, EXIT_LEASE_HELD, EXIT_OK, PROG
from deploy_engine.pipeline.credentials import RefusedChange, choose_credentials
from deploy_engine.pipeline.run import DeployRun, lease_lost, under_lease


#: Seconds ``up`` waits for the Infisical -> SSM sync to create the parameters (``RUNWAY_SSM_SYNC_TIMEOUT_S``).
SSM_SYNC_TIMEOUT_S = 300.0
SSM_SYNC_VARIABLE = "RUNWAY_SSM_SYNC_TIMEOUT_S"
SSM_POLL_INTERVAL_S = 10.0


def _sync_timeout(run: DeployRun) -> float:
    raw = (run.ctx.environ.get(SSM_SYNC_VARIABLE) or "").strip()
    try:
        return max(0.0, float(raw)) if raw else SSM_SYNC_TIMEOUT_S
    except ValueError:
        return SSM_SYNC_TIMEOUT_S


def _rotate_advice(names: Sequence[str]) -> str:
    return (
        f"; the credentials of {', '.join(names)} may now be set on the database but not in Infisical: "
        f"once the cause is fixed, run `{PROG} up --rotate-credentials` (a new value, set and written to Infisical)"
    )


def run_up(run: DeployRun, target: Any, infisical: Any) -> int:
    return under_lease(run, lambda: _up_under_lease(run, target, infisical, run.receipt))


def _up_under_lease(run: DeployRun, target: Any, infisical: Any, receipt: Any) -> int:
    """``up`` once the lease is held, in phases (docs/deploy.md, "Secrets flow"):

    0. choose the credentials; log in to Infisical (fail fast: nothing is deployed without it);
    1. ``pulumi up`` of everything but the workloads (``--exclude`` each ``runway:aws:Workload``
       with its children): data resources, security groups, cluster, ALB;
    2. every resource's values written blind to Infisical at ``<slug>:/runtime/<resource>/``
       (the non-secret ones each time; a database's password and URL when this run set them);
    3. wait, bounded, polling SSM metadata, until every parameter a task definition references
       exists (the Infisical -> SSM sync); missing ones fail the run (exit 7) before any service
       changes;
    4. ``pulumi up`` of the whole program: the services, which wait for steady state.

    A plan without workloads stops after phase 2 (nothing reads SSM).
    """
    from deploy_engine import automation
    from deploy_engine.infisical import InfisicalWriteError, InfisicalWriter

    cplan = None
    writer = None
    slug = infisical.slug(run.env)
    written: list[str] = []
    receipt.secrets_written = written
    workloads = [i.name for i in run.plan.items if i.kind == "workload"]
    try:
        try:
            # Under the lease: which databases exist is read once, and two deploys never both
            # create one. Only non-secret outputs are read (no stored password is ever read).
            try:
                stored, cplan = choose_credentials(run, target, generate=True, rotate=bool(run.options.rotate_credentials))
            except RefusedChange as exc:
                return run.finish(EXIT_INVALID, "refused", str(exc))
            receipt.credentials = dict(cplan.sources)
            for name in cplan.new:
                run.err(f"{PROG} up: {name}: {cplan.reasons[name]}: setting a new password ({cplan.sources[name]})")
            # Logs in by itself at the first write (phase 2); a password about to be set logs in
            # now: never create a database whose password could not be stored.
            writer = InfisicalWriter(infisical, run.redactor)
            if cplan.new:
                try:
                    writer.login()
                except InfisicalWriteError as exc:
                    receipt.credentials = {n: "unchanged" for n in cplan.sources}
                    return run.finish(EXIT_DEPLOY_FAILED, "failed",
                                      f"{exc}; nothing was deployed (`up` would set the password of {', '.join(cplan.new)}, "
                                      "which must then be written to Infisical)")
            failure = lease_lost(run, "phase 1", deployed=False)
            if failure is not None:
                return failure
            if workloads:
                target.exclude = workload_urns(run.product, run.env, workloads)
                run.err(f"{PROG} up: phase 1: data resources and shared pieces (workloads {', '.join(workloads)} held back)")
            first = automation.up(target, run.pulumi_line)
        except automation.StackLocked as exc:
            # Pulumi's own backend lock: another runner is deploying this stack (docs/deploy.md, "Lease").
            return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
        except automation.PulumiFailed as exc:
            receipt.resources = exc.resources
            advice = _rotate_advice(cplan.new) if cplan is not None and cplan.new else ""
            return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc) + advice)
        finally:
            target.exclude = ()
        receipt.resources = first.resources
        receipt.changes = dict(first.changes)
        failure = _safety_nets(run, cplan, stored, first)
        if failure is not None:
            return failure
        failure = lease_lost(run, "phase 2 (writing values to Infisical)", deployed=True,
                             advice=_rotate_advice(cplan.new) if cplan.new else "")
        if failure is not None:
            return failure
        failure = _write_values(run, writer, slug, cplan, first.outputs, written)
        if failure is not None:
            return failure
        if not workloads:
            return _succeeded(run, first.outputs)
        failure = lease_lost(run, "phase 3 (waiting for the Infisical -> SSM sync)", deployed=True)
        if failure is not None:
            return failure
        failure = _wait_for_sync(run, slug)
        if failure is not None:
            return failure
        failure = lease_lost(run, "phase 4 (the services)", deployed=True)
        if failure is not None:
            return failure
        run.err(f"{PROG} up: phase 4: the services ({', '.join(workloads)}), each waiting for steady state")
        try:
            second = automation.up(target, run.pulumi_line)
        except automation.StackLocked as exc:
            return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
        except automation.PulumiFailed as exc:
            receipt.resources = tuple(sorted(set(first.resources) | set(exc.resources)))
            return run.finish(EXIT_DEPLOY_FAILED, "failed",
                              f"{exc}; the data resources are deployed and their values written; a service that did not reach "
                              "steady state was rolled back by its deployment circuit breaker (see its ECS events)")
        receipt.resources = tuple(sorted(set(first.resources) | set(second.resources)))
        # Operations of both updates; "same" once (the second update sees every resource).
        merged = {op: n for op, n in receipt.changes.items() if op != "same"}
        for op, n in second.changes.items():
            merged[op] = n if op == "same" else merged.get(op, 0) + n
        receipt.changes = merged
        failure = _safety_nets(run, cplan, stored, second, check_moved=False)
        if failure is not None:
            return failure
        failure = _check_steady(run, second.outputs)
        if failure is not None:
            return failure
        return _succeeded(run, second.outputs)
    finally:
        if writer is not None:
            writer.close()


def workload_urns(product: str, environment: str, workloads: Sequence[str]) -> tuple[str, ...]:
    """The URNs of the ``runway:aws:Workload`` components (``<env>-<workload>``, at the stack
    root) that phase 1 excludes with their children (``--exclude-dependents``)."""
    from deploy_engine.automation import project_name, stack_name

    from runway_core.kinds import BY_NAME

    prefix = f"urn:pulumi:{stack_name(product, environment)}::{project_name(product)}::{BY_NAME['workload'].component}::"
    return tuple(f"{prefix}{environment}-{w}" for w in workloads)


def _safety_nets(run: DeployRun, cplan: Any, stored: Any, result: Any, *, check_moved: bool = True) -> int | None:
    """Exit 7 when the update created a password holder unawares or moved an unchanged database."""
    from deploy_engine.engine_events import password_holders
    from deploy_engine.stack_outputs import postgres_endpoint

    created = {urn.rsplit("::", 1)[-1] for urn in result.created}
    unawares = [n for n in cplan.credentials if n not in cplan.new and created & set(password_holders(run.env, n))]
    if unawares:
        return run.finish(
            EXIT_DEPLOY_FAILED, "failed",
            f"{', '.join(unawares)}: this up created or replaced the database or its proxy secret although the stack "
            "recorded it, so it got a throwaway password that nobody knows" + _rotate_advice(unawares),
        )
    if not check_moved:
        return None
    moved = []
    for name in cplan.credentials:
        if name in cplan.new:
            continue
        before = stored.databases[name].endpoint if name in stored.databases else None
        after = postgres_endpoint(result.outputs, name)
        if before is not None and after is not None and before != after:
            moved.append(f"{name} ({before[0]}:{before[1]} -> {after[0]}:{after[1]})")
    if moved:
        return run.finish(
            EXIT_DEPLOY_FAILED, "failed",
            f"the endpoint of {', '.join(moved)} changed: its URL and host in Infisical are stale, and runway never reads "
            "the password to rewrite them" + _rotate_advice([m.split(" ", 1)[0] for m in moved]),
        )
    return None


def _write_values(run: DeployRun, writer: Any, slug: str, cplan: Any, outputs: Mapping[str, Any], written: list[str]) -> int | None:
    """Phase 2: each resource's values to ``<slug>:/runtime/<resource>/``, blind (ADR 0493 §4).

    A database whose password this run set: its six values (``<R>_URL`` and ``<R>_PASSWORD``
    built from the credential). Every other item: its non-secret values (the program's
    ``resources.<name>.variables``: queue URL/ARN, cache URL/HOST/PORT, topic ARN, bucket
    NAME/ARN, a workload's URL). An unchanged database's values stay as they are: its password
    is unknown here, and so is the URL that embeds it.
    """
    from deploy_engine.infisical import Endpoint, InfisicalWriteError
    from deploy_engine.secrets import SecretValue
    from deploy_engine.stack_outputs import postgres_endpoint

    resources = outputs.get("resources") if isinstance(outputs.get("resources"), Mapping) else {}
    for item in run.plan.items:
        name = item.name
        try:
            if item.kind == "postgres":
                if name not in cplan.new:
                    continue
                endpoint = postgres_endpoint(outputs, name)
                if endpoint is None:
                    return run.finish(
                        EXIT_DEPLOY_FAILED, "failed",
                        f"the program exported no endpoint for {name} (stack output `resources.{name}.endpoint`); its secrets were not written"
                        + _rotate_advice([name]),
                    )
                names = writer.write_postgres(slug, cplan.credentials[name], Endpoint(*endpoint))
                run.err(f"{PROG} up: {name}: {cplan.sources[name]} credential: wrote {len(names)} values to Infisical at {slug}:/runtime/{name}/")
            else:
                variables = (resources.get(name) or {}).get("variables") if isinstance(resources.get(name), Mapping) else None
                if not isinstance(variables, Mapping) or not variables:
                    continue
                values = {str(k): SecretValue(str(v)) for k, v in variables.items() if v not in (None, "")}
                names = writer.write(slug, name, values)
        except InfisicalWriteError as exc:
            advice = _rotate_advice(cplan.new) if cplan.new else ""
            return run.finish(EXIT_DEPLOY_FAILED, "failed",
                              f"{exc}; the data resources are deployed, no workload was changed; `up` again writes every value again" + advice)
        written += [f"{slug}:/runtime/{name}/{n}" for n in names]
    return None


def _succeeded(run: DeployRun, outputs: Mapping[str, Any]) -> int:
    """Exit 0, saying truthfully what waits for the maintenance window (outside disposable
    environments, RDS applies resizes and upgrades there): each pending change is a line, in the
    receipt's ``pending``, and the run's last word says "succeeded, with changes pending"."""
    pending = _pending(run, outputs)
    if run.receipt is not None:
        run.receipt.extra = {**dict(run.receipt.extra), "pending": pending}
    if pending:
        return run.finish(EXIT_OK, "succeeded", "deployed; not applied yet, pending for the next maintenance window: " + "; ".join(pending))
    return run.finish(EXIT_OK, "succeeded")


def _pending(run: DeployRun, outputs: Mapping[str, Any]) -> list[str]:
    from deploy_engine import preflight

    if run.plan.disposable:
        return []  # apply_immediately: nothing waits
    resources = outputs.get("resources") if isinstance(outputs.get("resources"), Mapping) else {}
    databases = {i.name: (str(resources[i.name].get("flavor") or "rds"), resources[i.name]["arn"]) for i in run.plan.items
                 if i.kind == "postgres" and isinstance(resources.get(i.name), Mapping) and isinstance(resources[i.name].get("arn"), str)}
    if not databases:
        return []
    try:
        return preflight.pending_modifications(preflight.aws_client("rds", run.region, run.ctx.environ), databases)
    except preflight.PreflightError as exc:
        # The deploy itself succeeded: say what could not be confirmed, never claim it applied.
        return [f"could not read the pending modifications ({run.redactor.scrub(str(exc))}; the deploy role needs "
                "rds:DescribeDBInstances and rds:DescribeDBClusters): resizes and upgrades may wait for the maintenance window"]


def _check_steady(run: DeployRun, outputs: Mapping[str, Any]) -> int | None:
    """Every ECS service runs its declared task definition, steady (exit 7 otherwise)."""
    from deploy_engine import preflight

    resources = outputs.get("resources") if isinstance(outputs.get("resources"), Mapping) else {}
    env_outputs = outputs.get("environment_resources") if isinstance(outputs.get("environment_resources"), Mapping) else {}
    services = {name: (r["service_arn"], r["task_definition_arn"]) for name, r in resources.items()
                if isinstance(r, Mapping) and isinstance(r.get("service_arn"), str) and isinstance(r.get("task_definition_arn"), str)}
    cluster = env_outputs.get("ecs_cluster_arn")
    if not services or not isinstance(cluster, str):
        return None
    try:
        problems = preflight.unsteady_services(preflight.aws_client("ecs", run.region, run.ctx.environ), cluster, services)
    except preflight.PreflightError as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", f"could not confirm the services' steady state ({run.redactor.scrub(str(exc))}; "
                          "the deploy role needs ecs:DescribeServices)")
    if problems:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", "pulumi up finished, but not every service reached steady state: " + "; ".join(problems))
    return None


def _wait_for_sync(run: DeployRun, slug: str) -> int | None:
    """Phase 3: every SSM parameter a task definition references exists (metadata only), or exit 7."""
    from deploy_engine import preflight
    from deploy_engine.layout import required_parameters

    needed = required_parameters(run.plan, run.product)
    timeout = _sync_timeout(run)
    run.err(f"{PROG} up: phase 3: waiting up to {timeout:g} s for the Infisical -> SSM sync ({len(needed)} parameters)")
    try:
        ssm = preflight.aws_client("ssm", run.region, run.ctx.environ)
        wait = preflight.wait_for_parameters(ssm, run.product, run.env, needed, timeout_s=timeout, interval_s=SSM_POLL_INTERVAL_S)
    except preflight.PreflightError as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed",
                          f"could not list the SSM parameters ({run.redactor.scrub(str(exc))}; the deploy role needs ssm:DescribeParameters); "
                          "no service was changed")
    if wait.missing:
        shown = ", ".join(f"{m} ({', '.join(needed[m])})" for m in wait.missing)
        return run.finish(
            EXIT_DEPLOY_FAILED, "failed",
            f"{len(wait.missing)} SSM parameter(s) a task definition reads do not exist after {timeout:g} s: {shown}; no service was "
            f"changed (a task would start without them); {preflight.sync_advice(run.product, run.env, slug, wait.missing)}",
        )
    return None


__all__ = ["SSM_SYNC_TIMEOUT_S", "SSM_SYNC_VARIABLE", "run_up", "workload_urns"]
