"""The name patterns of the runway format (docs/format.md, "Names"): product, resource,
workload, environment and member names, image digests, secret and variable names.

The rules (:mod:`runway_core.rules`) check them, the JSON Schema (:mod:`runway_core.schema`)
states them, and the quick fixes and the rename only offer or accept names that match them.
A leaf.

Test a name with ``PATTERN.fullmatch(text)``, never ``.match``: Python's ``$`` also matches
before a final line break, so ``DNS_LABEL.match("shop\\n")`` holds and a block scalar
(``product: |``) or a client's ``newName`` with its line break would pass (ninth adversary
L11/L13). The patterns keep ``^…$`` because the JSON Schema states them as they are, and
an ECMA-262 ``$`` without the ``m`` flag matches at the very end only.
"""

from __future__ import annotations

import re

DNS_LABEL = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
NAME_LABEL = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
DIGEST = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def shown(name: str) -> str:
    """``name`` as a message quotes it: each character that is not printable (a line break, a
    tab, a control character) written as its Python escape (``shop\\n``), so that a refused
    name stays on its message's one line (a CLI line, a SARIF result, a golden file)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in name)

__all__ = ["DNS_LABEL", "NAME_LABEL", "DIGEST", "UPPER_SNAKE", "ENV_NAME", "shown"]
