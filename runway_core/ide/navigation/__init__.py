"""Navigation, symbols and links: pure queries over an :class:`~runway_core.analysis.Analysis`.

The language server's definition, references, rename, highlight, outline, workspace symbol
and document link features are thin adapters over the functions here (docs/architecture.md §2); each is
testable without a server. Positions and ranges are the core's (code points, 0-based).

Names are found in the YAML trees of the root and its members, not in the validated models,
so navigation keeps working in a runway with schema errors. What counts as an *occurrence*
of a name:

- the declaring key of a resource (``resources.<name>``) or workload (``workloads.<name>``);
- a workload's ``uses`` item and a member's ``uses`` item (flow or block sequence);
- for the implicit ``shared-<kind>`` resource: each member's ``requires: [<kind>]`` item and
  each ``environments.<env>.shared.<kind>`` key (docs/format.md, "Implicit resources").

Ranges returned for names cover the characters of the name as written: the quotes of a
quoted scalar are outside them, so a rename keeps the quoting.

Definition of an implicit ``shared-<kind>`` (it has no declaring key): the
``environments.<env>.shared.<kind>`` keys, where its size is set; when no environment sizes
it, the ``requires`` items of the members requiring it (other than the one under the cursor).

Must not import pygls, lsprotocol or pulumi.

The package: :mod:`.occurrences` (every place a name is written, and the result types),
:mod:`.goto` (definition, references, highlights, rename, document links) and :mod:`.outline`
(document and workspace symbols).
"""

from .._edit import TextEdit
from .goto import RenameImpact, definition_at, document_links, highlights_at, prepare_rename_at, references_at, rename_at, rename_impact, rename_refusal_at
from .occurrences import (
    SYMBOL_KINDS,
    DocumentLink,
    DocumentSymbol,
    Highlight,
    Location,
    Occurrence,
    RenamePlaceholder,
    WorkspaceSymbol,
    occurrences,
)
from .outline import MAX_OUTLINE_DEPTH, MAX_OUTLINE_SYMBOLS, MAX_WORKSPACE_SYMBOLS, document_symbols, workspace_symbols

__all__ = [
    "MAX_OUTLINE_SYMBOLS",
    "MAX_OUTLINE_DEPTH",
    "MAX_WORKSPACE_SYMBOLS",
    "SYMBOL_KINDS",
    "Location",
    "TextEdit",
    "Highlight",
    "RenamePlaceholder",
    "DocumentLink",
    "DocumentSymbol",
    "WorkspaceSymbol",
    "Occurrence",
    "occurrences",
    "document_links",
    "definition_at",
    "references_at",
    "highlights_at",
    "rename_refusal_at",
    "prepare_rename_at",
    "rename_at",
    "RenameImpact",
    "rename_impact",
    "document_symbols",
    "workspace_symbols",
]
