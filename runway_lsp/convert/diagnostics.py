"""Diagnostics and the diagnostic messages (push and pull) of the runway server.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Iterable

from lsprotocol import types

from runway_core.diagnostics import Diagnostic, code_doc_url, docs_web_url, local_docs_url
from runway_core.positions import Encoding, LineIndex

from .positions import to_range

SOURCE = "runway"


@functools.cache
def docs_base() -> str | None:
    """Where the codes are documented: ``RUNWAY_DOCS_URL`` (an http(s) docs folder), else the
    docs folder next to the packages (runway_core.diagnostics.local_docs_url), else None."""
    return docs_web_url(os.environ) or local_docs_url()


def to_diagnostic(d: Diagnostic, lines: LineIndex, enc: Encoding) -> types.Diagnostic:
    """Severity, string code with ``codeDescription.href`` (its entry in docs/diagnostics.md,
    :func:`docs_base`), source ``runway``, message, ``data`` passed through, tags."""
    base = docs_base()
    return types.Diagnostic(
        range=to_range(d.range, lines, enc),
        message=d.message,
        severity=types.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=types.CodeDescription(href=code_doc_url(d.code, base)) if base else None,
        source=SOURCE,
        tags=[types.DiagnosticTag(t) for t in d.tags] or None,
        data=_json_safe(d.data),
    )


def _json_safe(data: Any) -> Any:
    """``data`` as plain JSON values (a Decimal or tuple from a rule must not break sending)."""
    if data is None:
        return None
    try:
        return json.loads(json.dumps(data, default=str))
    except (TypeError, ValueError):
        return None


def to_diagnostics(diags: Iterable[Diagnostic], lines: LineIndex, enc: Encoding) -> list[types.Diagnostic]:
    """The diagnostics as sent, redacted here (runway_lsp/convert/redacted.py)."""
    from .redacted import diagnostics as redacted_diagnostics

    return redacted_diagnostics(to_diagnostic(d, lines, enc) for d in diags)


def publish_params(uri: str, version: int | None, diags: list[types.Diagnostic]) -> types.PublishDiagnosticsParams:
    return types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)


def full_report(diags: list[types.Diagnostic]) -> types.RelatedFullDocumentDiagnosticReport:
    """A pull-diagnostics answer (LSP 3.17 §"Document Diagnostics"); always a full report."""
    return types.RelatedFullDocumentDiagnosticReport(items=diags)


def diagnostic_options() -> types.DiagnosticOptions:
    # A member's diagnostics depend on its root and the reverse (uses, RW180), hence
    # interFileDependencies; no workspace pull: other files are pushed.
    return types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False)
