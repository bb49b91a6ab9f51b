""":func:`runway_core.text.redact` for whole outputs, in linear time with a small constant.

``redact`` runs every credential shape (:data:`runway_core.text.SECRET_VALUE_SHAPES`) over
the text; on a 3.5 MB ``plan --format json`` that was 40% of the run (issue 14: the shapes
that start with a lookbehind are tried at every position). Each shape needs a literal that is
in every match (``AKIA``..., ``ghp_``, ``eyJ``, ``://``...): :func:`redact_output` looks for
those with ``str.__contains__`` / ``str.find`` (C, one pass each) and runs a shape only where
its literal is. The result is the same text ``redact`` returns, always
(tests/deploy/test_cli_speed.py compares them on hostile and random inputs); a shape this module does
not know is always run in full.
"""

from __future__ import annotations

import re
from typing import Callable

from runway_core.text import REDACTED, SECRET_VALUE_SHAPES


def _any(*needles: str) -> Callable[[str], bool]:
    return lambda text: any(n in text for n in needles)


def _regex(literals: str) -> Callable[[str], bool]:
    """One scan for several literals that share a first character (faster than one ``in`` each)."""
    pattern = re.compile(literals)
    return lambda text: pattern.search(text) is not None


def _url_with_password(text: str) -> bool:
    """Whether the URL shape can match: some ``://`` with a match in its window (the scheme is
    at most 32 characters before it, user and password at most 256 each after it)."""
    pattern = _SHAPES["a URL with a password in it"]
    i = text.find("://")
    while i >= 0:
        if "@" in text[i : i + 3 + 256 + 1 + 256 + 1] and pattern.search(text, max(0, i - 32), i + 3 + 256 + 1 + 256 + 1):
            return True
        i = text.find("://", i + 1)
    return False


_SHAPES = dict(SECRET_VALUE_SHAPES)
#: Shape (its ``why``) -> a test that is true whenever the shape can match (a necessary literal).
MAY_MATCH: dict[str, Callable[[str], bool]] = {
    "an AWS access key id": _regex(r"A(?:KI|SI|BI|CC|GP|ID|IP|NP|NV|RO|PK)A"),
    "a private key": _any("PRIVATE KEY-----"),
    "a GitHub token": _regex(r"g(?:h[pousr]_|ithub_pat_)"),
    "a Slack token": _any("xox"),
    "a Stripe secret key": _any("_live_", "_test_"),
    "a Google API key": _any("AIza"),
    "a JSON Web Token": _any("eyJ"),
    "a URL with a password in it": _url_with_password,
}


def redact_output(text: str) -> str:
    """``runway_core.text.redact(text)``, skipping the shapes whose literal is absent."""
    for why, pattern in SECRET_VALUE_SHAPES:
        may = MAY_MATCH.get(why)
        if may is not None and not may(text):
            continue
        if pattern.search(text):
            text = pattern.sub(REDACTED, text)
    return text


__all__ = ["MAY_MATCH", "redact_output"]
