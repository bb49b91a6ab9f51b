"""Write generated credentials blind to Infisical (ADR 0493 §4; docs/deploy.md, "Credentials").

Values land at ``<slug>:/runtime/<resource>/``: the Infisical environment slug is
``INFISICAL_ENVIRONMENT_<ENV>`` when set (``<ENV>``: the runway environment in upper case,
``-`` as ``_``; e.g. ``INFISICAL_ENVIRONMENT_PRODUCTION=prod``), else the runway environment
name; secret path ``/runtime/<resource>`` (the folder ``/runtime/<resource>/``).
Per postgres resource the names are the injected variables of the planner
(``<R>_URL``, ``<R>_HOST``, ``<R>_PORT``, ``<R>_USER``, ``<R>_PASSWORD``, ``<R>_DATABASE``),
so consumers find exactly what ``runway-deploy plan`` lists.

Blind: create-or-update, never a read. The calls, and the HTTP endpoints the installed
``infisicalsdk`` 1.0.x sends them to (``infisical_sdk/resources/*.py``):

- ``auth.universal_auth.login`` -> ``POST /api/v1/auth/universal-auth/login``
- ``folders.create_folder`` -> ``POST /api/v2/folders`` (Infisical creates missing parents;
  an existing folder answers 400 "already exists", which is fine)
- ``secrets.update_secret_by_name`` -> ``PATCH /api/v3/secrets/raw/<name>``; when it answers
  404 (no such secret) ``secrets.create_secret_by_name`` -> ``POST /api/v3/secrets/raw/<name>``.
  Update first because a 404 is unambiguous, where "already exists" would be a message match.

The SDK's secrets cache is disabled (``cache_ttl=None``): the create/update answers echo the
value, and nothing is kept. Configuration comes from ``INFISICAL_HOST`` (default
https://app.infisical.com), ``INFISICAL_CLIENT_ID``, ``INFISICAL_CLIENT_SECRET`` and
``INFISICAL_PROJECT_ID`` (a machine identity with universal auth, allowed to create and edit
secrets and folders under ``/runtime`` of each environment; it never needs read access). The
host must be ``https://``; plain ``http://`` is accepted only for ``127.0.0.1``, ``localhost``
and ``[::1]`` (a local server: the tests' fake Infisical), since the client secret, the access
token and every value travel in the requests.

:meth:`InfisicalWriter.login` may be called before ``pulumi up``, so that a wrong identity or
an unreachable host fails the deploy before a database is created whose password could not be
stored.

``infisical_sdk`` is imported lazily (it lives in the ``[deploy]`` extra). Must not import pulumi.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from runway_core.planner import env_prefix

from .secrets import PostgresCredentials, Redactor, SecretValue

ENV_HOST = "INFISICAL_HOST"
ENV_CLIENT_ID = "INFISICAL_CLIENT_ID"
ENV_CLIENT_SECRET = "INFISICAL_CLIENT_SECRET"
ENV_PROJECT_ID = "INFISICAL_PROJECT_ID"
DEFAULT_HOST = "https://app.infisical.com"
REQUIRED_VARIABLES = (ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_PROJECT_ID)
#: ``INFISICAL_ENVIRONMENT_<ENV>``: the Infisical environment slug of one runway environment.
ENV_SLUG_PREFIX = "INFISICAL_ENVIRONMENT_"
#: Hosts that may be reached over plain ``http://`` (a local server).
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_HOST = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^/:?#@\[\]\s]+)(?::\d{1,5})?(?:/[^?#\s]*)?$")


class InfisicalConfigError(Exception):
    """Infisical configuration missing or invalid: ``missing`` names the environment variables."""

    def __init__(self, missing: tuple[str, ...], message: str | None = None) -> None:
        self.missing = missing
        super().__init__(
            message or f"Infisical is not configured: set {', '.join(missing)} (a machine identity with universal auth; "
            f"{ENV_HOST} defaults to {DEFAULT_HOST})"
        )


def slug_variable(environment: str) -> str:
    """``INFISICAL_ENVIRONMENT_<ENV>``: ``production`` -> ``INFISICAL_ENVIRONMENT_PRODUCTION``."""
    return ENV_SLUG_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", environment).upper()


def check_host(host: str) -> str:
    """``host`` without a trailing ``/``; raises :class:`InfisicalConfigError` unless it is an
    ``https://`` origin, or ``http://`` to 127.0.0.1, localhost or [::1]."""
    m = _HOST.fullmatch(host)
    if m is None:
        raise InfisicalConfigError((ENV_HOST,), f"{ENV_HOST}: not a URL of the form https://<host>[:<port>][/<path>]")
    scheme, name = m.group("scheme").lower(), m.group("host").lower()
    if scheme == "https" or (scheme == "http" and name in LOCAL_HOSTS):
        return host.rstrip("/")
    if scheme == "http":
        raise InfisicalConfigError(
            (ENV_HOST,), f"{ENV_HOST}: plain http:// to {name} is refused (the client secret and every value would travel "
            "unencrypted); use https://, or http:// only for 127.0.0.1 or localhost")
    raise InfisicalConfigError((ENV_HOST,), f"{ENV_HOST}: scheme {scheme}:// is not supported; use https://")


