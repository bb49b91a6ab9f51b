"""The failure policy of every request and notification handler (docs/architecture.md §7).

A handler wrapped by :func:`degrades` never takes the server down: an exception is logged
with its traceback on stderr (``<method> failed``) and the request is answered with the
feature's empty result (no hover, no lenses, an empty completion list). Errors meant for the
client pass through untouched: :class:`pygls.exceptions.JsonRpcException` (a refused rename
answered with RequestFailed) and cancellation (``asyncio.CancelledError``, not an
``Exception``).

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import functools
import inspect
import logging
from typing import Any, Callable, TypeVar

from pygls.exceptions import JsonRpcContentModified, JsonRpcException

log = logging.getLogger("runway_lsp")

F = TypeVar("F", bound=Callable[..., Any])


class Superseded(JsonRpcContentModified):
    """A request whose document was edited after it was received and before it ran: its
    answer would describe text the editor no longer has. Answered with ContentModified
    (-32801; LSP 3.17 §"Implementation Considerations"); the editor asks again. Passes
    :func:`degrades` untouched (a JsonRpcException)."""


def degrades(method: str, empty: Callable[[], Any] | None = None) -> Callable[[F], F]:
    """Wrap a handler (plain or ``async``) so that an exception becomes a log line and
    ``empty()`` (None when ``empty`` is None). ``empty`` is a factory, so that no two answers
    share one mutable list. The wrapper keeps the handler's signature and annotations
    (pygls reads them to decide which arguments to pass)."""

    def fallback() -> Any:
        log.exception("%s failed", method)
        return empty() if empty is not None else None

    def wrap(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except JsonRpcException:
                    raise
                except Exception:  # noqa: BLE001 - the policy above
                    return fallback()

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except JsonRpcException:
                raise
            except Exception:  # noqa: BLE001 - the policy above
                return fallback()

        return run  # type: ignore[return-value]

    return wrap


__all__ = ["Superseded", "degrades"]
