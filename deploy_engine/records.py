"""Where deploy records live: one store, chosen with the state backend (docs/deploy.md, "Records").

Receipts, reviewed plans, drift reports, leases and lease history outlive the CI runner only
if they are kept where the Pulumi state is. :func:`open_store` picks the store from the backend
URL (``--backend``, else ``PULUMI_BACKEND_URL``):

- ``file://`` or none (the embedded default): :class:`FileStore`, ``<product repo>/.runway/``
  as before (``.runway/receipts/<env>/``, ``.runway/leases/<product>-<env>.json``...).
- ``s3://bucket[/prefix]``: :class:`S3Store`, ``s3://bucket/<prefix>/runway/`` in the state
  bucket, beside Pulumi's own ``<prefix>/.pulumi/``, through boto3 with the standard AWS
  configuration (profiles, ``AWS_REGION``, ``AWS_ENDPOINT_URL``, the credential chain); the
  URL's ``region``, ``profile`` and ``endpoint`` query parameters (as Pulumi's S3 backend reads
  them) win over the environment.

Every store offers the same five primitives, and every record kind is built on them:

- :meth:`RecordStore.create`: write a new key, **refused** (:class:`RecordExists`) when it
  exists. S3: ``PutObject`` with ``If-None-Match: *``; with ``retain_until`` also
  ``ObjectLockMode=GOVERNANCE`` and ``ObjectLockRetainUntilDate`` when the bucket has Object
  Lock. Files: a private temporary file, fsync, ``os.link`` (which never replaces a name).
- :meth:`RecordStore.replace` / :meth:`RecordStore.delete`: compare-and-swap on the ETag read
  before (:class:`RecordChanged` when the key changed or is gone). S3: ``PutObject`` /
  ``DeleteObject`` with ``If-Match: <ETag>``. Files: the ETag is the sha256 of the content; the
  swap first claims ``<name>.takeover-<ETag>`` with an exclusive ``os.link`` (one claimant per
  ETag), re-reads, then ``os.replace`` / ``os.unlink``. A claim left by a process that died in
  the window names itself in the error.
- :meth:`RecordStore.read`, :meth:`RecordStore.list`; :meth:`RecordStore.retain` extends the
  Object Lock retention of an existing object (S3 ``PutObjectRetention``; files: nothing to do).

Keys are relative to the store's root (``.runway/`` or ``<prefix>/runway/``), built by
:func:`record_key`: ``receipts/``, ``plans/``, ``drift/``, ``lease-history/``, ``ends/`` hold
``<env>/<name>`` in the file store (one product per repository) and ``<product>/<env>/<name>``
in S3 (products may share a prefix); ``leases/<product>-<env>.json`` in both. Retention by kind
(docs/adr/runtime-cloud-deployment.md, "Data and recovery"; docs/deploy.md "Records"): receipts for the
environment's lifetime plus :data:`RECEIPT_RETENTION_YEARS` years, drift reports
:data:`DRIFT_RETENTION_DAYS` days (13 months), lease history :data:`LEASE_HISTORY_DAYS` days; in
S3 by Object Lock and lifecycle rules (``runway-deploy state check``), in the file store by
pruning when a record of that kind is written.

:func:`write_json` is the one way a JSON record is written: scrubbed by the run's
:class:`~deploy_engine.secrets.Redactor` (and, for what an author wrote, by
:func:`runway_core.text.redact`: credential shapes), refused when a known value survives.
Must not import pulumi; boto3 is imported only by :class:`S3Store`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import parse_qs

from runway_core.text import redact

from .secrets import Redactor
from .workdir import runway_folder

#: Receipts are kept for the environment's lifetime plus this many years (Runtime Cloud page).
RECEIPT_RETENTION_YEARS = 7
#: Drift reports: 13 months, as whole days for an S3 lifecycle rule (13 x 30.44 = 395.7, rounded up).
DRIFT_RETENTION_DAYS = 396
#: Lease history (every take, takeover and release): 90 days.
LEASE_HISTORY_DAYS = 90
#: The folder of the records under an S3 backend's prefix, beside Pulumi's ``.pulumi/``.
S3_RECORDS_FOLDER = "runway"

#: Record kinds whose keys are per product and environment (see :func:`record_key`).
KINDS = ("receipts", "plans", "drift", "lease-history", "ends")


class StoreError(Exception):
    """The store could not be read or written (unreachable, access denied, bucket missing).
    The message names the bucket and key or the path, never a credential."""


class RecordExists(StoreError):
    """:meth:`RecordStore.create` was refused: the key exists (S3 ``PreconditionFailed`` on
    ``If-None-Match: *``; files: ``FileExistsError`` from ``link``)."""


class RecordChanged(StoreError):
    """A conditional :meth:`RecordStore.replace` / :meth:`RecordStore.delete` was refused: the key
    holds another ETag than the one given, or is gone. ``claim`` is the file-store claim that
    blocks it, when that is the reason (left by a process that died mid-swap: delete it if no
    deploy is running)."""

    def __init__(self, message: str, claim: str | None = None) -> None:
        super().__init__(message)
        self.claim = claim


@dataclass(frozen=True)
class Record:
    """A stored object: its key, bytes and ETag (S3's, or the sha256 of a file's content)."""

    key: str
    data: bytes
    etag: str

    def json(self) -> Any:
        return json.loads(self.data.decode("utf-8"))


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
    m = re.match(r"(\d{8}T\d{6}\.\d{6})Z", name)
    if m is None:
        return None
    return datetime.strptime(m.group(1), "%Y%m%dT%H%M%S.%f").replace(tzinfo=timezone.utc)


def record_order(key: str) -> tuple[str, int, str]:
    """Sort key of record keys by time: the name's stamp, then its ``-1``, ``-2``... suffix
    (``...Z.json`` before ``...Z-1.json``, which plain string order gets wrong)."""
    name = key.rsplit("/", 1)[-1]
    m = re.match(r"^(\d{8}T\d{6}\.\d{6}Z)(.*?)(?:-(\d+))?\.json$", name)
    if m is None:
        return (name, 0, key)
    return (m.group(1) + m.group(2), int(m.group(3) or 0), key)


_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _segment(value: str, what: str) -> str:
    """A product, environment or record name as one key segment: no ``/``, no ``..``."""
    if not _SAFE.match(value) or ".." in value:
        raise ValueError(f"{what} {value!r} cannot be part of a record key")
    return value


class RecordStore(ABC):
    """The records store interface (module docstring). ``scheme`` is ``file`` or ``s3``."""

    scheme: str = ""
    #: Whether the store keeps its own retention (S3 lifecycle rules) instead of pruning.
    expires_by_itself: bool = False
    #: Whether the last :meth:`create` locked its object (Object Lock retention).
    last_locked: bool = False

    def key(self, kind: str, product: str, environment: str, name: str = "") -> str:
        """The key of a record of ``kind`` (:data:`KINDS`); with ``name`` empty, the folder."""
        if kind not in KINDS:
            raise ValueError(f"unknown record kind {kind!r}")
        parts = [kind] + self._owner(_segment(product, "product"), _segment(environment, "environment"))
        if name:
            parts.append(_segment(name, "record name"))
        return "/".join(parts) + ("" if name else "/")

    def _owner(self, product: str, environment: str) -> list[str]:
        return [product, environment]

    def lease_key(self, product: str, environment: str) -> str:
        return f"leases/{_segment(product, 'product')}-{_segment(environment, 'environment')}.json"

    @abstractmethod
    def location(self, key: str) -> str:
        """Where ``key`` is, for people: a path or an ``s3://bucket/key`` URL."""

    @abstractmethod
    def create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        """Write ``key`` only if it does not exist; returns its ETag. Raises :class:`RecordExists`."""

    @abstractmethod
    def read(self, key: str) -> Record | None:
        """The record at ``key``, or None."""

    @abstractmethod
    def replace(self, key: str, data: bytes, etag: str) -> str:
        """Overwrite ``key`` only if it still has ``etag``; returns the new ETag. Raises :class:`RecordChanged`."""

    @abstractmethod
    def delete(self, key: str, etag: str) -> None:
        """Delete ``key`` only if it still has ``etag``. Raises :class:`RecordChanged`."""

    @abstractmethod
    def list(self, prefix: str) -> list[str]:
        """Keys under ``prefix``, sorted."""

    def retain(self, key: str, until: datetime) -> datetime | None:
        """Extend the Object Lock retention of ``key`` to ``until`` (never shortened); returns the
        retain-until now in force, or None when the store locks nothing."""
        return None

    def locked_until(self, key: str) -> datetime | None:
        """The Object Lock retain-until date of ``key``'s current version, or None."""
        return None

    def prune(self, prefix: str, older_than: datetime) -> int:
        """Remove records under ``prefix`` whose name stamps are older than ``older_than``
        (file store only; S3 lifecycle rules expire them). Returns how many went."""
        return 0


