"""``destroy``: end an environment through the Automation API, and start its receipts' 7 years.

Run by :func:`deploy_engine.pipeline.guards.run_deploy` after the guards ``up`` has (docs/deploy.md,
"Destroy"): an invalid runway (1), outside the protected deploy job (4), no Pulumi CLI (5),
configuration missing (3), then under the environment's lease (6). An environment over its cap
may always be destroyed (nothing is declared). Then:

1. the stack's resources marked ``protect`` (:func:`deploy_engine.automation.protected_resources`)
   refuse the destroy with exit 9, naming them, unless ``--include-protected`` was given (then
   ``pulumi state unprotect --all`` first);
2. ``pulumi destroy`` (exit 7 when it fails; AWS-side deletion protection, e.g. of a
   ``production`` database, fails it too, as it should);
3. the environment's end is recorded and every receipt of it locked until end + 7 years
   (:func:`deploy_engine.receipts.start_retention`); the destroy's own receipt says so
   (``ended_at``, ``retain_until``, ``protected``).

Must not import pulumi at module level.
"""

from __future__ import annotations

from typing import Any

from deploy_engine.exits import EXIT_DEPLOY_FAILED, EXIT_LEASE_HELD, EXIT_OK, EXIT_PROTECTED_REMAIN, PROG


def destroy_under_lease(run: Any, target: Any) -> int:
    """``destroy`` of ``run.env`` (a :class:`deploy_engine.pipeline.run.DeployRun`) once the
    guards passed and the lease is held (:func:`deploy_engine.pipeline.run.under_lease`);
    returns the exit code (see module)."""
    from deploy_engine import automation
    from deploy_engine.records.store import StoreError
    from deploy_engine.receipts import start_retention

    receipt = run.receipt
    include = bool(run.options.include_protected)
    try:
        protected = automation.protected_resources(target)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    receipt.extra = {"protected": list(protected), "include_protected": include, "ended_at": None, "retain_until": None}
    if protected and not include:
        shown = ", ".join(protected[:10]) + (f" and {len(protected) - 10} more" if len(protected) > 10 else "")
        return run.finish(
            EXIT_PROTECTED_REMAIN, "refused",
            f"refused: {len(protected)} protected resource(s) remain in {run.stack}: {shown}; nothing was destroyed. "
            f"`{PROG} destroy --include-protected` unprotects and destroys them too",
        )
    try:
        result = automation.destroy(target, run.pulumi_line, unprotect=bool(protected))
    except automation.StackLocked as exc:
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    except automation.PulumiFailed as exc:
        receipt.resources = exc.resources
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    receipt.resources = result.resources
    receipt.changes = result.changes
    ended = run.ctx.now()
    try:
        retention = start_retention(run.store, run.product, run.env, ended, run.redactor)
    except StoreError as exc:
        receipt.extra = {**receipt.extra, "ended_at": ended.isoformat()}
        return run.finish(EXIT_DEPLOY_FAILED, "failed",
                          f"the environment was destroyed, but its end could not be recorded nor its receipts locked: {exc}")
    receipt.extra = {**receipt.extra, "ended_at": retention["ended_at"], "retain_until": retention["retain_until"]}
    run.err(f"{PROG} destroy: {run.env} ended {retention['ended_at']}: {retention['receipts']} receipt(s) kept until "
            f"{retention['retain_until']} ({retention['locked']} locked)")
    return run.finish(EXIT_OK, "succeeded")


__all__ = ["destroy_under_lease"]
