"""One ``preview``/``up``/``drift``/``destroy`` run of the deploy pipeline
(:mod:`deploy_engine.pipeline`): what it was asked (:class:`DeployOptions`), its redactor, its
output, its records store and receipt (:class:`DeployRun`), the environment's lease
(:func:`under_lease`: taken, renewed by a :class:`~deploy_engine.leases.LeaseKeeper`, checked
before each phase of ``up`` by :func:`lease_lost`, released), SIGTERM as an exception (:class:`SigtermRaises`) and the JSON error
object (:func:`json_error`).

Must not import pulumi.
"""

from __future__ import annotations

import json
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from deploy_engine.context import Context, json_ascii
from deploy_engine.exits import EXIT_CONFIG, EXIT_DEPLOY_FAILED, EXIT_LEASE_HELD, EXIT_OK, PROG, SigtermRaises, Terminated  # noqa: F401 - SigtermRaises re-exported
from deploy_engine.terminal import printable_lines, rel_path
from runway_core.facts import Analysis
from runway_core.planner import EnvironmentPlan


@dataclass(frozen=True)
class DeployOptions:
    """What one ``preview``/``up``/``drift`` was asked: the command, the environment, the
    backend URL and network file (None: from the environment), the output format (``text`` or
    ``json``), the reviewed plan's digest (64 lowercase hex digits or None) and, for ``up``,
    whether to rotate every database credential."""

    command: str
    env: str
    backend: str | None = None
    network: str | None = None
    format: str = "text"
    plan_digest: str | None = None
    rotate_credentials: bool = False
    #: ``destroy`` only: also destroy resources marked ``protect`` (unprotecting them first).
    include_protected: bool = False


def json_error(code: int, message: str) -> dict[str, Any]:
    """What ``preview``/``drift --format json`` (and an ``up`` that wrote no receipt) print on
    stdout when they fail: ``{"error": {"exit_code": <code>, "message": <why>}}``."""
    return {"error": {"exit_code": code, "message": printable_lines(message)}}


#: Variables of a deploy job's environment that hold credentials: their values are scrubbed from
#: every line any deploy command prints or records (docs/deploy.md, "Secrets").
CREDENTIAL_VARIABLES = ("INFISICAL_CLIENT_SECRET", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_ACCESS_TOKEN", "AWS_SECRET_ACCESS_KEY",
                        "AWS_SESSION_TOKEN")


