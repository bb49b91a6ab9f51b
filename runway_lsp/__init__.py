"""runway-lsp: the language server of runway.yaml (diagnostics and cost hovers over LSP).

A thin face over :mod:`runway_core` (docs/architecture.md §1). Imports only go down this list:

- ``uris``, ``guard``, ``convert/`` (the one package that builds LSP values, a module per area);
- ``documents`` (open buffers) -> ``analyses`` (groups, cached analyses) -> ``publish``
  (diagnostics pushed and pulled) -> ``session`` (one client session, behind public methods);
- the features, each given the session: ``text_sync``, ``settings``, ``scan``,
  ``navigation``, ``cost_view``, ``custom``, ``completion``, ``code_actions``;
- ``protocol`` (pygls' protocol made robust), ``transport`` (stdio read on a thread),
  ``server`` (registers every LSP method once; loads the rest after ``initialize``),
  ``__main__`` (the ``runway-lsp`` console script).

Must never import pulumi or deploy_engine: editor users never pay for the deploy extra
(a test spawns the server module and checks ``sys.modules``).
"""

from __future__ import annotations

import os
import sys


def _installed_version(dist: str = "runway_tooling") -> str | None:
    """The version in the first ``<dist>-<version>.dist-info`` (or egg-info) on ``sys.path``,
    where :func:`importlib.metadata.version` looks too, without importing
    ``importlib.metadata`` (~30 ms of the server's start-up, issue 6). None when not found."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            base, ext = os.path.splitext(name)
            if ext not in (".dist-info", ".egg-info") or not base.lower().replace("-", "_").startswith(dist):
                continue
            stem, _, version = base.partition("-")
            if stem.lower().replace("-", "_") != dist:
                continue
            if version and ext == ".dist-info":
                return version
            try:
                with open(os.path.join(entry or ".", name, "PKG-INFO"), encoding="utf-8") as fh:
                    for line in fh:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
                        if not line.strip():
                            break
            except OSError:
                pass
            if version:
                return version
    return None


__version__ = _installed_version() or ""
if not __version__:  # an unusual install: ask importlib.metadata
    from importlib import metadata

    try:
        __version__ = metadata.version("runway-tooling")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        __version__ = "0+unknown"

__all__ = ["__version__"]
