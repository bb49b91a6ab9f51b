"""The Pulumi Automation API face of the deploy side: ``preview``, ``up`` and ``drift``.

ADR 0493 §2 and §6, RUNWAY_FORMAT.md "Deploying": one stack per product and environment,
``<product>-<env>``, in the project ``runway-<product>``, run with an **inline program** that
calls :func:`deploy_engine.program.declare_environment` with the environment's plan. The plan
is data; the program is a function of it (STYLE.md §6).

- **Backend**: ``--backend URL``, else ``PULUMI_BACKEND_URL``, else the embedded
  ``file://<product repo>/.runway/state`` (the folder is created). ``s3://bucket[/prefix]`` is
  the choice for teams and CI, where the working tree is thrown away after each job.
- **Secrets provider**: ``passphrase``, from ``PULUMI_CONFIG_PASSPHRASE``. It is required for
  an ``s3://`` backend. For a ``file://`` backend without it, a passphrase is generated once
  and kept in ``.runway/pulumi-passphrase`` (mode 0600, listed in ``.runway/.gitignore``).
- **Pulumi CLI**: the Automation API drives the ``pulumi`` binary (>= 3.181 for the inline
  ``refresh`` used by ``drift``). :func:`require_pulumi_cli` looks for it on ``PATH`` before
  any workspace is built and raises :class:`PulumiMissing` with install instructions.
- **Credentials** (docs/deploy.md, "Credentials"): each postgres resource's admin password is
  generated once, by the first ``up`` that declares it, and kept **in the stack state** as the
  secret stack output :data:`CREDENTIALS_OUTPUT` (``{resource: password}``), encrypted by the
  stack's secrets provider. Not as stack config: with an inline program the workspace is a
  new temporary folder on every run and ``Pulumi.<stack>.yaml`` lives there, so a config value
  would be lost after the job; and ``pulumi config set`` takes the value on its command line.
  :func:`stored_state` reads it back before a run (``pulumi stack output --show-secrets``,
  captured, never printed; every value read is registered with the run's redactor) and the
  inline program receives the chosen values from the job and exports them again.
- **Drift**: ``pulumi refresh --preview-only`` (``Stack.preview_refresh``): what the cloud
  reports differs from the state, i.e. resources changed or deleted outside Pulumi. Each
  refresh step is classified as the engine does (``RefreshStep.ResultOp`` in pulumi/pulumi
  ``pkg/resource/deploy/step.go``): no new state -> ``deleted``; changed keys -> ``updated``.

``pulumi`` is imported only inside the functions that run it, after the CLI's guards (cap,
protected job, CLI present). Importing this module imports neither pulumi nor pulumi_aws.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from runway_core.planner import EnvironmentPlan

from .secrets import PREVIEW_PLACEHOLDER, PostgresCredentials, Redactor, SecretValue, generate_password

INSTALL_URL = "https://www.pulumi.com/docs/install/"
INSTALL_COMMAND = "curl -fsSL https://get.pulumi.com | sh"
ENV_BACKEND = "PULUMI_BACKEND_URL"
ENV_PASSPHRASE = "PULUMI_CONFIG_PASSPHRASE"
#: Backend URL schemes accepted: the embedded/local folder, and S3 for teams.
BACKEND_SCHEMES = ("file", "s3")
PASSPHRASE_FILE = "pulumi-passphrase"
#: The secret stack output that keeps each postgres resource's admin password, ``{resource: password}``.
CREDENTIALS_OUTPUT = "runway_credentials"

Which = Callable[..., "str | None"]
OnOutput = Callable[[str], None]


class PulumiMissing(Exception):
    """No ``pulumi`` binary on PATH: the Automation API cannot run without it."""

    def __init__(self) -> None:
        super().__init__(
            "the Pulumi CLI (`pulumi`) is not on PATH; the Automation API drives it. Install it: "
            f"{INSTALL_COMMAND}  (see {INSTALL_URL}; in GitHub Actions, pulumi/actions or the same script), "
            "then make sure `pulumi version` works in this job"
        )


class DeployConfigError(Exception):
    """Deploy configuration missing or invalid; ``missing`` names environment variables to set."""

    def __init__(self, message: str, missing: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.missing = tuple(missing)


class PulumiFailed(Exception):
    """A Pulumi operation failed. The message is redacted; ``resources`` are URNs seen before the failure."""

    def __init__(self, message: str, resources: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.resources = tuple(resources)


class StackLocked(PulumiFailed):
    """The backend's stack lock is held: another ``pulumi`` operation on this stack is running
    (``ConcurrentUpdateError``), e.g. a deploy from another runner."""


def require_pulumi_cli(environ: Mapping[str, str], which: Which = shutil.which) -> str:
    """Path of the ``pulumi`` binary on ``environ["PATH"]``; raises :class:`PulumiMissing`."""
    found = which("pulumi", path=environ.get("PATH", os.defpath))
    if not found:
        raise PulumiMissing()
    return found


def project_name(product: str) -> str:
    return f"runway-{product}"


def stack_name(product: str, environment: str) -> str:
    return f"{product}-{environment}"


# --------------------------------------------------------------------------------------
# Backend and passphrase
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """Where Pulumi keeps the state. ``embedded`` is the default folder in the product repo."""

    url: str
    embedded: bool = False

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0].lower()


def resolve_backend(arg: str | None, environ: Mapping[str, str], repo_root: Path) -> Backend:
    """``--backend``, else ``PULUMI_BACKEND_URL``, else ``file://<repo>/.runway/state`` (created).

    Raises :class:`DeployConfigError` for another scheme than ``file://`` or ``s3://``.
    """
    url = (arg or environ.get(ENV_BACKEND) or "").strip()
    if not url:
        state = (repo_root / ".runway" / "state").resolve()
        state.mkdir(parents=True, exist_ok=True)
        _ensure_gitignore(repo_root)
        return Backend(f"file://{state.as_posix()}", embedded=True)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in BACKEND_SCHEMES:
        raise DeployConfigError(
            f"backend {url.split('?', 1)[0]!r}: use file://<folder> or s3://<bucket>[/<prefix>] (--backend or {ENV_BACKEND})",
            (ENV_BACKEND,),
        )
    if scheme == "file":
        folder = Path(url[len("file://"):]).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
    return Backend(url)


def _ensure_gitignore(repo_root: Path) -> None:
    """``.runway/.gitignore`` keeps the generated passphrase and live leases out of git."""
    path = repo_root / ".runway" / ".gitignore"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(f"# written by runway-deploy: never commit these\n{PASSPHRASE_FILE}\nleases/\n", encoding="utf-8")


def resolve_passphrase(backend: Backend, environ: Mapping[str, str], repo_root: Path) -> SecretValue:
    """The secrets-provider passphrase of the stack.

    ``PULUMI_CONFIG_PASSPHRASE`` when set. Otherwise, for a ``file://`` backend, the one kept
    in ``.runway/pulumi-passphrase`` (generated with :func:`secrets.token_urlsafe` on first
    use, created 0600 with O_EXCL; a file readable by others is refused). For ``s3://``,
    raises :class:`DeployConfigError` naming ``PULUMI_CONFIG_PASSPHRASE``: a team backend needs
    the team's passphrase, not one local to a runner.
    """
    given = environ.get(ENV_PASSPHRASE)
    if given:
        return SecretValue(given)
    if backend.scheme != "file":
        raise DeployConfigError(
            f"{ENV_PASSPHRASE} is required with the {backend.scheme}:// backend (the stack's secrets are encrypted with it)",
            (ENV_PASSPHRASE,),
        )
    _ensure_gitignore(repo_root)
    path = repo_root / ".runway" / PASSPHRASE_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            raise DeployConfigError(f"{path} is readable by others (mode {mode:o}); run `chmod 600 {path}`") from None
        value = path.read_text(encoding="utf-8").strip()
        if not value:
            raise DeployConfigError(f"{path} is empty; delete it only if the stack holds no secrets yet, or set {ENV_PASSPHRASE}") from None
        return SecretValue(value)
    value = generate_password()
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value.reveal() + "\n")
    return value


# --------------------------------------------------------------------------------------
# Results as data
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One resource step of a preview: URN, type token and operation (``create``, ``update``...)."""

    urn: str
    type: str
    op: str


