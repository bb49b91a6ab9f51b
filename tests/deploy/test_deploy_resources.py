"""``runway-deploy resources --format json``: the program's declared resources, checked for what
a real AWS account needs (issue 12, "Done when").

Two runways: ``examples/orders`` (copied, its one mistyped image digest fixed) and a runway of
our own with Aurora, a FIFO queue and two public workloads. Every assertion reads the JSON the
command prints: the real program run against Pulumi's mock monitor (deploy_engine.resources).
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pulumi", reason="`resources` runs the Pulumi program: needs the [deploy] extra")
pytest.importorskip("pulumi_aws", reason="`resources` runs the Pulumi program: needs the [deploy] extra")

from deploy_engine.cli import main  # noqa: E402
from deploy_engine.layout import HEALTH_PROBE_IMAGE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CERT = "arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0a1b2c3d4e5f60718",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0a000000000000001,subnet-0a000000000000002",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0b000000000000001,subnet-0b000000000000002",
    "RUNWAY_PUBLIC_DOMAIN": "example.com",
}
DIGEST = "@sha256:" + "cd" * 32

OWN = f"""\
runway: 1
product: shop
region: eu-west-1
environments:
  dev: {{}}
  production:
    limits: {{ monthly: 20000 }}
resources:
  ledger:
    kind: postgres
    engine: {{ flavor: aurora, version: "16" }}
    size: {{ production: medium }}
  orders:
    kind: queue
    engine: {{ fifo: true, dead_letter: {{ max_receives: 5 }} }}
  receipts:
    kind: bucket
workloads:
  web:
    image: example/web{DIGEST}
    port: 3000
    health: {{ path: /up }}
    uses: [ledger, orders]
    expose: public
    reason: "no-managed-fit: the storefront"
  admin:
    image: example/admin{DIGEST}
    port: 4000
    health: {{ path: /health }}
    uses: [ledger]
    expose: public
    reason: "no-managed-fit: the back office"
  worker:
    image: example/worker{DIGEST}
    port: 8080
    health: {{ command: ["/bin/ok"] }}
    uses: [ledger, orders, receipts]
    expose: internal
    reason: "no-managed-fit: order processing"
