"""The name patterns of the runway format (docs/format.md, "Names"): product, resource,
workload, environment and member names, image digests, secret and variable names.

The rules (:mod:`runway_core.rules`) check them, the JSON Schema (:mod:`runway_core.schema`)
states them, and the quick fixes only offer names that match them. A leaf.
"""

from __future__ import annotations

import re

DNS_LABEL = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
NAME_LABEL = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
DIGEST = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


__all__ = ["DNS_LABEL", "NAME_LABEL", "DIGEST", "UPPER_SNAKE", "ENV_NAME"]
