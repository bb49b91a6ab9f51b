"""The kind registry is complete (issue 21): every kind :mod:`runway_core.kinds` declares has
each piece the tooling needs, and a kind declared alone fails closed.

:func:`missing_pieces` walks the registry and names, per kind, every piece it lacks: its size
table and the packaged catalogue's rows for it, its quantities and the price keys they ask for,
a unit price for each key in every region of the catalogue (never another region's) and a Price
List selector for it (``catalog refresh``), its engine
options model, its capacity text, the usage keys its quantities read (``runway_core.usage.USAGE_KEYS``,
else a usage file cannot state them: RW202), its Pulumi component (registered in
``deploy_engine.program.COMPONENTS``, declaring the kind's type token under Pulumi's mock
monitor), a ``REPLACING`` row for each fixed-name AWS type it declares
(``deploy_engine/program/replacement.py``), inputs checked against botocore's service models
(``test_botocore_models.py``: its plans declare the kind and its MAPPING covers one of the AWS
types the component declares), and its docs (docs/format.md's kind, variable and usage-key
tables, docs/catalog.md's size table, docs/deploy.md's component table). The docs are read from
``docs`` (default: this tree's), so a copy of the tree (tests/kindtree.py) is checked against
its own pages.

``test_a_kind_alone_in_the_registry_is_refused`` adds a kind to a copy of the registry alone
(tests/kindtree.py) and shows check and plan refusing it with a positioned error, the program
refusing to declare it, and :func:`missing_pieces` naming every piece it lacks.
``test_a_complete_kind_plans_hovers_completes_and_declares`` adds the same kind with every piece
docs/architecture.md's "a resource kind" row names (tests/kindtree.py's ``STREAM_PATCHES``: the
newcomer's recipe, applied to a copy of the packages, docs and tests) and shows it complete,
checked, priced, hovered, completed and declared.
"""

from __future__ import annotations

import csv
import json
import re
import sys
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pulumi_aws", reason="the components are Pulumi programs (the [deploy] extra)")
pytest.importorskip("botocore.session", reason="botocore carries the AWS API shapes")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


