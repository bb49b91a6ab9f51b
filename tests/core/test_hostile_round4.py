"""Hostile inputs, round 4 (docs/reliability.md, hostile table): deep nesting stops the loader,
caps beyond the maximum and invalid caps, python tags, secret-named `env` values in plans."""

from __future__ import annotations

import json
from decimal import Decimal

import runway_core.yamlsrc.parse as yparse
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.planner import environment_json, plan_digest
from runway_core.yamlsrc import parse_yaml


def _count_events(monkeypatch) -> list[int]:
    seen = [0]
    real = yparse._events

    def counting(text):
        for ev in real(text):
            seen[0] += 1
            yield ev

    monkeypatch.setattr(yparse, "_events", counting)
    return seen


def test_deep_flow_nesting_stops_reading_events_at_the_limit(monkeypatch):
    # 100,000 levels (200 KB) took 175 s: libyaml rechecks every open flow level per token.
    seen = _count_events(monkeypatch)
    p = parse_yaml("x: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert [d.code for d in p.diagnostics] == ["RW010"]
    assert p.diagnostics[0].range.start.line == 0 and p.diagnostics[0].range.start.character == 3 + 63  # the root mapping is level 1
    assert seen[0] < 100  # stream, document, the mapping, `x`, 65 sequence starts: then it stops
    assert p.partial


def test_deep_brace_and_block_nesting_stop_too(monkeypatch):
    seen = _count_events(monkeypatch)
    p = parse_yaml("x: " + "{a: " * 50_000 + "}" * 50_000 + "\n")
    assert "RW010" in [d.code for d in p.diagnostics] and seen[0] < 300
    seen[0] = 0
    p = parse_yaml("".join(" " * i + "a:\n" for i in range(2_000)))
    assert [d.code for d in p.diagnostics] == ["RW010"] and p.diagnostics[0].range.start.line == 64
    assert seen[0] < 300


def test_python_tags_are_rw008_like_custom_tags():
    for text in ('runway: !!python/object/apply:os.system ["id"]\n', "runway: !!python/str 1\n", "runway: !custom 1\n"):
        assert "RW008" in [d.code for d in parse_yaml(text).diagnostics], text


_BASE = """runway: 1
product: shop
workloads:
  api:
    image: ghcr.io/acme/api@sha256:0000000000000000000000000000000000000000000000000000000000000000
    reason: no-managed-fit
    port: 8080
    health: {path: /healthz}
    env: {DB_PASSWORD: correcthorsebattery, LOG_LEVEL: info}
environments:
  dev:
    limits: {monthly: CAP}
"""


def _analyze(text: str):
    return analyze("/p/runway.yaml", load_catalog(), read=lambda path: text)


def _an(cap: str):
    return _analyze(_BASE.replace("CAP", cap))


def test_a_cap_over_the_maximum_is_rw100_and_not_used():
    an = _an("1e26")
    assert any(d.code == "RW100" and "monthly" in d.message for ds in an.diagnostics.values() for d in ds)
    assert an.plans["dev"].cap is None and an.plans["dev"].cap_source == "invalid"
    assert not any(d.code == "RW100" for ds in _an("1000000000").diagnostics.values() for d in ds)


def test_an_invalid_cap_is_never_replaced_by_the_default():
    for cap in (".nan", "-5", '"150"', "1e26"):
        p = _an(cap).plans["dev"]
        assert p.cap is None and p.cap_source == "invalid" and p.verdict == "no-cap", cap
    assert _an("0x10").plans["dev"].cap == Decimal(16)  # YAML 1.2 core schema: 0x10 is 16


def test_secret_named_env_values_are_masked_in_plan_json_but_kept_in_the_plan():
    an = _an("300")
    plan = an.plans["dev"]
    item = next(i for i in plan.items if i.name == "api")
    assert item.capacity["env"]["DB_PASSWORD"] == "correcthorsebattery"  # what the program reads
    shown = json.dumps(environment_json(plan))
    assert "correcthorsebattery" not in shown and '"LOG_LEVEL": "info"' in shown
    # The digest covers the declared value: changing the password changes the plan digest.
    other = _analyze(_BASE.replace("CAP", "300").replace("correcthorsebattery", "another")).plans["dev"]
    assert plan_digest(plan, "shop", "us-east-1") != plan_digest(other, "shop", "us-east-1")


def test_a_root_runway_linked_outside_its_folder_is_refused_and_never_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text("root:$6$saltsalt$hash:19000:0:99999:7:::\n", encoding="utf-8")
    prod = tmp_path / "p"
    prod.mkdir()
    (prod / "runway.yaml").symlink_to(outside / "shadow")
    reads: list[str] = []

    def read(path):
        reads.append(path)
        return open(path, encoding="utf-8").read()

    an = analyze(str(prod / "runway.yaml"), load_catalog(), read=read)
    diags = [d for ds in an.diagnostics.values() for d in ds]
    assert [d.code for d in diags] == ["RW151"] and "leaves the product's folder" in diags[0].message
    assert reads == [] and not any("saltsalt" in d.message for d in diags)


def test_a_root_runway_linked_inside_its_folder_is_read(tmp_path):
    prod = tmp_path / "p"
    (prod / "conf").mkdir(parents=True)
    (prod / "conf" / "real.yaml").write_text(_BASE.replace("CAP", "300"), encoding="utf-8")
    (prod / "runway.yaml").symlink_to(prod / "conf" / "real.yaml")
    an = analyze(str(prod / "runway.yaml"), load_catalog())
    assert not any(d.code == "RW151" for ds in an.diagnostics.values() for d in ds)
    assert "dev" in an.plans


def test_an_invalid_cap_in_hover_and_lenses_says_so(tmp_path):
    from runway_core.ide.hover import hover_at
    from runway_core.ide.lenses import code_lenses
    from runway_core.positions import Position

    f = tmp_path / "runway.yaml"
    for cap in ("1e26", ".nan"):
        f.write_text(_BASE.replace("CAP", cap), encoding="utf-8")
        an = analyze(str(f), load_catalog())
        line = f.read_text(encoding="utf-8").splitlines().index("  dev:")
        h = hover_at(an, str(f.resolve()), Position(line, 3))
        assert h is not None and "cap invalid" in h.markdown and "$150" not in h.markdown
        assert any("cap invalid" in lens.title for lens in code_lenses(an, str(f.resolve())))
