"""The kind registry is complete (issue 21): every kind :mod:`runway_core.kinds` declares has
each piece the tooling needs, and a kind declared alone fails closed.

:func:`missing_pieces` walks the registry and names, per kind, every piece it lacks: its size
table and the packaged catalogue's rows for it, its quantities and the price keys they ask for,
a unit price for each key in every region of the catalogue (never another region's) and a Price
List selector for it (``catalog refresh``), its engine
options model, its capacity text, its Pulumi component (registered in
``deploy_engine.program.COMPONENTS``, declaring the kind's type token under Pulumi's mock
monitor), inputs checked against botocore's service models (``test_botocore_models.py``: its
plans declare the kind and its MAPPING covers one of the AWS types the component declares), and
its docs (docs/format.md's kind and variable tables, docs/catalog.md's size table).

``test_a_kind_alone_in_the_registry_is_refused`` adds a kind to a copy of the registry alone
(tests/kindtree.py) and shows check and plan refusing it with a positioned error, the program
refusing to declare it, and :func:`missing_pieces` naming every piece it lacks.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pulumi_aws", reason="the components are Pulumi programs (the [deploy] extra)")
pytest.importorskip("botocore.session", reason="botocore carries the AWS API shapes")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else None]


def _engine_variants(kind: Any, model: Any, engine_defaults: Any) -> list[dict[str, Any]]:
    """The engine options to price a kind with: the defaults, each flavor, and each boolean
    option of its engine model flipped (one at a time)."""
    if not kind.resource:
        return [{}]
    variants = [engine_defaults(kind.name, None)]
    for flavor in kind.flavors[1:]:
        variants.append(engine_defaults(kind.name, {kind.flavor_key: flavor}))
    for field, info in (model.model_fields.items() if model is not None else ()):
        if info.annotation is bool:
            for base in list(variants):
                variants.append({**base, field: not base.get(field)})
    return variants


def missing_pieces(catalog: Any) -> dict[str, list[str]]:
    """Kind name -> every piece it lacks (empty lists left out). Imports the program (Pulumi)."""
    from deploy_engine.program import COMPONENTS
    from deploy_engine.pricelist.selectors import selector_for
    from deploy_engine.resources import declared_resources
    from runway_core.kinds import REGISTRY, Sizing
    from runway_core.model import ENGINE_MODELS
    from runway_core.planner import engine_defaults
    from test_botocore_models import MAPPING, plans
    from test_program_mocks import NETWORK, entry, make_plan

    fmt = (DOCS / "format.md").read_text(encoding="utf-8")
    kinds_table = _section(fmt, "### Resource kinds")
    variables_table = _section(fmt, "## Uses and injected variables")
    cat_doc = (DOCS / "catalog.md").read_text(encoding="utf-8")
    checked_kinds = {i.kind for _case, plan, _net in plans(catalog) for i in plan.items}
    mapped_types = {typ for typ, *_ in MAPPING}
    out: dict[str, list[str]] = {}
    for kind in REGISTRY:
        missing: list[str] = []
        name = kind.name
        if kind.size_fields is None:
            missing.append("size table (Kind.size_fields, and its rows in catalog/sizes.toml)")
        if kind.quantities is None:
            missing.append("quantities (Kind.quantities: how a size becomes line items)")
        if kind.price_keys is None:
            missing.append("price keys (Kind.price_keys)")
        if kind.describe is None:
            missing.append("capacity text (Kind.describe)")
        if kind.resource and name not in ENGINE_MODELS:
            missing.append("engine options model (runway_core.model.ENGINE_MODELS)")
        if kind.size_fields is None or kind.quantities is None:
            missing.append("prices in every catalogue region (catalog/prices.csv) and their Price List selectors")
        else:
            # What its quantities ask for with the packaged sizes: every size, flavor and
            # boolean engine option (FIFO or not, proxy or not...), each priced in every region.
            asked: set[str] = set()
            for engine in _engine_variants(kind, ENGINE_MODELS.get(name), engine_defaults):
                for s in catalog.sizes(name):
                    cap = catalog.capacity(name, s, kind.flavor_of(engine))
                    probe = entry(f"probe-{name}", name, s, engine=engine) if kind.resource else entry(f"probe-{name}", name, s)
                    _c, specs = kind.quantities(Sizing(cap, probe.engine, catalog.hours_per_month, catalog.environment, 1, probe))
                    asked.update(spec[0] for spec in specs)
            unselected = sorted(k for k in asked if selector_for(k) is None)
            if unselected:
                missing.append(f"Price List selectors (deploy_engine/pricelist/selectors.py, for catalog refresh): {', '.join(unselected)}")
            for region in sorted(catalog.regions):
                absent = sorted(k for k in asked if catalog.price(k, region) is None)
                if absent:
                    missing.append(f"prices in {region} (catalog/prices.csv): {', '.join(absent)}")
            if kind.price_keys is not None:
                flavors = kind.flavors or (None,)
                rows = {f: [c for s in catalog.sizes(name) if (c := catalog.capacity(name, s, f)) is not None] for f in flavors}
                omitted = asked - set(kind.price_keys(rows))
                if omitted:
                    missing.append(f"price keys its quantities ask for but Kind.price_keys omits: {', '.join(sorted(omitted))}")
        if name not in COMPONENTS:
            missing.append("component (deploy_engine.program.COMPONENTS)")
        elif kind.estimated:
            probe = entry(f"probe-{name}", name)
            creds = {probe.name: "probe-password-0123456789"} if kind.credentials else {}
            doc = declared_resources(make_plan(catalog, probe), product="acme", region="us-east-1", network=NETWORK, credentials=creds)
            own = [r for r in doc["resources"] if r["type"] == kind.component]
            if not own:
                missing.append(f"component declaring its type token {kind.component}")
            else:
                types = {r["type"] for r in doc["resources"] if r.get("parent") == own[0]["urn"]}
                if not types & mapped_types:
                    missing.append(f"botocore-checked inputs (test_botocore_models.MAPPING) of one of {', '.join(sorted(types))}")
        if name not in checked_kinds:
            missing.append("a plan of test_botocore_models.plans() declaring it (inputs checked against botocore)")
        if kind.resource and not re.search(rf"^\| `{re.escape(name)}` \|", kinds_table, re.M):
            missing.append('docs/format.md "Resource kinds" row')
        if not re.search(rf"^\| {re.escape(name)} \|", variables_table, re.M):
            missing.append('docs/format.md "Uses and injected variables" row')
        if not re.search(rf"^## {re.escape(name)} ", cat_doc, re.M):
            missing.append("docs/catalog.md size table section")
        if missing:
            out[name] = missing
    return out


def test_every_kind_has_every_piece(catalog):
    missing = missing_pieces(catalog)
    assert missing == {}, "kinds with missing pieces:\n" + "\n".join(f"- {k}: {piece}" for k, pieces in missing.items() for piece in pieces)


def test_every_component_token_is_the_registry_s():
    # One token per kind, written once: the component classes pass the declaration's.
    from runway_core.kinds import REGISTRY

    tokens = [k.component for k in REGISTRY]
    assert len(set(tokens)) == len(tokens)
    for path in (ROOT / "deploy_engine").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for token in tokens:
            # Docstrings name them in double backquotes; code never spells one out.
            assert f'"{token}"' not in text and f"'{token}'" not in text, f"{path}: {token} spelt out"


# --------------------------------------------------------------------------------------
# A kind declared alone (tests/kindtree.py): fail closed everywhere
# --------------------------------------------------------------------------------------

_RUNWAY = """runway: 1
product: clicks
resources:
  clickstream:
    kind: stream
  db:
    kind: postgres
