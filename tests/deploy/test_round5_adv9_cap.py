"""`plan` refuses a cap written below the total with more digits than a double holds (ninth
adversary C1): `limits.monthly: 126.879999999999999` against the $126.88 dev total is exit 2,
as `126.879` is, never "ok"."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("cap", ["126.879999999999999", "126.87999999999999999999999999"])
def test_plan_refuses_a_cap_below_the_total_by_less_than_a_double_tells(tmp_path, cap):
    dest = tmp_path / "orders"
    shutil.copytree(ROOT / "examples" / "orders", dest)
    text = re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", (dest / "runway.yaml").read_text())
    (dest / "runway.yaml").write_text(text.replace("  dev:                      # default cap: $150/month\n",
                                                   f"  dev:\n    limits:\n      monthly: {cap}\n", 1))
    out, err = io.StringIO(), io.StringIO()
    rc = main(["plan", str(dest), "--env", "dev"], stdout=out, stderr=err, environ={"NO_COLOR": "1"})
    assert rc == 2 and "over its cap by less than $0.01" in out.getvalue(), (rc, out.getvalue(), err.getvalue())
    out = io.StringIO()
    rc = main(["plan", str(dest), "--env", "dev", "--format", "json"], stdout=out, stderr=io.StringIO(), environ={})
    assert rc == 2 and json.loads(out.getvalue())["environments"][0]["verdict"] == "over-cap"
