"""Completion and hover in a usage file (docs/format.md, "Usage file"), shared by the
completion and hover queries (an ``ide/_*`` module, so neither imports the other).

Where the cursor is is read from the lines' indentation, not from the YAML tree: a key being
typed (``        req``) is no mapping entry yet, and the lines above say whose it would be
(yaml-language-server reads a half-typed line the same way, from its parent's indentation).
Offered: the environments, ``items`` and ``network``, the items that have usage keys, and each
item's keys with the catalogue's assumption for its size in that environment shown (and
inserted as the value); a key's value position offers that assumption.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..analysis.usage import key_rows, quantity_text
from ..money import usd
from ..positions import Position, Range
from ..usage import NETWORK

#: One completion in a usage file, as the completion query builds its candidate from it:
#: ``(label, kind, range, new_text, detail, documentation, sort_text)``.
UsageCompletion = tuple[str, str, Range, str, "str | None", "str | None", "str | None"]

if TYPE_CHECKING:
    from ..facts import Analysis

_KEY = re.compile(r"^(\s*)([A-Za-z0-9_.-]+)\s*:(.*)$")
_WORD = re.compile(r"[A-Za-z0-9_-]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _parents(lines: list[str], line: int, indent: int) -> list[str]:
    """The keys above ``line`` that hold a line indented ``indent``, outermost first."""
    path: list[str] = []
    for n in range(line - 1, -1, -1):
        text = lines[n]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        m = _KEY.match(text)
        if m and len(m.group(1)) < indent:
            path.insert(0, m.group(2))
            indent = len(m.group(1))
            if indent == 0:
                break
    return path


def usage_completions(an: "Analysis", lines: list[str], pos: Position) -> list[UsageCompletion]:
    """The completions at ``pos`` of a usage file whose text is ``lines`` (``an``: its
    product's analysis). Returns [] where nothing fits."""
    if pos.line >= len(lines) or an.spec is None:
        return []
    text = lines[pos.line][: pos.character]
    if "#" in text:
        return []
    m = _KEY.match(text)
    if m is not None:  # after `key:`: the value, the catalogue's assumption
        path = _parents(lines, pos.line, len(m.group(1))) + [m.group(2)]
        return _values(an, path, pos, m.group(3))
    word = _WORD.search(text).group(0)  # type: ignore[union-attr]
    rng = Range(Position(pos.line, pos.character - len(word)), pos)
    path = _parents(lines, pos.line, _indent(text) if text.strip() else pos.character)
    present = _siblings(lines, pos.line, _indent(text) if text.strip() else pos.character)
    out: list[UsageCompletion] = []

    def add(label: str, detail: str, new_text: str, doc: str | None = None, order: str | None = None) -> None:
        if label not in present:
            out.append((label, "property", rng, new_text, detail, doc, order))

    envs = [e.name for e in an.spec.environments]
    if not path:
        add("usage", "the format's version", "usage: 1")
        add("environments", "environment -> items and network", "environments:")
    elif path == ["environments"]:
        for n, env in enumerate(envs):
            add(env, f"usage quantities of {env}", f"{env}:", order=f"{n:03d}")
    elif len(path) == 2 and path[0] == "environments":
        add("items", "resources and workloads -> usage keys", "items:")
        add("network", "NAT data processed, data transfer out", "network:")
    elif len(path) == 3 and path[0] == "environments" and path[2] == "items":
        for n, (name, entry) in enumerate(an.spec.entries.items()):
            if key_rows(an, path[1], name):
                add(name, f"{entry.kind}, {entry.size_in(path[1])} in {path[1]}", f"{name}:", order=f"{n:04d}")
    elif len(path) in (3, 4) and path[0] == "environments" and (path[2] == "network" or (len(path) == 4 and path[2] == "items")):
        item = NETWORK if path[2] == "network" else path[3]
        for n, (key, assumed, _given) in enumerate(key_rows(an, path[1], item)):
            default = quantity_text(assumed) if assumed is not None else "0"
            why = f"default {default} (catalogue assumption)" if assumed is not None else "not estimated without a usage file"
            add(key.key, f"{key.unit}; {why}", f"{key.key}: {default}", f"{key.what}, {key.unit}. {why.capitalize()}.", f"{n:02d}")
    return out


def _siblings(lines: list[str], line: int, indent: int) -> set[str]:
    """The keys already written at ``indent`` in the block of ``line`` (not offered again)."""
    out: set[str] = set()
    for step in (-1, 1):
        n = line + step
        while 0 <= n < len(lines):
            text = lines[n]
            if text.strip() and not text.lstrip().startswith("#"):
                i = _indent(text)
                if i < indent:
                    break
                m = _KEY.match(text)
                if i == indent and m:
                    out.add(m.group(2))
            n += step
    return out


def _values(an: "Analysis", path: list[str], pos: Position, after: str) -> list[UsageCompletion]:
    if len(path) < 4 or path[0] != "environments":
        return []
    item, key = (NETWORK, path[3]) if path[2] == "network" else (path[3] if len(path) == 5 else None, path[-1])
    if item is None or after.strip():
        return []
    for k, assumed, _given in key_rows(an, path[1], item):
        if k.key == key:
            default = quantity_text(assumed) if assumed is not None else "0"
            rng = Range(Position(pos.line, pos.character - len(after)), pos)  # from just after the colon
            why = "the catalogue's assumption" if assumed is not None else "not estimated without a usage file"
            return [(default, "value", rng, f" {default}", f"{k.unit}; {why}", None, None)]
    return []


def usage_hover(an: "Analysis", lines: list[str], pos: Position) -> tuple[str, Range] | None:
    """Markdown for the key under ``pos`` in a usage file: a usage key's unit, the catalogue's
    assumption and the line items it prices; an item's keys. None elsewhere."""
    if pos.line >= len(lines) or an.spec is None:
        return None
    m = _KEY.match(lines[pos.line])
    if m is None:
        return None
    start = len(m.group(1))
    if not start <= pos.character <= start + len(m.group(2)):
        return None
    rng = Range(Position(pos.line, start), Position(pos.line, start + len(m.group(2))))
    path = _parents(lines, pos.line, start) + [m.group(2)]
    if len(path) < 4 or path[0] != "environments":
        return None
    env = path[1]
    item = NETWORK if path[2] == "network" else path[3]
    rows = key_rows(an, env, item)
    plan = an.plans.get(env)
    plan_item = plan.item("network" if item == NETWORK else item) if plan is not None else None
    if (path[2] == "network" and len(path) == 4) or (path[2] == "items" and len(path) == 5):
        key = path[-1]
        for k, assumed, given in rows:
            if k.key != key:
                continue
            out = [f"**{k.key}** ({k.unit}): {k.what}.", ""]
            out.append(f"Catalogue assumption in {env}: {quantity_text(assumed)}." if assumed is not None else "Not estimated without a usage file.")
            if given is not None:
                out.append(f"This file: {quantity_text(given.quantity)} ({given.source}).")
            if plan_item is not None:
                for li in plan_item.line_items:
                    if li.quantity_source.startswith("usage file") and given is not None and li.quantity_source == given.source:
                        out.append(f"- {li.description}: {usd(li.monthly_usd)}/month")
            return "\n".join(out), rng
        return None
    if path[2] == "items" and len(path) == 4:
        if not rows:
            return None
        out = [f"**{item}** in {env}: {usd(plan_item.monthly_usd) if plan_item else '?'}/month", ""]
        out.extend(f"- `{k.key}` ({k.unit}): " + (f"{quantity_text(g.quantity)} ({g.source})" if g is not None else
                                                  (f"assumed {quantity_text(a)}" if a is not None else "not estimated")) for k, a, g in rows)
        return "\n".join(out), rng
    return None
