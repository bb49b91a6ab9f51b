"""The planner's memos are safe across threads (issue 21): the language server plans on its
event loop and on its analysis thread at once (docs/architecture.md, "Threads of the server").

Before, ``pricing._LAST_PRICED`` and ``plan._LAST_CONSUMERS`` were lists checked ("is this my
spec?") and then read in a second step: a thread switch between the two let a thread price its
spec from another spec's memo (a queue priced as a postgres) or give its items another
product's consumers. Now each is an immutable tuple read once and swapped whole.

A thread switch inside those few bytecodes is rare, so the tests make it happen: thread A runs
under a line tracer (``sys.settrace``, CPython's own hook) that stops it at the memo's read,
just after the check, until thread B has planned its own spec; A then resumes. Each plan must
equal the one planned alone.
"""

from __future__ import annotations

import linecache
import sys
import threading
from typing import Any, Callable

from runway_core.planner import ConsumerSpec, EntrySpec, EnvSpec, RunwaySpec, engine_defaults, plan_environment
from runway_core.planner.plan import clear_memos

NAMES = [f"item-{i:02d}" for i in range(4)]


def _spec(product: str, kind: str, size: str, consumers: tuple[ConsumerSpec, ...] = ()) -> RunwaySpec:
    entries = {n: EntrySpec(n, kind, {"dev": size}, engine=engine_defaults(kind, None)) for n in NAMES}
    return RunwaySpec(product, "us-east-1", (EnvSpec("dev", None, "none"),), entries, consumers)


def _interleaved(function: str, line_has: str, a: Callable[[], Any], b: Callable[[], Any]) -> tuple[Any, Any]:
    """Run ``a`` on a thread that stops at the first line of ``function`` containing
    ``line_has`` (before it runs) until ``b`` has run on another thread; returns both results."""
    paused, resumed = threading.Event(), threading.Event()
    out: dict[str, Any] = {}

    def local(frame: Any, event: str, _arg: Any) -> Any:
        if event == "line" and not paused.is_set() and line_has in linecache.getline(frame.f_code.co_filename, frame.f_lineno):
            paused.set()
            assert resumed.wait(30), "thread B did not finish"
        return local

    def tracer(frame: Any, event: str, _arg: Any) -> Any:
        return local if event == "call" and frame.f_code.co_name == function else None

    def run_a() -> None:
        sys.settrace(tracer)
        try:
            out["a"] = a()
        finally:
            sys.settrace(None)
            paused.set()

    def run_b() -> None:
        assert paused.wait(30), "thread A never reached the memo's read"
        try:
            out["b"] = b()
        finally:
            resumed.set()

    threads = [threading.Thread(target=run_a), threading.Thread(target=run_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out["a"], out["b"]


def test_a_thread_switch_between_the_check_and_the_read_of_the_pricing_memo(catalog):
    queues, databases = _spec("queues", "queue", "small"), _spec("databases", "postgres", "small")
    clear_memos()
    alone = plan_environment(queues, catalog, "dev"), plan_environment(databases, catalog, "dev")
    assert alone[0].total != alone[1].total
    clear_memos()
    plan_environment(queues, catalog, "dev")  # the memo holds queues': thread A's check passes
    got = _interleaved("_priced_entry", "memo = ", lambda: plan_environment(queues, catalog, "dev"),
                       lambda: plan_environment(databases, catalog, "dev"))
    clear_memos()
    assert got == alone, f"queues planned at {got[0].total} (alone: {alone[0].total})"


def test_a_thread_switch_between_the_check_and_the_read_of_the_consumers_memo(catalog):
    used = _spec("used", "queue", "small", (ConsumerSpec("api", "workload", tuple(NAMES)),))
    unused = _spec("unused", "queue", "small")
    clear_memos()
    alone = plan_environment(used, catalog, "dev"), plan_environment(unused, catalog, "dev")
    assert alone[0].items[0].consumers == ("api",) and alone[1].items[0].consumers == ()
    clear_memos()
    plan_environment(used, catalog, "dev")
    got = _interleaved("_consumers", "return ", lambda: plan_environment(used, catalog, "dev"),
                       lambda: plan_environment(unused, catalog, "dev"))
    clear_memos()
    assert [i.consumers for i in got[0].items] == [i.consumers for i in alone[0].items]
    assert got == alone
