"""Argument types shared by ``runway-deploy``'s parser and ``python -m deploy_engine.pricelist``
(a leaf module: the price refresh's own parser takes them without importing the CLI)."""

from __future__ import annotations

import argparse


def named(what: str):  # type: ignore[no-untyped-def]
    """An argparse ``type`` for a FILE, DIR or URL option: the name as given, but an empty one (or
    only spaces: ``--output "$UNSET"`` in a CI template) is a usage error (exit 64) naming
    ``what``, never taken as "no option" (exit 0 with nothing written) nor as the current
    folder (``catalog refresh --output ""`` wrote into it; fourth adversary, F06)."""
    def check(text: str) -> str:
        if not text.strip():
            kind = "folder" if what.endswith("DIR") else "URL" if what.endswith("URL") else "file"
            raise argparse.ArgumentTypeError(f"{what} is empty: name a {kind}")
        return text

    check.__name__ = what  # argparse names the type in its error
    return check
