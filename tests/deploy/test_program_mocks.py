"""Pulumi mock tests of the declared resources (ADR 0493, Enforcement: "Pulumi mock tests of
the declared resources and the injected secret names").

The program runs against ``pulumi.runtime.set_mocks`` (``preview=False``): a mock monitor that
records every registered resource (type, logical name, inputs, ignored changes) and answers
with its inputs plus the outputs AWS would compute (ARNs, endpoints, DNS names). Plans come
from the one planner with the packaged catalogue, so the expected capacities below are
docs/catalog.md's tables, not the program's own figures. Settings tests live here too because the
file as a whole needs the ``[deploy]`` extra.

Pulumi's runtime settings are process-global: the ``mocks`` fixture installs fresh mocks for
each test and resets the runtime afterwards.
"""

from __future__ import annotations

import http.server
import inspect
import json
import re
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pulumi = pytest.importorskip("pulumi", reason="pulumi is not installed: the Pulumi program tests need the [deploy] extra")
aws = pytest.importorskip("pulumi_aws", reason="pulumi_aws is not installed: the Pulumi program tests need the [deploy] extra")

from deploy_engine.program import ADMIN_USERNAME, aws_name, declare_environment  # noqa: E402
from deploy_engine.resources import MOCK_ACCOUNT, declared_resources  # noqa: E402
from deploy_engine.layout import HEALTH_PROBE_IMAGE  # noqa: E402
from deploy_engine.program.workload import PROBE_CPU_UNITS, PROBE_MEMORY_MIB  # noqa: E402
from deploy_engine.settings import NetworkSettings, SettingsError, load_network_settings  # noqa: E402
from runway_core.analysis import analyze  # noqa: E402
from runway_core.planner import ConsumerSpec, EntrySpec, EnvSpec, RunwaySpec, engine_defaults, plan_environment  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
ACCOUNT = MOCK_ACCOUNT
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # pulumi.runtime.rpc._special_secret_sig
SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
DIGEST = "@sha256:" + "ab" * 32

VPC = "vpc-0a1b2c3d4e5f60718"
PRIVATE = ("subnet-0a000000000000001", "subnet-0a000000000000002")
PUBLIC = ("subnet-0b000000000000001", "subnet-0b000000000000002")
NETWORK = NetworkSettings(VPC, PRIVATE, PUBLIC)

# The only inputs allowed to carry the generated password: each must be a Pulumi secret.
SECRET_INPUTS = {
    ("aws:rds/instance:Instance", "password"),
    ("aws:rds/cluster:Cluster", "masterPassword"),
    ("aws:secretsmanager/secretVersion:SecretVersion", "secretString"),
}
# A connection string with a password in it (scheme://user:password@host).
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@\"]+:[^/\s@\"]+@", re.IGNORECASE)


# --------------------------------------------------------------------------------------
# Running the program under Pulumi's mock monitor (deploy_engine.resources)
# --------------------------------------------------------------------------------------


@dataclass
class Record:
    type: str
    name: str
    inputs: dict[str, Any]
    options: dict[str, Any]
    parent: str | None
    urn: str


class Recorded:
    """What one run of the program registered (deploy_engine.resources records, secrets unmasked)."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    @property
    def ignored(self) -> dict[tuple[str, str], list[str]]:
        return {(r.type, r.name): r.options["ignore_changes"] for r in self.records}

    def of_type(self, typ: str) -> list[Record]:
        return [r for r in self.records if r.type == typ]

    def one(self, typ: str, name: str | None = None) -> Record:
        found = [r for r in self.of_type(typ) if name is None or r.name == name]
        assert len(found) == 1, f"expected one {typ} {name or ''}, got {[r.name for r in found]}"
        return found[0]

    def aws(self) -> list[Record]:
        return [r for r in self.records if r.type.startswith("aws:")]


_CURRENT: list[Recorded] = []


@pytest.fixture
def mocks():
    """The records of the test's program runs (``run`` fills the current one)."""
    recorded = Recorded()
    _CURRENT[:] = [recorded]
    yield recorded
    _CURRENT.clear()


def entry(name: str, kind: str, size: str = "small", in_env: str = "production", **kw: Any) -> EntrySpec:
    engine = engine_defaults(kind, kw.pop("engine", None)) if kind != "workload" else {}
    if kind == "workload":
        kw.setdefault("image", f"example/{name}{DIGEST}")
        kw.setdefault("port", 8080)
        kw.setdefault("health", {"path": "/health"})
    return EntrySpec(name, kind, {in_env: size}, engine=engine, **kw)


def make_plan(catalog, *entries: EntrySpec, env: str = "production", product: str = "acme"):
    consumers = tuple(ConsumerSpec(e.name, "workload", e.uses) for e in entries if e.kind == "workload")
    spec = RunwaySpec(product, REGION, (EnvSpec(env, None, "none"),), {e.name: e for e in entries}, consumers)
    return plan_environment(spec, catalog, env)


def new_password() -> str:
    return "pw-" + secrets.token_urlsafe(24)


def run(plan, mocks: Recorded | None = None, *, product: str = "acme", network: NetworkSettings = NETWORK, credentials: dict | None = None,
        **kw: Any) -> dict[str, Any]:
    """Declare ``plan`` under the mock monitor; records land in ``mocks``; returns the program's outputs."""
    doc = declared_resources(plan, product=product, region=REGION, network=network, credentials=credentials or {}, mask=False, **kw)
    mocks = mocks if mocks is not None else (_CURRENT[0] if _CURRENT else None)
    if mocks is not None:
        mocks.records[:] = [Record(r["type"], r["name"], r["inputs"], r["options"], r["parent"], r["urn"]) for r in doc["resources"]]
    return doc["outputs"]


def unwrap_secret(value: Any) -> Any:
    assert isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG, f"not a Pulumi secret: {value!r}"
    return value["value"]


def containers(mocks: Recorded, workload: str, env: str = "production") -> dict[str, dict[str, Any]]:
    """The task definition's containers by name (the application's is named after the workload)."""
    td = mocks.one("aws:ecs/taskDefinition:TaskDefinition", f"{env}-{workload}-task-definition")
    return {d["name"]: d for d in json.loads(td.inputs["containerDefinitions"])}


def container(mocks: Recorded, workload: str, env: str = "production") -> dict[str, Any]:
    return containers(mocks, workload, env)[workload]


def param_arn(path: str) -> str:
    return f"arn:aws:ssm:{REGION}:{ACCOUNT}:parameter{path}"


# --------------------------------------------------------------------------------------
# postgres
# --------------------------------------------------------------------------------------

# docs/catalog.md, "postgres — flavor: rds".
RDS_SIZES = {"small": ("db.t4g.micro", False, 20), "medium": ("db.t4g.medium", True, 100), "large": ("db.m7g.large", True, 250)}
# docs/catalog.md, "postgres — flavor: aurora".
AURORA_SIZES = {"small": (1, "db.t4g.medium"), "medium": (2, "db.r7g.large"), "large": (3, "db.r7g.large")}


@pytest.mark.parametrize("size", sorted(RDS_SIZES))
@pytest.mark.parametrize("env", ["dev", "production"])
def test_postgres_rds_instance_per_size(mocks, catalog, size, env):
    pw = new_password()
    plan = make_plan(catalog, entry("main-db", "postgres", size, in_env=env, engine={"version": "17", "backup_retention_days": 14}), env=env)
    run(plan, credentials={"main-db": pw})
    cls, multi_az, storage = RDS_SIZES[size]
    db = mocks.one("aws:rds/instance:Instance").inputs
    assert (db["instanceClass"], db["multiAz"], db["allocatedStorage"], db["storageType"]) == (cls, multi_az, storage, "gp3")
    assert (db["engine"], db["engineVersion"], db["backupRetentionPeriod"]) == ("postgres", "17", 14)
    assert db["identifier"] == f"acme-{env}-main-db" and db["dbName"] == "main_db" and db["username"] == ADMIN_USERNAME
    assert db["storageEncrypted"] is True and db["publiclyAccessible"] is False
    assert unwrap_secret(db["password"]) == pw
    if env == "dev":
        assert db["deletionProtection"] is False and db["skipFinalSnapshot"] is True and "finalSnapshotIdentifier" not in db
    else:
        assert db["deletionProtection"] is True and db["skipFinalSnapshot"] is False and db["finalSnapshotIdentifier"]
    group = mocks.one("aws:rds/subnetGroup:SubnetGroup").inputs
    assert group["subnetIds"] == list(PRIVATE)
    assert db["dbSubnetGroupName"] == f"{env}-main-db-subnet-group-0000000" and "name" not in group  # auto-named
    assert db["allowMajorVersionUpgrade"] is True
    assert mocks.one("aws:rds/instance:Instance").options["protect"] is (env == "production")
    sg = mocks.one("aws:ec2/securityGroup:SecurityGroup").inputs
    assert db["vpcSecurityGroupIds"] == [f"{env}-main-db-sg-id"] and sg["vpcId"] == VPC
    assert all(rule["fromPort"] == 5432 for rule in sg["ingress"])
    assert not mocks.of_type("aws:rds/cluster:Cluster")


