"""The deploy pipeline of ``preview``, ``up`` and ``drift``: guards, configuration, credentials,
lease, Pulumi through the Automation API (:mod:`deploy_engine.automation`), receipt
(docs/deploy.md).

:func:`run_deploy` takes the analysis of a valid runway (the command line has loaded it and
refused an invalid one with exit 1) and runs the guards in this order: over the cap (2: nothing
is declared and pulumi is not even imported), the plan is not the reviewed one (8,
``--plan-digest``), ``up`` outside the protected deploy job (4), no Pulumi CLI (5),
configuration missing (3), lease held (6; also a lease taken over while ``up`` runs, found by
:func:`lease_lost` before each phase). A Pulumi or Infisical failure is 7
(:mod:`deploy_engine.exits`). A database password is generated and set only by the ``up`` that
creates the database, or that rotates it (``--rotate-credentials``, the proxy added or removed);
only those values are written to Infisical, after logging in before ``pulumi up``; no run reads
a stored one (docs/deploy.md, "Credentials"). SIGTERM ends a run like Ctrl-C (exit 143,
:class:`SigtermRaises`). With ``--format json`` a failed ``preview``/``drift`` prints
``{"error": {"exit_code", "message"}}``. Every ``up`` and ``destroy`` writes a receipt
(:mod:`deploy_engine.receipts`); every line it prints goes through the run's
:class:`~deploy_engine.secrets.Redactor`. Every record (receipt, lease, the plan ``preview``
showed, the drift report) goes to the records store of the backend (:mod:`deploy_engine.records`:
``.runway/`` or the ``s3://`` state bucket), opened before the first guard.

Must not import pulumi at module level: only the paths past the guards import
:mod:`deploy_engine.automation` (and through it pulumi), lazily.
"""

from __future__ import annotations

import json
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from deploy_engine.context import Context, json_ascii
from deploy_engine.exits import (
    EXIT_CONFIG,
    EXIT_DEPLOY_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_LEASE_HELD,
    EXIT_NOT_PROTECTED,
    EXIT_OK,
    EXIT_PLAN_MISMATCH,
    EXIT_PULUMI_MISSING,
    EXIT_REFUSED,
    EXIT_TERMINATED,
    PROG,
    Terminated,
)
from deploy_engine.terminal import printable_lines, rel_path
from runway_core.facts import Analysis
from runway_core.money import usd
from runway_core.planner import FORMAT_VERSION, EnvironmentPlan, cap_unchecked_text, plan_digest

#: ``up`` runs only where this variable is ``protected``: a protected deploy job (its CI
#: environment) sets it (ADR 0493 §6; docs/deploy.md). Anything else is refused with exit 4.
PROTECTED_VARIABLE = "RUNWAY_DEPLOY_JOB"
PROTECTED_VALUE = "protected"


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


