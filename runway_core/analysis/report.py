"""How an analysis reports: at most :data:`MAX_DIAGNOSTICS_PER_FILE` diagnostics per file
(then the product limits, :data:`ALWAYS_SHOWN`, and one RW012), each aliased node's problem once, every message passed through
:func:`runway_core.text.redact`; and the diagnostics of a file that could not be read.
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis
from ..positions import Position, Range
from ..text import redacted
from ..workspace import MAX_FILE_CHARS, FileTooLarge


def _too_large(path: str, exc: FileTooLarge) -> Diagnostic:
    # A stream's length is unknown: the bytes read to see it pass the limit are no size
    # (`check -` said "1,048,577 bytes" of any larger input; sixth adversary).
    if getattr(exc, "at_least", False):
        message = f"the file is more than {MAX_FILE_CHARS:,} {exc.unit} (the 1 MiB limit for a runway); it is not analysed"
    else:
        message = f"the file is {exc.size:,} {exc.unit}, over the 1 MiB ({MAX_FILE_CHARS:,}) limit for a runway; it is not analysed"
    return Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW011", message)


def _not_utf8(path: str, exc: UnicodeDecodeError) -> Diagnostic:
    return Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW001", f"the file is not UTF-8 text (byte {exc.start})")


#: Most diagnostics reported per file (RW012 says how many more there are). A runway has a
#: few; a hostile or generated file can have ~100,000 (a 1 MB line of repeated items), and
#: every editor and CI face would then spend seconds and hundreds of MB on them.
MAX_DIAGNOSTICS_PER_FILE = 500


#: The product-level limits (docs/diagnostics.md RW155, RW156, RW157): each explains why the
#: rest of a product is missing, so it is shown even when it sorts past the cap (a file with
#: 2,500 bad entries puts RW157 at line 2,504, behind 500 problems of the entries before it).
#: At most one of each per file: the cap grows by at most three.
ALWAYS_SHOWN = frozenset({"RW155", "RW156", "RW157"})


def _capped(ds: list[Diagnostic], uncounted: tuple[int, int] = (0, 0)) -> list[Diagnostic]:
    """The first :data:`MAX_DIAGNOSTICS_PER_FILE` diagnostics of a sorted list, then those of
    :data:`ALWAYS_SHOWN` further on, then one RW012 (an error, so a check still fails) at the
    first one left out, counting those left out and ``uncounted`` = (diagnostics known to lie
    past the cap and never built, errors among them). Sorted still: what is kept past the cap
    sorts after the first :data:`MAX_DIAGNOSTICS_PER_FILE`; RW012 comes last."""
    if len(ds) <= MAX_DIAGNOSTICS_PER_FILE:
        return ds
    rest = ds[MAX_DIAGNOSTICS_PER_FILE:]
    shown = [d for d in rest if d.code in ALWAYS_SHOWN]
    if shown:
        rest = [d for d in rest if d.code not in ALWAYS_SHOWN]
    if not rest and not uncounted[0]:
        return ds  # only limits past the cap: nothing is left out
    first = rest[0] if rest else shown[-1]
    more = len(rest) + uncounted[0]
    errors = sum(1 for d in rest if d.severity == Severity.ERROR) + uncounted[1]
    return ds[:MAX_DIAGNOSTICS_PER_FILE] + shown + [
        Diagnostic(first.file, first.range, Severity.ERROR, "RW012",
                   f"{more:,} more {'problem' if more == 1 else 'problems'} from here on {'is' if more == 1 else 'are'} not shown "
                   f"({errors:,} of them {'an error' if errors == 1 and more == 1 else 'errors'}): a file reports at most "
                   f"{MAX_DIAGNOSTICS_PER_FILE} problems; fix the ones above first", {"more": more, "errors": errors})
    ]


def finish(an: Analysis, dedupe: bool = True) -> None:
    """Sort, cap (:func:`_capped`, with what :attr:`Analysis.uncounted` knows lies past the
    cap) and redact every file's diagnostics; with ``dedupe``, an aliased or merged node is
    one node: its problem is reported once, not once per use."""
    for f, ds in an.diagnostics.items():
        found = dict.fromkeys(ds) if dedupe else ds
        an.diagnostics[f] = [redacted(d) for d in _capped(sorted(found, key=Diagnostic.sort_key), an.uncounted.get(f, (0, 0)))]