def _etag_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


class FileStore(RecordStore):
    """The records under ``<root>/.runway/`` (module docstring). Creating anything writes
    ``.runway/.gitignore`` first (:func:`deploy_engine.workdir.runway_folder`)."""

    scheme = "file"

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.folder = self.root / ".runway"

    def _owner(self, product: str, environment: str) -> list[str]:
        # One product per repository: `.runway/receipts/<env>/`, as before.
        return [environment]

    def path(self, key: str) -> Path:
        return self.folder / key

    def location(self, key: str) -> str:
        return str(self.path(key))

    def _tmp(self, directory: Path, data: bytes) -> Path:
        runway_folder(self.root)
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f".tmp-{uuid.uuid4().hex}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return tmp

    def create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        dest = self.path(key)
        tmp = self._tmp(dest.parent, data)
        try:
            try:
                # link, not replace: an existing record is never overwritten.
                os.link(tmp, dest)
            except FileExistsError:
                raise RecordExists(f"{dest} exists; records are never overwritten") from None
            return _etag_of(data)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def read(self, key: str) -> Record | None:
        try:
            data = self.path(key).read_bytes()
        except FileNotFoundError:
            return None
        return Record(key, data, _etag_of(data))

    def _claim(self, key: str, etag: str, data: bytes) -> Path:
        """Claim the swap from ``etag`` (exclusive ``link``), or raise :class:`RecordChanged`."""
        path = self.path(key)
        claim = path.with_name(f"{path.name}.takeover-{etag}")
        tmp = self._tmp(path.parent, data)
        try:
            try:
                os.link(tmp, claim)
            except FileExistsError:
                raise RecordChanged(f"{path} is being changed by another process (if none is running, delete {claim})",
                                    claim=str(claim)) from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        current = self.read(key)
        if current is None or current.etag != etag:
            os.unlink(claim)
            raise RecordChanged(f"{path} changed since it was read" if current else f"{path} is gone")
        return claim

    def replace(self, key: str, data: bytes, etag: str) -> str:
        claim = self._claim(key, etag, data)
        os.replace(claim, self.path(key))  # atomic: the claim (holding `data`) becomes the record
        return _etag_of(data)

    def delete(self, key: str, etag: str) -> None:
        claim = self._claim(key, etag, b"")
        try:
            os.unlink(self.path(key))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(claim)

    def list(self, prefix: str) -> list[str]:
        base = self.path(prefix)
        folder = base if prefix.endswith("/") or base.is_dir() else base.parent
        if not folder.is_dir():
            return []
        keys = []
        for p in folder.rglob("*"):
            if p.is_file() and not p.name.startswith(".tmp-") and ".takeover-" not in p.name:
                key = p.relative_to(self.folder).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def prune(self, prefix: str, older_than: datetime) -> int:
        n = 0
        for key in self.list(prefix):
            t = parse_stamp(key.rsplit("/", 1)[-1])
            if t is not None and t < older_than:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path(key))
                    n += 1
        return n