environments:
  dev: {}
  production: {}
"""

_PIECES = """
import json, sys
sys.path[1:1] = [sys.argv[1], sys.argv[2]]
from runway_core.catalog import load_catalog
from test_kinds import missing_pieces
print(json.dumps(missing_pieces(load_catalog())))
"""

_HOVER = """
import sys
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.ide.hover import hover_at
from runway_core.positions import Position
root = sys.argv[1]
an = analyze(root, load_catalog())
print(hover_at(an, root, Position(3, 3)).markdown)
"""

_DECLARE = """
import sys
sys.path[1:1] = [sys.argv[1]]
from runway_core.catalog import load_catalog
from runway_core.planner import EntrySpec, EnvSpec, RunwaySpec, plan_environment
from deploy_engine.resources import declared_resources
from test_program_mocks import NETWORK
spec = RunwaySpec("clicks", "us-east-1", (EnvSpec("sandbox", None, "none"),), {"clickstream": EntrySpec("clickstream", "stream", {})}, ())
plan = plan_environment(spec, load_catalog(), "sandbox")
print(plan.verdict, plan.items[0].estimated, plan.items[0].notes[0])
try:
    declared_resources(plan, product="clicks", region="us-east-1", network=NETWORK, credentials={})
except ValueError as exc:
    print("refused:", exc)
