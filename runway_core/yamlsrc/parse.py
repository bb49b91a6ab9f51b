"""``parse_yaml``: the one entry point from text to a :class:`~runway_core.yamlsrc.nodes.ParsedYaml`.

Drives ruamel.yaml's C parser (libyaml) at the event level, hides what libyaml reads
differently from YAML 1.2 (U+0085/U+2028/U+2029 line breaks, tabs on blank lines, a stream of
only ``...``), and turns every parser error into a positioned diagnostic. Never raises.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent

from ..diagnostics import Diagnostic, Severity
from ..positions import LineIndex, Position, Range
from .compose import _OPEN, _AliasLimit, _Composer, _DepthLimit
from .nodes import _SPECIAL_FIRST, ParsedYaml, YMap, YScalar, YSeq, resolve_plain

try:  # the C parser ships in ruamel.yaml.clib (a base dependency); pure Python is the fallback
    from ruamel.yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - exercised only without ruamel.yaml.clib
    _CParser = None


_YAML11_BREAKS = "\x85\u2028\u2029"


def _mask(body: str) -> tuple[str, dict[int, str] | None]:
    """Hide U+0085, U+2028 and U+2029 from libyaml, which (YAML 1.1) breaks lines at them.

    YAML 1.2 (§5.4) and LSP treat them as ordinary characters: a NEL inside a comment must not
    end the comment. Each is swapped for a private-use character absent from the text (same
    length, so every offset holds) and swapped back in scalar values.
    """
    if not any(c in body for c in _YAML11_BREAKS):
        return body, None
    free = (chr(c) for c in range(0xE000, 0xF8FF) if chr(c) not in body)
    there = {b: next(free) for b in _YAML11_BREAKS}
    back = {ord(m): b for b, m in there.items()}
    return body.translate({ord(b): m for b, m in there.items()}), back


#: The white space of a line that holds nothing else, or nothing but a comment, when it has
#: a tab.
_BLANK_WITH_TAB = re.compile(r"(?:(?<=[\r\n])|\A)[ \t]*\t[ \t]*(?=[#\r\n]|\Z)")
#: Tabs in the separation after a block indicator at the start of a line: a sequence's `-`,
#: an explicit key's `?` or its value's `:` (`-\tsvc`, `- \tsvc`, `?\tkey`, `:\tvalue`), after
#: any indicators written with spaces (`- ?\tkey`); not before another block indicator
#: (`- \t- x`: there the tab would indent a compact collection, which only spaces may).
_INDICATOR_TAB = re.compile(r"^([ ]*(?:[-?:][ ]+)*[-?:])([ ]*\t[ \t]*)(?=[^\s#])(?![-?:](?:[ \t]|$))", re.MULTILINE)


#: Nothing but document markers, comments and white space.
_ONLY_MARKERS = re.compile(r"(?:[ \t]*(?:(?:---|\.\.\.)(?=[ \t\r\n]|\Z))?[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*[ \t]*(?:(?:---|\.\.\.)[ \t]*)?(?:#[^\r\n]*)?")


def _blank_tabs(body: str) -> str:
    """Tabs on blank and comment-only lines as spaces (same length: offsets hold).

    YAML 1.2 allows a tab there (§6.6, ``s-separate-in-line`` of ``l-comment``) and only
    indentation must be spaces; libyaml refuses a line starting with a tab even when it is
    blank, which stopped the whole analysis at an invisible character. Inside a block scalar
    such a line is content: its tab is then read as a space (no runway field cares)."""
    if "\t" not in body:
        return body
    body = _BLANK_WITH_TAB.sub(lambda m: m.group(0).replace("\t", " "), body)
    # A tab separating a block sequence's `-` from its entry (`-\tsvc`), or an explicit key's
    # `?` / value's `:` from its node (`?\tkey`, `:\tvalue`; round 4) is separation, which YAML
    # 1.2 allows to be tabs (§6.2 s-separate-in-line, §8.2.2 c-l-block-map-explicit-entry; only
    # indentation must be spaces): libyaml refuses it, so it becomes a space (same length; the
    # node's value is unchanged).
    return _INDICATOR_TAB.sub(lambda m: m.group(1) + m.group(2).replace("\t", " "), body)


def _events(text: str) -> Iterator[Any]:
    if _CParser is not None:
        # get_event returns None after StreamEndEvent (which parse_yaml also stops at): a
        # C-level iterator, no generator frame per event.
        return iter(_CParser(text).get_event, None)
    from ruamel.yaml import YAML  # pragma: no cover

    return iter(YAML(typ="safe", pure=True).parse(text))  # pragma: no cover


def _error_range(lines: LineIndex, text: str, offset: int) -> Range:
    """A one-character range at ``offset``, or the line's end when past it."""
    pos = lines.position(offset)
    end = lines.position(min(offset + 1, lines.line_end(pos.line)))
    if end <= pos:
        end = pos
    return Range(pos, end)


