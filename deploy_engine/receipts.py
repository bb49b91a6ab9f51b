"""Receipts: what every ``up`` and ``destroy`` did (docs/deploy.md, "Receipts").

Every ``runway-deploy up`` that reads a valid runway writes one JSON receipt to the records
store of its backend (:mod:`deploy_engine.records`): ``<product repo>/.runway/receipts/<env>/``
with the embedded ``file://`` backend, ``s3://<bucket>/<prefix>/runway/receipts/<product>/<env>/``
with ``s3://`` (locked 7 years in governance mode), named by its UTC start time
(e.g. ``20261130T091502.123456Z.json``), whatever the outcome: ``succeeded``, ``failed`` (Pulumi, Infisical, configuration, a missing
Pulumi CLI or a bug), ``refused`` (over the cap, not the protected deploy job, lease held) or
``cancelled`` (Ctrl-C, or SIGTERM as CI sends on cancel or timeout).
It holds the plan digest (:func:`runway_core.planner.plan_digest`), the git commit, the CI run,
the actor, the outcome, the resource URNs from the ``up`` event stream, the estimate (total,
cap, verdict), the lease (with any takeover), what happened to each database credential
(``unchanged``, ``generated``, ``rotated``) and the start and finish times.

A receipt never holds a secret: the whole document goes through the run's
:class:`~deploy_engine.secrets.Redactor` before it is written, and writing refuses a document
in which a known value survives. Written by a conditional create (S3 ``If-None-Match: *``;
files: temporary file, fsync, ``os.link``): an existing receipt is never overwritten; a name
taken by a receipt of the same microsecond gets ``-1``, ``-2``... Creating ``.runway/`` writes
its ``.gitignore`` (:func:`deploy_engine.workdir.runway_folder`).
Must not import pulumi.
"""

from __future__ import annotations

import getpass
import math
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import unquote

from runway_core.gitcmd import blocking_file, git_argv, git_env
from runway_core.money import usd
from runway_core.planner import VERDICTS, EnvironmentPlan, plan_digest
from runway_core.workspace import JsonDocumentError, loads_json

from .leases import Lease
from .records.export import key_problem
from .records.file_store import FileStore
from .records.kinds import Written, receipt_retain_until, record_order, timed_name_problem, write_unique
from .records.store import Record, RecordStore, RecordTooLarge, StoreError, StoreTimeout
from .secrets import Redactor

RECEIPT_FORMAT_VERSION = 1
OUTCOMES = ("succeeded", "failed", "refused", "cancelled")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def git_commit(root: Path | str, run: Runner = subprocess.run) -> str | None:
    """``git rev-parse HEAD`` in ``root``; None when it is not a git work tree, git is missing, or
    the repository holds a file git would wait on (:func:`runway_core.gitcmd.blocking_file`)."""
    try:
        # runway_core.gitcmd: no program of the product repository runs (core.fsmonitor, a lazy
        # fetch's transport), no prompt; a repository holding a FIFO git would wait on is not read.
        if blocking_file(str(root)) is not None:
            return None
        proc = run(git_argv("-C", str(root), "rev-parse", "--verify", "HEAD"), capture_output=True, text=True, timeout=30, check=False,
                   env=git_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = proc.stdout.strip() if proc.returncode == 0 else ""
    return sha if len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha) else None


