"""Per-file reuse (issue 6): an edit re-parses the file it changed, not the files it did not,
and validates again only the entries whose text changed.

Module-level memos, bounded; :func:`clear_file_cache` forgets them all. Trees and models are
never mutated after they are built, so sharing one between analyses is safe.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic
from ..facts import Analysis
from ..model import MemberRunway
from ..yamlsrc import ParsedYaml, parse_yaml, to_python
from ..yamlsrc.splice import reparse
from .validate import _validate

#: path -> (text, parse) of the last text parsed for that path; a parse is reused while the
#: text is the same (compared in full). Trees are never mutated after parsing, so sharing one
#: between analyses is safe. Bounded: cleared past :data:`_FILE_CACHE_MAX` paths.
_PARSES: dict[str, tuple[str, ParsedYaml]] = {}


#: path -> (parse, member model or None, its validation diagnostics), valid for that parse.
_MEMBER_MODELS: dict[str, tuple[ParsedYaml, Any, list[Diagnostic]]] = {}
_FILE_CACHE_MAX = 2048


#: root path -> {(section, key column, entry text): model} of the resources and workloads that
#: validated without any diagnostic in the last analysis of that root. An entry whose text is
#: the same again (every entry but the one being typed in) reuses its model instead of being
#: converted and validated again (issue 6). Rebuilt at each analysis: it holds only entries
#: the root still has.
_ENTRY_MODELS: dict[str, dict[tuple[str, int, str], Any]] = {}


def parse_file(text: str, path: str) -> ParsedYaml:
    """:func:`parse_yaml` of ``text``, reused while ``path``'s text has not changed; after a
    keystroke, built from the last parse of ``path`` by parsing only the entry it changed
    (:func:`runway_core.yamlsrc.splice.reparse`, the same result; issue 16 item 10: a
    completion right after a keystroke, and the analysis that follows, wait for it)."""
    hit = _PARSES.get(path)
    if hit is not None and hit[0] == text:
        return hit[1]
    parsed = reparse(hit[1], text) if hit is not None else None
    if parsed is None:
        parsed = parse_yaml(text, path)
    if len(_PARSES) >= _FILE_CACHE_MAX:
        clear_file_cache()
    _PARSES[path] = (text, parsed)
    return parsed


def _validate_member(mp: ParsedYaml, an: Analysis) -> Any:
    """``MemberRunway`` of a member's tree (diagnostics added to ``an``), reused per parse."""
    hit = _MEMBER_MODELS.get(mp.path)
    if hit is None or hit[0] is not mp:
        scratch = Analysis(root_file=mp.path, catalog=an.catalog)
        model = _validate(MemberRunway, to_python(mp.root), (), mp, scratch, member=True)
        hit = (mp, model, [d for ds in scratch.diagnostics.values() for d in ds])
        if _PARSES.get(mp.path, (None, None))[1] is mp:  # only parses the cache holds
            _MEMBER_MODELS[mp.path] = hit
    for d in hit[2]:
        an.add(d)
    return hit[1]


def clear_file_cache() -> None:
    """Forget every reused parse and model (tests; a process that wants the memory back)."""
    _PARSES.clear()
    _MEMBER_MODELS.clear()
    _ENTRY_MODELS.clear()
