"""End to end: calm while fixing a size (issue 26). Retyping ``size: medium`` as ``small`` one
key at a time (``s``, ``sm``, ``sma``, ``smal``: sizes the catalogue lacks, RW130) keeps the
item's last complete cost in ``runway/costs``, ``runway/plan`` and the code lenses, marked as
being edited (``editing``), so the totals move once, when the size is whole again
(runway_lsp/held.py, docs/protocol.md). Through the real runway-lsp over stdio (pytest-lsp);
ordered on what the client receives, never on time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_change, did_open, files, init, line_of, vscode_caps

from test_lsp_custom import OPT_IN, as_json, record_costs_changed, request, wait_changed  # type: ignore[import-not-found]


def _totals(result: dict) -> list[tuple[str, float, str]]:
    return [(e["name"], e["total_monthly_usd"], e["verdict"]) for e in result["environments"]]


async def _retype(client: LanguageClient, root: Path, old: str, new: str):
    """Replace ``old`` on its line by ``new`` one key at a time (a deletion first, as an editor
    selecting the word and typing over it does); yields (typed, version) after each key."""
    line_no, line = line_of(root, old)
    at = line.index(old.strip().split(": ")[1])
    version = 2
    word = line[at:]
    did_change(client, root, version, (line_no, at), (line_no, at + len(word)), new[0])
    yield new[0], version
    for n in range(2, len(new) + 1):
        version += 1
        did_change(client, root, version, (line_no, at + n - 1), (line_no, at + n - 1), new[n - 1])
        yield new[:n], version


@pytest.mark.parametrize(
    ("old", "new", "item", "size"),
    [
        ("    size: medium", "small", "pdf-renderer", "medium"),  # a workload's single size
        ("      cache: small", "large", "shared-cache", "small"),  # dev's shared cache (an implicit item)
        ("      cache: medium", "large", "shared-cache", "medium"),  # staging's: the lens is on dev's
    ],
    ids=["workload-size", "shared-cache", "staging-shared-cache"],
)
async def test_a_size_being_fixed_keeps_its_last_complete_cost(client: LanguageClient, orders: Path, old: str, new: str, item: str, size: str):
    root, _checkout, _billing = files(orders)
    seen = record_costs_changed(client)
    await init(client, vscode_caps(), orders, OPT_IN)
    did_open(client, root)
    await wait_changed(client, seen, 1)
    before = await request(client, "runway/costs", {"uri": root.as_uri()})
    assert before["editing"] == [] and before["complete"] is True

    figures = [_totals(before)]
    async for typed, _version in _retype(client, root, old, new):
        costs = await request(client, "runway/costs", {"uri": root.as_uri()})
        plan = await request(client, "runway/plan", {"uri": root.as_uri()})
        if _totals(costs) not in figures:
            figures.append(_totals(costs))
        if typed != new:
            # a half-typed size: the item keeps its medium cost, named as being edited, and the
            # estimate is not made a lower bound by its RW130
            assert costs["editing"] == [item], typed
            assert _totals(costs) == _totals(before), typed
            assert (costs["complete"], costs["errors"]) == (True, 0), typed
            assert plan["editing"] == [item]
            env = next(e for e in plan["environments"] if e["name"] == ("staging" if size == "medium" and item == "shared-cache" else "dev"))
            shown = next(i for i in env["items"] if i["name"] == item)
            assert shown["size"] == size and shown["monthly_usd"] > 0
            lenses = await asyncio.wait_for(
                client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()))), TIMEOUT
            )
            marked = [lens.command.title for lens in lenses if lens.command is not None and "editing: last complete cost" in lens.command.title]
            assert len(marked) == 1 and "$" in marked[0], [lens.command.title for lens in lenses if lens.command]
        else:
            assert costs["editing"] == [] and plan["editing"] == []
    # two figures: before and after
    assert len(figures) == 2, figures
    assert figures[1] != figures[0]
    await wait_changed(client, seen, 2)  # the one change of what the views show


async def test_an_unknown_size_with_no_known_cost_is_still_a_lower_bound(client: LanguageClient, orders: Path):
    """Nothing to hold (the file opened with the unknown size): the estimate stays a lower bound."""
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root, text=root.read_text(encoding="utf-8").replace("    size: medium", "    size: smal", 1))
    costs = await request(client, "runway/costs", {"uri": root.as_uri()})
    assert costs["editing"] == [] and (costs["complete"], costs["errors"]) == (False, 1)
    assert as_json(costs)["environments"]
