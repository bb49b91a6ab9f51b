"""What the performance work reuses between analyses never changes a result (issue 6).

An editor's analysis passes the previous analysis in (plan items reused), and parses, member
models and unchanged entries' models are reused across analyses. Each test here edits a
workspace step by step and checks that the analysis built with everything reused equals one
built from nothing: plans (as their JSON), diagnostics (with their data), symbols,
references and models. No timing anywhere: benchmarks/ measures time.
"""

from __future__ import annotations

import gc
import re
import shutil
from pathlib import Path

import pytest

from runway_core import analysis as core
from runway_core import planner
from runway_core.planner import environment_json
from runway_core.positions import LineIndex
from runway_core.workspace import read_disk

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _fresh(root: str, catalog, read):
    core.clear_file_cache()
    planner.clear_memos()
    return core.analyze(root, catalog, read)


def _same(a, b) -> None:
    assert {k: environment_json(v) for k, v in a.plans.items()} == {k: environment_json(v) for k, v in b.plans.items()}
    assert [(d, d.data) for d in a.all_diagnostics()] == [(d, d.data) for d in b.all_diagnostics()]
    assert a.symbols == b.symbols
    assert a.references == b.references
    assert a.resource_models == b.resource_models
    assert a.workload_models == b.workload_models
    assert a.member_models == b.member_models
    assert list(a.files) == list(b.files)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(EXAMPLES / "orders", dest)
    return dest


def _edits(text: str) -> list[str]:
    """Versions of the root an editor goes through: sizes typed, uses edited, entries added,
    renamed and removed, an anchor and its alias, region and product changed."""
    out = [text]

    def sub(pattern: str, repl: str, count: int = 1) -> None:
        new, n = re.subn(pattern, repl, out[-1], count=count, flags=re.M)
        assert n, pattern
        out.append(new)

    sub(r"^(      production: )large$", r"\1l")           # typing a size: invalid on the way
    sub(r"^(      production: )l$", r"\1larg")
    sub(r"^(      production: )larg$", r"\1medium")
    sub(r"^(    uses: \[)", r"\1order-events, ")          # a workload uses one more resource
    sub(r"^(    uses: \[)order-events, ", r"\1nope, ")    # ... an unknown one
    sub(r"^resources:\n", "resources:\n  extra-q:\n    kind: queue\n    engine: { fifo: true }\n    size: &qs large\n\n")
    sub(r"^(  order-events:\n    kind: topic)$", r"\1\n    size: *qs")  # an alias of the anchor above
    sub(r"(size: &qs )large", r"\1small")                 # the anchor changes: the alias follows
    sub(r"^  extra-q:", "  extra-queue:")                   # renamed
    sub(r"^  extra-queue:\n(    .*\n)+\n", "")             # removed (with its anchor)
    sub(r"^(  order-events:\n    kind: topic)\n    size: \*qs$", r"\1")
    sub(r"^region: us-east-1$", "region: eu-west-1")
    sub(r"^product: orders$", "product: orders2")
    return out


def test_reused_analyses_equal_fresh_ones_through_an_editing_session(workspace: Path, catalog):
    root = str(workspace / "runway.yaml")
    texts = _edits((workspace / "runway.yaml").read_text())
    member = workspace / "services" / "checkout" / "runway.yaml"
    member_text = member.read_text()
    prev = None
    for i, text in enumerate(texts + texts[::-1]):
        if i == len(texts):  # halfway: a member changes on disk (its consumers change)
            member.write_text(member_text.replace("uses: [", "uses: [invoices, ", 1) if "uses: [" in member_text else member_text + "\n")

        def read(p: str, text=text) -> str:
            return text if p == root else read_disk(p)

        reused = core.analyze(root, catalog, read, previous=prev)
        fresh = _fresh(root, catalog, read)
        _same(reused, fresh)
        # ... and with the caches the fresh analysis left behind, as the server has them
        again = core.analyze(root, catalog, read, previous=reused)
        _same(again, fresh)
        prev = again


