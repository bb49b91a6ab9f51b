"""The pre-flight checks against a real AWS API over HTTP: moto_server on 127.0.0.1 (started by
the session fixture in tests/motoserver.py, stopped by PID), boto3 with ``endpoint_url``.

- the network pre-flight of ``preview`` / ``up`` (exit 3): VPC, subnets in it, two zones, a
  route out or the VPC endpoints, public subnets behind an internet gateway;
- the SSM existence check of ``up`` (exit 7, receipt ``failed``): every parameter a task
  definition references exists, checked by metadata only, before any service changes.
"""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("boto3", reason="the pre-flight speaks to AWS through boto3 (the [deploy] extra)")
pytest.importorskip("moto", reason="moto[server] plays AWS over HTTP in these tests")

from deploy_engine import automation, preflight, stack_outputs  # noqa: E402
from deploy_engine.engine_events import UpSummary  # noqa: E402
from deploy_engine.cli import main  # noqa: E402
from deploy_engine.layout import required_parameters  # noqa: E402
from deploy_engine.settings import NetworkSettings  # noqa: E402
from runway_core.analysis import analyze  # noqa: E402

REGION = "us-east-1"
DIGEST = "@sha256:" + "ef" * 32
PRODUCT = f"""\
runway: 1
product: faults
region: {REGION}
environments:
  dev: {{}}
resources:
  jobs:
    kind: queue
workloads:
  api:
    image: example/api{DIGEST}
    port: 8080
    health: {{ path: /health }}
    secrets: [API_SIGNING_KEY]
    uses: [jobs]
    expose: internal
    reason: "no-managed-fit: the API"
"""


class Vpc:
    """A VPC in moto with subnets, route tables, a NAT gateway and endpoints, as a test asks."""

    def __init__(self, ec2: Any) -> None:
        self.ec2 = ec2
        self.id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        self._n = 0

    def subnet(self, zone: str, vpc: str | None = None) -> str:
        self._n += 1
        return self.ec2.create_subnet(VpcId=vpc or self.id, CidrBlock=f"10.0.{self._n}.0/24", AvailabilityZone=zone)["Subnet"]["SubnetId"]

    def route_table(self, subnets: list[str], **route: str) -> str:
        table = self.ec2.create_route_table(VpcId=self.id)["RouteTable"]["RouteTableId"]
        for s in subnets:
            self.ec2.associate_route_table(RouteTableId=table, SubnetId=s)
        if route:
            self.ec2.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", **route)
        return table

    def nat(self, public_subnet: str) -> str:
        return self.ec2.create_nat_gateway(SubnetId=public_subnet)["NatGateway"]["NatGatewayId"]

    def igw(self) -> str:
        gw = self.ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
        self.ec2.attach_internet_gateway(InternetGatewayId=gw, VpcId=self.id)
        return gw

    def endpoints(self, *names: str) -> None:
        for name in names:
            kind = "Gateway" if name == "s3" else "Interface"
            self.ec2.create_vpc_endpoint(VpcId=self.id, ServiceName=f"com.amazonaws.{REGION}.{name}", VpcEndpointType=kind)


@pytest.fixture
def ec2(moto_server):
    return moto_server.client("ec2")


def plan_of(tmp_path: Path, catalog, text: str = PRODUCT):
    (tmp_path / "runway.yaml").write_text(text, encoding="utf-8")
    return analyze(str(tmp_path / "runway.yaml"), catalog).plans["dev"]


def healthy(ec2: Any) -> tuple[Vpc, NetworkSettings]:
    vpc = Vpc(ec2)
    private = [vpc.subnet("us-east-1a"), vpc.subnet("us-east-1b")]
    public = [vpc.subnet("us-east-1a"), vpc.subnet("us-east-1b")]
    vpc.route_table(public, GatewayId=vpc.igw())
    vpc.route_table(private, NatGatewayId=vpc.nat(public[0]))
    return vpc, NetworkSettings(vpc.id, tuple(private), tuple(public))


# --------------------------------------------------------------------------------------
# The network pre-flight
# --------------------------------------------------------------------------------------


