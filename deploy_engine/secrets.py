"""Credentials generated inside the deploy job, and the redactor that keeps them out of output.

ADR 0493 §4: a generated credential (a database password) is created inside the CI job and
written blind to Infisical at ``<env>:/runtime/<resource>/``; nobody reads a value. A value is
generated here when a database needs one, handed to the Pulumi program (which sets it on the
database and, for the proxy, its Secrets Manager secret) and to :mod:`deploy_engine.infisical`,
and never printed. No run reads a stored password back (docs/deploy.md, "Credentials").

- :func:`plan_credentials` decides, per postgres resource, whether this run sets its password:
  a new one (``generated`` for a database the stack does not know yet, ``rotated`` on ``up
  --rotate-credentials`` or when the RDS Proxy is added or removed) or none (``unchanged``: the
  program keeps the password inputs under ``ignore_changes``). ``preview``/``drift`` never
  generate: :data:`PREVIEW_PLACEHOLDER` stands in (``placeholder`` where ``up`` would set one).
  Only ``generated`` and ``rotated`` values are written to Infisical. A pure function of the
  plan and of what the stack's non-secret outputs say exists (:class:`KnownDatabase`).

- :class:`SecretValue` holds one value; its ``repr``/``str``/``format`` never show it and it
  refuses to be pickled. Code that must send the value calls :meth:`SecretValue.reveal`.
- :class:`Redactor` knows every secret value of the run (generated passwords, the connection
  strings built from them, the Infisical client secret, the Pulumi passphrase, the password of
  a backend URL) and scrubs them from any string: every log line, receipt and exception
  message of the deploy path goes through it.

Must not import pulumi or infisical_sdk.
"""

from __future__ import annotations

import hmac
import re
import secrets as _random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import quote

from deploy_engine.terminal import workflow_escaped, workflow_property_escaped
from runway_core.planner import EnvironmentPlan, env_prefix
from runway_core.text import redact

#: What a scrubbed value is replaced with.
REDACTED = "[redacted]"
#: The shortest value :class:`Redactor` replaces literally (shorter ones by shape only).
MIN_SCRUBBED_CHARS = 8

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


#: Stand-in password of ``preview`` and ``drift``, which never generate one: the preview shows a
#: new database as created, and an existing one unchanged (its password inputs carry
#: ``ignore_changes``). Not a secret, and never deployed: :func:`plan_credentials` gives it only
#: when ``generate`` is false, and ``automation.up`` refuses a target that holds it.
PREVIEW_PLACEHOLDER = "runway-preview-placeholder-up-generates-this-password"

#: The credential version of a database whose version the stack never recorded
#: (``deploy_engine.program.INITIAL_CREDENTIAL_VERSION``; a test keeps the two equal).
INITIAL_VERSION = "initial"
#: The version a preview shows for a password ``up`` would set (the real one is generated by ``up``).
PENDING_VERSION = "pending"


def new_version(token: Callable[[int], str] = _random.token_hex) -> str:
    """A fresh credential version: ``v-`` and 12 random hex digits (not secret, not derived from the password)."""
    return "v-" + token(6)


#: Where a run's credential comes from (:attr:`CredentialPlan.sources`).
UNCHANGED, GENERATED, ROTATED, PLACEHOLDER = "unchanged", "generated", "rotated", "placeholder"
#: Sources whose value is new in this run: set on the database, written to Infisical after a successful ``up``.
NEW_SOURCES = (GENERATED, ROTATED)


@dataclass(frozen=True)
class KnownDatabase:
    """A postgres resource as the last ``up`` left it, from the stack's **non-secret** outputs:
    its ``flavor`` (``rds`` / ``aurora``; None when not recorded), whether it had an RDS Proxy,
    the endpoint (host, port) consumers were given and its credential version. Never a password."""

    flavor: str | None = None
    proxy: bool = False
    endpoint: tuple[str, int] | None = None
    #: The credential version the last ``up`` recorded (``resources.<name>.credential_version``).
    credential_version: str | None = None