"""


def test_a_kind_alone_in_the_registry_is_refused(tmp_path: Path):
    sys.path.insert(0, str(ROOT / "tests"))
    from kindtree import cli, run_python, tree_with_kind

    tree = tree_with_kind(tmp_path / "tree")
    product = tmp_path / "product"
    product.mkdir()
    (product / "runway.yaml").write_text(_RUNWAY, encoding="utf-8")

    check = cli(tree, "check", str(product), "--no-summary", cwd=product)
    assert check.returncode == 1, check.stdout + check.stderr
    assert check.stdout.splitlines()[0] == (
        "runway.yaml:4:3: error RW122: not estimated: `clickstream` has no price: kind `stream` declares no size table "
        "or quantities (runway_core/kinds.py); the plan of dev is refused"
    )

    plan = cli(tree, "plan", str(product), "--format", "json", "--no-summary", cwd=product)
    assert plan.returncode == 1, plan.stderr  # invalid runway (RW122 is an error), and dev refused
    envs = {e["name"]: e for e in json.loads(plan.stdout)["environments"]}
    assert envs["dev"]["verdict"] == "unpriced"  # capped: never "ok" on $0
    # uncapped, but a lower bound proves nothing: the plan formats call it invalid (issue 22,
    # deploy_engine/cli/formats/_shared.plan_verdict), never "no-cap" over a $0 item
    assert envs["production"]["verdict"] == "invalid"
    item = next(i for i in envs["dev"]["items"] if i["name"] == "clickstream")
    assert item["size"] is None and item["line_items"] == []
    assert item["notes"] == ["not estimated: kind 'stream' has no price (no size table or quantities in runway_core/kinds.py)"]
    text = cli(tree, "plan", str(product), "--no-summary", cwd=product)
    assert "dev — at least $" in text.stdout and "REFUSED: cannot check the cap (clickstream not estimated: RW122)" in text.stdout
    assert re.search(r"clickstream +stream +- +not estimated", text.stdout)
    assert "refused: cannot check the cap: clickstream not estimated (its kind has no price: RW122)" in text.stderr

    hover = run_python(tree, _HOVER, str(product / "runway.yaml"))
    assert hover.returncode == 0, hover.stderr
    assert "| monthly | not estimated |" in hover.stdout and "$0.00" not in hover.stdout, hover.stdout

    declared = run_python(tree, _DECLARE, str(ROOT / "tests" / "deploy"))
    assert declared.returncode == 0, declared.stderr
    assert declared.stdout.splitlines() == [
        "no-cap False not estimated: kind 'stream' has no price (no size table or quantities in runway_core/kinds.py)",
        "refused: sandbox: stream 'clickstream': the kind has no component in deploy_engine.program.COMPONENTS; nothing is declared",
    ]

    pieces = run_python(tree, _PIECES, str(ROOT / "tests" / "deploy"), str(ROOT / "tests"))
    assert pieces.returncode == 0, pieces.stderr
    assert json.loads(pieces.stdout) == {"stream": [
        "size table (Kind.size_fields, and its rows in catalog/sizes.toml)",
        "quantities (Kind.quantities: how a size becomes line items)",
        "price keys (Kind.price_keys)",
        "capacity text (Kind.describe)",
        "engine options model (runway_core.model.ENGINE_MODELS)",
        "prices in every catalogue region (catalog/prices.csv) and their Price List selectors",
        "component (deploy_engine.program.COMPONENTS)",
        "a plan of test_botocore_models.plans() declaring it (inputs checked against botocore)",
        'docs/format.md "Resource kinds" row',
        'docs/format.md "Uses and injected variables" row',
        "docs/catalog.md size table section",
    ]}


_SLIM = """
import json, sys
sys.path[1:1] = [sys.argv[1]]
from runway_core.catalog import load_catalog
from runway_core.kinds import REGISTRY
from deploy_engine.resources import declared_resources
from test_program_mocks import NETWORK, entry, make_plan
catalog = load_catalog()
probes = [entry(f"probe-{k.name}", k.name) for k in REGISTRY if k.estimated]
creds = {p.name: "probe-password-0123456789" for p, k in zip(probes, [k for k in REGISTRY if k.estimated]) if k.credentials}
declared_resources(make_plan(catalog, *probes), product="acme", region="us-east-1", network=NETWORK, credentials=creds)
from deploy_engine.program._aws import USED
whole = sorted(name for name, m in sys.modules.items() if type(m).__name__ == "_SlimPackage" and m.__dict__.get("_runway_full"))
# A resource package pulumi_aws loaded (not a lazy stand-in) that USED does not list.
unlisted = sorted(name for name, m in sys.modules.items() if name.count(".") == 1 and name.startswith("pulumi_aws.")
                  and hasattr(m, "__path__") and type(m).__name__ != "_LazyModule" and name.split(".")[1] not in USED)
print(json.dumps({"loaded whole": whole, "not in USED": unlisted}))
"""


def test_every_component_uses_only_the_pulumi_aws_names_the_program_loads():
    # deploy_engine/program/_aws.py loads only the classes in USED of each pulumi_aws package;
    # a component asking for another one, or for a package USED does not list, silently loads
    # the whole package (seconds of import: its docstring). In a fresh interpreter, one item of
    # every kind: no package loaded whole, none outside USED.
    sys.path.insert(0, str(ROOT / "tests"))
    from kindtree import run_python

    done = run_python(ROOT, _SLIM, str(ROOT / "tests" / "deploy"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"loaded whole": [], "not in USED": []}, "program/_aws.py's USED misses what a component uses"


def test_the_diagnostics_page_names_the_registrys_kinds_for_rw120():
    """docs/diagnostics.md's RW120 row and section name exactly the resource kinds of the
    registry, so a kind added there cannot leave the page's list short (issue 21)."""
    import re

    from runway_core.kinds import RESOURCE_KINDS

    page = (Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| RW120 |"))
    section = page.split("### RW120", 1)[1].split("```", 1)[0]
    in_row = re.search(r"a kind that is not ([a-z, ]+) \|", row).group(1)
    assert [k.strip() for k in in_row.split(",")] == list(RESOURCE_KINDS)
    listed = section.split("not", 1)[1]  # "... key that is not `postgres`, `queue` ... or `bucket`."
    assert re.findall(r"`([a-z]+)`", listed) == list(RESOURCE_KINDS)