def parse_yaml(text: str, path: str = "runway.yaml") -> ParsedYaml:
    """Compose the first YAML document of ``text`` with positions; never raises.

    Returns a :class:`ParsedYaml`; problems are diagnostics with codes RW001 (syntax),
    RW002 (duplicate key), RW003 (more than one document), RW004 (empty file), RW005 (alias
    bomb), RW006 (tab indentation), RW007 (byte-order mark), RW008 (unsupported tag), RW009
    (non-scalar key), RW010 (nesting too deep), RW013 (a ``%YAML`` directive other than 1.2).
    """
    lines = LineIndex(text)
    shift = 0
    body = text
    pre: list[Diagnostic] = []
    if text.startswith("\ufeff"):
        shift = 1
        body = text[1:]
        pre.append(
            Diagnostic(
                path,
                Range(Position(0, 0), Position(0, 1)),
                Severity.WARNING,
                "RW007",
                "the file starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM",
            )
        )
    comp = _Composer(path, text, lines, shift)
    body, comp.unmask = _mask(_blank_tabs(body))
    if "..." in body and _ONLY_MARKERS.fullmatch(body):
        # `...` with no document: an empty stream in YAML 1.2 (§9.2), an error to libyaml.
        body = ""  # an empty runway (RW004), not a syntax error
    comp.diags.extend(pre)
    partial = _compose(comp, body, text, lines, shift) or comp.undefined_alias
    root = comp.root
    if isinstance(root, YScalar) and root.value is None and root.style == "" and root.text == "" and root.tag is None and root.anchor is None:
        comp.root = None  # `---` and nothing else: an empty document is an empty runway (RW004)
    if comp.root is None and not partial:
        comp.diag(
            Range(Position(0, 0), lines.position(len(text))) if text.strip() == "" else Range(Position(0, 0), Position(0, 0)),
            "RW004",
            "the runway file is empty; it needs at least `runway: 1`",
        )
    comp.diags.sort(key=lambda d: (d.range.start, d.code))
    return ParsedYaml(path, text, lines, comp.root, comp.diags, partial, comp.count)


def _compose(comp: _Composer, body: str, text: str, lines: LineIndex, shift: int) -> bool:
    """Feed libyaml's events of ``body`` (``text`` past a BOM, tabs blanked, masked) to ``comp``;
    True when the tree is partial (an alias bomb, nesting too deep, a syntax error)."""
    partial = False
    docs = 0
    try:
        # Hot loop (issue 6): events dispatched by class; the common scalar (no tag, no anchor,
        # no BOM, no masked line break) is built inline, exactly as _Composer.scalar builds it.
        # (libyaml puts marks at the end of a last line without a line break on a virtual next
        # line; _Composer.pos clamps those, so such a text takes the general path.)
        plain_marks = shift == 0 and comp.unmask is None and (not body or body[-1] in "\r\n")
        add = comp.add
        stack = comp.stack
        special = _SPECIAL_FIRST
        for ev in _events(body):
            cls = ev.__class__
            if cls is ScalarEvent:
                if plain_marks and ev.tag is None and ev.anchor is None:
                    sm, em = ev.start_mark, ev.end_mark
                    text_ = ev.value
                    style = ev.style or ""
                    value = text_ if style or (text_ and text_[0] not in special) else resolve_plain(text_)
                    node = YScalar((sm.line, sm.column, em.line, em.column), None, None, value, text_, style)
                    if stack:
                        # _Composer.add's common cases, inlined: an item of a sequence, a key, or
                        # a value under a new key (duplicates, merges and the root go to add).
                        top = stack[-1]
                        parent = top[0]
                        if parent.__class__ is YSeq:
                            comp.count += 1
                            top[1] += 1
                            parent.items.append(node)
                            continue
                        key = top[2]
                        if key is None:
                            comp.count += 1
                            top[1] += 1
                            top[2] = node
                            continue
                        if key is not False and key.text not in parent._index and (key.text != "<<" or key.style or key.tag is not None):
                            comp.count += 1
                            top[1] += 1
                            top[2] = None
                            parent._index[key.text] = len(parent.entries)
                            parent.entries.append((key, node))
                            continue
                    add(node, 1, None)
                else:
                    comp.scalar(ev)
                continue
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                comp.end_collection(ev)
                continue
            # A collection's range is set when it closes (_finish); until then a placeholder.
            if cls is MappingStartEvent:
                comp.start_collection(ev, YMap(_OPEN, ev.tag, ev.anchor, flow=bool(ev.flow_style)))
                continue
            if cls is SequenceStartEvent:
                comp.start_collection(ev, YSeq(_OPEN, ev.tag, ev.anchor, flow=bool(ev.flow_style)))
                continue
            name = cls.__name__
            if name == "StreamEndEvent":
                break
            elif name == "AliasEvent":
                comp.alias(ev)
            elif name == "DocumentStartEvent":
                docs += 1
                if _document_start(comp, ev, text, docs):
                    break
            elif name == "DocumentEndEvent":
                comp.anchors.clear()
    except _AliasLimit:
        comp.stack.clear()
        comp.root = None
        partial = True
    except _DepthLimit:
        # RW010 is reported; what was read so far stays usable, like after a syntax error.
        partial = True
        comp.close_open()
    except YAMLError as exc:
        partial = True
        comp.close_open()
        _syntax_error(comp, exc, lines, text, shift)
    except RecursionError:  # pragma: no cover - defensive; the composer does not recurse
        partial = True
        comp.diag(Range(Position(0, 0), Position(0, 0)), "RW010", "the file nests too deeply to read")
    return partial


