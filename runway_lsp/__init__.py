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

import runway_core  # noqa: F401 - imported first: it leaves the workspace off sys.path under -m


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


def _source_version() -> str:
    """The project's version where no distribution metadata is on ``sys.path`` (the server
    bundled in the VS Code extension: ``scripts/bundle.py`` copies the packages, not a
    dist-info; a source tree that is not installed): ``runway_core.__version__``, the one
    place ``pyproject.toml`` takes the distribution's version from. It is what ``initialize``
    answers as ``serverInfo.version`` (issue 26: the bundle said ``0+unknown``)."""
    from runway_core import __version__ as version

    return version


__version__ = _installed_version() or _source_version()

__all__ = ["__version__"]
