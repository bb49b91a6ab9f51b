"""Quick fixes (runway_lsp/code_actions.py): code action kinds, capabilities and the
``CodeAction`` values.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types


def code_action_options() -> types.CodeActionOptions:
    return types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False)


def wants_quickfix(only: Any) -> bool:
    """Whether ``context.only`` admits quick fixes. Kinds are hierarchical ("quickfix" is
    under "" and matches "quickfix" itself)."""
    return not only or any(getattr(k, "value", k) in ("", types.CodeActionKind.QuickFix.value) for k in only)


def literal_support(caps: types.ClientCapabilities | None) -> bool:
    """``textDocument.codeAction.codeActionLiteralSupport``: without it a client expects
    Commands, which a quick fix is not."""
    td = caps.text_document if caps is not None else None
    ca = td.code_action if td is not None else None
    return ca is not None and ca.code_action_literal_support is not None


def quick_fix(title: str, diagnostic: types.Diagnostic, preferred: bool, edit: types.WorkspaceEdit) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=True if preferred else None,
        edit=edit,
    )
