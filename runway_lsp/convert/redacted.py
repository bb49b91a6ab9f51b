"""Redaction where the server's most frequent messages are built (issue 16 item 3).

Every message to the client passes through one redaction (runway_lsp/protocol.py
``_send_data``): each string of the message through :func:`runway_core.text.redact`. For the
messages a keystroke makes by the thousand (diagnostics, code lenses, inlay hints, the
outline, a completion list), walking the JSON of each message again cost 0.2x the keystroke's analysis; here the
builder redacts the few fields of each object that hold text (it knows which: a lens's title,
tooltip, arguments and data; a hint's label and tooltip; a diagnostic's message, code,
related messages and data; a symbol's name and detail, and its children; a completion item's label, details, sort and
filter texts and documentation), and returns them in
a :class:`Redacted` list, which ``_send_data`` does not walk again. Only this module makes a
:class:`Redacted`, and only from objects its cleaners just redacted; an object of a shape they
do not know (an inlay hint with label parts or edits) leaves the list a plain list, walked
at send as before. Structural fields (ranges, positions, kinds, ``uri``, the rule's
documentation link) hold no user text, as in ``_send_data``'s walk.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import Any, Iterable

from lsprotocol import types

from runway_core import text as text_module
from runway_core.text import redact, redact_doc


class Redacted(list):
    """A list of LSP objects every string of which was passed through
    :func:`runway_core.text.redact` when it was built (by this module only)."""

    __slots__ = ()


# Each field is assigned only when its redaction changed it (lsprotocol's attrs classes
# validate on every assignment, and almost every text is clean), and a string the memo of
# clean strings already holds, or too short for any shape, is not passed to redact at all.
_CLEAN = text_module._CLEAN
_SHORTEST = text_module._SHORTEST


def _s(t: str) -> str:
    """``redact(t)``, without the call for a known clean string."""
    return t if t in _CLEAN or len(t) < _SHORTEST else redact(t)


def _doc(d: Any) -> Any:
    """``redact_doc(d)``, without the walk for a flat mapping or list of known clean strings
    and plain numbers (a lens's ``{"env": "dev"}``, its ``[uri, data]`` arguments)."""
    t = type(d)
    if t is dict:
        for k, v in d.items():
            if not (type(k) is str and (k in _CLEAN or len(k) < _SHORTEST)):
                return redact_doc(d)
            tv = type(v)
            if tv is str:
                if not (v in _CLEAN or len(v) < _SHORTEST):
                    return redact_doc(d)
            elif not (v is None or tv is int or tv is bool or tv is float):
                return redact_doc(d)
        return d
    if t is list:
        for v in d:
            tv = type(v)
            if tv is str:
                if not (v in _CLEAN or len(v) < _SHORTEST):
                    return redact_doc(d)
            elif tv is dict:
                if _doc(v) is not v:
                    return redact_doc(d)
            elif not (v is None or tv is int or tv is bool or tv is float):
                return redact_doc(d)
        return d
    return redact_doc(d)


def _lens(x: types.CodeLens) -> bool:
    cmd = x.command
    if cmd is not None:
        if (t := _s(cmd.title)) is not cmd.title:
            cmd.title = t
        if (t := _s(cmd.command)) is not cmd.command:
            cmd.command = t
        if cmd.tooltip is not None and (t := _s(cmd.tooltip)) is not cmd.tooltip:
            cmd.tooltip = t
        if cmd.arguments is not None and (a := _doc(cmd.arguments)) is not cmd.arguments:
            cmd.arguments = a
    if x.data is not None and (d := _doc(x.data)) is not x.data:
        x.data = d
    return True


def _hint(x: types.InlayHint) -> bool:
    if type(x.label) is not str or not (x.tooltip is None or type(x.tooltip) is str) or x.text_edits is not None:
        return False  # label parts, markup or edits: walked at send
    if (t := _s(x.label)) is not x.label:
        x.label = t
    if x.tooltip is not None and (t := _s(x.tooltip)) is not x.tooltip:  # type: ignore[arg-type]
        x.tooltip = t
    if x.data is not None and (d := _doc(x.data)) is not x.data:
        x.data = d
    return True


def _diagnostic(x: types.Diagnostic) -> bool:
    if (t := _s(x.message)) is not x.message:
        x.message = t
    if isinstance(x.code, str) and (t := _s(x.code)) is not x.code:
        x.code = t
    if x.source is not None and (t := _s(x.source)) is not x.source:
        x.source = t
    for info in x.related_information or ():
        if (t := _s(info.message)) is not info.message:
            info.message = t
    if x.data is not None and (d := _doc(x.data)) is not x.data:
        x.data = d
    return True


def _symbol(x: types.DocumentSymbol) -> bool:
    clean, shortest = _CLEAN, _SHORTEST
    stack = [x]
    while stack:
        s = stack.pop()
        name = s.name
        if not (name in clean or len(name) < shortest) and (t := redact(name)) is not name:
            s.name = t
        detail = s.detail
        if detail is not None and not (detail in clean or len(detail) < shortest) and (t := redact(detail)) is not detail:
            s.detail = t
        if s.children:
            stack.extend(s.children)
    return True


def _completion(x: types.CompletionItem) -> bool:
    if x.command is not None or x.data is not None or x.additional_text_edits is not None or x.commit_characters is not None \
            or x.insert_text is not None or x.text_edit_text is not None or not (x.text_edit is None or type(x.text_edit) is types.TextEdit):
        return False  # fields the server does not set: walked at send
    if (t := _s(x.label)) is not x.label:
        x.label = t
    for name in ("detail", "sort_text", "filter_text"):
        v = getattr(x, name)
        if v is not None and (t := _s(v)) is not v:
            setattr(x, name, t)
    ld = x.label_details
    if ld is not None:
        if ld.detail is not None and (t := _s(ld.detail)) is not ld.detail:
            ld.detail = t
        if ld.description is not None and (t := _s(ld.description)) is not ld.description:
            ld.description = t
    doc = x.documentation
    if type(doc) is str:
        if (t := _s(doc)) is not doc:
            x.documentation = t
    elif doc is not None:
        if (t := _s(doc.value)) is not doc.value:
            doc.value = t
    return True  # the text edit's newText is the user's own text (kept, as at send)


def _all(items: Iterable[Any], clean: Any) -> list:
    out = list(items)
    ok = True
    for x in out:
        ok = clean(x) and ok
    return Redacted(out) if ok else out


def lenses(items: Iterable[types.CodeLens]) -> list[types.CodeLens]:
    """``items``, their text redacted, as a :class:`Redacted` list."""
    return _all(items, _lens)


def hints(items: Iterable[types.InlayHint]) -> list[types.InlayHint]:
    """``items``, their text redacted; a :class:`Redacted` list unless one has a shape the
    cleaner does not know (then a plain list: ``_send_data`` walks it)."""
    return _all(items, _hint)


def diagnostics(items: Iterable[types.Diagnostic]) -> list[types.Diagnostic]:
    return _all(items, _diagnostic)


def symbols(items: Iterable[types.DocumentSymbol]) -> list[types.DocumentSymbol]:
    return _all(items, _symbol)


def completion_items(items: Iterable[types.CompletionItem]) -> list[types.CompletionItem]:
    """Completion items, their text redacted (a completion right after a keystroke offers
    every resource and workload: hundreds of items)."""
    return _all(items, _completion)


def is_redacted(value: Any) -> bool:
    """Whether ``value`` (a response's ``result`` or a notification's ``params``) was redacted
    where it was built: a :class:`Redacted` list, or the diagnostics of a push or pull whose
    other fields are structural (a URI, a version, a report kind)."""
    t = type(value)
    if t is Redacted:
        return True
    if t is types.PublishDiagnosticsParams:
        return type(value.diagnostics) is Redacted
    if t is types.CompletionList:
        return type(value.items) is Redacted and getattr(value, "item_defaults", None) is None
    if t is types.RelatedFullDocumentDiagnosticReport:
        return type(value.items) is Redacted and not value.related_documents and value.result_id is None
    return False


__all__ = ["Redacted", "completion_items", "diagnostics", "hints", "is_redacted", "lenses", "symbols"]
