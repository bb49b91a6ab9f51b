"""The editor's queries: pure functions over an :class:`~runway_core.facts.Analysis` that the
language server only converts to protocol values (docs/architecture.md §2).

One module or package per query, none importing another (as rust-analyzer's ``ide`` crate
over ``hir``):

- :mod:`.completion`: :func:`~.completion.completions_at`, keys, values, sizes with their cost;
- :mod:`.fixes`: :func:`~.fixes.fixes_for`, the minimal edits that resolve a diagnostic;
- :mod:`.hover`: :func:`~.hover.hover_at`, Markdown over a name, size, environment or key;
- :mod:`.lenses`: :func:`~.lenses.code_lenses` and :func:`~.lenses.inlay_hints`, cost in view;
- :mod:`.navigation`: definition, references, highlights, rename, outline, links, symbols.

What two queries share lives in ``ide/_*`` modules: :mod:`._edit` (the text edit type),
:mod:`._cursor` (the node chain under the cursor), :mod:`._render` (quantities, prices and
capacity as text) and :mod:`._deltas` (cost changes against a baseline as text). Pricing a
what-if (a size not chosen yet) is :mod:`runway_core.whatif`'s, never a query's.
"""
