"""Credentials generated inside the deploy job, and the redactor that keeps them out of output.

ADR 0493 §4: a generated credential (a database password) is created inside the CI job and
written blind to Infisical at ``<env>:/runtime/<resource>/``; nobody reads a value. A value is
generated here once per postgres resource, handed to the Pulumi program (which keeps it in
the stack, encrypted by the stack's secrets provider) and to :mod:`deploy_engine.infisical`,
and never printed.

- :func:`plan_credentials` decides, per postgres resource, which value a run uses: the one
  the stack already holds (``stored``), a new one (``generated`` when the stack has none,
  ``rotated`` on ``up --rotate-credentials``), or, for ``preview``/``drift``, which never
  generate, :data:`PREVIEW_PLACEHOLDER` (``placeholder``). Only ``generated`` and ``rotated``
  values are written to Infisical. A pure function of the plan and the stored values.

- :class:`SecretValue` holds one value; its ``repr``/``str``/``format`` never show it and it
  refuses to be pickled. Code that must send the value calls :meth:`SecretValue.reveal`.
- :class:`Redactor` knows every secret value of the run (generated passwords and those read
  back from the stack, the connection strings built from them, the Infisical client secret,
  the Pulumi passphrase) and scrubs them
  from any string: every log line, receipt and exception message of the deploy path goes
  through it.

Must not import pulumi or infisical_sdk.
"""

from __future__ import annotations

import hmac
import re
import secrets as _random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import quote

from runway_core.planner import EnvironmentPlan, env_prefix

#: What a scrubbed value is replaced with.
REDACTED = "[redacted]"

#: Random bytes per generated password: ``token_urlsafe(32)`` gives 43 characters of
#: ``[A-Za-z0-9_-]`` (256 bits). That alphabet is safe everywhere the value travels: RDS
#: master passwords refuse only ``/``, ``@``, ``"`` and space (RDS CreateDBInstance,
#: MasterUserPassword; 8-128 characters for PostgreSQL), a ``postgresql://`` URL needs no
#: percent-encoding for RFC 3986 unreserved characters, and Infisical never mistakes it for a
#: ``${...}`` secret reference.
PASSWORD_BYTES = 32
#: The admin login of every generated postgres resource: the master username the program
#: declares (``deploy_engine.program.ADMIN_USERNAME``; a test keeps the two equal).
POSTGRES_USER = "runway_admin"

TokenFn = Callable[[int], str]


class SecretValue:
    """One secret string. ``repr``, ``str`` and ``format`` show ``SecretValue([redacted])``.

    Equality is constant-time (:func:`hmac.compare_digest`); instances are unhashable and
    cannot be pickled (a secret never leaves the process that made it).
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a SecretValue holds a str")
        self._value = value

    def reveal(self) -> str:
        """The value itself: only for the one call that must send it (Pulumi input, Infisical)."""
        return self._value

    def __repr__(self) -> str:
        return f"SecretValue({REDACTED})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SecretValue):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        raise TypeError("a SecretValue is never pickled or copied out of the process")

    def __len__(self) -> int:
        return len(self._value)


@dataclass(frozen=True)
class PostgresCredentials:
    """The generated admin login of one postgres resource.

    ``database`` is the resource name as a PostgreSQL identifier (``main-db`` -> ``main_db``).
    ``repr`` shows the password as ``SecretValue([redacted])``.
    """

    resource: str
    username: str
    database: str
    password: SecretValue

    def url(self, host: str, port: int) -> SecretValue:
        """``postgresql://user:password@host:port/database?sslmode=require`` (a secret: it holds the password)."""
        return SecretValue(
            f"postgresql://{quote(self.username, safe='')}:{quote(self.password.reveal(), safe='')}"
            f"@{host}:{int(port)}/{quote(self.database, safe='')}?sslmode=require"
        )


