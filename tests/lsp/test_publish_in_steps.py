"""The publication analyses in steps and lets the event loop handle what arrived between them
(runway_lsp/schedule.py, runway_lsp/analyses.py; issue 16 item 10: a completion typed right
after a keystroke waited behind the whole analysis of the keystroke before).

A real :class:`~runway_lsp.analyses.Analyses` over real buffers and the real
:class:`~runway_lsp.schedule.PublishSchedule`; the session around them records what is
published. No clock is asserted: the order of what ran is."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import runway_lsp.analyses as analyses_module
from runway_core.catalog import load_catalog
from runway_lsp.analyses import Analyses
from runway_lsp.documents import Buffers, Document
from runway_lsp.schedule import PublishSchedule

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "examples" / "orders" / "runway.yaml").read_text(encoding="utf-8")


class Session:
    """What PublishSchedule asks of runway_lsp.session.Session, publishing into a list."""

    def __init__(self, analyses: Analyses, order: list[str]) -> None:
        self.analyses = analyses
        self.publisher = self
        self.idle_gc = False
        self.stopped = False
        self.order = order
        self.published: list[tuple[str, object, dict]] = []  # (key, analysis, versions it read)
        self.done = asyncio.Event()

    def owner_of(self, path: str) -> None:
        return None

    def group_of(self, path: str) -> str:
        return self.analyses.group_of(path)

    def publish_group(self, key: str, changed: set[str]) -> None:
        an = self.analyses.analysis(key)
        self.order.append("publish")
        self.published.append((key, an, dict(self.analyses.versions_read(key))))
        self.done.set()


@pytest.fixture
def setup(tmp_path: Path):
    path = str(tmp_path / "runway.yaml")
    (tmp_path / "runway.yaml").write_text(TEXT, encoding="utf-8")
    buffers = Buffers()
    doc = Document((tmp_path / "runway.yaml").as_uri(), path, TEXT, 1)
    buffers.add(doc)
    buffers.activate(doc)
    analyses = Analyses(buffers, load_catalog())
    order: list[str] = []
    session = Session(analyses, order)
    return path, doc, analyses, session, PublishSchedule(session), order


def hook_steps(analyses: Analyses, order: list[str], at: int, then) -> None:
    """Record every step; call ``then()`` once, right after step number ``at`` (1-based)."""
    real = analyses.step

    def step(key: str) -> bool:
        order.append("step")
        done = real(key)
        if order.count("step") == at:
            then()
        return done

    analyses.step = step  # type: ignore[method-assign]


def count_calls(monkeypatch, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(analyses_module, name)

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(analyses_module, name, counted)
    return calls


async def test_a_message_that_arrives_during_the_analysis_is_handled_before_its_next_step(setup):
    path, _doc, analyses, session, schedule, order = setup
    loop = asyncio.get_running_loop()
    hook_steps(analyses, order, 1, lambda: loop.call_soon(order.append, "request"))
    schedule.touch(path)
    await asyncio.wait_for(session.done.wait(), 30)
    assert order.index("request") == 1, order  # after the first step, not after the whole analysis
    assert order.count("step") >= 5 and order[-1] == "publish"
    assert len(session.published) == 1


async def test_an_edit_during_the_analysis_drops_its_steps_and_only_the_new_text_is_published(setup, monkeypatch):
    import runway_lsp.schedule as schedule_module

    path, doc, analyses, session, schedule, order = setup
    # Patience never runs out here: on a loaded machine the first two steps could take longer
    # than PATIENCE_S (0.15 s), and the analysis would then rightly run to the end and publish
    # the older text first (the patience test below covers that path): the flaky failure.
    monkeypatch.setattr(schedule_module, "PATIENCE_S", 3600.0)
    started = count_calls(monkeypatch, "analysis_steps")

    def edit() -> None:  # what text_sync.did_change does: new text and version, then Session.touch
        doc.text = TEXT.replace("    size: medium", "    size: enormous", 1)
        doc.version = 2
        analyses.changed()
        schedule.touch(path)

    hook_steps(analyses, order, 2, edit)
    schedule.touch(path)
    await asyncio.wait_for(session.done.wait(), 30)
    await asyncio.sleep(0.05)  # nothing else follows
    assert len(session.published) == 1, order
    key, an, versions = session.published[0]
    assert versions[path].version == 2  # never a result of the older text
    assert any("enormous" in d.message for d in an.diagnostics[path])
    assert len(started) == 2  # the first steps were dropped, never finished


async def test_a_request_that_needs_the_analysis_finishes_the_steps_made(setup, monkeypatch):
    path, _doc, analyses, session, schedule, order = setup
    whole = count_calls(monkeypatch, "analyze")
    started = count_calls(monkeypatch, "analysis_steps")
    answers: list[object] = []
    loop = asyncio.get_running_loop()
    hook_steps(analyses, order, 2, lambda: loop.call_soon(lambda: answers.append(analyses.analysis(path))))
    schedule.touch(path)
    await asyncio.wait_for(session.done.wait(), 30)
    assert len(answers) == 1 and session.published[0][1] is answers[0]
    assert whole == [] and len(started) == 1  # analysed once, in steps and then to the end


async def test_nothing_is_published_after_stop_during_the_analysis(setup, monkeypatch):
    import runway_lsp.schedule as schedule_module

    path, _doc, analyses, session, schedule, order = setup
    # The hook stops the session inside a step, which a real shutdown (a message, handled
    # between steps) never does; past PATIENCE_S the steps run on in one go with no turn for a
    # message, so on a loaded machine they would reach the publication: keep patience out of reach.
    monkeypatch.setattr(schedule_module, "PATIENCE_S", 3600.0)

    stopped = asyncio.Event()

    def stop() -> None:
        session.stopped = True
        schedule.stop()
        stopped.set()

    hook_steps(analyses, order, 2, stop)
    schedule.touch(path)
    # Await the stop itself (a loaded machine may take longer than any fixed sleep to reach
    # the second step), then give a publication that should not come time to show up.
    await asyncio.wait_for(stopped.wait(), 30)
    await asyncio.sleep(0.3)
    assert session.published == [] and order.count("step") == 2


async def test_a_publication_past_its_patience_runs_to_the_end_before_the_edits_read_meanwhile(setup, monkeypatch):
    """A client that types faster than one analysis still gets diagnostics (round 3, a fresh
    reviewer: none for 4 s at 60 ms keystrokes): once the oldest change has waited
    PATIENCE_S, the analysis is not given up for newer edits; it runs to the end and is
    published (its texts are still the buffers': the edits wait), then the edits are."""
    import runway_lsp.schedule as schedule_module

    path, doc, analyses, session, schedule, order = setup
    monkeypatch.setattr(schedule_module, "PATIENCE_S", 0.0)  # waited long enough from the start
    loop = asyncio.get_running_loop()

    def edit() -> None:
        order.append("edit")
        doc.text = TEXT.replace("    size: medium", "    size: enormous", 1)
        doc.version = 2
        analyses.changed()
        schedule.touch(path)

    hook_steps(analyses, order, 1, lambda: loop.call_soon(edit))
    schedule.touch(path)
    await asyncio.wait_for(session.done.wait(), 30)
    assert order.index("edit") > order.index("publish"), order  # no step gave way to it
    assert session.published[0][2][path].version == 1
    session.done.clear()
    await asyncio.wait_for(session.done.wait(), 30)
    assert [v[path].version for _k, _a, v in session.published] == [1, 2]


async def test_a_checkpoint_waits_for_the_messages_read_before_it_not_for_a_stream_after_it():
    """Session.checkpoint lets the messages read before it be handled first, and no more: a
    client sending without a pause held requests for seconds while a publication stepped
    between its messages (round 3). The loop turns are counted, not timed."""
    from runway_lsp.session import Session as RealSession

    class Stream:
        """A client whose reader reads a message each loop turn, handled one turn later."""

        def __init__(self) -> None:
            self.read = self.handled = 0
            self.turns = 0
            self.protocol = type("P", (), {"msg_id": 7})()

        def messages_read(self) -> int:
            return self.read

        def messages_handled(self) -> int:
            return self.handled

        def pending_messages(self) -> int:  # what the checkpoint asked before round 3
            return self.read - self.handled

        def turn(self) -> None:
            self.turns += 1
            self.handled, self.read = self.read, self.read + 1
            if self.turns < 5000:
                asyncio.get_running_loop().call_soon(self.turn)

    client = Stream()
    session = RealSession(client, load_catalog())
    client.read = 3  # three messages read and not handled when the request's checkpoint begins
    asyncio.get_running_loop().call_soon(client.turn)
    await session.checkpoint()
    assert client.turns < 10, client.turns  # before: as long as the stream lasted (1,024 turns)
