"""Credentials generated inside the deploy job, and the redactor that keeps them out of output.

ADR 0493 §4: a generated credential (a database password) is created inside the CI job and
written blind to Infisical at ``<env>:/runtime/<resource>/``; nobody reads a value. So a value
exists only in this process: it is generated here, handed to the Pulumi program (which stores
it as a Pulumi secret) and to :mod:`deploy_engine.infisical`, and never printed.

- :class:`SecretValue` holds one value; its ``repr``/``str``/``format`` never show it and it
  refuses to be pickled. Code that must send the value calls :meth:`SecretValue.reveal`.
- :class:`Redactor` knows every secret value of the run (generated passwords, the connection
  strings built from them, the Infisical client secret, the Pulumi passphrase) and scrubs them
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


def generate_credentials(plan: EnvironmentPlan, token: TokenFn = _random.token_urlsafe) -> dict[str, PostgresCredentials]:
    """One fresh :class:`PostgresCredentials` per postgres item of ``plan``, by resource name.

    Called once per ``preview``/``up`` run, inside the job (ADR 0493 §4): an ``up`` sets the
    new password on the database and its RDS Proxy secret, then writes it to Infisical.
    """
    out: dict[str, PostgresCredentials] = {}
    for item in plan.items:
        if item.kind == "postgres":
            out[item.name] = PostgresCredentials(
                resource=item.name,
                username=POSTGRES_USER,
                database=env_prefix(item.name).lower(),
                password=generate_password(token),
            )
    return out


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
    "PASSWORD_BYTES",
    "POSTGRES_USER",
    "REDACTED",
    "PostgresCredentials",
    "Redactor",
    "RedactingWriter",
    "SecretValue",
    "generate_credentials",
    "generate_password",
]