def test_a_healthy_network_passes(ec2, tmp_path, catalog):
    _, network = healthy(ec2)
    report = preflight.network_problems(network, plan_of(tmp_path, catalog), REGION, ec2)
    assert report.problems == ()
    assert report.checked[0].startswith("VPC vpc-") and "private subnets: a route out or the VPC endpoints" in report.checked


def test_subnets_in_one_zone_another_vpc_or_nowhere_are_named(ec2, tmp_path, catalog):
    vpc = Vpc(ec2)
    a, b = vpc.subnet("us-east-1a"), vpc.subnet("us-east-1a")
    plan = plan_of(tmp_path, catalog)
    report = preflight.network_problems(NetworkSettings(vpc.id, (a, b)), plan, REGION, ec2)
    assert report.problems == (f"RUNWAY_PRIVATE_SUBNET_IDS: {a}, {b} are all in us-east-1a: they must span at least 2 Availability Zones",)
    other = Vpc(ec2)
    foreign = other.subnet("us-east-1b")
    report = preflight.network_problems(NetworkSettings(vpc.id, (a, foreign)), plan, REGION, ec2)
    assert report.problems == (f"RUNWAY_PRIVATE_SUBNET_IDS: {foreign} (in {other.id}) not in {vpc.id}",)
    report = preflight.network_problems(NetworkSettings(vpc.id, (a, "subnet-0123456789abcdef0")), plan, REGION, ec2)
    assert report.problems == (f"RUNWAY_PRIVATE_SUBNET_IDS: subnet-0123456789abcdef0 do(es) not exist in {REGION}",)
    report = preflight.network_problems(NetworkSettings("vpc-0123456789abcdef0", (a, b)), plan, REGION, ec2)
    assert report.problems == (f"RUNWAY_VPC_ID: vpc-0123456789abcdef0 does not exist in {REGION} (in the account the credentials belong to)",)


def test_private_subnets_without_nat_need_the_endpoints_and_ecr_images(ec2, tmp_path, catalog):
    vpc = Vpc(ec2)
    private = (vpc.subnet("us-east-1a"), vpc.subnet("us-east-1b"))
    vpc.route_table(list(private))  # local routes only
    network = NetworkSettings(vpc.id, private)
    plan = plan_of(tmp_path, catalog)
    (first, second) = preflight.network_problems(network, plan, REGION, ec2).problems
    assert first.startswith(f"RUNWAY_PRIVATE_SUBNET_IDS: {private[0]}, {private[1]} have no route to 0.0.0.0/0 through a NAT gateway")
    # The internal `health.path` workload's health probe image (ECR Public) is pulled too.
    assert "the images example/api, public.ecr.aws/docker/library/busybox are pulled from outside ECR" in first
    assert second.endswith(", ".join(f"com.amazonaws.{REGION}.{e}" for e in preflight.REQUIRED_ENDPOINTS))
    # With every endpoint and a private ECR image, the tasks need no NAT.
    vpc.endpoints(*preflight.REQUIRED_ENDPOINTS)
    ecr = PRODUCT.replace(f"example/api{DIGEST}", f"123456789012.dkr.ecr.{REGION}.amazonaws.com/team/api{DIGEST}")
    (tmp_path / "ecr").mkdir()
    ecr_plan = plan_of(tmp_path / "ecr", catalog, ecr)
    (probe,) = preflight.network_problems(network, ecr_plan, REGION, ec2).problems
    assert "the images public.ecr.aws/docker/library/busybox are pulled from outside ECR" in probe
    # ... until RUNWAY_HEALTH_PROBE_IMAGE names a private ECR copy (docs/deploy.md, "Health probe").
    mirror = f"123456789012.dkr.ecr.{REGION}.amazonaws.com/mirror/busybox@sha256:" + "ab" * 32
    private_probe = NetworkSettings(vpc.id, private, health_probe_image=mirror)
    assert preflight.network_problems(private_probe, ecr_plan, REGION, ec2).problems == ()
    # Still a public registry image: named.
    (problem,) = preflight.network_problems(network, plan, REGION, ec2).problems
    assert "example/api, public.ecr.aws/docker/library/busybox are pulled from outside ECR" in problem


