"""Which request arrived before which edit: a request whose document was edited, opened,
closed or saved after it was received is superseded (:class:`~runway_lsp.guard.Superseded`,
ContentModified). Kept by :class:`runway_lsp.session.Session`, checked at
:meth:`~runway_lsp.session.Session.checkpoint`.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import os
from typing import Any

from .guard import Superseded

#: Most request receipts kept for :meth:`Session.checkpoint` (a request cancelled before it
#: started never reaches its checkpoint; the oldest receipts are forgotten past this).
MAX_RECEIPTS = 1024


class RequestReceipts:
    """Per path, how many edits, opens, closes and saves were seen; per request id, the path
    and that count when the request was received."""

    def __init__(self) -> None:
        self._edits: dict[str, int] = {}  # path -> edits, opens, closes and saves seen
        self._receipts: dict[Any, tuple[str, int]] = {}  # request id -> (path, edits at receipt)

    def changed(self, path: str) -> None:
        """``path`` was edited, opened, closed or saved."""
        self._edits[path] = self._edits.get(path, 0) + 1

    def received(self, msg_id: Any, path: str) -> None:
        """Request ``msg_id`` about ``path`` arrived now (the oldest receipt is forgotten past
        :data:`MAX_RECEIPTS`)."""
        if len(self._receipts) >= MAX_RECEIPTS:
            self._receipts.pop(next(iter(self._receipts)))
        self._receipts[msg_id] = (path, self._edits.get(path, 0))

    def check(self, msg_id: Any) -> None:
        """Forget the receipt of ``msg_id``; raise :class:`~runway_lsp.guard.Superseded` when
        its document changed since (nothing when no receipt was kept)."""
        receipt = self._receipts.pop(msg_id, None) if msg_id is not None else None
        if receipt is not None and self._edits.get(receipt[0], 0) != receipt[1]:
            raise Superseded(f"{os.path.basename(receipt[0])} changed after the request was sent")


__all__ = ["MAX_RECEIPTS", "RequestReceipts"]
