"""SARIF 2.1.0 output (``--format sarif``), as GitHub code scanning reads it: every diagnostic
code as a rule (with its help text from docs/diagnostics.md), every diagnostic as a result,
regions 1-based with columns in UTF-16 code units."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote
from typing import Any, Mapping, Sequence

from deploy_engine.cli.formats._shared import ci_path, line_text, one_based_range
from deploy_engine.exits import PROG
from runway_core.diagnostics import CODES, DOCS_URL_VARIABLE, Diagnostic, code_doc_url, docs_web_url
from runway_core.facts import Analysis

#: The OASIS schema of SARIF 2.1.0 (errata 01), as GitHub code scanning expects it.
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
# DIAGNOSTICS_DOC and DOCS_URL_VARIABLE (the docs folder's web address) live in
# runway_core.diagnostics, with the anchors: the editor's codeDescription uses the same.
#: The key of each result's ``partialFingerprints`` (versioned: a new way of computing it is a new key).
FINGERPRINT_KEY = "runwayDiagnostic/v1"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


#: The code-scanning category of the log (``automationDetails.id`` up to its last ``/``);
#: default ``runway-deploy/<command>``. The action sets it from its ``sarif-category`` input.
SARIF_CATEGORY_VARIABLE = "RUNWAY_SARIF_CATEGORY"

def tool_version() -> str:
    """The version of runway-deploy (:data:`runway_core.__version__`, the one place it is set)."""
    from deploy_engine import __version__

    return __version__


def docs_base_url(environ: Mapping[str, str]) -> str | None:
    """``RUNWAY_DOCS_URL`` (:data:`runway_core.diagnostics.DOCS_URL_VARIABLE`) without a trailing
    ``/`` when it is an absolute http(s) URL, else None: rules then get ``helpUri``
    ``<base>/diagnostics.md#<anchor>``."""
    return docs_web_url(environ)


def sarif_rule(code: str, severity: str, title: str, docs: str | None) -> dict[str, Any]:
    """One SARIF ``reportingDescriptor``: title, full description and help from the diagnostics
    table (:data:`deploy_engine.rule_help.RULE_HELP`); ``helpUri`` only with an absolute docs URL."""
    from deploy_engine.rule_help import RULE_HELP

    triggered, fix = RULE_HELP.get(code, ("", ""))
    full = f"{title}: {triggered}." if triggered else f"{title}."
    help_text = f"{title}.\nTriggered by: {triggered}.\nFix: {fix}." if triggered else f"{title}."
    rule: dict[str, Any] = {
        "id": code,
        "shortDescription": {"text": title},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": f"**{title}**\n\nTriggered by: {triggered}.\n\nFix: {fix}." if triggered else f"**{title}**"},
        "defaultConfiguration": {"level": _SARIF_LEVEL[severity]},
    }
    if docs is not None:
        rule["helpUri"] = code_doc_url(code, docs)
    return rule


#: What :func:`artifact_uri` leaves as it is: RFC 3986's unreserved characters (``quote``
#: always keeps letters, digits and ``_.-~``), ``/`` and the sub-delims a path may hold; ``:``
#: is encoded too (a first segment holding one would read as a scheme, §4.2).
_URI_SAFE = "/!$&'()*+,;=@"


def artifact_uri(path: str) -> str:
    """``path`` (relative, ``/`` separators: :func:`ci_path`) as SARIF's
    ``artifactLocation.uri``, a URI reference (SARIF 2.1.0 §3.10; RFC 3986): each byte of its
    file-system name that a URI cannot hold percent-encoded (a space ``%20``, ``é`` ``%C3%A9``,
    ``%`` ``%25``), and a byte that is not UTF-8 (a lone surrogate from ``surrogateescape``) as
    itself, ``caf\\xe9`` -> ``caf%E9``: percent-decoding gives the name's exact bytes (sixth
    adversary F2: the raw byte made the log invalid UTF-8, or the write exit 70)."""
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file-system decoding makes
        raw = path.encode("utf-8", "surrogatepass")
    return quote(raw, safe=_URI_SAFE)