class DeployRun:
    """One ``preview``/``up``/``drift`` run: its redactor, its output and (for ``up``) its receipt."""

    def __init__(self, options: DeployOptions, ctx: Context, an: Analysis, env_plan: EnvironmentPlan) -> None:
        from deploy_engine.receipts import Receipt, actor, ci_run, endpoint_secrets, git_commit, url_secrets
        from deploy_engine.records import backend_url
        from deploy_engine.secrets import Redactor

        assert an.spec is not None
        self.options = options
        self.ctx = ctx
        self.command: str = options.command
        self.analysis = an
        self.product = an.spec.product
        self.region = an.spec.region
        self.env = options.env
        self.plan = env_plan
        self.root = Path(an.root_file).resolve().parent
        self.redactor = Redactor()
        self.ci = ci_run(ctx.environ)
        self.actor = actor(ctx.environ)
        self.stack = f"{self.product}-{self.env}"
        self.receipt: Any = None
        self.finished = False
        #: The renewer of the lease ``up``/``destroy`` hold (:func:`under_lease`), else None.
        self.lease_keeper: Any = None
        # The records store follows the backend (docs/deploy.md, "Records"); opened before any
        # guard, so a refused run's receipt goes there too. A URL's user info is a credential.
        url = backend_url(options.backend, ctx.environ)
        for value in url_secrets(url) + endpoint_secrets(ctx.environ):
            self.redactor.add(value)
        # The job's credentials reach every Pulumi subprocess of every command (it inherits the
        # environment), whatever the command reads itself: `destroy` and `drift` printed and
        # stored the Infisical client secret, which only `up` had registered (tenth adversary C9).
        for name in CREDENTIAL_VARIABLES:
            self.redactor.add(ctx.environ.get(name))
        #: Why the records store of the backend cannot be opened (an AWS configuration botocore
        #: refuses, a bad RUNWAY_STORE_TIMEOUT_S), or None: a configuration problem (exit 3,
        #: :func:`deploy_engine.pipeline.guards._deploy_config`); the receipt goes to .runway/.
        self.store_problem: str | None = None
        self.store = _open_records(url, self.root, ctx.environ, self.redactor, self)
        if self.command in ("up", "destroy"):
            self.receipt = Receipt(
                command=self.command,
                product=self.product,
                environment=self.env,
                region=self.region,
                stack=self.stack,
                plan=env_plan,
                started_at=ctx.now(),
                git_commit=git_commit(self.root),
                ci=self.ci,
                actor=self.actor,
                # Where its records go, also for a run refused before the backend is checked.
                backend=url or None,
            )

    # Every line goes through the redactor (ADR 0493 §4: nobody reads a value).
    def err(self, text: str) -> None:
        print(self.redactor.scrub(printable_lines(text)), file=self.ctx.stderr)

    def pulumi_line(self, line: str) -> None:
        self.ctx.stderr.write(self.redactor.scrub(line) + "\n")

    def out(self, text: str) -> None:
        self.ctx.stdout.write(self.redactor.scrub(text))

    def out_json(self, doc: Any) -> None:
        self.out(json.dumps(doc, indent=2, ensure_ascii=json_ascii(self.ctx.stdout)) + "\n")

    def holder(self) -> str:
        if self.ci:
            return f"{self.actor} ({self.ci['provider']} run {self.ci['run_id']})"
        return self.actor

    def finish(self, code: int, outcome: str, reason: str | None = None, *, announce: bool = True) -> int:
        """End the run with ``code``; an ``up`` writes its receipt (and prints it with ``--format json``)."""
        self.finished = True
        if reason and announce:
            self.err(f"{PROG} {self.command}: {reason}")
        if self.receipt is None:
            if code != EXIT_OK and self.options.format == "json":
                self.out_json(json_error(code, reason or outcome))
            return code
        self.receipt.outcome = outcome
        self.receipt.exit_code = code
        self.receipt.reason = self.redactor.scrub(reason) if reason else None
        self.receipt.finished_at = self.ctx.now()
        written, shown = self.write_receipt()
        if self.options.format == "json":
            doc = json.loads(written.text)
            doc["receipt"] = shown
            self.out_json(doc)
        self.err(f"{PROG} {self.command}: {outcome}; receipt {shown}")
        return code

    def write_receipt(self) -> tuple[Any, str]:
        """Write the receipt to the records store: (what was written, where, as shown). A store
        that cannot take it (unreachable, access denied) gets it written to ``.runway/receipts/``
        instead, with a warning: a receipt is never lost for want of a bucket."""
        from deploy_engine.receipts import store_receipt
        from deploy_engine.records.file_store import FileStore
        from deploy_engine.records.store import StoreError

        try:
            written = store_receipt(self.store, self.receipt, self.redactor)
        except StoreError as exc:
            if self.store.scheme == "file":
                # `.runway/receipts/` is where it failed: no second attempt there (exit 3).
                from deploy_engine.workdir import StateFolderError

                raise StateFolderError(f"the receipt could not be written: {exc}") from None
            self.err(f"{PROG} {self.command}: warning: the receipt could not be stored: {exc}; writing it under .runway/receipts/")
            written = store_receipt(FileStore(self.root), self.receipt, self.redactor)
            return written, rel_path(written.location, str(self.root))
        if self.store.scheme == "s3":
            if written.retain_until is None:
                self.err(f"{PROG} {self.command}: warning: receipt not locked: {getattr(self.store, 'unlocked_reason', None)} "
                         f"(`{PROG} state check` names the fix)")
            return written, written.location
        return written, rel_path(written.location, str(self.root))


def _open_records(url: str, root: Path, environ: Mapping[str, str], redactor: Any, run: Any = None) -> Any:
    """The records store of ``url`` (:func:`deploy_engine.records.open_store`); an ``s3://`` URL
    without a bucket keeps the records in ``.runway/`` (the backend check refuses it, exit 3), and
    so does one whose store cannot be opened (``StoreConfigError``: ``run.store_problem`` says
    why, and the run is refused as a configuration problem)."""
    from deploy_engine.records import open_store
    from deploy_engine.records.file_store import FileStore
    from deploy_engine.records.store import StoreConfigError

    try:
        return open_store(url, root, environ, redactor)
    except StoreConfigError as exc:
        if run is not None:
            run.store_problem = str(exc)
        return FileStore(root)
    except ValueError:
        return FileStore(root)