@pytest.mark.parametrize("size", sorted(AURORA_SIZES))
def test_postgres_aurora_cluster_and_instances_per_size(mocks, catalog, size):
    pw = new_password()
    run(make_plan(catalog, entry("main-db", "postgres", size, engine={"flavor": "aurora", "proxy": False})), credentials={"main-db": pw})
    count, cls = AURORA_SIZES[size]
    cluster = mocks.one("aws:rds/cluster:Cluster").inputs
    assert cluster["engine"] == "aurora-postgresql" and cluster["engineVersion"] == "16"
    assert cluster["storageEncrypted"] is True and cluster["deletionProtection"] is True
    assert cluster["masterUsername"] == ADMIN_USERNAME and unwrap_secret(cluster["masterPassword"]) == pw
    assert cluster["allowMajorVersionUpgrade"] is True
    instances = mocks.of_type("aws:rds/clusterInstance:ClusterInstance")
    assert len(instances) == count
    assert {i.inputs["instanceClass"] for i in instances} == {cls}
    assert all(i.inputs["clusterIdentifier"] == "production-main-db-cluster-id" and i.inputs["publiclyAccessible"] is False for i in instances)
    assert all(i.inputs["engine"] == "aurora-postgresql" for i in instances)
    assert not mocks.of_type("aws:rds/instance:Instance") and not mocks.of_type("aws:rds/proxy:Proxy")


