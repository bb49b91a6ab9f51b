"""Old import path of :mod:`runway_core.ide.navigation` (issue 11 moved it).

# shim: removed when callers move (issue 11)
"""

from .ide.navigation import *  # noqa: F403  # shim: removed when callers move (issue 11)
from .ide.navigation import __all__ as _names  # shim: removed when callers move (issue 11)

__all__ = list(_names)