def _fingerprint(rule: str, uri: str, line: str, occurrence: int) -> str:
    """A fingerprint that survives lines moving: the rule, the file and the text of the line
    (stripped), plus which occurrence of that triple it is; never the message (it quotes
    amounts that change with prices)."""
    key = "\0".join((rule, uri, line.strip(), str(occurrence)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def sarif_log(
    entries: Sequence[tuple[Diagnostic, Analysis, str]],
    environ: Mapping[str, str],
    *,
    command: str = "check",
    exit_code: int | None = None,
    failure: str | None = None,
) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run: every diagnostic code as a rule, every diagnostic of
    ``entries`` (each with its analysis and its root's folder) as a result.

    Regions are 1-based with columns in UTF-16 code units (``run.columnKind``), as GitHub code
    scanning reads them; artifact URIs are relative, ``/`` separators (``ci_path``),
    percent-encoded (:func:`artifact_uri`). Each
    result has ``partialFingerprints`` (:data:`FINGERPRINT_KEY`, :func:`_fingerprint`), so code
    scanning tracks an alert across runs; the run has ``automationDetails.id``
    ``<category>/[<GITHUB_RUN_ID>]`` (the category ``RUNWAY_SARIF_CATEGORY``, default
    ``runway-deploy/<command>``) and one ``invocation`` with the exit code.
    ``failure`` (no runway found, input unreadable) becomes an error
    ``toolExecutionNotification`` and ``executionSuccessful: false``: the log stays valid for
    the upload step. Rules carry their help text; ``helpUri`` (an absolute URI, as SARIF
    requires) only when ``RUNWAY_DOCS_URL`` is set (:func:`docs_base_url`).
    """
    rule_ids = list(CODES)
    index = {code: i for i, code in enumerate(rule_ids)}
    docs = docs_base_url(environ)
    rules = [sarif_rule(code, severity, title, docs) for code, (severity, title) in CODES.items()]
    results = []
    seen: dict[tuple[str, str, str], int] = {}
    for d, an, base in entries:
        line, col, end_line, end_col = one_based_range(d, an)
        # The fingerprint keeps the path as shown (the key alerts were tracked by before the
        # uri was percent-encoded); the uri is the URI reference of that path.
        shown = ci_path(d.file, base, environ)
        uri = artifact_uri(shown)
        text = line_text(d, an)
        key = (d.code, shown, text.strip())
        seen[key] = occurrence = seen.get(key, 0) + 1
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL[d.severity.label],
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col},
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: _fingerprint(d.code, shown, text, occurrence)},
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        results.append(result)
    driver: dict[str, Any] = {"name": PROG, "rules": rules, "version": tool_version()}
    invocation: dict[str, Any] = {"executionSuccessful": failure is None}
    if exit_code is not None:
        invocation["exitCode"] = exit_code
    if failure is not None:
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": failure}}]
    run_id = (environ.get("GITHUB_RUN_ID") or "").strip()
    run_id = run_id if run_id.isascii() and run_id.isdigit() else ""  # `٣` is no run id
    # upload-sarif's `category` is used only for a run with no automationDetails (github/codeql-
    # action, src/upload-lib.ts, populateRunAutomationDetails): the category is ours to write.
    # Code scanning reads the id's part before its last "/" as the category.
    category = (environ.get(SARIF_CATEGORY_VARIABLE) or "").strip().strip("/")
    category = category if category and all(c.isprintable() for c in category) else f"{PROG}/{command}"
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "automationDetails": {"id": f"{category}/{run_id}"},
            "invocations": [invocation],
            "columnKind": "utf16CodeUnits",
            "results": results,
        }],
    }


def sarif_document(an: Analysis, diags: Sequence[Diagnostic], base: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """:func:`sarif_log` of one analysis."""
    return sarif_log([(d, an, base) for d in diags], environ)


__all__ = ["DOCS_URL_VARIABLE", "artifact_uri", "FINGERPRINT_KEY", "sarif_log", "SARIF_SCHEMA_URI", "docs_base_url", "sarif_document", "sarif_rule", "tool_version"]
