"""runway_core: the pure analysis of runway.yaml files.

Parsing with positions, the pydantic model, the catalogue, the planner, the rules, the
analysis that runs them, what-if pricing and baselines, and the editor's queries. It must
never import pygls, lsprotocol, pulumi or pulumi_aws, nor runway_lsp or deploy_engine: the
language server, the CLI and the Pulumi program are thin adapters over this package
(docs/architecture.md, "one core").

Layers: a module imports only modules of its own layer or of a lower one, never in a cycle
(function-local and ``TYPE_CHECKING`` imports count); tests/core/test_layers.py enforces this
table, and that no editor query under ``ide`` imports another one.

====  ================================================================================
rank  modules
====  ================================================================================
0     positions, diagnostics, money, text, names, markdown, files, gitcmd, kinds
1     yamlsrc, catalog, model, schema, usage
2     planner, workspace, facts
3     rules
4     analysis
5     whatif, baseline, plan_diff, changes
6     ide
====  ================================================================================

- 0, leaves: code-point positions, diagnostics and their codes, USD amounts, text helpers
  (``suggest``, ``redact``, ``secret_shape``), name patterns, markdown tables, the non-blocking read of a regular file and the one folder walk (``files``),
  every git command line (``gitcmd``), the kind registry (``kinds``: one declaration per kind);
- 1, source and data: the YAML tree (``yamlsrc``), the catalogue, the models and the JSON
  Schema generated from them, the usage file (``usage``: its keys per kind, its reader);
- 2: the planner (spec in, plan out), the workspace on disk (root finding, reads, member
  folders) and ``facts``, the result types of an analysis;
- 3: the rules, one module per family, in one ordered registry;
- 4: ``analysis``, which orchestrates parse -> model -> plans -> rules;
- 5: what-if pricing (resized and scaled plans, the fit under a cap), baselines (the
  saved and git HEAD plans, cost deltas) and ``plan_diff``, the cost change between two
  plans (``runway-deploy diff``), and ``changes``, the changes AWS refuses against the plan
  last deployed (RW190-RW193);
- 6: ``ide``, the editor's pure queries (completion, fixes, hover, lenses, navigation) and
  what they share (``ide/_*``).
"""

import os as _os
import sys as _sys

__all__ = ["__version__"]
__version__ = "0.1.0"


def _leave_the_workspace_off_sys_path() -> None:
    """``python -m runway_lsp`` (or ``-m deploy_engine``) puts the current folder first on
    ``sys.path`` (the Python docs, command line, "-m": "prepend the current working directory"),
    and an editor starts the server in the workspace: a workspace's own ``catalog/``,
    ``lsprotocol/`` or ``yaml.py`` would be imported instead of ours, and run (tenth adversary
    L2). This package is imported first by both; while the module of ``-m`` is being found
    (``sys.argv[0]`` is then ``"-m"``) the entry is dropped, unless these packages come from
    that very folder (a source checkout run in place). ``-P``/``-I`` and the console scripts
    never add it."""
    if _sys.flags.safe_path or not _sys.argv or _sys.argv[0] != "-m" or not _sys.path:
        return
    here = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    first = _os.path.abspath(_sys.path[0] or _os.curdir)
    if first == _os.path.abspath(_os.curdir) and first != here:
        del _sys.path[0]


_leave_the_workspace_off_sys_path()
