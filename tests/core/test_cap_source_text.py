"""A cap is the figure its scalar's text writes, never the binary double YAML's float holds
(ninth adversary C1; docs/format.md: an environment is over its cap when its total is strictly
greater): `limits.monthly: 126.879999999999999` is below a $126.88 total, though
`float("126.879999999999999") == 126.88`."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.ide.hover import hover_at
from runway_core.positions import Position
from runway_core.yamlsrc import exact_number, parse_yaml

ROOT = Path(__file__).resolve().parents[2]


def _orders(tmp_path: Path, cap: str) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(ROOT / "examples" / "orders", dest)
    text = re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", (dest / "runway.yaml").read_text())
    old = "  dev:                      # default cap: $150/month\n"
    assert old in text
    (dest / "runway.yaml").write_text(text.replace(old, f"  dev:\n    limits:\n      monthly: {cap}\n", 1))
    return dest / "runway.yaml"


@pytest.mark.parametrize("cap", ["126.879999999999999", "126.87999999999999999999999999", "126.879", "12687999999999999999e-17"])
def test_a_cap_written_below_the_total_is_over_it_whatever_a_double_holds(tmp_path, catalog, cap):
    an = analyze(str(_orders(tmp_path, cap)), catalog)
    dev = an.plans["dev"]
    assert dev.total == Decimal("126.88") or round(dev.total, 2) == Decimal("126.88")
    assert dev.cap == Decimal(cap) and dev.verdict == "over-cap"
    assert any(d.code == "RW170" for d in an.all_diagnostics())


@pytest.mark.parametrize(("cap", "exact"), [("126.88", "126.88"), ("126.880000000000001", "126.880000000000001"), ("1e3", "1000"),
                                            ("150", "150"), ("-0.0", "0")])
def test_a_cap_at_or_above_the_total_passes_and_is_the_written_figure(tmp_path, catalog, cap, exact):
    an = analyze(str(_orders(tmp_path, cap)), catalog)
    dev = an.plans["dev"]
    assert dev.cap == Decimal(exact) and str(dev.cap) != "-0"
    assert dev.verdict == ("ok" if Decimal(exact) >= dev.total else "over-cap")


def test_the_hover_of_the_cap_says_over_as_the_plan_does(tmp_path, catalog):
    path = _orders(tmp_path, "126.879999999999999")
    an = analyze(str(path), catalog)
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if "monthly: 126.879999999999999" in line)
    h = hover_at(an, str(path), Position(n, lines[n].index("126.") + 2))
    assert h is not None
    assert "over its cap by less than $0.01" in h.markdown and "within its cap" not in h.markdown, h.markdown


def test_exact_number_reads_the_source_text():
    doc = parse_yaml("a: 126.879999999999999\nb: '1.5'\nc: true\nd: .inf\ne: 0x10\nf: 7\ng: 1e-3\n", "/x.yaml")
    got = {k.text: exact_number(v) for k, v in doc.root.entries}
    assert got == {"a": Decimal("126.879999999999999"), "b": None, "c": None, "d": None, "e": Decimal(16), "f": Decimal(7), "g": Decimal("0.001")}


@pytest.mark.parametrize("cap", ["1e-9999", "1e-99999999", "0.000000000000000000000000000000000000000001"])
def test_a_tiny_positive_cap_refuses_in_every_format_and_never_crashes(tmp_path, catalog, cap):
    """Tenth adversary C1: the exact text of `1e-9999` kept its exponent, so the text plan's
    percentage had 10,000 digits (ValueError past Python's int-str limit) and `1e-99999999`
    overflowed `total * 100 / cap`: exit 70. A positive cap below TINY_CAP_USD is read as that
    (against totals made of cents the verdict is the same: over by any priced cent)."""
    import io

    from deploy_engine.cli import main

    path = _orders(tmp_path, cap)
    an = analyze(str(path), catalog)
    assert an.plans["dev"].verdict == "over-cap" and Decimal(0) < an.plans["dev"].cap <= Decimal("1E-8")
    for fmt in ("text", "markdown", "json"):
        out, err = io.StringIO(), io.StringIO()
        rc = main(["plan", str(path.parent), "--env", "dev", "--format", fmt], stdout=out, stderr=err, environ={"NO_COLOR": "1"})
        assert rc == 2, (fmt, rc, err.getvalue())
        assert not re.search(r"[0-9]{200}", out.getvalue())  # no number of hundreds of digits
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(ROOT / "examples" / "orders"), str(path.parent), "--env", "dev"], stdout=out, stderr=err, environ={}) in (0, 1, 2)
    assert "internal error" not in err.getvalue()
