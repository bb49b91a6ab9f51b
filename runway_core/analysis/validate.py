"""Validation: a pydantic model checked against a YAML tree, each error a positioned
diagnostic (RW100 wrong type or value, RW101 missing key, RW102 unknown key with the closest
known key suggested). Never raises for any data.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis
from ..model import ENTRIES_ERROR, model_for
from ..positions import Position, Range
from ..text import suggest
from ..yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq, find_path, resolve_plain


def _clean_msg(msg: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    # pydantic's "a valid dictionary or instance of Health" -> the YAML word, no class names.
    return re.sub(r"a valid dictionary( or instance of \w+)?", "a mapping", msg)


def _yaml_hint(etype: str, node: YNode | None, exact: bool) -> str:
    """Why a scalar has the wrong type under YAML 1.2 (`no` is a string, `1e3` a float)."""
    if not exact or not isinstance(node, YScalar):
        return ""
    if node.value is None and etype.endswith("_type"):
        return "; the value is empty"
    if etype not in ("bool_type", "int_type", "int_from_float", "decimal_type"):
        return ""
    want = "`true` or `false`" if etype == "bool_type" else "the number"
    if isinstance(node.value, str) and node.style in ("'", '"'):
        unquoted = resolve_plain(node.value.strip()) if "\n" not in node.value else None
        fits = isinstance(unquoted, bool) if etype == "bool_type" else isinstance(unquoted, (int, float)) and not isinstance(unquoted, bool)
        return f"; `{node.style}{node.text}{node.style}` is a quoted string" + (f"; write {want} without quotes" if fits else "")
    if isinstance(node.value, str):
        return f"; `{node.text}` is a string in YAML 1.2" + (f"; write {want}" if etype == "bool_type" else "")
    if isinstance(node.value, float):
        digits = node.text.lstrip("+-")
        if abs(node.value) == float("inf") and digits.isdigit():
            # Too many digits for Python's int (yamlsrc.resolve_plain): never echo them all.
            return f"; the number has {len(digits):,} digits, far past any value a runway holds"
        return f"; `{node.text}` is a number with a fraction or exponent (a float in YAML 1.2)"
    return ""


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) if loc else "(top level)"


def _top_range(parsed: ParsedYaml) -> Range:
    root = parsed.root
    if isinstance(root, YMap) and root.entries:
        return root.entries[0][0].range
    return Range(Position(0, 0), Position(0, 0))


def validation_diagnostics(
    exc: ValidationError,
    prefix: tuple[Any, ...],
    parsed: ParsedYaml,
    member: bool,
    kind: str | None = None,
) -> list[Diagnostic]:
    """Map each pydantic error of a model validated at ``prefix`` to a YAML range.

    Codes: RW101 missing key (range: the parent key), RW102 unknown key (the key itself, with
    the closest known key suggested in the message and ``data.suggestion``), RW100 otherwise.
    """
    out: list[Diagnostic] = []
    root = parsed.root
    for err in exc.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        etype = err["type"]
        if etype == "missing":
            parent = loc[:-1]
            node, key_node, depth = find_path(root, parent)
            rng = key_node.range if (key_node is not None and depth == len(parent)) else _top_range(parsed)
            where = f" in {_dotted(parent)}" if parent else ""
            out.append(
                Diagnostic(parsed.path, rng, Severity.ERROR, "RW101", f"missing required key `{loc[-1]}`{where}", {"key": str(loc[-1]), "path": list(map(str, parent))})
            )
        elif etype == "extra_forbidden":
            node, key_node, depth = find_path(root, loc)
            rng = key_node.range if (key_node is not None and depth == len(loc)) else _top_range(parsed)
            model = model_for(tuple(loc[:-1]), member, kind)
            known = list(model.model_fields) if model is not None else []
            sug = suggest(str(loc[-1]), known)
            hint = f"; did you mean `{sug}`?" if sug else (f"; known keys: {', '.join(known)}" if known else "")
            out.append(
                Diagnostic(parsed.path, rng, Severity.ERROR, "RW102", f"unknown key `{loc[-1]}`{hint}", {"key": str(loc[-1]), "suggestion": sug, "known": known})
            )
        elif etype == ENTRIES_ERROR and (err.get("ctx") or {}).get("entries"):
            # A map with bad entries (`env`, `size`, `scale`): one diagnostic per entry, each
            # at its own value, never one for the first entry or for the whole map.
            for key, msg in err["ctx"]["entries"]:
                sub = loc + (key,)
                node, key_node, depth = find_path(root, sub)
                out.append(Diagnostic(parsed.path, _value_range(parsed, sub, node, key_node, depth), Severity.ERROR, "RW100", f"{_dotted(sub)}: {msg}"))
        else:
            node, key_node, depth = find_path(root, loc)
            rng = _value_range(parsed, loc, node, key_node, depth)
            out.append(Diagnostic(parsed.path, rng, Severity.ERROR, "RW100", f"{_dotted(loc)}: {_clean_msg(err['msg'])}{_yaml_hint(etype, node, depth == len(loc))}"))
    return out


def _value_range(parsed: ParsedYaml, loc: tuple[Any, ...], node: YNode | None, key_node: YScalar | None, depth: int) -> Range:
    """Where a wrong value at ``loc`` is reported: the value itself, narrowed so that it never
    spans more than one line (a 3,000-line list of the wrong type is reported at its key, or
    at the first line of a list item, not over 3,000 lines)."""
    if node is None:
        return _top_range(parsed)
    rng = node.range
    if depth < len(loc) and key_node is not None and isinstance(node, YMap):
        return key_node.range
    if isinstance(node, YScalar) and node.value is None and node.range.start == node.range.end and key_node is not None:
        return key_node.range  # `port:` with nothing after it: point at the key, not at an empty range
    if isinstance(node, (YMap, YSeq)) and rng.start.line != rng.end.line:
        if key_node is not None and depth == len(loc) and loc and loc[-1] == key_node.text:
            return key_node.range  # the value of this key is wrong as a whole
        lines = parsed.lines
        return Range(rng.start, Position(rng.start.line, lines.line_end(rng.start.line) - lines.line_start(rng.start.line)))
    return rng


def _validate(model: type[BaseModel], data: Any, prefix: tuple[Any, ...], parsed: ParsedYaml, analysis: Analysis, member: bool = False, kind: str | None = None) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for d in validation_diagnostics(exc, prefix, parsed, member, kind):
            analysis.add(d)
        return None
