"""SARIF 2.1.0 output (``--format sarif``), as GitHub code scanning reads it: every diagnostic
code as a rule (with its help text from docs/diagnostics.md), every diagnostic as a result,
regions 1-based with columns in UTF-16 code units."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from deploy_engine.cli.formats._shared import ci_path, one_based_range
from deploy_engine.exits import PROG
from runway_core.analysis import Analysis
from runway_core.diagnostics import CODES, Diagnostic

#: The OASIS schema of SARIF 2.1.0 (errata 01), as GitHub code scanning expects it.
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Where each diagnostic code is documented, relative to the docs folder.
DIAGNOSTICS_DOC = "diagnostics.md"
#: Base URL of the docs folder (e.g. ``https://github.com/<org>/runway-tooling/blob/main/docs``):
#: when set to an absolute http(s) URL, SARIF rules get ``helpUri`` ``<base>/diagnostics.md#<anchor>``.
DOCS_URL_VARIABLE = "RUNWAY_DOCS_URL"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def tool_version() -> str | None:
    """The installed ``runway-tooling`` distribution's version, None when not installed."""
    from importlib import metadata

    try:
        return metadata.version("runway-tooling")
    except metadata.PackageNotFoundError:
        return None


def _doc_anchor(code: str, title: str) -> str:
    """GitHub's anchor of the heading ``### <code> — <title>`` of docs/diagnostics.md (lower
    case, punctuation dropped, each space a hyphen)."""
    return re.sub(r"[^\w\- ]", "", f"{code} — {title}".lower()).replace(" ", "-")


def docs_base_url(environ: Mapping[str, str]) -> str | None:
    """``RUNWAY_DOCS_URL`` without a trailing ``/`` when it is an absolute http(s) URL, else None."""
    value = (environ.get(DOCS_URL_VARIABLE) or "").strip()
    return value.rstrip("/") if re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", value) else None


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
        rule["helpUri"] = f"{docs}/{DIAGNOSTICS_DOC}#{_doc_anchor(code, title)}"
    return rule


def sarif_document(an: Analysis, diags: Sequence[Diagnostic], base: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run: every diagnostic code as a rule, every diagnostic as a result.

    Regions are 1-based with columns in UTF-16 code units (``run.columnKind``), as GitHub code
    scanning reads them; artifact URIs are relative, ``/`` separators (``ci_path``). Rules
    carry their help text; ``helpUri`` (an absolute URI, as SARIF requires) only when
    ``RUNWAY_DOCS_URL`` is set (:func:`docs_base_url`).
    """
    rule_ids = list(CODES)
    index = {code: i for i, code in enumerate(rule_ids)}
    docs = docs_base_url(environ)
    rules = [sarif_rule(code, severity, title, docs) for code, (severity, title) in CODES.items()]
    results = []
    for d in diags:
        line, col, end_line, end_col = one_based_range(d, an)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL[d.severity.label],
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": ci_path(d.file, base, environ)},
                        "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col},
                    }
                }
            ],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        results.append(result)
    driver: dict[str, Any] = {"name": PROG, "rules": rules}
    version = tool_version()
    if version:
        driver["version"] = version
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "utf16CodeUnits", "results": results}],
    }


__all__ = ["DOCS_URL_VARIABLE", "SARIF_SCHEMA_URI", "docs_base_url", "sarif_document", "sarif_rule", "tool_version"]
