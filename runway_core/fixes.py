"""Old import path of :mod:`runway_core.ide.fixes` (issue 11 moved it).

# shim: removed when callers move (issue 11)
"""

from .ide.fixes import QUICKFIX, TOP_RESIZE, Fix, TextEdit, fixes_for, guess_kind, kind_hint, resize_edits, scale_edits  # shim: removed when callers move (issue 11)
from .whatif import FIT_CANDIDATES, Downsize, cheaper_sizes, fewer_tasks, fit_under_cap, resized_plan, smallest_total  # shim: removed when callers move (issue 11)

__all__ = ['QUICKFIX', 'TOP_RESIZE', 'FIT_CANDIDATES', 'TextEdit', 'Fix', 'Downsize', 'fixes_for', 'resized_plan', 'cheaper_sizes', 'fit_under_cap', 'resize_edits', 'scale_edits', 'fewer_tasks', 'smallest_total', 'guess_kind', 'kind_hint']
