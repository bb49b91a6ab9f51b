"""Where the cursor is in a YAML tree: the chain of (path part, node, key node) from the root
down to the innermost node at a position, and whether the cursor is on that key."""

from __future__ import annotations

from typing import NamedTuple

from ..positions import Position
from ..yamlsrc import YNode, YScalar, node_path_at


class Cursor(NamedTuple):
    """``chain`` as :func:`runway_core.yamlsrc.node_path_at` returns it (never empty),
    ``parts`` its path parts, ``node`` and ``key`` its last node and key node, ``on_key``
    True when the position is on that key (not on its value)."""

    chain: list[tuple[str | int, YNode, YScalar | None]]
    parts: tuple[str | int, ...]
    node: YNode
    key: YScalar | None
    on_key: bool


def cursor_at(root: YNode | None, pos: Position) -> Cursor | None:
    """The :class:`Cursor` at ``pos`` of the tree ``root``; None when no node contains it."""
    chain = node_path_at(root, pos)
    if not chain:
        return None
    _part, node, key = chain[-1]
    return Cursor(chain, tuple(p for p, _n, _k in chain), node, key, key is not None and key.range.contains(pos))


__all__ = ["Cursor", "cursor_at"]