class SigtermRaises:
    """``with SigtermRaises():`` SIGTERM raises :class:`~deploy_engine.exits.Terminated` (once;
    a second SIGTERM during the cleanup is ignored, so the receipt and the lease release
    complete). Only in the main thread, where Python runs signal handlers; the previous handler
    is restored on exit."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.installed = False
        self.fired = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.fired:
            return
        self.fired = True
        raise Terminated()

    def __enter__(self) -> "SigtermRaises":
        if threading.current_thread() is threading.main_thread():
            try:
                self.previous = signal.signal(signal.SIGTERM, self._handler)
                self.installed = True
            except (ValueError, OSError):
                self.installed = False
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous)


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


def json_error(code: int, message: str) -> dict[str, Any]:
    """What ``preview``/``drift --format json`` (and an ``up`` that wrote no receipt) print on
    stdout when they fail: ``{"error": {"exit_code": <code>, "message": <why>}}``."""
    return {"error": {"exit_code": code, "message": printable_lines(message)}}


class DeployRun:
    """One ``preview``/``up``/``drift`` run: its redactor, its output and (for ``up``) its receipt."""

    def __init__(self, options: DeployOptions, ctx: Context, an: Analysis, env_plan: EnvironmentPlan) -> None:
        from deploy_engine.receipts import Receipt, actor, ci_run, git_commit, url_secrets
        from deploy_engine.records import backend_url
        from deploy_engine.secrets import Redactor

        assert an.spec is not None
        self.options = options
        self.ctx = ctx
        self.command: str = options.command
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
        #: The renewer of the lease ``up``/``destroy`` hold (under_lease), else None.
        self.lease_keeper: Any = None
        # The records store follows the backend (docs/deploy.md, "Records"); opened before any
        # guard, so a refused run's receipt goes there too. A URL's user info is a credential.
        url = backend_url(options.backend, ctx.environ)
        for value in url_secrets(url):
            self.redactor.add(value)
        self.store = _open_records(url, self.root, ctx.environ, self.redactor)
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
        from deploy_engine.records import FileStore, StoreError

        try:
            written = store_receipt(self.store, self.receipt, self.redactor)
        except StoreError as exc:
            self.err(f"{PROG} {self.command}: warning: the receipt could not be stored: {exc}; writing it under .runway/receipts/")
            written = store_receipt(FileStore(self.root), self.receipt, self.redactor)
            return written, rel_path(written.location, str(self.root))
        if self.store.scheme == "s3":
            if written.retain_until is None:
                self.err(f"{PROG} {self.command}: warning: receipt not locked: {getattr(self.store, 'unlocked_reason', None)} "
                         f"(`{PROG} state check` names the fix)")
            return written, written.location
        return written, rel_path(written.location, str(self.root))


def _open_records(url: str, root: Path, environ: Mapping[str, str], redactor: Any) -> Any:
    """The records store of ``url`` (:func:`deploy_engine.records.open_store`); an ``s3://`` URL
    without a bucket keeps the records in ``.runway/`` (the backend check refuses it, exit 3)."""
    from deploy_engine.records import FileStore, open_store

    try:
        return open_store(url, root, environ, redactor)
    except ValueError:
        return FileStore(root)


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
                code = EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
                what = "cancelled: terminated (SIGTERM)" if isinstance(exc, Terminated) else "cancelled: interrupted (Ctrl-C)"
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


def _changes_text(changes: Mapping[str, int]) -> str:
    parts = [f"{op} {n}" for op, n in sorted(changes.items()) if n]
    return ", ".join(parts) or "no changes"


def _deploy_config(run: DeployRun) -> tuple[Any, Any, Any, Any] | None:
    """(network, infisical config or None, backend, passphrase), or None after printing every problem (exit 3)."""
    from deploy_engine.automation import DeployConfigError, resolve_backend, resolve_passphrase
    from deploy_engine.infisical import InfisicalConfig, InfisicalConfigError
    from deploy_engine.settings import SettingsError, load_network_settings, plan_network_check

    problems: list[str] = []
    network = infisical = backend = passphrase = None
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

    # Credentials are chosen once the stack is open (`up`: under the lease): _credentials().
    target = automation.StackTarget(
        product=run.product, environment=run.env, region=run.region, plan=env_plan, network=network,
        credentials={}, backend=backend, passphrase=passphrase, redactor=run.redactor,
    )
    header = _deploy_header(run, backend.url)
    if run.command == "preview":
        return _run_preview(run, target, header)
    if run.command == "drift":
        return _run_drift(run, target, header)
    if run.command == "destroy":
        from deploy_engine.destroy import destroy_under_lease

        return under_lease(run, lambda: destroy_under_lease(run, target))
    return _run_up(run, target, infisical)


def _reviewed_changes(run: DeployRun, reviewed: str) -> str:
    """What changed since the reviewed plan, from the plan ``preview`` stored under its digest
    (:mod:`deploy_engine.reviewed`), as a sentence ending in a space; or why it cannot be said."""
    from deploy_engine.records import StoreError
    from deploy_engine.reviewed import load_reviewed_plan, plan_changes, plan_document

    try:
        stored = load_reviewed_plan(run.store, run.product, run.env, reviewed)
    except StoreError as exc:
        return f"The reviewed plan could not be read ({exc}). "
    if stored is None:
        return f"No plan with digest {reviewed} is stored for {run.env} (`{PROG} preview` stores the plan it shows). "
    changes = plan_changes(stored, plan_document(run.plan, run.product, run.region))
    return "Changed since the reviewed plan: " + "; ".join(changes) + ". "


def store_record(run: DeployRun, what: str, write: Any) -> Any:
    """Run ``write()`` (a records-store write) and return its result; a store that refuses it
    leaves a warning line naming ``what`` and returns None (the command's own result stands)."""
    from deploy_engine.records import StoreError

    try:
        return write()
    except (StoreError, OSError) as exc:
        run.err(f"{PROG} {run.command}: warning: {what} not stored: {exc}")
        return None


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


def _credentials(run: DeployRun, target: Any, *, generate: bool, rotate: bool = False) -> tuple[Any, Any]:
    """(stored state, credential plan) of this run; sets ``target.credentials`` and ``target.set_passwords``.

    Reads which databases the stack holds from its **non-secret** outputs
    (:func:`automation.stored_state`: never ``--show-secrets``), then
    :func:`secrets.plan_credentials`: a password is set only for a new database, a rotation
    (``--rotate-credentials``, a proxy added or removed); ``preview`` never generates (a
    placeholder stands in). Raises ``automation.PulumiFailed``.
    """
    from deploy_engine import automation
    from deploy_engine.secrets import flavor_switches, plan_credentials
    from deploy_engine.settings import DISPOSABLE_ENVIRONMENTS

    stored = automation.stored_state(target)
    switched = flavor_switches(run.plan, stored.databases) if run.env not in DISPOSABLE_ENVIRONMENTS else []
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


def _run_preview(run: DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation

    try:
        _, cplan = _credentials(run, target, generate=False)
    except FlavorSwitch as exc:
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


def _run_drift(run: DeployRun, target: Any, header: dict[str, Any]) -> int:
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
    from deploy_engine.records import DRIFT_RETENTION_DAYS, prune_kind, write_unique

    now = run.ctx.now()
    written = write_unique(run.store, "drift", run.product, run.env, now, doc, run.redactor)
    prune_kind(run.store, "drift", run.product, run.env, now, DRIFT_RETENTION_DAYS)
    return written


def _rotate_advice(names: Sequence[str]) -> str:
    return (
        f"; the credentials of {', '.join(names)} may now be set on the database but not in Infisical: "
        f"once the cause is fixed, run `{PROG} up --rotate-credentials` (a new value, set and written to Infisical)"
    )
def _run_up(run: DeployRun, target: Any, infisical: Any) -> int:
    return under_lease(run, lambda: _up_under_lease(run, target, infisical, run.receipt))


def under_lease(run: DeployRun, body: Any) -> int:
    """Take the environment's lease in the records store (exit 6 while another deploy holds
    it), run ``body()`` and release the lease on every way out."""
    from deploy_engine.leases import LeaseError, LeaseHeld, LeaseKeeper, acquire, lease_ttl, release
    from deploy_engine.receipts import lease_json
    from deploy_engine.records import StoreError

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
                stored, cplan = _credentials(run, target, generate=True, rotate=bool(run.options.rotate_credentials))
            except FlavorSwitch as exc:
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
            return run.finish(EXIT_OK, "succeeded")
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
        return run.finish(EXIT_OK, "succeeded")
    finally:
        if writer is not None:
            writer.close()


def workload_urns(product: str, environment: str, workloads: Sequence[str]) -> tuple[str, ...]:
    """The URNs of the ``runway:aws:Workload`` components (``<env>-<workload>``, at the stack
    root) that phase 1 excludes with their children (``--exclude-dependents``)."""
    from deploy_engine.automation import project_name, stack_name

    prefix = f"urn:pulumi:{stack_name(product, environment)}::{project_name(product)}::runway:aws:Workload::"
    return tuple(f"{prefix}{environment}-{w}" for w in workloads)


def _safety_nets(run: DeployRun, cplan: Any, stored: Any, result: Any, *, check_moved: bool = True) -> int | None:
    """Exit 7 when the update created a password holder unawares or moved an unchanged database."""
    from deploy_engine import automation

    created = {urn.rsplit("::", 1)[-1] for urn in result.created}
    unawares = [n for n in cplan.credentials if n not in cplan.new and created & set(automation.password_holders(run.env, n))]
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
        after = automation.postgres_endpoint(result.outputs, name)
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
    from deploy_engine import automation
    from deploy_engine.infisical import Endpoint, InfisicalWriteError
    from deploy_engine.secrets import SecretValue

    resources = outputs.get("resources") if isinstance(outputs.get("resources"), Mapping) else {}
    for item in run.plan.items:
        name = item.name
        try:
            if item.kind == "postgres":
                if name not in cplan.new:
                    continue
                endpoint = automation.postgres_endpoint(outputs, name)
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


__all__ = [
    "DEPLOY_EXTRA_MODULES", "DeployOptions", "DeployRun", "PROTECTED_VALUE", "PROTECTED_VARIABLE", "SSM_SYNC_VARIABLE",
    "SigtermRaises", "deploy_extra_message", "json_error", "missing_deploy_modules", "run_deploy", "workload_urns",
]
