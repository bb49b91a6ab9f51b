"""How a candidate is written at the cursor: a value after ``:`` or inside quotes, an item
where the list itself starts, a key with the shape of its value (a map on the next lines,
a block list, a flow list, a quoted reason), LSP snippets escaped (LSP 3.17 §"Snippet
Syntax")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import REASON_GROUNDS
from ...yamlsrc import scalar_text
from .candidate import CompletionCandidate
from .context import _Ctx

if TYPE_CHECKING:
    from .facts import _Facts


def _esc(text: str) -> str:
    """Text as a literal inside an LSP snippet (LSP 3.17 §"Snippet Syntax")."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


class _Writer:
    """The candidates being built at one cursor (:class:`~.context._Ctx`), with the file's
    indentation step."""

    def __init__(self, ctx: _Ctx, facts: _Facts, step: int) -> None:
        self.ctx = ctx
        self.facts = facts
        self.step = step
        self.out: list[CompletionCandidate] = []

    # --- building blocks ------------------------------------------------------------------

    def add(self, label: str, kind: str, new_text: str, *, snippet: str | None = None, detail: str | None = None,
            documentation: str | None = None, sort: str | None = None, filter_text: str | None = None, volatile: bool = False) -> None:
        if self.ctx.into_list and not new_text.startswith(f"{self.ctx.lead}["):
            return  # `uses:| [a]`: the range ends inside the written list, only its items fit there
        self.out.append(CompletionCandidate(label, kind, self.ctx.range, new_text, snippet, detail, documentation, sort, filter_text, volatile))

    def value(self, label: str, kind: str, text: str | None = None, **kw: Any) -> None:
        """A value: inside quotes as typed, else after a space when the cursor follows `:`."""
        text = label if text is None else text
        if not self.ctx.quote:
            text = self.ctx.lead + text + self.ctx.trail
        self.add(label, kind, text, **kw)

    def names_value(self, label: str, kind: str, **kw: Any) -> None:
        """An item offered where the list itself starts (``uses: |``): written as ``[item]``;
        outside quotes a name YAML would not read back as that string (``true``) is quoted
        (:func:`~runway_core.yamlsrc.scalar_text`), the label still matched as typed."""
        text = label if self.ctx.quote else scalar_text(label)
        if text != label:
            kw.setdefault("filter_text", label)
        if self.ctx.into_list:  # the range ends after the written `[`: first in that list
            self.add(label, kind, f"{self.ctx.lead}[{text}{self.ctx.trail}", **kw)
        elif self.ctx.slot == "value" and not self.ctx.quote:
            self.add(label, kind, f"{self.ctx.lead}[{text}]", **kw)
        else:
            self.value(label, kind, text, **kw)

    def key(self, name: str, shape: str, *, detail: str | None, documentation: str | None, sort: str, kind: str = "key") -> None:
        ctx = self.ctx
        if ctx.colon_follows:
            self.add(name, kind, ctx.lead + name, detail=detail, documentation=documentation, sort=sort)
            return
        if ctx.flow:
            snippet = f"{_esc(ctx.lead)}{name}: $0{ctx.trail}" if ctx.trail else None  # the value typed before the comma
            self.add(name, kind, f"{ctx.lead}{name}: {ctx.trail}", snippet=snippet, detail=detail, documentation=documentation, sort=sort)
            return
        child = " " * (ctx.indent + self.step)
        plain, snippet = f"{name}: ", None
        if shape == "map":
            plain, snippet = f"{name}:\n{child}", f"{name}:\n{child}$0"
        elif shape == "block-list":
            plain, snippet = f"{name}:\n{child}- ", f"{name}:\n{child}- $0"
        elif shape == "list":
            snippet = f"{name}: [$0]"
        elif shape == "reason":
            snippet = f'{name}: "${{1|{",".join(REASON_GROUNDS)}|}}: $0"'
        self.add(name, kind, plain, snippet=snippet, detail=detail, documentation=documentation, sort=sort)

    def _name(self) -> str:
        return self.ctx.word or "name"