@dataclass(frozen=True)
class CredentialPlan:
    """The credential of each postgres resource for one run, where it comes from, and why.

    ``credentials``, ``sources`` and ``reasons`` are keyed by resource name, in plan order.
    ``sources`` values are :data:`UNCHANGED`, :data:`GENERATED`, :data:`ROTATED` or
    :data:`PLACEHOLDER`; they and ``reasons`` are names and words, never values, and may be
    printed or kept in a receipt. An ``unchanged`` credential holds a throwaway value (``up``)
    or the placeholder (``preview``): the program ignores it (``ignore_changes``).
    """

    credentials: Mapping[str, PostgresCredentials]
    sources: Mapping[str, str]
    reasons: Mapping[str, str] = field(default_factory=dict)
    #: Resources whose password a ``preview`` would see set by ``up`` (placeholders of a new or rotated one).
    preview_sets: tuple[str, ...] = ()
    #: Credential version per resource (not secret): a new one whenever this run sets the password,
    #: else the recorded one. The program labels consumers' task definitions with it, so a new
    #: password is a new ECS deployment of every consumer (tasks read SSM only when they start).
    versions: Mapping[str, str] = field(default_factory=dict)

    @property
    def new(self) -> tuple[str, ...]:
        """Resources whose credential was generated in this run (created or rotated)."""
        return tuple(r for r, s in self.sources.items() if s in NEW_SOURCES)

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(r for r, s in self.sources.items() if s == PLACEHOLDER)

    @property
    def set_passwords(self) -> tuple[str, ...]:
        """Resources whose password inputs this run sets (no ``ignore_changes``): the new ones, and
        in a preview the placeholders standing for them."""
        return self.new + tuple(r for r in self.preview_sets if r not in self.new)

    def secret_credentials(self) -> dict[str, PostgresCredentials]:
        """The credentials that hold a real value (every one but the placeholders)."""
        return {r: c for r, c in self.credentials.items() if self.sources[r] != PLACEHOLDER}


def _why_new(item: Any, known: KnownDatabase | None, rotate: bool) -> tuple[str, str] | None:
    """(source, reason) when ``up`` must set this database's password, else None."""
    if known is None:
        return GENERATED, "new database"
    flavor = (item.capacity or {}).get("flavor")
    if known.flavor is not None and flavor is not None and known.flavor != flavor:
        return GENERATED, f"flavor {known.flavor} -> {flavor}: a new database"
    proxy = bool((item.capacity or {}).get("proxy"))
    if proxy and not known.proxy:
        return ROTATED, "RDS Proxy added: its login secret needs the password"
    if known.proxy and not proxy:
        return ROTATED, "RDS Proxy removed: consumers connect to the database itself"
    if rotate:
        return ROTATED, "--rotate-credentials"
    return None


def flavor_switches(plan: EnvironmentPlan, known: Mapping[str, KnownDatabase]) -> list[tuple[str, str, str]]:
    """``(resource, deployed flavor, planned flavor)`` of each postgres whose flavor (``rds`` /
    ``aurora``) differs from what the last ``up`` recorded. Such a switch is a new database: the
    CLI refuses it outside a disposable environment (docs/deploy.md, "Switching flavor")."""
    found = []
    for item in plan.items:
        if item.kind != "postgres":
            continue
        current = known.get(item.name)
        flavor = (item.capacity or {}).get("flavor")
        if current is not None and current.flavor and flavor and current.flavor != flavor:
            found.append((item.name, current.flavor, flavor))
    return found


