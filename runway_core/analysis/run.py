""":func:`analyze`: the one analysis every face uses, root and members together.

parse (:mod:`runway_core.yamlsrc`, reused per file) -> models (:mod:`.validate`, :mod:`.root`,
:mod:`.members`) -> the planner's spec (:mod:`.spec`) and every environment's plan
(:mod:`runway_core.planner`) -> the rules (:data:`runway_core.rules.RULES`) -> capped,
redacted diagnostics (:mod:`.report`). Parsing goes through :mod:`.cache`'s attribute, so
that the benchmarks can undo the reuse.

:func:`analysis_steps` is the same analysis in steps, for a caller that lets other work run
between them (the language server: a request that arrives while diagnostics are computed is
answered before the rest, docs/architecture.md "Threads of the server").
"""

from __future__ import annotations

import gc
import os
from typing import Generator

from .. import rules
from ..catalog import Catalog
from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis, SourceFile
from ..planner import plan_environment
from ..positions import Position, Range
from ..workspace import ROOT_NAMES, MAX_FILE_CHARS, FileTooLarge, Reader, is_lone_member, read_disk, root_link_escapes, shadowed_by
from ..yamlsrc import ParsedYaml, YMap, YNode, find_path, parse_yaml
from . import cache
from .members import _analyze_lone_member, _analyze_members
from .report import _not_utf8, _too_large, finish
from .root import _analyze_root
from .spec import _build_spec
from .usage import check_usage


def analyze(root_file: str, catalog: Catalog, read: Reader | None = None, previous: Analysis | None = None, refused: str | None = None,
            usage_file: str | None = None) -> Analysis:
    """Analyse the root runway at ``root_file`` and every member it lists.

    ``read(path) -> str`` supplies file text (default :func:`read_disk`); it may raise
    OSError or UnicodeDecodeError, which become diagnostics. Returns an :class:`Analysis`.
    ``previous``, an earlier analysis (an editor's, before the last keystroke), only saves
    work: plan items whose inputs did not change are reused from it; the result is the same.
    ``refused``, why the caller refuses the root (an editor's buffer whose URI is a symlink
    that leaves its folder, while ``root_file`` is the resolved path): RW151 at 1:1, as for a
    ``root_file`` that is itself such a link, and nothing read. ``usage_file``: the usage
    file to read (relative to the root's folder) instead of ``runway.usage.yaml`` beside the
    root (read only when it exists; docs/format.md, "Usage file").

    The cyclic garbage collector is paused while it runs: an analysis allocates tens of
    thousands of objects and makes no reference cycle, and the collections it would trigger
    walk every live object again and again (issue 6: they made analysis time grow faster
    than the file, ×14 for ×8 the lines). Its garbage is freed by reference counting.
    """
    enabled = gc.isenabled()
    gc.disable()
    steps = analysis_steps(root_file, catalog, read, previous, refused, usage_file)
    try:
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value
    finally:
        if enabled:
            gc.enable()


#: The analysis in steps (:func:`analysis_steps`): ``next()`` runs one step (see :func:`step`);
#: the ``StopIteration`` that ends it carries the :class:`Analysis`.
AnalysisSteps = Generator[None, None, Analysis]


