"""runway_lsp.guard.degrades: the failure policy every handler shares (docs/architecture.md §7)."""

from __future__ import annotations

import asyncio
import inspect
import logging

import pytest
from pygls.exceptions import JsonRpcException

from runway_lsp.guard import degrades


def test_an_exception_becomes_a_log_line_and_the_empty_result(caplog):
    @degrades("textDocument/hover")
    def hover(ls, params):
        raise KeyError("boom")

    @degrades("textDocument/codeAction", list)
    def actions(ls, params):
        raise ValueError("boom")

    with caplog.at_level(logging.ERROR, logger="runway_lsp"):
        assert hover(None, None) is None
        first, second = actions(None, None), actions(None, None)
    assert first == [] and second == [] and first is not second  # a fresh empty result each time
    assert [r.getMessage() for r in caplog.records] == ["textDocument/hover failed", "textDocument/codeAction failed", "textDocument/codeAction failed"]
    assert all(r.exc_info is not None for r in caplog.records)  # with the traceback


def test_answers_pass_through_and_so_do_errors_meant_for_the_client():
    @degrades("textDocument/rename")
    def rename(ls, params):
        if params == "refused":
            raise JsonRpcException("that name is taken")
        return {"changes": {}}

    assert rename(None, "ok") == {"changes": {}}
    with pytest.raises(JsonRpcException, match="that name is taken"):
        rename(None, "refused")


def test_async_handlers_stay_async_and_cancellation_passes():
    @degrades("textDocument/codeLens", list)
    async def lenses(ls, params):
        if params == "cancel":
            raise asyncio.CancelledError()
        if params == "fail":
            raise RuntimeError("boom")
        return ["lens"]

    assert inspect.iscoroutinefunction(lenses)  # pygls awaits it
    assert asyncio.run(lenses(None, "ok")) == ["lens"]
    assert asyncio.run(lenses(None, "fail")) == []
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(lenses(None, "cancel"))


def test_the_signature_pygls_reads_is_the_handlers():
    @degrades("runway.showCost")
    def show_cost(ls, *args):
        return args

    assert list(inspect.signature(show_cost).parameters) == ["ls", "args"]
