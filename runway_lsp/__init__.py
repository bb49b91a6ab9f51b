"""runway-lsp: the language server of runway.yaml (diagnostics and cost hovers over LSP).

A thin face over :mod:`runway_core` (STYLE.md §1): ``server`` adapts editor events to one
analysis, ``convert`` is the one edge between core values and LSP types, ``__main__`` is the
``runway-lsp`` console script.

Must never import pulumi or deploy_engine: editor users never pay for the deploy extra
(a test spawns the server module and checks ``sys.modules``).
"""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("runway-tooling")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