def generate_password(token: TokenFn = _random.token_urlsafe) -> SecretValue:
    """A new password from ``token`` (default :func:`secrets.token_urlsafe`), >= 32 characters."""
    value = token(PASSWORD_BYTES)
    if len(value) < 32 or not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise ValueError("generated password is shorter than 32 characters or outside [A-Za-z0-9_-]")
    return SecretValue(value)


def postgres_resources(plan: EnvironmentPlan) -> list[str]:
    """Names of the postgres items of ``plan``, in plan order: the resources that get a credential."""
    return [item.name for item in plan.items if item.kind == "postgres"]


def _credentials(resource: str, password: SecretValue) -> PostgresCredentials:
    return PostgresCredentials(resource=resource, username=POSTGRES_USER, database=env_prefix(resource).lower(), password=password)


def generate_credentials(plan: EnvironmentPlan, token: TokenFn = _random.token_urlsafe) -> dict[str, PostgresCredentials]:
    """One fresh :class:`PostgresCredentials` per postgres item of ``plan``, by resource name.

    Every value is new: deploys go through :func:`plan_credentials`, which generates only
    where the stack holds no credential yet (or on rotation).
    """
    return {name: _credentials(name, generate_password(token)) for name in postgres_resources(plan)}


#: Stand-in password of a postgres resource the stack holds no credential for yet, used by
#: ``preview`` and ``drift`` (they never generate one), so the preview shows the database as
#: created. Not a secret, and never deployed: :func:`plan_credentials` gives it only when
#: ``generate`` is false, and ``automation.up`` refuses a target that holds it.
PREVIEW_PLACEHOLDER = "runway-preview-placeholder-up-generates-this-password"

#: Where a run's credential comes from (:attr:`CredentialPlan.sources`).
STORED, GENERATED, ROTATED, PLACEHOLDER = "stored", "generated", "rotated", "placeholder"
#: Sources whose value is new in this run: written to Infisical after a successful ``up``.
NEW_SOURCES = (GENERATED, ROTATED)


@dataclass(frozen=True)
class CredentialPlan:
    """The credential of each postgres resource for one run, and where it comes from.

    ``credentials`` and ``sources`` are keyed by resource name, in plan order. ``sources``
    values are :data:`STORED`, :data:`GENERATED`, :data:`ROTATED` or :data:`PLACEHOLDER`;
    they are names, never values, and may be printed or kept in a receipt.
    """

    credentials: Mapping[str, PostgresCredentials]
    sources: Mapping[str, str]

    @property
    def new(self) -> tuple[str, ...]:
        """Resources whose credential was generated in this run (created or rotated)."""
        return tuple(r for r, s in self.sources.items() if s in NEW_SOURCES)

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(r for r, s in self.sources.items() if s == PLACEHOLDER)

    def secret_credentials(self) -> dict[str, PostgresCredentials]:
        """The credentials that hold a real value (every one but the placeholders)."""
        return {r: c for r, c in self.credentials.items() if self.sources[r] != PLACEHOLDER}


def plan_credentials(
    plan: EnvironmentPlan,
    stored: Mapping[str, SecretValue],
    *,
    generate: bool,
    rotate: bool = False,
    token: TokenFn = _random.token_urlsafe,
) -> CredentialPlan:
    """Which credential each postgres resource of ``plan`` uses in this run.

    ``stored`` maps resource names to the passwords the stack already holds (values for
    resources no longer in the plan are ignored). With ``generate`` (``up``): the stored value
    when there is one, else a new one (``generated``); with ``rotate`` too, a new one for every
    resource (``rotated`` where one was stored, else ``generated``). Without ``generate``
    (``preview``, ``drift``): the stored value, else :data:`PREVIEW_PLACEHOLDER`; nothing is
    generated and ``rotate`` is refused (ValueError).
    """
    if rotate and not generate:
        raise ValueError("rotate needs generate: only `up` rotates credentials")
    credentials: dict[str, PostgresCredentials] = {}
    sources: dict[str, str] = {}
    for name in postgres_resources(plan):
        current = stored.get(name)
        if current is not None and not isinstance(current, SecretValue):
            raise TypeError(f"stored credential of {name!r} must be a SecretValue")
        if current is not None and not current.reveal():
            current = None
        if current is not None and not rotate:
            password, source = current, STORED
        elif generate:
            password, source = generate_password(token), (ROTATED if current is not None else GENERATED)
        else:
            password, source = SecretValue(PREVIEW_PLACEHOLDER), PLACEHOLDER
        credentials[name] = _credentials(name, password)
        sources[name] = source
    return CredentialPlan(credentials, sources)