def plan_credentials(
    plan: EnvironmentPlan,
    known: Mapping[str, KnownDatabase],
    *,
    generate: bool,
    rotate: bool = False,
    token: TokenFn = _random.token_urlsafe,
) -> CredentialPlan:
    """Which credential each postgres resource of ``plan`` uses in this run; never reads one.

    ``known`` maps resource names to what the last ``up`` recorded in the stack's non-secret
    outputs (:class:`KnownDatabase`; resources no longer in the plan are ignored). A password
    is set only where the database cannot work without a new one: a database the stack does
    not know (``generated``), one whose flavor changed (a new database: ``generated``), one
    that gains or loses its RDS Proxy (the proxy's login secret needs the password, or the
    endpoint changes: ``rotated``), and every one with ``rotate`` (``rotated``). Every other
    database is ``unchanged``: its password stays as it is (the program ignores the value).

    With ``generate`` (``up``) new values come from ``token``; an unchanged database gets a
    throwaway value too, never stored or written, so a database created against all
    expectations never gets a known password. Without ``generate`` (``preview``, ``drift``)
    nothing is generated: every value is :data:`PREVIEW_PLACEHOLDER`, and the databases ``up``
    would set are ``placeholder``. ``rotate`` needs ``generate`` (ValueError).
    """
    if rotate and not generate:
        raise ValueError("rotate needs generate: only `up` rotates credentials")
    credentials: dict[str, PostgresCredentials] = {}
    sources: dict[str, str] = {}
    reasons: dict[str, str] = {}
    versions: dict[str, str] = {}
    preview_sets: list[str] = []
    for item in plan.items:
        if item.kind != "postgres":
            continue
        name = item.name
        current = known.get(name)
        if current is not None and not isinstance(current, KnownDatabase):
            raise TypeError(f"known database {name!r} must be a KnownDatabase")
        why = _why_new(item, current, rotate)
        if not generate:
            password = SecretValue(PREVIEW_PLACEHOLDER)
            source = UNCHANGED if why is None else PLACEHOLDER
            if why is not None:
                preview_sets.append(name)
        else:
            password = generate_password(token)
            source = UNCHANGED if why is None else why[0]
        credentials[name] = _credentials(name, password)
        sources[name] = source
        if why is not None:
            reasons[name] = why[1]
        if why is None:
            versions[name] = (current.credential_version if current is not None else None) or INITIAL_VERSION
        else:
            versions[name] = new_version() if generate else PENDING_VERSION
    return CredentialPlan(credentials, sources, reasons, tuple(preview_sets), versions)


class Redactor:
    """Scrubs every known secret value from strings (and from JSON-like documents).

    A value is registered with :meth:`add` (a :class:`SecretValue` or a plain string); its
    percent-encoded form is registered too, since values travel inside URLs, and its GitHub
    workflow-command escaped forms (``%25``, ``%0A``). Only values of at
    least :data:`MIN_SCRUBBED_CHARS` characters are scrubbed literally: replacing a short value
    (`able`, `e`) everywhere garbles every message and reveals the value by where the
    placeholder lands ("Un[redacted] to locate credentials"). Where a short value can be
    printed, it is caught by its shape instead: :meth:`scrub` also passes the text through
    :func:`runway_core.text.redact` (a URL's user info, `s3://deploy:able@bucket`, is redacted
    whatever its password's length). The values this module generates are 43 characters.
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
        if not raw or len(raw) < MIN_SCRUBBED_CHARS:
            return
        # Escaped as a GitHub workflow command writes it (`%25`, `%0A`, issue 23): the output
        # stream scrubs what ``--format github`` already escaped.
        for form in {raw, quote(raw, safe=""), quote(raw, safe="/:"), workflow_escaped(raw), workflow_property_escaped(raw)}:
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
        """``text`` with every known value replaced by ``[redacted]``, then every
        credential-shaped part (:func:`runway_core.text.redact`)."""
        if not text:
            return text
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return redact(text)

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


__all__ = [
    "GENERATED",
    "INITIAL_VERSION",
    "KnownDatabase",
    "PENDING_VERSION",
    "UNCHANGED",
    "NEW_SOURCES",
    "PASSWORD_BYTES",
    "PLACEHOLDER",
    "POSTGRES_USER",
    "PREVIEW_PLACEHOLDER",
    "REDACTED",
    "ROTATED",
    "CredentialPlan",
    "PostgresCredentials",
    "Redactor",
    "SecretValue",
    "generate_credentials",
    "flavor_switches",
    "generate_password",
    "new_version",
    "plan_credentials",
    "postgres_resources",
]