@dataclass(frozen=True)
class PreviewSummary:
    changes: Mapping[str, int]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class UpSummary:
    """``resources`` are the URNs the engine reported for this update (every resource of the stack)."""

    changes: Mapping[str, int]
    resources: tuple[str, ...]
    outputs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DriftItem:
    """A resource changed outside Pulumi. ``change`` is ``updated`` or ``deleted``; ``properties`` are names only."""

    urn: str
    type: str
    change: str
    properties: tuple[str, ...] = ()


@dataclass(frozen=True)
class DriftReport:
    items: tuple[DriftItem, ...]
    checked: int


def _op(value: Any) -> str:
    return str(getattr(value, "value", value) or "")


def _metadata(event: Any) -> tuple[Any, bool]:
    """(step metadata, is_outputs_event) of a resource event, or (None, False)."""
    pre = getattr(event, "resource_pre_event", None)
    if pre is not None:
        return pre.metadata, False
    out = getattr(event, "res_outputs_event", None)
    if out is not None:
        return out.metadata, True
    return None, False


def _state_outputs(state: Any) -> Any:
    return getattr(state, "outputs", None) if state is not None else None


def classify_refresh_step(md: Any) -> DriftItem | None:
    """A refresh step as drift, or None when the resource matches its state.

    Mirrors ``RefreshStep.ResultOp``: no new state -> deleted; changed keys (``diffs`` or
    ``detailed_diff``), or different outputs when the engine sent no diff -> updated. Steps
    already reported as ``update``/``delete`` (newer engines) are taken as they are.
    """
    op = _op(md.op)
    urn = md.urn
    rtype = md.type
    if rtype == "pulumi:pulumi:Stack" or rtype.startswith("pulumi:providers:"):
        return None
    if op in ("delete", "discard"):
        return DriftItem(urn, rtype, "deleted")
    if op not in ("refresh", "update"):
        return None
    if op == "refresh" and md.new is None and md.old is not None:
        return DriftItem(urn, rtype, "deleted")
    keys = tuple(sorted(set(md.diffs or ()) | set((md.detailed_diff or {}).keys())))
    if keys:
        return DriftItem(urn, rtype, "updated", keys)
    if op == "update":
        return DriftItem(urn, rtype, "updated")
    old, new = _state_outputs(md.old), _state_outputs(md.new)
    if old is not None and new is not None and old != new:
        changed = tuple(sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)))
        return DriftItem(urn, rtype, "updated", changed)
    return None