class Redactor:
    """Scrubs every known secret value from strings (and from JSON-like documents).

    A value is registered with :meth:`add` (a :class:`SecretValue` or a plain string); its
    percent-encoded form is registered too, since values travel inside URLs. Every non-empty
    value is scrubbed, however short: a garbled log line is better than a leaked secret.
    """

    def __init__(self, values: Iterable[SecretValue | str] = ()) -> None:
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        for v in values:
            self.add(v)

    def add(self, value: SecretValue | str | None) -> None:
        if value is None:
            return
        raw = value.reveal() if isinstance(value, SecretValue) else value
        if not raw:
            return
        for form in {raw, quote(raw, safe=""), quote(raw, safe="/:")}:
            self._values.add(form)
        # Longest first, so a connection string is scrubbed whole before its password.
        alternatives = sorted(self._values, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(v) for v in alternatives))

    def add_credentials(self, credentials: Mapping[str, PostgresCredentials]) -> None:
        for c in credentials.values():
            self.add(c.password)

    def add_tree(self, doc: Any) -> None:
        """Register every string leaf of a JSON-like document (a secret value read back from
        the stack): mapping values and list items, recursively; keys are names, not values."""
        if isinstance(doc, (str, SecretValue)):
            self.add(doc)
        elif isinstance(doc, Mapping):
            for v in doc.values():
                self.add_tree(v)
        elif isinstance(doc, (list, tuple)):
            for v in doc:
                self.add_tree(v)

    def scrub(self, text: str) -> str:
        """``text`` with every known value replaced by ``[redacted]``."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(REDACTED, text)

    def scrub_doc(self, doc: Any) -> Any:
        """A copy of a JSON-like document (dict/list/str/number) with every string scrubbed, keys included."""
        if isinstance(doc, str):
            return self.scrub(doc)
        if isinstance(doc, Mapping):
            return {self.scrub(str(k)): self.scrub_doc(v) for k, v in doc.items()}
        if isinstance(doc, (list, tuple)):
            return [self.scrub_doc(v) for v in doc]
        return doc

    def leaks(self, text: str) -> bool:
        """True when ``text`` still contains a known value."""
        return self._pattern is not None and self._pattern.search(text) is not None

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Redactor({len(self._values)} values)"


class RedactingWriter:
    """A text stream wrapper that scrubs every ``write`` (for Pulumi's output and our own lines)."""

    def __init__(self, stream: Any, redactor: Redactor) -> None:
        self._stream = stream
        self._redactor = redactor

    def write(self, text: str) -> int:
        return self._stream.write(self._redactor.scrub(text))

    def flush(self) -> None:
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()

    def isatty(self) -> bool:
        isatty = getattr(self._stream, "isatty", None)
        return bool(isatty and isatty())


__all__ = [
    "GENERATED",
    "NEW_SOURCES",
    "PASSWORD_BYTES",
    "PLACEHOLDER",
    "POSTGRES_USER",
    "PREVIEW_PLACEHOLDER",
    "REDACTED",
    "ROTATED",
    "STORED",
    "CredentialPlan",
    "PostgresCredentials",
    "Redactor",
    "RedactingWriter",
    "SecretValue",
    "generate_credentials",
    "generate_password",
    "plan_credentials",
    "postgres_resources",
]
