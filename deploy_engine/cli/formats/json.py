"""JSON output: a stable, versioned interface (``format_version`` 1; docs/cli.md). Ranges are
0-based with characters in UTF-16 code units (as LSP), files relative to the root runway's
folder with ``/`` separators."""

from __future__ import annotations

import json
from typing import IO, Any, Sequence

from deploy_engine.cli.formats._shared import counts, file_count
from deploy_engine.terminal import rel_path
from runway_core.analysis import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.planner import FORMAT_VERSION, Plan, plan_digest, plan_json


def diagnostic_json(d: Diagnostic, an: Analysis, base: str) -> dict[str, Any]:
    """One diagnostic as JSON: 0-based range, characters in UTF-16 code units (docs/cli.md)."""
    src = an.files.get(d.file)
    rng = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return {
        "file": rel_path(d.file, base),
        "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        },
        "severity": d.severity.label,
        "code": d.code,
        "message": d.message,
    }


def dump(doc: Any, stream: IO[str]) -> None:
    """``doc`` as indented JSON (non-ASCII kept) and a newline, in one write."""
    stream.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def check_document(an: Analysis, diags: Sequence[Diagnostic], base: str) -> dict[str, Any]:
    """``check --format json``: ``{"format_version", "diagnostics": [...], "summary": {...}}``."""
    c = counts(diags)
    return {
        "format_version": FORMAT_VERSION,
        "diagnostics": [diagnostic_json(d, an, base) for d in diags],
        "summary": {
            "errors": c[Severity.ERROR],
            "warnings": c[Severity.WARNING],
            "information": c[Severity.INFORMATION],
            "hints": c[Severity.HINT],
            "files": file_count(an),
        },
    }


def plan_document(plan: Plan, an: Analysis, diags: Sequence[Diagnostic], base: str) -> dict[str, Any]:
    """``plan --format json``: :func:`runway_core.planner.plan_json`, each environment with its
    ``plan_digest`` (for ``up --plan-digest``: the plan reviewed is the plan deployed), and the
    diagnostics."""
    doc = plan_json(plan)
    for env_doc, p in zip(doc["environments"], plan.environments):
        env_doc["plan_digest"] = plan_digest(p, plan.product, plan.region)
    doc["diagnostics"] = [diagnostic_json(d, an, base) for d in diags]
    return doc


__all__ = ["check_document", "diagnostic_json", "dump", "plan_document"]
