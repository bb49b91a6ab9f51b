"""What the event loop does to answer an open member of a big product (issue 16 item 7;
docs/architecture.md "Threads of the server"), over runway_lsp.analyses.Analyses with its
real analysis thread, without a clock:

- the loop never stats the product's closed files to answer a request (their disk versions
  are checked on the analysis thread), yet a file changed on disk is still found there and
  analysed; a publication's flush still checks them on the loop;
- a member opened while its product is analysed from the disk, with the disk's text, costs
  no second analysis of the product; with another text, it does (never a result computed
  for an older text).

"While", with no clock: the analysis is held inside ``analyze`` by a threading.Event until
the test has opened the member.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import runway_lsp.analysis_thread as analyses_module  # the thread's analyses run there
from runway_core.catalog import load_catalog
from runway_lsp.analyses import Analyses
from runway_lsp.analysis_thread import BIG_PRODUCT_FILES
from runway_lsp.documents import Buffers, Document

MEMBERS = BIG_PRODUCT_FILES  # the smallest product analysed on the thread


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _product(tmp: Path) -> tuple[str, list[str]]:
    root = tmp / "product" / "runway.yaml"
    root.parent.mkdir()
    lines = ["runway: 1", "product: big", "region: us-east-1", "members:"]
    lines += [f"  - services/svc-{i:04d}" for i in range(MEMBERS)]
    lines += ["environments:", "  dev: {}", "resources:", "  main-db: {kind: postgres}"]
    root.write_text("\n".join(lines) + "\n", encoding="utf-8")
    members = []
    for i in range(MEMBERS):
        member = root.parent / "services" / f"svc-{i:04d}" / "runway.yaml"
        member.parent.mkdir(parents=True)
        member.write_text(f"runway: 1\nmember: svc-{i:04d}\nuses: [main-db]\n", encoding="utf-8")
        members.append(os.path.realpath(member))
    return os.path.realpath(root), members


def _open(buffers: Buffers, path: str, text: str, version: int = 1) -> Document:
    doc = Document(Path(path).as_uri(), path, text, version)
    buffers.add(doc)
    buffers.activate(doc)
    return doc


async def _landed(analyses: Analyses, key: str) -> None:
    """Until no job of ``key`` is left on the thread (each landing is a step of the loop)."""
    for _ in range(1000):  # bounded: a job that never lands fails the test, not the suite
        job = analyses._jobs.get(key)
        if job is None:
            return
        await asyncio.shield(job.future)
        await asyncio.sleep(0)
    raise AssertionError("the analysis thread never went idle")


class _Stats:
    """os.stat calls made on the calling (loop) thread, by path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loop_thread = threading.get_ident()
        self.paths: list[str] = []
        real = os.stat

        def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            if threading.get_ident() == self.loop_thread:
                self.paths.append(os.fspath(path))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(analyses_module.os, "stat", stat)


async def test_the_loop_never_stats_the_closed_files_of_a_big_product_to_answer(tmp_path: Path, catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    root, members = _product(tmp_path)
    buffers = Buffers()
    analyses = Analyses(buffers, catalog)
    try:
        first = members[0]
        _open(buffers, first, Path(first).read_text(encoding="utf-8"))
        assert analyses.is_big(root)
        await analyses.analysis_async(root)
        await _landed(analyses, root)
        stats = _Stats(monkeypatch)

        # A request: the member's group and its analysis, as hover and outline ask for them.
        an = analyses.analysis_for(first)
        assert first in an.files and an.root_file == root
        closed = set(members[1:])
        assert not closed & set(stats.paths), "a request stat'ed the product's closed files on the loop"
        await _landed(analyses, root)  # the disk check it asked for, on the thread

        # A closed member changed on disk (no watched-files event): the next request still
        # answers from the last analysis, and the thread finds the change and analyses it.
        changed = members[7]
        Path(changed).write_text("runway: 1\nmember: svc-0007\nuses: [main-db, not-declared]\n", encoding="utf-8")
        assert analyses.analysis_for(first) is an
        assert not closed & set(stats.paths)
        await _landed(analyses, root)
        new = analyses.analysis_for(first)
        assert new is not an
        assert "not-declared" in new.files[changed].parsed.text
        assert not closed & set(stats.paths)

        # A publication's flush checks the disk on the loop (once per flush, not per request).
        stats.paths.clear()
        assert analyses.current(root, disk=True)
        assert closed <= set(stats.paths)
    finally:
        analyses.stop()


class _HeldAnalyze:
    """runway_core's analyze, counted; the first call waits for :meth:`release`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self.inside = threading.Event()
        self._go = threading.Event()
        real = analyses_module.analyze

        def analyze(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls == 1:
                self.inside.set()
                self._go.wait(60)  # a guard against a hung test, never a wait the test relies on
            return real(*args, **kwargs)

        monkeypatch.setattr(analyses_module, "analyze", analyze)

    def release(self) -> None:
        self._go.set()


@pytest.mark.parametrize("edited", [False, True], ids=["the disk's text", "another text"])
async def test_a_member_opened_while_its_product_is_analysed_from_disk(tmp_path: Path, catalog, monkeypatch: pytest.MonkeyPatch, edited: bool) -> None:
    root, members = _product(tmp_path)
    held = _HeldAnalyze(monkeypatch)
    buffers = Buffers()
    analyses = Analyses(buffers, catalog)
    try:
        first = analyses.analyse_off_loop(root)  # the workspace scan: nothing open yet
        assert await asyncio.get_running_loop().run_in_executor(None, held.inside.wait, 60)
        member = members[3]
        text = Path(member).read_text(encoding="utf-8")
        if edited:
            text = text.replace("uses: [main-db]", "uses: [main-db, typed-meanwhile]")
        doc = _open(buffers, member, text, version=5)
        second = analyses.analyse_off_loop(root)  # the member's didOpen: other open texts
        assert second is not first
        held.release()
        await _landed(analyses, root)
        assert held.calls == (2 if edited else 1)
        assert analyses.versions_read(root)[member] == doc.stamp
        assert analyses.current(root, disk=True)
        an = analyses.cached(root)
        assert an is not None and an.files[member].parsed.text == text
    finally:
        held.release()
        analyses.stop()
