"""Redaction where the server's most frequent messages are built (issue 16 item 3).

Every message to the client passes through one redaction (runway_lsp/protocol.py
``_send_data``): each string of the message through :func:`runway_core.text.redact`. For the
messages a keystroke makes by the thousand (diagnostics, code lenses, inlay hints, the
outline), walking the JSON of each message again cost 0.2x the keystroke's analysis; here the
builder redacts the few fields of each object that hold text (it knows which: a lens's title,
tooltip, arguments and data; a hint's label and tooltip; a diagnostic's message, code,
related messages and data; a symbol's name and detail, and its children), and returns them in
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

from runway_core.text import redact, redact_doc


class Redacted(list):
    """A list of LSP objects every string of which was passed through
    :func:`runway_core.text.redact` when it was built (by this module only)."""

    __slots__ = ()


def _opt(text: str | None) -> str | None:
    return text if text is None else redact(text)


def _lens(x: types.CodeLens) -> bool:
    cmd = x.command
    if cmd is not None:
        cmd.title = redact(cmd.title)
        cmd.command = redact(cmd.command)
        cmd.tooltip = _opt(cmd.tooltip)
        if cmd.arguments is not None:
            cmd.arguments = redact_doc(cmd.arguments)
    if x.data is not None:
        x.data = redact_doc(x.data)
    return True


def _hint(x: types.InlayHint) -> bool:
    if type(x.label) is not str or not (x.tooltip is None or type(x.tooltip) is str) or x.text_edits is not None:
        return False  # label parts, markup or edits: walked at send
    x.label = redact(x.label)
    x.tooltip = _opt(x.tooltip)  # type: ignore[arg-type]
    if x.data is not None:
        x.data = redact_doc(x.data)
    return True


def _diagnostic(x: types.Diagnostic) -> bool:
    x.message = redact(x.message)
    if isinstance(x.code, str):
        x.code = redact(x.code)
    x.source = _opt(x.source)
    for info in x.related_information or ():
        info.message = redact(info.message)
    if x.data is not None:
        x.data = redact_doc(x.data)
    return True


def _symbol(x: types.DocumentSymbol) -> bool:
    stack = [x]
    while stack:
        s = stack.pop()
        s.name = redact(s.name)
        s.detail = _opt(s.detail)
        if s.children:
            stack.extend(s.children)
    return True


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


def is_redacted(value: Any) -> bool:
    """Whether ``value`` (a response's ``result`` or a notification's ``params``) was redacted
    where it was built: a :class:`Redacted` list, or the diagnostics of a push or pull whose
    other fields are structural (a URI, a version, a report kind)."""
    t = type(value)
    if t is Redacted:
        return True
    if t is types.PublishDiagnosticsParams:
        return type(value.diagnostics) is Redacted
    if t is types.RelatedFullDocumentDiagnosticReport:
        return type(value.items) is Redacted and not value.related_documents and value.result_id is None
    return False


__all__ = ["Redacted", "diagnostics", "hints", "is_redacted", "lenses", "symbols"]
