"""The records store interface (:class:`RecordStore`), its errors and the layout of its keys
(:mod:`deploy_engine.records`). Two stores implement it:
:class:`~deploy_engine.records.file_store.FileStore` and
:class:`~deploy_engine.records.s3_store.S3Store`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from runway_core.workspace import MAX_JSON_BYTES, loads_json

#: Record kinds whose keys are per product and environment (see :meth:`RecordStore.key`).
KINDS = ("receipts", "plans", "drift", "lease-history", "ends")


class StoreError(Exception):
    """The store could not be read or written (unreachable, access denied, bucket missing).
    The message names the bucket and key or the path, never a credential."""


class StoreConfigError(StoreError):
    """The store cannot be opened: its configuration is unusable (an AWS configuration botocore
    refuses, :func:`deploy_engine.aws_clients.make_client`; a bad ``RUNWAY_STORE_TIMEOUT_S``).
    The message names the setting; a configuration problem (exit 3)."""


class StoreTimeout(StoreError):
    """A store operation did not finish within its total deadline
    (:data:`deploy_engine.records.s3_store.STORE_TIMEOUT_S`): the store is not answering, so a
    reader stops rather than wait as long again for every record."""


class RecordTooLarge(StoreError):
    """:meth:`RecordStore.read` refused a record over the size asked for (``limit``): nothing past
    the bound is downloaded or read (a bucket someone else can write may hold a 60 MB object)."""


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
        """The record as JSON, through the one bounded reader (:func:`runway_core.workspace.loads_json`:
        no NaN/Infinity, nesting bounded). Raises ValueError (``JsonDocumentError``) when it is none."""
        return loads_json(self.data)


_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _segment(value: str, what: str) -> str:
    """A product, environment or record name as one key segment: no ``/``, no ``..``."""
    if not _SAFE.fullmatch(value) or ".." in value:
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
    def read(self, key: str, *, limit: int = MAX_JSON_BYTES) -> Record | None:
        """The record at ``key``, or None. At most ``limit`` bytes (default
        :data:`runway_core.workspace.MAX_JSON_BYTES`): a larger one raises :class:`RecordTooLarge`
        having read no more than ``limit + 1`` bytes of it."""

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


__all__ = ["KINDS", "Record", "RecordChanged", "RecordExists", "RecordStore", "RecordTooLarge", "StoreConfigError", "StoreError",
           "StoreTimeout"]
