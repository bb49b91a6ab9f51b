"""``runway-deploy state check``: is the state bucket fit to keep the deploy records?

The records store (:mod:`deploy_engine.records`) relies on settings of the bucket itself, which
runway never changes (docs/deploy.md, "The state bucket"). :func:`check_bucket` reads each one
through the S3 API and returns one :class:`Check` per setting, each failing one with the AWS CLI
command and the Pulumi (Python, ``pulumi_aws`` 7) lines that fix it:

- **versioning** ``Enabled`` (``GetBucketVersioning``): an overwritten or deleted object keeps
  its earlier versions; Object Lock needs it.
- **Object Lock** ``Enabled`` (``GetObjectLockConfiguration``): receipts are locked in
  governance mode for 7 years past the environment's end. A *default retention* rule is
  reported as a warning: it would lock drift reports, lease history and Pulumi's own state
  files too, so the lifecycle rules could never remove them.
- **default encryption** (``GetBucketEncryption``): SSE-S3 (``AES256``) or SSE-KMS.
- **public access block**, all four settings on (``GetPublicAccessBlock``).
- **lifecycle rules** (``GetBucketLifecycleConfiguration``) on ``<prefix>/runway/``:
  ``drift/`` expires after :data:`~deploy_engine.records.kinds.DRIFT_RETENTION_DAYS` days (13
  months), ``lease-history/`` after :data:`~deploy_engine.records.kinds.LEASE_HISTORY_DAYS`, each with
  a noncurrent-version expiration (in a versioned bucket an expiration only adds a delete
  marker), and the noncurrent versions of ``leases/`` after 90 days; **no** rule may expire
  objects under ``receipts/`` (a delete marker would hide a locked receipt).

Must not import pulumi; boto3 through the store's client.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .records.kinds import DRIFT_RETENTION_DAYS, LEASE_HISTORY_DAYS
from .records.s3_store import S3Store, client_error
from .records.store import StoreTimeout
from .terminal import printable

SSE_ALGORITHMS = ("AES256", "aws:kms", "aws:kms:dsse")
PUBLIC_ACCESS_BLOCK = ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")
#: Days after which an expired (noncurrent) version of a drift report or lease-history record goes.
NONCURRENT_DAYS = 1


@dataclass(frozen=True)
class Check:
    """One setting: ``name``, whether it is ``ok``, what was found (``detail``), and how to fix
    it (``aws_cli``: shell commands; ``pulumi``: Python lines). ``warning`` marks a finding that
    does not fail the check."""

    name: str
    ok: bool
    detail: str
    aws_cli: Sequence[str] = ()
    pulumi: Sequence[str] = ()
    warning: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "warning": self.warning, "detail": self.detail,
                "fix": {"aws_cli": list(self.aws_cli), "pulumi": list(self.pulumi)} if not self.ok or self.warning else None}


@dataclass(frozen=True)
class LifecycleRule:
    """A lifecycle rule runway needs: ``id``, the prefix it filters on, the current-version
    expiration in days (None: none) and the noncurrent-version expiration in days."""

    id: str
    prefix: str
    expiration_days: int | None
    noncurrent_days: int

    def to_s3(self) -> dict[str, Any]:
        rule: dict[str, Any] = {"ID": self.id, "Filter": {"Prefix": self.prefix}, "Status": "Enabled",
                                "NoncurrentVersionExpiration": {"NoncurrentDays": self.noncurrent_days}}
        if self.expiration_days is not None:
            rule["Expiration"] = {"Days": self.expiration_days}
        return rule

    def to_pulumi(self) -> str:
        parts = [f'"id": "{self.id}"', '"status": "Enabled"', f'"filter": {{"prefix": "{self.prefix}"}}']
        if self.expiration_days is not None:
            parts.append(f'"expiration": {{"days": {self.expiration_days}}}')
        parts.append(f'"noncurrent_version_expiration": {{"noncurrent_days": {self.noncurrent_days}}}')
        return "{" + ", ".join(parts) + "}"


def required_rules(root_prefix: str) -> list[LifecycleRule]:
    """The lifecycle rules of the records under ``root_prefix`` (``<prefix>/runway/``)."""
    return [
        LifecycleRule("runway-drift-13-months", f"{root_prefix}drift/", DRIFT_RETENTION_DAYS, NONCURRENT_DAYS),
        LifecycleRule("runway-lease-history-90-days", f"{root_prefix}lease-history/", LEASE_HISTORY_DAYS, NONCURRENT_DAYS),
        # The lease object itself: each take and release leaves a version; keep them 90 days.
        LifecycleRule("runway-leases-90-days", f"{root_prefix}leases/", None, LEASE_HISTORY_DAYS),
    ]


def lifecycle_document(root_prefix: str) -> dict[str, Any]:
    """The ``--lifecycle-configuration`` JSON of runway's rules (merge it with the bucket's own)."""
    return {"Rules": [r.to_s3() for r in required_rules(root_prefix)]}


def _pulumi_bucket_lines(bucket: str) -> list[str]:
    return [
        "import pulumi_aws as aws",
        f'state = aws.s3.Bucket("state", bucket="{bucket}", object_lock_enabled=True)',
    ]


def _fixes(bucket: str, root_prefix: str) -> dict[str, tuple[list[str], list[str]]]:
    rules = ", ".join(r.to_pulumi() for r in required_rules(root_prefix))
    lifecycle = json.dumps(lifecycle_document(root_prefix), separators=(",", ":"))
    return {
        "versioning": (
            [f"aws s3api put-bucket-versioning --bucket {bucket} --versioning-configuration Status=Enabled"],
            _pulumi_bucket_lines(bucket) + ['aws.s3.BucketVersioning("state", bucket=state.id, versioning_configuration={"status": "Enabled"})'],
        ),
        "object lock": (
            [f"aws s3api put-bucket-versioning --bucket {bucket} --versioning-configuration Status=Enabled",
             f"aws s3api put-object-lock-configuration --bucket {bucket} --object-lock-configuration ObjectLockEnabled=Enabled",
             f"# or a new bucket: aws s3api create-bucket --bucket {bucket} --object-lock-enabled-for-bucket"],
            _pulumi_bucket_lines(bucket) + ["# object_lock_enabled=True on a new bucket; on an existing one:",
                                            'aws.s3.BucketObjectLockConfiguration("state", bucket=state.id, object_lock_enabled="Enabled")'],
        ),
        "default encryption": (
            [f"aws s3api put-bucket-encryption --bucket {bucket} --server-side-encryption-configuration "
             "'{\"Rules\":[{\"ApplyServerSideEncryptionByDefault\":{\"SSEAlgorithm\":\"aws:kms\"},\"BucketKeyEnabled\":true}]}'"],
            _pulumi_bucket_lines(bucket) + ['aws.s3.BucketServerSideEncryptionConfiguration("state", bucket=state.id, rules=[{'
                                            '"apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms"}, "bucket_key_enabled": True}])'],
        ),
        "public access block": (
            [f"aws s3api put-public-access-block --bucket {bucket} --public-access-block-configuration "
             "BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true"],
            _pulumi_bucket_lines(bucket) + ['aws.s3.BucketPublicAccessBlock("state", bucket=state.id, block_public_acls=True, '
                                            "ignore_public_acls=True, block_public_policy=True, restrict_public_buckets=True)"],
        ),
        "lifecycle rules": (
            [f"aws s3api get-bucket-lifecycle-configuration --bucket {bucket}   # keep the rules it shows: put replaces them all",
             f"aws s3api put-bucket-lifecycle-configuration --bucket {bucket} --lifecycle-configuration '{lifecycle}'"],
            _pulumi_bucket_lines(bucket) + [f'aws.s3.BucketLifecycleConfiguration("state", bucket=state.id, rules=[{rules}])'],
        ),
    }


def _rule_prefix(rule: Mapping[str, Any]) -> str | None:
    """The prefix a lifecycle rule applies to ('' for the whole bucket), or None when it also
    filters on tags or sizes (it never covers every object under a prefix)."""
    if "Prefix" in rule and "Filter" not in rule:
        return str(rule.get("Prefix") or "")
    f = rule.get("Filter") or {}
    if set(f) - {"Prefix"}:
        return None
    return str(f.get("Prefix") or "")


def _lifecycle(rules: Sequence[Mapping[str, Any]], root_prefix: str) -> tuple[bool, str]:
    enabled = [r for r in rules if r.get("Status") == "Enabled"]
    problems: list[str] = []
    for need in required_rules(root_prefix):
        match = [r for r in enabled if _rule_prefix(r) == need.prefix]
        if not match:
            problems.append(f"no enabled rule for {need.prefix}")
            continue
        r = match[0]
        days = (r.get("Expiration") or {}).get("Days")
        if need.expiration_days is not None and days != need.expiration_days:
            problems.append(f"{need.prefix} expires after {days if days is not None else 'never'} days, not {need.expiration_days}")
        noncurrent = (r.get("NoncurrentVersionExpiration") or {}).get("NoncurrentDays")
        if noncurrent is None:
            problems.append(f"{need.prefix} keeps noncurrent versions forever (no NoncurrentVersionExpiration)")
        elif need.expiration_days is None and noncurrent != need.noncurrent_days:
            problems.append(f"{need.prefix} noncurrent versions expire after {noncurrent} days, not {need.noncurrent_days}")
    receipts = f"{root_prefix}receipts/"
    for r in enabled:
        prefix = _rule_prefix(r)
        if prefix is not None and receipts.startswith(prefix) and (r.get("Expiration") or {}).get("Days") is not None:
            problems.append(f"rule {r.get('ID') or '(no id)'} on {prefix or 'the whole bucket'} would expire receipts under {receipts}")
    if problems:
        return False, "; ".join(problems)
    return True, f"drift {DRIFT_RETENTION_DAYS} days, lease history {LEASE_HISTORY_DAYS} days, lease versions {LEASE_HISTORY_DAYS} days"


@dataclass
class BucketReport:
    """The result of :func:`check_bucket`: the bucket, where the records are, and the checks."""

    bucket: str
    records: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


def check_bucket(store: S3Store) -> BucketReport:
    """Read the bucket's settings through ``store.client``; one :class:`Check` per setting (module
    docstring). A setting that cannot be read (``AccessDenied``...) is a failed check naming the
    error. Never writes anything. Raises :class:`~deploy_engine.records.store.StoreTimeout` when
    a request does not finish within the store's deadline."""
    s3, bucket, root = store.client, store.bucket, store.root_prefix
    fixes = _fixes(bucket, root)
    report = BucketReport(bucket, f"s3://{bucket}/{root}")

    def get(call: Any, missing: Sequence[str]) -> tuple[Any, str | None]:
        try:
            # Within the store's total deadline (StoreTimeout propagates: the bucket is not answering).
            return store.within("read the settings of", None, lambda: call(Bucket=bucket)), None
        except StoreTimeout:
            raise
        except Exception as exc:  # noqa: BLE001 - ClientError and connection errors
            code, status, message = client_error(exc)
            if code in missing:
                return None, None
            return None, f"cannot be read: {code} ({status}): {message}" if code else f"cannot be read: {type(exc).__name__}: {exc}"

    def add(name: str, ok: bool, detail: str, *, warning: bool = False) -> None:
        cli, pulumi = fixes.get(name, ((), ()))
        report.checks.append(Check(name, ok, detail, cli if not ok or warning else (), pulumi if not ok or warning else (), warning))

    versioning, error = get(s3.get_bucket_versioning, ())
    if error and "NoSuchBucket" in error:
        report.checks.append(Check("bucket", False, f"{bucket} does not exist",
                                  [f"aws s3api create-bucket --bucket {bucket} --object-lock-enabled-for-bucket"],
                                  _pulumi_bucket_lines(bucket)))
        return report
    status = (versioning or {}).get("Status")
    add("versioning", error is None and status == "Enabled", error or f"versioning is {status or 'off (never enabled)'}")

    lock, error = get(s3.get_object_lock_configuration, ("ObjectLockConfigurationNotFoundError",))
    config = (lock or {}).get("ObjectLockConfiguration") or {}
    enabled = config.get("ObjectLockEnabled") == "Enabled"
    add("object lock", error is None and enabled,
        error or ("Object Lock is enabled" if enabled else "Object Lock is not enabled: receipts cannot be locked for 7 years"))
    default = (config.get("Rule") or {}).get("DefaultRetention")
    if enabled and default:
        report.checks.append(Check(
            "object lock default retention", True,
            f"a default retention ({default}) locks every new object, drift reports, lease history and Pulumi's own files "
            "too: the lifecycle rules cannot remove them; runway locks each receipt itself",
            [f"aws s3api put-object-lock-configuration --bucket {bucket} --object-lock-configuration ObjectLockEnabled=Enabled"],
            [], warning=True))

    enc, error = get(s3.get_bucket_encryption, ("ServerSideEncryptionConfigurationNotFoundError",))
    algos = [((r.get("ApplyServerSideEncryptionByDefault") or {}).get("SSEAlgorithm"))
             for r in ((enc or {}).get("ServerSideEncryptionConfiguration") or {}).get("Rules", [])]
    good = [a for a in algos if a in SSE_ALGORITHMS]
    add("default encryption", error is None and bool(good), error or (f"default encryption {good[0]}" if good else "no default encryption"))

    pab, error = get(s3.get_public_access_block, ("NoSuchPublicAccessBlockConfiguration",))
    settings = (pab or {}).get("PublicAccessBlockConfiguration") or {}
    off = [k for k in PUBLIC_ACCESS_BLOCK if not settings.get(k)]
    add("public access block", error is None and not off,
        error or ("all four settings on" if not off else f"off: {', '.join(off)}"))

    life, error = get(s3.get_bucket_lifecycle_configuration, ("NoSuchLifecycleConfiguration",))
    if error:
        add("lifecycle rules", False, error)
    else:
        ok, detail = _lifecycle((life or {}).get("Rules", []), root)
        add("lifecycle rules", ok, detail)
    return report


def report_text(report: BucketReport) -> str:
    """One line per check (``ok``, ``MISSING``, ``warning``), each failing one followed by its
    fixes; each line :func:`deploy_engine.terminal.printable`."""
    lines = [f"state bucket {report.bucket}, records under {report.records}"]
    for c in report.checks:
        mark = "warning" if c.warning else ("ok" if c.ok else "MISSING")
        lines.append(f"  {mark:<8} {c.name}: {c.detail}")
        if not c.ok or c.warning:
            lines += [f"             fix (AWS CLI): {cmd}" for cmd in c.aws_cli]
            if c.pulumi:
                lines.append("             fix (Pulumi, Python):")
                lines += [f"               {ln}" for ln in c.pulumi]
    missing = [c.name for c in report.checks if not c.ok]
    lines.append("the bucket keeps the records as docs/deploy.md requires" if not missing else f"missing: {', '.join(missing)}")
    # A rule's ID and prefix are the bucket owner's text, an error quotes the CI's endpoint:
    # control characters as escapes, so neither drives the terminal (issue 23).
    return "\n".join(printable(line) for line in lines) + "\n"


__all__ = ["BucketReport", "Check", "LifecycleRule", "check_bucket", "lifecycle_document", "report_text", "required_rules"]
