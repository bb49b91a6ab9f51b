"""What an analysis knows about one root runway and its members: the result types.

:class:`Analysis` (files, diagnostics, models, the planner's spec, plans, symbols and
references), :class:`SourceFile`, :class:`Symbol` and :class:`Reference`. Built by
:func:`runway_core.analysis.analyze`; read by the rules (:mod:`runway_core.rules`), the
what-if pricing and every editor query (:mod:`runway_core.ide`). They live below the rules
and the analysis so that both can name them without importing each other (the same split
as rust-analyzer's ``hir`` under its ``ide``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .catalog import Catalog
from .diagnostics import Diagnostic, Severity
from .model import Environment, MemberRunway, Resource, RootRunway, Workload
from .planner import EnvironmentPlan, RunwaySpec
from .positions import Range
from .yamlsrc import ParsedYaml


@dataclass
class SourceFile:
    """One runway file as analysed. ``role`` is ``root`` or ``member``."""

    path: str
    role: str
    parsed: ParsedYaml
    member_name: str | None = None
    folder: str | None = None  # the member's folder as written in the root's `members`


@dataclass(frozen=True)
class Symbol:
    """A declared (or implicit) resource/workload. ``type`` is resource | workload | implicit."""

    name: str
    type: str
    kind: str | None
    file: str | None
    range: Range | None  # the declaring key (None for implicit)
    origins: tuple[tuple[str, Range], ...] = ()  # where an implicit one comes from


@dataclass(frozen=True)
class Reference:
    """A use of ``name`` at ``range`` of ``file`` by ``consumer`` (``via`` uses|requires|shared)."""

    name: str
    file: str
    range: Range
    consumer: str
    via: str


@dataclass(slots=True)
class Analysis:
    """Everything known about one root runway and its members.

    ``diagnostics`` has an entry (maybe empty) for every file read or named; ``spec`` is the
    planner's input (None only when the root is unreadable or not a mapping); ``plans`` maps
    environment name to its :class:`EnvironmentPlan`.

    Every field is declared (``slots``: nothing can be attached later, as rust-analyzer's
    ``Analysis`` is a snapshot of declared state). Built by :func:`runway_core.analysis.analyze`
    and not changed once returned, but for :attr:`occurrences`, the one memo, filled on first use.
    """

    root_file: str
    catalog: Catalog
    files: dict[str, SourceFile] = field(default_factory=dict)
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    spec: RunwaySpec | None = None
    plans: dict[str, EnvironmentPlan] = field(default_factory=dict)
    symbols: dict[str, Symbol] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    env_keys: dict[str, Range] = field(default_factory=dict)  # env name -> key range in root
    root_model: RootRunway | None = None
    member_models: dict[str, MemberRunway] = field(default_factory=dict)  # file -> model
    workload_models: dict[str, Workload] = field(default_factory=dict)
    resource_models: dict[str, Resource] = field(default_factory=dict)
    environment_names: tuple[str, ...] = ()
    environments_declared: bool = False
    #: section (``environments``, ``resources``, ``workloads``) -> how many of its first
    #: entries are read (model.MAX_ENVIRONMENTS, model.MAX_ENTRIES: RW156, RW157); a section
    #: not listed is read whole.
    entries_read: dict[str, int] = field(default_factory=dict)
    #: file -> (count, errors among them) of diagnostics known to fall past the per-file cap,
    #: counted in RW012 but never built (issue 7: an 85,000-item `members` line).
    uncounted: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: environment name -> its validated model (entries that fail validation are left out: their
    #: cap is unknown until fixed, so RW162/RW170 do not judge them).
    env_models: dict[str, Environment] = field(default_factory=dict)
    #: The navigation index (``runway_core.ide.navigation.occurrences``: every name's
    #: declaration and uses), built on first use and then shared; never compared.
    occurrences: list[Any] | None = field(default=None, repr=False, compare=False)

    @property
    def root(self) -> SourceFile:
        return self.files[self.root_file]

    def read_entries(self, sect: str, node: Any) -> list:
        """The (key, value) entries of the root's section ``sect`` (a YMap) that are read
        (:attr:`entries_read`): all of them unless the section is over its limit."""
        n = self.entries_read.get(sect)
        return node.entries if n is None else node.entries[:n]

    def add(self, diag: Diagnostic) -> None:
        self.diagnostics.setdefault(diag.file, []).append(diag)

    def all_diagnostics(self) -> list[Diagnostic]:
        out = [d for ds in self.diagnostics.values() for d in ds]
        out.sort(key=Diagnostic.sort_key)
        return out

    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for ds in self.diagnostics.values() for d in ds)

    def member_files(self) -> list[str]:
        return [p for p, f in self.files.items() if f.role == "member"]


__all__ = ["Analysis", "SourceFile", "Symbol", "Reference"]