def drift_from_events(events: Sequence[Any]) -> DriftReport:
    """Summarise the engine events of ``refresh --preview-only`` (one item per URN, last wins)."""
    found: dict[str, DriftItem] = {}
    checked: set[str] = set()
    for ev in events:
        md, _ = _metadata(ev)
        if md is None or not getattr(md, "urn", None):
            continue
        if md.type != "pulumi:pulumi:Stack" and not md.type.startswith("pulumi:providers:"):
            checked.add(md.urn)
        item = classify_refresh_step(md)
        if item is not None:
            found[md.urn] = item
    return DriftReport(tuple(found[u] for u in sorted(found)), len(checked))


def steps_from_events(events: Sequence[Any]) -> tuple[Step, ...]:
    """Resource steps of a preview, except ``same`` and the stack itself, in engine order."""
    seen: dict[str, Step] = {}
    for ev in events:
        md, is_out = _metadata(ev)
        if md is None or is_out or md.type == "pulumi:pulumi:Stack":
            continue
        op = _op(md.op)
        if op != "same":
            seen[md.urn] = Step(md.urn, md.type, op)
    return tuple(seen.values())


def urns_from_events(events: Sequence[Any]) -> tuple[str, ...]:
    """Every URN the engine finished (``ResOutputsEvent``), sorted."""
    urns = {md.urn for md, is_out in (_metadata(e) for e in events) if md is not None and is_out and md.urn}
    return tuple(sorted(urns))


