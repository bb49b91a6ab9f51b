"""One lease per environment, so two deploys never run at once (RUNWAY_FORMAT.md, "Deploying").

The lease is a file in the product repository, ``.runway/leases/<product>-<env>.json``,
holding ``holder``, ``pid``, ``host``, ``token``, ``taken_at`` and ``expires_at`` (ISO 8601
UTC; default lifetime 1 hour). Only atomic file-system operations decide who holds it:

- **take a free lease**: write the content to a private temporary file, then ``os.link`` it
  to the lease name. ``link`` fails with ``FileExistsError`` when the lease exists, so exactly
  one process wins, and the lease appears with its whole content (no half-written file).
- **take over an expired lease** with token ``T``: claim ``<lease>.takeover-<T>`` with the
  same exclusive ``link`` (the claim file already holds the new lease), re-read the lease and
  check it still holds ``T``, then ``os.replace`` the claim onto the lease name. Only one
  process can hold the claim of ``T``; a late process that claims after the rename finds a
  different token and backs off. The new lease records the takeover (previous holder, pid,
  host, times, and ``reason``).
- **take over the lease of a dead holder** the same way, before its expiry: when the lease
  was taken on this host (``host`` is this machine's name) and its ``pid`` no longer exists
  (``os.kill(pid, 0)`` raises ``ProcessLookupError``), the deploy that held it was killed
  (SIGKILL, a crashed runner) and nobody will release it: it is taken over at once (reason
  ``holder process gone``) instead of blocking every deploy for up to an hour. A live pid, a
  pid of another user, or another host's lease is never taken over before expiry.
- **release**: claim ``<lease>.takeover-<T>`` the same way, check the token is still ours,
  unlink the lease, drop the claim. So an expired holder finishing late never removes the
  lease of the process that took it over.

A claim file is left behind only when a process dies between the claim and the rename (a
window of a few system calls); :class:`LeaseHeld` then names it so an operator can delete it.
The clock is passed in (STYLE.md §6). Must not import pulumi.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

Clock = Callable[[], datetime]
Alive = Callable[[int], bool]

#: Default lease lifetime: longer than any deploy should run; a crashed job frees it by expiry.
DEFAULT_TTL = timedelta(hours=1)
LEASE_FORMAT_VERSION = 1


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


class LeaseError(Exception):
    """The lease file is unreadable or malformed (it is never taken over blindly)."""


@dataclass(frozen=True)
class Lease:
    """One taken lease. ``takeover`` describes the expired lease it replaced, if any."""

    path: Path
    product: str
    environment: str
    holder: str
    pid: int
    host: str
    token: str
    taken_at: datetime
    expires_at: datetime
    takeover: dict[str, Any] | None = field(default=None)

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
    def from_json(cls, path: Path, doc: Any) -> "Lease":
        try:
            return cls(
                path=path,
                product=str(doc["product"]),
                environment=str(doc["environment"]),
                holder=str(doc["holder"]),
                pid=int(doc["pid"]),
                host=str(doc["host"]),
                token=str(doc["token"]),
                taken_at=_parse_time(doc["taken_at"]),
                expires_at=_parse_time(doc["expires_at"]),
                takeover=doc.get("takeover"),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise LeaseError(f"{path}: not a lease file ({type(exc).__name__}); delete it if no deploy is running") from None

    def describe(self) -> str:
        return f"{self.holder} (pid {self.pid} on {self.host}) since {_iso(self.taken_at)}, until {_iso(self.expires_at)}"


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
    except OSError:
        return True
    return True


def _holder_gone(lease: Lease, host: str, alive: Alive) -> str | None:
    """Why ``lease`` may be taken over before its expiry (its holder died on this host), or None."""
    if lease.host != host or lease.pid == os.getpid():
        return None
    if alive(lease.pid):
        return None
    return f"holder process gone (pid {lease.pid} on {lease.host})"


def _write_private(directory: Path, doc: dict[str, Any]) -> Path:
    tmp = directory / f".tmp-{uuid.uuid4().hex}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    return tmp


def _link_exclusive(src: Path, dest: Path) -> bool:
    """Atomically create ``dest`` as a second name of ``src``; False when ``dest`` exists."""
    try:
        os.link(src, dest)
    except FileExistsError:
        return False
    return True


def read_lease(path: Path) -> Lease | None:
    """The lease at ``path``, or None when there is none. Raises :class:`LeaseError` when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        raise LeaseError(f"{path}: not a lease file (invalid JSON); delete it if no deploy is running") from None
    return Lease.from_json(path, doc)


