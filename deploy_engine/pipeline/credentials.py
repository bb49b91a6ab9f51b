"""The database credentials of one deploy run, chosen against what the stack holds
(docs/deploy.md, "Credentials"): :func:`choose_credentials`, shared by ``preview`` and ``up``;
:class:`FlavorSwitch` refuses a postgres flavor change outside a disposable environment (exit 1).

Must not import pulumi at module level.
"""

from __future__ import annotations

from typing import Any, Sequence

from deploy_engine.pipeline.run import DeployRun


class FlavorSwitch(Exception):
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
    return stored, cplan


__all__ = ["FlavorSwitch", "choose_credentials"]
