"""``preview`` and ``drift``, the read-only runs of the deploy pipeline, once the guards passed
(docs/deploy.md): ``pulumi preview`` (the plan it showed is kept under its digest for
``up --plan-digest``) and ``pulumi refresh --preview-only`` (the drift report is kept in the
records store, ``drift/``). Neither takes the lease; both print text or, with ``--format
json``, one JSON document.

Must not import pulumi at module level.
"""

from __future__ import annotations

from typing import Any, Mapping

from deploy_engine.exits import EXIT_DEPLOY_FAILED, EXIT_INVALID, EXIT_OK, PROG
from deploy_engine.pipeline.credentials import RefusedChange, choose_credentials
from deploy_engine.pipeline.run import DeployRun, store_record


def _changes_text(changes: Mapping[str, int]) -> str:
    parts = [f"{op} {n}" for op, n in sorted(changes.items()) if n]
    return ", ".join(parts) or "no changes"


def run_preview(run: DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation

    try:
        _, cplan = choose_credentials(run, target, generate=False)
    except RefusedChange as exc:
        return run.finish(EXIT_INVALID, "refused", str(exc))
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    try:
        for name in cplan.placeholders:
            run.err(f"{PROG} preview: {name}: {cplan.reasons[name]}: previewed with a placeholder password; `up` will generate one")
        summary = automation.preview(target, run.pulumi_line)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    from deploy_engine.reviewed import plan_key, store_reviewed_plan

    # The plan this preview showed, kept under its digest for `up --plan-digest` (docs/deploy.md).
    if store_record(run, "the reviewed plan", lambda: store_reviewed_plan(run.store, run.plan, run.product, run.region, run.redactor)):
        header = {**header, "plan_record": run.store.location(plan_key(run.store, run.product, run.env, header["plan_digest"]))}
    if run.options.format == "json":
        run.out_json({**header, "credentials": dict(cplan.sources), "changes": dict(summary.changes),
                      "steps": [{"urn": s.urn, "type": s.type, "op": s.op} for s in summary.steps]})
    else:
        lines = [f"preview of {run.stack} ({header['estimate']['text']}, {run.plan.verdict}): {_changes_text(summary.changes)}"]
        lines += [f"  {s.op:<20} {s.type}  {s.urn}" for s in summary.steps]
        run.out("\n".join(lines) + "\n")
    return EXIT_OK


def run_drift(run: DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation
    from deploy_engine.secrets import plan_credentials

    # A refresh does not run the program and reads no credential: placeholders, under ignore_changes.
    target.credentials = plan_credentials(run.plan, {}, generate=False).credentials
    target.set_passwords = ()
    try:
        report = automation.drift(target, run.pulumi_line)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    doc = {
        **header,
        "checked": report.checked,
        "drifted": [{"urn": i.urn, "type": i.type, "change": i.change, "properties": list(i.properties)} for i in report.items],
    }
    written = store_record(run, "the drift report", lambda: _store_drift(run, doc))
    if run.options.format == "json":
        run.out_json({**doc, "report": written.location if written is not None else None})
    else:
        lines = [f"drift of {run.stack}: {len(report.items)} of {report.checked} resources changed outside Pulumi"]
        for i in report.items:
            props = f" ({', '.join(i.properties)})" if i.properties else ""
            lines.append(f"  {i.change:<8} {i.type}  {i.urn}{props}")
        run.out("\n".join(lines) + "\n")
    return EXIT_OK


def _store_drift(run: DeployRun, doc: Mapping[str, Any]) -> Any:
    """Keep the drift report in the records store (``drift/``; 13 months: an S3 lifecycle rule,
    pruned in the file store)."""
    from deploy_engine.records.kinds import DRIFT_RETENTION_DAYS, prune_kind, write_unique

    now = run.ctx.now()
    written = write_unique(run.store, "drift", run.product, run.env, now, doc, run.redactor)
    prune_kind(run.store, "drift", run.product, run.env, now, DRIFT_RETENTION_DAYS)
    return written


__all__ = ["run_drift", "run_preview"]
