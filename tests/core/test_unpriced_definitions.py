"""Ninth adversary L7 (issue 23): what the analysis cannot price is NOT ESTIMATED, never $0 "ok".

A workload with any schema error (a quoted scale, `port: "80"`, no `health`, `expose: publik`,
...), a resource of an unknown kind (RW120), a workload named like a resource (RW112) or a
definition a duplicate key hides (RW002) was left out of the plan: the environment's total
was $0.00 and its shown verdict ``ok`` ("the plan may proceed"), while the same runway fixed
is 385% of its cap. Now each is named in every environment's ``not_estimated`` and the shown
verdict (:func:`runway_core.planner.shown_verdict`: hover, lenses, ``runway/costs``,
``runway/plan``, CLI ``plan``) is ``invalid``, as for an unknown size (RW130).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.ide.hover import hover_at
from runway_core.ide.lenses import code_lenses
from runway_core.planner import not_estimated, shown_fields, shown_verdict
from runway_core.positions import Position

CATALOG = load_catalog()
HEAD = "runway: 1\nproduct: shop\nenvironments:\n  dev: {limits: {monthly: 100}}\n"
DIGEST = '"nginx@sha256:' + "a" * 64 + '"'
#: One large workload of 3 tasks: $384.98 in dev when valid (385% of the $100 cap).
WORKLOAD = {"image": DIGEST, "port": "80", "health": "{path: /}", "size": "large", "scale": "{dev: 3}",
            "reason": '"no-managed-fit: x"'}

#: The adversary's variants of a workload schema error (each RW100/RW101/RW102): key -> value
#: (None: the key left out).
WORKLOAD_ERRORS = {
    "quoted scale": ("scale", '{dev: "3"}'),
    "fractional scale": ("scale", "{dev: 2.5}"),
    "scale over 1000": ("scale", "{dev: 1001}"),
    "quoted port": ("port", '"80"'),
    "port out of range": ("port", "70000"),
    "no health": ("health", None),
    "no image": ("image", None),
    "expose typo": ("expose", "publik"),
    "platform typo": ("platform", "linux/amd65"),
    "env as a list": ("env", "[A, B]"),
    "unknown key": ("sizee", "large"),
}


def _workload(**changes: str | None) -> str:
    fields = {**WORKLOAD, **changes}
    return HEAD + "workloads:\n  api:\n" + "".join(f"    {k}: {v}\n" for k, v in fields.items() if v is not None)


def _dev(tmp_path: Path, text: str):
    (tmp_path / "runway.yaml").write_text(text, encoding="utf-8")
    an = analyze(str(tmp_path / "runway.yaml"), CATALOG)
    return an, an.plans["dev"]


def test_the_valid_workload_is_over_its_cap(tmp_path: Path) -> None:
    _an, dev = _dev(tmp_path, _workload())
    assert (dev.total, shown_verdict(dev), not_estimated(dev)) == (Decimal("384.98"), "over-cap", ())


@pytest.mark.parametrize("variant", list(WORKLOAD_ERRORS))
def test_a_workload_with_a_schema_error_is_not_estimated(tmp_path: Path, variant: str) -> None:
    key, value = WORKLOAD_ERRORS[variant]
    an, dev = _dev(tmp_path, _workload(**{key: value}))
    assert any(d.code in ("RW100", "RW101", "RW102") for d in an.all_diagnostics())
    assert "api" in not_estimated(dev)
    assert shown_verdict(dev) == "invalid"  # was "ok" at $0.00
    assert shown_fields(dev) == {"verdict": "invalid", "not_estimated": ["api"]}


def test_the_views_say_not_estimated_never_may_proceed(tmp_path: Path) -> None:
    an, _dev_plan = _dev(tmp_path, _workload(scale='{dev: "3"}'))
    path = str(tmp_path / "runway.yaml")
    hover = hover_at(an, path, Position(3, 3))
    assert hover is not None
    assert "may proceed" not in hover.markdown and "not estimated: api" in hover.markdown
    (env_lens,) = [lens for lens in code_lenses(an, path) if lens.data == {"env": "dev"}]
    assert "not estimated" in env_lens.title, env_lens.title


@pytest.mark.parametrize("kind", ["postgress", "alb"])
def test_a_resource_of_an_unknown_or_reserved_kind_is_not_estimated(tmp_path: Path, kind: str) -> None:
    an, dev = _dev(tmp_path, HEAD + f"resources:\n  db: {{kind: {kind}, size: large}}\n")
    assert {"RW120", "RW121"} & {d.code for d in an.all_diagnostics()}
    assert not_estimated(dev) == ("db",)
    assert shown_verdict(dev) == "invalid"


def test_an_empty_resource_is_not_estimated(tmp_path: Path) -> None:
    _an, dev = _dev(tmp_path, HEAD + "resources:\n  db:\n")
    assert not_estimated(dev) == ("db",) and shown_verdict(dev) == "invalid"


def test_a_workload_named_like_a_resource_is_not_estimated(tmp_path: Path) -> None:
    text = HEAD + "resources:\n  api: {kind: queue}\n" + _workload().split(HEAD, 1)[1]
    an, dev = _dev(tmp_path, text)
    assert "RW112" in {d.code for d in an.all_diagnostics()}
    assert "api" in not_estimated(dev) and shown_verdict(dev) == "invalid"


DUPLICATES = {
    # a second `db:` key: the $325.81 postgres after the queue is ignored
    "second entry": (HEAD + "resources:\n  db: {kind: queue}\n  db: {kind: postgres, size: large}\n", "db (second definition, line 7)"),
    "second section": (HEAD + "resources:\n  q: {kind: queue}\nresources:\n  db: {kind: postgres, size: large}\n",
                       "the second `resources:` section (line 7)"),
    "second key in a block entry": (HEAD + "resources:\n  db:\n    kind: postgres\n    size: small\n    size: large\n",
                                    "db (duplicate key `size`, line 9)"),
    "second key in a flow entry": (HEAD + "resources:\n  db: {kind: postgres, size: small, size: large}\n",
                                   "db (duplicate key `size`, line 6)"),
    "second workloads section": (_workload(scale="{dev: 0}") + "workloads:\n  web: {}\n", "the second `workloads:` section (line 13)"),
    # which cap is meant is not known either: a second `dev:`, a second `monthly:`
    "second environment": (HEAD + "  dev: {limits: {monthly: 1}}\nresources:\n  q: {kind: queue}\n", "dev (second definition, line 5)"),
    "second monthly": (HEAD.replace("{monthly: 100}", "{monthly: 100, monthly: 1}") + "resources:\n  q: {kind: queue}\n",
                       "dev (duplicate key `monthly`, line 4)"),
    "second environments section": (HEAD + "resources:\n  q: {kind: queue}\nenvironments:\n  dev: {limits: {monthly: 1}}\n",
                                    "the second `environments:` section (line 7)"),
}


@pytest.mark.parametrize("case", list(DUPLICATES))
def test_a_definition_a_duplicate_key_hides_is_not_estimated(tmp_path: Path, case: str) -> None:
    text, label = DUPLICATES[case]
    an, dev = _dev(tmp_path, text)
    assert "RW002" in {d.code for d in an.all_diagnostics()}
    assert label in not_estimated(dev), not_estimated(dev)
    assert shown_verdict(dev) == "invalid"


def test_a_duplicate_outside_resources_and_workloads_hides_no_price(tmp_path: Path) -> None:
    # `product` twice hides no priced definition: nothing more is "not estimated".
    _an, dev = _dev(tmp_path, HEAD + "product: other\nresources:\n  q: {kind: queue}\n")
    assert not_estimated(dev) == () and shown_verdict(dev) == "ok"


def test_over_cap_stays_over_cap_with_a_definition_not_estimated(tmp_path: Path) -> None:
    # a lower bound over the cap is over it: the refusal stands (runway_core/planner/verdict.py)
    text = HEAD + "resources:\n  db: {kind: postgres, size: large}\n  x: {kind: postgress}\n"
    _an, dev = _dev(tmp_path, text)
    assert not_estimated(dev) == ("x",) and shown_verdict(dev) == "over-cap"


#: A member's `requires` (each kind an implicit shared-<kind> pool): member text -> (the shared
#: pool planned, the label not estimated).
MEMBERS = {
    # an error beside `requires` dropped the member's model and its pool with it ($0 "ok")
    "a bad sibling": ("runway: 1\nrequires: [postgres]\nshared_typo: 1\n", "shared-postgres", None),
    "a kind typo": ("runway: 1\nrequires: [postgress]\n", None, "`postgress` required by member `svc`"),
    "requires not a list": ("runway: 1\nrequires: postgres\n", None, "the `requires` of member `svc`"),
}


@pytest.mark.parametrize("case", list(MEMBERS))
def test_what_a_member_requires_is_planned_or_not_estimated(tmp_path: Path, case: str) -> None:
    text, pool, label = MEMBERS[case]
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "runway.yaml").write_text(text, encoding="utf-8")
    an, dev = _dev(tmp_path, HEAD + "members: [svc]\n")
    assert [d for d in an.all_diagnostics() if d.severity == 1]  # the member's error fails the run
    if pool is not None:
        assert dev.item(pool) is not None and dev.total > 0 and not_estimated(dev) == ()
    else:
        assert label in not_estimated(dev) and shown_verdict(dev) == "invalid", not_estimated(dev)
