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
from ..usage import NETWORK, NETWORK_KEYS, USAGE_FILE_NAME, USAGE_KEYS, UsageEntry, UsageKey, UsageValue, parse_usage, usage_keys
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
        out.append(f"    network:{' ' * 30}{_NETWORK_NOTE}")
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
            lines.append(f"        {body}{' ' * max(1, 34 - len(body))}{_note(k)}")
            continue
        lines.append(f"        {_commented(k, assumed)}")
    return lines


def _note(k: UsageKey, commented: bool = False, assumed: Decimal | None = None) -> str:
    """The end-of-line comment ``usage init`` writes on key ``k``: ``# unit: what`` on a value
    given; on the key ``commented`` out, ``; catalogue assumption`` added (``assumed`` a
    quantity) or ``; not estimated without a usage file`` (``assumed`` None)."""
    if not commented:
        return f"# {k.unit}: {k.what}"
    why = "catalogue assumption" if assumed is not None else "not estimated without a usage file"
    return f"# {k.unit}: {k.what}; {why}"


def _commented(k: UsageKey, assumed: Decimal | None) -> str:
    """Key ``k`` commented out at its assumption (``0`` when there is none), as ``usage init``
    writes it (no indentation): ``# storage_gb: 50                  # GB-month: ...``."""
    body = f"# {k.key}: {quantity_text(assumed) if assumed is not None else '0'}"
    return f"{body}{' ' * max(1, 34 - len(body))}{_note(k, True, assumed)}"


#: The end-of-line comment of an environment's ``network:`` line.
_NETWORK_NOTE = "# the environment's network: NAT data processed, data out to the internet"

#: A key's path from the top of a usage file: ``("environments", "dev", "items", "invoices", "storage_gb")``.
KeyPath = tuple[str, ...]


def assumption_lines(an: Analysis) -> dict[KeyPath, str]:
    """Each usage key of ``an`` (every environment, item and the network) commented out at its
    assumption, as :func:`usage_template` writes it when the usage file gives no value, by the
    key's path from the top (``("environments", "dev", "items", "invoices", "storage_gb")``,
    ``("environments", "dev", "network", "nat_processed_gb")``). What :func:`carry_comments`
    takes as written by ``usage init`` for a key whose value the file gives. Requires
    ``an.spec``."""
    spec = an.spec
    assert spec is not None
    out: dict[KeyPath, str] = {}
    for env in spec.environments:
        for entry in spec.entries.values():
            for k, assumed, _given in key_rows(an, env.name, entry.name):
                out[("environments", env.name, "items", entry.name, k.key)] = _commented(k, assumed)
        for k, assumed, _given in key_rows(an, env.name, NETWORK):
            out[("environments", env.name, "network", k.key)] = _commented(k, assumed)
    return out


#: A block-style mapping line of a usage file: indentation, key (plain or double-quoted), the
#: rest, and an end-of-line comment (`` #`` after the value; usage values are numbers and
#: names, so a ``#`` in a quoted value is the one case read as no comment).
_KEY_LINE = re.compile(r'^(?P<indent> *)(?P<key>"(?:[^"\\]|\\.)*"|[^\s#"][^:#]*?)\s*:(?:\s+(?P<value>[^#\s][^#]*?))?\s*(?P<comment>#.*)?$')
#: Every usage key name of every kind and of the network.
_ALL_KEYS = {k.key: k for keys in (*USAGE_KEYS.values(), NETWORK_KEYS) for k in keys}
#: An item's ``# kind, size`` as ``usage init`` writes it at the end of the item's line.
_KIND_SIZE = re.compile(r"# (?P<kind>[a-z_]+), \S+")


def _key_text(key: str) -> str:
    if key.startswith('"'):
        try:
            return json.loads(key)
        except ValueError:
            pass
    return key


def _figure_path(path: KeyPath) -> bool:
    """Whether ``path`` is where a usage quantity goes: ``environments.<env>.items.<item>.<key>``
    or ``environments.<env>.network.<key>``, ``<key>`` a usage key of some kind."""
    if not path or path[-1] not in _ALL_KEYS or path[0] != "environments":
        return False
    return (len(path) == 5 and path[2] == "items") or (len(path) == 4 and path[2] == "network")


def _parts(commented: str) -> tuple[str, str, str | None] | None:
    """(key, value, end-of-line comment or None) of a key commented out (``# storage_gb: 75
    # a note``, indentation stripped or not), or None when it is no ``key: value`` line."""
    body = commented.strip()[1:].strip()
    m = _KEY_LINE.match(body)
    if m is None or m.group("value") is None:
        return None
    comment = m.group("comment")
    return _key_text(m.group("key")), m.group("value"), comment.rstrip() if comment else None


