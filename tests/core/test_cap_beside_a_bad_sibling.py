"""Ninth adversary L8 (issue 23): a bad sibling of `limits` made a valid cap "invalid".

`dev: {limits: {monthly: 20}, disposable: maybe}` (RW100 on `disposable`) failed the
environment's model as a whole, and its valid $20 cap went with it: the hover said "cap invalid
(RW100): `environments.dev.limits.monthly` must be a number …", `runway/costs` cap null and
verdict `no-cap`, and dev's RW170 (its $325.81 postgres is over the $20 cap) was gone. Now the
environment is read key by key when its model fails (runway_core/analysis/spec.py `_salvaged`):
the error is only at the bad key and the cap is still checked. A key `limits` does not know
(`currency: EUR`) leaves in doubt what the number means: the cap is invalid (fail closed), and
the message blames that key, not `monthly` (docs/format.md, "Environments").
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.ide.hover import hover_at
from runway_core.ide.lenses import code_lenses
from runway_core.planner import shown_verdict
from runway_core.positions import Position

CATALOG = load_catalog()
TEXT = ("runway: 1\nproduct: shop\nenvironments:\n  dev: DEV\n  prod: {limits: {monthly: 20}}\n"
        "resources:\n  db: {kind: postgres, size: large}\n")  # db: $325.81 a month


def _analysis(tmp_path: Path, dev: str):
    path = tmp_path / "runway.yaml"
    path.write_text(TEXT.replace("DEV", dev), encoding="utf-8")
    return analyze(str(path), CATALOG), str(path)


#: dev's entry -> (the code at the bad key, its column on line 4)
SIBLINGS = {
    "disposable: maybe": ("{limits: {monthly: 20}, disposable: maybe}", "RW100", 44),
    "an unknown key": ("{limits: {monthly: 20}, sharde: {cache: small}}", "RW102", 27),
    "a shared size that is no string": ("{limits: {monthly: 20}, shared: {cache: [small]}}", "RW100", 27),
}


@pytest.mark.parametrize("case", list(SIBLINGS))
def test_a_bad_sibling_leaves_the_cap_checked(tmp_path: Path, case: str) -> None:
    dev, code, _col = SIBLINGS[case]
    an, path = _analysis(tmp_path, dev)
    plan = an.plans["dev"]
    assert (plan.cap, plan.cap_source, shown_verdict(plan)) == (Decimal(20), "set", "over-cap")
    errors = [(d.code, d.range.start.line) for d in an.all_diagnostics() if d.severity == 1]
    assert ("RW170", 3) in errors  # dev's over-cap error is back
    assert code in {c for c, line in errors if line == 3}
    hover = hover_at(an, path, Position(3, 3))
    assert hover is not None and "cap invalid" not in hover.markdown and "over its cap" in hover.markdown
    (lens,) = [lens for lens in code_lenses(an, path) if lens.data == {"env": "dev"}]
    assert "over cap" in lens.title and "cap invalid" not in lens.title


def test_a_bad_sibling_keeps_the_valid_shared_pools(tmp_path: Path) -> None:
    an, _path = _analysis(tmp_path, "{limits: {monthly: 20}, shared: {cache: small}, disposable: maybe}")
    assert an.plans["dev"].item("shared-cache") is not None


def test_a_bad_sibling_without_limits_keeps_the_default_cap(tmp_path: Path) -> None:
    an, _path = _analysis(tmp_path, "{disposable: maybe}")
    plan = an.plans["dev"]
    assert (plan.cap, plan.cap_source, plan.verdict) == (Decimal(150), "default", "over-cap")


def test_an_unknown_key_in_limits_makes_the_cap_invalid_blaming_that_key(tmp_path: Path) -> None:
    an, path = _analysis(tmp_path, "{limits: {monthly: 20, currency: EUR}}")
    plan = an.plans["dev"]
    assert (plan.cap, plan.cap_source) == (None, "invalid")  # fail closed: what 20 means is in doubt
    assert plan.cap_error is not None and plan.cap_error[0] == "RW102" and "limits.currency" in plan.cap_error[1]
    hover = hover_at(an, path, Position(3, 3))
    assert hover is not None and "cap invalid (RW102): `environments.dev.limits.currency`" in hover.markdown
    assert "limits.monthly` must be a number" not in hover.markdown
    (lens,) = [lens for lens in code_lenses(an, path) if lens.data == {"env": "dev"}]
    assert "cap invalid" in lens.title and "RW102" in (lens.tooltip or "")


def test_an_invalid_monthly_beside_a_bad_sibling_still_blames_monthly(tmp_path: Path) -> None:
    an, path = _analysis(tmp_path, '{limits: {monthly: "20"}, disposable: maybe}')
    plan = an.plans["dev"]
    assert (plan.cap, plan.cap_source) == (None, "invalid")
    hover = hover_at(an, path, Position(3, 3))
    assert hover is not None and "cap invalid (RW100): `environments.dev.limits.monthly` must be a number" in hover.markdown
