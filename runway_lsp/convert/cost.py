"""Code lenses and inlay hints of the cost view (runway_lsp/cost_view.py).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from runway_core.positions import LineIndex

if TYPE_CHECKING:  # annotations only: converting needs no analysis module loaded
    from runway_core.ide.lenses import Hint, Lens

from .positions import to_position, to_range

#: The command every cost lens carries (runway_lsp/cost_view.py answers it).
SHOW_COST = "runway.showCost"


def to_code_lens(lens: Lens, uri: str, lines: LineIndex, enc: Any, command: str) -> types.CodeLens:
    """A lens with its ``Command`` (``command``, arguments ``[uri, data]``): LSP shows a lens
    only through a command."""
    return types.CodeLens(
        range=to_range(lens.range, lines, enc),
        command=types.Command(title=lens.title, command=command, arguments=[uri, dict(lens.data)], tooltip=lens.tooltip),
        data=dict(lens.data),
    )


def to_inlay_hint(hint: Hint, lines: LineIndex, enc: Any) -> types.InlayHint:
    return types.InlayHint(
        position=to_position(hint.position, lines, enc),
        label=hint.label,
        tooltip=hint.tooltip,
        padding_left=True,
    )


def code_lens_options() -> types.CodeLensOptions:
    return types.CodeLensOptions(resolve_provider=False)


def inlay_hint_options() -> types.InlayHintOptions:
    return types.InlayHintOptions(resolve_provider=False)
