"""Argument types shared by ``runway-deploy``'s parser and ``python -m deploy_engine.pricelist``
(a leaf module: the price refresh's own parser takes them without importing the CLI)."""

from __future__ import annotations

import argparse
import re

#: A number of seconds as a CI file writes one: ASCII digits, an optional fraction. Python's
#: ``float`` also takes `١٠`, `１０`, `1_0`, `1e1`, `inf` (sixth adversary F5), which no doc
#: of these options names, and a CI runner's shell would not read the same way.
_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+", re.ASCII)


def seconds_value(text: str) -> float | None:
    """``text`` (spaces around it ignored) as a number of seconds, or None when it is not
    :data:`_SECONDS`' plain ASCII decimal. Range checks are the caller's."""
    text = text.strip()
    return float(text) if _SECONDS.fullmatch(text) else None


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
