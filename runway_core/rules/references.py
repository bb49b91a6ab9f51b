"""References: RW150/RW152 (a ``uses`` item that names nothing), RW153 (a workload that
uses itself) and RW180 (a resource nobody uses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..text import close_names
from ._common import _d, _section

if TYPE_CHECKING:
    from ..facts import Analysis

#: The closest names an RW150/RW152 carries in ``data.candidates`` (its quick fixes offer
#: three of those not already listed).
MAX_CANDIDATES = 10


def uses(an: "Analysis") -> Iterator[Diagnostic]:
    """RW150 (workload uses unknown), RW152 (member uses unknown), RW153 (uses itself)."""
    names = [n for n in an.symbols]
    for ref in an.references:
        if ref.via == "requires":
            continue
        if ref.name == ref.consumer and ref.file == an.root_file:
            yield _d(an, ref.file, ref.range, "RW153", f"workload `{ref.name}` uses itself", {"name": ref.name})
            continue
        if ref.name in an.symbols:
            if ref.file != an.root_file and an.symbols[ref.name].type == "workload":
                continue
            continue
        cands = [n for n in names if n != ref.consumer]
        close = close_names(ref.name, cands)
        sug = close[0] if close else None
        hint = f"; did you mean `{sug}`?" if sug else ""
        # `candidates`: the closest names, for the quick fixes (runway_core/ide/fixes/references.py),
        # not every name of the product (1,201 names in each of 400 diagnostics made a 3.9 MB
        # publication, round 3).
        data = {"name": ref.name, "suggestion": sug, "candidates": sorted(close[:MAX_CANDIDATES])}
        if ref.file == an.root_file:
            yield _d(an, ref.file, ref.range, "RW150", f"`{ref.name}` is not a resource or workload of this runway{hint}", data)
        else:
            yield _d(an, ref.file, ref.range, "RW152", f"`{ref.name}` is not a resource of the root runway{hint}", data)


def unused(an: "Analysis") -> Iterator[Diagnostic]:
    """RW180: a declared resource nobody uses (hint, tagged unnecessary)."""
    used = {r.name for r in an.references}
    res = _section(an, "resources")
    if res is None:
        return
    for k, v in an.read_entries("resources", res):
        if k.text not in used and an.symbols.get(k.text) is not None and an.symbols[k.text].type == "resource":
            yield _d(an, an.root_file, k.range, "RW180", f"resource `{k.text}` is used by no workload or member", {"name": k.text}, tags=(1,))
