"""runway_core.analysis.analysis_steps: the analysis in steps is the analysis (issue 16 item 10:
the language server runs it a step at a time so that requests are answered between steps)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runway_core.analysis import analysis_steps, analyze, step
from runway_core.catalog import load_catalog
from runway_core.planner import environment_json

ROOT = Path(__file__).resolve().parents[2]
ORDERS = ROOT / "examples" / "orders"
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import DEFAULT_SEED, generate  # noqa: E402


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def in_steps(root: Path, catalog, **kw):
    """(the Analysis, how many steps it took)."""
    steps, n = analysis_steps(str(root), catalog, **kw), 0
    while True:
        try:
            step(steps)
        except StopIteration as done:
            return done.value, n
        n += 1


def same(a, b) -> None:
    assert {p: [(d.code, d.range, d.message, d.data) for d in ds] for p, ds in a.diagnostics.items()} == \
        {p: [(d.code, d.range, d.message, d.data) for d in ds] for p, ds in b.diagnostics.items()}
    assert {e: environment_json(p) for e, p in a.plans.items()} == {e: environment_json(p) for e, p in b.plans.items()}
    assert sorted(a.files) == sorted(b.files)
    assert {k: (s.kind, s.file, s.range) for k, s in a.symbols.items()} == {k: (s.kind, s.file, s.range) for k, s in b.symbols.items()}
    assert [(r.name, r.file, r.range) for r in a.references] == [(r.name, r.file, r.range) for r in b.references]


def test_the_steps_give_the_analysis_of_the_example(catalog):
    whole = analyze(str(ORDERS / "runway.yaml"), catalog)
    stepped, n = in_steps(ORDERS / "runway.yaml", catalog)
    same(whole, stepped)
    # root, members, one per environment, one per rule: never one long step
    assert n >= 3 + len(whole.plans)


def test_the_steps_give_the_analysis_of_the_benchmark_workspace_with_a_previous_one(catalog, tmp_path):
    root = generate(tmp_path / "x1", 1, DEFAULT_SEED)
    first = analyze(str(root), catalog)
    text = root.read_text(encoding="utf-8")
    root.write_text(text.replace("size: small", "size: large", 1), encoding="utf-8")
    whole = analyze(str(root), catalog, previous=first)
    stepped, _n = in_steps(root, catalog, previous=first)
    same(whole, stepped)
    assert whole.plans and all(p.total == stepped.plans[e].total for e, p in whole.plans.items())


@pytest.mark.parametrize("text", [
    "runway: 1\nproduct: shop\nresources:\n  db: {kind: postgres\n",  # syntax error: cut short
    "- a list\n",  # not a mapping
    "",  # empty
    "uses: [main-db]\n",  # a lone member
    "runway: 1\nproduct: shop\nenvironments:\n  dev: {limits: {monthly: 10}}\nresources:\n  db: {kind: postgres, size: xl}\n",
])
def test_the_steps_give_the_analysis_of_broken_runways(catalog, tmp_path, text):
    f = tmp_path / "runway.yaml"
    f.write_text(text, encoding="utf-8")
    same(analyze(str(f), catalog), in_steps(f, catalog)[0])


# A root that cannot be read: tests/deploy/test_permissions.py compares both analyses as uid 65534
# (as root, `chmod 0` left it readable and this compared two successful analyses).