def test_public_subnets_need_an_internet_gateway_route(ec2, tmp_path, catalog):
    vpc, network = healthy(ec2)
    bare = (vpc.subnet("us-east-1a"), vpc.subnet("us-east-1c"))
    vpc.route_table(list(bare))
    report = preflight.network_problems(NetworkSettings(vpc.id, network.private_subnet_ids, bare), plan_of(tmp_path, catalog), REGION, ec2)
    assert report.problems == (f"RUNWAY_PUBLIC_SUBNET_IDS: {bare[0]}, {bare[1]} have no route to 0.0.0.0/0 through an internet gateway "
                               "(an internet-facing ALB needs one)",)


def deploy_environ(moto_server, network: NetworkSettings, **extra: str) -> dict[str, str]:
    env = moto_server.env(
        RUNWAY_VPC_ID=network.vpc_id, RUNWAY_PRIVATE_SUBNET_IDS=",".join(network.private_subnet_ids),
        PULUMI_CONFIG_PASSPHRASE="test-passphrase-not-secret", **extra,
    )
    if network.public_subnet_ids:
        env["RUNWAY_PUBLIC_SUBNET_IDS"] = ",".join(network.public_subnet_ids)
    return env


def test_preview_exits_3_naming_subnets_that_share_one_zone(moto_server, ec2, tmp_path, monkeypatch):
    vpc = Vpc(ec2)
    a, b = vpc.subnet("us-east-1a"), vpc.subnet("us-east-1a")
    (tmp_path / "runway.yaml").write_text(PRODUCT, encoding="utf-8")
    ran: list[str] = []
    monkeypatch.setattr(automation, "preview", lambda target, on_output: ran.append("preview"))
    monkeypatch.setattr(automation, "stored_state", lambda target: ran.append("stored_state") or stack_outputs.StoredState())
    out, err = io.StringIO(), io.StringIO()
    rc = main(["preview", str(tmp_path), "--env", "dev", "--format", "json"], stdout=out, stderr=err,
              environ=deploy_environ(moto_server, NetworkSettings(vpc.id, (a, b))), which=lambda *a_, **k: "/opt/pulumi/bin/pulumi")
    assert rc == 3, err.getvalue()
    assert f"network: RUNWAY_PRIVATE_SUBNET_IDS: {a}, {b} are all in us-east-1a" in err.getvalue()
    assert ran == []  # Pulumi never ran
    assert json.loads(out.getvalue())["error"]["exit_code"] == 3


# --------------------------------------------------------------------------------------
# The SSM existence check of up: metadata only, before any service changes
# --------------------------------------------------------------------------------------


def spy_on_aws(monkeypatch) -> list[str]:
    """Every AWS operation the pipeline's boto3 clients send (botocore's before-call event)."""
    calls: list[str] = []
    real = preflight.aws_client

    def client(service, region, environ):
        c = real(service, region, environ)
        c.meta.events.register("before-call", lambda model, **kw: calls.append(f"{service}:{model.name}"))
        return c

    monkeypatch.setattr(preflight, "aws_client", client)
    return calls


@pytest.fixture
def fake_infisical(monkeypatch):
    from test_deploy_cli import infisical

    with infisical(monkeypatch) as (srv, environ):
        yield srv, environ


