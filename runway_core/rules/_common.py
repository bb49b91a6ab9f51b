"""What every rule module shares: building a diagnostic with its code's default severity
(:data:`runway_core.diagnostics.CODES`), and the root runway's sections as YAML mappings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ..diagnostics import CODES, Diagnostic, Severity
from ..names import shown
from ..positions import Position, Range
from ..yamlsrc import YMap, YNode, YScalar

if TYPE_CHECKING:
    from ..facts import Analysis


def _d(an: "Analysis", file: str, rng: Range, code: str, msg: str, data: dict | None = None, severity: Severity | None = None, tags: tuple[int, ...] = ()) -> Diagnostic:
    sev = severity if severity is not None else Severity[CODES[code][0].upper()]
    # A name quoted in a message may hold a line break (`"dev\n"`: RW110 says so); each message
    # stays one line (a CLI line, a SARIF result, a PR annotation), the break written `\n`.
    return Diagnostic(file, rng, sev, code, shown(msg), data, tags)


def _item_place(an: "Analysis", name: str) -> tuple[str, Range] | None:
    """Where an item of the plan is declared: its key, or (an implicit ``shared-<kind>``) the
    first place that asks for it; None for an item no file declares (the ALB...)."""
    sym = an.symbols.get(name)
    if sym is not None and sym.file is not None and sym.range is not None:
        return sym.file, sym.range
    if sym is not None and sym.origins:
        return sym.origins[0]
    return None


def _root(an: "Analysis") -> YMap | None:
    r = an.root.parsed.root
    return r if isinstance(r, YMap) else None


def _section(an: "Analysis", name: str) -> YMap | None:
    r = _root(an)
    s = r.get(name) if r is not None else None
    return s if isinstance(s, YMap) else None


def _first_key_range(r: YMap) -> Range:
    """``product``'s key, else the first key, else 0:0 (a mapping whose only key was a merge
    key ``<<`` has no entries of its own)."""
    kn = r.key_node("product") or (r.entries[0][0] if r.entries else None)
    return kn.range if kn is not None else Range(Position(0, 0), Position(0, 0))


def _scalar_str(n: YNode | None) -> str | None:
    return n.value if isinstance(n, YScalar) and isinstance(n.value, str) else None


Rule = Callable[["Analysis"], Iterable[Diagnostic]]


def _workloads(an: "Analysis") -> Iterator[tuple[YScalar, YMap]]:
    s = _section(an, "workloads")
    if s is None:
        return
    for k, v in an.read_entries("workloads", s):
        if isinstance(v, YMap):
            yield k, v


def _shared_entries(an: "Analysis") -> Iterator[tuple[YScalar, YScalar, YNode]]:
    """(environment key, kind key, size value) of every ``environments.<env>.shared`` entry."""
    envs = _section(an, "environments")
    if envs is None:
        return
    for ek, v in an.read_entries("environments", envs):
        sh = v.get("shared") if isinstance(v, YMap) else None
        if isinstance(sh, YMap):
            for sk, sv in sh.entries:
                yield ek, sk, sv


def _entries(an: "Analysis") -> Iterator[tuple[str, YScalar, YMap]]:
    """(section, name key, entry) of every resource, then every workload, that is a mapping."""
    for sect in ("resources", "workloads"):
        s = _section(an, sect)
        if s is None:
            continue
        for k, v in an.read_entries(sect, s):
            if isinstance(v, YMap):
                yield sect, k, v
