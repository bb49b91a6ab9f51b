"""The language server's one conversion package: core values <-> lsprotocol types.

Only this package builds protocol values (elsewhere in runway_lsp lsprotocol appears in type
annotations and method names; tests/core/test_purity.py checks it), and decodes protocol
positions into the core's, applying the negotiated position encoding through the document's
:class:`~runway_core.positions.LineIndex` (LSP 3.17 §"Position"; docs/architecture.md §3-4).
One module per area:

- :mod:`.positions`: positions, ranges, content changes, text and workspace edits;
- :mod:`.diagnostics`: diagnostics, publish params, pull reports and options;
- :mod:`.hover`: hovers (Markdown);
- :mod:`.navigation`: locations, symbols, highlights, rename placeholders, links;
- :mod:`.cost`: code lenses and inlay hints;
- :mod:`.completion`: completion items and lists;
- :mod:`.actions`: quick fixes;
- :mod:`.messages`: warnings, registrations, configuration, progress, error answers.

The names most features use are re-exported here (``convert.to_range``).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from .diagnostics import SOURCE, diagnostic_options, full_report, publish_params, to_diagnostic, to_diagnostics
from .hover import to_hover
from .positions import (
    RENAME_ANNOTATION,
    annotated_workspace_edit,
    change_annotation,
    apply_change,
    encoding_of,
    from_position,
    from_range,
    is_whole_document,
    preferred_encoding,
    supports_change_annotations,
    supports_document_changes,
    text_edits,
    to_position,
    to_range,
    workspace_edit,
)

__all__ = [
    "RENAME_ANNOTATION", "SOURCE", "annotated_workspace_edit", "change_annotation", "apply_change", "supports_change_annotations", "diagnostic_options", "encoding_of", "from_position", "from_range", "full_report",
    "is_whole_document", "preferred_encoding", "publish_params", "supports_document_changes", "text_edits",
    "to_diagnostic", "to_diagnostics", "to_hover", "to_position", "to_range", "workspace_edit",
]
