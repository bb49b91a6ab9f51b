"""Completion: what the editor offers at the cursor of a runway file, costs included.

One pure query, :func:`completions_at`, over an :class:`~runway_core.analysis.Analysis`; the
language server only converts its result (STYLE.md §2). It works on every state a file
passes through while typed: complete, half-typed (a bare ``    kin`` line), cut short by a
syntax error, empty lines at any indentation, and inside flow collections
(``uses: [main-db, |]``, ``size: {dev: |}``).

**Where the cursor is** (a key of which mapping, the value of which key, an item of which
list) comes from the YAML tree when the file parses and the cursor is on a scalar or inside a
flow collection; otherwise (an empty line, a bare word, a syntax error) from the text: the
current line up to the cursor, read by a small YAML-aware scanner, and the indentation of the
lines above it (walk up to each line with a smaller indentation: its key is a parent key).
**What is offered** comes from the model (keys and their descriptions), the catalogue (sizes)
and the planner (costs); after a syntax error the tree is re-read with the cursor's line
blanked, so that names and sizes written elsewhere in the file still count.

Offered: keys of the mapping (not those already present; engine keys by the resource's
kind), kinds (reserved kinds are not offered), sizes with that environment's monthly cost
(the entry re-planned at each size, sorted by cost), environment names in ``size``/``scale``
maps, ``uses`` items (resources and workloads, with kind and cost; not the workload itself),
``expose`` and other enumerated or boolean values, the three reason grounds, member
``requires`` kinds, shared pool kinds, and snippets for a new resource, workload and
environment.

Edits replace the half-typed word at the cursor (one line, the cursor inside it), so the
line's indentation is kept; multi-line texts carry their own indentation (the server sends
them "as is"). Positions are the core's code points (STYLE.md §4). Money is USD per month.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import dataclasses
import os
import re
import typing
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from . import markdown
from .catalog import SIZES
from .hover import capacity_text
from .model import (
    DEFAULT_CAPS,
    DEFAULT_ENVIRONMENTS,
    EXPOSE_VALUES,
    REASON_GROUNDS,
    RESERVED_KINDS,
    RESOURCE_KINDS,
    Health,
    MemberRunway,
    PostgresEngine,
    Resource,
    RootRunway,
    Workload,
    model_for,
)
from .planner import EntrySpec, EnvironmentPlan, EnvSpec, ItemPlan, RunwaySpec, default_environments, engine_defaults, plan_environment
from .positions import Position, Range
from .rules import usd
from .yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq, find_path, node_path_at, parse_yaml, to_python

if TYPE_CHECKING:
    from .analysis import Analysis

#: What a candidate is, for the editor's icon: a key, a plain value, a resource kind, a size,
#: an environment name, a reference to a resource/workload, a multi-line snippet, or one of
#: a fixed set of values (expose, flavor, booleans, reason grounds, regions).
CANDIDATE_KINDS = ("key", "value", "kind", "size", "environment", "reference", "snippet", "enum")

#: One line per kind (RUNWAY_FORMAT.md, "Resource kinds").
KIND_SUMMARIES = {
    "postgres": "RDS for PostgreSQL (or Aurora PostgreSQL), RDS Proxy in front",
    "queue": "Amazon SQS queue",
    "topic": "Amazon SNS topic",
    "cache": "ElastiCache for Valkey",
    "bucket": "Amazon S3 bucket (Standard)",
}

#: The three grounds a workload may stand on (ADR 0493 §5), in plain words.
GROUND_SUMMARIES = {
    "no-managed-fit": "no managed resource or vendor cloud fits",
    "residency": "data residency forces self-hosting",
    "on-prem-parity": "parity with what customers run on their own hardware",
}

_ENUM_SUMMARIES = {
    ("expose", "internal"): "Cloud Map service discovery inside the environment (default)",
    ("expose", "public"): "behind the environment's Application Load Balancer (one ALB per environment)",
    ("flavor", "rds"): "RDS for PostgreSQL (default)",
    ("flavor", "aurora"): "Aurora PostgreSQL, Standard pricing",
}

#: Characters that end a word being typed (YAML indicators and whitespace).
_WORD_STOP = frozenset(" \t,[]{}#:\"'")
_FLOW = frozenset(",[]{}")


@dataclass(frozen=True, slots=True)
class CompletionCandidate:
    """One completion.

    ``range`` (code points, on the cursor's line, containing the cursor) is replaced by
    ``new_text`` (plain text), or by ``snippet`` (LSP snippet syntax: ``${1:default}``,
    ``${1|a,b|}``, ``$0``) when the editor supports snippets and it is set. ``detail`` is one
    line (a size's cost: ``$36.28/mo in dev``); ``documentation`` is Markdown. ``sort_text``
    orders candidates (sizes by cost); ``filter_text`` is what the typed word is matched
    against (default: ``label``). ``volatile`` means the text embeds the typed word (a name
    snippet), so the editor should ask again as the user types. ``kind`` is one of
    :data:`CANDIDATE_KINDS`.
    """

    label: str
    kind: str
    range: Range
    new_text: str
    snippet: str | None = None
    detail: str | None = None
    documentation: str | None = None
    sort_text: str | None = None
    filter_text: str | None = None
    volatile: bool = False


def completions_at(analysis: "Analysis", file: str, pos: Position, *, parsed: ParsedYaml | None = None) -> list[CompletionCandidate]:
    """The completions at ``pos`` (code points) of ``file``.

    ``file`` is a path as keyed in ``analysis.files`` (the analysis of the file's group: for
    a member, its root's analysis). ``parsed`` replaces the file's parse when the analysis
    does not hold it (an open buffer the analysis did not read). Costs are USD per month from
    the analysis' catalogue. Returns ``[]`` where nothing fits (a comment, a free-text value)
    and on any internal error: a completion is never worth a crash.
    """
    try:
        return _complete(analysis, os.path.abspath(file), pos, parsed)
    except Exception:  # noqa: BLE001 - STYLE.md §7: degrade, never crash a handler
        return []


def resized(spec: RunwaySpec, entry: EntrySpec, size: str, env: str | None = None) -> RunwaySpec:
    """``spec`` with ``entry`` sized ``size`` in environment ``env`` (in every environment when
    ``env`` is None: ``size: medium``). ``entry`` is added when ``spec`` lacks it (an entry
    still being written). Pure; plan the result with :func:`planner.plan_environment`."""
    new = _resized_entry(entry, size, env)
    return dataclasses.replace(spec, entries={**spec.entries, entry.name: new})


def _resized_entry(entry: EntrySpec, size: str, env: str | None) -> EntrySpec:
    if env is None:
        return dataclasses.replace(entry, sizes={}, default_size=size)
    return dataclasses.replace(entry, sizes={**entry.sizes, env: size})


# --------------------------------------------------------------------------------------
# Cursor context
# --------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    """Where the cursor is.

    ``slot`` is ``key`` (a key of the mapping at ``path``), ``value`` (the value at ``path``,
    whose last part is its key) or ``item`` (an item of the sequence at ``path``).
    """

    slot: str
    path: tuple[str | int, ...]
    range: Range
    word: str
    flow: bool = False
    quote: str = ""
    colon_follows: bool = False
    indent: int = 0
    present: set[str] = field(default_factory=set)
    lead: str = ""  # prepended to inserted values right after `:`, `,` or a `-` indicator
    trail: str = ""  # appended to a flow item written before another item (`[a,| b]`)
    replaced: str = ""  # the text the range covers now (the value written, when there is one)


def _complete(an: "Analysis", file: str, pos: Position, parsed: ParsedYaml | None) -> list[CompletionCandidate]:
    src = an.files.get(file)
    if parsed is None:
        if src is None:
            return []
        parsed = src.parsed
    lines = parsed.lines
    if pos.line >= lines.line_count:
        return []
    pos = Position(pos.line, min(pos.character, len(lines.line_text(pos.line))))
    texts = lines.all_lines()
    facts = _Facts(an, file, parsed, src.role if src is not None else None, pos.line)
    ctx = None
    if not parsed.partial and parsed.root is not None:
        ctx = _tree_context(parsed.root, texts, pos)
    if ctx is None:
        ctx = _text_context(texts, pos)
    if ctx is None:
        return []
    _add_present(ctx, facts.tree, texts, pos)
    cur = texts[pos.line]
    ctx.replaced = cur[ctx.range.start.character : ctx.range.end.character]
    before = cur[: ctx.range.start.character]
    if ctx.slot != "key" or ctx.flow:
        if before.endswith((":", ",")) or (ctx.slot == "item" and not ctx.flow and before.strip() == "-" and before.endswith("-")):
            ctx.lead = " "
    if ctx.slot == "value" and not ctx.flow and not ctx.quote and ctx.range.start == ctx.range.end and before.endswith(":"):
        # `kind:| postgres`: the cursor right after the colon, a value already written. The
        # choice replaces that value instead of landing before it (`kind: queue postgres`,
        # yaml-language-server#363).
        written = _WRITTEN_VALUE.match(cur, ctx.range.end.character)
        if written is not None:
            ctx.range = Range(ctx.range.start, Position(pos.line, written.end(1)))
            ctx.replaced = cur[ctx.range.start.character : ctx.range.end.character]
    after = cur[ctx.range.end.character :].lstrip()
    if ctx.flow and ctx.slot == "item" and not ctx.quote and after and after[0] not in ",]}#":
        ctx.trail = ","
    return _Candidates(ctx, facts, _indent_step(texts)).build()


#: A plain value written after `key:` and the spaces that separate it (then only a comment).
_WRITTEN_VALUE = re.compile(r"[ \t]+([A-Za-z0-9_][A-Za-z0-9_.\-/]*)[ \t]*(?:#.*)?$")


def _word_range(cur: str, line: int, start: int, cursor: int, quote: str = "") -> Range:
    end = cursor
    while end < len(cur) and cur[end] not in _WORD_STOP and cur[end] != quote:
        end += 1
    return Range(Position(line, start), Position(line, end))


# --- from the tree ----------------------------------------------------------------------


def _tree_context(root: YNode, texts: list[str], pos: Position) -> _Ctx | None:
    """The context when ``pos`` is on a scalar or inside a flow collection of a parsed file;
    None leaves it to the text (empty lines, bare words on their own line)."""
    chain = node_path_at(root, pos)
    if not chain:
        return None
    parts = tuple(p for p, _n, _k in chain)
    _part, node, key = chain[-1]
    parent = chain[-2][1] if len(chain) > 1 else root
    cur = texts[pos.line]
    if key is not None and key.range.contains(pos):
        if key.range.start.line != pos.line or key.range.end.line != pos.line or key.style:
            return None
        start = key.range.start.character
        rng = _word_range(cur, pos.line, start, pos.character)
        # A block key always has its `:`; a flow one may not yet (`{kind: postgres, si|}`).
        flow = bool(getattr(parent, "flow", False))
        colon = not flow or cur[rng.end.character :].lstrip().startswith(":")
        return _Ctx("key", parts[:-1], rng, cur[start : pos.character], flow=flow, colon_follows=colon, indent=start)
    if isinstance(node, YScalar) and node.range.contains(pos):
        r = node.range
        if r.start.line != pos.line or r.end.line != pos.line or node.style in ("|", ">"):
            return None
        container = parent
        if isinstance(parts[-1], int):
            slot, path = "item", parts[:-1]
        else:
            slot, path = "value", parts
            if isinstance(container, YMap) and not container.flow and key is not None and key.range.start.line != r.start.line:
                return None  # a bare word on its own line: the text decides (a key being typed)
        flow = bool(getattr(container, "flow", False))
        quote = node.style if node.style in ("'", '"') else ""
        start = r.start.character + (1 if quote else 0)
        if quote and pos.character < start:
            return None
        typed = cur[start : pos.character]
        if any(ch.isspace() for ch in typed):
            return None  # free text (a reason being written): nothing to complete
        rng = _word_range(cur, pos.line, start, pos.character, quote) if quote or r.start == r.end else r
        return _Ctx(slot, path, rng, typed, flow=flow, quote=quote)
    if isinstance(node, (YMap, YSeq)) and node.flow and node.range.start < pos < node.range.end:
        # Between entries: only right after the opening bracket or a comma.
        if _prev_char(texts, pos) not in ("[", "{", ","):
            return None
        slot = "item" if isinstance(node, YSeq) else "key"
        return _Ctx(slot, parts, Range(pos, pos), "", flow=True)
    return None


def _prev_char(texts: list[str], pos: Position) -> str:
    """The last non-blank character before ``pos`` (earlier lines included)."""
    line, text = pos.line, texts[pos.line][: pos.character].rstrip()
    while not text and line > 0:
        line -= 1
        text = _strip_comment(texts[line]).rstrip()
    return text[-1:] if text else ""


# --- from the text ----------------------------------------------------------------------


@dataclass
class _Frame:
    """An open flow collection while scanning: ``[`` or ``{`` and the key or index owning it."""

    kind: str
    owner: str | int | None
    names: list[str] = field(default_factory=list)  # `[`: scalar items so far; `{`: keys so far
    count: int = 0
    key: str | None = None  # `{`: the key whose value comes next
    expect: str = "key"
    pending: str | None = None  # a scalar read and not yet closed by `,` or `:`


@dataclass
class _Scan:
    frames: list[_Frame] = field(default_factory=list)
    block_key: str | None = None
    dash: bool = False
    pending: str | None = None
    word: str = ""
    quote: str = ""
    quote_start: int = -1
    comment: bool = False
    closed: bool = False  # a block-level flow collection was closed before the cursor


def _quote_end(text: str, i: int) -> int:
    """Index of the quote closing the scalar opened at ``i`` (-1 when still open)."""
    q = text[i]
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\n":
            return -1
        if q == '"' and c == "\\":
            j += 2
            continue
        if c == q:
            if q == "'" and j + 1 < len(text) and text[j + 1] == "'":
                j += 2  # '' is an escaped quote inside single quotes
                continue
            return j
        j += 1
    return -1


def _close_entry(top: _Frame) -> None:
    if top.kind == "[":
        if top.pending is not None:
            if top.pending:
                top.names.append(top.pending)
            top.count += 1
    elif top.expect == "key" and top.pending:
        top.names.append(top.pending)
    top.pending = None
    top.key = None
    top.expect = "key"


def _scan(text: str) -> _Scan:
    """Read ``text`` (the logical line up to the cursor) token by token: block key, `- `,
    open flow collections with their keys and items, the word touching the end, an open
    quote, a comment. A small subset of YAML's lexer: enough to place the cursor."""
    s = _Scan()
    i, n = 0, len(text)

    def colon_at(j: int) -> bool:
        nxt = text[j + 1] if j + 1 < n else ""
        return nxt in ("", " ", "\t", "\n") or (bool(s.frames) and nxt in _FLOW)

    def scalar(value: str, touches: bool) -> None:
        if s.frames:
            s.frames[-1].pending = value
        else:
            s.pending = value
        s.word = value if touches else ""

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            s.word = ""
            i += 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n"):
            j = text.find("\n", i)
            if j < 0:
                s.comment = True
                return s
            i = j
            continue
        if c == "-" and not s.frames and s.block_key is None and s.pending is None and (i + 1 == n or text[i + 1] in " \t"):
            s.dash = True
            i += 1
            continue
        if c in "[{":
            if s.frames:
                top = s.frames[-1]
                owner: str | int | None = top.count if top.kind == "[" else (top.key if top.expect == "value" else None)
            else:
                owner = s.block_key if s.pending is None else None
            s.frames.append(_Frame(c, owner))
            s.word = ""
            i += 1
            continue
        if c in "]}":
            if s.frames:
                s.frames.pop()
                if s.frames:
                    s.frames[-1].pending = ""  # a collection: an item or value, not a name
                else:
                    s.closed = True
            s.word = ""
            i += 1
            continue
        if c == "," and s.frames:
            _close_entry(s.frames[-1])
            s.word = ""
            i += 1
            continue
        if c == ":" and colon_at(i):
            if s.frames:
                top = s.frames[-1]
                if top.kind == "{":
                    top.key, top.expect = top.pending, "value"
                    if top.pending:
                        top.names.append(top.pending)
                top.pending = None
            else:
                if s.block_key is None:
                    s.block_key = s.pending if s.pending is not None else ""
                s.pending = None
            s.word = ""
            i += 1
            continue
        if c in "\"'":
            j = _quote_end(text, i)
            if j < 0:
                s.quote, s.quote_start = c, i
                return s
            raw = text[i + 1 : j]
            scalar(raw.replace("''", "'") if c == "'" else raw, False)
            i = j + 1
            continue
        j = i
        while j < n:
            ch = text[j]
            if ch == "\n" or (ch == ":" and colon_at(j)) or (s.frames and ch in _FLOW):
                break
            if ch in " \t" and j + 1 < n and text[j + 1] == "#":
                break
            j += 1
        value = text[i:j].rstrip()
        scalar(value, i + len(value) == n)
        i = j
    return s


def _strip_comment(line: str) -> str:
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if quote == '"' and c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t[{,:-"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
        i += 1
    return line


@dataclass(frozen=True, slots=True)
class _Line:
    indent: int
    dash: bool
    key: str | None
    value: str  # after the key's colon ('' when none); the whole text when there is no key
    tabbed: bool = False  # a tab in the indentation (RW006): its level is a guess

    @property
    def opens_block(self) -> bool:
        """A `key:` whose value is on the following lines (only an anchor or tag after it)."""
        return self.key is not None and (self.value == "" or re.fullmatch(r"[&!]\S*", self.value) is not None)


def _classify(raw: str) -> _Line | None:
    """A line's indentation, `- ` indicator, key and value; None for blank/comment lines."""
    line = _strip_comment(raw).rstrip()
    if not line.strip():
        return None
    body = line.lstrip(" \t")
    indent = len(line) - len(body)
    tabbed = "\t" in line[:indent]
    dash = False
    if body == "-" or body.startswith(("- ", "-\t")):
        dash = True
        body = body[1:].lstrip(" \t")
    if not body or body[0] in "[{":
        return _Line(indent, dash, None, body, tabbed)
    if body[0] in "\"'":
        j = _quote_end(body, 0)
        rest = body[j + 1 :].lstrip() if j > 0 else ""
        if j > 0 and rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
            return _Line(indent, dash, body[1:j], rest[1:].strip(), tabbed)
        return _Line(indent, dash, None, body, tabbed)
    m = re.search(r":(?=\s|$)", body)
    if m is None:
        return _Line(indent, dash, None, body, tabbed)
    return _Line(indent, dash, body[: m.start()].strip(), body[m.end() :].strip(), tabbed)


def _parent_path(texts: list[str], line_no: int, indent: int, dash: bool) -> tuple[str, ...] | None:
    """Keys above ``line_no`` by indentation: walk up to each line indented less (its key is
    a parent when its value is on the following lines). For a `- ` item, the sequence's key
    may sit at the dash's own indentation (``uses:\\n- x``). A line indented with a tab
    (RW006) counts only when it opens a block: its level is a guess, so it never ends the
    walk (completion falls back to the lines around it)."""
    path: list[str] = []
    limit = indent
    i = line_no - 1
    if dash:
        while i >= 0:
            info = _classify(texts[i])
            if info is None or (info.tabbed and not info.opens_block) or info.indent > indent or (info.dash and info.indent == indent):
                i -= 1
                continue
            break
        if i < 0:
            return None
        info = _classify(texts[i])
        if info is None or not info.opens_block or info.dash:
            return None
        path.append(info.key or "")
        limit = info.indent
        i -= 1
    first = True
    while i >= 0 and limit > 0:
        info = _classify(texts[i])
        if info is None or info.indent >= limit or (info.tabbed and not info.opens_block):
            i -= 1
            continue
        if first and not dash and not info.opens_block:
            # Indented under an inline value (`reason: >`, `kind: postgres`, `- item`): the
            # line continues that scalar (YAML 1.2 §7.3, §8.1); it is no place for a key.
            return None
        first = False
        if info.dash:
            return None  # inside a mapping that is a list item: no runway key lives there
        if info.opens_block:
            path.append(info.key or "")
        # A key with an inline value at a smaller indentation still fixes the level.
        limit = info.indent
        i -= 1
    return tuple(reversed(path))


def _bracket_balance(line: str) -> int:
    depth = 0
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t[{,:"):
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
    return depth


def _flow_start(texts: list[str], line_no: int) -> int:
    """The line where a flow collection still open at ``line_no`` began (``line_no`` when
    none is open). Flow content must be indented past its block (YAML 1.2 §7), so a line
    indented no deeper than the opener ends an unclosed bracket (a typo, not a collection)."""
    top = line_no - 1
    while top > 0:
        info = _classify(texts[top])
        if info is not None and info.indent == 0:
            break
        top -= 1
    depth = 0
    start, start_indent = line_no, 0
    for i in range(max(top, 0), line_no):
        raw = _strip_comment(texts[i])
        if not raw.strip():
            continue
        ind = len(raw) - len(raw.lstrip(" "))
        if depth > 0 and ind <= start_indent:
            depth = 0
        if depth == 0:
            start, start_indent = i, ind
        depth = max(0, depth + _bracket_balance(raw))
    if depth > 0:
        cur = _strip_comment(texts[line_no])
        if not cur.strip() or len(cur) - len(cur.lstrip(" ")) > start_indent:
            return start
    return line_no


def _text_context(texts: list[str], pos: Position) -> _Ctx | None:
    line_no, col = pos.line, pos.character
    cur = texts[line_no]
    start_line = _flow_start(texts, line_no)
    prefix = "\n".join([*texts[start_line:line_no], cur[:col]])
    s = _scan(prefix)
    if s.comment:
        return None
    first = texts[start_line] if start_line < line_no else cur[:col]
    body = first.lstrip(" ")
    indent = len(first) - len(body)
    if s.quote:
        typed = prefix[s.quote_start + 1 :]
        if any(ch.isspace() for ch in typed):
            return None
        word = typed
        rng = _word_range(cur, line_no, col - len(word), col, s.quote)
    else:
        word = s.word
        if any(ch.isspace() for ch in word):
            return None
        rng = _word_range(cur, line_no, col - len(word), col)
    base = _parent_path(texts, start_line, indent, s.dash)
    if base is None:
        return None
    if s.frames:
        top = s.frames[-1]
        if not s.quote and top.pending and not word:
            return None  # a finished scalar, then a space: nothing to complete
        if s.block_key is None or s.dash:
            return None
        owners = [s.block_key, *(f.owner for f in s.frames[1:])]
        if any(o is None or o == "" for o in owners):
            return None
        path = base + tuple(owners)  # type: ignore[operator]
        present = set(top.names)
        suffix = cur[rng.end.character :]
        if top.kind == "[":
            present |= _suffix_names(suffix, keys=False)
            return _Ctx("item", path, rng, word, flow=True, quote=s.quote, present=present)
        if top.expect == "value":
            if not top.key:
                return None
            return _Ctx("value", path + (top.key,), rng, word, flow=True, quote=s.quote)
        present |= _suffix_names(suffix, keys=True)
        present.discard(word)
        return _Ctx("key", path, rng, word, flow=True, quote=s.quote, colon_follows=suffix.lstrip().startswith(":"), present=present)
    if (not s.quote and s.pending and not word) or s.closed:
        return None
    if s.block_key is not None:
        if s.dash or not s.block_key:
            return None
        return _Ctx("value", base + (s.block_key,), rng, word, quote=s.quote)
    if s.dash:
        return _Ctx("item", base, rng, word, quote=s.quote)
    if s.quote:
        return None  # a quoted key being typed: too rare to guess at
    after = cur[rng.end.character :]
    return _Ctx("key", base, rng, word, colon_follows=after.lstrip().startswith(":"), indent=rng.start.character if word else col)


def _suffix_names(rest: str, keys: bool) -> set[str]:
    """Names after the cursor in the same flow collection (``[|, main-db]``)."""
    out: set[str] = set()
    depth = 0
    buf = ""
    for c in rest:
        if c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            out.add(buf)
            buf = ""
        elif depth == 0:
            buf += c
    out.add(buf)
    names = set()
    for item in out:
        text = item.split(":")[0] if keys else item
        text = text.strip().strip("\"'")
        if text:
            names.add(text)
    return names


# --- what is already written --------------------------------------------------------------


def _add_present(ctx: _Ctx, tree: YNode | None, texts: list[str], pos: Position) -> None:
    """Sibling keys / items already written: from the tree (not the node at the cursor) and,
    for block style, from the lines around the cursor (they count after a syntax error)."""
    node, _k, depth = find_path(tree, ctx.path) if tree is not None else (None, None, 0)
    if depth == len(ctx.path):
        if ctx.slot == "key" and isinstance(node, YMap):
            ctx.present |= {k.text for k, _v in node.entries if not k.range.contains(pos)}
        elif ctx.slot == "item" and isinstance(node, YSeq):
            ctx.present |= {str(i.value) for i in node.items if isinstance(i, YScalar) and i.value is not None and not i.range.contains(pos)}
    if ctx.flow or ctx.slot == "value":
        return
    cur = _classify(texts[pos.line])
    indent = cur.indent if cur is not None else ctx.indent
    for step in (-1, 1):
        i = pos.line + step
        while 0 <= i < len(texts):
            info = _classify(texts[i])
            if info is not None:
                if info.indent < indent:
                    break
                if info.indent == indent:
                    if ctx.slot == "key" and not info.dash and info.key is not None:
                        ctx.present.add(info.key)
                    elif ctx.slot == "item" and info.dash and info.key is None and info.value:
                        ctx.present.add(info.value.strip("\"'"))
            i += step


def _indent_step(texts: list[str]) -> int:
    """The file's indentation step (2 unless the file indents otherwise)."""
    steps = []
    prev: _Line | None = None
    for raw in texts[:400]:
        info = _classify(raw)
        if info is None:
            continue
        if prev is not None and prev.opens_block and info.indent > prev.indent:
            steps.append(info.indent - prev.indent)
        prev = info
    return min(steps) if steps else 2


# --------------------------------------------------------------------------------------
# Facts: names, kinds, environments and prices, also for files cut short
# --------------------------------------------------------------------------------------


def _size_map(spec: Any) -> tuple[dict[str, str], str]:
    if isinstance(spec, str):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(k, str) and isinstance(v, str)}, "small"
    return {}, "small"


def _scale_map(spec: Any) -> tuple[dict[str, int], int]:
    def ok(n: Any) -> bool:
        return isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 1000

    if ok(spec):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(k, str) and ok(v)}, 1
    return {}, 1


def _repaired(parsed: ParsedYaml, line: int) -> YNode | None:
    """After a syntax error, the tree of the text with the cursor's line blanked (where a
    half-typed line usually breaks the file), else with the offending line blanked
    (:func:`runway_core.analysis.tolerant_text`, which the cost views use too), else the
    partial tree. Blanking keeps every position of the other lines."""
    from .analysis import blank_lines, tolerant_text  # local: analysis is the caller's module

    again = parse_yaml(blank_lines(parsed, [line]), parsed.path)
    if not again.partial and again.root is not None:
        return again.root
    text = tolerant_text(parsed)
    return parse_yaml(text, parsed.path).root if text is not None else parsed.root


class _Facts:
    """What completion needs to know beyond the cursor: the file's role, the root runway's
    tree, environments, entries (from the analysis' spec, else leniently from the tree) and
    their costs."""

    def __init__(self, an: "Analysis", file: str, parsed: ParsedYaml, role: str | None, line: int) -> None:
        self.an = an
        self.catalog = an.catalog
        self.file = file
        self.tree = _repaired(parsed, line) if parsed.partial else parsed.root
        # The analysis may be a keystroke or two older than ``parsed`` (the language server
        # completes from the last analysis while the user types): names declared since are
        # then read from the tree.
        src = an.files.get(file)
        self.newer_text = src is not None and src.parsed is not parsed and src.parsed.text != parsed.text
        tree = self.tree if isinstance(self.tree, YMap) else None
        lone_member = tree is not None and "member" in tree and "product" not in tree
        self.member = role == "member" or (role in (None, "root") and lone_member)
        if self.member:
            root_src = an.files.get(an.root_file) if an.root_file != file else None
            root = root_src.parsed.root if root_src is not None and root_src.role == "root" else None
            self.root = root if isinstance(root, YMap) else None
        else:
            self.root = tree
        # The analysis' spec is the current text's when the root parsed; else read leniently.
        self.spec = an.spec if an.spec is not None else None
        if self.spec is not None:
            self.envs = self.spec.environments
            self.region = self.spec.region
        else:
            self.envs = self._tree_envs()
            reg = self.root.get("region") if self.root is not None else None
            self.region = reg.value if isinstance(reg, YScalar) and isinstance(reg.value, str) else "us-east-1"
        self.env_names = [e.name for e in self.envs]

    def _tree_envs(self) -> tuple[EnvSpec, ...]:
        node = self.root.get("environments") if self.root is not None else None
        if not isinstance(node, YMap) or not node.entries:
            return default_environments()
        out = []
        for k, v in node.entries:
            cap, src = DEFAULT_CAPS.get(k.text), ("default" if k.text in DEFAULT_CAPS else "none")
            shared: dict[str, str] = {}
            if isinstance(v, YMap):
                lim = v.get("limits")
                if isinstance(lim, YMap) and "monthly" in lim:
                    m = lim.get("monthly")
                    val = m.value if isinstance(m, YScalar) else None
                    if val is None:
                        cap, src = None, "none"
                    elif isinstance(val, (int, float)) and not isinstance(val, bool) and val >= 0 and val == val and val != float("inf"):
                        cap, src = Decimal(str(val)), "set"
                sh = v.get("shared")
                if isinstance(sh, YMap):
                    shared = {kk.text: vv.value for kk, vv in sh.entries if kk.text in RESOURCE_KINDS and isinstance(vv, YScalar) and isinstance(vv.value, str)}
            out.append(EnvSpec(k.text, cap, src, shared))
        return tuple(out)

    # --- entries ---------------------------------------------------------------------------

    def section(self, name: str) -> YMap | None:
        node = self.root.get(name) if self.root is not None else None
        return node if isinstance(node, YMap) else None

    def entry(self, name: str) -> EntrySpec | None:
        """The planner's entry of ``name``: the analysis' own, else one read from the tree
        (a resource or workload still being written, a shared pool just named)."""
        if self.spec is not None and name in self.spec.entries:
            return self.spec.entries[name]
        if name.startswith("shared-") and name[7:] in RESOURCE_KINDS:
            kind = name[7:]
            sizes = {e.name: e.shared[kind] for e in self.envs if kind in e.shared}
            return EntrySpec(name, kind, sizes, engine=engine_defaults(kind, {}), implicit=True, origin="shared")
        for sect in ("resources", "workloads"):
            node = self.section(sect)
            if node is None or name not in node:
                continue
            raw = to_python(node.get(name))
            data = raw if isinstance(raw, dict) else {}
            sizes, default = _size_map(data.get("size"))
            if sect == "resources":
                kind = data.get("kind")
                if kind not in RESOURCE_KINDS:
                    return None
                eng = data.get("engine")
                return EntrySpec(name, kind, sizes, default, engine=engine_defaults(kind, eng if isinstance(eng, dict) else {}))
            scales, default_scale = _scale_map(data.get("scale"))
            expose = data.get("expose") if data.get("expose") in EXPOSE_VALUES else "internal"
            return EntrySpec(name, "workload", sizes, default, scales, default_scale, expose=expose)
        return None

    def resource_kind(self, name: str) -> str | None:
        e = self.entry(name)
        if e is not None:
            return e.kind
        res = self.section("resources")
        node = res.get(name) if res is not None else None
        kind = node.get("kind") if isinstance(node, YMap) else None
        return kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str) else None

    def names(self) -> list[tuple[str, str, str | None]]:
        """Every resource and workload a `uses` may name: (name, type, kind), resources
        first, then implicit shared pools, then workloads, in declaration order."""
        out: list[tuple[str, str, str | None]] = []
        if self.spec is not None:
            for typ in ("resource", "implicit", "workload"):
                out.extend((s.name, typ, s.kind) for s in self.an.symbols.values() if s.type == typ)
            if self.newer_text and not self.member:
                known = {n for n, _t, _k in out}
                for sect in ("resources", "workloads"):
                    node = self.section(sect)
                    for k, v in node.entries if node is not None else []:
                        if k.text not in known and k.text:
                            kind = v.get("kind") if isinstance(v, YMap) and sect == "resources" else None
                            out.append((k.text, sect[:-1], kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str)
                                        else (None if sect == "resources" else "workload")))
            return out
        res, wl = self.section("resources"), self.section("workloads")
        seen: set[str] = set()
        for k, v in res.entries if res is not None else []:
            kind = v.get("kind") if isinstance(v, YMap) else None
            out.append((k.text, "resource", kind.value if isinstance(kind, YScalar) and isinstance(kind.value, str) else None))
            seen.add(k.text)
        for kind in RESOURCE_KINDS:
            if any(kind in e.shared for e in self.envs) and f"shared-{kind}" not in seen:
                out.append((f"shared-{kind}", "implicit", kind))
        for k, _v in wl.entries if wl is not None else []:
            if k.text not in seen:
                out.append((k.text, "workload", "workload"))
        return out

    # --- prices ----------------------------------------------------------------------------

    def plan(self, entry: EntrySpec, env: str) -> tuple[ItemPlan | None, EnvironmentPlan | None]:
        """Plan ``env`` with ``entry`` (added or replacing its namesake). Returns the entry's
        item and, when the whole runway is known (the analysis' spec), the environment's plan."""
        base = self.spec if self.spec is not None else RunwaySpec("product", self.region, self.envs, {}, ())
        spec = dataclasses.replace(base, entries={**base.entries, entry.name: entry})
        # The analysis' own plan of env (from this very spec) lends every item but this one.
        done = self.an.plans.get(env) if self.spec is not None else None
        plan = plan_environment(spec, self.catalog, env, (self.spec, done) if done is not None else None)  # type: ignore[arg-type]
        return plan.item(entry.name), (plan if self.spec is not None else None)

    def monthly(self, name: str) -> list[tuple[str, ItemPlan]]:
        """(environment, item) of ``name`` in every environment, from the analysis' plans or
        by planning its entry."""
        out = []
        if self.an.plans and self.spec is not None:
            for env in self.env_names:
                p = self.an.plans.get(env)
                item = p.item(name) if p is not None else None
                if item is not None:
                    out.append((env, item))
            if out:
                return out
        entry = self.entry(name)
        if entry is None:
            return []
        for env in self.env_names:
            item, _plan = self.plan(entry, env)
            if item is not None:
                out.append((env, item))
        return out

    def sizes_of(self, kind: str | None) -> tuple[str, ...]:
        try:
            return self.catalog.sizes(kind) if kind else SIZES
        except (ValueError, KeyError):
            return SIZES


def _money(item: ItemPlan) -> str:
    return ("at least " if item.missing_prices else "") + usd(item.monthly_usd)


# --------------------------------------------------------------------------------------
# Candidates
# --------------------------------------------------------------------------------------


def _esc(text: str) -> str:
    """Text as a literal inside an LSP snippet (LSP 3.17 §"Snippet Syntax")."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _field_values(model: type[BaseModel], name: str) -> list[str]:
    """The values a field allows when they are a fixed set: Literal values or booleans."""
    f = model.model_fields.get(name)
    if f is None:
        return []
    out: list[str] = []
    stack = [f.annotation]
    while stack:
        a = stack.pop()
        if typing.get_origin(a) is typing.Literal:
            out.extend(str(v) for v in typing.get_args(a))
        elif a is bool:
            out.extend(["true", "false"])
        else:
            stack.extend(typing.get_args(a))
    return out


def _shape(model: type[BaseModel], name: str) -> str:
    """How a key's value is written: ``map`` (on the next lines), ``list`` (flow) or ``scalar``."""
    if (model, name) == (RootRunway, "members"):
        return "block-list"
    if (model, name) == (Workload, "reason"):
        return "reason"
    f = model.model_fields[name]
    stack = [f.annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, BaseModel):
            return "map"
        origin = typing.get_origin(a)
        if origin is dict:
            return "map"
        if origin is list:
            return "list"
        stack.extend(typing.get_args(a))
    return "scalar"


class _Candidates:
    def __init__(self, ctx: _Ctx, facts: _Facts, step: int) -> None:
        self.ctx = ctx
        self.facts = facts
        self.step = step
        self.out: list[CompletionCandidate] = []

    # --- building blocks ------------------------------------------------------------------

    def add(self, label: str, kind: str, new_text: str, *, snippet: str | None = None, detail: str | None = None,
            documentation: str | None = None, sort: str | None = None, filter_text: str | None = None, volatile: bool = False) -> None:
        self.out.append(CompletionCandidate(label, kind, self.ctx.range, new_text, snippet, detail, documentation, sort, filter_text, volatile))

    def value(self, label: str, kind: str, text: str | None = None, **kw: Any) -> None:
        """A value: inside quotes as typed, else after a space when the cursor follows `:`."""
        text = label if text is None else text
        if not self.ctx.quote:
            text = self.ctx.lead + text + self.ctx.trail
        self.add(label, kind, text, **kw)

    def names_value(self, label: str, kind: str, **kw: Any) -> None:
        """An item offered where the list itself starts (``uses: |``): written as ``[item]``."""
        if self.ctx.slot == "value" and not self.ctx.quote:
            self.add(label, kind, f"{self.ctx.lead}[{label}]", **kw)
        else:
            self.value(label, kind, **kw)

    def key(self, name: str, shape: str, *, detail: str | None, documentation: str | None, sort: str, kind: str = "key") -> None:
        ctx = self.ctx
        if ctx.colon_follows:
            self.add(name, kind, ctx.lead + name, detail=detail, documentation=documentation, sort=sort)
            return
        if ctx.flow:
            self.add(name, kind, f"{ctx.lead}{name}: ", detail=detail, documentation=documentation, sort=sort)
            return
        child = " " * (ctx.indent + self.step)
        plain, snippet = f"{name}: ", None
        if shape == "map":
            plain, snippet = f"{name}:\n{child}", f"{name}:\n{child}$0"
        elif shape == "block-list":
            plain, snippet = f"{name}:\n{child}- ", f"{name}:\n{child}- $0"
        elif shape == "list":
            snippet = f"{name}: [$0]"
        elif shape == "reason":
            snippet = f'{name}: "${{1|{",".join(REASON_GROUNDS)}|}}: $0"'
        self.add(name, kind, plain, snippet=snippet, detail=detail, documentation=documentation, sort=sort)

    # --- dispatch ---------------------------------------------------------------------------

    def build(self) -> list[CompletionCandidate]:
        ctx = self.ctx
        if any(isinstance(p, int) for p in ctx.path):
            return []
        path = tuple(str(p) for p in ctx.path)
        if self.facts.member:
            self.member(path)
        elif ctx.slot == "key":
            self.root_keys(path)
        elif ctx.slot == "value":
            self.root_value(path)
        else:
            self.root_item(path)
        return self.out

    def member(self, path: tuple[str, ...]) -> None:
        slot = self.ctx.slot
        if slot == "key" and path == ():
            self.model_keys(MemberRunway, ())
        elif slot == "value" and path == ("runway",):
            self.value("1", "value", detail="format version")
        elif slot == "value" and path == ("member",):
            folder = os.path.basename(os.path.dirname(self.facts.file))
            if re.fullmatch(r"[a-z]([a-z0-9-]{0,61}[a-z0-9])?", folder):
                self.value(folder, "value", detail="the folder's name (the default)")
        elif path == ("requires",) and slot in ("value", "item"):
            self.kinds(shared=True)
        elif path == ("uses",) and slot in ("value", "item"):
            self.references(None)

    def root_keys(self, path: tuple[str, ...]) -> None:
        f = self.facts
        n = len(path)
        if path == ("resources",):
            self.resource_snippet()
        elif path == ("workloads",):
            self.workload_snippet()
        elif path == ("environments",):
            self.environment_snippets()
        elif n == 3 and path[0] == "environments" and path[2] == "shared":
            self.kinds(shared=True, env=path[1])
        elif n == 3 and path[0] in ("resources", "workloads") and path[2] in ("size", "scale"):
            self.environment_keys(path[1], path[2])
        else:
            kind = f.resource_kind(path[1]) if n >= 3 and path[0] == "resources" else None
            model = model_for(path, False, kind)
            if model is not None:
                self.model_keys(model, path)

    def root_value(self, path: tuple[str, ...]) -> None:
        f = self.facts
        n = len(path)
        if path == ("runway",):
            self.value("1", "value", detail="format version")
        elif path == ("region",):
            for i, r in enumerate(sorted(f.catalog.regions)):
                self.value(r, "enum", detail="priced by the catalogue", sort=f"{i:02d}")
        elif n == 3 and path[0] == "resources" and path[2] == "kind":
            self.kinds(shared=False)
        elif n in (3, 4) and path[0] in ("resources", "workloads") and path[2] == "size":
            self.sizes(path[1], path[3] if n == 4 else None)
        elif n == 4 and path[0] == "environments" and path[2] == "shared" and path[3] in RESOURCE_KINDS:
            self.sizes(f"shared-{path[3]}", path[1], kind=path[3])
        elif n == 3 and path[0] == "workloads" and path[2] == "uses":
            self.references(path[1])
        elif n == 3 and path[0] == "workloads" and path[2] == "reason":
            self.grounds()
        elif n >= 2:
            kind = f.resource_kind(path[1]) if n >= 4 and path[0] == "resources" else None
            model = model_for(path[:-1], False, kind)
            if model is not None:
                self.enum_values(model, path, kind)

    def root_item(self, path: tuple[str, ...]) -> None:
        if len(path) == 3 and path[0] == "workloads" and path[2] == "uses":
            self.references(path[1])

    # --- keys -------------------------------------------------------------------------------

    def model_keys(self, model: type[BaseModel], path: tuple[str, ...]) -> None:
        for i, (name, f) in enumerate(model.model_fields.items()):
            if name in self.ctx.present:
                continue
            required = f.is_required() or (model, name) == (Workload, "reason")
            where = ".".join((*path, name))
            doc = f"**{where}**" + ("" if not f.description else f"\n\n{f.description}")
            allowed = self.allowed(model, name)
            if allowed:
                doc += f"\n\nAllowed: {allowed}"
            detail = "required" if required else "optional"
            if model is Health and name in ("path", "command"):
                detail = "exactly one of path, command"  # Health's own rule (model.Health._one_of)
            self.key(name, _shape(model, name), detail=detail, documentation=doc, sort=f"{0 if required else 1}{i:02d}")

    def allowed(self, model: type[BaseModel], name: str) -> str | None:
        if (model, name) == (Resource, "kind"):
            return ", ".join(f"`{k}`" for k in RESOURCE_KINDS)
        if name == "size" and model in (Resource, Workload):
            return ", ".join(f"`{s}`" for s in SIZES)
        values = _field_values(model, name)
        return ", ".join(f"`{v}`" for v in values) if values else None

    def environment_keys(self, name: str, what: str) -> None:
        """Environment names as keys of a `size:` or `scale:` map (declared, not yet named)."""
        f = self.facts
        items = dict(f.monthly(name))
        for i, env in enumerate(f.env_names):
            if env in self.ctx.present:
                continue
            item = items.get(env)
            detail = None
            if item is not None:
                now = item.size if what == "size" else item.capacity.get("tasks")
                detail = f"now {now} · {_money(item)}/mo" if now is not None else f"{_money(item)}/mo"
            doc = f"**{env}**: the {what} of `{name}` in this environment" + (" (an environment it does not name runs small)." if what == "size" else " (default 1 task).")
            self.key(env, "scalar", detail=detail, documentation=doc, sort=f"{i:02d}", kind="environment")

    # --- values -----------------------------------------------------------------------------

    def kinds(self, *, shared: bool, env: str | None = None) -> None:
        """Resource kinds (never the reserved ones): a resource's `kind`, a member's
        `requires` items, or an environment's `shared` keys."""
        ctx = self.ctx
        reserved = ", ".join(f"`{k}` ({why})" for k, why in RESERVED_KINDS.items())
        for i, kind in enumerate(RESOURCE_KINDS):
            if kind in ctx.present:
                continue
            summary = KIND_SUMMARIES[kind]
            if env is not None:
                doc = f"**shared-{kind}** in `{env}`: the size of the shared {kind} pool ({summary}); default small."
                self.key(kind, "scalar", detail=summary, documentation=doc, sort=f"{i:02d}", kind="kind")
                continue
            if shared:
                doc = f"**{kind}** — {summary}. Requiring it makes this member a consumer of the implicit `shared-{kind}` pool."
                self.names_value(kind, "kind", detail=summary, documentation=doc, sort=f"{i:02d}")
                continue
            doc = f"**{kind}** — {summary}.\n\nReserved kinds are refused: {reserved}."
            self.value(kind, "kind", detail=summary, documentation=doc, sort=f"{i:02d}")

    def sizes(self, name: str, env: str | None, kind: str | None = None) -> None:
        """Each size with the entry's monthly cost at that size (re-planned), sorted by cost.
        ``env`` None: one size for every environment (``size: medium``)."""
        f = self.facts
        entry = f.entry(name)
        kind = entry.kind if entry is not None else (kind or f.resource_kind(name))
        envs = [env] if env is not None else f.env_names
        rows = []
        for order, size in enumerate(f.sizes_of(kind)):
            priced: list[tuple[str, ItemPlan, EnvironmentPlan | None]] = []
            if entry is not None:
                changed = _resized_entry(entry, size, env)
                for e in envs:
                    item, plan = f.plan(changed, e)
                    if item is not None and item.size is not None:
                        priced.append((e, item, plan))
            first = priced[0][1].monthly_usd if priced else None
            rows.append((first is None, first or Decimal(0), order, size, priced))
        rows.sort(key=lambda r: r[:3])
        for rank, (_none, _first, _order, size, priced) in enumerate(rows):
            current = self.ctx.replaced == size
            detail = None
            if priced:
                e, item, _p = priced[0]
                detail = f"{_money(item)}/mo in {e}" + (" · current" if current else "")
            elif current:
                detail = "current"
            self.value(size, "size", detail=detail, documentation=self.size_doc(name, kind, size, priced), sort=f"{rank:02d}")

    def size_doc(self, name: str, kind: str | None, size: str, priced: list[tuple[str, ItemPlan, EnvironmentPlan | None]]) -> str:
        out = [f"**{name}** ({kind or 'unknown kind'}) at **{size}**"]
        if not priced:
            return out[0]
        out += ["", f"Capacity: {capacity_text(priced[0][1])}", ""]
        with_totals = all(p is not None for _e, _i, p in priced)
        rows = []
        for e, item, plan in priced:
            row = [e, _money(item)]
            if plan is not None and with_totals:
                if plan.cap is None:
                    cap = "no cap"
                else:
                    pct = (plan.total * 100 / plan.cap).quantize(Decimal(1), rounding=ROUND_HALF_UP) if plan.cap > 0 else None
                    cap = f"{usd(plan.cap)}" + (f" ({pct}%)" if pct is not None else "") + (" ✗ over" if plan.total > plan.cap else "")
                row += [usd(plan.total), cap]
            rows.append(row)
        header = ["environment", "monthly", "environment total", "cap"] if with_totals else ["environment", "monthly"]
        out += markdown.table(header, rows, right={1, 2})
        out += ["", "*USD per month, 730 hours; free tiers ignored.*"]
        return "\n".join(out)

    def references(self, consumer: str | None) -> None:
        """Resources and workloads a `uses` may name: not ``consumer`` itself, not those listed."""
        f = self.facts
        group = {"resource": 0, "implicit": 1, "workload": 2}
        for i, (name, typ, kind) in enumerate(f.names()):
            if name == consumer or name in self.ctx.present:
                continue
            items = f.monthly(name)
            kind_word = "workload" if typ == "workload" else (kind or "resource") + (" (shared pool)" if typ == "implicit" else "")
            detail = kind_word + (f" · {_money(items[0][1])}/mo in {items[0][0]}" if items else "")
            doc = [f"**{name}** — {kind_word}"]
            if items:
                doc += ["", " · ".join(f"{e} {_money(it)}" for e, it in items) + " per month"]
                if items[0][1].consumers:
                    doc += ["", f"Used by: {', '.join(items[0][1].consumers)}"]
                if items[0][1].variables:
                    doc += ["", "Injects: " + ", ".join(f"`{v}`" for v in items[0][1].variables)]
            self.names_value(name, "reference", detail=detail, documentation="\n".join(doc), sort=f"{group.get(typ, 3)}{i:03d}")

    def grounds(self) -> None:
        """The three grounds, as the start of a quoted reason (``"residency: …"``)."""
        ctx = self.ctx
        for i, g in enumerate(REASON_GROUNDS):
            doc = f"**{g}** — {GROUND_SUMMARIES[g]} (ADR 0493 §5: a workload only where no managed resource fits). Say why after the colon."
            if ctx.quote:
                self.add(g, "enum", f"{g}: ", detail=GROUND_SUMMARIES[g], documentation=doc, sort=f"{i:02d}")
            else:
                self.add(g, "enum", f'{ctx.lead}"{g}: "', snippet=f'{_esc(ctx.lead)}"{g}: $0"', detail=GROUND_SUMMARIES[g], documentation=doc, sort=f"{i:02d}")

    def enum_values(self, model: type[BaseModel], path: tuple[str, ...], kind: str | None) -> None:
        name = path[-1]
        f = self.facts
        values = _field_values(model, name)
        if model is PostgresEngine and name == "version":
            for i, v in enumerate(("17", "16", "15", "14")):
                self.value(v, "enum", f'"{v}"' if not self.ctx.quote else v, detail="PostgreSQL major version" + (" (default)" if v == "16" else ""), sort=f"{i:02d}")
            return
        if not values:
            return
        field_ = model.model_fields[name]
        default = field_.default
        entry = f.entry(path[1]) if len(path) == 4 and path[0] == "resources" and path[2] == "engine" else None
        for i, v in enumerate(values):
            is_default = str(default).lower() == v
            summary = _ENUM_SUMMARIES.get((name, v))
            detail = " ".join(x for x in (summary, "(default)" if is_default and not (summary and "default" in summary) else None) if x) or None
            if entry is not None and kind is not None:
                # An engine option that changes the price (flavor, proxy, fifo): show it.
                parsed = {"true": True, "false": False}.get(v, v)
                changed = dataclasses.replace(entry, engine={**entry.engine, name: parsed})
                e = f.env_names[0] if f.env_names else None
                item = f.plan(changed, e)[0] if e is not None else None
                if item is not None and item.size is not None:
                    detail = f"{_money(item)}/mo in {e}" + (f" · {detail}" if detail else "")
            doc = f"**{'.'.join(path)}: {v}**" + (f"\n\n{field_.description}" if field_.description else "")
            self.value(v, "enum", detail=detail, documentation=doc, sort=f"{i:02d}")

    # --- snippets ---------------------------------------------------------------------------

    def _name(self) -> str:
        return self.ctx.word or "name"

    def resource_snippet(self) -> None:
        if self.ctx.flow or self.ctx.colon_follows:
            return
        ci = " " * (self.ctx.indent + self.step)
        name = self._name()
        plain = f"{name}:\n{ci}kind: postgres\n{ci}size: small"
        snippet = f"${{1:{_esc(name)}}}:\n{ci}kind: ${{2|{','.join(RESOURCE_KINDS)}|}}\n{ci}size: ${{3|{','.join(SIZES)}|}}"
        doc = "A new managed resource: its name (a DNS label), `kind` and `size` (one size for every environment, or a map `{environment: size}`)."
        self.add("new resource", "snippet", plain, snippet=snippet, detail="name, kind and size", documentation=doc, sort="0", filter_text=self.ctx.word or "new resource", volatile=bool(self.ctx.word))

    def workload_snippet(self) -> None:
        if self.ctx.flow or self.ctx.colon_follows:
            return
        c1 = " " * (self.ctx.indent + self.step)
        c2 = " " * (self.ctx.indent + 2 * self.step)
        name = self._name()
        grounds = ",".join(REASON_GROUNDS)
        plain = (
            f"{name}:\n{c1}image: registry/image@sha256:<64 hex digits>\n{c1}port: 8080\n{c1}health:\n{c2}path: /health\n"
            f"{c1}expose: internal\n{c1}reason: \"{REASON_GROUNDS[0]}: why no managed resource fits\""
        )
        snippet = (
            f"${{1:{_esc(name)}}}:\n{c1}image: ${{2:registry/image}}@sha256:${{3:<64 hex digits>}}\n{c1}port: ${{4:8080}}\n"
            f"{c1}health:\n{c2}path: ${{5:/health}}\n{c1}expose: ${{6|{','.join(EXPOSE_VALUES)}|}}\n"
            f"{c1}reason: \"${{7|{grounds}|}}: ${{8:why no managed resource fits}}\""
        )
        doc = (
            "A new container workload with every required key: `image` pinned by digest (`name@sha256:<64 hex digits>`), "
            "`port`, an HTTP `health` path, `expose` and a `reason` on one of the three grounds "
            f"({', '.join(f'`{g}`' for g in REASON_GROUNDS)})."
        )
        self.add("new workload", "snippet", plain, snippet=snippet, detail="image, port, health, expose, reason", documentation=doc, sort="0", filter_text=self.ctx.word or "new workload", volatile=bool(self.ctx.word))

    def environment_snippets(self) -> None:
        ctx = self.ctx
        if ctx.flow:
            return
        c1 = " " * (ctx.indent + self.step)
        c2 = " " * (ctx.indent + 2 * self.step)
        note = "Declaring `environments` replaces the defaults (dev, staging, production): list every environment you deploy."
        if not ctx.colon_follows:
            name = self._name()
            plain = f"{name}:\n{c1}limits:\n{c2}monthly: 150"
            snippet = f"${{1:{_esc(name)}}}:\n{c1}limits:\n{c2}monthly: ${{2:150}}"
            doc = f"A new environment with its monthly cap (USD per month; a plan over it is refused).\n\n{note}"
            self.add("new environment", "snippet", plain, snippet=snippet, detail="name and limits.monthly", documentation=doc, sort="0", filter_text=ctx.word or "new environment", volatile=bool(ctx.word))
        for i, env in enumerate(DEFAULT_ENVIRONMENTS):
            if env in ctx.present:
                continue
            cap = DEFAULT_CAPS.get(env)
            cap_text = str(cap) if cap is not None else "null"
            if ctx.colon_follows:
                self.add(env, "environment", env, detail="environment", sort=f"1{i}")
                continue
            plain = f"{env}:\n{c1}limits:\n{c2}monthly: {cap_text}"
            snippet = f"{env}:\n{c1}limits:\n{c2}monthly: ${{1:{cap_text}}}"
            why = f"default cap ${cap}/month" if cap is not None else "no cap until you set one (`null`)"
            doc = f"**{env}** with its monthly cap: {why}.\n\n{note}"
            self.add(env, "environment", plain, snippet=snippet, detail=f"limits.monthly: {cap_text}", documentation=doc, sort=f"1{i}")


__all__ = ["CANDIDATE_KINDS", "CompletionCandidate", "completions_at", "resized", "KIND_SUMMARIES", "GROUND_SUMMARIES"]
