"""Old import path of :mod:`runway_core.ide.hover` (issue 11 moved it).

# shim: removed when callers move (issue 11)
"""

from .ide._render import capacity_text  # shim: removed when callers move (issue 11)
from .ide.hover import CONFIDENCE_WORDS, TOP_CONTRIBUTORS, HoverResult, hover_at  # shim: removed when callers move (issue 11)

__all__ = ['HoverResult', 'hover_at', 'capacity_text', 'CONFIDENCE_WORDS', 'TOP_CONTRIBUTORS']
