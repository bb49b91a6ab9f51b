"""The deploy pipeline of ``preview``, ``up`` and ``drift``: guards, configuration, credentials,
lease, Pulumi through the Automation API (:mod:`deploy_engine.automation`), receipt
(docs/deploy.md).

:func:`run_deploy` takes the analysis of a valid runway (the command line has loaded it and
refused an invalid one with exit 1) and runs the guards in this order: over the cap (2: nothing
is declared and pulumi is not even imported), the plan is not the reviewed one (8,
``--plan-digest``), ``up`` outside the protected deploy job (4), no Pulumi CLI (5),
configuration missing (3), lease held (6). A Pulumi or Infisical failure is 7
(:mod:`deploy_engine.exits`). A database password is generated and set only by the ``up`` that
creates the database, or that rotates it (``--rotate-credentials``, the proxy added or removed);
only those values are written to Infisical, after logging in before ``pulumi up``; no run reads
a stored one (docs/deploy.md, "Credentials"). SIGTERM ends a run like Ctrl-C (exit 143,
:class:`SigtermRaises`). With ``--format json`` a failed ``preview``/``drift`` prints
``{"error": {"exit_code", "message"}}``. Every ``up`` writes a receipt
(:mod:`deploy_engine.receipts`); every line it prints goes through the run's
:class:`~deploy_engine.secrets.Redactor`.

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
        from deploy_engine.receipts import Receipt, actor, ci_run, git_commit
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
        if self.command == "up":
            self.receipt = Receipt(
                product=self.product,
                environment=self.env,
                region=self.region,
                stack=self.stack,
                plan=env_plan,
                started_at=ctx.now(),
                git_commit=git_commit(self.root),
                ci=self.ci,
                actor=self.actor,
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
        from deploy_engine.receipts import write_receipt

        self.receipt.outcome = outcome
        self.receipt.exit_code = code
        self.receipt.reason = self.redactor.scrub(reason) if reason else None
        self.receipt.finished_at = self.ctx.now()
        path = write_receipt(self.root, self.receipt, self.redactor)
        shown = rel_path(str(path), str(self.root))
        if self.options.format == "json":
            doc = json.loads(path.read_text(encoding="utf-8"))
            doc["receipt"] = shown
            self.out_json(doc)
        self.err(f"{PROG} up: {outcome}; receipt {shown}")
        return code


def run_deploy(ctx: Context, an: Analysis, options: DeployOptions) -> int:
    """``preview``, ``up`` or ``drift`` of ``options.env`` of a valid runway; returns the exit code.

    Every ``up`` leaves a receipt, and a JSON run its error object, a bug, Ctrl-C and SIGTERM
    included (the exception is re-raised for the command line to report; its type only is
    recorded: no message, no value). Sets ``ctx.redactor`` to the run's redactor.
    """
    run = DeployRun(options, ctx, an, an.plans[options.env])
    ctx.redactor = run.redactor
    try:
        return _guarded_deploy(run)
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
    from deploy_engine.automation import ENV_BACKEND, DeployConfigError, resolve_backend, resolve_passphrase
    from deploy_engine.infisical import InfisicalConfig, InfisicalConfigError
    from deploy_engine.receipts import url_secrets
    from deploy_engine.settings import SettingsError, load_network_settings, plan_network_check

    problems: list[str] = []
    network = infisical = backend = passphrase = None
    # A backend URL's user info is a credential: scrubbed from every line from now on.
    for value in url_secrets((run.options.backend or run.ctx.environ.get(ENV_BACKEND) or "").strip()):
        run.redactor.add(value)
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
    if env_plan.verdict == "over-cap":
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
                f"plans {current}; nothing was declared. Review the new plan (`{PROG} plan --env {run.env} --format json` "
                "gives its plan_digest) and pass that digest",
            )
    if run.command == "up" and ctx.environ.get(PROTECTED_VARIABLE) != PROTECTED_VALUE:
        return run.finish(
            EXIT_NOT_PROTECTED, "refused",
            f"refused: `up` runs only in a protected deploy job ({PROTECTED_VARIABLE}={PROTECTED_VALUE}, "
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
    return _run_up(run, target, infisical)


def _credentials(run: DeployRun, target: Any, *, generate: bool, rotate: bool = False) -> tuple[Any, Any]:
    """(stored state, credential plan) of this run; sets ``target.credentials`` and ``target.set_passwords``.

    Reads which databases the stack holds from its **non-secret** outputs
    (:func:`automation.stored_state`: never ``--show-secrets``), then
    :func:`secrets.plan_credentials`: a password is set only for a new database, a rotation
    (``--rotate-credentials``, a proxy added or removed); ``preview`` never generates (a
    placeholder stands in). Raises ``automation.PulumiFailed``.
    """
    from deploy_engine import automation
    from deploy_engine.secrets import plan_credentials

    stored = automation.stored_state(target)
    cplan = plan_credentials(run.plan, stored.databases, generate=generate, rotate=rotate)
    run.redactor.add_credentials(cplan.secret_credentials())
    target.credentials = cplan.credentials
    target.set_passwords = cplan.set_passwords
    return stored, cplan


def _run_preview(run: DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation

    try:
        _, cplan = _credentials(run, target, generate=False)
        for name in cplan.placeholders:
            run.err(f"{PROG} preview: {name}: {cplan.reasons[name]}: previewed with a placeholder password; `up` will generate one")
        summary = automation.preview(target, run.pulumi_line)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
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
    if run.options.format == "json":
        run.out_json({
            **header,
            "checked": report.checked,
            "drifted": [{"urn": i.urn, "type": i.type, "change": i.change, "properties": list(i.properties)} for i in report.items],
        })
    else:
        lines = [f"drift of {run.stack}: {len(report.items)} of {report.checked} resources changed outside Pulumi"]
        for i in report.items:
            props = f" ({', '.join(i.properties)})" if i.properties else ""
            lines.append(f"  {i.change:<8} {i.type}  {i.urn}{props}")
        run.out("\n".join(lines) + "\n")
    return EXIT_OK


def _rotate_advice(names: Sequence[str]) -> str:
    return (
        f"; the credentials of {', '.join(names)} may now be set on the database but not in Infisical: "
        f"once the cause is fixed, run `{PROG} up --rotate-credentials` (a new value, set and written to Infisical)"
    )
def _run_up(run: DeployRun, target: Any, infisical: Any) -> int:
    from deploy_engine.leases import LeaseError, LeaseHeld, acquire, release
    from deploy_engine.receipts import lease_json

    receipt = run.receipt
    try:
        lease = acquire(run.root, run.product, run.env, holder=run.holder(), clock=run.ctx.now)
    except LeaseHeld as exc:
        receipt.lease = lease_json(exc.lease, "held-by-another")
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    except LeaseError as exc:
        receipt.lease = {"status": "unreadable"}
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    try:
        receipt.lease = lease_json(lease, "held")
        if lease.takeover:
            run.err(_takeover_text(lease.takeover))
        return _up_under_lease(run, target, infisical, receipt)
    finally:
        # On every way out: success, failure, a bug, Ctrl-C and SIGTERM (Terminated).
        release(lease)


def _takeover_text(takeover: Mapping[str, Any]) -> str:
    reason = str(takeover.get("reason") or "expired")
    if reason == "expired":
        return f"{PROG} up: took over the expired lease of {takeover.get('previous_holder')}"
    return f"{PROG} up: took over the lease of {takeover.get('previous_holder')}: {reason}"


def _up_under_lease(run: DeployRun, target: Any, infisical: Any, receipt: Any) -> int:
    """``up`` once the lease is held: choose the credentials, log in to Infisical when one will be
    written, ``pulumi up``, write the new credentials, check no password was set unawares."""
    from deploy_engine import automation
    from deploy_engine.infisical import Endpoint, InfisicalWriteError, InfisicalWriter

    cplan = None
    writer = None
    slug = infisical.slug(run.env)
    try:
        try:
            # Under the lease: which databases exist is read once, and two deploys never both
            # create one. Only non-secret outputs are read (no stored password is ever read).
            stored, cplan = _credentials(run, target, generate=True, rotate=bool(run.options.rotate_credentials))
            receipt.credentials = dict(cplan.sources)
            for name in cplan.new:
                run.err(f"{PROG} up: {name}: {cplan.reasons[name]}: setting a new password ({cplan.sources[name]})")
            if cplan.new:
                # Fail fast: never create a database whose password could not be stored.
                writer = InfisicalWriter(infisical, run.redactor)
                try:
                    writer.login()
                except InfisicalWriteError as exc:
                    receipt.credentials = {n: "unchanged" for n in cplan.sources}
                    return run.finish(EXIT_DEPLOY_FAILED, "failed",
                                      f"{exc}; nothing was deployed (`up` would set the password of {', '.join(cplan.new)}, "
                                      "which must then be written to Infisical)")
            result = automation.up(target, run.pulumi_line)
        except automation.StackLocked as exc:
            # Pulumi's own backend lock: another runner is deploying this stack (docs/deploy.md, "Lease").
            return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
        except automation.PulumiFailed as exc:
            receipt.resources = exc.resources
            advice = _rotate_advice(cplan.new) if cplan is not None and cplan.new else ""
            return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc) + advice)
        receipt.resources = result.resources
        receipt.changes = result.changes
        # Written to Infisical: only the credentials set by this up (new database, rotation).
        # Never a read.
        written: list[str] = []
        receipt.secrets_written = written
        for name in cplan.new:
            endpoint = automation.postgres_endpoint(result.outputs, name)
            if endpoint is None:
                return run.finish(
                    EXIT_DEPLOY_FAILED, "failed",
                    f"the program exported no endpoint for {name} (stack output `resources.{name}.endpoint`); its secrets were not written"
                    + _rotate_advice([name]),
                )
            try:
                names = writer.write_postgres(slug, cplan.credentials[name], Endpoint(*endpoint))
            except InfisicalWriteError as exc:
                return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc) + _rotate_advice(cplan.new))
            written += [f"{slug}:/runtime/{name}/{n}" for n in names]
            run.err(f"{PROG} up: {name}: {cplan.sources[name]} credential: wrote {len(names)} values to Infisical at {slug}:/runtime/{name}/")
        # Safety nets for the databases this up did not set a password for.
        created = {urn.rsplit("::", 1)[-1] for urn in result.created}
        unawares = [n for n in cplan.credentials if n not in cplan.new and created & set(automation.password_holders(run.env, n))]
        if unawares:
            return run.finish(
                EXIT_DEPLOY_FAILED, "failed",
                f"{', '.join(unawares)}: this up created or replaced the database or its proxy secret although the stack "
                "recorded it, so it got a throwaway password that nobody knows" + _rotate_advice(unawares),
            )
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
        return run.finish(EXIT_OK, "succeeded")
    finally:
        if writer is not None:
            writer.close()


__all__ = ["DEPLOY_EXTRA_MODULES", "DeployOptions", "deploy_extra_message", "missing_deploy_modules", "DeployRun", "PROTECTED_VALUE", "PROTECTED_VARIABLE", "SigtermRaises", "json_error", "run_deploy"]