@pytest.mark.parametrize("flavor", ["rds", "aurora"])
def test_rds_proxy_wiring(mocks, catalog, flavor):
    pw = new_password()
    out = run(make_plan(catalog, entry("main-db", "postgres", engine={"flavor": flavor})), credentials={"main-db": pw})
    secret = mocks.one("aws:secretsmanager/secret:Secret")
    secret_arn = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret/{secret.name}-0000000"
    assert secret.inputs["namePrefix"] == "runway/acme/production/main-db/rds-proxy-admin-"
    version = mocks.one("aws:secretsmanager/secretVersion:SecretVersion").inputs
    assert version["secretId"] == f"{secret.name}-id"
    # Recorded by the mock monitor as a secret: {<sig key>: <secret sig>, "value": ...}.
    assert json.loads(unwrap_secret(version["secretString"])) == {"username": ADMIN_USERNAME, "password": pw}
    role = mocks.one("aws:iam/role:Role").inputs
    (trust,) = json.loads(role["assumeRolePolicy"])["Statement"]
    assert trust["Principal"] == {"Service": "rds.amazonaws.com"} and trust["Condition"] == {"StringEquals": {"aws:SourceAccount": ACCOUNT}}
    policy = json.loads(mocks.one("aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    assert policy["Statement"] == [{"Effect": "Allow", "Action": ["secretsmanager:GetSecretValue"], "Resource": secret_arn}]
    proxy = mocks.one("aws:rds/proxy:Proxy").inputs
    assert proxy["engineFamily"] == "POSTGRESQL" and proxy["requireTls"] is True
    assert proxy["vpcSubnetIds"] == list(PRIVATE) and proxy["roleArn"].endswith("/production-main-db-proxy-role-0000000")
    (auth,) = proxy["auths"]
    assert (auth["authScheme"], auth["secretArn"], auth["iamAuth"]) == ("SECRETS", secret_arn, "DISABLED")
    group = mocks.one("aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup").inputs
    assert group["dbProxyName"] == proxy["name"]
    target = mocks.one("aws:rds/proxyTarget:ProxyTarget").inputs
    assert target["targetGroupName"] == "default" and target["dbProxyName"] == proxy["name"]
    if flavor == "rds":
        assert target["dbInstanceIdentifier"] == "acme-production-main-db" and "dbClusterIdentifier" not in target
    else:
        assert target["dbClusterIdentifier"] == "acme-production-main-db" and "dbInstanceIdentifier" not in target
    # Consumers connect through the proxy (the value up writes to Infisical).
    assert out["resources"]["main-db"]["variables"]["MAIN_DB_HOST"] == f"{proxy['name']}.proxy-mock.{REGION}.rds.amazonaws.com"
    assert out["resources"]["main-db"]["proxy_endpoint"] == out["resources"]["main-db"]["variables"]["MAIN_DB_HOST"]


def test_postgres_without_proxy_declares_no_secret_or_proxy(mocks, catalog):
    run(make_plan(catalog, entry("db", "postgres", engine={"proxy": False})), credentials={"db": new_password()})
    for typ in ("aws:secretsmanager/secret:Secret", "aws:secretsmanager/secretVersion:SecretVersion", "aws:rds/proxy:Proxy", "aws:iam/role:Role"):
        assert not mocks.of_type(typ)
    out = run(make_plan(catalog, entry("db", "postgres", engine={"proxy": False})), credentials={"db": new_password()})
    assert out["resources"]["db"]["variables"] == {"DB_HOST": f"acme-production-db.mock.{REGION}.rds.amazonaws.com", "DB_PORT": "5432",
                                                   "DB_USER": ADMIN_USERNAME, "DB_DATABASE": "db"}


def test_missing_credential_is_refused_before_declaring(mocks, catalog):
    with pytest.raises(ValueError, match="no generated password for postgres resource 'main-db'"):
        run(make_plan(catalog, entry("main-db", "postgres")), credentials={})
    assert mocks.records == []


# --------------------------------------------------------------------------------------
# queue, topic, cache, bucket
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_fifo_queue_with_dead_letter_queue(mocks, catalog, size):
    engine = {"fifo": True, "visibility_timeout_s": 120, "dead_letter": {"max_receives": 7}}
    run(make_plan(catalog, entry("jobs", "queue", size, engine=engine)))
    queue = mocks.one("aws:sqs/queue:Queue", "production-jobs-queue").inputs
    dlq = mocks.one("aws:sqs/queue:Queue", "production-jobs-dlq").inputs
    assert queue["name"] == "acme-production-jobs.fifo" and queue["fifoQueue"] is True
    assert dlq["name"] == "acme-production-jobs-dlq.fifo" and dlq["fifoQueue"] is True
    assert queue["visibilityTimeoutSeconds"] == 120
    assert json.loads(queue["redrivePolicy"]) == {"deadLetterTargetArn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:acme-production-jobs-dlq.fifo", "maxReceiveCount": 7}
    assert queue["sqsManagedSseEnabled"] is True
    assert mocks.one("aws:sqs/queue:Queue", "production-jobs-queue").parent.endswith("::runway:aws:Queue::production-jobs")


def test_standard_queue_without_dead_letter(mocks, catalog):
    out = run(make_plan(catalog, entry("jobs", "queue")))
    (queue,) = mocks.of_type("aws:sqs/queue:Queue")
    assert queue.inputs["name"] == "acme-production-jobs" and queue.inputs["fifoQueue"] is False
    assert "redrivePolicy" not in queue.inputs and queue.inputs["visibilityTimeoutSeconds"] == 30
    assert out["resources"]["jobs"]["variables"] == {
        "JOBS_URL": f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/acme-production-jobs", "JOBS_ARN": f"arn:aws:sqs:{REGION}:{ACCOUNT}:acme-production-jobs"}


@pytest.mark.parametrize("fifo", [True, False])
def test_topic_naming(mocks, catalog, fifo):
    run(make_plan(catalog, entry("events", "topic", engine={"fifo": fifo})))
    topic = mocks.one("aws:sns/topic:Topic").inputs
    assert topic["name"] == "acme-production-events" + (".fifo" if fifo else "")
    assert topic["fifoTopic"] is fifo
    assert topic["kmsMasterKeyId"] == "alias/aws/sns"  # encrypted with the AWS-managed key


# docs/catalog.md, "cache — ElastiCache for Valkey".
CACHE_SIZES = {"small": (1, "cache.t4g.micro"), "medium": (2, "cache.t4g.small"), "large": (2, "cache.m7g.large")}


@pytest.mark.parametrize("size", sorted(CACHE_SIZES))
def test_cache_replication_group_per_size(mocks, catalog, size):
    out = run(make_plan(catalog, entry("sessions", "cache", size)))
    nodes, node_type = CACHE_SIZES[size]
    group = mocks.one("aws:elasticache/replicationGroup:ReplicationGroup").inputs
    assert (group["engine"], group["nodeType"], group["numCacheClusters"]) == ("valkey", node_type, nodes)
    assert group["automaticFailoverEnabled"] is (nodes > 1) and group["multiAzEnabled"] is (nodes > 1)
    assert group["transitEncryptionEnabled"] is True and group["atRestEncryptionEnabled"] is True
    assert group["engineVersion"] == "8.0" and group["replicationGroupId"] == "acme-production-sessions"
    subnets = mocks.one("aws:elasticache/subnetGroup:SubnetGroup").inputs
    assert subnets["subnetIds"] == list(PRIVATE) and group["subnetGroupName"] == "production-sessions-subnet-group-0000000"
    assert group["snapshotRetentionLimit"] == 7  # production keeps daily snapshots
    assert out["resources"]["sessions"]["variables"]["SESSIONS_URL"] == "rediss://master.acme-production-sessions.mock.cache.amazonaws.com:6379"


@pytest.mark.parametrize("versioning", [True, False])
def test_bucket_versioning_public_access_block_and_encryption(mocks, catalog, versioning):
    run(make_plan(catalog, entry("invoices", "bucket", "large", engine={"versioning": versioning})))
    bucket = mocks.one("aws:s3/bucket:Bucket")
    assert bucket.inputs["bucketPrefix"] == "acme-production-invoices-"
    v = mocks.one("aws:s3/bucketVersioning:BucketVersioning").inputs
    assert v["bucket"] == f"{bucket.name}-id" and v["versioningConfiguration"]["status"] == ("Enabled" if versioning else "Suspended")
    block = mocks.one("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock").inputs
    assert all(block[k] is True for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))
    (rule,) = mocks.one("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration").inputs["rules"]
    assert rule["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "AES256"
    assert bucket.options["protect"] is True  # production


# --------------------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------------------

# docs/catalog.md, "workload — ECS Fargate, Linux/ARM64": vCPU and memory in ECS units.
WORKLOAD_SIZES = {"small": ("256", "512"), "medium": ("1024", "2048"), "large": ("4096", "8192")}


@pytest.mark.parametrize("size", sorted(WORKLOAD_SIZES))
def test_workload_task_size_and_desired_count(mocks, catalog, size):
    plan = make_plan(catalog, entry("api", "workload", size, scales={"production": 4}))
    run(plan)
    td = mocks.one("aws:ecs/taskDefinition:TaskDefinition").inputs
    assert (td["cpu"], td["memory"]) == WORKLOAD_SIZES[size]
    assert td["requiresCompatibilities"] == ["FARGATE"] and td["networkMode"] == "awsvpc"
    assert td["runtimePlatform"] == {"cpuArchitecture": "ARM64", "operatingSystemFamily": "LINUX"}
    service = mocks.one("aws:ecs/service:Service").inputs
    assert service["desiredCount"] == 4 and service["launchType"] == "FARGATE"
    assert service["cluster"] == f"arn:aws:ecs:{REGION}:{ACCOUNT}:cluster/acme-production"
    assert service["waitForSteadyState"] is True and "name" not in service
    assert service["networkConfiguration"] == {"subnets": list(PRIVATE), "securityGroups": ["production-api-sg-id"], "assignPublicIp": False}
    assert mocks.one("aws:ecs/cluster:Cluster").inputs["name"] == "acme-production"


def test_log_group_keeps_what_the_plan_estimates(mocks, catalog):
    """The log group's retention is the plan's (the catalogue's ``log_retention_days``), so
    the CloudWatch Logs storage line estimates what the program actually keeps."""
    plan = make_plan(catalog, entry("api", "workload"))
    (item,) = [i for i in plan.items if i.name == "api"]
    run(plan)
    group = mocks.one("aws:cloudwatch/logGroup:LogGroup").inputs
    assert group["name"] == "/runway/acme/production/api"
    assert group["retentionInDays"] == item.capacity["log_retention_days"] == int(catalog.environment["log_retention_days"]) == 30
    assert any(li.price_key == "logs:storage" and "kept 30 days" in li.description for li in item.line_items)


def test_container_definition_health_logs_env_and_secrets_by_reference(mocks, catalog):
    plan = make_plan(
        catalog,
        entry("main-db", "postgres"),
        entry("files", "bucket"),
        entry("api", "workload", env={"LOG_LEVEL": "info"}, secrets=("API_SIGNING_KEY",), uses=("main-db", "files"),
              health={"path": "/healthz", "interval_s": 15, "timeout_s": 4}),
    )
    run(plan, credentials={"main-db": new_password()})
    c = container(mocks, "api")
    assert c["image"] == f"example/api{DIGEST}" and c["portMappings"] == [{"containerPort": 8080, "protocol": "tcp"}]
    # An internal workload's `health.path` becomes no check inside the application's image
    # (curl there would need a shell and curl, which many images lack): the health probe
    # sidecar GETs it instead (test_internal_path_workload_gets_an_essential_health_probe).
    assert "healthCheck" not in c
    assert containers(mocks, "api")["health-probe"]["healthCheck"]["command"][-1] == "http://127.0.0.1:8080/healthz"
    assert c["logConfiguration"] == {"logDriver": "awslogs", "options": {"awslogs-group": "/runway/acme/production/api", "awslogs-region": REGION, "awslogs-stream-prefix": "api"}}
    assert c["environment"] == [{"name": "LOG_LEVEL", "value": "info"}]
    expected = ["API_SIGNING_KEY", "MAIN_DB_URL", "MAIN_DB_HOST", "MAIN_DB_PORT", "MAIN_DB_USER", "MAIN_DB_PASSWORD", "MAIN_DB_DATABASE", "FILES_NAME", "FILES_ARN"]
    assert [s["name"] for s in c["secrets"]] == expected
    assert all(set(s) == {"name", "valueFrom"} for s in c["secrets"])
    assert {s["name"]: s["valueFrom"] for s in c["secrets"]} == {
        "API_SIGNING_KEY": param_arn("/runway/acme/production/api/API_SIGNING_KEY"),
        **{v: param_arn(f"/runway/acme/production/main-db/{v}") for v in expected[1:7]},
        **{v: param_arn(f"/runway/acme/production/files/{v}") for v in expected[7:]},
    }
    assert not mocks.of_type("aws:ssm/parameter:Parameter")  # the Infisical sync creates them
    # The execution role may read exactly those parameters; the task role may use the bucket.
    exec_policy = json.loads(mocks.one("aws:iam/rolePolicy:RolePolicy", "production-api-execution-policy").inputs["policy"])
    ssm = [s for s in exec_policy["Statement"] if s["Action"] == ["ssm:GetParameters"]]
    assert sorted(ssm[0]["Resource"]) == sorted(s["valueFrom"] for s in c["secrets"])
    task_policy = json.loads(mocks.one("aws:iam/rolePolicy:RolePolicy", "production-api-task-policy").inputs["policy"])
    assert {r for s in task_policy["Statement"] for r in [s["Resource"]]} == {
        "arn:aws:s3:::acme-production-files-20261129000000000000000001",
        "arn:aws:s3:::acme-production-files-20261129000000000000000001/*",
    }
    td = mocks.one("aws:ecs/taskDefinition:TaskDefinition").inputs
    assert td["executionRoleArn"].endswith("/production-api-execution-role-0000000") and td["taskRoleArn"].endswith("/production-api-task-role-0000000")
    (trust,) = json.loads(mocks.one("aws:iam/role:Role", "production-api-task-role").inputs["assumeRolePolicy"])["Statement"]
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": ACCOUNT}, "ArnLike": {"aws:SourceArn": f"arn:aws:ecs:{REGION}:{ACCOUNT}:*"}}


def test_command_health_check_and_no_task_role_without_aws_uses(mocks, catalog):
    run(make_plan(catalog, entry("worker", "workload", health={"command": ["/bin/check", "--quick"], "interval_s": 20, "timeout_s": 3})))
    # The exec form (CMD): no shell needed in the image.
    assert container(mocks, "worker")["healthCheck"] == {"command": ["CMD", "/bin/check", "--quick"], "interval": 20, "timeout": 3, "retries": 3, "startPeriod": 60}
    assert "taskRoleArn" not in mocks.one("aws:ecs/taskDefinition:TaskDefinition").inputs
    assert [r.name for r in mocks.of_type("aws:iam/role:Role")] == ["production-worker-execution-role"]


def test_private_ecr_image_lets_the_execution_role_pull(mocks, catalog):
    image = f"123456789012.dkr.ecr.{REGION}.amazonaws.com/team/api{DIGEST}"
    run(make_plan(catalog, entry("api", "workload", image=image, health={"command": ["CMD-SHELL", "/bin/ok"]})))
    assert container(mocks, "api")["healthCheck"]["command"] == ["CMD-SHELL", "/bin/ok"]
    policy = json.loads(mocks.one("aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    assert any("ecr:BatchGetImage" in s["Action"] for s in policy["Statement"])


def test_secret_named_like_the_workloads_own_variable_is_refused(mocks, catalog):
    plan = make_plan(catalog, entry("api", "workload", secrets=("API_URL",)))
    with pytest.raises(ValueError, match="secret API_URL is also the variable"):
        run(plan)
    assert mocks.records == []


def test_internal_workloads_use_cloud_map(mocks, catalog):
    plan = make_plan(catalog, entry("api", "workload"), entry("search", "workload", port=9200, uses=("api",)))
    run(plan)
    namespace = mocks.one("aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace").inputs
    assert namespace["name"] == plan.item("service-discovery").capacity["namespace"] == "production.acme.internal"
    assert namespace["vpc"] == VPC
    for w in ("api", "search"):
        sd = mocks.one("aws:servicediscovery/service:Service", f"production-{w}-discovery").inputs
        assert sd["name"] == w and sd["dnsConfig"]["namespaceId"] == "production-service-discovery-namespace-id"
        assert sd["dnsConfig"]["dnsRecords"] == [{"ttl": 10, "type": "A"}]
        service = mocks.one("aws:ecs/service:Service", f"production-{w}-service").inputs
        assert service["serviceRegistries"] == {"registryArn": f"arn:aws:servicediscovery:{REGION}:{ACCOUNT}:service/{w}"}
        assert "loadBalancers" not in service
    for typ in ("aws:lb/loadBalancer:LoadBalancer", "aws:lb/targetGroup:TargetGroup", "aws:lb/listener:Listener"):
        assert not mocks.of_type(typ)
    assert [s["name"] for s in container(mocks, "search")["secrets"]] == ["API_URL"]


def test_public_workloads_alb_target_groups_listener_and_host_rules(mocks, catalog):
    network = NetworkSettings(VPC, PRIVATE, PUBLIC, public_domain="example.com")
    plan = make_plan(
        catalog,
        entry("web", "workload", port=3000, health={"path": "/up"}, expose="public"),
        entry("admin", "workload", port=4000, health={"path": "/admin/health"}, expose="public"),
        entry("api", "workload"),
    )
    out = run(plan, network=network)
    alb = mocks.one("aws:lb/loadBalancer:LoadBalancer").inputs
    assert alb["loadBalancerType"] == "application" and alb["internal"] is False and alb["subnets"] == list(PUBLIC)
    assert "name" not in alb  # auto-named
    groups = {r.name: r.inputs for r in mocks.of_type("aws:lb/targetGroup:TargetGroup")}
    assert set(groups) == {"production-web-target-group", "production-admin-target-group"}
    web, admin = groups["production-web-target-group"], groups["production-admin-target-group"]
    assert (web["targetType"], web["port"], web["vpcId"], web["healthCheck"]["path"]) == ("ip", 3000, VPC, "/up")
    assert "name" not in web and "namePrefix" not in web
    assert admin["healthCheck"]["path"] == "/admin/health"
    # `health.path` of a public workload is the ALB's check, not a container check.
    assert "healthCheck" not in container(mocks, "web") and "healthCheck" not in container(mocks, "admin")
    listener = mocks.one("aws:lb/listener:Listener").inputs
    assert listener["port"] == 80 and listener["protocol"] == "HTTP"
    web_arn = f"arn:aws:elasticloadbalancing:{REGION}:{ACCOUNT}:targetgroup/production-web-target-group-0000000"
    admin_arn = f"arn:aws:elasticloadbalancing:{REGION}:{ACCOUNT}:targetgroup/production-admin-target-group-0000000"
    # Unknown host names get a 404, never some workload.
    assert listener["defaultActions"] == [{"type": "fixed-response", "fixedResponse": {"contentType": "text/plain", "messageBody": "not found", "statusCode": "404"}}]
    rules = {r.name: r.inputs for r in mocks.of_type("aws:lb/listenerRule:ListenerRule")}
    assert rules["production-web-listener-rule"]["actions"] == [{"type": "forward", "targetGroupArn": web_arn}]
    rule = rules["production-admin-listener-rule"]
    assert rule["priority"] == out["environment_resources"]["listener_priorities"]["admin"] and rule["actions"] == [{"type": "forward", "targetGroupArn": admin_arn}]
    assert rule["conditions"] == [{"hostHeader": {"values": ["admin.example.com"]}}]
    service = mocks.one("aws:ecs/service:Service", "production-admin-service").inputs
    assert service["loadBalancers"] == [{"targetGroupArn": admin_arn, "containerName": "admin", "containerPort": 4000}]
    assert "serviceRegistries" not in service
    # The internal workload still registers in Cloud Map: both kinds of exposure coexist.
    assert mocks.one("aws:servicediscovery/service:Service").inputs["name"] == "api"
    # Each public workload's own group accepts the ALB on its own port; the internal one does not.
    from_alb = {r.name: r.inputs for r in mocks.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule") if r.name.endswith("-sg-from-alb")}
    assert {n: (i["fromPort"], i["securityGroupId"], i["referencedSecurityGroupId"]) for n, i in from_alb.items()} == {
        "production-web-sg-from-alb": (3000, "production-web-sg-id", "production-alb-sg-id"),
        "production-admin-sg-from-alb": (4000, "production-admin-sg-id", "production-alb-sg-id"),
    }
    assert out["resources"]["web"]["url"] == "http://web.example.com"


def test_single_public_workload_url_is_the_alb_dns_name(mocks, catalog):
    out = run(make_plan(catalog, entry("web", "workload", expose="public")))
    url, dns = out["resources"]["web"]["url"], out["environment_resources"]["alb_dns_name"]
    assert url == f"http://{dns}" and dns.endswith(".elb.amazonaws.com") and out["resources"]["web"]["variables"] == {"WEB_URL": url}
    # Without a domain the one rule matches every path (the default action stays 404).
    assert mocks.one("aws:lb/listenerRule:ListenerRule").inputs["conditions"] == [{"pathPattern": {"values": ["/*"]}}]


def test_allowed_cidr_reaches_data_stores_and_internal_workloads_only(mocks, catalog):
    network = NetworkSettings(VPC, PRIVATE, PUBLIC, allowed_cidr="10.20.0.0/16")
    plan = make_plan(catalog, entry("db", "postgres"), entry("api", "workload", port=8080), entry("web", "workload", port=3000, expose="public"))
    run(plan, network=network, credentials={"db": new_password()})

    def cidr_ports(name: str) -> list[int]:
        sg = mocks.one("aws:ec2/securityGroup:SecurityGroup", name).inputs
        return sorted(r["fromPort"] for r in sg["ingress"] if r.get("cidrBlocks") == ["10.20.0.0/16"])

    assert cidr_ports("production-db-sg") == [5432]
    rules = {r.name: r.inputs for r in mocks.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")}
    assert rules["production-api-sg-from-allowed-cidr"]["cidrIpv4"] == "10.20.0.0/16" and rules["production-api-sg-from-allowed-cidr"]["fromPort"] == 8080
    assert "production-web-sg-from-allowed-cidr" not in rules  # public: reached through the ALB only
    db_sg = mocks.one("aws:ec2/securityGroup:SecurityGroup", "production-db-sg").inputs
    assert not any(r.get("securityGroups") for r in db_sg["ingress"] if r.get("description") != "RDS Proxy to the database")  # no workload uses db


def test_settings_gaps_are_refused_before_declaring(mocks, catalog):
    public = entry("web", "workload", expose="public")
    with pytest.raises(SettingsError, match="RUNWAY_PUBLIC_SUBNET_IDS"):
        run(make_plan(catalog, public), network=NetworkSettings(VPC, PRIVATE))
    two = make_plan(catalog, public, entry("admin", "workload", expose="public"))
    with pytest.raises(SettingsError, match="RUNWAY_PUBLIC_DOMAIN"):
        run(two)
    assert mocks.records == []


# --------------------------------------------------------------------------------------
# SSM parameters and secrets
# --------------------------------------------------------------------------------------


def test_no_ssm_parameter_is_declared_and_every_reference_is_the_layouts(mocks, catalog):
    """The Infisical sync creates and fills every SSM parameter (ADR 0493 §4): the program
    declares none (so none ever holds a placeholder), and each container references exactly the
    names deploy_engine.layout lists, which `up` waits for."""
    from deploy_engine.layout import required_parameters, workload_parameters

    plan = make_plan(
        catalog,
        entry("main-db", "postgres"),
        entry("jobs", "queue"),
        entry("events", "topic"),
        entry("sessions", "cache"),
        entry("files", "bucket"),
        entry("api", "workload", secrets=("API_KEY",), uses=("main-db", "jobs", "events", "sessions", "files")),
        entry("worker", "workload", uses=("api", "jobs")),
    )
    out = run(plan, credentials={"main-db": new_password()})
    assert not mocks.of_type("aws:ssm/parameter:Parameter")
    refs = workload_parameters(plan, "acme")
    for w in ("api", "worker"):
        assert [(s["name"], s["valueFrom"]) for s in container(mocks, w)["secrets"]] == [(n, param_arn(p)) for n, p in refs[w]]
    assert out["ssm_parameters"] == required_parameters(plan, "acme")
    assert out["ssm_parameters"]["/runway/acme/production/jobs/JOBS_URL"] == ["api", "worker"]
    assert "/runway/acme/production/api/API_KEY" in out["ssm_parameters"]
    # Every item's non-secret values, which up writes to Infisical; postgres' secret ones are not among them.
    variables = {name: set(r["variables"]) for name, r in out["resources"].items()}
    assert variables == {
        "main-db": {"MAIN_DB_HOST", "MAIN_DB_PORT", "MAIN_DB_USER", "MAIN_DB_DATABASE"},
        "jobs": {"JOBS_URL", "JOBS_ARN"}, "events": {"EVENTS_ARN"}, "sessions": {"SESSIONS_URL", "SESSIONS_HOST", "SESSIONS_PORT"},
        "files": {"FILES_NAME", "FILES_ARN"}, "api": {"API_URL"}, "worker": {"WORKER_URL"},
    }
    assert out["resources"]["events"]["variables"]["EVENTS_ARN"] == f"arn:aws:sns:{REGION}:{ACCOUNT}:acme-production-events"


def _scan(value: Any, path: str, typ: str, secrets_found: list[tuple[str, str]]) -> Any:
    """``value`` with the secrets of :data:`SECRET_INPUTS` replaced by ``<secret>`` (any other
    secret is unwrapped, so its value is scanned too); records each secret's (type, top key)."""
    if isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG:
        where = (typ, path.split(".")[0])
        secrets_found.append(where)
        return "<secret>" if where in SECRET_INPUTS else _scan(value["value"], path, typ, secrets_found)
    if isinstance(value, dict):
        return {k: _scan(v, f"{path}.{k}" if path else k, typ, secrets_found) for k, v in value.items()}
    if isinstance(value, list):
        return [_scan(v, path, typ, secrets_found) for v in value]
    return value


def test_no_credential_or_secret_value_in_any_recorded_input(mocks, catalog):
    passwords = {"main-db": new_password(), "analytics": new_password()}
    plan = make_plan(
        catalog,
        entry("main-db", "postgres", "large"),
        entry("analytics", "postgres", "medium", engine={"flavor": "aurora"}),
        entry("sessions", "cache", "medium"),
        entry("jobs", "queue", engine={"fifo": True, "dead_letter": {"max_receives": 3}}),
        entry("files", "bucket"),
        entry("api", "workload", secrets=("API_KEY",), uses=("main-db", "analytics", "sessions", "jobs", "files"), expose="public"),
        entry("worker", "workload", uses=("main-db", "api")),
    )
    out = run(plan, credentials=passwords)
    secrets_found: list[tuple[str, str]] = []
    for record in mocks.records:
        scrubbed = json.dumps(_scan(record.inputs, "", record.type, secrets_found), sort_keys=True, default=str)
        for pw in passwords.values():
            assert pw not in scrubbed, f"credential in {record.type} {record.name}"
        assert not URL_WITH_PASSWORD.search(scrubbed), f"connection string with a password in {record.type} {record.name}"
        assert not re.search(r'"password"\s*:\s*"(?!<secret>)', scrubbed, re.IGNORECASE), record.name
    # The secrets are exactly the RDS master passwords and the proxy logins.
    assert sorted(secrets_found) == sorted([
        ("aws:rds/instance:Instance", "password"),
        ("aws:rds/cluster:Cluster", "masterPassword"),
        ("aws:secretsmanager/secretVersion:SecretVersion", "secretString"),
        ("aws:secretsmanager/secretVersion:SecretVersion", "secretString"),
    ])
    # And nothing the program returns (stack outputs, receipts) holds a credential.
    plain = json.dumps(out, default=str)
    assert not any(pw in plain for pw in passwords.values()) and not URL_WITH_PASSWORD.search(plain)


def test_outputs_hold_no_secret(catalog):
    """declare_environment's return value becomes stack outputs, which `stored_state` reads without
    --show-secrets: no Output in it may be a secret."""
    from deploy_engine.resources import run_under_mocks

    pw = new_password()
    plan = make_plan(catalog, entry("main-db", "postgres"), entry("api", "workload", uses=("main-db",)))
    flags: list[bool] = []

    def program():
        out = declare_environment(plan, product="acme", region=REGION, network=NETWORK, credentials={"main-db": pw})
        leaves = [v for item in out["resources"].values() for v in item.values()] + list(out["environment_resources"].values())
        outputs = [pulumi.Output.from_input(v) for v in leaves]

        async def secret_flags(_: Any) -> None:
            flags.extend([await o.is_secret() for o in outputs])

        return pulumi.Output.all(*outputs).apply(lambda values: (pulumi.Output.from_input(values).apply(secret_flags), values)[1])

    _, values = run_under_mocks(program, product="acme", environment="production", region=REGION)
    assert values and all(pw not in json.dumps(v, default=str) for v in values)
    assert flags and not any(flags), "an output returned by declare_environment is a secret"


# --------------------------------------------------------------------------------------
# Tags, names, the orders example
# --------------------------------------------------------------------------------------


def _taggable(typ: str) -> bool:
    # "aws:rds/proxyTarget:ProxyTarget" -> aws.rds.ProxyTarget: does its constructor take tags?
    module = typ.split(":")[1].split("/")[0]
    cls = getattr(getattr(aws, module), typ.split(":")[2])
    return "tags" in inspect.signature(cls._internal_init).parameters


@pytest.fixture
def orders_production(mocks, catalog, orders_root):
    an = analyze(str(orders_root), catalog)
    out = run(an.plans["production"], product="orders", credentials={"main-db": new_password()})
    return mocks, out


def test_every_taggable_resource_is_tagged_and_every_aws_resource_has_a_runway_parent(orders_production):
    mocks, _ = orders_production
    provider = mocks.one("pulumi:providers:aws").inputs
    assert json.loads(provider["defaultTags"]) == {"tags": {"runway:product": "orders", "runway:environment": "production", "managed-by": "runway"}}
    untaggable = set()
    for record in mocks.aws():
        parent_type = (record.parent or "").split("::")[2] if record.parent else ""
        assert parent_type.startswith("runway:aws:"), f"{record.type} {record.name} has parent {record.parent}"
        if not _taggable(record.type):
            untaggable.add(record.type)
            continue
        tags = record.inputs.get("tags")
        assert tags is not None, f"{record.type} {record.name} has no tags"
        assert record.name.startswith(f"production-{tags['runway:resource']}-"), record.name
    assert untaggable == {
        "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup", "aws:rds/proxyTarget:ProxyTarget",
        "aws:secretsmanager/secretVersion:SecretVersion", "aws:iam/rolePolicy:RolePolicy",
        "aws:s3/bucketVersioning:BucketVersioning", "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "aws:s3/bucketPolicy:BucketPolicy",
    }
    components = {r.type for r in mocks.records if r.type.startswith("runway:")}
    assert components == {"runway:aws:Environment", "runway:aws:Postgres", "runway:aws:Topic", "runway:aws:Bucket",
                          "runway:aws:Queue", "runway:aws:Cache", "runway:aws:Workload"}


def test_logical_names_are_unique_and_deterministic(orders_production, catalog, orders_root):
    mocks, out = orders_production
    names = [r.name for r in mocks.records]
    assert len(set(names)) == len(names), [n for n, c in Counter(names).items() if c > 1]
    assert len({(r.type, r.name) for r in mocks.records}) == len(mocks.records)
    assert {u.rsplit("::", 1)[1] for u in out["urns"].values()} <= set(names)
    assert all(re.fullmatch(r"production-[a-z0-9-]+|runway-aws", n) for n in names)
    first = sorted((r.type, r.name, json.dumps(_scan(r.inputs, "", r.type, []), sort_keys=True)) for r in mocks.records)
    # The same plan declares the same resources with the same inputs (passwords aside).
    mocks.records.clear()
    run(analyze(str(orders_root), catalog).plans["production"], product="orders", credentials={"main-db": new_password()})
    assert sorted((r.type, r.name, json.dumps(_scan(r.inputs, "", r.type, []), sort_keys=True)) for r in mocks.records) == first


def test_orders_production_declares_the_expected_resources(orders_production):
    mocks, out = orders_production
    by_type = Counter(r.type for r in mocks.aws())
    assert dict(by_type) == {
        # main-db: rds large with proxy
        "aws:rds/subnetGroup:SubnetGroup": 1, "aws:rds/instance:Instance": 1, "aws:rds/proxy:Proxy": 1,
        "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup": 1, "aws:rds/proxyTarget:ProxyTarget": 1,
        "aws:secretsmanager/secret:Secret": 1, "aws:secretsmanager/secretVersion:SecretVersion": 1,
        # proxy + 3 execution roles + pdf-renderer's task role (it uses the invoices bucket)
        "aws:iam/role:Role": 5, "aws:iam/rolePolicy:RolePolicy": 5,
        # alb, one per workload (3), main-db, shared-cache
        "aws:ec2/securityGroup:SecurityGroup": 6,
        # per workload: all outbound; zitadel from the ALB (no allowed CIDR, no workload uses another)
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": 3,
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": 1,
        "aws:sns/topic:Topic": 1,
        "aws:s3/bucket:Bucket": 1, "aws:s3/bucketVersioning:BucketVersioning": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:sqs/queue:Queue": 1,
        "aws:elasticache/subnetGroup:SubnetGroup": 1, "aws:elasticache/replicationGroup:ReplicationGroup": 1,
        "aws:ecs/cluster:Cluster": 1, "aws:ecs/taskDefinition:TaskDefinition": 3, "aws:ecs/service:Service": 3,
        "aws:cloudwatch/logGroup:LogGroup": 3,
        "aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace": 1, "aws:servicediscovery/service:Service": 2,
        # zitadel: its own rule (the listener's default action is a 404)
        "aws:lb/loadBalancer:LoadBalancer": 1, "aws:lb/targetGroup:TargetGroup": 1, "aws:lb/listener:Listener": 1,
        "aws:lb/listenerRule:ListenerRule": 1,
    }
    # 53 AWS resources, 9 components (environment, 5 resources, 3 workloads), the provider;
    # before components (issue 12) the program declared 71 resources, 19 of them SSM parameters.
    assert len(mocks.aws()) == 53 and len(mocks.records) == 63 and len(out["urns"]) == 9
    # Capacities straight from the plan (docs/catalog.md large rds, large cache, medium workloads).
    assert mocks.one("aws:rds/instance:Instance").inputs["instanceClass"] == "db.m7g.large"
    assert mocks.one("aws:elasticache/replicationGroup:ReplicationGroup").inputs["numCacheClusters"] == 2
    desired = {r.name: r.inputs["desiredCount"] for r in mocks.of_type("aws:ecs/service:Service")}
    assert desired == {"production-metabase-service": 2, "production-zitadel-service": 3, "production-pdf-renderer-service": 3}
    assert container(mocks, "metabase")["environment"] == [{"name": "MB_DB_TYPE", "value": "postgres"}]
    assert [s["name"] for s in container(mocks, "metabase")["secrets"]][:2] == ["MB_ENCRYPTION_SECRET_KEY", "MAIN_DB_URL"]


def test_dev_plan_of_the_orders_example_is_disposable(mocks, catalog, orders_root):
    an = analyze(str(orders_root), catalog)
    run(an.plans["dev"], product="orders", credentials={"main-db": new_password()})
    db = mocks.one("aws:rds/instance:Instance").inputs
    assert db["instanceClass"] == "db.t4g.micro" and db["multiAz"] is False and db["deletionProtection"] is False
    assert mocks.one("aws:secretsmanager/secret:Secret").inputs["recoveryWindowInDays"] == 0
    assert {r.inputs["desiredCount"] for r in mocks.of_type("aws:ecs/service:Service")} == {1}
    assert mocks.one("aws:elasticache/replicationGroup:ReplicationGroup").inputs["automaticFailoverEnabled"] is False


def test_aws_names_fit_their_limits(mocks, catalog):
    product = "a" * 30 + "-x"
    plan = make_plan(
        catalog,
        entry("a-rather-long-database-name-for-limits", "postgres", engine={"flavor": "aurora"}),
        entry("a-rather-long-cache-name-for-limits", "cache", "medium"),
        entry("a-rather-long-queue-name-for-the-limits-of-sqs-names-x", "queue", engine={"fifo": True, "dead_letter": {}}),
        entry("a-rather-long-bucket-name", "bucket"),
        entry("a-rather-long-public-workload-name", "workload", expose="public"),
        product=product,
    )
    run(plan, product=product, credentials={"a-rather-long-database-name-for-limits": new_password()})
    limits = {
        ("aws:rds/cluster:Cluster", "clusterIdentifier"): 63, ("aws:rds/clusterInstance:ClusterInstance", "identifier"): 63,
        ("aws:rds/proxy:Proxy", "name"): 60, ("aws:elasticache/replicationGroup:ReplicationGroup", "replicationGroupId"): 40,
        ("aws:sqs/queue:Queue", "name"): 80, ("aws:s3/bucket:Bucket", "bucketPrefix"): 37,
    }
    # Auto-named by the provider within AWS's limits (a replacement never meets its own name).
    for typ in ("aws:lb/loadBalancer:LoadBalancer", "aws:lb/targetGroup:TargetGroup", "aws:iam/role:Role", "aws:ec2/securityGroup:SecurityGroup",
                "aws:rds/subnetGroup:SubnetGroup", "aws:elasticache/subnetGroup:SubnetGroup", "aws:ecs/service:Service"):
        assert mocks.of_type(typ) and all("name" not in r.inputs and "namePrefix" not in r.inputs for r in mocks.of_type(typ)), typ
    seen = set()
    for record in mocks.records:
        for (typ, key), limit in limits.items():
            if record.type == typ:
                value = record.inputs[key]
                seen.add(typ)
                assert len(value) <= limit and value.startswith(product[:10]), (typ, value)
                if key != "bucketPrefix":  # a prefix ends with "-" before AWS's suffix
                    assert "--" not in value and not value.removesuffix(".fifo").endswith("-"), (typ, value)
    assert seen == {typ for typ, _ in limits}
    assert all(r.inputs["name"].endswith(".fifo") for r in mocks.of_type("aws:sqs/queue:Queue"))


def test_aws_name_truncates_with_a_stable_hash():
    assert aws_name("orders", "production", "main-db") == "orders-production-main-db"
    long = aws_name("orders", "production", "x" * 80, limit=40)
    assert len(long) == 40 and long == aws_name("orders", "production", "x" * 80, limit=40)
    assert long != aws_name("orders", "production", "x" * 81, limit=40)
    assert aws_name("a--b", limit=63) != aws_name("a-b", limit=63) and "--" not in aws_name("a--b")


def test_importing_the_program_declares_nothing():
    code = "import deploy_engine.program, pulumi.runtime.settings as s; assert s.get_monitor() is None; print('ok')"
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "ok"


# --------------------------------------------------------------------------------------
# Network settings
# --------------------------------------------------------------------------------------


def test_settings_from_environment_variables():
    s = load_network_settings({
        "RUNWAY_VPC_ID": VPC,
        "RUNWAY_PRIVATE_SUBNET_IDS": f" {PRIVATE[0]}, {PRIVATE[1]} ",
        "RUNWAY_PUBLIC_SUBNET_IDS": ",".join(PUBLIC),
        "RUNWAY_ALLOWED_CIDR": "10.20.0.0/16",
    })
    assert s == NetworkSettings(VPC, PRIVATE, PUBLIC, "10.20.0.0/16")


def test_settings_from_a_file_with_environment_overrides(tmp_path):
    path = tmp_path / "network.json"
    path.write_text(json.dumps({"vpc_id": "vpc-0000000000000000f", "private_subnet_ids": list(PRIVATE), "public_domain": "example.com"}))
    s = load_network_settings({"RUNWAY_VPC_ID": VPC}, path)
    assert (s.vpc_id, s.private_subnet_ids, s.public_subnet_ids, s.public_domain) == (VPC, PRIVATE, (), "example.com")


def test_missing_settings_name_what_to_set(tmp_path):
    with pytest.raises(SettingsError, match=r"RUNWAY_VPC_ID and RUNWAY_PRIVATE_SUBNET_IDS"):
        load_network_settings({})
    with pytest.raises(SettingsError, match=r"RUNWAY_PRIVATE_SUBNET_IDS \(or private_subnet_ids in .*network.json\)"):
        (tmp_path / "network.json").write_text(json.dumps({"vpc_id": VPC}))
        load_network_settings({}, tmp_path / "network.json")


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"RUNWAY_VPC_ID": "vpc-123", "RUNWAY_PRIVATE_SUBNET_IDS": ",".join(PRIVATE)}, "not a VPC id"),
        ({"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": PRIVATE[0]}, "at least 2 subnets"),
        ({"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": f"{PRIVATE[0]},{PRIVATE[0]}"}, "listed twice"),
        ({"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-1,subnet-2"}, "not a subnet id"),
        ({"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": ",".join(PRIVATE), "RUNWAY_ALLOWED_CIDR": "0.0.0.0/0"}, "narrower than /0"),
        ({"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": ",".join(PRIVATE), "RUNWAY_PUBLIC_SUBNET_IDS": PRIVATE[0] + "," + PUBLIC[0]}, "both private and public"),
    ],
)
def test_malformed_settings_are_refused(environ, message):
    with pytest.raises(SettingsError, match=message):
        load_network_settings(environ)


def test_unreadable_or_unknown_settings_file(tmp_path):
    with pytest.raises(SettingsError, match="cannot read"):
        load_network_settings({}, tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text(json.dumps({"vpc": VPC}))
    with pytest.raises(SettingsError, match="unknown key"):
        load_network_settings({}, tmp_path / "bad.json")


# --------------------------------------------------------------------------------------
# The inline program of the Automation API (deploy_engine.automation.StackTarget.program)
# --------------------------------------------------------------------------------------


def test_inline_program_sets_only_the_passwords_it_is_told_to_and_exports_no_secret(mocks, catalog, monkeypatch):
    """The program gets the run's credentials and ``set_passwords`` (set on the target after the
    program was built, as the CLI does once the stack is open); it exports no secret output."""
    from deploy_engine import automation, backend, stack_outputs
    from deploy_engine.secrets import KnownDatabase, Redactor, SecretValue, plan_credentials

    plan = make_plan(catalog, entry("main-db", "postgres", "small", engine={"proxy": True}), entry("old-db", "postgres", engine={"proxy": False}))
    target = automation.StackTarget(
        product="acme", environment="production", region=REGION, plan=plan, network=NETWORK, credentials={},
        backend=backend.Backend("file:///tmp/unused"), passphrase=SecretValue("p" * 20), redactor=Redactor(),
    )
    program = target.program()
    cplan = plan_credentials(plan, {"old-db": KnownDatabase("rds", False)}, generate=True)
    target.credentials, target.set_passwords = cplan.credentials, cplan.set_passwords
    assert cplan.sources == {"main-db": "generated", "old-db": "unchanged"}
    exported: dict[str, Any] = {}
    monkeypatch.setattr(pulumi, "export", lambda name, value: exported.__setitem__(name, value))
    from deploy_engine.resources import run_under_mocks

    records, _ = run_under_mocks(program, product="acme", environment="production", region=REGION, mask=False)
    mocks.records[:] = [Record(r["type"], r["name"], r["inputs"], r["options"], r["parent"], r["urn"]) for r in records]
    new = cplan.credentials["main-db"].password.reveal()
    instances = {r.name: r for r in mocks.of_type("aws:rds/instance:Instance")}
    assert unwrap_secret(instances["production-main-db-instance"].inputs["password"]) == new
    assert mocks.ignored[("aws:rds/instance:Instance", "production-main-db-instance")] == []
    assert mocks.ignored[("aws:rds/instance:Instance", "production-old-db-instance")] == ["password"]
    version = mocks.one("aws:secretsmanager/secretVersion:SecretVersion").inputs
    assert json.loads(unwrap_secret(version["secretString"]))["password"] == new
    assert stack_outputs.CREDENTIALS_OUTPUT not in exported
    assert set(exported) >= {"resources", "urns", "ssm_parameters"}


# --------------------------------------------------------------------------------------
# Passwords: ignore_changes unless this run sets them (preview never needs the stored one)
# --------------------------------------------------------------------------------------

PASSWORD_HOLDERS = {
    "rds": [("aws:rds/instance:Instance", "production-db-instance", "password"),
            ("aws:secretsmanager/secretVersion:SecretVersion", "production-db-proxy-secret-version", "secretString")],
    "aurora": [("aws:rds/cluster:Cluster", "production-db-cluster", "masterPassword"),
               ("aws:secretsmanager/secretVersion:SecretVersion", "production-db-proxy-secret-version", "secretString")],
}


@pytest.mark.parametrize("flavor", ["rds", "aurora"])
@pytest.mark.parametrize("set_password", [False, True])
def test_password_inputs_ignore_changes_unless_this_run_sets_them(mocks, catalog, flavor, set_password):
    plan = make_plan(catalog, entry("db", "postgres", engine={"flavor": flavor}))
    out = run(plan, credentials={"db": "a-placeholder-value"}, set_passwords=("db",) if set_password else ())
    for typ, name, prop in PASSWORD_HOLDERS[flavor]:
        assert mocks.ignored[(typ, name)] == ([] if set_password else [prop]), (typ, name)
    # Nothing else is ignored.
    others = {k: v for k, v in mocks.ignored.items() if v and k not in {(t, n) for t, n, _ in PASSWORD_HOLDERS[flavor]}}
    assert others == {}
    assert out["resources"]["db"]["flavor"] == flavor


def test_program_and_automation_agree_on_the_password_holders():
    from deploy_engine import engine_events
    from deploy_engine.program import PASSWORD_INPUTS

    assert tuple(PASSWORD_INPUTS) == engine_events.PASSWORD_HOLDER_PARTS


def test_orders_health_checks_zitadel_by_the_alb_and_never_curl_in_a_container(orders_production):
    mocks, _ = orders_production
    group = mocks.one("aws:lb/targetGroup:TargetGroup", "production-zitadel-target-group").inputs
    assert group["healthCheck"]["path"] == "/debug/healthz" and group["healthCheck"]["protocol"] == "HTTP"
    for w in ("zitadel", "metabase", "pdf-renderer"):  # all three give a path: no check in the application's image
        assert "healthCheck" not in container(mocks, w)
    assert all("curl" not in json.dumps(r.inputs) for r in mocks.of_type("aws:ecs/taskDefinition:TaskDefinition"))


def test_a_public_workload_with_a_command_gets_both_checks(mocks, catalog):
    run(make_plan(catalog, entry("web", "workload", expose="public", health={"command": ["CMD-SHELL", "wget -q -O- localhost:8080/ok"]})))
    assert container(mocks, "web")["healthCheck"]["command"] == ["CMD-SHELL", "wget -q -O- localhost:8080/ok"]  # kept as written
    assert mocks.one("aws:lb/targetGroup:TargetGroup").inputs["healthCheck"]["path"] == "/"


def test_internal_path_workload_gets_an_essential_health_probe(mocks, catalog):
    """Issue 24, "every workload has a health check that replaces a hung task": an internal
    workload with `health.path` gets a second, essential container whose ECS health check GETs
    the path over the task's shared localhost (awsvpc). AWS's documented rules this relies on
    (cited in deploy_engine/program/workload.py): containers of a Fargate task share
    `localhost`; a task is UNHEALTHY when an essential container fails its check, and a
    service replaces an unhealthy task (Amazon ECS API Reference, `HealthCheck`)."""
    run(make_plan(catalog, entry("api", "workload", port=9000, health={"path": "/ready?deep=1", "interval_s": 20, "timeout_s": 7})))
    td = mocks.one("aws:ecs/taskDefinition:TaskDefinition", "production-api-task-definition").inputs
    assert td["networkMode"] == "awsvpc" and td["requiresCompatibilities"] == ["FARGATE"]  # localhost is shared
    by_name = containers(mocks, "api")
    assert list(by_name) == ["api", "health-probe"]
    app, probe = by_name["api"], by_name["health-probe"]
    assert probe["essential"] is True and app["essential"] is True
    assert probe["image"] == HEALTH_PROBE_IMAGE
    assert re.fullmatch(r"public\.ecr\.aws/docker/library/busybox@sha256:[0-9a-f]{64}", probe["image"])
    # Exec form (no shell needed even in the probe); the application's image is never asked for a tool.
    assert probe["healthCheck"] == {
        "command": ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:9000/ready?deep=1"],
        "interval": 20, "timeout": 7, "retries": 3, "startPeriod": 60,
    }
    assert "healthCheck" not in app
    # Its share comes out of the application's: the task's Fargate size (and price) is unchanged.
    assert (int(td["cpu"]), int(td["memory"])) == (256, 512)  # `small`, as without the probe
    assert app["cpu"] + probe["cpu"] == int(td["cpu"]) and app["memory"] + probe["memory"] == int(td["memory"])
    assert (probe["cpu"], probe["memory"]) == (PROBE_CPU_UNITS, PROBE_MEMORY_MIB)
    # A task stop ends it at once (init process forwards SIGTERM to sleep); its logs go to the workload's group.
    assert probe["command"] == ["sleep", "2147483647"] and probe["linuxParameters"] == {"initProcessEnabled": True}
    assert probe["readonlyRootFilesystem"] is True
    assert probe["logConfiguration"]["options"] == {"awslogs-group": "/runway/acme/production/api", "awslogs-region": REGION,
                                                    "awslogs-stream-prefix": "api-health-probe"}
    # Cloud Map custom health: ECS keeps the task's health there; the port mapping stays the application's.
    discovery = mocks.one("aws:servicediscovery/service:Service", "production-api-discovery").inputs
    assert "healthCheckCustomConfig" in discovery
    assert "portMappings" not in probe
    service = mocks.one("aws:ecs/service:Service", "production-api-service").inputs
    assert service["serviceRegistries"]["registryArn"]


class _Health(http.server.BaseHTTPRequestHandler):
    """/ok 200, /moved 302 -> /ok, /fail 500, /hang answers after 30 s (a hung application)."""

    def do_GET(self) -> None:
        if self.path == "/hang":
            time.sleep(30)
        code = {"/ok": 200, "/ok?deep=1": 200, "/moved": 302, "/fail": 500}.get(self.path, 404)
        self.send_response(code)
        if code == 302:
            self.send_header("Location", "/ok")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.skipif(shutil.which("busybox") is None, reason="busybox is not installed (.ci/run installs Debian's `busybox`)")
def test_the_declared_probe_command_passes_and_fails_as_ecs_needs_with_a_real_busybox(mocks, catalog):
    """The probe's declared check, run as ECS would (exec form: the arguments after "CMD"),
    with a real BusyBox against a local server: 0 for 2xx (after a redirect), non-zero for an
    error status or a closed port; a GET that hangs is ended by the check's `timeout`, as ECS
    does (here `subprocess`'s timeout stands in for it)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    def rc(path: str, on_port: int = port) -> int | None:
        plan = make_plan(catalog, entry("api", "workload", port=on_port, health={"path": path, "timeout_s": 2}))
        doc = declared_resources(plan, product="acme", region=REGION, network=NETWORK, mask=False)
        td = next(r for r in doc["resources"] if r["type"] == "aws:ecs/taskDefinition:TaskDefinition")
        check = json.loads(td["inputs"]["containerDefinitions"])[1]["healthCheck"]
        assert check["command"][:2] == ["CMD", "wget"] and check["timeout"] == 2
        try:
            return subprocess.run(["busybox", *check["command"][1:]], capture_output=True, timeout=check["timeout"], env={}).returncode
        except subprocess.TimeoutExpired:
            return None  # ECS counts it as a failed check

    try:
        assert rc("/ok") == 0 and rc("/ok?deep=1") == 0 and rc("/moved") == 0
        assert rc("/fail") == 1 and rc("/missing") == 1
        assert rc("/hang") is None
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        free = closed.getsockname()[1]
        closed.close()
        assert rc("/ok", free) == 1
    finally:
        server.shutdown()
        server.server_close()


def test_health_probe_only_where_nothing_else_checks_the_task(mocks, catalog):
    """A public `path` workload is checked by its target group and an internal `command`
    workload by its own container check: neither gets a probe (the task stays one container)."""
    run(make_plan(catalog, entry("web", "workload", expose="public", health={"path": "/up"}),
                  entry("worker", "workload", health={"command": ["/bin/ok"]})))
    assert list(containers(mocks, "web")) == ["web"] and list(containers(mocks, "worker")) == ["worker"]
    assert "cpu" not in container(mocks, "web") and "memory" not in container(mocks, "worker")


def test_health_probe_image_can_be_overridden_and_must_be_pinned(mocks, catalog):
    mirror = "123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror/busybox@sha256:" + "a" * 64
    run(make_plan(catalog, entry("api", "workload")), network=NetworkSettings(VPC, PRIVATE, PUBLIC, health_probe_image=mirror))
    assert containers(mocks, "api")["health-probe"]["image"] == mirror
    env = {"RUNWAY_VPC_ID": VPC, "RUNWAY_PRIVATE_SUBNET_IDS": ",".join(PRIVATE)}
    assert load_network_settings({**env, "RUNWAY_HEALTH_PROBE_IMAGE": mirror}).health_probe_image == mirror
    with pytest.raises(SettingsError, match="RUNWAY_HEALTH_PROBE_IMAGE: 'busybox:1.37' is not an image pinned by digest"):
        load_network_settings({**env, "RUNWAY_HEALTH_PROBE_IMAGE": "busybox:1.37"})


# --------------------------------------------------------------------------------------
# HTTPS with RUNWAY_CERTIFICATE_ARN
# --------------------------------------------------------------------------------------

CERT = "arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"


def test_certificate_gives_an_https_listener_and_an_http_redirect(mocks, catalog):
    network = NetworkSettings(VPC, PRIVATE, PUBLIC, public_domain="example.com", certificate_arn=CERT)
    plan = make_plan(catalog, entry("web", "workload", port=3000, expose="public"), entry("admin", "workload", port=4000, expose="public"))
    out = run(plan, network=network)
    listeners = {r.name: r.inputs for r in mocks.of_type("aws:lb/listener:Listener")}
    https, http = listeners["production-alb-listener-https"], listeners["production-alb-listener-http"]
    assert (https["port"], https["protocol"], https["certificateArn"], https["sslPolicy"]) == (443, "HTTPS", CERT, "ELBSecurityPolicy-TLS13-1-2-2021-06")
    assert https["defaultActions"][0]["type"] == "fixed-response"
    assert (http["port"], http["protocol"]) == (80, "HTTP")
    assert http["defaultActions"] == [{"type": "redirect", "redirect": {"protocol": "HTTPS", "port": "443", "statusCode": "HTTP_301"}}]
    for rule in mocks.of_type("aws:lb/listenerRule:ListenerRule"):
        assert rule.inputs["listenerArn"] == f"arn:aws:elasticloadbalancing:{REGION}:{ACCOUNT}:listener/production-alb-listener-https-0000000"
    alb_sg = mocks.one("aws:ec2/securityGroup:SecurityGroup", "production-alb-sg").inputs
    assert sorted(r["fromPort"] for r in alb_sg["ingress"]) == [80, 443]
    assert out["resources"]["web"]["url"] == "https://web.example.com"
    assert out["resources"]["admin"]["variables"] == {"ADMIN_URL": "https://admin.example.com"}


def test_without_a_certificate_the_alb_serves_http_only(mocks, catalog):
    run(make_plan(catalog, entry("web", "workload", expose="public")))
    (listener,) = mocks.of_type("aws:lb/listener:Listener")
    assert listener.name == "production-alb-listener-http" and listener.inputs["protocol"] == "HTTP"
    assert listener.inputs["defaultActions"][0]["fixedResponse"]["statusCode"] == "404"
    assert [r["fromPort"] for r in mocks.one("aws:ec2/securityGroup:SecurityGroup", "production-alb-sg").inputs["ingress"]] == [80]


# --------------------------------------------------------------------------------------
# Security groups per workload; data stores reachable only from the workloads that use them
# --------------------------------------------------------------------------------------


def test_each_data_store_admits_only_the_workloads_that_use_it(mocks, catalog):
    plan = make_plan(
        catalog,
        entry("main-db", "postgres"),
        entry("sessions", "cache"),
        entry("api", "workload", uses=("main-db", "sessions")),
        entry("worker", "workload", uses=("main-db",)),
        entry("cron", "workload"),
    )
    run(plan, credentials={"main-db": new_password()})

    def sources(name: str) -> dict[str, list[str]]:
        sg = mocks.one("aws:ec2/securityGroup:SecurityGroup", name).inputs
        return {r["description"]: r.get("securityGroups") or r.get("cidrBlocks") for r in sg["ingress"]}

    assert sources("production-main-db-sg") == {
        "PostgreSQL from api": ["production-api-sg-id"],
        "PostgreSQL from worker": ["production-worker-sg-id"],
        "RDS Proxy to the database": None,  # the proxy shares the group (self rule)
    }
    assert sources("production-sessions-sg") == {"Valkey from api": ["production-api-sg-id"]}
    groups = {r.name for r in mocks.of_type("aws:ec2/securityGroup:SecurityGroup")}
    assert {"production-api-sg", "production-worker-sg", "production-cron-sg"} <= groups
    services = {r.name: r.inputs["networkConfiguration"]["securityGroups"] for r in mocks.of_type("aws:ecs/service:Service")}
    assert services == {f"production-{w}-service": [f"production-{w}-sg-id"] for w in ("api", "worker", "cron")}
    # A workload's group has no inline rules (all are separate resources) and all outbound.
    for w in ("api", "worker", "cron"):
        sg = mocks.one("aws:ec2/securityGroup:SecurityGroup", f"production-{w}-sg").inputs
        assert "ingress" not in sg and "egress" not in sg
        egress = mocks.one("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", f"production-{w}-sg-egress").inputs
        assert (egress["ipProtocol"], egress["cidrIpv4"], egress["securityGroupId"]) == ("-1", "0.0.0.0/0", f"production-{w}-sg-id")


def test_workloads_admit_the_workloads_that_use_them_even_both_ways(mocks, catalog):
    plan = make_plan(catalog, entry("a", "workload", port=7000, uses=("b",)), entry("b", "workload", port=8000, uses=("a",)), entry("c", "workload"))
    run(plan)  # two groups referring to each other: separate rule resources, no dependency cycle
    rules = {r.name: r.inputs for r in mocks.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")}
    assert rules == {
        "production-a-sg-from-b": {**rules["production-a-sg-from-b"], "securityGroupId": "production-a-sg-id", "referencedSecurityGroupId": "production-b-sg-id", "fromPort": 7000, "toPort": 7000, "ipProtocol": "tcp"},
        "production-b-sg-from-a": {**rules["production-b-sg-from-a"], "securityGroupId": "production-b-sg-id", "referencedSecurityGroupId": "production-a-sg-id", "fromPort": 8000, "toPort": 8000, "ipProtocol": "tcp"},
    }  # c: used by nobody, reached by nobody


def test_a_resource_used_only_by_members_is_reached_only_from_the_allowed_cidr(orders_production):
    mocks, _ = orders_production  # shared-cache: required by members only
    assert mocks.one("aws:ec2/securityGroup:SecurityGroup", "production-shared-cache-sg").inputs["ingress"] == []


# --------------------------------------------------------------------------------------
# Bucket TLS-only policy; apply_immediately outside production
# --------------------------------------------------------------------------------------


def test_bucket_policy_denies_requests_without_tls(mocks, catalog):
    run(make_plan(catalog, entry("files", "bucket")))
    bucket = mocks.one("aws:s3/bucket:Bucket")
    policy = mocks.one("aws:s3/bucketPolicy:BucketPolicy")
    arn = "arn:aws:s3:::acme-production-files-20261129000000000000000001"
    assert policy.inputs["bucket"] == f"{bucket.name}-id"
    assert json.loads(policy.inputs["policy"])["Statement"] == [{
        "Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }]


# Issue 24: the maintenance window and every protection follow the environment's `disposable`
# (dev by default), never its name: `staging`, `prod` and `preprod-eu-dr` wait for the window.
@pytest.mark.parametrize("env, immediately", [("dev", True), ("staging", False), ("prod", False), ("preprod-eu-dr", False), ("production", False)])
def test_apply_immediately_only_in_disposable_environments(mocks, catalog, env, immediately):
    plan = make_plan(catalog, entry("db", "postgres", in_env=env), entry("adb", "postgres", in_env=env, engine={"flavor": "aurora"}),
                     entry("sessions", "cache", in_env=env), env=env)
    run(plan, credentials={"db": new_password(), "adb": new_password()})
    for typ in ("aws:rds/instance:Instance", "aws:rds/cluster:Cluster", "aws:rds/clusterInstance:ClusterInstance",
                "aws:elasticache/replicationGroup:ReplicationGroup"):
        assert {r.inputs["applyImmediately"] for r in mocks.of_type(typ)} == {immediately}, typ


def test_certificate_arn_from_the_file_or_the_environment(tmp_path):
    path = tmp_path / "network.json"
    path.write_text(json.dumps({"vpc_id": VPC, "private_subnet_ids": list(PRIVATE), "certificate_arn": CERT}))
    assert load_network_settings({}, path).certificate_arn == CERT
    other = CERT.replace("0b1c", "ffff")
    assert load_network_settings({"RUNWAY_CERTIFICATE_ARN": other}, path).certificate_arn == other
    with pytest.raises(SettingsError, match="RUNWAY_CERTIFICATE_ARN: 'arn:aws:iam::1:server-certificate/x' is not an ACM certificate ARN"):
        load_network_settings({"RUNWAY_CERTIFICATE_ARN": "arn:aws:iam::1:server-certificate/x"}, path)