def _document_start(comp: _Composer, ev: Any, text: str, docs: int) -> bool:
    """The ``docs``-th document starts: RW013 for a ``%YAML`` directive other than 1.2 (the first
    document), RW003 at a second document. True when reading stops (the second document)."""
    version = getattr(ev, "version", None)
    if docs == 1 and version and tuple(version) != (1, 2):
        # yaml-language-server reads every file as its `yaml.yamlVersion` (1.2 by
        # default) whatever the directive says; we do the same but say so, at the
        # directive: `on`/`no`/`0755` mean what YAML 1.2 says (docs/format.md).
        at = text.find("%YAML")
        end = text.find("\n", at) if at >= 0 else -1
        rng = comp.rng(at, end if end >= 0 else len(text)) if at >= 0 else comp.rng(ev.start_mark.index, ev.end_mark.index)
        comp.diag(rng, "RW013", f"this file asks for YAML {'.'.join(map(str, version))}; runway files are read as YAML 1.2 "
                  "(`on`, `no`, `yes` are strings and `0755` is 755): remove the directive or write `%YAML 1.2`",
                  Severity.WARNING)
    if docs == 2:
        comp.diag(
            comp.rng(ev.start_mark.index, ev.end_mark.index),
            "RW003",
            "a runway file holds one YAML document; this second document is ignored",
        )
        return True
    return False


def _syntax_error(comp: _Composer, exc: YAMLError, lines: LineIndex, text: str, shift: int) -> None:
    """The diagnostic of a syntax error libyaml raised: RW006 for a tab, RW001 otherwise (a
    control character, a key over YAML's 1,024 characters, a ':' inside [ ] or { }, or the
    error as libyaml words it, with where its context started)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        offset = mark.index + shift
    else:
        offset = int(getattr(exc, "position", 0) or 0) + shift
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    rng = _error_range(lines, text, offset)
    ch = text[offset] if 0 <= offset < len(text) else ""
    if ch == "\t" or ("\t" in lines.line_text(rng.start.line)[: rng.start.character + 1] and "cannot start any token" in str(problem)):
        comp.diag(rng, "RW006", "tabs cannot indent YAML; use spaces")
    elif "control characters" in str(problem) or "unacceptable character" in str(problem):
        comp.diag(rng, "RW001", f"the file holds a character YAML does not allow ({problem}); is it a text file?")
    else:
        msg = str(problem)
        cmark = getattr(exc, "context_mark", None)
        if "could not find expected ':'" in msg and context == "while scanning a simple key" and cmark is not None and mark is not None and mark.line == cmark.line \
                and mark.index - cmark.index > 1024:
            # libyaml's generic message for a plain key past YAML's 1,024-character limit.
            comp.diag(rng, "RW001", f"YAML syntax error: a key of {mark.index - cmark.index:,} characters (from column {cmark.column + 1}); "
                                    "YAML allows at most 1,024 characters in an implicit key")
            context = None
            msg = ""
        elif "found unexpected ':'" in msg:
            # libyaml (YAML 1.1) refuses ':' inside a plain scalar in [ ] or { } (a URL).
            msg += "; inside [ ] or { }, quote a value that holds ':' (e.g. \"postgres://host/db\")"
        if context:
            cline = lines.position(cmark.index + shift).line + 1 if cmark is not None else None
            msg = f"{msg} ({context}" + (f" started on line {cline})" if cline is not None and cline != rng.start.line + 1 else ")")
        if msg:
            comp.diag(rng, "RW001", f"YAML syntax error: {msg}")

