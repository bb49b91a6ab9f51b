"""Replacement safety and the changes AWS refuses (issue 24), under Pulumi mocks.

The oracle for "this input replaces the resource" is terraform-provider-aws's schema, which
pulumi-aws bridges (a ``ForceNew: true`` attribute is a replace-on-change input); the files
read are named per row in ``deploy_engine/program/replacement.py`` (for example
``internal/service/rds/proxy.go``: ``vpc_subnet_ids`` ``ForceNew: true``, ``name`` not, since
ModifyDBProxy takes ``NewDBProxyName``). Pulumi's default replacement creates the new resource
before deleting the old one, so a replacement under the same fixed name fails at create.

The scenario runs the ordinary edits of issue 24 (subnets, region, storage, rename, environment
name, architecture) on two runways and, for each, compares the declared resources before and
after: every fixed-name resource whose replacing input changes is protected as the table says,
no new resource takes the physical name of one that is going away, and every change AWS would
refuse (a smaller ``allocatedStorage``, a lower engine version, a region move of data) was a
check-time diagnostic first.
"""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("pulumi", reason="pulumi is not installed: the Pulumi program tests need the [deploy] extra")
pytest.importorskip("pulumi_aws", reason="pulumi_aws is not installed: the Pulumi program tests need the [deploy] extra")

from deploy_engine.program.replacement import PROTECTIONS, REPLACING, fixed_name  # noqa: E402
from deploy_engine.resources import declared_resources  # noqa: E402
from deploy_engine.settings import NetworkSettings  # noqa: E402
from runway_core.analysis import analyze  # noqa: E402
from runway_core.changes import refused_changes  # noqa: E402
from runway_core.diagnostics import Severity  # noqa: E402
from runway_core.plan_diff import side_of_json  # noqa: E402
from runway_core.planner import Plan, plan_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_MD = ROOT / "docs" / "deploy.md"
DIGEST = "@sha256:" + "ab" * 32
VPC = "vpc-0a1b2c3d4e5f60718"
PRIVATE = ("subnet-0a000000000000001", "subnet-0a000000000000002")
PUBLIC = ("subnet-0b000000000000001", "subnet-0b000000000000002")
NETWORK = NetworkSettings(VPC, PRIVATE, PUBLIC, public_domain="shop.example.com", hosted_zone_id="Z0123456789ABCDEFGHIJ")

SHOP = f"""\
runway: 1
product: shop
region: us-east-1
environments:
  dev:
    limits: {{monthly: 20000}}
  production:
    limits: {{monthly: 20000}}
resources:
  main-db:
    kind: postgres
    engine: {{version: "17", proxy: true}}
    size: {{production: large}}
  ledger:
    kind: postgres
    engine: {{flavor: aurora, version: "16", proxy: true}}
  sessions:
    kind: cache
    size: {{production: medium}}
  jobs:
    kind: queue
    engine: {{fifo: true, dead_letter: {{max_receives: 5}}}}
  events:
    kind: topic
    engine: {{fifo: true}}
  uploads:
    kind: bucket
workloads:
  api:
    image: example/api{DIGEST}
    reason: no-managed-fit, the product's own API
    port: 8080
    expose: public
    health: {{path: /health}}
    uses: [main-db, jobs, events, uploads, sessions]
  worker:
    image: example/worker{DIGEST}
    reason: no-managed-fit, the product's own worker
    port: 9000
    health: {{command: [/bin/healthy]}}
    uses: [ledger, jobs]
"""


def _runway(tmp_path: Path, name: str) -> Path:
    """A copy of runway ``name`` (``orders``: the example; ``shop``: above) under ``tmp_path``."""
    dest = tmp_path / name
    if name == "orders":
        shutil.copytree(ROOT / "examples" / "orders", dest)
    else:
        dest.mkdir()
        (dest / "runway.yaml").write_text(SHOP)
    return dest / "runway.yaml"