class _Recording(dict):
    """A usage mapping that records which keys a kind's quantities ask it for (``Sizing.used``
    reads ``.get``, ``Sizing.note`` and the optional lines test ``in``); it holds nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key, default=None):  # type: ignore[override]
        self.asked.add(key)
        return default

    def __contains__(self, key) -> bool:
        self.asked.add(key)
        return False


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


def missing_pieces(catalog: Any, docs: Path = DOCS) -> dict[str, list[str]]:
    """Kind name -> every piece it lacks (empty lists left out), its docs read from ``docs``
    (default: this tree's docs/). Imports the program (Pulumi)."""
    from deploy_engine.program import COMPONENTS
    from deploy_engine.program.replacement import REPLACING, fixed_name
    from deploy_engine.pricelist.selectors import selector_for
    from deploy_engine.resources import declared_resources
    from runway_core.kinds import REGISTRY, Sizing
    from runway_core.model import ENGINE_MODELS
    from runway_core.planner import engine_defaults
    from runway_core.usage import usage_keys
    from test_botocore_models import MAPPING, plans
    from test_program_mocks import NETWORK, entry, make_plan

    fmt = (docs / "format.md").read_text(encoding="utf-8")
    kinds_table = _section(fmt, "### Resource kinds")
    variables_table = _section(fmt, "## Uses and injected variables")
    usage_table = _section(fmt, "## Usage file")
    cat_doc = (docs / "catalog.md").read_text(encoding="utf-8")
    components_table = _section((docs / "deploy.md").read_text(encoding="utf-8"), "## What the program declares")
    replacement_table = _section(components_table, "### Replacement safety")
    rw120_row, rw120_section = _rw120_kinds((docs / "diagnostics.md").read_text(encoding="utf-8"))
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
        elif kind.resource and "version" in ENGINE_MODELS[name].model_fields and not kind.upgraded_in_place_by:
            missing.append("the service that upgrades its engine version in place (Kind.upgraded_in_place_by, for RW192)")
        if kind.size_fields is None or kind.quantities is None:
            missing.append("prices in every catalogue region (catalog/prices.csv) and their Price List selectors")
        else:
            # What its quantities ask for with the packaged sizes: every size, flavor and
            # boolean engine option (FIFO or not, proxy or not...), each priced in every region.
            asked: set[str] = set()
            usage = _Recording()
            for engine in _engine_variants(kind, ENGINE_MODELS.get(name), engine_defaults):
                for s in catalog.sizes(name):
                    cap = catalog.capacity(name, s, kind.flavor_of(engine))
                    probe = entry(f"probe-{name}", name, s, engine=engine) if kind.resource else entry(f"probe-{name}", name, s)
                    _c, specs = kind.quantities(Sizing(cap, probe.engine, catalog.hours_per_month, catalog.environment, 1, probe, usage))
                    asked.update(spec[0] for spec in specs)
            declared_usage = {k.key for k in usage_keys(name)}
            if not declared_usage and not kind.billed_by:
                missing.append("the unit it is billed by (Kind.billed_by: it has no usage keys, and RW202 says what it follows)")
            unread = sorted(usage.asked - declared_usage)
            if unread:
                missing.append(f"usage keys its quantities read (runway_core/usage.py USAGE_KEYS): {', '.join(unread)}")
            undocumented = sorted(k for k in usage.asked & declared_usage
                                  if not re.search(rf"^\| {re.escape(name)} \| `{re.escape(k)}` \|", usage_table, re.M))
            if undocumented:
                missing.append(f'docs/format.md "Usage file" rows: {", ".join(undocumented)}')
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
                children = [r for r in doc["resources"] if r.get("parent") == own[0]["urn"]]
                types = {r["type"] for r in children}
                if not types & mapped_types:
                    missing.append(f"botocore-checked inputs (test_botocore_models.MAPPING) of one of {', '.join(sorted(types))}")
                fixed = sorted({r["type"] for r in children if fixed_name(r["inputs"])})
                unsafe = [typ for typ in fixed if typ not in REPLACING]
                if unsafe:
                    missing.append(f"REPLACING rows (deploy_engine/program/replacement.py) of its fixed-name {', '.join(unsafe)}")
                undocumented = [typ for typ in fixed if f"| `{typ}` |" not in replacement_table]
                if undocumented:
                    missing.append(f'docs/deploy.md "Replacement safety" rows of its fixed-name {", ".join(undocumented)}')
        if name not in checked_kinds:
            missing.append("a plan of test_botocore_models.plans() declaring it (inputs checked against botocore)")
        if kind.resource and not re.search(rf"^\| `{re.escape(name)}` \|", kinds_table, re.M):
            missing.append('docs/format.md "Resource kinds" row')
        if not re.search(rf"^\| {re.escape(name)} \|", variables_table, re.M):
            missing.append('docs/format.md "Uses and injected variables" row')
        if not re.search(rf"^## {re.escape(name)} ", cat_doc, re.M):
            missing.append("docs/catalog.md size table section")
        if kind.resource and (name not in rw120_row or name not in rw120_section):
            missing.append('docs/diagnostics.md RW120 row and section (the kinds a resource may have)')
        if f"`{kind.component}`" not in components_table:
            missing.append(f'docs/deploy.md "What the program declares" row naming {kind.component}')
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
from pathlib import Path
sys.path[1:1] = [sys.argv[1], sys.argv[2]]
from runway_core.catalog import load_catalog
from test_kinds import missing_pieces
print(json.dumps(missing_pieces(load_catalog(), Path(sys.argv[3]))))
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

    pieces = run_python(tree, _PIECES, str(ROOT / "tests" / "deploy"), str(ROOT / "tests"), str(DOCS))
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
        "docs/diagnostics.md RW120 row and section (the kinds a resource may have)",
        'docs/deploy.md "What the program declares" row naming runway:aws:Stream',
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


# --------------------------------------------------------------------------------------
# A complete kind (tests/kindtree.py's recipe): plans, hovers, completes and declares
# --------------------------------------------------------------------------------------

_STREAM_RUNWAY = """runway: 1
product: clicks
resources:
  clickstream:
    kind: stream
    size: {production: medium}
workloads:
  api:
    image: example/api@sha256:%s
    reason: no-managed-fit, the product's own API
    port: 8080
    health: {path: /health}
    uses: [clickstream]
environments:
  dev:
    limits: {monthly: 100}
  production:
    limits: {monthly: 500}
""" % ("ab" * 32)

_EDITOR_AND_PROGRAM = """
import json, os, sys
sys.path[1:1] = [sys.argv[1]]
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.ide.completion import completions_at
from runway_core.ide.hover import hover_at
from runway_core.positions import LineIndex, Position
from deploy_engine.resources import declared_resources
from test_program_mocks import NETWORK
root = sys.argv[2]
catalog = load_catalog()
text = open(root, encoding="utf-8").read()

def offered(old, new):
    marked = text.replace(old, new, 1)
    at = LineIndex(marked.replace("|", "")).position(marked.index("|"))
    an = analyze(root, catalog, lambda p: marked.replace("|", "") if os.path.samefile(p, root) else open(p, encoding="utf-8").read())
    return [[c.label, c.detail] for c in completions_at(an, root, at)]

an = analyze(root, catalog)
doc = declared_resources(an.plans["production"], product="clicks", region="us-east-1", network=NETWORK)
print(json.dumps({
    "hover": hover_at(an, root, Position(3, 3)).markdown,
    "kinds": offered("kind: stream", "kind: |"),
    "sizes": offered("size: {production: medium}", "size: |"),
    "declared": [[r["type"], r["inputs"]] for r in doc["resources"]],
}))
"""


def test_a_complete_kind_plans_hovers_completes_and_declares(tmp_path: Path):
    """The newcomer's recipe (tests/kindtree.py's ``STREAM_COMPLETE`` and ``STREAM_PATCHES``: every
    place docs/architecture.md's "a resource kind" row names, and nothing else) adds the kind
    ``stream`` (Kinesis Data Streams, provisioned shards) to a copy of the packages, docs and
    kind tests; in fresh interpreters on that copy the kind is complete, checks, plans with
    its own price keys, hovers with its monthly cost, is offered as a kind with its sizes, and is
    declared under Pulumi's mock monitor with its own component token."""
    sys.path.insert(0, str(ROOT / "tests"))
    from kindtree import cli, run_python, tree_with_complete_kind

    tree = tree_with_complete_kind(tmp_path / "tree")
    product = tmp_path / "product"
    product.mkdir()
    (product / "runway.yaml").write_text(_STREAM_RUNWAY, encoding="utf-8")

    pieces = run_python(tree, _PIECES, str(tree / "tests" / "deploy"), str(tree / "tests"), str(tree / "docs"))
    assert pieces.returncode == 0, pieces.stderr
    assert json.loads(pieces.stdout) == {}

    check = cli(tree, "check", str(product), "--no-summary", cwd=product)
    assert check.returncode == 0, check.stdout + check.stderr

    # The oracle: the recipe's own rows (the copy's sizes.toml and prices.csv), multiplied here.
    sizes = tomllib.loads((tree / "catalog" / "sizes.toml").read_text(encoding="utf-8"))["stream"]
    prices = {(r["key"], region): Decimal(r["usd"]) for r in csv.DictReader((tree / "catalog" / "prices.csv").open(encoding="utf-8"))
              for region in r["region"].split(";")}
    def expected(size: str) -> Decimal:
        row = sizes[size]
        return (row["shards"] * 730 * prices["kinesis:shard-hour", "us-east-1"]
                + row["put_payload_units_millions"] * prices["kinesis:put-payload-units", "us-east-1"]).quantize(Decimal("0.01"))

    plan = cli(tree, "plan", str(product), "--format", "json", "--no-summary", cwd=product)
    assert plan.returncode == 0, plan.stderr
    envs = {e["name"]: e for e in json.loads(plan.stdout, parse_float=Decimal)["environments"]}
    monthly = {}
    for env, size in (("dev", "small"), ("production", "medium")):
        assert envs[env]["verdict"] == "ok"
        item = next(i for i in envs[env]["items"] if i["name"] == "clickstream")
        assert item["size"] == size and item["capacity"]["shards"] == sizes[size]["shards"]
        assert {li["price_key"] for li in item["line_items"]} == {"kinesis:shard-hour", "kinesis:put-payload-units"}
        assert item["monthly_usd"] == expected(size) > 0
        monthly[env] = item["monthly_usd"]

    editor = run_python(tree, _EDITOR_AND_PROGRAM, str(tree / "tests" / "deploy"), str(product / "runway.yaml"))
    assert editor.returncode == 0, editor.stderr
    seen = json.loads(editor.stdout)
    assert "**stream (Kinesis Data Streams)**" in seen["hover"]
    row = next(line for line in seen["hover"].splitlines() if line.startswith("| monthly "))
    assert [c.strip() for c in row.strip("|").split("|")][1:] == [f"${monthly['dev']:.2f}", f"${monthly['production']:.2f}"]
    assert ["stream", "Amazon Kinesis data stream (provisioned shards)"] in seen["kinds"]
    assert {label: detail for label, detail in seen["sizes"]} == {
        s: f"${expected(s):,}/mo in dev" for s in ("small", "medium", "large")}
    declared = {typ: inputs for typ, inputs in seen["declared"]}
    assert "runway:aws:Stream" in declared
    assert declared["aws:kinesis/stream:Stream"]["shardCount"] == sizes["medium"]["shards"]
    assert declared["aws:kinesis/stream:Stream"]["name"] == "clicks-production-clickstream"

    # The component's pulumi_aws classes are the ones _aws.py's USED lists (none loaded whole).
    slim = run_python(tree, _SLIM, str(tree / "tests" / "deploy"))
    assert slim.returncode == 0, slim.stderr
    assert json.loads(slim.stdout) == {"loaded whole": [], "not in USED": []}


def _rw120_kinds(page: str) -> tuple[list[str], list[str]]:
    """The kinds docs/diagnostics.md's RW120 row and its section name, in their order."""
    row = next(line for line in page.splitlines() if line.startswith("| RW120 |"))
    section = page.split("### RW120", 1)[1].split("```", 1)[0]
    in_row = re.search(r"a kind that is not ([a-z, ]+) \|", row).group(1)
    listed = section.split("not", 1)[1]  # "... key that is not `postgres`, `queue` ... or `bucket`."
    return [k.strip() for k in in_row.split(",")], re.findall(r"`([a-z]+)`", listed)


def test_the_diagnostics_page_names_the_registrys_kinds_for_rw120():
    """docs/diagnostics.md's RW120 row and section name exactly the resource kinds of the
    registry, so a kind added there cannot leave the page's list short (issue 21)."""
    from runway_core.kinds import RESOURCE_KINDS

    row, section = _rw120_kinds((DOCS / "diagnostics.md").read_text(encoding="utf-8"))
    assert row == list(RESOURCE_KINDS) and section == list(RESOURCE_KINDS)


def test_the_architecture_row_names_every_file_the_recipe_patches():
    """docs/architecture.md's "a resource kind" row names each file tests/kindtree.py's recipe
    touches (a new module by its folder), so a place a check comes to require cannot be missing
    from the row a newcomer follows (issue 21: "adds a kind without a grep")."""
    sys.path.insert(0, str(ROOT / "tests"))
    from kindtree import STREAM_PATCHES, TESTS

    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| a resource kind |"))
    named = {p.path if p.anchor is not None else p.path.rsplit("/", 1)[0] + "/" for p in STREAM_PATCHES}
    named |= {"runway_core/kinds.py", *TESTS}

    def in_row(path: str) -> bool:
        if path.startswith("docs/"):
            return f"]({path[len('docs/'):]})" in row  # a link: [format.md](format.md)
        return f"`{path}`" in row

    assert sorted(p for p in named if not in_row(p)) == []
