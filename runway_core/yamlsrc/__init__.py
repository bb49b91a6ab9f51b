"""YAML loading with a position for every key and value, YAML 1.2 scalars, and bounded aliases.

We drive ruamel.yaml's C parser (libyaml, from ruamel.yaml.clib) at the *event* level and
compose our own small node tree. Why not ``YAML.compose``: it is ~4x slower than the events
alone, it loses the position of every alias (needed to point at an alias bomb), and it would
need a second walk to find duplicate keys. Composing here is one pass with an explicit stack
(no recursion, so 10,000-deep nesting cannot overflow Python's stack).

Rules implemented here (docs/format.md, "Files"): YAML 1.2 core-schema scalars (``on``,
``yes``, ``no`` are strings; ``0755`` is the integer 755; ``1e3`` is a float), duplicate keys
reported at the second key, anchors/aliases allowed but bounded, a second document, an empty or
comment-only file, tabs, a BOM, unknown tags and syntax errors each a positioned diagnostic.
Nothing here raises for any input text.

Must not import pygls, lsprotocol or pulumi.
"""

from .compose import ALIAS_EXPANSION_LIMIT, MAX_DEPTH
from .nodes import ParsedYaml, YMap, YNode, YScalar, YSeq, exact_number, find_path, iter_nodes, node_flow, node_path_at, resolve_plain, scalar_text, to_python
from .parse import parse_yaml

__all__ = [
    "ALIAS_EXPANSION_LIMIT",
    "MAX_DEPTH",
    "ParsedYaml",
    "YMap",
    "YNode",
    "YScalar",
    "YSeq",
    "exact_number",
    "find_path",
    "iter_nodes",
    "node_flow",
    "node_path_at",
    "parse_yaml",
    "resolve_plain",
    "scalar_text",
    "to_python",
]
