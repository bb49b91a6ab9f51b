"""Navigation values (runway_lsp/navigation.py): locations, symbols and their kinds,
highlights, rename placeholders and document links.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

_SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "file": types.SymbolKind.File,
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "package": types.SymbolKind.Package,
    "class": types.SymbolKind.Class,
    "property": types.SymbolKind.Property,
    "field": types.SymbolKind.Field,
    "string": types.SymbolKind.String,
    "number": types.SymbolKind.Number,
    "boolean": types.SymbolKind.Boolean,
    "array": types.SymbolKind.Array,
    "object": types.SymbolKind.Object,
    "null": types.SymbolKind.Null,
}
#: Symbol kinds every client knows (LSP 3.17: without a valueSet, File up to Array).
_BASE_KINDS = frozenset(range(int(types.SymbolKind.File), int(types.SymbolKind.Array) + 1))
_HIGHLIGHT_KINDS = {"write": types.DocumentHighlightKind.Write, "read": types.DocumentHighlightKind.Read}


def symbol_kind(kind: str, supported: frozenset[int]) -> types.SymbolKind:
    """The LSP kind of a core symbol kind; Property when the client does not know it."""
    k = _SYMBOL_KINDS.get(kind, types.SymbolKind.Property)
    return k if int(k) in supported else types.SymbolKind.Property


def supported_kinds(caps: types.ClientCapabilities, *path: str) -> frozenset[int]:
    """The ``symbolKind.valueSet`` the client declares at ``path`` of its capabilities
    (e.g. ``"workspace", "symbol", "symbol_kind"``), else the base kinds."""
    node: Any = caps
    for part in path:
        node = getattr(node, part, None) if node is not None else None
    value_set = getattr(node, "value_set", None) if node is not None else None
    return frozenset(int(k) for k in value_set) if value_set else _BASE_KINDS


def location(uri: str, rng: types.Range) -> types.Location:
    return types.Location(uri=uri, range=rng)


def document_symbol(name: str, kind: types.SymbolKind, detail: str | None, rng: types.Range, selection: types.Range,
                    children: list[types.DocumentSymbol] | None) -> types.DocumentSymbol:
    return types.DocumentSymbol(name=name, kind=kind, detail=detail, range=rng, selection_range=selection, children=children)


def symbol_information(name: str, kind: types.SymbolKind, uri: str, rng: types.Range, container: str | None) -> types.SymbolInformation:
    return types.SymbolInformation(name=name, kind=kind, location=types.Location(uri=uri, range=rng), container_name=container)


def highlight(rng: types.Range, kind: str) -> types.DocumentHighlight:
    """A document highlight; ``kind`` is the core's ``"read"`` or ``"write"``."""
    return types.DocumentHighlight(range=rng, kind=_HIGHLIGHT_KINDS[kind])


def rename_placeholder(rng: types.Range, placeholder: str) -> types.PrepareRenamePlaceholder:
    return types.PrepareRenamePlaceholder(range=rng, placeholder=placeholder)


def document_link(rng: types.Range, target: str, tooltip: str | None) -> types.DocumentLink:
    return types.DocumentLink(range=rng, target=target, tooltip=tooltip)