def up_with_parameters(moto_server, ec2, tmp_path, monkeypatch, fake_infisical, present: str) -> tuple[int, str, list[str], list[str], Any]:
    """``up`` of PRODUCT with the SSM parameters ``present`` (``all``, or ``all-but-one``) in moto."""
    srv, infisical_env = fake_infisical
    _, network = healthy(ec2)
    root = tmp_path / f"p-{uuid.uuid4().hex[:6]}"
    root.mkdir()
    (root / "runway.yaml").write_text(PRODUCT, encoding="utf-8")
    product = f"faults{uuid.uuid4().hex[:6]}"  # own parameter path per test in the shared moto
    (root / "runway.yaml").write_text(PRODUCT.replace("product: faults", f"product: {product}"), encoding="utf-8")
    from runway_core.catalog import load_catalog

    plan = analyze(str(root / "runway.yaml"), load_catalog()).plans["dev"]
    names = sorted(required_parameters(plan, product))
    assert names == [f"/runway/{product}/dev/api/API_SIGNING_KEY", f"/runway/{product}/dev/jobs/JOBS_ARN", f"/runway/{product}/dev/jobs/JOBS_URL"]
    ssm = moto_server.client("ssm")
    for name in names if present == "all" else names[1:]:
        ssm.put_parameter(Name=name, Value="synced-by-infisical", Type="SecureString")
    phases: list[str] = []

    def up(target, on_output):
        phases.append("data" if target.exclude else "all")
        outputs = {"resources": {"jobs": {"variables": {"JOBS_URL": "https://sqs.example/q", "JOBS_ARN": "arn:aws:sqs:us-east-1:1:q"}}}}
        return UpSummary({"create": 1}, (f"urn:pulumi:{product}-dev::runway-{product}::runway:aws:Queue::dev-jobs",), outputs)

    monkeypatch.setattr(automation, "up", up)
    monkeypatch.setattr(automation, "stored_state", lambda target: stack_outputs.StoredState())
    calls = spy_on_aws(monkeypatch)
    environ = {**deploy_environ(moto_server, network), **{k: v for k, v in infisical_env.items() if k.startswith(("INFISICAL", "RUNWAY_DEPLOY"))},
               "RUNWAY_SSM_SYNC_TIMEOUT_S": "0"}
    out, err = io.StringIO(), io.StringIO()
    rc = main(["up", str(root), "--env", "dev", "--format", "json"], stdout=out, stderr=err, environ=environ,
              which=lambda *a, **k: "/opt/pulumi/bin/pulumi")
    receipt = json.loads(out.getvalue())
    return rc, err.getvalue(), phases, calls, (receipt, names, srv)


def test_a_missing_ssm_parameter_fails_up_before_any_service_changes(moto_server, ec2, tmp_path, monkeypatch, fake_infisical):
    rc, err, phases, calls, (receipt, names, srv) = up_with_parameters(moto_server, ec2, tmp_path, monkeypatch, fake_infisical, "all-but-one")
    missing = names[0]
    assert rc == 7, err
    assert phases == ["data"]  # the services phase never ran
    assert receipt["outcome"] == "failed" and receipt["exit_code"] == 7
    assert f"{missing} (api)" in receipt["reason"] and "no service was changed" in receipt["reason"]
    assert "dev:/runtime/api/" in receipt["reason"]  # where the value is set, for the sync to copy it
    # The queue's values were written to Infisical (phase 2) before the wait.
    assert receipt["secrets_written"] == ["dev:/runtime/jobs/JOBS_URL", "dev:/runtime/jobs/JOBS_ARN"]
    assert srv.secrets[("dev", "/runtime/jobs", "JOBS_URL")] == "https://sqs.example/q"
    # Metadata only: no parameter value was ever read.
    assert set(c for c in calls if c.startswith("ssm:")) == {"ssm:DescribeParameters"}
    assert not any("GetParameter" in c for c in calls)


def test_with_every_parameter_present_up_runs_the_services_phase(moto_server, ec2, tmp_path, monkeypatch, fake_infisical):
    rc, err, phases, calls, (receipt, _, _) = up_with_parameters(moto_server, ec2, tmp_path, monkeypatch, fake_infisical, "all")
    assert rc == 0, err
    assert phases == ["data", "all"] and receipt["outcome"] == "succeeded"
    assert "phase 3: waiting up to 0 s for the Infisical -> SSM sync (3 parameters)" in err
    assert {c for c in calls if c.startswith("ec2:")} == {"ec2:DescribeVpcs", "ec2:DescribeSubnets", "ec2:DescribeRouteTables"}


def test_the_wait_polls_until_the_sync_has_run(moto_server):
    """A bounded wait: the parameter appears after two polls (the sync), the wait ends there."""
    ssm = moto_server.client("ssm")
    product = f"w{uuid.uuid4().hex[:6]}"
    name = f"/runway/{product}/dev/db/DB_URL"
    now = [0.0]
    polls: list[float] = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        now[0] += seconds
        if len(polls) == 2:  # the sync writes the parameter meanwhile
            ssm.put_parameter(Name=name, Value="v", Type="SecureString")

    wait = preflight.wait_for_parameters(ssm, product, "dev", [name], timeout_s=60, interval_s=10, clock=lambda: now[0], sleep=sleep)
    assert wait.missing == [] and wait.polls == 3 and polls == [10, 10]
    gone = preflight.wait_for_parameters(ssm, product, "dev", [name + "X"], timeout_s=25, interval_s=10, clock=lambda: now[0], sleep=sleep)
    assert gone.missing == [name + "X"] and gone.polls == 4  # 0, 10, 20, 25 s: then it gives up


