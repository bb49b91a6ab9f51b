"""The S3 store of the records: ``s3://<bucket>/<prefix>/runway/`` in the state bucket of an
``s3://`` backend (:mod:`deploy_engine.records`), through boto3: conditional writes
(``If-None-Match`` / ``If-Match``), Object Lock retention, and the client configured as the AWS
SDKs are. boto3 is imported only by :func:`s3_client` (through
:func:`deploy_engine.aws_clients.make_client`).

Every operation has a total deadline (:data:`STORE_TIMEOUT_S`, ``RUNWAY_STORE_TIMEOUT_S``): the
client's ``connect_timeout`` / ``read_timeout`` restart with every byte, so an endpoint that
drips a valid answer (1 byte every 2 s) kept ``receipts`` running for ever (issue 23, round 5
F07). The call runs in a daemon thread the caller waits for until the deadline, then
:class:`StoreTimeout` is raised; the thread, blocked on the dripping socket, is left behind (a
command exits right after; a write that timed out may still complete).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, TypeVar
from urllib.parse import parse_qs

from runway_core.workspace import MAX_JSON_BYTES

from ..argtypes import seconds_value
from ..secrets import Redactor
from .store import Record, RecordChanged, RecordExists, RecordStore, RecordTooLarge, StoreConfigError, StoreError, StoreTimeout

T = TypeVar("T")

#: The folder of the records under an S3 backend's prefix, beside Pulumi's ``.pulumi/``.
S3_RECORDS_FOLDER = "runway"
#: The total deadline of one store operation (seconds): a request with its retries, and for a
#: listing all its pages, from the first byte sent to the last received (docs/deploy.md, "Records").
STORE_TIMEOUT_S = 60.0
#: Sets :data:`STORE_TIMEOUT_S` (seconds above 0, at most 86400).
STORE_TIMEOUT_VARIABLE = "RUNWAY_STORE_TIMEOUT_S"


class S3Store(RecordStore):
    """The records under ``s3://<bucket>/<prefix>/runway/`` (module docstring).

    ``client`` is a boto3 S3 client (:func:`s3_client` builds one from the standard AWS
    configuration). Object Lock: a receipt is written with ``ObjectLockMode=GOVERNANCE`` and
    its retain-until; on a bucket without Object Lock (``InvalidRequest``) it is written
    unlocked and :attr:`unlocked_reason` says so (``runway-deploy state check`` names the fix).
    """

    scheme = "s3"
    expires_by_itself = True

    def __init__(self, bucket: str, prefix: str, client: Any, deadline_s: float | None = STORE_TIMEOUT_S) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.client = client
        self.root_prefix = f"{self.prefix}/{S3_RECORDS_FOLDER}/" if self.prefix else f"{S3_RECORDS_FOLDER}/"
        #: Why the last receipt was written without Object Lock, or None.
        self.unlocked_reason: str | None = None
        self._lock: bool | None = None
        #: The total deadline of each operation (seconds; None: none), module docstring.
        self.deadline_s = deadline_s

    def object_key(self, key: str) -> str:
        return self.root_prefix + key

    def location(self, key: str) -> str:
        return f"s3://{self.bucket}/{self.object_key(key)}"

    # botocore raises ClientError for every refusal; its code says which.
    def _fail(self, exc: Exception, key: str | None, what: str) -> StoreError:
        code, status, message = client_error(exc)
        where = self.location(key) if key is not None else f"s3://{self.bucket}/{self.root_prefix}"
        if code is None:
            return StoreError(f"{what} {where}: {type(exc).__name__}: {_one_line(str(exc))}")
        return StoreError(f"{what} {where}: {code} ({status}): {_one_line(message)}")

    def _etag(self, answer: Any, key: str, what: str) -> str:
        """The ``ETag`` of a GetObject/PutObject answer. S3 always sends one (Amazon S3 API
        Reference, GetObject and PutObject "Response Syntax": ``ETag``), and the compare-and-swap
        of leases rests on it; an "S3-compatible" endpoint that omits it is refused with
        :class:`StoreError` (exit 3, or the record unreadable), never a KeyError (exit 70)."""
        etag = answer.get("ETag") if isinstance(answer, dict) else None
        if not isinstance(etag, str) or not etag:
            raise StoreError(f"{what} {self.location(key)}: the endpoint answered without an ETag (S3 always sends one; "
                             "not an S3-compatible store)")
        return etag

    def _create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        kwargs: dict[str, Any] = dict(Bucket=self.bucket, Key=self.object_key(key), Body=data, IfNoneMatch="*",
                                      ContentType="application/json")
        lock = retain_until is not None and self._lock is not False
        if lock:
            kwargs.update(ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=retain_until)
        self.last_locked = False
        try:
            answer = self.client.put_object(**kwargs)
        except Exception as exc:  # noqa: BLE001 - ClientError and connection errors
            code, _, message = client_error(exc)
            if code in ("PreconditionFailed", "ConditionalRequestConflict"):
                # 412: the key exists; 409: a concurrent write to it won.
                raise RecordExists(f"{self.location(key)} exists; records are never overwritten") from None
            if lock and code == "InvalidRequest" and "lock" in (message or "").lower():
                self._lock = False
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return self._create(key, data)
            raise self._fail(exc, key, "write") from None
        etag = self._etag(answer, key, "write")
        self.last_locked = lock
        return etag

    def _read(self, key: str, *, limit: int = MAX_JSON_BYTES) -> Record | None:
        try:
            got = self.client.get_object(Bucket=self.bucket, Key=self.object_key(key))
        except Exception as exc:  # noqa: BLE001
            if client_error(exc)[0] in ("NoSuchKey", "404"):
                return None
            raise self._fail(exc, key, "read") from None
        body = got["Body"]
        too_large = RecordTooLarge(f"{self.location(key)} is over the {limit:,}-byte limit for this record; not read")
        try:
            # GetObject's Content-Length first: an object anyone with write access put there is
            # not downloaded past the bound; the read itself is bounded too.
            if int(got.get("ContentLength") or 0) > limit:
                raise too_large
            try:
                data = body.read(limit + 1)
            except Exception as exc:  # noqa: BLE001 - a connection cut mid-body
                raise self._fail(exc, key, "read") from None
        finally:
            body.close()
        if len(data) > limit:
            raise too_large
        return Record(key, data, self._etag(got, key, "read"))

    def _replace(self, key: str, data: bytes, etag: str) -> str:
        try:
            answer = self.client.put_object(Bucket=self.bucket, Key=self.object_key(key), Body=data, IfMatch=etag,
                                            ContentType="application/json")
        except Exception as exc:  # noqa: BLE001
            code = client_error(exc)[0]
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"):
                raise RecordChanged(f"{self.location(key)} changed since it was read (or is gone)") from None
            raise self._fail(exc, key, "write") from None
        return self._etag(answer, key, "write")

    def _delete(self, key: str, etag: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key), IfMatch=etag)
        except Exception as exc:  # noqa: BLE001
            code = client_error(exc)[0]
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"):
                raise RecordChanged(f"{self.location(key)} changed since it was read (or is gone)") from None
            raise self._fail(exc, key, "delete") from None

    def _list(self, prefix: str) -> list[str]:
        """The keys under ``prefix`` (store keys: the object keys less :attr:`root_prefix`).
        S3 lists only keys that begin with ``Prefix`` (Amazon S3 API Reference, ListObjectsV2
        "Prefix"); an endpoint that lists another one (a ``dev/`` key in a ``staging`` listing,
        listed once per environment; a key outside the backend's prefix, shown cut at its
        length) is no S3-compatible store: the listing is refused with :class:`StoreError`
        naming the whole key and the prefix asked (sixth adversary), never listed."""
        asked = self.object_key(prefix)
        keys: list[str] = []
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=asked):
                for o in page.get("Contents", ()):
                    key = o.get("Key") if isinstance(o, dict) else None
                    if not isinstance(key, str) or not key.startswith(asked):
                        raise StoreError(f"list s3://{self.bucket}/{asked}: the endpoint listed s3://{self.bucket}/{key}, which is "
                                         f"outside the prefix asked ({asked}); S3 lists only keys under it: not an S3-compatible "
                                         "store, refused")
                    keys.append(key[len(self.root_prefix):])
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise self._fail(exc, prefix, "list") from None
        return sorted(keys)

    def _locked_until(self, key: str) -> datetime | None:
        # HeadObject reports the lock (GetObjectRetention would too; moto 5.2 does not implement it).
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=self.object_key(key))
        except Exception as exc:  # noqa: BLE001
            raise self._fail(exc, key, "read") from None
        until = head.get("ObjectLockRetainUntilDate")
        return until.astimezone(timezone.utc) if isinstance(until, datetime) else None

    def _retain(self, key: str, until: datetime) -> datetime | None:
        current = self._locked_until(key)
        if current is not None and current >= until:
            return current  # governance retention is only ever extended here
        try:
            self.client.put_object_retention(Bucket=self.bucket, Key=self.object_key(key),
                                             Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
        except Exception as exc:  # noqa: BLE001
            code, _, message = client_error(exc)
            if code == "InvalidRequest" and "lock" in (message or "").lower():
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return None
            raise self._fail(exc, key, "retention of") from None
        return until


    def within(self, what: str, key: str | None, call: Callable[[], T]) -> T:
        """``call()`` within :attr:`deadline_s` (module docstring,
        :func:`deploy_engine.aws_clients.within`); its result or its exception. Past the
        deadline raises :class:`StoreTimeout` naming ``what`` and where."""
        from ..aws_clients import within

        def timed_out() -> StoreTimeout:
            where = self.location(key) if key is not None else f"s3://{self.bucket}/{self.root_prefix}"
            return StoreTimeout(f"{what} {where}: no complete answer within the {self.deadline_s:g} s deadline of a store "
                                f"operation ({STORE_TIMEOUT_VARIABLE}); the endpoint is not answering, or too slowly")

        return within(self.deadline_s, call, timed_out)

    def create(self, key: str, data: bytes, *, retain_until: datetime | None = None) -> str:
        return self.within("write", key, lambda: self._create(key, data, retain_until=retain_until))

    def read(self, key: str, *, limit: int = MAX_JSON_BYTES) -> Record | None:
        return self.within("read", key, lambda: self._read(key, limit=limit))

    def replace(self, key: str, data: bytes, etag: str) -> str:
        return self.within("write", key, lambda: self._replace(key, data, etag))

    def delete(self, key: str, etag: str) -> None:
        self.within("delete", key, lambda: self._delete(key, etag))

    def list(self, prefix: str) -> list[str]:
        return self.within("list", prefix, lambda: self._list(prefix))

    def locked_until(self, key: str) -> datetime | None:
        return self.within("read", key, lambda: self._locked_until(key))

    def retain(self, key: str, until: datetime) -> datetime | None:
        return self.within("retention of", key, lambda: self._retain(key, until))


def client_error(exc: Exception) -> tuple[str | None, int | None, str | None]:
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
# Where the bucket is, and the client
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class S3Location:
    bucket: str
    prefix: str
    region: str | None = None
    profile: str | None = None
    endpoint: str | None = None


_BUCKET_CHARS = re.compile(r"[A-Za-z0-9._-]+")


def parse_s3_url(url: str) -> S3Location:
    """``s3://bucket[/prefix][?region=..&profile=..&endpoint=..]`` -> :class:`S3Location`.
    Raises ValueError for a URL without a bucket, with a ``#`` fragment, a bucket name holding
    another character than ``[A-Za-z0-9._-]`` (``s3://KEY:SECRET/p``), or with an ``@`` after it (a pasted
    credential holding ``/``, ``?`` or ``#``; the message quotes nothing of the URL)."""
    rest = url.strip()[len("s3://"):]
    authority_end = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    if "@" in rest[authority_end:]:
        # An '@' after the bucket: a credential pasted with a '/', '?' or '#' in it (an AWS
        # secret key holds '/'), which a parse would read as the bucket. S3 takes no user info:
        # refused, quoting nothing of the URL.
        raise ValueError("an s3:// backend URL holds no credentials (an '@' after its bucket was found): use "
                         "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the URL's profile= parameter")
    if "#" in rest:
        # A fragment means nothing to S3 and would be read into the prefix (and so into every
        # location shown); it may be a pasted secret: refused, quoting nothing of the URL.
        raise ValueError("an s3:// backend URL has no '#' fragment: s3://<bucket>[/<prefix>][?region=..]")
    path, _, query = rest.partition("?")
    authority, _, prefix = path.partition("/")
    bucket = authority.rpartition("@")[2]  # user info is never a bucket (nor ever shown)
    if not bucket:
        raise ValueError("an s3:// backend names a bucket: s3://<bucket>[/<prefix>]")
    if not _BUCKET_CHARS.fullmatch(bucket):
        # A ':' is user info without '@' (KEY:SECRET), which boto would quote back in its
        # "Invalid bucket name" error; no S3 bucket name holds anything but these characters
        # (AWS S3 User Guide, "Bucket naming rules"; legacy us-east-1 names add A-Z and '_').
        raise ValueError("an s3:// backend's bucket name holds only letters, digits, '.', '-' and '_' "
                         "(a ':' in it reads as a credential, which the URL never holds): s3://<bucket>[/<prefix>]")
    q = {k: v[-1] for k, v in parse_qs(query).items()}
    return S3Location(bucket, prefix.strip("/"), q.get("region"), q.get("profile"), q.get("endpoint"))


def s3_client(where: S3Location, environ: Mapping[str, str], redactor: Redactor | None = None) -> Any:
    """A boto3 S3 client for ``where``, configured as the AWS SDKs are: the URL's ``profile``,
    ``region`` and ``endpoint`` first, then ``AWS_PROFILE``, ``AWS_REGION`` /
    ``AWS_DEFAULT_REGION``, ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` and the static keys
    of ``environ``, else boto3's own chain (config files, SSO, web identity, instance roles).
    The secret key and session token go into ``redactor``. Built by
    :func:`deploy_engine.aws_clients.make_client`: a configuration botocore refuses (a profile
    that does not exist, an unparsable config file, a bogus ``AWS_DEFAULTS_MODE``...) raises
    :class:`StoreConfigError` naming the setting (exit 3), never a traceback."""
    from botocore.config import Config

    from ..aws_clients import AwsConfigError, make_client

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
    # Where each setting runway passes itself came from, for the message of a refused one.
    sources = {"profile": "the backend URL's profile= parameter" if where.profile else "AWS_PROFILE",
               "region": "the backend URL's region= parameter" if where.region else
               "AWS_REGION" if environ.get("AWS_REGION") else "AWS_DEFAULT_REGION"}
    endpoint = where.endpoint or environ.get("AWS_ENDPOINT_URL_S3") or environ.get("AWS_ENDPOINT_URL") or None
    # Few, bounded retries: a deploy job must not hang on an unreachable store (and each
    # operation has a total deadline besides: S3Store.deadline_s).
    config = Config(retries={"max_attempts": 4, "mode": "standard"}, connect_timeout=10, read_timeout=30)
    try:
        return make_client("s3", environ, profile=profile, region=region, keys=keys, endpoint=endpoint, config=config,
                           sources=sources if region else {"profile": sources["profile"]})
    except AwsConfigError as exc:
        raise StoreConfigError(f"records store s3://{where.bucket}/: {exc}") from None


def store_deadline(environ: Mapping[str, str]) -> float:
    """The total deadline of one S3 store operation (seconds): ``RUNWAY_STORE_TIMEOUT_S``, else
    :data:`STORE_TIMEOUT_S`. Raises :class:`StoreConfigError` for a value that is not a number of
    seconds above 0 (at most a day)."""
    raw = (environ.get(STORE_TIMEOUT_VARIABLE) or "").strip()
    if not raw:
        return STORE_TIMEOUT_S
    parsed = seconds_value(raw)
    value = math.nan if parsed is None else parsed
    if not (0 < value <= 86400):
        raise StoreConfigError(f"{STORE_TIMEOUT_VARIABLE} must be a number of seconds above 0 and at most 86400, "
                               f"not {raw[:20]!r}")
    return value


__all__ = ["S3_RECORDS_FOLDER", "STORE_TIMEOUT_S", "STORE_TIMEOUT_VARIABLE", "S3Location", "S3Store", "client_error",
           "parse_s3_url", "s3_client", "store_deadline"]
