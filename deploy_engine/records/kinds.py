"""The record kinds' names and retention, and how a JSON record is written
(:mod:`deploy_engine.records`).

Records are named by their UTC time (:func:`stamp`, ordered by :func:`record_order`). Retention
by kind (docs/adr/runtime-cloud-deployment.md, "Data and recovery"; docs/deploy.md "Records"):
receipts for the environment's lifetime plus :data:`RECEIPT_RETENTION_YEARS` years, drift
reports :data:`DRIFT_RETENTION_DAYS` days (13 months), lease history :data:`LEASE_HISTORY_DAYS`
days; in S3 by Object Lock and lifecycle rules (``runway-deploy state check``), in the file
store by pruning when a record of that kind is written (:func:`prune_kind`).

:func:`write_json` is the one way a JSON record is written: scrubbed by the run's
:class:`~deploy_engine.secrets.Redactor` (and, for what an author wrote, by
:func:`runway_core.text.redact`: credential shapes), refused when a known value survives.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from runway_core.text import redact

from ..secrets import Redactor
from .store import RecordExists, RecordStore

#: Receipts are kept for the environment's lifetime plus this many years (Runtime Cloud page).
RECEIPT_RETENTION_YEARS = 7
#: Drift reports: 13 months, as whole days for an S3 lifecycle rule (13 x 30.44 = 395.7, rounded up).
DRIFT_RETENTION_DAYS = 396
#: Lease history (every take, takeover and release): 90 days.
LEASE_HISTORY_DAYS = 90


@dataclass(frozen=True)
class Written:
    """Where :func:`write_json` put a record: ``key``, ``location`` (a path or ``s3://`` URL for
    people), the exact ``text`` written and the Object Lock ``retain_until`` (None when unlocked)."""

    key: str
    location: str
    text: str
    retain_until: datetime | None = None


def add_years(t: datetime, years: int) -> datetime:
    """``t`` plus whole calendar years (29 February becomes 28 February)."""
    try:
        return t.replace(year=t.year + years)
    except ValueError:
        return t.replace(year=t.year + years, day=28)


def receipt_retain_until(ended_or_now: datetime) -> datetime:
    """Retain-until of a receipt: :data:`RECEIPT_RETENTION_YEARS` years after ``ended_or_now``
    (the environment's end once ``destroy`` recorded it; before that, the time of writing: the
    environment ends no earlier, and ``destroy`` extends every receipt to end + 7 years).
    Rounded up to the whole second: S3 keeps retain-until dates in seconds."""
    t = add_years(ended_or_now.astimezone(timezone.utc), RECEIPT_RETENTION_YEARS)
    return t.replace(microsecond=0) + (timedelta(seconds=1) if t.microsecond else timedelta(0))


def stamp(t: datetime) -> str:
    """``20261130T091502.123456Z``: a UTC time as a sortable record name."""
    return t.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def parse_stamp(name: str) -> datetime | None:
    """The UTC time a record name starts with (:func:`stamp`), or None: no stamp, or digits that
    are no time (``20261399T...``: month 13; ``strptime`` raised ValueError, issue 23 round 5)."""
    m = re.match(r"(\d{8}T\d{6}\.\d{6})Z", name)
    if m is None:
        return None
    try:
        return datetime.strptime(m.group(1), "%Y%m%dT%H%M%S.%f").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


_RECEIPT_NAME = re.compile(r"^\d{8}T\d{6}\.\d{6}Z(?:-\d{1,4})?\.json$")


def timed_name_problem(key: str) -> str | None:
    """Why ``key``'s last segment is not a record name :func:`write_unique` writes
    (``<UTC time>.json`` or ``<UTC time>-<n>.json``, the time a real one), or None. A receipt is
    listed by the time its name holds: a name without one (``zzz-junk.json``, ``latest.json``)
    would sort among them anywhere."""
    name = key.rsplit("/", 1)[-1]
    if _RECEIPT_NAME.fullmatch(name) and parse_stamp(name) is not None:
        return None
    return "name is not a UTC time (<YYYYMMDD>T<HHMMSS>.<microseconds>Z[-n].json, as runway names a receipt)"


def record_order(key: str) -> tuple[int, str, int, str]:
    """Sort key of record keys by time: the name's stamp, then its ``-1``, ``-2``... suffix
    (``...Z.json`` before ``...Z-1.json``, which plain string order gets wrong). A name without
    a stamp sorts before every stamped one (it has no time; ``zzz-junk.json`` sorted after them
    and so passed for the newest)."""
    name = key.rsplit("/", 1)[-1]
    m = re.fullmatch(r"^(\d{8}T\d{6}\.\d{6}Z)(.*?)(?:-(\d+))?\.json$", name)
    if m is None or parse_stamp(name) is None:
        return (0, name, 0, key)
    return (1, m.group(1) + m.group(2), int(m.group(3) or 0), key)


def dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_json(store: RecordStore, key: str, doc: Any, redactor: Redactor, *, retain_until: datetime | None = None,
               shapes: bool = False) -> Written:
    """Scrub ``doc`` with ``redactor``, check nothing known survived, and :meth:`~RecordStore.create`
    ``key``. With ``shapes`` (a record holding what an author wrote in the runway: the reviewed
    plan) also :func:`runway_core.text.redact`: no credential-shaped value pasted there (RW147)
    is spread into a record. Raises ValueError when a secret survives (nothing is written),
    :class:`RecordExists`, :class:`StoreError`."""
    text = dumps(redactor.scrub_doc(doc))
    if shapes:
        text = redact(text)
    if redactor.leaks(text):
        raise ValueError(f"record {key} still holds a secret value after redaction; not written")
    store.create(key, text.encode("utf-8"), retain_until=retain_until)
    return Written(key, store.location(key), text, retain_until if store.last_locked else None)


def write_unique(store: RecordStore, kind: str, product: str, environment: str, t: datetime, doc: Any, redactor: Redactor,
                 *, retain_until: datetime | None = None, suffix: str = "") -> Written:
    """Write ``doc`` as ``<kind>/.../<stamp(t)><suffix>.json``, with ``-1``, ``-2``... when a record
    of the same microsecond exists (never overwritten)."""
    n = 0
    while True:
        name = f"{stamp(t)}{suffix}" + ("" if n == 0 else f"-{n}") + ".json"
        try:
            return write_json(store, store.key(kind, product, environment, name), doc, redactor, retain_until=retain_until)
        except RecordExists:
            n += 1
            if n > 1000:
                raise


def prune_kind(store: RecordStore, kind: str, product: str, environment: str, now: datetime, days: int) -> int:
    """File store: drop records of ``kind`` older than ``days``; S3: its lifecycle rules do."""
    if store.expires_by_itself:
        return 0
    return store.prune(store.key(kind, product, environment), now - timedelta(days=days))


__all__ = [
    "DRIFT_RETENTION_DAYS", "LEASE_HISTORY_DAYS", "RECEIPT_RETENTION_YEARS", "Written", "add_years", "dumps", "parse_stamp",
    "prune_kind", "receipt_retain_until", "record_order", "stamp", "timed_name_problem", "write_json", "write_unique",
]