class InfisicalWriteError(Exception):
    """A write to Infisical failed. The message names the path and secret, never a value."""


@dataclass(frozen=True)
class InfisicalConfig:
    """Where and as whom to write. ``client_secret`` never shows in ``repr``."""

    host: str
    client_id: str
    client_secret: SecretValue
    project_id: str
    #: Runway environment -> Infisical environment slug, from ``INFISICAL_ENVIRONMENT_<ENV>``.
    slugs: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], environments: Iterable[str] = ()) -> "InfisicalConfig":
        """Read the ``INFISICAL_*`` variables; raises :class:`InfisicalConfigError` naming the
        missing ones, an ``http://`` host other than a local one, or a malformed slug of one of
        ``environments`` (``INFISICAL_ENVIRONMENT_<ENV>``)."""
        missing = tuple(n for n in REQUIRED_VARIABLES if not environ.get(n, "").strip())
        if missing:
            raise InfisicalConfigError(missing)
        host = check_host((environ.get(ENV_HOST) or "").strip() or DEFAULT_HOST)
        slugs: dict[str, str] = {}
        for env in environments:
            var = slug_variable(env)
            value = (environ.get(var) or "").strip()
            if not value:
                continue
            if not _SLUG.fullmatch(value):
                raise InfisicalConfigError((var,), f"{var}: {value!r} is not an Infisical environment slug (letters, digits, - and _)")
            slugs[env] = value
        return cls(
            host=host,
            client_id=environ[ENV_CLIENT_ID].strip(),
            client_secret=SecretValue(environ[ENV_CLIENT_SECRET]),
            project_id=environ[ENV_PROJECT_ID].strip(),
            slugs=slugs,
        )

    def slug(self, environment: str) -> str:
        """The Infisical environment slug of a runway environment (default: its name)."""
        return self.slugs.get(environment, environment)


def secret_path(resource: str) -> str:
    """The Infisical secret path of a resource's values: ``/runtime/<resource>``."""
    return f"/runtime/{resource}"


@dataclass(frozen=True)
class Endpoint:
    """Where consumers connect: the RDS Proxy endpoint when there is one, else the instance."""

    host: str
    port: int = 5432


def postgres_values(credentials: PostgresCredentials, endpoint: Endpoint) -> dict[str, SecretValue]:
    """The injected variables of one postgres resource, by name (runway_core.planner.VARIABLES).

    Every value is wrapped in :class:`SecretValue`, the non-secret ones too, so they all
    travel the same way and none is ever printed by accident.
    """
    p = env_prefix(credentials.resource)
    return {
        f"{p}_URL": credentials.url(endpoint.host, endpoint.port),
        f"{p}_HOST": SecretValue(endpoint.host),
        f"{p}_PORT": SecretValue(str(int(endpoint.port))),
        f"{p}_USER": SecretValue(credentials.username),
        f"{p}_PASSWORD": credentials.password,
        f"{p}_DATABASE": SecretValue(credentials.database),
    }


def _default_client_factory(host: str) -> Any:
    from infisical_sdk import InfisicalSDKClient

    # cache_ttl=None disables the SDK's in-memory secrets cache (infisical_sdk/util/secrets_cache.py).
    return InfisicalSDKClient(host=host, cache_ttl=None)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