def store_record(run: DeployRun, what: str, write: Any) -> Any:
    """Run ``write()`` (a records-store write) and return its result; a store that refuses it
    leaves a warning line naming ``what`` and returns None (the command's own result stands)."""
    from deploy_engine.records.store import StoreError

    try:
        return write()
    except (StoreError, OSError) as exc:
        run.err(f"{PROG} {run.command}: warning: {what} not stored: {exc}")
        return None


def under_lease(run: DeployRun, body: Any) -> int:
    """Take the environment's lease in the records store (exit 6 while another deploy holds
    it), run ``body()`` and release the lease on every way out."""
    from deploy_engine.leases import LeaseError, LeaseHeld, LeaseKeeper, acquire, lease_ttl, release
    from deploy_engine.receipts import lease_json
    from deploy_engine.records.store import StoreError

    receipt = run.receipt
    try:
        ttl = lease_ttl(run.ctx.environ)
    except ValueError as exc:
        return run.finish(EXIT_CONFIG, "refused", f"{exc}; nothing was deployed")
    try:
        lease = acquire(run.root, run.product, run.env, holder=run.holder(), clock=run.ctx.now, store=run.store,
                        redactor=run.redactor, ttl=ttl)
    except LeaseHeld as exc:
        receipt.lease = lease_json(exc.lease, "held-by-another")
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    except LeaseError as exc:
        receipt.lease = {"status": "unreadable"}
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    except StoreError as exc:
        # Fail closed: no lease, no deploy.
        receipt.lease = {"status": "not-taken"}
        return run.finish(EXIT_DEPLOY_FAILED, "failed", f"the lease could not be taken: {exc}; nothing was deployed")
    # Renewed every third of its lifetime while the run goes on, and checked before each phase
    # of `up` (lease_lost): a run longer than the lease is never taken over while alive.
    keeper = run.lease_keeper = LeaseKeeper(lease, run.ctx.now, ttl, run.redactor).start()
    try:
        receipt.lease = lease_json(lease, "held")
        if lease.takeover:
            run.err(_takeover_text(run.command, lease.takeover))
        return body()
    finally:
        # On every way out: success, failure, a bug, Ctrl-C and SIGTERM (Terminated).
        keeper.stop()
        run.lease_keeper = None
        release(keeper.lease, run.ctx.now, run.redactor)


def lease_lost(run: DeployRun, next_phase: str, deployed: bool, advice: str = "") -> int | None:
    """Before ``next_phase`` of ``up``: renew the lease now; exit 6 (:data:`EXIT_LEASE_HELD`,
    outcome ``failed`` once something was deployed, else ``refused``) when it is no longer ours
    (taken over after expiring, released, or not renewable before its expiry), so two deploys
    never run their next phases at once. ``advice`` ends the message (the rotate advice when
    phase 1 set passwords that phase 2 would have written). None while the lease is held
    (docs/deploy.md, "Lease")."""
    from deploy_engine.leases import LeaseLost

    keeper = run.lease_keeper
    if keeper is None:
        return None
    try:
        keeper.check()
    except LeaseLost as exc:
        run.receipt.lease = {**(run.receipt.lease or {}), "status": "lost", "lost": str(exc)}
        done = "what the earlier phases deployed stays; " if deployed else "nothing was deployed; "
        return run.finish(EXIT_LEASE_HELD, "failed" if deployed else "refused",
                          f"stopped before {next_phase}: {exc}; {done}run `{PROG} up` again once the other deploy is done{advice}")
    return None


def _takeover_text(command: str, takeover: Mapping[str, Any]) -> str:
    reason = str(takeover.get("reason") or "expired")
    if reason == "expired":
        return f"{PROG} {command}: took over the expired lease of {takeover.get('previous_holder')}"
    return f"{PROG} {command}: took over the lease of {takeover.get('previous_holder')}: {reason}"


__all__ = ["DeployOptions", "DeployRun", "SigtermRaises", "json_error", "lease_lost", "store_record", "under_lease"]
