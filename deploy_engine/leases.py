"""One lease per environment, so two deploys never run at once (docs/deploy.md, "Lease").

The lease is a record of the environment's records store (:mod:`deploy_engine.records`),
``leases/<product>-<env>.json``: ``.runway/leases/`` in the product repository with the embedded
``file://`` backend, ``<prefix>/runway/leases/`` in the state bucket with ``s3://``, so deploys
on different machines share it. It holds ``holder``, ``pid``, ``host``, ``token``,
``taken_at`` and ``expires_at`` (ISO 8601 UTC; default lifetime 1 hour). Only the store's
conditional operations decide who holds it:

- **take a free lease**: :meth:`~deploy_engine.records.store.RecordStore.create` (S3 ``PutObject``
  with ``If-None-Match: *``; files: ``os.link`` of a fully written temporary file). Exactly one
  of any number of racing processes wins; the others read the winner and are refused
  (:class:`LeaseHeld`).
- **take over an expired lease**, or **the lease of a dead holder** before its expiry (a lease
  taken on this host, ``host`` is this machine's name, whose ``pid`` no longer exists:
  ``os.kill(pid, 0)`` raises ``ProcessLookupError``; a deploy killed with SIGKILL), by
  :meth:`~deploy_engine.records.store.RecordStore.replace` on the ETag the lease was read with (S3
  ``If-Match``; files: the claim ``<lease>.takeover-<ETag>`` then ``os.replace``). Of several
  processes taking over the same lease, one wins; a late one finds another ETag and backs off.
  The new lease records the takeover (previous holder, pid, host, times, and ``reason``). A
  live pid, a pid of another user, or another host's lease is never taken over before expiry.
- **renew** (:func:`renew`): a conditional overwrite on our own ETag, extending ``expires_at``.
  :class:`LeaseKeeper` renews a held lease from a background thread every third of its
  lifetime while ``up`` runs, and once more, synchronously, before each phase
  (:meth:`LeaseKeeper.check`): a lease found taken over or released stops the run before its
  next phase (docs/deploy.md, "Lease").
- **release**: a conditional delete on our ETag (S3 ``DeleteObject`` with ``If-Match``), so an
  expired holder finishing late never removes the lease of the process that took it over.

Every take, takeover, renewal and release is also appended to the lease history
(``lease-history/``, kept 90 days). A file-store claim file is left behind only when a process
dies between the claim and the rename (a window of a few system calls); :class:`LeaseHeld`
then names it so an operator can delete it. The clock is passed in (docs/architecture.md §6).
Must not import pulumi.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from dataclasses import replace
from typing import Any, Callable, Iterator

from .records.file_store import FileStore
from .records.kinds import LEASE_HISTORY_DAYS, prune_kind, write_unique
from .records.store import Record, RecordChanged, RecordExists, RecordStore, StoreError
from .secrets import Redactor

Clock = Callable[[], datetime]
Alive = Callable[[int], bool]

#: Default lease lifetime: a crashed job frees it by expiry; a live ``up`` renews it
#: (:class:`LeaseKeeper`), so a run may last longer.
DEFAULT_TTL = timedelta(hours=1)
#: The environment variable that sets the lease lifetime in whole seconds (1 to 86,400;
#: default 3,600): shorter for tests, longer for a runner that may stall (docs/deploy.md, "Lease").
TTL_VARIABLE = "RUNWAY_LEASE_SECONDS"
LEASE_FORMAT_VERSION = 1


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _parse_time(text: str) -> datetime:
    """An ISO 8601 time of a lease file in UTC. ValueError for one that is no time, and for a
    valid one that UTC cannot hold (``0001-01-01T00:00:00+14:00``: ``astimezone`` raises
    OverflowError past year 1 or 9999), so that such a file is a malformed lease (LeaseError),
    never an internal error (ninth adversary C8)."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    except OverflowError:
        raise ValueError("a time outside the years 1 to 9999 in UTC") from None


class LeaseError(Exception):
    """The lease file is unreadable or malformed (it is never taken over blindly)."""