def _claim_path(path: Path, token: str) -> Path:
    return path.with_name(f"{path.name}.takeover-{token}")


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
) -> Lease:
    """Take the lease of ``product``/``environment`` for ``holder``, or raise :class:`LeaseHeld`.

    A free lease is taken with ``os.link``; an expired one, or one whose holder's process is
    gone from this host (``alive(pid)`` false), is taken over through the claim file of its
    token (module docstring). ``clock()`` returns an aware UTC datetime. Raises
    :class:`LeaseError` for a malformed lease file.
    """
    from .workdir import runway_subfolder

    path = lease_path(root, product, environment)
    runway_subfolder(root, "leases")
    now = clock()
    me = Lease(
        path=path,
        product=product,
        environment=environment,
        holder=holder,
        pid=os.getpid() if pid is None else pid,
        host=socket.gethostname() if host is None else host,
        token=uuid.uuid4().hex,
        taken_at=now,
        expires_at=now + ttl,
    )
    tmp = _write_private(path.parent, me.to_json())
    try:
        for _ in range(8):  # a lease released between our link and our read: try again
            if _link_exclusive(tmp, path):
                return me
            current = read_lease(path)
            if current is None:
                continue
            if current.expired(now):
                return _take_over(path, current, me, now, "expired")
            gone = _holder_gone(current, me.host, alive)
            if gone is None:
                raise LeaseHeld(f"environment {environment} is being deployed by {current.describe()}", current)
            return _take_over(path, current, me, now, gone)
        raise LeaseHeld(f"environment {environment}: the lease keeps changing hands; try again")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _take_over(path: Path, old: Lease, me: Lease, now: datetime, reason: str = "expired") -> Lease:
    new = Lease(
        **{**me.__dict__, "takeover": {
            "reason": reason,
            "previous_holder": old.holder,
            "previous_pid": old.pid,
            "previous_host": old.host,
            "previous_token": old.token,
            "previous_taken_at": _iso(old.taken_at),
            "previous_expires_at": _iso(old.expires_at),
            "taken_over_at": _iso(now),
        }}
    )
    claim = _claim_path(path, old.token)
    tmp = _write_private(path.parent, new.to_json())
    try:
        if not _link_exclusive(tmp, claim):
            raise LeaseHeld(
                f"environment {new.environment}: another deploy is taking over the expired lease of {old.holder}"
                f" (if none is running, delete {claim})",
                old,
            )
        try:
            current = read_lease(path)
        except LeaseError:
            os.unlink(claim)
            raise
        if current is None or current.token != old.token:
            # Someone took it over (or released it) before our claim: back off.
            os.unlink(claim)
            holder = current.describe() if current else "another deploy"
            raise LeaseHeld(f"environment {new.environment} is being deployed by {holder}", current)
        os.replace(claim, path)  # atomic; the claim file becomes the lease
        return new
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def release(lease: Lease) -> bool:
    """Give the lease back if it is still ours; True when it was removed.

    Uses the same claim as a takeover, so it never removes a lease another process took over.
    """
    path = lease.path
    claim = _claim_path(path, lease.token)
    tmp = _write_private(path.parent, {"release": lease.token})
    try:
        if not _link_exclusive(tmp, claim):
            return False  # being taken over right now: it is no longer ours
        try:
            try:
                current = read_lease(path)
            except LeaseError:
                return False
            if current is None or current.token != lease.token:
                return False
            os.unlink(path)
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(claim)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def held(
    root: Path | str,
    product: str,
    environment: str,
    *,
    holder: str,
    clock: Clock,
    ttl: timedelta = DEFAULT_TTL,
) -> Iterator[Lease]:
    """``with held(...) as lease:`` takes the lease and releases it on exit, exceptions included."""
    lease = acquire(root, product, environment, holder=holder, clock=clock, ttl=ttl)
    try:
        yield lease
    finally:
        release(lease)


__all__ = [
    "DEFAULT_TTL",
    "Lease",
    "LeaseError",
    "LeaseHeld",
    "acquire",
    "held",
    "lease_path",
    "pid_alive",
    "read_lease",
    "release",
    "utc_now",
]
