"""The usage file of a product (:mod:`runway_core.usage`): read beside the root runway (or
where the caller says), checked against the runway (RW200 shape, RW201 unknown environment or
item, RW202 unknown usage key, each with the closest name), and given to the planner as the
spec's ``usage`` (docs/format.md, "Usage file").
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from decimal import Decimal

from .. import kinds
from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis, SourceFile
from ..positions import Position, Range
from ..text import suggest
from ..usage import NETWORK, USAGE_FILE_NAME, UsageEntry, UsageKey, UsageValue, parse_usage, usage_keys
from ..workspace import MAX_FILE_CHARS, FileTooLarge, Reader, usage_link_escapes
from ..yamlsrc.nodes import resolve_plain
from .report import _not_utf8, _too_large


def usage_path(root_file: str, usage_file: str | None) -> str:
    """The usage file of ``root_file``: ``usage_file`` when given (absolute, or relative to the
    root's folder), else :data:`runway_core.usage.USAGE_FILE_NAME` beside it."""
    folder = os.path.dirname(os.path.abspath(root_file))
    if usage_file:
        return os.path.abspath(os.path.join(folder, os.path.expanduser(usage_file)))
    return os.path.join(folder, USAGE_FILE_NAME)


def _did_you_mean(word: str, options: list[str]) -> str:
    best = suggest(word, options)
    return f"; did you mean `{best}`?" if best else ""


def _keys_problem(an: Analysis, entry: UsageEntry) -> tuple[str, list[str], str | None]:
    """(what the item is, its usage keys, why none of its keys apply or None)."""
    if entry.item == NETWORK:
        return "the network", [k.key for k in usage_keys(NETWORK)], None
    e = an.spec.entries[entry.item]  # type: ignore[union-attr]
    keys = [k.key for k in usage_keys(e.kind)]
    if keys:
        return f"{e.kind} `{entry.item}`", keys, None
    kind = kinds.get(e.kind)
    billed = f" (it is billed by {kind.billed_by})" if kind is not None and kind.billed_by else ""
    return f"{e.kind} `{entry.item}`", keys, f"a {e.kind} has no usage quantities{billed}"


def check_usage(an: Analysis, read: Reader, usage_file: str | None) -> None:
    """Read the usage file of ``an`` (the default name: only when it exists; a named one: RW200
    when it cannot be read), report its problems, and set ``an.spec.usage`` to its valid
    values. ``an.spec`` must be built."""
    path = usage_path(an.root_file, usage_file)
    escapes = usage_link_escapes(path, an.root_file)
    if escapes is not None:
        # Checked before any read, the editor's buffers included: a link to /etc/shadow must
        # not come back line by line as "unknown environment" diagnostics.
        an.add(Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW200", escapes))
        return
    try:
        text = read(path)
        if len(text) > MAX_FILE_CHARS:
            raise FileTooLarge(len(text), "characters")
    except FileTooLarge as exc:
        an.add(_too_large(path, exc))
        return
    except UnicodeDecodeError as exc:
        an.add(_not_utf8(path, exc))
        return
    except OSError as exc:
        if usage_file is None and isinstance(exc, FileNotFoundError):
            return  # no usage file: the catalogue's assumptions
        an.add(Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW200", f"cannot read the usage file: {exc.strerror or exc}"))
        return
    usage = parse_usage(text, path)
    an.files[path] = SourceFile(path, "usage", usage.parsed)
    an.diagnostics.setdefault(path, [])
    for d in usage.diagnostics:
        an.add(d)
    if an.spec is None:
        return
    envs = [e.name for e in an.spec.environments]
    items = list(an.spec.entries)
    values: dict[str, dict[str, dict[str, UsageValue]]] = {}
    for env, rng in usage.environments:
        if env not in envs:
            an.add(Diagnostic(path, rng, Severity.ERROR, "RW201",
                              f"unknown environment `{env}` in the usage file (the runway's: {', '.join(envs)}){_did_you_mean(env, envs)}"))
    for entry in usage.entries:
        if entry.env not in envs:
            continue
        if entry.item != NETWORK and entry.item not in an.spec.entries:
            an.add(Diagnostic(path, entry.item_range, Severity.ERROR, "RW201",
                              f"unknown item `{entry.item}` in the usage file: no resource or workload has that name{_did_you_mean(entry.item, items)}"))
            continue
        what, keys, none = _keys_problem(an, entry)
        kept: dict[str, UsageValue] = {}
        for key, rng, value in entry.values:
            if none is not None:
                an.add(Diagnostic(path, rng, Severity.ERROR, "RW202", f"`{key}`: {none}"))
                continue
            if key not in keys:
                an.add(Diagnostic(path, rng, Severity.ERROR, "RW202",
                                  f"`{key}` is not a usage quantity of {what} (its keys: {', '.join(keys)}){_did_you_mean(key, keys)}"))
                continue
            why = _inapplicable(an, entry, key)
            if why is not None:
                an.add(Diagnostic(path, rng, Severity.ERROR, "RW202", f"`{key}` {why}"))
                continue
            kept[key] = value
        if kept:
            values.setdefault(entry.env, {}).setdefault(entry.item, {}).update(kept)
    if values:
        an.spec = dataclasses.replace(an.spec, usage=values)


def _inapplicable(an: Analysis, entry: UsageEntry, key: str) -> str | None:
    """Why ``key`` of a known kind does not apply to this entry's options, or None."""
    if entry.item == NETWORK:
        return None
    return _why_not(an.spec.entries[entry.item].engine, key, entry.item)  # type: ignore[union-attr]


def _why_not(engine, key: str, name: str) -> str | None:
    """Why usage ``key`` is not billed for an item with these engine options, or None: Aurora's
    I/O and SNS FIFO's payload are charges of those options only."""
    if key == "io_requests_millions" and (engine.get("flavor") or "rds") != "aurora":
        return f"applies to `flavor: aurora` only (`{name}` is RDS, billed without I/O charges)"
    if key == "payload_gb" and not engine.get("fifo"):
        return f"applies to FIFO topics only (`{name}` is a Standard topic, whose payload is not billed separately)"
    return None


def quantity_text(q: Decimal) -> str:
    """A Decimal quantity as YAML writes it back: ``1.5``, ``25``, never ``2.5E+1``."""
    return f"{q.normalize():f}"


def key_rows(an: Analysis, env: str, item: str) -> list[tuple[UsageKey, Decimal | None, UsageValue | None]]:
    """The usage keys ``item`` (or :data:`NETWORK`) of ``an`` has in ``env`` (only those its
    options bill), each with the catalogue's assumption for its size there (None: not
    estimated without a usage file) and the usage file's value (None: not given). Empty for an
    unknown item. Shared by ``usage init``, completion and hover in a usage file."""
    spec = an.spec
    if spec is None:
        return []
    given = spec.usage_of(env, item)
    if item == NETWORK:
        return [(k, None, given.get(k.key)) for k in usage_keys(NETWORK)]
    entry = spec.entries.get(item)
    if entry is None:
        return []
    keys = [k for k in usage_keys(entry.kind) if _why_not(entry.engine, k.key, item) is None]
    size = entry.size_in(env)
    flavor = (entry.engine.get("flavor") or "rds") if entry.kind == "postgres" else None
    try:
        cap = an.catalog.capacity(entry.kind, size, flavor)
    except ValueError:
        cap = None
    return [(k, cap.get(k.assumption) if cap is not None and k.assumption else None, given.get(k.key)) for k in keys]


def usage_template(an: Analysis) -> str:
    """A commented usage file for ``an`` (``runway-deploy usage init``, like Infracost's
    ``--sync-usage-file``): every environment, every item with usage keys and the network,
    each key at the catalogue's assumption for the item's size there, commented out, or at the
    value the current usage file gives (kept, not commented). Requires ``an.spec``."""
    spec = an.spec
    assert spec is not None
    out = [
        f"# {USAGE_FILE_NAME}: the usage quantities of product `{spec.product}` (docs/format.md, \"Usage file\").",
        "# Each key is commented out at the catalogue's assumption for the item's size in that",
        "# environment: uncomment it and write the figure you know (CloudWatch metrics, Cost Explorer,",
        "# a bill). A value given here replaces the assumption in plan, diff, hovers and lenses.",
        f"usage: {1}",
        "environments:",
    ]
    for env in spec.environments:
        out.append(f"  {yaml_key(env.name)}:")
        out.append("    items:")
        for entry in spec.entries.values():
            rows = key_rows(an, env.name, entry.name)
            if not rows:
                continue
            key = yaml_key(entry.name)
            out.append(f"      {key}:{' ' * max(1, 35 - len(key))}# {entry.kind}, {entry.size_in(env.name)}")
            out.extend(_key_lines(rows))
        out.append(f"    network:{' ' * 30}# the environment's network: NAT data processed, data out to the internet")
        out.extend(_key_lines(key_rows(an, env.name, NETWORK)))
    return "\n".join(out) + "\n"


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def yaml_key(name: str) -> str:
    """``name`` as a mapping key the usage file's parser reads back as that same string: plain
    when it is one (``dev``, ``orders-db``), double-quoted otherwise. An environment or item
    named ``null``, ``true`` or ``false`` (a valid name) written plain reads as None / True /
    False under the YAML 1.2 core schema, so the template's own keys were unknown (RW201;
    fourth adversary, F09). A JSON string is a YAML double-quoted scalar."""
    if _PLAIN_NAME.fullmatch(name) and resolve_plain(name) == name and isinstance(resolve_plain(name), str):
        return name
    return json.dumps(name)


def _key_lines(rows: list[tuple[UsageKey, Decimal | None, UsageValue | None]]) -> list[str]:
    lines = []
    for k, assumed, given in rows:
        if given is not None:
            body = f"{k.key}: {quantity_text(given.quantity)}"
            lines.append(f"        {body}{' ' * max(1, 34 - len(body))}# {k.unit}: {k.what}")
            continue
        value = quantity_text(assumed) if assumed is not None else "0"
        why = "catalogue assumption" if assumed is not None else "not estimated without a usage file"
        body = f"# {k.key}: {value}"
        lines.append(f"        {body}{' ' * max(1, 34 - len(body))}# {k.unit}: {k.what}; {why}")
    return lines


#: A block-style mapping line of a usage file: indentation, key (plain or double-quoted), the
#: rest, and an end-of-line comment (`` #`` after the value; usage values are numbers and
#: names, so a ``#`` in a quoted value is the one case read as no comment).
_KEY_LINE = re.compile(r'^(?P<indent> *)(?P<key>"(?:[^"\\]|\\.)*"|[^\s#"][^:#]*?)\s*:(?:\s+(?P<value>[^#\s][^#]*?))?\s*(?P<comment>#.*)?$')
#: A comment ``usage init`` writes itself: a key commented out at its assumption
#: (``# storage_gb: 25   # GB: ...``), or an item's ``# kind, size``. Never carried from an
#: earlier file: the new template writes its own, with today's assumption.
_GENERATED_COMMENT = re.compile(r"^#\s*(?:[A-Za-z0-9_]+:\s*\S+\s+#|[a-z_]+, \S+$)")


def _comment_anchors(text: str) -> tuple[list[str], dict[tuple[str, ...], list[str]], dict[tuple[str, ...], str], list[tuple[tuple[str, ...], str]]]:
    """(comment lines before the first key, full-line comments before each key path, the
    end-of-line comment of each key path, every (path, line) in order) of a usage file's text;
    paths are the tuple of keys from the top (``("environments", "production", "items",
    "invoices", "storage_gb")``)."""
    header: list[str] = []
    before: dict[tuple[str, ...], list[str]] = {}
    eol: dict[tuple[str, ...], str] = {}
    order: list[tuple[tuple[str, ...], str]] = []
    stack: list[tuple[int, str]] = []
    pending: list[str] = []
    seen_key = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped)
            continue
        if not stripped:
            continue
        m = _KEY_LINE.match(line)
        if m is None:
            pending = []
            continue
        indent = len(m.group("indent"))
        key = m.group("key")
        if key.startswith('"'):
            try:
                key = json.loads(key)
            except ValueError:
                pass
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, key))
        path = tuple(k for _i, k in stack)
        if not seen_key:
            header, pending = pending, []
            seen_key = True
        if pending:
            before.setdefault(path, []).extend(pending)
            pending = []
        if m.group("comment"):
            eol[path] = m.group("comment")
        order.append((path, line))
    if pending:
        before.setdefault((), []).extend(pending)  # after the last key: kept at the end
    return header, before, eol, order