@dataclass(frozen=True)
class Lease:
    """One taken lease. ``takeover`` describes the expired lease it replaced, if any.

    ``path`` is the lease file (file store) or its ``s3://`` URL; ``store``, ``key`` and
    ``etag`` are where it is and the ETag it was written or read with (for :func:`renew` and
    :func:`release`)."""

    path: Path | str
    product: str
    environment: str
    holder: str
    pid: int
    host: str
    token: str
    taken_at: datetime
    expires_at: datetime
    takeover: dict[str, Any] | None = field(default=None)
    store: Any = field(default=None, repr=False, compare=False)
    key: str = ""
    etag: str | None = None

    def expired(self, now: datetime) -> bool:
        return now >= self.expires_at

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": LEASE_FORMAT_VERSION,
            "product": self.product,
            "environment": self.environment,
            "holder": self.holder,
            "pid": self.pid,
            "host": self.host,
            "token": self.token,
            "taken_at": _iso(self.taken_at),
            "expires_at": _iso(self.expires_at),
            "takeover": self.takeover,
        }

    @classmethod
    def from_json(cls, path: Path | str, doc: Any) -> "Lease":
        """The lease in ``doc`` (a JSON object read from ``path``), every field of its own type:
        strings, and ``pid`` a JSON integer of a process id (1 to 2**31 - 1). Anything else
        raises :class:`LeaseError`, so a lease nobody can prove gone is never taken over (a
        string pid was coerced and taken over; a pid of 2**70 reached ``os.kill``: exit 70,
        tenth adversary C4)."""
        try:
            return cls(
                path=path,
                product=_field(doc, "product"),
                environment=_field(doc, "environment"),
                holder=_field(doc, "holder"),
                pid=_pid(doc["pid"]),
                host=_field(doc, "host"),
                token=_field(doc, "token"),
                taken_at=_parse_time(doc["taken_at"]),
                expires_at=_parse_time(doc["expires_at"]),
                takeover=doc.get("takeover"),
            )
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise LeaseError(f"{path}: not a lease file ({type(exc).__name__}); delete it if no deploy is running") from None

    def describe(self) -> str:
        return f"{self.holder} (pid {self.pid} on {self.host}) since {_iso(self.taken_at)}, until {_iso(self.expires_at)}"


def _field(doc: Any, key: str) -> str:
    value = doc[key]
    if not isinstance(value, str):
        raise TypeError(key)
    return value


#: The largest process id a lease may name (a signed 32-bit int; Linux's pid_max is at most 2**22).
MAX_PID = 2**31 - 1


