"""Where the documentation the help texts point at is on this machine: the one place that
decides it (docs/cli.md, "Documentation").

The docs ship with every install: a source checkout or an sdist has them in ``docs/`` next to
the packages; a wheel installs them as data files in ``<prefix>/share/doc/runway-tooling/``
(pyproject.toml ``[tool.setuptools.data-files]``). ``RUNWAY_DOCS_URL`` (an absolute http(s)
URL of the docs folder, e.g. a repository's ``blob/main/docs``) overrides both, as it does
for SARIF ``helpUri`` and the editor's ``codeDescription``
(:func:`runway_core.diagnostics.docs_web_url`, the one parser of that variable).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Mapping

from runway_core.diagnostics import DOCS_URL_VARIABLE, docs_web_url

#: Where a wheel installs the docs, relative to ``sys.prefix``.
INSTALLED_DOCS = Path("share", "doc", "runway-tooling")


def docs_url(environ: Mapping[str, str] | None = None) -> str | None:
    """``RUNWAY_DOCS_URL`` without a trailing ``/`` when it is an absolute http(s) URL, else None
    (``environ`` default: the process environment)."""
    return docs_web_url(os.environ if environ is None else environ)


#: The checkout's (or unpacked sdist's) docs folder, next to the packages.
SOURCE_DOCS = Path(__file__).resolve().parent.parent / "docs"


def docs_folders() -> list[Path]:
    """Where the docs may be, in order: :data:`SOURCE_DOCS`, then the data folder of this
    install's scheme (a venv's or the system's prefix), then the user scheme's (``pip install
    --user``)."""
    import site
    import sysconfig

    folders = [SOURCE_DOCS, Path(sysconfig.get_path("data")) / INSTALLED_DOCS, Path(sys.prefix) / INSTALLED_DOCS]
    try:
        folders.append(Path(site.getuserbase()) / INSTALLED_DOCS)
    except (AttributeError, OSError):
        pass
    return folders


def docs_folder() -> Path | None:
    """The first of :func:`docs_folders` that holds cli.md; None when none does."""
    return next((f for f in docs_folders() if (f / "cli.md").is_file()), None)


def doc(name: str) -> str:
    """Where to read ``name`` (``"cli.md"``): a URL, a local path, or ``docs/<name>`` of the
    source distribution when this install has no docs."""
    url = docs_url()
    if url is not None:
        return f"{url}/{name}"
    folder = docs_folder()
    return str(folder / name) if folder is not None else f"docs/{name} in the runway-tooling source distribution"


class _Docs:
    """``DOCS.cli``, ``DOCS.deploy``, ``DOCS.ci``, ``DOCS.diagnostics``: :func:`doc` of each page."""

    @property
    def cli(self) -> str:
        return doc("cli.md")

    @property
    def deploy(self) -> str:
        return doc("deploy.md")

    @property
    def ci(self) -> str:
        return doc("ci.md")

    @property
    def diagnostics(self) -> str:
        return doc("diagnostics.md")


DOCS = _Docs()

__all__ = ["DOCS", "DOCS_URL_VARIABLE", "SOURCE_DOCS", "doc", "docs_folder", "docs_folders", "docs_url"]