"""


@pytest.fixture(scope="module")
def orders(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("orders") / "orders"
    shutil.copytree(ROOT / "examples" / "orders", root)
    text = (root / "runway.yaml").read_text(encoding="utf-8")
    # examples/orders keeps one 63-digit digest on purpose (RW140 in the editor); fix it here.
    fixed = re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", text)
    assert fixed != text
    (root / "runway.yaml").write_text(fixed, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def own(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shop")
    (root / "runway.yaml").write_text(OWN, encoding="utf-8")
    return root


def resources(path: Path, env: str, extra: dict[str, str] | None = None, fmt: str = "json") -> tuple[int, Any, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["resources", str(path), "--env", env, "--format", fmt], stdout=out, stderr=err, environ={**NETWORK, **(extra or {})})
    doc = json.loads(out.getvalue()) if fmt == "json" and rc == 0 else out.getvalue()
    return rc, doc, err.getvalue()


def of_type(doc: dict[str, Any], typ: str) -> list[dict[str, Any]]:
    return [r for r in doc["resources"] if r["type"] == typ]


CASES = [("orders", "dev"), ("orders", "staging"), ("orders", "production"), ("own", "dev"), ("own", "production")]


@pytest.fixture(scope="module")
def docs(orders, own) -> dict[tuple[str, str], dict[str, Any]]:
    roots = {"orders": orders, "own": own}
    found = {}
    for name, env in CASES:
        rc, doc, err = resources(roots[name], env)
        assert rc == 0, err
        found[(name, env)] = doc
    return found


@pytest.mark.parametrize("case", CASES)
def test_no_ssm_parameter_and_no_placeholder_anywhere(docs, case):
    doc = docs[case]
    assert of_type(doc, "aws:ssm/parameter:Parameter") == []  # the Infisical sync creates them, with real values
    text = json.dumps(doc)
    assert "set-by-infisical-sync" not in text and "placeholder" not in text
    # Containers read every value by reference.
    for td in of_type(doc, "aws:ecs/taskDefinition:TaskDefinition"):
        container, *probe = json.loads(td["inputs"]["containerDefinitions"])
        assert all(set(s) == {"name", "valueFrom"} and s["valueFrom"].startswith("arn:aws:ssm:") for s in container["secrets"])
        # The health probe sidecar (internal health.path workloads) reads nothing at all.
        assert all("secrets" not in p and "environment" not in p for p in probe)


@pytest.mark.parametrize("case", CASES)
def test_every_service_waits_for_steady_state(docs, case):
    services = of_type(docs[case], "aws:ecs/service:Service")
    assert services and all(s["inputs"]["waitForSteadyState"] is True for s in services)
    assert all(s["inputs"]["deploymentCircuitBreaker"] == {"enable": True, "rollback": True} for s in services)


@pytest.mark.parametrize("case", CASES)
def test_every_aws_resource_has_a_runway_component_as_parent(docs, case):
    doc = docs[case]
    components = {r["urn"]: r["type"] for r in doc["resources"] if r["type"].startswith("runway:aws:")}
    aws_resources = [r for r in doc["resources"] if r["type"].startswith("aws:")]
    assert aws_resources
    for r in aws_resources:
        assert r["parent"] in components, (r["type"], r["name"], r["parent"])
        assert r["urn"].split("::")[2].startswith(components[r["parent"]] + "$")
    # Components sit at the stack root; the explicit provider too.
    assert all(r["parent"] is None for r in doc["resources"] if not r["type"].startswith("aws:"))
    (provider,) = of_type(doc, "pulumi:providers:aws")
    assert json.loads(provider["inputs"]["defaultTags"])["tags"]["managed-by"] == "runway"


@pytest.mark.parametrize("case", CASES)
def test_target_groups_have_no_fixed_name(docs, case):
    groups = of_type(docs[case], "aws:lb/targetGroup:TargetGroup")
    assert groups and all("name" not in g["inputs"] and "namePrefix" not in g["inputs"] for g in groups)


@pytest.mark.parametrize("case", CASES)
def test_every_postgres_allows_major_upgrades(docs, case):
    dbs = of_type(docs[case], "aws:rds/instance:Instance") + of_type(docs[case], "aws:rds/cluster:Cluster")
    assert dbs and all(d["inputs"]["allowMajorVersionUpgrade"] is True for d in dbs)


@pytest.mark.parametrize("case", CASES)
def test_secrets_are_masked_and_data_outside_disposable_environments_is_protected(docs, case):
    doc = docs[case]
    holders = of_type(doc, "aws:rds/instance:Instance") + of_type(doc, "aws:rds/cluster:Cluster")
    for d in holders:
        assert (d["inputs"].get("password") or d["inputs"].get("masterPassword")) == "[secret]"
    for v in of_type(doc, "aws:secretsmanager/secretVersion:SecretVersion"):
        assert v["inputs"]["secretString"] == "[secret]"
    # Issue 24: protection is a property (`disposable`, dev by default), not the name `production`.
    production = case[1] != "dev"
    protected = holders + of_type(doc, "aws:rds/clusterInstance:ClusterInstance") + of_type(doc, "aws:s3/bucket:Bucket")
    assert protected and all(r["options"]["protect"] is production for r in protected)
    topics = of_type(doc, "aws:sns/topic:Topic")
    assert all(t["inputs"]["kmsMasterKeyId"] == "alias/aws/sns" for t in topics)
    for cache in of_type(doc, "aws:elasticache/replicationGroup:ReplicationGroup"):
        assert cache["inputs"]["snapshotRetentionLimit"] == (7 if production else 0)


@pytest.mark.parametrize("name", ["orders", "own"])
def test_alb_security_group_description_is_the_same_with_and_without_a_certificate(orders, own, name):
    root = {"orders": orders, "own": own}[name]
    rc1, plain, err1 = resources(root, "dev")
    rc2, https, err2 = resources(root, "dev", {"RUNWAY_CERTIFICATE_ARN": CERT})
    assert rc1 == rc2 == 0, err1 + err2
    (a,) = [r for r in of_type(plain, "aws:ec2/securityGroup:SecurityGroup") if r["name"] == "dev-alb-sg"]
    (b,) = [r for r in of_type(https, "aws:ec2/securityGroup:SecurityGroup") if r["name"] == "dev-alb-sg"]
    assert a["inputs"]["description"] == b["inputs"]["description"]
    assert sorted(i["fromPort"] for i in a["inputs"]["ingress"]) == [80]
    assert sorted(i["fromPort"] for i in b["inputs"]["ingress"]) == [80, 443]
    # And the default action answers 404 either way: unknown host names reach no workload.
    for doc in (plain, https):
        forwarding = [listener for listener in of_type(doc, "aws:lb/listener:Listener") if listener["inputs"]["defaultActions"][0]["type"] != "redirect"]
        assert len(forwarding) == 1 and forwarding[0]["inputs"]["defaultActions"][0]["fixedResponse"]["statusCode"] == "404"


def _priorities(doc: dict[str, Any]) -> dict[str, int]:
    return {r["name"].rsplit("-listener-rule", 1)[0].split("-", 1)[1]: r["inputs"]["priority"] for r in of_type(doc, "aws:lb/listenerRule:ListenerRule")}


def test_removing_or_adding_a_public_workload_leaves_the_others_priorities_unchanged(own, tmp_path):
    rc, before, err = resources(own, "production")
    assert rc == 0, err
    start = _priorities(before)
    assert set(start) == {"web", "admin"} and len(set(start.values())) == 2
    # Remove the first public workload (web): admin keeps its priority.
    text = OWN
    without_web = text[: text.index("  web:")] + text[text.index("  admin:"):]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "runway.yaml").write_text(without_web, encoding="utf-8")
    rc, after, err = resources(tmp_path / "a", "production")
    assert rc == 0, err
    assert _priorities(after) == {"admin": start["admin"]}
    # Insert a new public workload before the others: neither moves.
    extra = (f"  api:\n    image: example/api{DIGEST}\n    port: 5000\n    health: {{ path: /h }}\n    expose: public\n"
             '    reason: "no-managed-fit: the public API"\n')
    with_api = text.replace("workloads:\n", "workloads:\n" + extra, 1)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "runway.yaml").write_text(with_api, encoding="utf-8")
    rc, added, err = resources(tmp_path / "b", "production")
    assert rc == 0, err
    got = _priorities(added)
    assert {k: got[k] for k in start} == start and got["api"] not in start.values()


def test_text_format_lists_every_resource_under_its_component(orders):
    rc, text, err = resources(orders, "production", fmt="text")
    assert rc == 0, err
    lines = text.splitlines()
    assert lines[0].startswith("resources of production: 63 declared")
    assert "    aws:rds/instance:Instance  production-main-db-instance  [protect; ignore_changes=password]" in lines
    assert any(line.startswith("  runway:aws:Workload  production-zitadel") for line in lines)


def test_stand_ins_when_the_network_is_not_configured(orders):
    out, err = io.StringIO(), io.StringIO()
    rc = main(["resources", str(orders), "--env", "dev", "--format", "json"], stdout=out, stderr=err, environ={})
    assert rc == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    assert doc["stand_ins"] == ["RUNWAY_VPC_ID", "RUNWAY_PRIVATE_SUBNET_IDS", "RUNWAY_PUBLIC_SUBNET_IDS"]
    assert "stand-in values used" in err.getvalue()


def test_invalid_runway_and_over_cap_declare_nothing(tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "runway.yaml").write_text(ROOT.joinpath("examples", "orders", "runway.yaml").read_text(), encoding="utf-8")
    rc, _, err = resources(tmp_path / "bad", "dev")
    assert rc == 1 and "nothing was declared" in err
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "runway.yaml").write_text(OWN.replace("limits: { monthly: 20000 }", "limits: { monthly: 10 }"), encoding="utf-8")
    rc, _, err = resources(tmp_path / "over", "production")
    assert rc == 2 and "over its cap" in err
    bad_network = {"RUNWAY_VPC_ID": "not-a-vpc"}
    rc, _, err = resources(tmp_path / "over", "dev", bad_network)
    assert rc == 3 and "RUNWAY_VPC_ID" in err


def test_a_rotation_forces_a_new_deployment_of_every_consumer_and_only_of_them(orders, catalog):
    """ECS reads SSM only when a task starts: a rotated password (or a proxy added or removed,
    which rotates too) must give each consumer a new task definition revision, hence a new
    deployment; a workload that does not use the database keeps its revision."""
    from deploy_engine.resources import declared_resources
    from deploy_engine.secrets import KnownDatabase, plan_credentials
    from deploy_engine.settings import load_network_settings
    from runway_core.analysis import analyze

    plan = analyze(str(orders / "runway.yaml"), catalog).plans["production"]
    known = {"main-db": KnownDatabase("rds", True, ("db.example", 5432), credential_version="v-0123456789ab")}
    steady = plan_credentials(plan, known, generate=True)
    rotated = plan_credentials(plan, known, generate=True, rotate=True)
    assert steady.versions == {"main-db": "v-0123456789ab"} and steady.sources == {"main-db": "unchanged"}
    assert rotated.sources == {"main-db": "rotated"} and re.fullmatch(r"v-[0-9a-f]{12}", rotated.versions["main-db"])
    assert rotated.versions != steady.versions
    network = load_network_settings(NETWORK)

    def task_definitions(cplan) -> dict[str, str]:
        doc = declared_resources(plan, product="orders", region="us-east-1", network=network, credential_versions=cplan.versions,
                                 set_passwords=cplan.set_passwords)
        return {r["name"]: r["inputs"]["containerDefinitions"] for r in of_type(doc, "aws:ecs/taskDefinition:TaskDefinition")}

    before, after = task_definitions(steady), task_definitions(rotated)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"production-metabase-task-definition", "production-zitadel-task-definition"}  # the users of main-db
    (label,) = {json.loads(after["production-zitadel-task-definition"])[0]["dockerLabels"]["runway.credentials"]}
    assert label == f"main-db={rotated.versions['main-db']}"


@pytest.mark.parametrize("health, code", [
    ("{ path: /h, interval_s: 5, timeout_s: 5 }", "RW148"),
    ('{ command: ["/bin/ok"], timeout_s: 61 }', "RW149"),
])
def test_health_values_aws_refuses_are_errors_in_check(tmp_path, health, code):
    text = OWN.replace("health: { path: /up }", f"health: {health}", 1)
    (tmp_path / "runway.yaml").write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    rc = main(["check", str(tmp_path), "--format", "json"], stdout=out, stderr=err, environ={})
    assert rc == 1
    codes = [d["code"] for d in json.loads(out.getvalue())["diagnostics"] if d["severity"] == "error"]
    assert codes == [code]
    rc, _, err = resources(tmp_path, "dev")
    assert rc == 1 and "nothing was declared" in err


def test_internal_path_timeout_over_ecs_limit_is_rw149_and_public_one_is_not(tmp_path):
    """An internal workload's `path` check runs as an ECS container health check (the health
    probe), so ECS's 60 s timeout limit applies to it (RegisterTaskDefinition refuses more;
    Amazon ECS API Reference, `HealthCheck`); a public one is the ALB's, which allows 120."""
    internal = OWN.replace('health: { command: ["/bin/ok"] }', "health: { path: /ok, interval_s: 90, timeout_s: 61 }", 1)
    (tmp_path / "runway.yaml").write_text(internal, encoding="utf-8")
    out = io.StringIO()
    assert main(["check", str(tmp_path), "--format", "json"], stdout=out, stderr=io.StringIO(), environ={}) == 1
    (d,) = [d for d in json.loads(out.getvalue())["diagnostics"] if d["severity"] == "error"]
    assert d["code"] == "RW149" and "worker" in d["message"] and d["range"]["start"]["line"] == internal.splitlines().index(
        next(line for line in internal.splitlines() if "timeout_s: 61" in line))
    public = OWN.replace("health: { path: /up }", "health: { path: /up, interval_s: 90, timeout_s: 61 }", 1)
    (tmp_path / "runway.yaml").write_text(public, encoding="utf-8")
    out = io.StringIO()
    main(["check", str(tmp_path), "--format", "json"], stdout=out, stderr=io.StringIO(), environ={})
    assert not [d for d in json.loads(out.getvalue())["diagnostics"] if d["severity"] == "error"]