def _changes(raw: Mapping[Any, int] | None) -> dict[str, int]:
    return {_op(k): int(v) for k, v in (raw or {}).items()}


# --------------------------------------------------------------------------------------
# Running Pulumi
# --------------------------------------------------------------------------------------


@dataclass
class StackTarget:
    """Everything one stack operation needs. ``network`` is a :class:`deploy_engine.settings.NetworkSettings`.

    ``credentials`` may be set after the stack is opened (:func:`stored_state` first, then the
    run's :func:`deploy_engine.secrets.plan_credentials`): the program reads it when it runs.
    """

    product: str
    environment: str
    region: str
    plan: EnvironmentPlan
    network: Any
    credentials: Mapping[str, PostgresCredentials]
    backend: Backend
    passphrase: SecretValue
    redactor: Redactor
    _stack: Any = field(default=None, init=False, repr=False, compare=False)

    def program(self) -> Callable[[], None]:
        """The inline program: ``declare_environment`` of the plan; a returned mapping becomes stack outputs.

        The program receives each postgres resource's password (``declare_environment`` wraps
        it with ``pulumi.Output.secret``) and exports them all as the secret output
        :data:`CREDENTIALS_OUTPUT`, so the next run finds them in the stack. Values are revealed
        only inside the running program.
        """
        target = self

        def runway_program() -> None:
            # Imported here: the program module imports pulumi_aws (ADR 0493 §6, STYLE.md §6).
            import pulumi

            from deploy_engine.program import declare_environment

            passwords = {name: c.password.reveal() for name, c in target.credentials.items()}
            outputs = declare_environment(
                target.plan, product=target.product, region=target.region, network=target.network, credentials=passwords,
            )
            if isinstance(outputs, Mapping):
                for key, value in outputs.items():
                    if str(key) == CREDENTIALS_OUTPUT:
                        raise ValueError(f"the program must not export {CREDENTIALS_OUTPUT}: it is the stack's credential store")
                    pulumi.export(str(key), value)
            pulumi.export(CREDENTIALS_OUTPUT, pulumi.Output.secret(passwords))

        return runway_program


def _stderr_only(exc: BaseException) -> str:
    """The stderr part of a ``CommandError`` (``str()`` is ``code: / stdout: / stderr:``), else ''.

    For commands whose stdout holds secret values (``pulumi stack output --show-secrets``):
    their stdout is never quoted, whatever the redactor knows.
    """
    stderr = getattr(exc, "stderr", None)
    if isinstance(stderr, str):
        return stderr
    text = str(exc)
    marker = "\n stderr: "
    return text.rpartition(marker)[2] if marker in text else ""


def _failure(what: str, exc: BaseException, redactor: Redactor, resources: Sequence[str] = (), *, quote_stdout: bool = True) -> PulumiFailed:
    stderr = getattr(exc, "stderr", None) if quote_stdout else _stderr_only(exc)
    text = stderr if isinstance(stderr, str) and stderr.strip() else (str(exc) if quote_stdout else "")
    lines = [ln for ln in text.strip().splitlines() if ln.strip()][-15:]
    detail = redactor.scrub("\n".join(lines)) or type(exc).__name__
    if type(exc).__name__ == "ConcurrentUpdateError":
        return StackLocked(f"pulumi {what}: the stack is locked by another update in the backend: {detail}", resources)
    return PulumiFailed(f"pulumi {what} failed: {detail}", resources)


