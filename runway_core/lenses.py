"""Old import path of :mod:`runway_core.ide.lenses` (issue 11 moved it).

# shim: removed when callers move (issue 11)
"""

from .baseline import Baselines, EnvDelta, cost_deltas  # shim: removed when callers move (issue 11)
from .ide._deltas import delta_parts, with_cost_delta  # shim: removed when callers move (issue 11)
from .ide.lenses import Hint, Lens, code_lenses, inlay_hints  # shim: removed when callers move (issue 11)
from .money import MINUS, WHOLE_DOLLARS_FROM, cap_usd, signed_usd, whole_usd  # shim: removed when callers move (issue 11)
from .money import cap_percent as percent  # shim: removed when callers move (issue 11)

__all__ = ['Lens', 'Hint', 'Baselines', 'EnvDelta', 'code_lenses', 'inlay_hints', 'cost_deltas', 'delta_parts', 'with_cost_delta', 'whole_usd', 'WHOLE_DOLLARS_FROM', 'cap_usd', 'signed_usd', 'percent', 'MINUS']
