"""Completion and hover in a usage file (docs/format.md, "Usage file"), shared by the
completion and hover queries (an ``ide/_*`` module, so neither imports the other).

Where the cursor is is read from the lines' indentation, not from the YAML tree: a key being
typed (``        req``) is no mapping entry yet, and the lines above say whose it would be
(yaml-language-server reads a half-typed line the same way, from its parent's indentation).
Offered: the environments, ``items`` and ``network``, the items that have usage keys, and each
item's keys with the catalogue's assumption for its size in that environment shown (and
inserted as the value); a key's value position offers that assumption. What is already
written on the line is kept whole, by the rules of runway files (:func:`usage_completions`).
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
_AHEAD = re.compile(r"[A-Za-z0-9_-]*")  # the rest of the word the cursor is in
_PLAIN = re.compile(r"[ \t]*([-+0-9A-Za-z_.]+)[ \t]*(?:#.*)?\Z")  # a plain scalar written after `key:`


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
    product's analysis). Returns [] where nothing fits.

    What is written stays whole, as in runway files (docs/features.md, "Completion"): a key
    the cursor is inside is replaced whole, the name alone when its ``:`` follows; nothing is
    offered in the indentation before a written key, nor before other text; a key offered on
    a line of its own only at the indentation its mapping has (the siblings' or, in a mapping
    with none yet, any deeper than its parent key's, under a parent whose value is not
    written inline), and not above deeper lines (the key would take them); a value after
    ``key:`` replaces the plain value written there. Tenth adversary L4: each applied choice
    leaves a file that parses (tests/core/test_completion_applied.py sweeps every column).
    """
    if pos.line >= len(lines) or an.spec is None:
        return []
    cur = lines[pos.line]
    text = cur[: pos.character]
    if "#" in text:
        return []
    m = _KEY.match(text)
    if m is not None:  # after `key:`: the value, the catalogue's assumption
        path = _parents(lines, pos.line, len(m.group(1))) + [m.group(2)]
        return _values(an, lines, path, pos, m.group(3))
    word = _WORD.search(text).group(0)  # type: ignore[union-attr]
    ahead = _AHEAD.match(cur, pos.character).group(0)  # type: ignore[union-attr]
    rest = cur[pos.character + len(ahead) :].lstrip(" \t")
    start = pos.character - len(word)
    if text[:start].strip(" "):
        return []  # after other text on the line (`{a: 1, b‸`, `"us‸`): not a block key
    colon = rest.startswith(":")
    if rest.startswith("#") and cur[pos.character + len(ahead) :].startswith("#"):
        return []  # `  ‸# envs`: a key written there would take the comment as its value text
    if not colon and rest and not rest.startswith("#"):
        # The cursor in the indentation before a written key (`  ‸  items:`), or a word before
        # more text: a key written there would share the line with it (` dev:   items:`).
        return []
    rng = Range(Position(pos.line, start), Position(pos.line, pos.character + len(ahead)))
    if not colon and not _fits(lines, pos.line, start):
        return []  # a new key at an indentation its mapping does not have (` dev:` under an item)
    if not colon and _deeper_below(lines, pos.line, start):
        # `  ‸` above `      zitadel:` and `    network:`: a key there would take the deeper lines
        # below as its own (`production: 0` or one with their mixed indentation would not parse).
        return []
    path = _parents(lines, pos.line, start)
    present = _siblings(lines, pos.line, start)
    out: list[UsageCompletion] = []

    def add(label: str, detail: str, new_text: str, doc: str | None = None, order: str | None = None) -> None:
        if label in present:
            return
        if colon:  # `usa‸ge: 1`: the written key replaced, its colon and value kept
            new_text = label
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


def _content(text: str) -> bool:
    """Whether ``text`` (one line) holds more than blanks and a comment."""
    return bool(text.strip()) and not text.lstrip().startswith("#")


def _fits(lines: list[str], line: int, indent: int) -> bool:
    """Whether a block key written at column ``indent`` of ``line`` is an entry of a mapping:
    at the indentation of the first key under its parent (the nearest line above with a smaller
    indentation; at the top level, the file's first key), or deeper than a parent that holds
    no entry yet and no inline value (``items: {a: 1}``, ``gb: 5`` take no key below)."""
    parent = -1
    for n in range(line - 1, -1, -1):
        if _content(lines[n]) and _indent(lines[n]) < indent:
            parent = n
            break
    if parent >= 0:
        m = _KEY.match(lines[parent])
        if m is None or m.group(3).strip() and not m.group(3).strip().startswith("#"):
            return False
    floor = _indent(lines[parent]) if parent >= 0 else -1
    for n in range(parent + 1, len(lines)):
        if n == line or not _content(lines[n]):
            continue
        i = _indent(lines[n])
        if i <= floor:
            break
        return i == indent  # the mapping's first key sets its indentation
    return parent >= 0 or indent == 0


def _deeper_below(lines: list[str], line: int, indent: int) -> bool:
    """Whether the next line with content below ``line`` is indented deeper than ``indent``
    (a key written at ``indent`` would hold it)."""
    for n in range(line + 1, len(lines)):
        if _content(lines[n]):
            return _indent(lines[n]) > indent
    return False


def _values(an: "Analysis", lines: list[str], path: list[str], pos: Position, after: str) -> list[UsageCompletion]:
    """The value offered right after ``key:`` (``after``: the blanks typed since the colon);
    it replaces the plain value written after the cursor, and nothing is offered before other
    text (a flow collection, a quoted value) or over a block below."""
    if len(path) < 4 or path[0] != "environments":
        return []
    item, key = (NETWORK, path[3]) if path[2] == "network" else (path[3] if len(path) == 5 else None, path[-1])
    if item is None or after.strip():
        return []
    rest = lines[pos.line][pos.character :]
    end = pos.character
    if _content(rest):
        written = _PLAIN.match(rest)
        if written is None:
            return []  # `gb: [1]`, `gb: "5"`: a choice written before it would not parse
        end += written.end(1)
    elif _deeper_below(lines, pos.line, _indent(lines[pos.line])):
        return []  # `gb:` over a block below: `gb: 0` would not parse
    for k, assumed, _given in key_rows(an, path[1], item):
        if k.key == key:
            default = quantity_text(assumed) if assumed is not None else "0"
            rng = Range(Position(pos.line, pos.character - len(after)), Position(pos.line, end))  # from just after the colon
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
