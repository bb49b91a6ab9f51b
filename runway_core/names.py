"""The name patterns of the runway format (docs/format.md, "Names"): product, resource,
workload, environment and member names, image digests, secret and variable names; and the
names RW111 reserves for the plan's implicit items (:func:`reserved_name`).

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

from .kinds import RESOURCE_KINDS

DNS_LABEL = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
NAME_LABEL = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
DIGEST = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


#: Names of the per-environment plan items (planner: the ALB, the Cloud Map namespace), each
#: with what it is: RW111 reserves them.
ENVIRONMENT_ITEM_NAMES = {"alb": "the environment's load balancer", "service-discovery": "the environment's service discovery namespace"}


def reserved_name(name: str) -> str | None:
    """What the implicit item named ``name`` is, when RW111 reserves the name for it: ``"the
    implicit shared postgres pool"`` for ``shared-postgres`` (``shared-<kind>``, any resource
    kind), ``"the environment's load balancer"`` for ``alb``, ``"the environment's service
    discovery namespace"`` for ``service-discovery``; else None. The one list of reserved
    names: the rule RW111, the rename and the "Create resource" fix all ask here."""
    if name.startswith("shared-") and name[len("shared-"):] in RESOURCE_KINDS:
        return f"the implicit shared {name[len('shared-'):]} pool"
    return ENVIRONMENT_ITEM_NAMES.get(name)


def shown(name: str) -> str:
    """``name`` as a message quotes it: each character that is not printable (a line break, a
    tab, a control character) written as its Python escape (``shop\\n``), so that a refused
    name stays on its message's one line (a CLI line, a SARIF result, a golden file)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in name)

__all__ = ["DNS_LABEL", "NAME_LABEL", "DIGEST", "UPPER_SNAKE", "ENV_NAME", "ENVIRONMENT_ITEM_NAMES", "reserved_name", "shown"]
