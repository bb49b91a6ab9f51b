"""``size:`` and ``scale:`` read one way (issue 11): :func:`runway_core.planner.size_map` and
:func:`~runway_core.planner.scale_map` replace the two copies the analysis and completion
had, which had diverged (completion's also refused booleans, counts out of 0..1000 and
non-text keys; the analysis' relied on the model having refused them).

Both callers are checked: the analysis (validated models, where the old and the merged
reading must agree on every value the model accepts) and completion (raw values of a file
still being typed, where the merged reading is completion's own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from runway_core.analysis import analyze
from runway_core.ide.completion import completions_at
from runway_core.model import Resource, Workload
from runway_core.planner import scale_map, size_map
from runway_core.positions import LineIndex


def _old_analysis_size_map(spec: Any) -> tuple[dict[str, str], str]:
    # runway_core/analysis.py before issue 11, verbatim.
    if isinstance(spec, str):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(v, str)}, "small"
    return {}, "small"


def _old_analysis_scale_map(spec: Any) -> tuple[dict[str, int], int]:
    # runway_core/analysis.py before issue 11, verbatim.
    if isinstance(spec, int) and not isinstance(spec, bool):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(v, int)}, 1
    return {}, 1


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_", min_size=1, max_size=8)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 1005), st.text(max_size=6), st.floats(allow_nan=False))
_values = st.one_of(_scalars, st.dictionaries(_names, _scalars, max_size=4), st.lists(_scalars, max_size=3))

HEAD = "runway: 1\nproduct: shop\n"
IMAGE = "img@sha256:" + "a" * 64
WORKLOAD = f"    image: {IMAGE}\n    port: 8080\n    health: {{path: /health}}\n    reason: residency\n"


@given(_values)
def test_the_analysis_reads_every_size_the_model_accepts_as_before(value):
    try:
        size = Resource.model_validate({"kind": "queue", "size": value}).size
    except ValueError:
        return  # refused by the model: no spec entry is built from it
    assert size_map(size) == _old_analysis_size_map(size)


@given(_values)
def test_the_analysis_reads_every_scale_the_model_accepts_as_before(value):
    try:
        scale = Workload.model_validate({"image": IMAGE, "port": 80, "health": {"path": "/"}, "scale": value}).scale
    except ValueError:
        return
    assert scale_map(scale) == _old_analysis_scale_map(scale)


def test_raw_values_keep_only_sizes_and_task_counts():
    assert size_map("medium") == ({}, "medium")
    assert size_map({"dev": "large", "staging": 3, "production": None}) == ({"dev": "large"}, "small")
    assert size_map(None) == size_map(7) == size_map(["small"]) == ({}, "small")
    assert scale_map(4) == ({}, 4)
    assert scale_map(True) == scale_map(-1) == scale_map(1001) == scale_map("2") == ({}, 1)
    assert scale_map({"dev": 2, "staging": True, "production": 2000, "qa": 0}) == ({"dev": 2, "qa": 0}, 1)


def test_analysis_spec_entries(tmp_path: Path, catalog):
    root = tmp_path / "runway.yaml"
    root.write_text(
        HEAD
        + "resources:\n  q:\n    kind: queue\n    size: {dev: medium, nowhere: large}\n"
        + "workloads:\n  web:\n" + WORKLOAD + "    uses: [q]\n    scale: {dev: 0, production: 3}\n    size: large\n"
    )
    an = analyze(str(root), catalog)
    q, web = an.spec.entries["q"], an.spec.entries["web"]
    assert (dict(q.sizes), q.default_size) == ({"dev": "medium"}, "small")  # an undeclared environment is left out
    assert (dict(web.sizes), web.default_size, dict(web.scales), web.default_scale) == ({}, "large", {"dev": 0, "production": 3}, 1)
    assert [it.capacity["tasks"] for it in (an.plans[e].item("web") for e in ("dev", "staging", "production"))] == [0, 1, 3]


def test_completion_prices_an_entry_read_leniently_from_a_broken_file(tmp_path: Path, catalog):
    """A file cut short by a syntax error: completion reads ``web``'s scale from the tree
    (a boolean and a count past 1000 are ignored, as the model would refuse them) and
    prices each size candidate with it."""
    text = (
        HEAD
        + "workloads:\n  web:\n" + WORKLOAD + "    scale: {dev: true, staging: 2000, production: 3}\n    size: \n"
        + "  broken: [\n"
    )
    root = tmp_path / "runway.yaml"
    root.write_text(text)
    an = analyze(str(root), catalog)
    assert an.files[str(root)].parsed.partial
    line = text.split("\n").index("    size: ")
    got = completions_at(an, str(root), LineIndex(text).position(LineIndex(text).line_start(line) + len("    size: ")))
    sizes = {c.label: c.documentation for c in got if c.kind == "size"}
    assert set(sizes) == {"small", "medium", "large"}
    # dev and staging run the default 1 task (not `true`, not 2000), production 3.
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in sizes["small"].split("\n") if line.startswith("| ") and "$" in line}
    dev, staging, prod = (float(rows[e].lstrip("$").replace(",", "")) for e in ("dev", "staging", "production"))
    assert staging == dev > 0
    assert abs(prod - 3 * dev) <= 0.02  # each line item is rounded to cents