def _declare(an, env: str, network: NetworkSettings = NETWORK) -> list[dict[str, Any]]:
    plan = an.plans[env]
    return declared_resources(plan, product=an.spec.product, region=an.spec.region, network=network)["resources"]


def _side(an):
    doc = plan_json(Plan(an.spec.product, an.spec.region, tuple(an.plans.values()), an.catalog.origin))
    return side_of_json(json.loads(json.dumps(doc), parse_float=Decimal))


def _fixed(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["type"], r["name"]): r for r in records if r["type"].startswith("aws:") and fixed_name(r["inputs"])}


def _identity(typ: str, inputs: dict[str, Any]) -> tuple[str, str]:
    """What AWS keeps unique: the name, and for a `parent-follows` row the name in its parent
    (the other replacing inputs: the role, the namespace, the hosted zone)."""
    row = REPLACING[typ]
    scope = [json.dumps(inputs.get(i), sort_keys=True) for i in row.inputs if i != row.name_input] if row.protection == "parent-follows" else []
    return typ, json.dumps([inputs[row.name_input], *scope])


# --------------------------------------------------------------------------------------
# The table: docs/deploy.md == REPLACING == what the program declares
# --------------------------------------------------------------------------------------


def _docs_table() -> dict[str, tuple[str, tuple[str, ...], str, str]]:
    text = DEPLOY_MD.read_text(encoding="utf-8")
    section = text.split("### Replacement safety", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`aws:"):
            inputs = tuple(re.findall(r"`([^`]+)`", cells[2]))
            rows[cells[0].strip("`")] = (cells[1].strip("`"), inputs, cells[3].strip("`"), cells[4])
    return rows


def test_docs_replacement_table_is_the_programs_table():
    expected = {t: (r.name_input, r.inputs, r.source.split(" ", 1)[1], r.protection) for t, r in REPLACING.items()}
    assert _docs_table() == expected
    assert all(r.protection in PROTECTIONS for r in REPLACING.values())


def _every_kind(catalog, env: str) -> list[dict[str, Any]]:
    """One item of every kind of the registry (tests/deploy/test_kinds.py's probes), declared:
    a kind added to runway_core/kinds.py is in the guard below without editing the runways."""
    from runway_core.kinds import REGISTRY
    from test_program_mocks import entry, make_plan

    estimated = [k for k in REGISTRY if k.estimated]
    probes = [entry(f"probe-{k.name}", k.name, in_env=env) for k in estimated]
    creds = {p.name: "probe-password-0123456789" for p, k in zip(probes, estimated) if k.credentials}
    return declared_resources(make_plan(catalog, *probes, env=env), product="acme", region="us-east-1", network=NETWORK,
                              credentials=creds)["resources"]


@pytest.mark.parametrize("env", ["dev", "production"])
def test_every_fixed_name_resource_the_program_declares_is_in_the_table(tmp_path, catalog, env):
    declared: dict[str, list[dict[str, Any]]] = {}
    for name in ("orders", "shop"):
        an = analyze(str(_runway(tmp_path, name)), catalog)
        for r in _fixed(_declare(an, env)).values():
            declared.setdefault(r["type"], []).append(r)
    for r in _fixed(_every_kind(catalog, env)).values():
        declared.setdefault(r["type"], []).append(r)
    assert set(declared) == set(REPLACING), "a fixed-name resource type without a row, or a row the program never declares"
    for typ, records in declared.items():
        row = REPLACING[typ]
        for r in records:
            assert fixed_name(r["inputs"]) == row.name_input, (typ, r["name"])
            missing = [i for i in row.inputs if i not in r["inputs"]]
            assert not missing, f"{typ} {r['name']}: the table lists inputs the program does not set: {missing}"
            assert r["options"]["delete_before_replace"] is (row.protection == "delete-before-replace"), (typ, r["name"])


# --------------------------------------------------------------------------------------
# The scenario: ordinary edits on two runways
# --------------------------------------------------------------------------------------

Edit = Callable[[str], str]


def _sub(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


#: (runway, edit name, text edit or None, network after, the codes the edit must raise at check time in production)
SCENARIOS: list[tuple[str, str, Edit | None, NetworkSettings, set[str]]] = [
    ("shop", "subnets", None, NetworkSettings(VPC, ("subnet-0c000000000000001", "subnet-0c000000000000002"), PUBLIC,
                                              public_domain="shop.example.com", hosted_zone_id="Z0123456789ABCDEFGHIJ"), set()),
    ("orders", "subnets", None, NetworkSettings(VPC, ("subnet-0c000000000000001",) + PRIVATE[1:], PUBLIC), set()),
    ("shop", "region", _sub("region: us-east-1", "region: eu-west-1"), NETWORK, {"RW190"}),
    ("orders", "region", _sub("region: us-east-1", "region: eu-west-1"), NETWORK, {"RW190"}),
    ("shop", "shrink", _sub("size: {production: large}", "size: {production: medium}"), NETWORK, {"RW191"}),
    ("orders", "shrink", _sub("      production: large\n", "      production: medium\n"), NETWORK, {"RW191"}),
    ("shop", "downgrade", _sub('version: "17"', 'version: "16"'), NETWORK, {"RW192"}),
    ("shop", "rename", lambda t: t.replace("  worker:", "  jobs-worker:"), NETWORK, set()),
    ("orders", "rename", lambda t: t.replace("  metabase:", "  bi:"), NETWORK, set()),
    ("shop", "architecture", _sub("    port: 9000\n", "    port: 9000\n    platform: linux/amd64\n"), NETWORK, set()),
    ("shop", "health path", _sub("health: {command: [/bin/healthy]}", "health: {path: /healthz}"), NETWORK, set()),
    ("shop", "storage pinned", _sub('engine: {version: "17", proxy: true}\n    size: {production: large}',
                                     'engine: {version: "17", proxy: true, storage_gb: 250}\n    size: {production: medium}'), NETWORK, set()),
]


@pytest.mark.parametrize("runway, edit_name, edit, network, expected", SCENARIOS, ids=[f"{s[0]}-{s[1]}" for s in SCENARIOS])
def test_ordinary_edits_never_replace_into_a_fixed_name_and_refusals_come_first(tmp_path, catalog, runway, edit_name, edit, network, expected):
    env = "production"
    path = _runway(tmp_path, runway)
    before_an = analyze(str(path), catalog)
    before = _declare(before_an, env)
    if edit is not None:
        path.write_text(edit(path.read_text()))
    after_an = analyze(str(path), catalog)
    assert not [d for d in after_an.all_diagnostics() if d.severity == Severity.ERROR and d.code not in ("RW140",)], \
        "the edit itself is a valid runway"
    after = _declare(after_an, env, network)
    refused = [d for d in refused_changes(after_an, _side(before_an), "the deployed plan")
               if d.data["environment"] == env and d.severity == Severity.ERROR]
    assert {d.code for d in refused} == expected
    assert all(d.range is not None and d.file == str(path) for d in refused)
    if refused:
        return  # refused at check time: nothing is deployed, so nothing is replaced
    assert before_an.spec.region == after_an.spec.region  # a region move is always refused above
    b, a = _fixed(before), _fixed(after)
    going = {_identity(t, r["inputs"]) for (t, n), r in b.items() if (t, n) not in a}
    problems = []
    for key, new in a.items():
        typ, row = key[0], REPLACING[key[0]]
        physical = new["inputs"][row.name_input]
        old = b.get(key)
        if old is None:
            # A new logical resource: its name must not be one a resource going away still holds.
            if _identity(typ, new["inputs"]) in going and typ != "aws:ecs/taskDefinition:TaskDefinition":
                problems.append(f"{key}: created under {physical!r}, which a deleted resource still holds")
            continue
        changed = [i for i in row.inputs if json.dumps(old["inputs"].get(i), sort_keys=True) != json.dumps(new["inputs"].get(i), sort_keys=True)]
        if not changed:
            continue
        same_name = old["inputs"][row.name_input] == physical
        if row.protection == "constant":
            problems.append(f"{key}: replacing input(s) {changed} changed on a `constant` row")
        elif row.protection == "name-follows" and same_name:
            problems.append(f"{key}: replacing input(s) {changed} changed but its name {physical!r} did not")
        elif row.protection == "delete-before-replace" and not new["options"]["delete_before_replace"]:
            problems.append(f"{key}: replaced without delete_before_replace")
        elif row.protection == "parent-follows" and same_name and row.name_input in changed:
            problems.append(f"{key}: parent-follows but the name itself changed in place")
    # Changes AWS refuses in place, never refused above: a smaller allocated storage.
    for key, new in a.items():
        old = b.get(key)
        if old is not None and key[0] == "aws:rds/instance:Instance":
            if new["inputs"]["allocatedStorage"] < old["inputs"]["allocatedStorage"]:
                problems.append(f"{key}: allocatedStorage shrinks and nothing refused it")
    assert problems == [], "\n".join(problems)
    if edit_name == "subnets" and runway == "shop":
        proxies = [(b[k]["inputs"]["name"], a[k]["inputs"]["name"]) for k in a if k[0] == "aws:rds/proxy:Proxy"]
        assert proxies and all(x != y for x, y in proxies)  # the found case: a new name beside the old
    if edit_name == "architecture":
        # A new task definition revision on X86_64 (the family's next revision), priced as x86.
        worker = next(r for r in after if r["name"] == "production-worker-task-definition")
        assert worker["inputs"]["runtimePlatform"]["cpuArchitecture"] == "X86_64"
        assert {li.price_key for li in after_an.plans[env].item("worker").line_items} >= {"fargate:x86:vcpu", "fargate:x86:memory"}
    if edit_name == "health path":
        # An internal workload moving to `health.path` gains the health probe sidecar: a new task
        # definition revision in the same family, and the Cloud Map service (whose
        # healthCheckCustomConfig forces a new one) keeps its configuration, so it stays in place.
        def of(records: list[dict[str, Any]], name: str) -> dict[str, Any]:
            return next(r for r in records if r["name"] == name)["inputs"]
        old_td, new_td = of(before, "production-worker-task-definition"), of(after, "production-worker-task-definition")
        assert old_td["family"] == new_td["family"] and (old_td["cpu"], old_td["memory"]) == (new_td["cpu"], new_td["memory"])
        assert [d["name"] for d in json.loads(new_td["containerDefinitions"])] == ["worker", "health-probe"]
        old_sd, new_sd = of(before, "production-worker-discovery"), of(after, "production-worker-discovery")
        assert {k: old_sd.get(k) for k in ("name", "dnsConfig", "healthCheckCustomConfig")} == \
            {k: new_sd.get(k) for k in ("name", "dnsConfig", "healthCheckCustomConfig")}
    if edit_name == "rename":
        # The old workload's log group is kept when it leaves the stack.
        logs = [r for r in before if r["type"] == "aws:cloudwatch/logGroup:LogGroup"]
        assert logs and all(r["options"]["retain_on_delete"] for r in logs)


@pytest.mark.parametrize("env_name, disposable", [("production", False), ("prod", False), ("preprod-eu-dr", False), ("dev", True)])
def test_protection_follows_the_disposable_property_not_the_name(tmp_path, catalog, env_name, disposable):
    path = _runway(tmp_path, "shop")
    path.write_text(SHOP.replace("  production:\n", f"  {env_name}:\n").replace("production:", f"{env_name}:") if env_name != "dev"
                    else SHOP.replace("  production:\n    limits: {monthly: 20000}\n", "").replace("{production: ", "{dev: "))
    an = analyze(str(path), catalog)
    records = _declare(an, env_name)
    protected = {r["type"] for r in records if r["options"]["protect"]}
    data = {"aws:rds/instance:Instance", "aws:rds/cluster:Cluster", "aws:rds/clusterInstance:ClusterInstance", "aws:s3/bucket:Bucket"}
    assert (protected == data) if not disposable else (protected == set())
    cache = next(r for r in records if r["type"] == "aws:elasticache/replicationGroup:ReplicationGroup")["inputs"]
    assert (cache["snapshotRetentionLimit"] > 0) is (not disposable) and cache["applyImmediately"] is disposable
    db = next(r for r in records if r["type"] == "aws:rds/instance:Instance")["inputs"]
    assert db["deletionProtection"] is (not disposable) and db["applyImmediately"] is disposable
    if not disposable:
        assert re.fullmatch(rf"shop-{re.escape(env_name)}-main-db-final-initial", db["finalSnapshotIdentifier"])


def test_preview_and_up_refuse_against_the_plan_of_the_last_succeeded_up(tmp_path, catalog):
    """preview/up always know what is deployed: the newest succeeded `up` receipt of the records
    store names its plan digest, and the reviewed plan `preview` stored under it is compared."""
    import types

    from deploy_engine.pipeline.guards import deployed_changes
    from deploy_engine.records.file_store import FileStore
    from deploy_engine.reviewed import store_reviewed_plan
    from deploy_engine.secrets import Redactor

    path = _runway(tmp_path, "shop")
    before = analyze(str(path), catalog)
    store = FileStore(path.parent)
    digest, _ = store_reviewed_plan(store, before.plans["production"], "shop", "us-east-1", Redactor())
    folder = path.parent / ".runway" / "receipts" / "production"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20261130T091502.123456Z.json").write_text(json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))
    (folder / "20261201T091502.123456Z.json").write_text(json.dumps({"command": "preview", "outcome": "succeeded", "plan_digest": "ef" * 32}))
    path.write_text(SHOP.replace("size: {production: large}", "size: {production: medium}"))
    after = analyze(str(path), catalog)
    said: list[str] = []
    run = types.SimpleNamespace(store=store, product="shop", env="production", analysis=after, err=said.append, redactor=Redactor(), command="up")
    refused = deployed_changes(run)
    assert len(refused) == 1 and refused[0].startswith("RW191: production: `main-db` allocated storage 250 -> 100 GB")
    assert digest[:12] in refused[0]
    run.analysis = before
    assert deployed_changes(run) == [] and said == []


def test_a_vpc_move_is_refused_before_pulumi_outside_disposable_environments(tmp_path, catalog):
    """The namespace is delete-before-replace, but an RDS or ElastiCache subnet group cannot move
    to another VPC in place and the databases would follow: `RUNWAY_VPC_ID` changed against the
    VPC the stack records (`environment_resources.vpc_id`) is refused (exit 1) unless disposable."""
    import types

    from deploy_engine.pipeline.credentials import VpcMove, check_vpc
    from deploy_engine.stack_outputs import state_from_outputs

    an = analyze(str(_runway(tmp_path, "shop")), catalog)
    outputs = _declare_outputs(an, "production")
    stored = state_from_outputs(outputs, ["main-db", "ledger"])
    assert stored.vpc_id == VPC
    moved = types.SimpleNamespace(network=NetworkSettings("vpc-0ffffffffffffffff", PRIVATE, PUBLIC))
    said: list[str] = []
    run = types.SimpleNamespace(plan=an.plans["production"], env="production", command="up", err=said.append)
    with pytest.raises(VpcMove, match="main-db, ledger, sessions would be created again"):
        check_vpc(run, stored, moved)
    check_vpc(run, stored, types.SimpleNamespace(network=NETWORK))  # the same VPC: nothing
    run.plan = an.plans["dev"]
    check_vpc(run, stored, moved)
    assert said and "created again" in said[0]


def _declare_outputs(an, env: str) -> dict[str, Any]:
    return declared_resources(an.plans[env], product=an.spec.product, region=an.spec.region, network=NETWORK)["outputs"]