def _walk(text: str) -> list[tuple[str, KeyPath, str]]:
    """Each line of a usage file's text as (what, path, line): ``key`` (a block mapping key;
    path: the keys from the top), ``figure`` (a usage key commented out, ``# storage_gb: 75
    # a note``, where a usage quantity goes: path the key it would be, by its indentation),
    ``comment`` (any other comment line), ``blank`` or ``other`` (neither: path ``()``)."""
    stack: list[tuple[int, str]] = []
    out: list[tuple[str, KeyPath, str]] = []
    for line in text.split("\n"):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if not stripped:
            out.append(("blank", (), line))
        elif stripped.startswith("#"):
            parts = _parts(stripped)
            path = tuple(k for i, k in stack if i < indent) + (parts[0],) if parts is not None else ()
            out.append(("figure", path, line) if _figure_path(path) else ("comment", (), line))
        elif (m := _KEY_LINE.match(line)) is None:
            out.append(("other", (), line))
        else:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, _key_text(m.group("key"))))
            out.append(("key", tuple(k for _i, k in stack), line))
    return out


def _eol(line: str) -> str | None:
    m = _KEY_LINE.match(line)
    return m.group("comment").rstrip() if m is not None and m.group("comment") else None


def carry_comments(template: str, previous: str, assumptions: dict[KeyPath, str] | None = None) -> str:
    """``template`` (:func:`usage_template`, whose values are those ``previous`` gives) with
    the comments the team wrote in ``previous`` (the usage file it replaces, ``usage init
    --force``) carried over: a key the team commented out (``# storage_gb: 75   # March
    figure``) goes just above the line the template writes for the same key; a comment line
    before a key (or before such a commented key) goes before the same key; an end-of-line
    comment on a key replaces the generated one; comments above the first key go under the
    template's header, those after the last key at the end; and those whose key is gone are
    kept at the end under a line saying so (a commented key prefixed with where it was).
    ``assumptions`` (:func:`assumption_lines`): each key commented out at its assumption, for
    the keys ``template`` writes with a value.

    A line ``usage init`` writes itself is not carried (the template writes its own, with
    today's assumption); a line is that only when it is exactly what ``usage init`` writes at
    that place: a key commented out with the template's value there (its assumption) and the
    generated note or none; the template's header lines; on a key's line the generated note
    (``# GB-month: S3 Standard storage``, with ``; catalogue assumption`` or not), on an item's
    line ``# <its kind>, <a size>``. Anything else is the team's: a figure other than the
    assumption, or a note of their own after it, was dropped whole (ninth adversary C4). The
    file is the team's record of where each figure comes from ("figures from Cost Explorer,
    ticket FIN-123"): ``--force`` dropped every such note before (eighth adversary F5). Block
    style files only are read for anchors; a comment whose key cannot be placed is kept at the
    end, never dropped. ``carry_comments(carry_comments(t, p), ...)`` again over its own
    output gives that output (a second ``--force`` changes nothing)."""
    t_lines = _walk(template)
    header_lines = {line.strip() for what, _p, line in t_lines if what == "comment"} | {_GONE}
    written: dict[KeyPath, tuple[str, str, str | None]] = {}
    for path, line in (assumptions or {}).items():
        if (parts := _parts(line)) is not None:
            written[path] = parts
    kinds_of: dict[KeyPath, str] = {}
    for what, path, line in t_lines:
        if what == "figure" and (parts := _parts(line)) is not None:
            written[path] = parts
        elif what == "key" and (eol := _eol(line)) is not None and (m := _KIND_SIZE.fullmatch(eol)):
            kinds_of[path] = m.group("kind")
    t_eol = {path: _eol(line) for what, path, line in t_lines if what == "key"}

    def generated_figure(path: KeyPath, line: str) -> bool:
        want, got = written.get(path), _parts(line)
        return want is not None and got is not None and got[1] == want[1] and got[2] in (None, want[2])

    def generated_eol(path: KeyPath, comment: str) -> bool:
        if comment == t_eol.get(path):
            return True
        if _figure_path(path):
            k = _ALL_KEYS[path[-1]]
            return comment in (_note(k), _note(k, True, None), _note(k, True, Decimal(0)))
        if len(path) == 4 and path[0] == "environments" and path[2] == "items" and (m := _KIND_SIZE.fullmatch(comment)):
            return m.group("kind") == kinds_of[path] if path in kinds_of else m.group("kind") in USAGE_KEYS
        return len(path) == 3 and path[0] == "environments" and path[2] == "network" and comment == _NETWORK_NOTE

    # The previous file's comments by where they go: before a key (text, whether it is a key
    # commented out), after the last line of a key's block (a note indented under it that
    # ends it: it stays there, never before the next key, which the template may write
    # elsewhere), at the end of an item's key line.
    header: list[str] = []
    before: dict[KeyPath, list[tuple[str, bool]]] = {}
    after: dict[KeyPath, list[str]] = {}
    eol: dict[KeyPath, str] = {}
    pending: list[tuple[str, int, KeyPath | None]] = []  # (text, indentation, the block it is under)
    blocks: list[tuple[int, KeyPath]] = []  # the open keys: (indentation, path)
    gone_at: int | None = None  # where the earlier "kept at the end" section starts in pending
    seen_key = False

    def settle(indent: int) -> list[str]:
        """The pending comments that go before a line at ``indent``: those indented deeper,
        under an open block, go after that block instead."""
        here = []
        for c, ci, blk in pending:
            if ci > indent and blk is not None:
                after.setdefault(blk, []).append(c)
            else:
                here.append(c)
        return here

    for what, path, line in _walk(previous):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if what == "comment":
            if stripped == _GONE:
                gone_at = len(pending)
            elif stripped not in header_lines:
                under = [p for i, p in blocks if i < indent]
                pending.append((stripped, indent, under[-1] if under else None))
        elif what == "figure":
            # A note just above a key the team commented out is about it: the two stay together.
            own = not generated_figure(path, stripped)
            before.setdefault(path, []).extend([(c, False) for c, _i, _b in pending] + ([(stripped, True)] if own else []))
            pending, gone_at = [], None
        elif what == "key":
            if not seen_key:
                header, pending, seen_key = [c for c, _i, _b in pending], [], True
            before.setdefault(path, []).extend((c, False) for c in settle(indent))
            pending, gone_at = [], None
            while blocks and blocks[-1][0] >= indent:
                blocks.pop()
            blocks.append((indent, path))
            comment = _eol(line)
            if comment is not None and not generated_eol(path, comment):
                eol[path] = comment
    if not seen_key:
        header, pending = [c for c, _i, _b in pending], []
    if gone_at is not None:
        kept = [c for c, _i, _b in pending[gone_at:]]
        pending = pending[:gone_at]
    else:
        kept = []
    tail = settle(0)

    placed: set[KeyPath] = set()
    out: list[str] = []
    header_done = False
    t_blocks: list[tuple[int, KeyPath]] = []
    last = max((i for i, (what, _p, _l) in enumerate(t_lines) if what != "blank"), default=-1)

    def close(indent: int) -> None:
        """End the template's blocks at ``indent`` or deeper: the comments after each."""
        while t_blocks and t_blocks[-1][0] >= indent:
            bi, bpath = t_blocks.pop()
            if bpath in after:
                out.extend(" " * (bi + 2) + c for c in after[bpath])
                placed.add(bpath)

    for n, (what, path, line) in enumerate(t_lines):
        if what in ("key", "figure"):
            indent = line[:len(line) - len(line.lstrip(" "))]
            if what == "key":
                close(len(indent))
                t_blocks.append((len(indent), path))
            if not header_done:
                out.extend(header)
                header_done = True
            out.extend(indent + c for c, _figure in before.get(path, ()))
            placed.add(path)
            comment = eol.get(path)
            if what == "key" and comment is not None and comment != t_eol.get(path):
                m = _KEY_LINE.match(line)
                assert m is not None
                body = line[:m.start("comment")].rstrip() if m.group("comment") else line.rstrip()
                line = f"{body}   {comment}"
        out.append(line)
        if n == last:
            close(0)
    if not header_done:
        out[:0] = header
    left = [f"# {'.'.join(path[:-1])}: {c}" if figure else c
            for path, comments in before.items() if path not in placed for c, figure in comments]
    left += [c for path, comments in after.items() if path not in placed for c in comments]
    left += [f"# {'.'.join(path)}: {c}" for path, c in eol.items() if path not in placed]
    kept += left
    if kept or tail:
        while out and out[-1] == "":
            out.pop()
        out += tail + (["", _GONE, *kept] if kept else []) + [""]
    return "\n".join(out)


#: The line above the comments :func:`carry_comments` could not place (their key is gone).
_GONE = "# Comments of the earlier file whose key usage init no longer writes:"