def _pid(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_PID:
        raise ValueError("pid")
    return value


class LeaseHeld(Exception):
    """Another deploy holds the environment's lease. ``lease`` is the holder's, when readable."""

    def __init__(self, message: str, lease: Lease | None = None) -> None:
        super().__init__(message)
        self.lease = lease


def lease_path(root: Path | str, product: str, environment: str) -> Path:
    """``<root>/.runway/leases/<product>-<env>.json``."""
    return Path(root) / ".runway" / "leases" / f"{product}-{environment}.json"


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (a process of another user counts)."""
    if pid <= 0:
        return True  # not a real pid: never treated as gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError):  # not a pid this kernel has: never treated as gone
        return True
    return True


def _holder_gone(lease: Lease, host: str, alive: Alive) -> str | None:
    """Why ``lease`` may be taken over before its expiry (its holder died on this host), or None."""
    if lease.host != host or lease.pid == os.getpid():
        return None
    if alive(lease.pid):
        return None
    return f"holder process gone (pid {lease.pid} on {lease.host})"


def _encode(lease: Lease) -> bytes:
    return (json.dumps(lease.to_json(), indent=2) + "\n").encode("utf-8")


def _parse(store: RecordStore, record: Record) -> Lease:
    where = store.location(record.key)
    try:
        doc = record.json()
    except ValueError:
        raise LeaseError(f"{where}: not a lease file (invalid JSON); delete it if no deploy is running") from None
    lease = Lease.from_json(store.path(record.key) if isinstance(store, FileStore) else where, doc)
    return replace(lease, etag=record.etag, store=store, key=record.key)


def read_lease(path: Path) -> Lease | None:
    """The lease file at ``path`` (file store), or None when there is none. Raises
    :class:`LeaseError` when malformed."""
    path = Path(path)
    store = FileStore(path.parent.parent.parent)
    record = store.read(f"leases/{path.name}")
    return None if record is None else _parse(store, record)


def current_lease(store: RecordStore, product: str, environment: str) -> Lease | None:
    """The lease of ``product``/``environment`` in ``store``, or None. Raises :class:`LeaseError`."""
    record = store.read(store.lease_key(product, environment))
    return None if record is None else _parse(store, record)


def _history(store: RecordStore, lease: Lease, event: str, now: datetime, redactor: Redactor | None) -> None:
    """Append one lease-history record (``taken``, ``taken-over``, ``renewed``, ``released``).

    Best effort: history is for people reading it later; a store that refuses it never blocks
    or fails a deploy (the lease itself is what serialises them). Kept
    :data:`~deploy_engine.records.kinds.LEASE_HISTORY_DAYS` days (file store: pruned here).
    """
    doc = {"event": event, "at": _iso(now), **lease.to_json()}
    try:
        write_unique(store, "lease-history", lease.product, lease.environment, now, doc, redactor or Redactor(),
                     suffix=f"-{event}-{lease.token[:8]}")
        prune_kind(store, "lease-history", lease.product, lease.environment, now, LEASE_HISTORY_DAYS)
    except (StoreError, OSError, ValueError):
        pass


def acquire(
    root: Path | str,
    product: str,
    environment: str,
    *,
    holder: str,
    clock: Clock,
    ttl: timedelta = DEFAULT_TTL,
    pid: int | None = None,
    host: str | None = None,
    alive: Alive = pid_alive,
    store: RecordStore | None = None,
    redactor: Redactor | None = None,
) -> Lease:
    """Take the lease of ``product``/``environment`` for ``holder``, or raise :class:`LeaseHeld`.

    ``store`` is the records store (default: :class:`~deploy_engine.records.file_store.FileStore` of
    ``root``). A free lease is taken by a conditional create; an expired one, or one whose
    holder's process is gone from this host (``alive(pid)`` false), by a conditional overwrite
    on the ETag it was read with (module docstring). ``clock()`` returns an aware UTC datetime.
    Raises :class:`LeaseError` for a malformed lease, ``StoreError`` when the store cannot be
    reached.
    """
    store = store if store is not None else FileStore(root)
    key = store.lease_key(product, environment)
    now = clock()
    me = Lease(
        path=store.path(key) if isinstance(store, FileStore) else store.location(key),
        product=product,
        environment=environment,
        holder=holder,
        pid=os.getpid() if pid is None else pid,
        host=socket.gethostname() if host is None else host,
        token=uuid.uuid4().hex,
        taken_at=now,
        expires_at=now + ttl,
        store=store,
        key=key,
    )
    for _ in range(8):  # a lease released between our create and our read: try again
        try:
            etag = store.create(key, _encode(me))
        except RecordExists:
            pass
        else:
            me = replace(me, etag=etag)
            _history(store, me, "taken", now, redactor)
            return me
        current = current_lease(store, product, environment)
        if current is None:
            continue
        if current.expired(now):
            return _take_over(store, current, me, now, "expired", redactor)
        gone = _holder_gone(current, me.host, alive)
        if gone is None:
            raise LeaseHeld(f"environment {environment} is being deployed by {current.describe()}", current)
        return _take_over(store, current, me, now, gone, redactor)
    raise LeaseHeld(f"environment {environment}: the lease keeps changing hands; try again")


def _take_over(store: RecordStore, old: Lease, me: Lease, now: datetime, reason: str, redactor: Redactor | None) -> Lease:
    new = replace(me, takeover={
        "reason": reason,
        "previous_holder": old.holder,
        "previous_pid": old.pid,
        "previous_host": old.host,
        "previous_token": old.token,
        "previous_taken_at": _iso(old.taken_at),
        "previous_expires_at": _iso(old.expires_at),
        "taken_over_at": _iso(now),
    })
    try:
        etag = store.replace(new.key, _encode(new), old.etag)
    except RecordChanged as exc:
        if exc.claim is not None:
            raise LeaseHeld(
                f"environment {new.environment}: another deploy is taking over the expired lease of {old.holder}"
                f" (if none is running, delete {exc.claim})",
                old,
            ) from None
        # Someone took it over (or released it) before us: back off.
        try:
            current = current_lease(store, new.product, new.environment)
        except LeaseError:
            current = None
        holder = current.describe() if current else "another deploy"
        raise LeaseHeld(f"environment {new.environment} is being deployed by {holder}", current) from None
    new = replace(new, etag=etag)
    _history(store, new, "taken-over", now, redactor)
    return new


def renew(lease: Lease, clock: Clock, ttl: timedelta = DEFAULT_TTL, redactor: Redactor | None = None) -> Lease:
    """Extend a lease we hold to ``clock() + ttl`` by a conditional overwrite on its ETag; returns
    the renewed lease (release that one). Raises :class:`LeaseHeld` when it is no longer ours
    (taken over after expiring, or released)."""
    now = clock()
    renewed = replace(lease, expires_at=now + ttl)
    try:
        etag = lease.store.replace(lease.key, _encode(renewed), lease.etag)
    except RecordChanged:
        raise LeaseHeld(f"environment {lease.environment}: the lease is no longer ours (taken over or released)") from None
    renewed = replace(renewed, etag=etag)
    _history(lease.store, renewed, "renewed", now, redactor)
    return renewed


def lease_ttl(environ: Any) -> timedelta:
    """The lease lifetime from :data:`TTL_VARIABLE` (whole seconds, 1 to 86,400), else
    :data:`DEFAULT_TTL`. Raises ``ValueError`` naming the variable for any other value."""
    raw = str(environ.get(TTL_VARIABLE) or "").strip()
    if not raw:
        return DEFAULT_TTL
    # ASCII digits only, as RUNWAY_STORE_TIMEOUT_S and --timeout: str.isdigit takes `٣٠` and
    # `³` (int() reads the first, raises on the second; ninth adversary M9).
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 86_400:
        raise ValueError(f"{TTL_VARIABLE} must be a whole number of seconds from 1 to 86400 (got {raw[:40]!r})")
    return timedelta(seconds=int(raw))


class LeaseLost(Exception):
    """The lease a run holds was taken over or released by another process, or could not be
    renewed before it expired: the run must stop before its next phase."""


class LeaseKeeper:
    """Keeps a held lease alive while a long run goes on.

    :meth:`start` runs a daemon thread that calls :func:`renew` every ``ttl / 3`` (``interval``:
    a renewal can fail twice, a store that does not answer, before the lease would expire).
    :meth:`check` renews at once and raises :class:`LeaseLost` when the lease is no longer ours:
    call it before each phase. :meth:`stop` ends the thread (call it in ``finally``);
    :attr:`lease` is the newest renewed lease (release that one). A renewal the store refuses
    with ``RecordChanged`` (taken over or released) loses the lease for good; one that cannot
    reach the store (``StoreError``, ``OSError``) is tried again at the next tick, and the lease
    is lost only once ``clock()`` passes its expiry without a renewal. Thread-safe."""

    def __init__(self, lease: Lease, clock: Clock, ttl: timedelta = DEFAULT_TTL, redactor: Redactor | None = None,
                 interval: float | None = None) -> None:
        self._lease = lease
        self._clock = clock
        self._ttl = ttl
        self._redactor = redactor
        self._interval = interval if interval is not None else ttl.total_seconds() / 3
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost: str | None = None
        self.renewals = 0

    @property
    def lease(self) -> Lease:
        with self._lock:
            return self._lease

    def _renew_once(self) -> None:
        with self._lock:
            if self.lost is not None:
                return
            try:
                self._lease = renew(self._lease, self._clock, self._ttl, self._redactor)
                self.renewals += 1
            except LeaseHeld:
                self.lost = (f"the lease of {self._lease.environment} was taken over or released by another process "
                             f"(it was ours until {_iso(self._lease.expires_at)})")
                try:
                    now_holder = current_lease(self._lease.store, self._lease.product, self._lease.environment)
                except (LeaseError, StoreError, OSError):
                    now_holder = None
                if now_holder is not None:
                    self.lost += f"; it is now held by {now_holder.describe()}"
            except (StoreError, OSError) as exc:
                if self._lease.expired(self._clock()):
                    self.lost = f"the lease of {self._lease.environment} expired: it could not be renewed ({exc})"

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._renew_once()
            if self.lost is not None:
                return

    def start(self) -> "LeaseKeeper":
        self._thread = threading.Thread(target=self._run, name="runway-lease-renewer", daemon=True)
        self._thread.start()
        return self

    def check(self) -> None:
        """Renew now; raise :class:`LeaseLost` (with the reason) when the lease is no longer ours."""
        self._renew_once()
        if self.lost is not None:
            raise LeaseLost(self.lost)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()


def release(lease: Lease, clock: Clock | None = None, redactor: Redactor | None = None) -> bool:
    """Give the lease back if it is still ours (conditional delete on its ETag); True when it
    was removed. Never removes a lease another process took over."""
    if lease.store is None or lease.etag is None:
        return False
    try:
        lease.store.delete(lease.key, lease.etag)
    except RecordChanged:
        return False  # taken over, or already released: no longer ours
    except (StoreError, OSError):
        return False  # the store is unreachable: the lease frees itself at its expiry
    _history(lease.store, lease, "released", (clock or utc_now)(), redactor)
    return True


@contextlib.contextmanager
def held(
    root: Path | str,
    product: str,
    environment: str,
    *,
    holder: str,
    clock: Clock,
    ttl: timedelta = DEFAULT_TTL,
    store: RecordStore | None = None,
) -> Iterator[Lease]:
    """``with held(...) as lease:`` takes the lease and releases it on exit, exceptions included."""
    lease = acquire(root, product, environment, holder=holder, clock=clock, ttl=ttl, store=store)
    try:
        yield lease
    finally:
        release(lease, clock)


__all__ = [
    "DEFAULT_TTL",
    "Lease",
    "LeaseError",
    "LeaseHeld",
    "LeaseKeeper",
    "LeaseLost",
    "TTL_VARIABLE",
    "acquire",
    "current_lease",
    "held",
    "lease_path",
    "lease_ttl",
    "pid_alive",
    "read_lease",
    "release",
    "renew",
    "utc_now",
]