def ci_run(environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The CI job that ran the deploy, from the provider's own variables; None outside CI.

    GitHub Actions: ``GITHUB_RUN_ID``, ``GITHUB_RUN_ATTEMPT``, ``GITHUB_WORKFLOW``,
    ``GITHUB_JOB``, ``GITHUB_REPOSITORY``, ``GITHUB_SERVER_URL`` (run URL). GitLab CI:
    ``CI_JOB_ID``, ``CI_PIPELINE_ID``, ``CI_JOB_URL``, ``CI_PROJECT_PATH``.
    """
    if environ.get("GITHUB_RUN_ID"):
        run_id = environ["GITHUB_RUN_ID"]
        url = None
        if environ.get("GITHUB_SERVER_URL") and environ.get("GITHUB_REPOSITORY"):
            url = f"{environ['GITHUB_SERVER_URL']}/{environ['GITHUB_REPOSITORY']}/actions/runs/{run_id}"
            if environ.get("GITHUB_RUN_ATTEMPT"):
                url += f"/attempts/{environ['GITHUB_RUN_ATTEMPT']}"
        return {
            "provider": "github-actions",
            "run_id": run_id,
            "run_attempt": environ.get("GITHUB_RUN_ATTEMPT"),
            "workflow": environ.get("GITHUB_WORKFLOW"),
            "job": environ.get("GITHUB_JOB"),
            "repository": environ.get("GITHUB_REPOSITORY"),
            "url": url,
        }
    if environ.get("CI_JOB_ID"):
        return {
            "provider": "gitlab-ci",
            "run_id": environ.get("CI_PIPELINE_ID"),
            "job_id": environ["CI_JOB_ID"],
            "repository": environ.get("CI_PROJECT_PATH"),
            "url": environ.get("CI_JOB_URL"),
        }
    return None


def actor(environ: Mapping[str, str], user: Callable[[], str] = getpass.getuser) -> str:
    """Who deployed: ``GITHUB_ACTOR``, ``GITLAB_USER_LOGIN``, else the local user name."""
    for name in ("GITHUB_ACTOR", "GITLAB_USER_LOGIN"):
        if environ.get(name):
            return environ[name]
    try:
        return user()
    except Exception:  # noqa: BLE001 - getpass raises OSError/KeyError without a user entry
        return "unknown"


_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?:(?P<userinfo>[^/?#]*)@)?(?P<rest>[^?#]*)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _pasted_userinfo(url: str) -> str | None:
    """What a person may have pasted as the user info of ``url``: everything between ``://``
    and the **last** ``@``, when that is more than RFC 3986 §3.2.1 reads as user info (which
    ends at the first ``/``, ``?`` or ``#``). An AWS secret key holds ``/`` and ``+``
    (``wJalrXUtnFEMI/K7MDENG/...``): pasted raw, a strict parse would show its first part as
    the host. None when the URL has no ``@`` or the strict reading covers it."""
    scheme = _SCHEME.match(url)
    if scheme is None or "@" not in url[scheme.end():]:
        return None
    candidate = url[scheme.end():].rpartition("@")[0]
    m = _URL.match(url)
    strict = m.group("userinfo") if m is not None else None
    return None if candidate == strict else candidate


def _colon_userinfo(m: re.Match[str]) -> bool:
    """Whether the host part of URL match ``m`` is user info pasted without its ``@``: any
    ``host:x`` of an ``s3://`` URL (a bucket never holds ``:`` nor a port), and ``host:x`` of
    another scheme where ``x`` is no port (RFC 3986 §3.2.3: a port is digits only), as in
    ``gs://deployer:PASSWORD/state`` or ``azblob://AKIA…:SECRET/p`` (issue 23, third adversary)."""
    if m.group("userinfo") is not None:
        return False
    # Percent-decoded first: `gs://KEY%3ASECRET/p` is the same pasted pair (a host never holds
    # an escaped ':'), and was quoted whole (the fourth and fifth adversaries' notes).
    host = unquote(m.group("rest").partition("/")[0])
    if ":" not in host:
        return False
    if m.group("scheme").lower() == "s3://":
        return True
    port = host.rpartition(":")[2]
    # A port is at most 65535 (RFC 793's 16 bits): `gs://deployer:99999999/state` is a password.
    return bool(port) and (not port.isascii() or not port.isdigit() or int(port) > 65535)


def public_backend_url(url: str) -> str:
    """The backend URL as it may be shown: user info replaced by ``***``, query and fragment
    dropped (``https://user:pw@host/x?token=y`` -> ``https://***@host/x``). A password holding
    ``/``, ``?`` or ``#`` pasted raw (:func:`_pasted_userinfo`) is hidden as a whole: the URL is
    shown from its last ``@``. Every message, receipt and JSON document shows a backend this
    way; user info without ``@`` (``s3://KEY:SECRET/p``, ``gs://user:PW/p``: :func:`_colon_userinfo`)
    is shown as ``s3://***``, path and all; never raises."""
    pasted = _pasted_userinfo(url)
    if pasted is not None:
        scheme = _SCHEME.match(url)
        assert scheme is not None
        url = scheme.group(0) + "***@" + url[scheme.end() + len(pasted) + 1:]
    m = _URL.match(url)
    if m is None:
        shown = url.split("?", 1)[0].split("#", 1)[0].rpartition("@")[2]
        # No `scheme://` (`gs:deployer:PW/x`, `s3:/u:PW/x`: a credentialled URL mistyped): a
        # `:` past the first may start a password, so nothing after the first is shown.
        # No `scheme://` at all (`s3:PW`, a bare `PW`): nothing past a first `:` is shown, and a
        # value with no `:` is shown as `***` (fifth adversary: `gs:PW` and `PW` were quoted).
        head, colon, _tail = shown.partition(":")
        return head + ":***" if colon else "***"
    rest = m.group("rest")
    host, slash, path = rest.partition("/")
    if _colon_userinfo(m):
        # s3://KEY:SECRET/p, gs://user:PW/p: user info without its '@' (_colon_userinfo). The
        # path goes too: an AWS secret key holds '/' (azblob://AKIA…:wJal/K7MD/bPx/p), and such
        # a URL is refused whatever its path.
        return m.group("scheme") + "***"
    return m.group("scheme") + ("***@" if m.group("userinfo") is not None else "") + rest


#: Query parameters whose value is a credential: OAuth's ``access_token`` (RFC 6750 §2.3), a
#: SigV4 presigned URL's ``X-Amz-Security-Token``/``X-Amz-Signature``/``X-Amz-Credential``
#: (Amazon S3 API Reference, "Authenticating Requests: Using Query Parameters"), an Azure SAS
#: ``sig``, and any ``*token``, ``*secret``, ``*key``, ``password`` (the same family as
#: :data:`runway_core.text.SECRET_NAME`).
_QUERY_TOKEN_NAME = re.compile(r"(?:token|secret|api_?key|apikey|password|passwd|pwd|^sig|signature|credential|^key|^auth)$", re.IGNORECASE)

#: ``AWS_ENDPOINT_URL`` and ``AWS_ENDPOINT_URL_<SERVICE>``: the endpoints botocore reads from the
#: environment (AWS SDKs and Tools Reference Guide, "Service-specific endpoints").
_ENDPOINT_VARIABLE = re.compile(r"^AWS_ENDPOINT_URL(?:_[A-Z0-9_]+)?$")


def endpoint_secrets(environ: Mapping[str, str]) -> list[str]:
    """:func:`url_secrets` of every ``AWS_ENDPOINT_URL``/``AWS_ENDPOINT_URL_<SERVICE>`` value of
    ``environ``: a CI someone else configures may put a proxy's ``http://KEY:SECRET@host`` or a
    ``?token=`` there, and botocore quotes the endpoint in its errors ("Could not connect to
    the endpoint URL", ``EndpointResolutionError``)."""
    out: list[str] = []
    for name, value in environ.items():
        # `.match` on purpose: it finds more variables to redact (a name ending in a line
        # break too), the safe side for a redaction; a validation uses `.fullmatch`.
        if _ENDPOINT_VARIABLE.match(name) and value:
            out += url_secrets(value)
    return list(dict.fromkeys(out))


def url_secrets(url: str) -> list[str]:
    """The parts of ``url`` a redactor must know: its user info (and the password in it, and
    each piece of a pasted one between ``/``, ``?``, ``#`` and ``:``) and its query string,
    e.g. for Pulumi lines, botocore or urllib errors that quote a piece of the URL."""
    out: list[str] = []
    m = _URL.match(url)
    pasted = _pasted_userinfo(url)
    for userinfo in (m.group("userinfo") if m is not None else None, pasted):
        if userinfo:
            out.append(userinfo)
            if ":" in userinfo:
                out.append(userinfo.split(":", 1)[1])
    if pasted:
        out += [piece for piece in re.split(r"[/?#:]", pasted) if piece != pasted]
    query = url.split("?", 1)[1].split("#", 1)[0] if "?" in url else ""
    if query:
        out.append(query)
        # A token parameter's value alone (`?token=T`, `X-Amz-Security-Token=T`, `sig=T`): a
        # message may quote it without its neighbours (issue 23).
        for name, _eq, value in (part.partition("=") for part in re.split(r"[&;]", query)):
            if value and _QUERY_TOKEN_NAME.search(name):
                out += [value, unquote(value)]
    if "#" in url:  # a fragment is never sent anywhere, so never needed in a message
        out.append(url.split("#", 1)[1])
    if m is None:
        # No `scheme://` (public_backend_url shows nothing past the first `:`, or `***`): every
        # piece after a first `:`, or the whole value.
        tail = url.split(":", 1)[1] if ":" in url else url
        out += [tail] + [piece for piece in re.split(r"[/?#:@]", tail) if piece]
    if m is not None and _colon_userinfo(m):
        rest = m.group("rest")
        host = rest.partition("/")[0]
        decoded = unquote(host)  # `KEY%3ASECRET` too (_colon_userinfo): each form of the secret
        out += [rest, host, decoded, decoded.split(":", 1)[1]] + [piece for piece in rest.split("/")[1:] if piece]
        if decoded != host:
            out += [piece for piece in re.split(r"%3a", host, flags=re.IGNORECASE)[1:] if piece]
    return list(dict.fromkeys(v for v in out if v))


def estimate_json(plan: EnvironmentPlan) -> dict[str, Any]:
    """``{"total_monthly_usd", "cap_monthly_usd", "verdict", "text"}`` (USD per month)."""
    return {
        "total_monthly_usd": float(plan.total),
        "cap_monthly_usd": None if plan.cap is None else float(plan.cap),
        "verdict": plan.verdict,
        "text": f"{usd(plan.total)} / {usd(plan.cap) if plan.cap is not None else 'no cap'}",
    }


def lease_json(lease: Lease | None, status: str) -> dict[str, Any]:
    """The lease part of a receipt; ``status`` is ``held``, ``held-by-another`` or ``not-taken``
    (``lost`` is set by the pipeline when the lease is taken over during ``up``)."""
    doc: dict[str, Any] = {"status": status}
    if lease is not None:
        doc.update(
            holder=lease.holder,
            pid=lease.pid,
            host=lease.host,
            taken_at=_iso(lease.taken_at),
            expires_at=_iso(lease.expires_at),
            takeover=lease.takeover,
        )
    return doc


@dataclass
class Receipt:
    """One ``up``: fill it in as the run goes, then :func:`write_receipt`."""

    product: str
    environment: str
    region: str
    stack: str
    plan: EnvironmentPlan
    started_at: datetime
    backend: str | None = None
    outcome: str = "failed"
    exit_code: int | None = None
    reason: str | None = None
    finished_at: datetime | None = None
    git_commit: str | None = None
    ci: dict[str, Any] | None = None
    actor: str | None = None
    resources: Sequence[str] = ()
    changes: Mapping[str, int] = field(default_factory=dict)
    lease: dict[str, Any] = field(default_factory=lambda: {"status": "not-taken"})
    secrets_written: Sequence[str] = ()
    #: Resource name -> ``stored`` / ``generated`` / ``rotated`` (where its credential came from; never a value).
    credentials: Mapping[str, str] = field(default_factory=dict)
    #: The ``--plan-digest`` the run was given (the plan reviewed), or None.
    reviewed_plan_digest: str | None = None
    #: ``up`` or ``destroy``.
    command: str = "up"
    #: Command-specific fields (``destroy``: ``ended_at``, ``retain_until``, ``protected``...).
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")
        return {
            "format_version": RECEIPT_FORMAT_VERSION,
            "command": self.command,
            "product": self.product,
            "environment": self.environment,
            "region": self.region,
            "stack": self.stack,
            "backend": public_backend_url(self.backend) if self.backend else None,
            "outcome": self.outcome,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "plan_digest": plan_digest(self.plan, self.product, self.region),
            "reviewed_plan_digest": self.reviewed_plan_digest,
            "estimate": estimate_json(self.plan),
            "git_commit": self.git_commit,
            "ci": self.ci,
            "actor": self.actor,
            "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at) if self.finished_at else None,
            "resources": sorted(set(self.resources)),
            "changes": dict(self.changes),
            "lease": self.lease,
            # Names only (``MAIN_DB_PASSWORD``), written to Infisical; never a value.
            "secrets_written": list(self.secrets_written),
            "credentials": dict(self.credentials),
            **dict(self.extra),
        }


#: Largest receipt read (one is ~2-20 KB; its resources list grows with the product): past it the
#: object is listed as unreadable, never downloaded further (docs/deploy.md, "Records").
MAX_RECEIPT_BYTES = 1024 * 1024
#: Deepest nesting read in a receipt (one nests 3 deep: ``lease`` / ``ci`` / ``extra``).
MAX_RECEIPT_DEPTH = 16

#: Smallest amount (USD, ``*_usd`` fields) a receipt is refused for: a float holds whole
#: cents exactly only below 2**53 / 100 (~9.0e13 USD), and no monthly cost is near it (a cap is
#: at most 1e9, docs/format.md).
MAX_RECEIPT_USD = 1e15

# The fields a receipt's readers use, and the JSON types each may have (None: null allowed).
_RECEIPT_FIELDS: dict[str, tuple[type, ...]] = {
    "command": (str,), "product": (str,), "environment": (str,), "region": (str,), "stack": (str,),
    "backend": (str, type(None)), "outcome": (str,), "exit_code": (int, type(None)), "reason": (str, type(None)),
    "plan_digest": (str, type(None)), "reviewed_plan_digest": (str, type(None)), "estimate": (dict, type(None)),
    "git_commit": (str, type(None)), "ci": (dict, type(None)), "actor": (str, type(None)), "started_at": (str,),
    "finished_at": (str, type(None)), "resources": (list,), "changes": (dict,), "lease": (dict,),
    "secrets_written": (list,), "credentials": (dict,),
}
#: Fields every receipt holds (``to_json`` writes each since the first version of the format):
#: what ``receipts`` shows of it. One missing is an unreadable receipt, never ``exit None``.
_REQUIRED = ("command", "product", "environment", "outcome", "exit_code", "started_at")
#: Required fields that may not be null (``exit_code`` is set by every finish of a run).
_NOT_NULL = ("exit_code",)


def receipt_problem(doc: Any) -> str | None:
    """Why ``doc`` (a parsed JSON document from a store someone else may write) is not a receipt
    this version reads, or None: an object with ``format_version`` 1 (the integer), the required
    ``command``, ``product``, ``environment``, ``outcome`` (one of :data:`OUTCOMES`), ``exit_code``
    (an integer 0-255, 0 exactly when ``outcome`` is ``succeeded``) and ``started_at``, each field of
    ``to_json`` of its JSON type, no string that cannot be written as UTF-8 (a lone surrogate
    from a ``\udc80`` escape), no number that is not finite and no ``*_usd`` amount of
    :data:`MAX_RECEIPT_USD` or more. Never raises."""
    if not isinstance(doc, dict):
        return f"a JSON {type(doc).__name__.replace('dict', 'object').replace('list', 'array')}, not a receipt object"
    version = doc.get("format_version")
    if type(version) is not int or version != RECEIPT_FORMAT_VERSION:
        return f"format_version must be the integer {RECEIPT_FORMAT_VERSION}"
    for name in _REQUIRED:
        if name not in doc:
            return f"no {name}"
    for name, types in _RECEIPT_FIELDS.items():
        if name in doc:
            value = doc[name]
            if not isinstance(value, types) or isinstance(value, bool):
                want = " or ".join("null" if t is type(None) else {str: "a string", int: "an integer", dict: "an object",
                                                                     list: "an array"}[t] for t in types)
                return f"{name} must be {want}"
    for name in _NOT_NULL:
        if doc[name] is None:
            return f"{name} must be an integer, not null"
    if doc["outcome"] not in OUTCOMES:
        return f"outcome must be one of {', '.join(OUTCOMES)}"
    # A process's exit status is 0-255 (POSIX ``WEXITSTATUS``: the low 8 bits), and every finish
    # of a run pairs ``succeeded`` with 0 and every other outcome with a failing code
    # (pipeline/run.py ``finish``): ``succeeded`` with exit 7 would pass for a deploy that
    # worked (the last successful ``up`` is read from receipts, pipeline/guards.py).
    if not 0 <= doc["exit_code"] <= 255:
        return "exit_code must be a process exit status, 0 to 255"
    if (doc["outcome"] == "succeeded") != (doc["exit_code"] == 0):
        return (f"outcome {doc['outcome']} with exit_code {doc['exit_code']}: a run succeeds with exit 0 and only then")
    if doc.get("estimate") is not None:
        problem = _estimate_problem(doc["estimate"])
        if problem is not None:
            return f"estimate {problem}"
    stack: list[Any] = [doc]
    while stack:  # iterative: the depth is bounded by the reader already
        value = stack.pop()
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) else []
        for k, v in items:
            for text in (k, v):
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        return "holds a string that is not valid Unicode (a lone surrogate)"
            if isinstance(v, float) and not math.isfinite(v):
                return "holds a number that is not finite (NaN or Infinity)"
            if isinstance(k, str) and k.endswith("_usd") and isinstance(v, (int, float)) and not isinstance(v, bool) \
                    and abs(v) >= MAX_RECEIPT_USD:
                return f"{k} is {MAX_RECEIPT_USD:,.0f} USD or more: not an amount of exact cents"
            if isinstance(v, (dict, list)):
                stack.append(v)
    return None


def _is_amount(value: Any) -> bool:
    """A JSON number (never ``true``/``false``) that is a monthly amount: finite, not negative."""
    # An int is never NaN, and math.isfinite(10**400) raises OverflowError.
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (isinstance(value, int) or math.isfinite(value)) \
        and value >= 0


def _estimate_problem(estimate: dict[str, Any]) -> str | None:
    """Why a receipt's ``estimate`` object is not what :func:`estimate_json` writes, or None:
    ``total_monthly_usd`` an amount (a JSON number, at least 0), ``cap_monthly_usd`` an amount
    or null, ``verdict`` one of :data:`runway_core.planner.VERDICTS`, ``text`` a string. A shared
    bucket's writer may put ``"NaN"``, an object verdict or a negative cap there (third
    adversary, round 5): shown as a receipt's estimate, each would pass for one."""
    if "total_monthly_usd" not in estimate or not _is_amount(estimate["total_monthly_usd"]):
        return "total_monthly_usd must be a number of USD, 0 or more"
    cap = estimate.get("cap_monthly_usd")
    if cap is not None and not _is_amount(cap):
        return "cap_monthly_usd must be a number of USD, 0 or more, or null"
    if estimate.get("verdict") not in VERDICTS:
        return f"verdict must be one of {', '.join(VERDICTS)}"
    if not isinstance(estimate.get("text"), str):
        return "text must be a string"
    return None


@dataclass(frozen=True)
class ReadRecord:
    """A record read from a store that may be hostile: ``record`` (None when gone since
    listed), its parsed ``doc`` and ``problem`` (why it is unreadable, or None)."""

    key: str
    record: Record | None
    doc: Any = None
    problem: str | None = None


def read_checked(store: RecordStore, key: str, prefix: str, *, receipt: bool = True) -> ReadRecord:
    """Read ``key`` (listed under ``prefix``) as an untrusted record: the key checked
    (:func:`deploy_engine.records.export.key_problem`), at most :data:`MAX_RECEIPT_BYTES`, JSON
    of at most :data:`MAX_RECEIPT_DEPTH` levels, and with ``receipt`` a receipt
    (:func:`receipt_problem`). Never raises: a record the store cannot read (a FIFO among the
    files, a file the user may not read, a symlink to itself, an object whose read is denied) is
    unreadable too, with the store's reason; so is a receipt whose name is no UTC time
    (:func:`~deploy_engine.records.kinds.timed_name_problem`, not read) and one naming a member
    twice (``unique_keys``, as a reviewed plan: :func:`deploy_engine.reviewed.load_reviewed_plan`).
    Raises :class:`~deploy_engine.records.store.StoreTimeout` only: a store that does not answer
    within its deadline would make every next record wait as long."""
    problem = key_problem(key, prefix)
    if problem is None and receipt:
        problem = timed_name_problem(key)
    if problem is not None:
        return ReadRecord(key, None, problem=f"key {problem}; not read")
    try:
        record = store.read(key, limit=MAX_RECEIPT_BYTES)
    except RecordTooLarge:
        return ReadRecord(key, None, problem=f"over the {MAX_RECEIPT_BYTES:,}-byte limit of a receipt; not read")
    except StoreTimeout:
        raise
    except StoreError as exc:  # this one object: a FIFO in .runway/, an object access is denied to
        return ReadRecord(key, None, problem=str(exc))
    if record is None:
        return ReadRecord(key, None, problem="gone since listed")
    try:
        doc = loads_json(record.data, max_depth=MAX_RECEIPT_DEPTH, unique_keys=True)
    except JsonDocumentError as exc:
        return ReadRecord(key, record, problem=f"invalid JSON ({exc})")
    problem = receipt_problem(doc) if receipt else (None if isinstance(doc, dict) else "not a JSON object")
    if problem is None and receipt:
        problem = _folder_problem(doc, prefix)
    return ReadRecord(key, record, doc, problem)


def _folder_problem(doc: dict[str, Any], prefix: str) -> str | None:
    """Why a receipt's ``environment`` (and ``product``) is not the one its key's folder names
    (``receipts/<product>/<env>/``, or ``receipts/<env>/`` in ``.runway/``), or None. A shared
    bucket's writer may put ``"environment": "production\n\x1b]0;pwn\x07"`` under ``dev/``:
    listed as a receipt of another environment, it would pass for one. The value is quoted cut
    to 40 characters (control characters are escaped where it is printed)."""
    parts = prefix.strip("/").split("/")
    if len(parts) < 2:
        return None
    for name, folder in (("environment", parts[-1]), ("product", parts[-2] if len(parts) >= 3 else None)):
        if folder is not None and name in doc and doc[name] != folder:
            return f"{name} {doc[name][:40]!r} is not its folder's ({folder})"
    return None


def store_receipt(store: RecordStore, receipt: Receipt, redactor: Redactor, *, now: datetime | None = None) -> Written:
    """Scrub, check and write ``receipt`` to ``store`` as a new record; returns where it went.

    Key ``receipts/.../<UTC start time>.json`` (:func:`deploy_engine.records.kinds.stamp`), with
    ``-1``, ``-2``... when two runs start in the same microsecond: a conditional create, so an
    existing receipt is never overwritten. In S3 it is locked in governance mode until
    :func:`~deploy_engine.records.kinds.receipt_retain_until` of ``now`` (default: its finish time):
    7 years, extended to the environment's end + 7 years by ``destroy``. Raises ValueError if
    a known secret survived scrubbing (a bug: nothing is written), ``StoreError``.
    """
    doc = receipt.to_json()
    written_at = now or receipt.finished_at or receipt.started_at
    retain = receipt_retain_until(written_at) if store.scheme == "s3" else None
    try:
        return write_unique(store, "receipts", receipt.product, receipt.environment, receipt.started_at, doc, redactor,
                            retain_until=retain)
    except ValueError as exc:
        if "still holds a secret" in str(exc):
            raise ValueError("receipt still holds a secret value after redaction; not written") from None
        raise


def write_receipt(root: Path | str, receipt: Receipt, redactor: Redactor) -> Path:
    """:func:`store_receipt` into the file store of ``root`` (``.runway/receipts/<env>/``); its path.

    Written atomically: a temporary file, fsync, then ``os.link`` to the final name (never
    replaced). Creating ``.runway/`` writes its ``.gitignore``.
    """
    store = FileStore(root)
    return store.path(store_receipt(store, receipt, redactor).key)


def start_retention(store: RecordStore, product: str, environment: str, ended_at: datetime, redactor: Redactor) -> dict[str, Any]:
    """The environment ended at ``ended_at`` (``destroy`` succeeded): record its end and lock
    every one of its receipts until ``ended_at`` + 7 years.

    Writes ``ends/.../<stamp>.json`` (``ended_at``, ``retain_until``, how many receipts), itself
    locked as long, and extends the Object Lock retention of each existing receipt with
    ``PutObjectRetention`` (governance mode; never shortened). The file store locks nothing
    (``locked`` 0). Returns ``{"ended_at", "retain_until", "receipts", "locked"}``. Raises
    ``StoreError``.
    """
    until = receipt_retain_until(ended_at)
    keys = store.list(store.key("receipts", product, environment))
    locked = sum(1 for key in keys if store.retain(key, until) is not None)
    doc = {"format_version": RECEIPT_FORMAT_VERSION, "product": product, "environment": environment,
           "ended_at": _iso(ended_at), "retain_until": _iso(until), "receipts": len(keys), "locked": locked}
    write_unique(store, "ends", product, environment, ended_at, doc, redactor, retain_until=until if store.scheme == "s3" else None)
    return {k: doc[k] for k in ("ended_at", "retain_until", "receipts", "locked")}


def list_receipts(store: RecordStore, product: str, environment: str | None, environments: Sequence[str]) -> list[str]:
    """Receipt keys of ``product`` in ``store``, oldest first: of ``environment``, or of every one
    of ``environments`` (the runway's) when None; keys whose name is no UTC time first
    (:func:`~deploy_engine.records.kinds.record_order`). Raises ``StoreError``."""
    keys: list[str] = []
    for env in [environment] if environment else environments:
        keys += store.list(store.key("receipts", product, env))
    return sorted(keys, key=record_order)


__all__ = [
    "OUTCOMES",
    "MAX_RECEIPT_BYTES",
    "MAX_RECEIPT_DEPTH",
    "RECEIPT_FORMAT_VERSION",
    "Receipt",
    "actor",
    "ci_run",
    "estimate_json",
    "git_commit",
    "lease_json",
    "public_backend_url",
    "url_secrets",
    "list_receipts",
    "receipt_problem",
    "read_checked",
    "ReadRecord",
    "start_retention",
    "store_receipt",
    "write_receipt",
]