class InfisicalWriter:
    """Creates or updates secrets at ``<env>:/runtime/<resource>/``; never reads one.

    ``client_factory(host)`` builds the SDK client (default ``InfisicalSDKClient``), passed in
    so tests can count calls. Errors raise :class:`InfisicalWriteError` with a message run
    through ``redactor``.
    """

    def __init__(
        self,
        config: InfisicalConfig,
        redactor: Redactor,
        client_factory: Callable[[str], Any] = _default_client_factory,
    ) -> None:
        self.config = config
        self.redactor = redactor
        redactor.add(config.client_secret)
        self._client_factory = client_factory
        self._client: Any = None

    def login(self) -> None:
        """Log in now (universal auth); raises :class:`InfisicalWriteError`. Writes log in by themselves."""
        self._login()

    def _login(self) -> Any:
        if self._client is None:
            client = self._client_factory(self.config.host)
            try:
                client.auth.universal_auth.login(client_id=self.config.client_id, client_secret=self.config.client_secret.reveal())
            except Exception as exc:  # noqa: BLE001 - any SDK/network failure becomes one error kind
                close = getattr(client, "close", None)
                if close is not None:
                    close()
                raise InfisicalWriteError(self._message(f"login to {self.config.host} failed", exc)) from None
            self._client = client
        return self._client

    def _message(self, what: str, exc: BaseException) -> str:
        detail = self.redactor.scrub(str(exc)) or type(exc).__name__
        return f"Infisical: {what}: {detail}"

    def _ensure_folder(self, client: Any, environment: str, resource: str) -> None:
        try:
            client.folders.create_folder(name=resource, environment_slug=environment, project_id=self.config.project_id, path="/runtime")
        except Exception as exc:  # noqa: BLE001
            text = str(exc).lower()
            if _status(exc) == 400 and "already exists" in text:
                return
            raise InfisicalWriteError(self._message(f"creating folder {environment}:{secret_path(resource)}/ failed", exc)) from None

    def write(self, environment: str, resource: str, values: Mapping[str, SecretValue]) -> list[str]:
        """Create or update each named value at ``<environment>:/runtime/<resource>/``.

        Returns the names written (never the values). Raises :class:`InfisicalWriteError`.
        The caller registers the generated values with the redactor (the password is enough
        for the connection string); host, port and names are not secret and stay readable.
        """
        client = self._login()
        self._ensure_folder(client, environment, resource)
        path = secret_path(resource)
        written: list[str] = []
        for name, value in values.items():
            common = {"secret_path": path, "environment_slug": environment, "project_id": self.config.project_id, "secret_value": value.reveal()}
            try:
                try:
                    client.secrets.update_secret_by_name(current_secret_name=name, **common)
                except Exception as exc:  # noqa: BLE001
                    if _status(exc) != 404:
                        raise
                    client.secrets.create_secret_by_name(secret_name=name, **common)
            except Exception as exc:  # noqa: BLE001
                raise InfisicalWriteError(self._message(f"writing {name} to {environment}:{path}/ failed", exc)) from None
            written.append(name)
        return written

    def write_postgres(self, environment: str, credentials: PostgresCredentials, endpoint: Endpoint) -> list[str]:
        """Write one postgres resource's variables (password, connection string, host, ...)."""
        return self.write(environment, credentials.resource, postgres_values(credentials, endpoint))

    def close(self) -> None:
        if self._client is not None:
            close = getattr(self._client, "close", None)
            if close is not None:
                close()
            self._client = None


__all__ = [
    "DEFAULT_HOST",
    "ENV_CLIENT_ID",
    "ENV_CLIENT_SECRET",
    "ENV_HOST",
    "ENV_PROJECT_ID",
    "ENV_SLUG_PREFIX",
    "LOCAL_HOSTS",
    "REQUIRED_VARIABLES",
    "Endpoint",
    "InfisicalConfig",
    "InfisicalConfigError",
    "InfisicalWriteError",
    "InfisicalWriter",
    "check_host",
    "postgres_values",
    "secret_path",
    "slug_variable",
]
