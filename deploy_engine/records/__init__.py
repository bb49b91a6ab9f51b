"""Where deploy records live: one store, chosen with the state backend (docs/deploy.md, "Records").

Receipts, reviewed plans, drift reports, leases and lease history outlive the CI runner only
if they are kept where the Pulumi state is. :func:`open_store` picks the store from the backend
URL (``--backend``, else ``PULUMI_BACKEND_URL``):

- ``file://`` or none (the embedded default): :class:`~deploy_engine.records.file_store.FileStore`,
  ``<product repo>/.runway/`` as before (``.runway/receipts/<env>/``,
  ``.runway/leases/<product>-<env>.json``...).
- ``s3://bucket[/prefix]``: :class:`~deploy_engine.records.s3_store.S3Store`,
  ``s3://bucket/<prefix>/runway/`` in the state bucket, beside Pulumi's own
  ``<prefix>/.pulumi/``, through boto3 with the standard AWS configuration (profiles,
  ``AWS_REGION``, ``AWS_ENDPOINT_URL``, the credential chain); the URL's ``region``, ``profile``
  and ``endpoint`` query parameters (as Pulumi's S3 backend reads them) win over the environment.

Every store offers the same five primitives (:class:`~deploy_engine.records.store.RecordStore`),
and every record kind is built on them:

- ``create``: write a new key, **refused** (``RecordExists``) when it exists. S3: ``PutObject``
  with ``If-None-Match: *``; with ``retain_until`` also ``ObjectLockMode=GOVERNANCE`` and
  ``ObjectLockRetainUntilDate`` when the bucket has Object Lock. Files: a private temporary
  file, fsync, ``os.link`` (which never replaces a name).
- ``replace`` / ``delete``: compare-and-swap on the ETag read before (``RecordChanged`` when the
  key changed or is gone). S3: ``PutObject`` / ``DeleteObject`` with ``If-Match: <ETag>``.
  Files: the ETag is the sha256 of the content; the swap first claims
  ``<name>.takeover-<ETag>`` with an exclusive ``os.link`` (one claimant per ETag), re-reads,
  then ``os.replace`` / ``os.unlink``. A claim left by a process that died in the window names
  itself in the error.
- ``read``, ``list``; ``retain`` extends the Object Lock retention of an existing object (S3
  ``PutObjectRetention``; files: nothing to do).

Keys are relative to the store's root (``.runway/`` or ``<prefix>/runway/``), built by
``RecordStore.key``: ``receipts/``, ``plans/``, ``drift/``, ``lease-history/``, ``ends/`` hold
``<env>/<name>`` in the file store (one product per repository) and ``<product>/<env>/<name>``
in S3 (products may share a prefix); ``leases/<product>-<env>.json`` in both. Retention by kind
(:mod:`deploy_engine.records.kinds`; docs/adr/runtime-cloud-deployment.md, "Data and
recovery"; docs/deploy.md "Records"): receipts for the environment's lifetime plus 7 years,
drift reports 13 months, lease history 90 days; in S3 by Object Lock and lifecycle rules
(``runway-deploy state check``), in the file store by pruning when a record of that kind is
written.

The parts: :mod:`~deploy_engine.records.store` (the interface, its errors, the key layout),
:mod:`~deploy_engine.records.file_store` (``.runway/``), :mod:`~deploy_engine.records.s3_store`
(the state bucket, boto3), :mod:`~deploy_engine.records.export` (a shared store's keys checked
against their prefix, and ``receipts export`` writing strictly inside its folder, never through a
symlink), :mod:`~deploy_engine.records.kinds` (record names by time, retention,
and :func:`~deploy_engine.records.kinds.write_json`, the one way a JSON record is written:
scrubbed by the run's :class:`~deploy_engine.secrets.Redactor` and, for what an author wrote, by
:func:`runway_core.text.redact`, refused when a known value survives); here, choosing the store.

Must not import pulumi; boto3 is imported only by the S3 store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..secrets import Redactor
from .file_store import FileStore
from .s3_store import S3Store, parse_s3_url, s3_client, store_deadline
from .store import RecordStore

def backend_url(arg: str | None, environ: Mapping[str, str]) -> str:
    """The backend URL the records follow: ``--backend``, else ``PULUMI_BACKEND_URL``, else ''."""
    return (arg or environ.get("PULUMI_BACKEND_URL") or "").strip()


def open_store(url: str, root: Path | str, environ: Mapping[str, str], redactor: Redactor | None = None) -> RecordStore:
    """The records store of backend ``url`` for the product repository ``root``: :class:`S3Store`
    for ``s3://``, else :class:`FileStore` (``file://``, none, or a scheme the backend check
    refuses: its receipt stays in ``.runway/``). Builds no connection. Raises ValueError for an
    ``s3://`` URL without a bucket; :class:`~deploy_engine.records.store.StoreConfigError` for an
    AWS configuration botocore refuses or a bad ``RUNWAY_STORE_TIMEOUT_S`` (each operation's
    total deadline)."""
    if url.lower().startswith("s3://"):
        where = parse_s3_url(url)
        deadline = store_deadline(environ)
        return S3Store(where.bucket, where.prefix, s3_client(where, environ, redactor), deadline)
    return FileStore(root)


__all__ = ["backend_url", "open_store"]
