"""The root runway's models, environments, symbols and workload references.

Resources and workloads are validated entry by entry (one bad entry spoils nothing else),
and an entry whose text is the same as in the last analysis of that root reuses its model
(:data:`runway_core.analysis.cache._ENTRY_MODELS`, issue 6).
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis, Reference, Symbol
from ..model import ENGINE_MODELS, MAX_ENTRIES, MAX_ENVIRONMENTS, MAX_PRICED_ITEMS, Environment, Resource, RootRunway, Workload
from ..planner import default_environments
from ..yamlsrc import ParsedYaml, YMap, YScalar, YSeq, to_python
from .cache import _ENTRY_MODELS
from .validate import _validate

#: Text that makes an entry's value depend on more than its own text (aliases, anchors, merge
#: keys, tags): such an entry is always converted and validated.
_NOT_LOCAL = ("*", "&", "<<", "!")


def _entry_text_keys(parsed: ParsedYaml, root: YMap, sect: str, sect_node: YMap, read: int | None = None) -> list[tuple[str, int, str]] | None:
    """The reuse key of each entry of a block section (of its first ``read`` entries, the
    ones read: RW157): its text from its key to the next entry's key (the last: to the next
    top-level key, or the end), and its key's column.
    None when the section is a flow mapping, when its entries are not in written order, or
    when its text holds an alias, anchor, merge key or tag (a value may then come from
    elsewhere)."""
    sect_key = root.key_node(sect)
    if sect_node.flow or sect_key is None:
        return None
    lines, text = parsed.lines, parsed.text
    start = lines.offset(sect_key.range.start)
    end = len(text)
    for k, _v in root.entries:
        o = lines.offset(k.range.start)
        if start < o < end:
            end = o
    if any(c in text[start:end] for c in _NOT_LOCAL):
        return None
    entries = sect_node.entries if read is None else sect_node.entries[: read + 1]  # + the next entry's start
    starts = [lines.offset(k.range.start) for k, _v in entries]
    out = []
    for i, (k, _v) in enumerate(entries[:read] if read is not None else entries):
        s, e = starts[i], starts[i + 1] if i + 1 < len(starts) else end
        if not start < s < e <= end:
            return None
        out.append((sect, k.range.start.character, text[s:e]))
    return out


def _bound_sections(an: Analysis, parsed: ParsedYaml, root: YMap) -> None:
    """How many entries of each section are read, into ``an.entries_read``: at most
    :data:`MAX_ENTRIES` resources and workloads together (resources first), then at most
    :data:`MAX_ENVIRONMENTS` environments and no more than keep environments x entries within
    :data:`MAX_PRICED_ITEMS` (every environment prices every entry). RW157/RW156 at the first
    entry left out. What is left out is not validated, planned nor checked, so the error
    keeps the product from passing (fail closed: an environment not planned is never shown
    as under its cap)."""
    budget = MAX_ENTRIES
    for sect in ("resources", "workloads"):
        node = root.get(sect)
        if not isinstance(node, YMap):
            continue
        n = len(node.entries)
        limit, budget = budget, max(0, budget - n)
        if n <= limit:
            continue
        an.entries_read[sect] = limit
        first = node.entries[limit][0]
        an.add(Diagnostic(parsed.path, first.range, Severity.ERROR, "RW157",
                          f"more than {MAX_ENTRIES:,} resources and workloads: `{first.text}` and {n - limit - 1:,} more {sect} after it are not read, so they are not planned nor checked",
                          {"entry": first.text, "section": sect, "max_entries": MAX_ENTRIES, "not_read": n - limit}))
    node = root.get("environments")
    if not isinstance(node, YMap):
        return
    entries = MAX_ENTRIES - budget  # the resources and workloads read
    limit = min(MAX_ENVIRONMENTS, max(1, MAX_PRICED_ITEMS // max(1, entries)))
    n = len(node.entries)
    if n <= limit:
        return
    an.entries_read["environments"] = limit
    first = node.entries[limit][0]
    why = (f"more than {MAX_ENVIRONMENTS:,} environments" if limit == MAX_ENVIRONMENTS else
           f"more than {limit:,} environments for {entries:,} resources and workloads (at most {MAX_PRICED_ITEMS:,} priced items)")
    an.add(Diagnostic(parsed.path, first.range, Severity.ERROR, "RW156",
                      f"{why}: `{first.text}` and {n - limit - 1:,} more after it are not read, so they are not planned nor checked",
                      {"environment": first.text, "max_environments": limit, "not_read": n - limit}))


def _analyze_root(an: Analysis, parsed: ParsedYaml) -> None:
    root = parsed.root
    assert isinstance(root, YMap)
    _bound_sections(an, parsed, root)
    # Resources and workloads are converted entry by entry below (and only when their model
    # cannot be reused); validating the root itself only needs to know they are mappings.
    data = {k.text: ({} if k.text in ("resources", "workloads") and isinstance(v, YMap) else to_python(v)) for k, v in root.entries}
    top = {k: v for k, v in data.items() if k not in ("environments", "resources", "workloads")}
    for sect in ("environments", "resources", "workloads"):
        if sect in data:
            v = data[sect]
            top[sect] = {} if isinstance(v, dict) or v is None else v
    an.root_model = _validate(RootRunway, top, (), parsed, an)
    # Environments
    envs = data.get("environments")
    # `environments:` left empty (null or `{}`) means the defaults, never "no environment".
    an.environments_declared = "environments" in data and isinstance(envs, dict) and bool(envs)
    env_node = root.get("environments")
    if an.environments_declared and isinstance(env_node, YMap):
        names = []
        for k, v in an.read_entries("environments", env_node):
            names.append(k.text)
            an.env_keys[k.text] = k.range
        an.environment_names = tuple(names)
    else:
        an.environment_names = tuple(e.name for e in default_environments())
    # Resources / workloads, validated one by one so one bad entry spoils nothing else.
    reused = _ENTRY_MODELS.get(parsed.path, {})
    kept: dict[tuple[str, int, str], Any] = {}
    for sect, model, store in (("resources", Resource, an.resource_models), ("workloads", Workload, an.workload_models)):
        sect_node = root.get(sect)
        if not isinstance(sect_node, YMap):
            continue
        keys = _entry_text_keys(parsed, root, sect, sect_node, an.entries_read.get(sect))
        for i, (k, v) in enumerate(an.read_entries(sect, sect_node)):
            if v is None or (isinstance(v, YScalar) and v.value is None):
                an.add(Diagnostic(parsed.path, k.range, Severity.ERROR, "RW101",
                                  f"{'resource' if sect == 'resources' else 'workload'} `{k.text}` is empty; it needs "
                                  + ("`kind`" if sect == "resources" else "`image`, `port`, `health` and `reason`"),
                                  {"key": "kind" if sect == "resources" else "image", "path": [sect, k.text]}))
                continue
            key = keys[i] if keys is not None else None
            m = reused.get(key) if key is not None else None
            if m is not None:
                store[k.text] = kept[key] = m  # same text: same value, same model, no diagnostic
                continue
            before = len(an.diagnostics.get(parsed.path, ()))
            raw = to_python(v)
            m = _validate(model, raw, (sect, k.text), parsed, an)
            if m is not None:
                store[k.text] = m
            # Engine options are checked even when a sibling key is wrong (all errors at once).
            eng, kind = (raw.get("engine"), raw.get("kind")) if isinstance(raw, dict) else (None, None)
            if sect == "resources" and isinstance(eng, dict) and isinstance(kind, str) and kind in ENGINE_MODELS:
                _validate(ENGINE_MODELS[kind], eng, (sect, k.text, "engine"), parsed, an, kind=kind)
            if key is not None and m is not None and len(an.diagnostics.get(parsed.path, ())) == before:
                kept[key] = m
    _ENTRY_MODELS[parsed.path] = kept
    env_models: dict[str, Environment] = {}
    if isinstance(env_node, YMap):
        for k, v in an.read_entries("environments", env_node):
            m = _validate(Environment, to_python(v) or {}, ("environments", k.text), parsed, an)
            if m is not None:
                env_models[k.text] = m
    an.env_models = env_models

    # Declared symbols: resources and workloads share one namespace (RW112 reports clashes;
    # the resource keeps the name).
    for sect, typ in (("resources", "resource"), ("workloads", "workload")):
        sect_node = root.get(sect)
        if not isinstance(sect_node, YMap):
            continue
        for k, v in an.read_entries(sect, sect_node):
            if typ == "workload":
                if k.text not in an.symbols:
                    an.symbols[k.text] = Symbol(k.text, "workload", "workload", parsed.path, k.range)
                continue
            rm = an.resource_models.get(k.text)
            kind_node = v.get("kind") if isinstance(v, YMap) else None
            raw_kind = kind_node.value if isinstance(kind_node, YScalar) and isinstance(kind_node.value, str) else None
            an.symbols[k.text] = Symbol(k.text, "resource", rm.kind if rm is not None else raw_kind, parsed.path, k.range)
    # Workload uses -> references
    wl_node = root.get("workloads")
    if isinstance(wl_node, YMap):
        for k, v in an.read_entries("workloads", wl_node):
            uses = v.get("uses") if isinstance(v, YMap) else None
            if isinstance(uses, YSeq):
                for item in uses.items:
                    if isinstance(item, YScalar) and isinstance(item.value, str):
                        an.references.append(Reference(item.value, parsed.path, item.range, k.text, "uses"))
