"""Diagnostics: the core's one shape for every problem found in a runway.

User mistakes are data (docs/architecture.md §7): the loader, the model and every rule return
:class:`Diagnostic` values and never raise for bad input. Codes are stable and documented in
docs/diagnostics.md (:data:`CODES`; a test keeps that page and it in sync). A leaf: imports
only :mod:`runway_core.positions`. Where each code is documented: :func:`code_doc_url`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .positions import Range


class Severity(enum.IntEnum):
    """LSP DiagnosticSeverity values (LSP 3.17 §"Diagnostic")."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at a range of one file.

    ``file`` is the absolute path of the runway file the range belongs to. ``data`` carries
    what a quick fix needs (issue: diagnostic.data) and must never hold a secret value.
    ``tags`` are LSP DiagnosticTag values (1 = unnecessary, 2 = deprecated).
    """

    file: str
    range: Range
    severity: Severity
    code: str
    message: str
    data: dict[str, Any] | None = field(default=None, compare=False)
    tags: tuple[int, ...] = ()

    def sort_key(self) -> tuple:
        return (self.file, self.range.start, self.range.end, self.code, self.message)


#: Every code with its default severity and one-line title (docs/diagnostics.md).
CODES: dict[str, tuple[str, str]] = {
    "RW001": ("error", "YAML syntax error, or a file that is not UTF-8 text"),
    "RW002": ("error", "duplicate key"),
    "RW003": ("error", "more than one YAML document"),
    "RW004": ("error", "empty or comment-only file"),
    "RW005": ("error", "alias expansion over the limit (alias bomb)"),
    "RW006": ("error", "tab used for indentation"),
    "RW007": ("warning", "byte-order mark at the start of the file"),
    "RW008": ("error", "unsupported YAML tag"),
    "RW009": ("error", "a key that is a list or mapping"),
    "RW010": ("error", "nesting too deep"),
    "RW011": ("error", "file over the size limit (1 MiB): not analysed"),
    "RW012": ("error", "more than 500 problems in one file: the rest are not shown"),
    "RW013": ("warning", "a `%YAML` directive other than 1.2: the file is read as YAML 1.2"),
    "RW100": ("error", "wrong type or value (schema)"),
    "RW101": ("error", "missing required key"),
    "RW102": ("error", "unknown key (closest known key suggested)"),
    "RW103": ("error", "unsupported format version"),
    "RW110": ("error", "name format (product, resource, workload, environment, member)"),
    "RW111": ("error", "declared name collides with an implicit item (`shared-<kind>`, `alb`, `service-discovery`)"),
    "RW112": ("error", "a resource and a workload share one name"),
    "RW120": ("error", "unknown kind (closest kind suggested)"),
    "RW121": ("error", "reserved kind (kafka, opensearch): why, and what brings it back"),
    "RW122": ("error", "a kind the tooling cannot price (no size table or quantities): not estimated, a capped plan refused"),
    "RW130": ("error", "unknown size"),
    "RW131": ("error", "size or scale for an undeclared environment"),
    "RW140": ("error", "image not pinned by digest"),
    "RW141": ("error", "workload without a reason"),
    "RW142": ("warning", "reason names none of the three allowed grounds"),
    "RW143": ("error", "`env` or `secrets` name collides with an injected variable"),
    "RW144": ("error", "secret or variable name format"),
    "RW145": ("warning", "an entry listed twice (`secrets`, `uses`, `requires`)"),
    "RW146": ("warning", "a name in both `env` and `secrets`"),
    "RW147": ("warning", "a value that looks like a secret (`env`, image, health command)"),
    "RW148": ("error", "HTTP health check whose timeout is not below its interval (the load balancer refuses it)"),
    "RW149": ("error", "command health check timeout over ECS's 60 seconds"),
    "RW150": ("error", "workload `uses` names no resource or workload"),
    "RW151": ("error", "member folder missing, unreadable, or outside the repository"),
    "RW152": ("error", "member `uses` names no resource of the root"),
    "RW153": ("warning", "a workload uses itself"),
    "RW154": ("warning", "member runway that no root runway above lists"),
    "RW155": ("error", "more than 1,000 members: the rest are not read"),
    "RW156": ("error", "more environments than the product may price: the rest are not read"),
    "RW157": ("error", "more than 2,500 resources and workloads: the rest are not read"),
    "RW158": ("warning", "a `runway.yml` that is not read: its folder also holds `runway.yaml`"),
    "RW160": ("warning", "region unknown to the catalogue"),
    "RW161": ("warning", "unit price missing for the region (estimate incomplete)"),
    "RW162": ("error", "cannot check a cap: unit prices missing for the region (plan refused)"),
    "RW163": ("error", "an item a capped environment cannot price in the region (plan refused)"),
    "RW164": ("error", "not an AWS region (closest region suggested)"),
    "RW170": ("error", "environment over its monthly cap (plan refused)"),
    "RW171": ("warning", "environment without a cap (estimate shown)"),
    "RW172": ("warning", "a capped verdict the stated uncertainty of derived or unverified prices could flip (prices to refresh named)"),
    "RW180": ("hint", "resource used by nobody"),
    "RW190": ("error", "region change of an environment with data resources (refused outside disposable environments)"),
    "RW191": ("error", "postgres storage would shrink (RDS storage only grows)"),
    "RW192": ("error", "engine version would go down (RDS and ElastiCache never downgrade)"),
    "RW193": ("error", "postgres flavor switch (refused outside disposable environments)"),
    "RW200": ("error", "usage file: not the usage format, or a quantity that is not a number from 0 to 1,000,000,000"),
    "RW201": ("error", "usage file: unknown environment or item (closest name suggested)"),
    "RW202": ("error", "usage file: not a usage key of the item's kind (closest key suggested)"),
}


# --- where each code is documented --------------------------------------------------------------

#: The page that documents every code, in the docs folder (one ``### RWnnn — title`` heading each).
DIAGNOSTICS_DOC = "diagnostics.md"
#: The environment variable with the docs folder's web address (e.g.
#: ``https://github.com/<org>/runway-tooling/blob/<ref>/docs``): the one place a base URL is set.
DOCS_URL_VARIABLE = "RUNWAY_DOCS_URL"


def doc_anchor(code: str) -> str:
    """GitHub's anchor of the heading ``### <code> — <title>`` of docs/diagnostics.md (lower
    case, punctuation dropped, each space a hyphen); ``code`` in lower case for an unknown code."""
    title = CODES.get(code, (None, None))[1]
    if title is None:
        return code.lower()
    return re.sub(r"[^\w\- ]", "", f"{code} — {title}".lower()).replace(" ", "-")


def docs_web_url(environ: Mapping[str, str]) -> str | None:
    """:data:`DOCS_URL_VARIABLE` without a trailing ``/`` when it is an absolute http(s) URL, else None.
    A user part (``https://user:password@host/``) is dropped, so that ``--help``, SARIF's
    ``helpUri`` and the server's code links name no credential (round 5 A04). (No import of
    :mod:`runway_core.text` here: it imports this module, and the layer table forbids the cycle.)"""
    value = (environ.get(DOCS_URL_VARIABLE) or "").strip()
    m = re.fullmatch(r"^(https?://)(?:[^\s/?#]*@)?([^\s/?#@]+(?:/[^\s?#]*)?)$", value)
    if m is None:
        return None
    url = (m.group(1) + m.group(2)).rstrip("/")
    return url


def local_docs_url() -> str | None:
    """The ``file:`` URI of the docs folder next to the packages (a checkout's ``docs/``; the
    VS Code extension ships ``docs/diagnostics.md`` at the same place, ``bundled/libs/docs``),
    when it holds :data:`DIAGNOSTICS_DOC`; else None."""
    docs = Path(__file__).resolve().parent.parent / "docs"
    return docs.as_uri() if (docs / DIAGNOSTICS_DOC).is_file() else None


def code_doc_url(code: str, base: str) -> str:
    """``<base>/diagnostics.md#<anchor>``: where ``code`` is documented under the docs folder ``base``."""
    return f"{base}/{DIAGNOSTICS_DOC}#{doc_anchor(code)}"
