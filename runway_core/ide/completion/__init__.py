"""Completion: what the editor offers at the cursor of a runway file, costs included.

One pure query, :func:`completions_at`, over an :class:`~runway_core.analysis.Analysis`; the
language server only converts its result (docs/architecture.md §2). It works on every state a file
passes through while typed: complete, half-typed (a bare ``    kin`` line), cut short by a
syntax error, empty lines at any indentation, and inside flow collections
(``uses: [main-db, |]``, ``size: {dev: |}``).

**Where the cursor is** (a key of which mapping, the value of which key, an item of which
list) comes from the YAML tree when the file parses and the cursor is on a scalar or inside a
flow collection; otherwise (an empty line, a bare word, a syntax error) from the text: the
current line up to the cursor, read by a small YAML-aware scanner, and the indentation of the
lines above it (walk up to each line with a smaller indentation: its key is a parent key).
**What is offered** comes from the model (keys and their descriptions), the catalogue (sizes)
and the planner (costs, what-if sizes priced by :mod:`runway_core.whatif`); after a syntax error the tree is re-read with the cursor's line
blanked, so that names and sizes written elsewhere in the file still count.

Offered: keys of the mapping (not those already present; engine keys by the resource's
kind), kinds (reserved kinds are not offered), sizes with that environment's monthly cost
(the entry re-planned at each size, sorted by cost), environment names in ``size``/``scale``
maps, ``uses`` items (resources and workloads, with kind and cost; not the workload itself),
``expose`` and other enumerated or boolean values, the three reason grounds, member
``requires`` kinds, shared pool kinds, and snippets for a new resource, workload and
environment.

Edits replace the half-typed word at the cursor (one line, the cursor inside it), so the
line's indentation is kept; right after ``key:`` they replace the value written there or go
into its flow list, and where neither would leave a file that parses nothing is offered
(:func:`.context._after_colon`, docs/features.md "Completion"); multi-line texts carry their
own indentation (the server sends them "as is"). Positions are the core's code points (docs/architecture.md §4). Money is USD per month.

Must not import pygls, lsprotocol or pulumi.

The package: :mod:`.candidate` (the result type), :mod:`._scan` (the line scanner and the
indentation walk), :mod:`.context` (where the cursor is), :mod:`.facts` (names, environments
and prices, also for files cut short) and :mod:`.candidates` (what is offered, with
:mod:`._writer` and :mod:`.snippets` below it).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...positions import Position, Range
from ...yamlsrc import ParsedYaml
from ._scan import _indent_step
from .candidate import CANDIDATE_KINDS, GROUND_SUMMARIES, KIND_SUMMARIES, CompletionCandidate
from .candidates import _Candidates
from .context import _add_present, _after_colon, _prev_char, _text_context, _tree_context
from .facts import _Facts

if TYPE_CHECKING:
    from ...facts import Analysis


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
    except Exception:  # noqa: BLE001 - docs/architecture.md §7: degrade, never crash a handler
        return []


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
    if src is not None and src.role == "usage":
        from .._usage import usage_completions  # a usage file: its own keys (docs/format.md "Usage file")

        return [CompletionCandidate(label, kind, rng, text, detail=detail, documentation=doc, sort_text=order)
                for label, kind, rng, text, detail, doc, order in usage_completions(an, texts, pos)]
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
    if cur.startswith(("---", "...")) and cur[3:4] in ("", " ", "\t"):
        return []  # a document marker's line: a key written there ends the directives or the document
    if ctx.flow and ctx.slot in ("key", "item") and not ctx.word and not ctx.quote and _prev_char(texts, ctx.range.start) not in ("[", "{", ","):
        return []  # `[[a]]‸]`: after a closed entry, before its comma (`[[a]]x]` would not parse)
    if ctx.slot == "value" and not ctx.quote and ctx.range.start == ctx.range.end and before.rstrip(" \t").endswith(":"):
        # `kind:| postgres`, `uses:| [main-db]`, `env:|` over its variables: the cursor right
        # after the colon, a value already written. The choice replaces that value or goes
        # into its list instead of landing before it (`kind: queue postgres`,
        # yaml-language-server#363); where neither keeps the file parsing, nothing is offered.
        if not _after_colon(ctx, facts.tree, texts, pos):
            return []
    after = cur[ctx.range.end.character :].lstrip()
    if ctx.slot == "key" and not ctx.flow and not ctx.colon_follows and after and not after.startswith("#"):
        # The cursor in the indentation before a written key (`  ‸  shared:`), or before more
        # text: a key inserted there shares the line with it (`disposable:  shared:`).
        return []
    if ctx.flow and ctx.slot in ("item", "key") and not ctx.quote and not ctx.colon_follows and after and after[0] not in ",]}#":
        ctx.trail = ","  # `[a,‸ b]`, `{‸ cache: tiny}`: a comma before the entry that follows
    return _Candidates(ctx, facts, _indent_step(texts)).build()


__all__ = ["CANDIDATE_KINDS", "CompletionCandidate", "completions_at", "KIND_SUMMARIES", "GROUND_SUMMARIES"]
