"""The database credentials of one deploy run, chosen against what the stack holds
(docs/deploy.md, "Credentials"): :func:`choose_credentials`, shared by ``preview`` and ``up``;
:class:`FlavorSwitch` refuses a postgres flavor change outside a disposable environment (exit 1).

Must not import pulumi at module level.
"""

from __future__ import annotations

from typing import Any, Sequence

from runway_core import kinds

from deploy_engine.exits import PROG
from deploy_engine.pipeline.run import DeployRun


class RefusedChange(Exception):
    """A change against what is deployed that is refused before Pulumi runs (exit 1); the
    message says why and what to do."""


class FlavorSwitch(RefusedChange):
    """A postgres ``flavor`` (rds <-> aurora) differs from the deployed one outside a disposable
    environment: a new, empty database, and the old one held by deletion protection. Refused
    before Pulumi (exit 1); the message gives the migration path."""

    def __init__(self, switched: Sequence[tuple[str, str, str]], env: str) -> None:
        what = ", ".join(f"{r} ({old} -> {new})" for r, old, new in switched)
        first = switched[0]
        super().__init__(
            f"refused: {env}: postgres flavor changed against the deployed stack: {what}. Outside dev that would create a new, "
            f"empty database and leave the old one behind deletion protection; nothing was run. Migrate instead "
            f"(docs/deploy.md, \"Switching flavor\"): keep `{first[0]}` as `flavor: {first[1]}`, add a new resource with "
            f"`flavor: {first[2]}`, deploy, copy the data, move the consumers' `uses` to it, then remove the old one"
        )


def choose_credentials(run: DeployRun, target: Any, *, generate: bool, rotate: bool = False) -> tuple[Any, Any]:
    """(stored state, credential plan) of this run; sets ``target.credentials`` and ``target.set_passwords``.

    Reads which databases the stack holds from its **non-secret** outputs
    (:func:`automation.stored_state`: never ``--show-secrets``), then
    :func:`secrets.plan_credentials`: a password is set only for a new database, a rotation
    (``--rotate-credentials``, a proxy added or removed); ``preview`` never generates (a
    placeholder stands in). Raises ``automation.PulumiFailed``.
    """
    from deploy_engine import automation
    from deploy_engine.secrets import flavor_switches, plan_credentials

    stored = automation.stored_state(target)
    check_vpc(run, stored, target)
    switched = flavor_switches(run.plan, stored.databases) if not run.plan.disposable else []
    if switched:
        raise FlavorSwitch(switched, run.env)
    cplan = plan_credentials(run.plan, stored.databases, generate=generate, rotate=rotate)
    run.redactor.add_credentials(cplan.secret_credentials())
    target.credentials = cplan.credentials
    target.set_passwords = cplan.set_passwords
    # Not secret: consumers' task definitions carry the versions (a new password redeploys
    # them); public workloads keep the listener priorities the stack recorded.
    target.credential_versions = dict(cplan.versions)
    target.known_priorities = dict(stored.listener_priorities)
    target.engine_versions = resolve_engine_versions(run)
    return stored, cplan


class VpcMove(RefusedChange):
    """The network's VPC differs from the one the last ``up`` deployed into, outside a
    disposable environment, with data resources: every security group and subnet group is
    replaced (an RDS or ElastiCache subnet group cannot move to another VPC in place) and the
    databases with them. Refused before Pulumi (exit 1)."""


def check_vpc(run: DeployRun, stored: Any, target: Any) -> None:
    """Raise :class:`VpcMove` (or say it, in a disposable environment) when ``RUNWAY_VPC_ID``
    is not the VPC the stack records."""
    before, after = getattr(stored, "vpc_id", None), getattr(target.network, "vpc_id", None)
    if not before or not after or before == after:
        return
    data = [i.name for i in run.plan.items if i.kind in kinds.VPC_DATA_KINDS]
    what = f"{run.env}: the VPC changed against the deployed stack ({before} -> {after})"
    if run.plan.disposable or not data:
        run.err(f"{PROG} {run.command}: {what}: every networked resource is created again in {after}")
        return
    raise VpcMove(f"refused: {what}: {', '.join(data)} would be created again, empty, in the new VPC (their subnet groups "
                  "cannot move), and the old ones are held by deletion protection; nothing was run. Migrate as for a region "
                  "(docs/deploy.md, \"Moving to another region\"), or set RUNWAY_VPC_ID back")


class EngineVersionRefused(RefusedChange):
    """A planned major with no version RDS accepts from the running one: refused (exit 1)."""


def resolve_engine_versions(run: DeployRun) -> dict[str, str]:
    """Each postgres' full engine version (:func:`deploy_engine.engine_versions.resolve_all`), read
    with the run's AWS credentials. A refused or failed call keeps the plan's major version (what
    RDS takes for a new database) and is said on stderr; a major upgrade without a valid target
    raises :class:`EngineVersionRefused`."""
    from deploy_engine import engine_versions, preflight
    from deploy_engine.program.common import LIMIT_RDS, aws_name

    databases = {i.name: (str(i.capacity.get("flavor") or "rds"), aws_name(run.product, run.env, i.name, limit=LIMIT_RDS),
                          str(i.capacity.get("engine_version"))) for i in run.plan.items if i.kind == "postgres" and i.capacity}
    if not databases:
        return {}
    try:
        return engine_versions.resolve_all(preflight.aws_client("rds", run.region, run.ctx.environ), databases)
    except engine_versions.NoUpgradePath as exc:
        raise EngineVersionRefused(f"refused: {run.env}: {exc}; nothing was run") from None
    except preflight.PreflightError as exc:
        run.err(f"{PROG} {run.command}: engine versions not resolved ({run.redactor.scrub(str(exc))}; the deploy role needs "
                "rds:DescribeDBEngineVersions, rds:DescribeDBInstances, rds:DescribeDBClusters): declaring the major versions")
        return {}


__all__ = ["EngineVersionRefused", "FlavorSwitch", "RefusedChange", "VpcMove", "check_vpc", "choose_credentials", "resolve_engine_versions"]