class S3Store(RecordStore):
    """The records under ``s3://<bucket>/<prefix>/runway/`` (module docstring).

    ``client`` is a boto3 S3 client (:func:`s3_client` builds one from the standard AWS
    configuration). Object Lock: a receipt is written with ``ObjectLockMode=GOVERNANCE`` and
    its retain-until; on a bucket without Object Lock (``InvalidRequest``) it is written
    unlocked and :attr:`unlocked_reason` says so (``runway-deploy state check`` names the fix).
    """

    scheme = "s3"
    expires_by_itself = True

    def __init__(self, bucket: str, prefix: str, client: Any) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.client = client
        self.root_prefix = f"{self.prefix}/{S3_RECORDS_FOLDER}/" if self.prefix else f"{S3_RECORDS_FOLDER}/"
        #: Why the last receipt was written without Object Lock, or None.
        self.unlocked_reason: str | None = None
        self._lock: bool | None = None

    def object_key(self, key: str) -> str:
        return self.root_prefix + key

    def location(self, key: str) -> str:
        return f"s3://{self.bucket}/{self.object_key(key)}"

    # botocore raises ClientError for every refusal; its code says which.
    def _fail(self, exc: Exception, key: str | None, what: str) -> StoreError:
        code, status, message = _client_error(exc)
        where = self.location(key) if key is not None else f"s3://{self.bucket}/{self.root_prefix}"
        if code is None:
            return StoreError(f"{what} {where}: {type(exc).__name__}: {_one_line(str(exc))}")
        return StoreError(f"{what} {where}: {code} ({status}): {_one_line(message)}")

    def create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        kwargs: dict[str, Any] = dict(Bucket=self.bucket, Key=self.object_key(key), Body=data, IfNoneMatch="*",
                                      ContentType="application/json")
        lock = retain_until is not None and self._lock is not False
        if lock:
            kwargs.update(ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=retain_until)
        self.last_locked = False
        try:
            etag = str(self.client.put_object(**kwargs)["ETag"])
            self.last_locked = lock
            return etag
        except Exception as exc:  # noqa: BLE001 - ClientError and connection errors
            code, _, message = _client_error(exc)
            if code in ("PreconditionFailed", "ConditionalRequestConflict"):
                # 412: the key exists; 409: a concurrent write to it won.
                raise RecordExists(f"{self.location(key)} exists; records are never overwritten") from None
            if lock and code == "InvalidRequest" and "lock" in (message or "").lower():
                self._lock = False
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return self.create(key, data)
            raise self._fail(exc, key, "write") from None

    def read(self, key: str) -> Record | None:
        try:
            got = self.client.get_object(Bucket=self.bucket, Key=self.object_key(key))
        except Exception as exc:  # noqa: BLE001
            if _client_error(exc)[0] in ("NoSuchKey", "404"):
                return None
            raise self._fail(exc, key, "read") from None
        return Record(key, got["Body"].read(), str(got["ETag"]))

    def replace(self, key: str, data: bytes, etag: str) -> str:
        try:
            return str(self.client.put_object(Bucket=self.bucket, Key=self.object_key(key), Body=data, IfMatch=etag,
                                              ContentType="application/json")["ETag"])
        except Exception as exc:  # noqa: BLE001
            code = _client_error(exc)[0]
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"):
                raise RecordChanged(f"{self.location(key)} changed since it was read (or is gone)") from None
            raise self._fail(exc, key, "write") from None

    def delete(self, key: str, etag: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key), IfMatch=etag)
        except Exception as exc:  # noqa: BLE001
            code = _client_error(exc)[0]
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"):
                raise RecordChanged(f"{self.location(key)} changed since it was read (or is gone)") from None
            raise self._fail(exc, key, "delete") from None

    def list(self, prefix: str) -> list[str]:
        keys: list[str] = []
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.object_key(prefix)):
                keys += [o["Key"][len(self.root_prefix):] for o in page.get("Contents", ())]
        except Exception as exc:  # noqa: BLE001
            raise self._fail(exc, prefix, "list") from None
        return sorted(keys)

    def locked_until(self, key: str) -> datetime | None:
        # HeadObject reports the lock (GetObjectRetention would too; moto 5.2 does not implement it).
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=self.object_key(key))
        except Exception as exc:  # noqa: BLE001
            raise self._fail(exc, key, "read") from None
        until = head.get("ObjectLockRetainUntilDate")
        return until.astimezone(timezone.utc) if isinstance(until, datetime) else None

    def retain(self, key: str, until: datetime) -> datetime | None:
        current = self.locked_until(key)
        if current is not None and current >= until:
            return current  # governance retention is only ever extended here
        try:
            self.client.put_object_retention(Bucket=self.bucket, Key=self.object_key(key),
                                             Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
        except Exception as exc:  # noqa: BLE001
            code, _, message = _client_error(exc)
            if code == "InvalidRequest" and "lock" in (message or "").lower():
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return None
            raise self._fail(exc, key, "retention of") from None
        return until


def _client_error(exc: Exception) -> tuple[str | None, int | None, str | None]:
    """(code, HTTP status, message) of a botocore ``ClientError``; (None, None, None) otherwise."""
    response = getattr(exc, "response", None)
    if not isinstance(response, Mapping):
        return None, None, None
    error = response.get("Error") or {}
    status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
    return str(error.get("Code")) if error.get("Code") is not None else str(status), status, str(error.get("Message") or "")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


# --------------------------------------------------------------------------------------
# Choosing the store
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class S3Location:
    bucket: str
    prefix: str
    region: str | None = None
    profile: str | None = None
    endpoint: str | None = None


def parse_s3_url(url: str) -> S3Location:
    """``s3://bucket[/prefix][?region=..&profile=..&endpoint=..]`` -> :class:`S3Location`.
    Raises ValueError for a URL without a bucket."""
    rest = url.strip()[len("s3://"):]
    path, _, query = rest.partition("?")
    authority, _, prefix = path.partition("/")
    bucket = authority.rpartition("@")[2]  # user info is never a bucket (nor ever shown)
    if not bucket:
        raise ValueError("an s3:// backend names a bucket: s3://<bucket>[/<prefix>]")
    q = {k: v[-1] for k, v in parse_qs(query).items()}
    return S3Location(bucket, prefix.strip("/"), q.get("region"), q.get("profile"), q.get("endpoint"))


def s3_client(where: S3Location, environ: Mapping[str, str], redactor: Redactor | None = None) -> Any:
    """A boto3 S3 client for ``where``, configured as the AWS SDKs are: the URL's ``profile``,
    ``region`` and ``endpoint`` first, then ``AWS_PROFILE``, ``AWS_REGION`` /
    ``AWS_DEFAULT_REGION``, ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` and the static keys
    of ``environ``, else boto3's own chain (config files, SSO, web identity, instance roles).
    The secret key and session token go into ``redactor``."""
    import boto3
    from botocore.config import Config

    keys: dict[str, str] = {}
    if environ.get("AWS_ACCESS_KEY_ID") and environ.get("AWS_SECRET_ACCESS_KEY"):
        keys = {"aws_access_key_id": environ["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": environ["AWS_SECRET_ACCESS_KEY"]}
        if environ.get("AWS_SESSION_TOKEN"):
            keys["aws_session_token"] = environ["AWS_SESSION_TOKEN"]
        if redactor is not None:
            redactor.add(keys["aws_secret_access_key"])
            redactor.add(keys.get("aws_session_token"))
    profile = where.profile or (None if keys else environ.get("AWS_PROFILE")) or None
    region = where.region or environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or None
    session = boto3.session.Session(profile_name=profile, region_name=region, **keys)
    endpoint = where.endpoint or environ.get("AWS_ENDPOINT_URL_S3") or environ.get("AWS_ENDPOINT_URL") or None
    # Few, bounded retries: a deploy job must not hang on an unreachable store.
    config = Config(retries={"max_attempts": 4, "mode": "standard"}, connect_timeout=10, read_timeout=30)
    return session.client("s3", endpoint_url=endpoint, config=config)


def backend_url(arg: str | None, environ: Mapping[str, str]) -> str:
    """The backend URL the records follow: ``--backend``, else ``PULUMI_BACKEND_URL``, else ''."""
    return (arg or environ.get("PULUMI_BACKEND_URL") or "").strip()


def open_store(url: str, root: Path | str, environ: Mapping[str, str], redactor: Redactor | None = None) -> RecordStore:
    """The records store of backend ``url`` for the product repository ``root``: :class:`S3Store`
    for ``s3://``, else :class:`FileStore` (``file://``, none, or a scheme the backend check
    refuses: its receipt stays in ``.runway/``). Builds no connection. Raises ValueError for an
    ``s3://`` URL without a bucket."""
    if url.lower().startswith("s3://"):
        where = parse_s3_url(url)
        return S3Store(where.bucket, where.prefix, s3_client(where, environ, redactor))
    return FileStore(root)


# --------------------------------------------------------------------------------------
# JSON records
# --------------------------------------------------------------------------------------


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
    "DRIFT_RETENTION_DAYS",
    "KINDS",
    "LEASE_HISTORY_DAYS",
    "RECEIPT_RETENTION_YEARS",
    "S3_RECORDS_FOLDER",
    "FileStore",
    "Record",
    "RecordChanged",
    "RecordExists",
    "RecordStore",
    "S3Location",
    "S3Store",
    "StoreError",
    "Written",
    "add_years",
    "backend_url",
    "dumps",
    "open_store",
    "parse_s3_url",
    "parse_stamp",
    "prune_kind",
    "receipt_retain_until",
    "record_order",
    "s3_client",
    "stamp",
    "write_json",
    "write_unique",
]
