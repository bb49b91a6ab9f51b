"""Old import path of :mod:`runway_core.ide.completion` (issue 11 moved it).

# shim: removed when callers move (issue 11)
"""

from .ide.completion import CANDIDATE_KINDS, GROUND_SUMMARIES, KIND_SUMMARIES, CompletionCandidate, completions_at  # shim: removed when callers move (issue 11)
from .whatif import resized  # shim: removed when callers move (issue 11)

__all__ = ['CANDIDATE_KINDS', 'CompletionCandidate', 'completions_at', 'resized', 'KIND_SUMMARIES', 'GROUND_SUMMARIES']