@pytest.mark.parametrize("case", CASES)
def test_json_review_shows_platform_health_checks_and_protections_per_environment(docs, case):
    """`resources --format json` answers the reviewer's questions from what was declared
    (issue 24): each workload's platform and CPU architecture, which health checks replace a
    hung task, and each data resource's protections in this environment."""
    doc = docs[case]
    review = doc["review"]
    assert review["environment"] == case[1] and review["disposable"] is (case[1] == "dev")
    tasks = {r["name"]: r for r in of_type(doc, "aws:ecs/taskDefinition:TaskDefinition")}
    for name, w in review["workloads"].items():
        assert w["platform"] == "linux/arm64" and w["cpu_architecture"] == "ARM64"
        assert tasks[f"{case[1]}-{name}-task-definition"]["inputs"]["runtimePlatform"]["cpuArchitecture"] == "ARM64"
        # Every workload, public or internal, path or command (issue 24): an internal `path`
        # one through its essential health probe container.
        assert w["health"]["replaces_hung_task"] is True
        h = w["health"]
        assert (h["load_balancer"] is not None) + (h["container"] is not None) + (h["probe"] is not None) >= 1
        assert h["probe"] is None or h["probe"]["essential"] is True
    if case[0] == "own":
        assert review["workloads"]["web"]["health"]["load_balancer"]["path"] == "/up"
        assert review["workloads"]["worker"]["health"]["container"]["command"] == ["CMD", "/bin/ok"]
        assert review["workloads"]["worker"]["health"]["cloud_map_custom_health"] is True
        assert all(w["health"]["probe"] is None for w in review["workloads"].values())  # each is checked otherwise
    else:
        # orders' metabase and pdf-renderer are internal with a `path`: their tasks get the probe,
        # and its Fargate share fits the task's size (medium in production, small elsewhere).
        for name, port, path, interval in (("metabase", 3000, "/api/health", 30), ("pdf-renderer", 3000, "/health", 15)):
            h = review["workloads"][name]["health"]
            assert h["load_balancer"] is None and h["container"] is None and h["cloud_map_custom_health"] is True
            assert h["probe"]["container"] == "health-probe" and h["probe"]["image"] == HEALTH_PROBE_IMAGE
            assert h["probe"]["command"] == ["CMD", "wget", "-q", "-O", "/dev/null", f"http://127.0.0.1:{port}{path}"]
            assert (h["probe"]["interval"], h["probe"]["timeout"], h["probe"]["retries"]) == (interval, 5, 3)
            td = tasks[f"{case[1]}-{name}-task-definition"]["inputs"]
            defs = json.loads(td["containerDefinitions"])
            assert sum(d["cpu"] for d in defs) == int(td["cpu"]) and sum(d["memory"] for d in defs) == int(td["memory"])
        assert review["workloads"]["zitadel"]["health"]["probe"] is None  # public: its target group checks it
    dbs = [p for p in review["protections"].values() if p["type"].startswith("aws:rds/") and p["type"] != "aws:rds/clusterInstance:ClusterInstance"]
    assert dbs
    for p in dbs:
        assert p["protect"] is (case[1] != "dev") and p["deletion_protection"] is (case[1] != "dev")
        assert p["apply_immediately"] is (case[1] == "dev")
        assert (p["final_snapshot"] is None) is (case[1] == "dev")
    logs = [p for p in review["protections"].values() if p["type"] == "aws:cloudwatch/logGroup:LogGroup"]
    assert logs and all(p["retain_on_delete"] for p in logs)