def open_stack(target: StackTarget) -> Any:
    """Create or select the stack ``<product>-<env>`` of project ``runway-<product>`` and set ``aws:region``.

    Opened once per target (kept on it): :func:`stored_state` and then :func:`preview`,
    :func:`up` or :func:`drift` share the workspace. Call :func:`require_pulumi_cli` first:
    building the workspace runs ``pulumi version``.
    """
    if target._stack is not None:
        return target._stack
    from pulumi import automation as auto

    opts = auto.LocalWorkspaceOptions(
        project_settings=auto.ProjectSettings(
            name=project_name(target.product),
            runtime="python",
            backend=auto.ProjectBackend(url=target.backend.url),
        ),
        secrets_provider="passphrase",
        env_vars={
            ENV_PASSPHRASE: target.passphrase.reveal(),
            ENV_BACKEND: target.backend.url,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
        },
    )
    try:
        stack = auto.create_or_select_stack(
            stack_name=stack_name(target.product, target.environment),
            project_name=project_name(target.product),
            program=target.program(),
            opts=opts,
        )
        stack.set_config("aws:region", auto.ConfigValue(value=target.region))
    except Exception as exc:  # noqa: BLE001 - CommandError and friends become one failure kind
        raise _failure("stack selection", exc, target.redactor) from None
    target._stack = stack
    return stack


# --------------------------------------------------------------------------------------
# What the stack already holds: credentials and database endpoints of the last update
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredState:
    """From the stack outputs of the last ``up``: each postgres resource's password, and the
    endpoint (host, port) its Infisical values were built with. Empty for a new stack."""

    credentials: Mapping[str, SecretValue] = field(default_factory=dict)
    endpoints: Mapping[str, tuple[str, int]] = field(default_factory=dict)


def state_from_outputs(outputs: Mapping[str, Any], redactor: Redactor, resources: Sequence[str]) -> StoredState:
    """:class:`StoredState` from stack outputs (``{name: OutputValue(value, secret)}``).

    Every string of every secret output is registered with ``redactor`` first, before any
    check, so no later line can print it. Raises :class:`PulumiFailed` when
    :data:`CREDENTIALS_OUTPUT` is not a secret mapping of resource names to non-empty strings
    (a stack written by something else: nothing is guessed, nothing is rotated silently).
    """
    for value in outputs.values():
        if getattr(value, "secret", False):
            redactor.add_tree(getattr(value, "value", None))
    credentials: dict[str, SecretValue] = {}
    held = outputs.get(CREDENTIALS_OUTPUT)
    if held is not None:
        raw = getattr(held, "value", None)
        if not getattr(held, "secret", False):
            redactor.add_tree(raw)
            raise PulumiFailed(f"stack output {CREDENTIALS_OUTPUT} is not a secret; it is written only by runway-deploy as one")
        if not isinstance(raw, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and v for k, v in raw.items()):
            raise PulumiFailed(f"stack output {CREDENTIALS_OUTPUT} is not a mapping of resource names to passwords")
        credentials = {k: SecretValue(v) for k, v in raw.items()}
    plain = {k: getattr(v, "value", None) for k, v in outputs.items() if not getattr(v, "secret", False)}
    endpoints = {r: e for r in resources if (e := postgres_endpoint(plain, r)) is not None}
    return StoredState(credentials, endpoints)


def stored_state(target: StackTarget) -> StoredState:
    """Open the stack and read what the last ``up`` left: credentials and database endpoints.

    ``pulumi stack output --json --show-secrets``: its output is parsed, never printed, and a
    failure quotes only its stderr. Raises :class:`PulumiFailed`.
    """
    from .secrets import postgres_resources

    stack = open_stack(target)
    try:
        outputs = stack.outputs()
    except Exception as exc:  # noqa: BLE001
        raise _failure("stack output", exc, target.redactor, quote_stdout=False) from None
    return state_from_outputs(outputs, target.redactor, postgres_resources(target.plan))


def preview(target: StackTarget, on_output: OnOutput) -> PreviewSummary:
    """``pulumi preview`` of the plan: the steps ``up`` would take."""
    stack = open_stack(target)
    events: list[Any] = []
    try:
        result = stack.preview(on_output=on_output, on_error=on_output, on_event=events.append, color="never")
    except Exception as exc:  # noqa: BLE001
        raise _failure("preview", exc, target.redactor) from None
    return PreviewSummary(_changes(result.change_summary), steps_from_events(events))