def carry_comments(template: str, previous: str) -> str:
    """``template`` (:func:`usage_template`, whose values are those ``previous`` gives) with
    the comments the team wrote in ``previous`` (the usage file it replaces, ``usage init
    --force``) carried over: a comment line before a key goes before the same key, an
    end-of-line comment on a key replaces the generated one, comments above the first key go
    under the template's header, and those whose key is gone are kept at the end under a
    line saying so. Comments ``usage init`` writes itself (:data:`_GENERATED_COMMENT`, and any
    line of the template) are not carried. The file is the team's record of where each figure
    comes from ("figures from Cost Explorer, ticket FIN-123"): ``--force`` dropped every such
    note (eighth adversary F5). Block-style files only are read for anchors; a comment whose
    key cannot be placed is kept at the end, never dropped."""
    generated = {line.strip() for line in template.split("\n") if line.strip().startswith("#")} | {_GONE}

    def own(comment: str) -> bool:
        return comment not in generated and _GENERATED_COMMENT.match(comment) is None

    old_header, old_before, old_eol, _old_order = _comment_anchors(previous)
    _h, _b, new_eol, new_order = _comment_anchors(template)
    placed: set[tuple[str, ...]] = set()
    out: list[str] = []
    lines = template.split("\n")
    order = iter(new_order)
    next_key = next(order, None)
    header_done = False
    for line in lines:
        if next_key is not None and line == next_key[1]:
            path = next_key[0]
            indent = line[:len(line) - len(line.lstrip(" "))]
            if not header_done:
                out.extend(c for c in old_header if own(c))
                header_done = True
            out.extend(indent + c for c in old_before.get(path, ()) if own(c))
            placed.add(path)
            comment = old_eol.get(path)
            if comment is not None and own(comment) and comment != new_eol.get(path):
                m = _KEY_LINE.match(line)
                assert m is not None
                body = line[:m.start("comment")].rstrip() if m.group("comment") else line.rstrip()
                line = f"{body}   {comment}"
            out.append(line)
            next_key = next(order, None)
            continue
        out.append(line)
    left = [c for path, comments in old_before.items() if path and path not in placed for c in comments if own(c)]
    left += [f"# {'.'.join(path)}: {c}" for path, c in old_eol.items() if path not in placed and own(c)]
    tail = [c for c in old_before.get((), ()) if own(c)]
    if left or tail:
        while out and out[-1] == "":
            out.pop()
        out += tail + (["", _GONE, *left] if left else []) + [""]
    return "\n".join(out)


#: The line above the comments :func:`carry_comments` could not place (their key is gone).
_GONE = "# Comments of the earlier file whose key usage init no longer writes:"
