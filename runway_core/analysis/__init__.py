"""Workspace analysis: root + member runways read, validated, checked and planned together.

One :func:`analyze` call (or :func:`analysis_steps`, the same in steps) is what every face uses: the CLI's ``check`` and ``plan``, the
language server's diagnostics and hovers, and (through the plan) the Pulumi program. It reads
files through a caller-supplied ``read`` function so that an editor's open buffers take
precedence over the disk (docs/architecture.md §6: pass things in).

Never raises for bad input: every problem is a :class:`Diagnostic` of the file it concerns.
Must not import pygls, lsprotocol or pulumi.

The package: :mod:`.run` (:func:`analyze`: parse -> model -> spec and plans -> rules), :mod:`.validate`
(pydantic errors as positioned diagnostics), :mod:`.root` and :mod:`.members` (each file's
models, symbols and references), :mod:`.spec` (the planner's input), :mod:`.cache` (per-file
reuse between analyses), :mod:`.report` (limits per file, read errors) and :mod:`.tolerant`
(what stays in view while a line being typed breaks the YAML). The result types live in
:mod:`runway_core.facts`, the file system in :mod:`runway_core.workspace`.
"""

from ..facts import Analysis, Reference, SourceFile, Symbol
from .cache import clear_file_cache, parse_file
from .report import MAX_DIAGNOSTICS_PER_FILE
from .run import AnalysisSteps, analysis_steps, analyze, node_at_path, step
from .tolerant import blank_lines, tolerant_analysis, tolerant_text
from .validate import validation_diagnostics

__all__ = [
    "Analysis",
    "SourceFile",
    "Symbol",
    "Reference",
    "analyze",
    "analysis_steps",
    "AnalysisSteps",
    "step",
    "parse_file",
    "clear_file_cache",
    "validation_diagnostics",
    "node_at_path",
    "blank_lines",
    "tolerant_text",
    "tolerant_analysis",
    "MAX_DIAGNOSTICS_PER_FILE",
]