def up(target: StackTarget, on_output: OnOutput) -> UpSummary:
    """``pulumi up``: create or update the environment. Raises :class:`PulumiFailed` (with the URNs seen).

    Refuses (ValueError) a target holding :data:`~deploy_engine.secrets.PREVIEW_PLACEHOLDER`:
    only ``preview`` and ``drift`` may run with it.
    """
    if any(c.password.reveal() == PREVIEW_PLACEHOLDER for c in target.credentials.values()):
        raise ValueError("up with a preview placeholder credential: plan credentials with generate=True")
    stack = open_stack(target)
    events: list[Any] = []
    try:
        result = stack.up(on_output=on_output, on_error=on_output, on_event=events.append, color="never", show_secrets=False)
    except Exception as exc:  # noqa: BLE001
        raise _failure("up", exc, target.redactor, urns_from_events(events)) from None
    outputs = {k: v.value for k, v in (result.outputs or {}).items() if not getattr(v, "secret", False)}
    changes = _changes(getattr(result.summary, "resource_changes", None))
    # The engine's events, and the program's own `urns` output (logical name -> URN) if any.
    urns = set(urns_from_events(events))
    declared = outputs.get("urns")
    if isinstance(declared, Mapping):
        urns |= {u for u in declared.values() if isinstance(u, str)}
    return UpSummary(changes, tuple(sorted(urns)), outputs)


def drift(target: StackTarget, on_output: OnOutput) -> DriftReport:
    """``pulumi refresh --preview-only``: resources changed outside Pulumi, as data. Changes nothing."""
    stack = open_stack(target)
    events: list[Any] = []
    try:
        stack.preview_refresh(on_output=on_output, on_error=on_output, on_event=events.append, color="never")
    except Exception as exc:  # noqa: BLE001
        raise _failure("refresh --preview-only", exc, target.redactor) from None
    return drift_from_events(events)


# --------------------------------------------------------------------------------------
# Endpoints of postgres resources, from the stack outputs
# --------------------------------------------------------------------------------------


#: PostgreSQL's port: the RDS instance and the RDS Proxy both listen on it (deploy_engine.program).
POSTGRES_PORT = 5432


def postgres_endpoint(outputs: Mapping[str, Any], resource: str) -> tuple[str, int] | None:
    """(host, port) consumers should use for ``resource``: the RDS Proxy endpoint, else the instance's.

    Reads the stack output ``resources`` that :func:`deploy_engine.program.declare_environment`
    returns (``resources[<resource>]["proxy_endpoint"]``, else ``["endpoint"]``; ``["port"]``
    when given, else 5432). A ``host:port`` endpoint is split. None when none is found.
    """
    resources = outputs.get("resources")
    nested = resources.get(resource) if isinstance(resources, Mapping) else None
    if not isinstance(nested, Mapping):
        return None

    def get(key: str) -> Any:
        return nested.get(key)

    host = next((get(k) for k in ("proxy_endpoint", "endpoint") if get(k)), None)
    if not isinstance(host, str) or not host:
        return None
    port = get("port")
    if ":" in host:
        host, _, tail = host.rpartition(":")
        if port in (None, "") and tail.isdigit():
            port = int(tail)
    try:
        return host, int(port) if port not in (None, "") else POSTGRES_PORT
    except (TypeError, ValueError):
        return host, POSTGRES_PORT


__all__ = [
    "BACKEND_SCHEMES",
    "CREDENTIALS_OUTPUT",
    "ENV_BACKEND",
    "ENV_PASSPHRASE",
    "INSTALL_COMMAND",
    "INSTALL_URL",
    "Backend",
    "DeployConfigError",
    "DriftItem",
    "DriftReport",
    "PreviewSummary",
    "PulumiFailed",
    "PulumiMissing",
    "StackLocked",
    "StackTarget",
    "Step",
    "StoredState",
    "UpSummary",
    "classify_refresh_step",
    "drift",
    "drift_from_events",
    "open_stack",
    "postgres_endpoint",
    "preview",
    "project_name",
    "require_pulumi_cli",
    "resolve_backend",
    "resolve_passphrase",
    "stack_name",
    "state_from_outputs",
    "steps_from_events",
    "stored_state",
    "up",
    "urns_from_events",
]
