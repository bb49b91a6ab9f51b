"""What completion answers: :class:`CompletionCandidate`, and the plain words it shows for
kinds, reason grounds and enumerated values (docs/format.md, "Resource kinds"; ADR 0493 §5)."""

from __future__ import annotations

from dataclasses import dataclass

from ...kinds import REGISTRY
from ...positions import Range

#: What a candidate is, for the editor's icon: a key, a plain value, a resource kind, a size,
#: an environment name, a reference to a resource/workload, a multi-line snippet, or one of
#: a fixed set of values (expose, flavor, booleans, reason grounds, regions).
CANDIDATE_KINDS = ("key", "value", "kind", "size", "environment", "reference", "snippet", "enum")

#: One line per resource kind (docs/format.md, "Resource kinds"): each kind's declaration.
KIND_SUMMARIES = {k.name: k.summary for k in REGISTRY if k.resource}

#: The three grounds a workload may stand on (ADR 0493 §5), in plain words.
GROUND_SUMMARIES = {
    "no-managed-fit": "no managed resource or vendor cloud fits",
    "residency": "data residency forces self-hosting",
    "on-prem-parity": "parity with what customers run on their own hardware",
}

_ENUM_SUMMARIES = {
    ("expose", "internal"): "Cloud Map service discovery inside the environment (default)",
    ("expose", "public"): "behind the environment's Application Load Balancer (one ALB per environment)",
    ("platform", "linux/arm64"): "Fargate Graviton (ARM64), the default and the cheaper one",
    ("platform", "linux/amd64"): "Fargate x86_64: for an image with only an amd64 manifest",
    ("flavor", "rds"): "RDS for PostgreSQL (default)",
    ("flavor", "aurora"): "Aurora PostgreSQL, Standard pricing",
}


@dataclass(frozen=True, slots=True)
class CompletionCandidate:
    """One completion.

    ``range`` (code points, on the cursor's line, containing the cursor) is replaced by
    ``new_text`` (plain text), or by ``snippet`` (LSP snippet syntax: ``${1:default}``,
    ``${1|a,b|}``, ``$0``) when the editor supports snippets and it is set. ``detail`` is one
    line (a size's cost: ``$36.28/mo in dev``); ``documentation`` is Markdown. ``sort_text``
    orders candidates (sizes by cost); ``filter_text`` is what the typed word is matched
    against (default: ``label``). ``volatile`` means the text embeds the typed word (a name
    snippet), so the editor should ask again as the user types. ``kind`` is one of
    :data:`CANDIDATE_KINDS`.
    """

    label: str
    kind: str
    range: Range
    new_text: str
    snippet: str | None = None
    detail: str | None = None
    documentation: str | None = None
    sort_text: str | None = None
    filter_text: str | None = None
    volatile: bool = False