def step(steps: AnalysisSteps) -> None:
    """Run the next step of ``steps`` with the cyclic garbage collector paused (see
    :func:`analyze`). Raises ``StopIteration`` (its ``value``: the Analysis) after the last."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        next(steps)
    finally:
        if enabled:
            gc.enable()


def analysis_steps(root_file: str, catalog: Catalog, read: Reader | None = None, previous: Analysis | None = None,
                   refused: str | None = None, usage_file: str | None = None) -> AnalysisSteps:
    """:func:`analyze` in steps: a generator that yields None after each of its parts (the
    root's read, parse and checks; the members; the spec; each environment's plan; each rule
    of :data:`runway_core.rules.RULES`) and returns the same :class:`Analysis` ``analyze``
    would. Each step is a few milliseconds on the 3,218-line benchmark workspace (the longest,
    the root's checks, ~6 ms). ``read`` is called during the steps: a caller that changes
    what it reads between steps gets an analysis of mixed texts, and should start again."""
    read = read or read_disk
    root_file = os.path.abspath(root_file)
    an = Analysis(root_file=root_file, catalog=catalog)
    an.diagnostics[root_file] = []
    escapes = refused or root_link_escapes(root_file)
    try:
        if escapes is not None:
            # Like a member's runway.yaml linked out of the repository (RW151): never read, so
            # none of its lines (`/etc/shadow`) can come back as "unknown key" diagnostics.
            raise PermissionError(escapes)
        text = read(root_file)
        if len(text) > MAX_FILE_CHARS:
            raise FileTooLarge(len(text), "characters")
    except FileTooLarge as exc:
        an.add(_too_large(root_file, exc))
        text = None
    except UnicodeDecodeError as exc:
        an.add(_not_utf8(root_file, exc))
        text = None
    except OSError as exc:
        why = escapes if escapes is not None else f"cannot read the runway: {exc.strerror or exc}"
        an.add(Diagnostic(root_file, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW151", why))
        text = None
    parsed = cache.parse_file(text, root_file) if text is not None else parse_yaml("", root_file)
    if text is None:
        parsed.diagnostics = []
    an.files[root_file] = SourceFile(root_file, "root", parsed)
    shadow = shadowed_by(root_file) if escapes is None else None
    if shadow is not None:
        # The CLI and a deploy read the runway.yaml beside it, never this file: its costs,
        # caps and errors are nobody's, so the only diagnostic is that (docs/diagnostics.md
        # RW158). Its tree stays for outline and hover.
        an.add(_shadowed(root_file, parsed))
        finish(an)
        return an
    for d in parsed.diagnostics:
        an.add(d)
    yield
    if text is None or parsed.root is None:
        return an
    root = parsed.root
    if not isinstance(root, YMap):
        an.add(Diagnostic(root_file, root.range, Severity.ERROR, "RW100", "a runway is a mapping of keys (`runway: 1`, `product: ...`)"))
        return an
    if parsed.partial:
        # A syntax error cut the tree short: schema and rules would report the cut as
        # missing keys. Features (hover, completion) still use the partial tree.
        return an
    if is_lone_member(parsed):
        _analyze_lone_member(an, parsed, read)
        return an

    _analyze_root(an, parsed)
    yield
    _analyze_members(an, parsed, read)
    yield
    _build_spec(an, previous)
    if an.spec is not None:
        check_usage(an, read, usage_file)
        prev = previous if previous is not None and previous.spec is not None and previous.catalog is catalog else None
        for env in an.spec.environments:
            yield
            old = prev.plans.get(env.name) if prev is not None else None
            an.plans[env.name] = plan_environment(an.spec, catalog, env.name, (prev.spec, old) if prev is not None and old is not None else None)  # type: ignore[union-attr]
    for rule in rules.RULES:
        yield
        for d in rule(an):
            an.add(d)
    finish(an)
    return an


def _shadowed(path: str, parsed: ParsedYaml) -> Diagnostic:
    """RW158 at the file's first key (1:1 when it has none): ``path`` is a ``runway.yml``
    whose folder also holds ``runway.yaml``."""
    root = parsed.root
    first = root.entries[0][0].range if isinstance(root, YMap) and root.entries else Range(Position(0, 0), Position(0, 0))
    return Diagnostic(
        path,
        first,
        Severity.WARNING,
        "RW158",
        f"this file is not read: its folder also holds {ROOT_NAMES[0]}, which `runway-deploy` and the deploy read instead; "
        f"move what you need into {ROOT_NAMES[0]} and delete this file",
    )


def node_at_path(parsed: ParsedYaml, path: tuple[str | int, ...]) -> YNode | None:
    node, _k, depth = find_path(parsed.root, path)
    return node if depth == len(path) else None