# --------------------------------------------------------------------------------------
# After up: every service runs its declared task definition, steady
# --------------------------------------------------------------------------------------


def ecs_service(moto_server, name: str) -> tuple[str, str, str, str]:
    """(cluster ARN, service ARN, its task definition ARN, a newer revision's ARN) in moto."""
    ecs = moto_server.client("ecs")
    cluster = ecs.create_cluster(clusterName=name)["cluster"]["clusterArn"]
    first = ecs.register_task_definition(family=name, containerDefinitions=[{"name": "app", "image": "example/app", "memory": 512}])
    second = ecs.register_task_definition(family=name, containerDefinitions=[{"name": "app", "image": "example/app:2", "memory": 512}])
    td1, td2 = first["taskDefinition"]["taskDefinitionArn"], second["taskDefinition"]["taskDefinitionArn"]
    service = ecs.create_service(cluster=cluster, serviceName=name, taskDefinition=td1, desiredCount=2)["service"]["serviceArn"]
    return cluster, service, td1, td2


def test_a_service_that_is_not_steady_or_runs_another_revision_is_named(moto_server):
    ecs = moto_server.client("ecs")
    cluster, service, td1, td2 = ecs_service(moto_server, f"c{uuid.uuid4().hex[:6]}")
    # moto's tasks never start: the rollout stays IN_PROGRESS with 0 of 2 running.
    (problem,) = preflight.unsteady_services(ecs, cluster, {"api": (service, td1)})
    assert problem == "api: not steady: rollout IN_PROGRESS, 0 of 2 tasks running, 1 deployment(s)"
    # Declared revision 2 while the service runs revision 1: what a circuit-breaker rollback leaves.
    (problem,) = preflight.unsteady_services(ecs, cluster, {"api": (service, td2)})
    assert problem.startswith(f"api: runs {td1}, not {td2}")
    assert preflight.unsteady_services(ecs, cluster, {}) == []


def test_up_fails_when_a_service_did_not_reach_steady_state(moto_server, ec2, tmp_path, monkeypatch, fake_infisical):
    srv, infisical_env = fake_infisical
    _, network = healthy(ec2)
    product = f"s{uuid.uuid4().hex[:6]}"
    (tmp_path / "runway.yaml").write_text(PRODUCT.replace("product: faults", f"product: {product}"), encoding="utf-8")
    cluster, service, td1, _ = ecs_service(moto_server, product)
    outputs = {"resources": {"api": {"service_arn": service, "task_definition_arn": td1}}, "environment_resources": {"ecs_cluster_arn": cluster}}
    phases: list[str] = []
    monkeypatch.setattr(automation, "up", lambda target, on_output: phases.append("data" if target.exclude else "all") or UpSummary({}, (), outputs))
    monkeypatch.setattr(automation, "stored_state", lambda target: stack_outputs.StoredState())
    monkeypatch.setattr(preflight, "wait_for_parameters", lambda *a, **k: preflight.ParameterWait())
    environ = {**deploy_environ(moto_server, network), **{k: v for k, v in infisical_env.items() if k.startswith(("INFISICAL", "RUNWAY_DEPLOY"))}}
    out, err = io.StringIO(), io.StringIO()
    rc = main(["up", str(tmp_path), "--env", "dev", "--format", "json"], stdout=out, stderr=err, environ=environ,
              which=lambda *a, **k: "/opt/pulumi/bin/pulumi")
    assert rc == 7, err.getvalue()
    receipt = json.loads(out.getvalue())
    assert phases == ["data", "all"] and receipt["outcome"] == "failed"
    assert "not every service reached steady state: api: not steady: rollout IN_PROGRESS, 0 of 2 tasks running" in receipt["reason"]
