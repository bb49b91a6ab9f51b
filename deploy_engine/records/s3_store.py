"""The S3 store of the records: ``s3://<bucket>/<prefix>/runway/`` in the state bucket of an
``s3://`` backend (:mod:`deploy_engine.records`), through boto3: conditional writes
(``If-None-Match`` / ``If-Match``), Object Lock retention, and the client configured as the AWS
SDKs are. boto3 is imported only by :func:`s3_client`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping
from urllib.parse import parse_qs

from runway_core.workspace import MAX_JSON_BYTES

from ..secrets import Redactor
from .store import Record, RecordChanged, RecordExists, RecordStore, RecordTooLarge, StoreError

#: The folder of the records under an S3 backend's prefix, beside Pulumi's ``.pulumi/``.
S3_RECORDS_FOLDER = "runway"


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
        code, status, message = client_error(exc)
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
            code, _, message = client_error(exc)
            if code in ("PreconditionFailed", "ConditionalRequestConflict"):
                # 412: the key exists; 409: a concurrent write to it won.
                raise RecordExists(f"{self.location(key)} exists; records are never overwritten") from None
            if lock and code == "InvalidRequest" and "lock" in (message or "").lower():
                self._lock = False
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return self.create(key, data)
            raise self._fail(exc, key, "write") from None

    def read(self, key: str, *, limit: int = MAX_JSON_BYTES) -> Record | None:
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
        return Record(key, data, str(got["ETag"]))

    def replace(self, key: str, data: bytes, etag: str) -> str:
        try:
            return str(self.client.put_object(Bucket=self.bucket, Key=self.object_key(key), Body=data, IfMatch=etag,
                                              ContentType="application/json")["ETag"])
        except Exception as exc:  # noqa: BLE001
            code = client_error(exc)[0]
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"):
                raise RecordChanged(f"{self.location(key)} changed since it was read (or is gone)") from None
            raise self._fail(exc, key, "write") from None

    def delete(self, key: str, etag: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key), IfMatch=etag)
        except Exception as exc:  # noqa: BLE001
            code = client_error(exc)[0]
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
            code, _, message = client_error(exc)
            if code == "InvalidRequest" and "lock" in (message or "").lower():
                self.unlocked_reason = f"bucket {self.bucket} has no Object Lock: {_one_line(message or '')}"
                return None
            raise self._fail(exc, key, "retention of") from None
        return until


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


def parse_s3_url(url: str) -> S3Location:
    """``s3://bucket[/prefix][?region=..&profile=..&endpoint=..]`` -> :class:`S3Location`.
    Raises ValueError for a URL without a bucket, or with an ``@`` after it (a pasted
    credential holding ``/``, ``?`` or ``#``; the message quotes nothing of the URL)."""
    rest = url.strip()[len("s3://"):]
    authority_end = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    if "@" in rest[authority_end:]:
        # An '@' after the bucket: a credential pasted with a '/', '?' or '#' in it (an AWS
        # secret key holds '/'), which a parse would read as the bucket. S3 takes no user info:
        # refused, quoting nothing of the URL.
        raise ValueError("an s3:// backend URL holds no credentials (an '@' after its bucket was found): use "
                         "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the URL's profile= parameter")
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


__all__ = ["S3_RECORDS_FOLDER", "S3Location", "S3Store", "client_error", "parse_s3_url", "s3_client"]