_ODD = """runway: 1
product: odd
region: us-east-1
defaults: &d {kind: queue, size: small}
resources: {a: {kind: queue, size: small}, b: {kind: topic}}
workloads:
  w:
    image: r.example.com/w@sha256:{digest}
    port: 80
    health: {path: /h}
    uses: [a, b]
    size: medium
    reason: "residency: stays here"
"""


@pytest.mark.parametrize("edit", [
    ("size: small}, b", "size: large}, b"),                     # inside a flow section
    ("resources: {a: {kind: queue, size: small}, b: {kind: topic}}", "resources:\n  a:\n    <<: *d\n  b: {kind: topic}"),
    ("&d {kind: queue, size: small}", "&d {kind: queue, size: large}"),  # the merged anchor
    ("    size: medium\n", "    size: medium  # a comment\n"),  # only a comment
    ("    uses: [a, b]\n", "    uses: [a, b, a]\n"),
])
def test_flow_sections_merge_keys_and_anchors_are_reused_only_when_equal(tmp_path: Path, catalog, edit):
    root = tmp_path / "runway.yaml"
    base = _ODD.replace("{digest}", "ab" * 32)
    texts = [base, base.replace(*edit)]
    if "<<" in texts[1]:
        texts.append(texts[1].replace("&d {kind: queue, size: small}", "&d {kind: queue, size: large}"))
    prev = None
    for text in texts + texts[::-1]:
        def read(p: str, text=text) -> str:
            return text if p == str(root) else read_disk(p)

        reused = core.analyze(str(root), catalog, read, previous=prev)
        _same(reused, _fresh(str(root), catalog, read))
        prev = core.analyze(str(root), catalog, read, previous=reused)
        _same(prev, reused)


def test_what_if_plans_lent_the_analysis_items_equal_fresh_ones(workspace: Path, catalog):
    from runway_core.whatif import resized_plan

    an = core.analyze(str(workspace / "runway.yaml"), catalog)
    for env, plan in an.plans.items():
        for name in an.spec.entries:
            for size in ("small", "medium", "large", "huge"):
                lent = resized_plan(an.spec, catalog, env, {name: size}, previous=plan)
                planner.clear_memos()
                assert environment_json(lent) == environment_json(resized_plan(an.spec, catalog, env, {name: size}))


def test_a_previous_analysis_with_another_catalogue_is_not_reused(workspace: Path, catalog):
    from runway_core.catalog import load_catalog

    root = str(workspace / "runway.yaml")
    first = core.analyze(root, catalog)
    other = load_catalog()  # equal prices, another object: nothing may be taken from `first`
    second = core.analyze(root, other, previous=first)
    assert second.catalog is other
    for env, plan in second.plans.items():
        assert all(a is not b for a, b in zip(plan.items, first.plans[env].items))


def test_unchanged_files_are_parsed_once(workspace: Path):
    core.clear_file_cache()
    text = "runway: 1\nmember: a\n"
    one = core.parse_file(text, str(workspace / "a.yaml"))
    assert core.parse_file(text, str(workspace / "a.yaml")) is one
    assert core.parse_file(text + "uses: [x]\n", str(workspace / "a.yaml")) is not one
    assert core.parse_file(text, str(workspace / "b.yaml")) is not one


def test_analysis_leaves_the_garbage_collector_as_it_found_it(workspace: Path, catalog):
    root = str(workspace / "runway.yaml")
    assert gc.isenabled()
    core.analyze(root, catalog)
    assert gc.isenabled()
    gc.disable()
    try:
        core.analyze(root, catalog)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_plan_item_lookup_finds_the_first_item_of_a_name(workspace: Path, catalog):
    an = core.analyze(str(workspace / "runway.yaml"), catalog)
    for plan in an.plans.values():
        for item in plan.items:
            assert plan.item(item.name) is next(i for i in plan.items if i.name == item.name)
        assert plan.item("no-such-item") is None


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "a\r\nb\rc\n\n", "\r\r\n\n", "x\u2028y\nz\r"])
def test_all_lines_is_every_line_text(text: str):
    lines = LineIndex(text)
    assert lines.all_lines() == [lines.line_text(i) for i in range(lines.line_count)]
