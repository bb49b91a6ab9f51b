"""Pre-flight checks against the AWS account, before Pulumi changes anything (docs/deploy.md,
"Pre-flight").

- :func:`network_problems` (``preview`` and ``up``; exit 3): the VPC exists; every configured
  subnet exists and belongs to it; the private subnets span at least two Availability Zones
  (RDS subnet groups, ElastiCache Multi-AZ and ECS spread need it) and so do the public ones
  (an ALB needs two); when the plan runs workloads, each private subnet has a route out
  (``0.0.0.0/0`` to a NAT gateway, a transit gateway or an appliance) or else the VPC
  endpoints the tasks need (ECR ``api`` and ``dkr``, the S3 gateway for image layers, CloudWatch
  ``logs``, ``ssm`` for the parameters, ``secretsmanager``), and images from a registry other
  than ECR always need the route; public subnets route ``0.0.0.0/0`` to an internet gateway.
- :func:`missing_parameters` / :func:`wait_for_parameters` (``up``; exit 7): every SSM parameter a
  task definition references exists, checked **by metadata only** (``DescribeParameters``: names,
  never a value; no ``GetParameter``), polled for a bounded time while the Infisical -> SSM sync
  fills them.
- :func:`unsteady_services` (after ``up``; exit 7): every ECS service runs the task definition
  the program declared and reached steady state (``wait_for_steady_state`` waits; this makes
  sure a rollback by the circuit breaker is not taken for success).

AWS calls go through boto3 clients made by :func:`aws_client` (credentials and endpoint from the
run's environment, else boto3's usual chain). Every AWS error becomes :class:`PreflightError`
with the API and the error code (e.g. ``AccessDenied`` on ``ec2:DescribeSubnets``), never a
traceback. Each call has a total deadline (``RUNWAY_STORE_TIMEOUT_S``, default 60 s: botocore's
own timeouts restart with every byte). Read-only: nothing here creates or changes anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .layout import health_probe_image, is_private_ecr, parameter_root
from .settings import ENV_VARS

#: VPC endpoint services (``com.amazonaws.<region>.<name>``) ECS Fargate tasks need without a NAT.
REQUIRED_ENDPOINTS = ("ecr.api", "ecr.dkr", "s3", "logs", "ssm", "secretsmanager")
#: Route targets that carry traffic out of a private subnet.
_EGRESS_TARGETS = ("NatGatewayId", "TransitGatewayId", "NetworkInterfaceId", "InstanceId", "VpcPeeringConnectionId", "CoreNetworkArn")
#: DescribeParameters: at most 50 results per page.
_PAGE = 50


class PreflightError(Exception):
    """An AWS call of the pre-flight failed (credentials, permissions, endpoint); the message
    names the API and AWS's error code."""


@dataclass(frozen=True)
class NetworkReport:
    """``problems`` refuse the run (exit 3); ``checked`` names what was verified."""

    problems: tuple[str, ...] = ()
    checked: tuple[str, ...] = ()


class DeadlineClient:
    """A boto3 client whose every method call (one AWS request with botocore's retries) has
    a total deadline of ``deadline_s`` seconds (:func:`deploy_engine.aws_clients.within`): an
    endpoint that drips its answer raises :class:`PreflightError` naming the call, never a
    pre-flight that runs for ever. Attributes that are not callables (``meta``) pass through."""

    def __init__(self, client: Any, service: str, deadline_s: float) -> None:
        self._client = client
        self._service = service
        self._deadline_s = deadline_s

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr) or name.startswith("_"):
            return attr
        from .aws_clients import within

        def timed_out() -> PreflightError:
            return PreflightError(f"{self._service}:{name}: no complete answer within the {self._deadline_s:g} s deadline of an "
                                  f"AWS call (RUNWAY_STORE_TIMEOUT_S); the endpoint is not answering, or too slowly")

        def call(*args: Any, **kwargs: Any) -> Any:
            return within(self._deadline_s, lambda: attr(*args, **kwargs), timed_out)

        return call


def aws_client(service: str, region: str, environ: Mapping[str, str]) -> Any:
    """A boto3 client for ``service`` in ``region``: keys, session token, profile and endpoint
    (``AWS_ENDPOINT_URL_<SERVICE>``, else ``AWS_ENDPOINT_URL``) from ``environ`` when set, else
    boto3's own chain (environment, config files, web identity, instance role). Built by
    :func:`deploy_engine.aws_clients.make_client`: a configuration botocore refuses (a profile
    that does not exist, a bogus ``AWS_DEFAULTS_MODE``...) raises :class:`PreflightError`
    naming the setting, as a failed call does. Each call has the total deadline of
    ``RUNWAY_STORE_TIMEOUT_S`` (default 60 s; :class:`DeadlineClient`); a value of it that is no
    number of seconds raises :class:`PreflightError` too."""
    from .aws_clients import AwsConfigError, make_client
    from .records.s3_store import store_deadline
    from .records.store import StoreConfigError

    try:
        deadline_s = store_deadline(environ)
    except StoreConfigError as exc:
        raise PreflightError(str(exc)) from None
    keys = {name: environ[var] for name, var in (("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
                                                 ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
                                                 ("aws_session_token", "AWS_SESSION_TOKEN")) if environ.get(var)}
    endpoint = environ.get(f"AWS_ENDPOINT_URL_{service.upper().replace('-', '_')}") or environ.get("AWS_ENDPOINT_URL") or None
    try:
        client = make_client(service, environ, profile=environ.get("AWS_PROFILE") or None, region=region, keys=keys,
                             endpoint=endpoint, sources={"profile": "AWS_PROFILE", "region": "the runway's region"})
    except AwsConfigError as exc:
        raise PreflightError(f"{service} client: {exc}") from None
    return DeadlineClient(client, service, deadline_s)


def _call(what: str, fn: Callable[..., Any], **kw: Any) -> Any:
    try:
        return fn(**kw)
    except PreflightError:
        raise  # past its deadline (DeadlineClient): already names the call
    except Exception as exc:  # noqa: BLE001 - botocore's ClientError, NoCredentialsError, EndpointConnectionError...
        response = getattr(exc, "response", None) or {}
        code = (response.get("Error") or {}).get("Code") or type(exc).__name__
        message = (response.get("Error") or {}).get("Message") or str(exc)
        raise PreflightError(f"{what}: {code}: {message}") from None


def _pages(what: str, fn: Callable[..., Any], key: str, **kw: Any) -> list[Any]:
    items: list[Any] = []
    token: str | None = None
    while True:
        page = _call(what, fn, **kw, **({"NextToken": token} if token else {}))
        items.extend(page.get(key) or [])
        token = page.get("NextToken")
        if not token:
            return items


def _route_tables(ec2: Any, vpc_id: str, subnet_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Subnet -> the route table that applies to it (its own association, else the VPC's main table)."""
    tables = _pages("ec2:DescribeRouteTables", ec2.describe_route_tables, "RouteTables", Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])
    main = next((t for t in tables if any(a.get("Main") for a in t.get("Associations") or [])), None)
    found: dict[str, dict[str, Any]] = {}
    for t in tables:
        for a in t.get("Associations") or []:
            if a.get("SubnetId") in subnet_ids:
                found[a["SubnetId"]] = t
    return {s: found.get(s) or main or {"Routes": []} for s in subnet_ids}


def _default_route(table: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for r in table.get("Routes") or []:
        if r.get("DestinationCidrBlock") == "0.0.0.0/0" and r.get("State", "active") == "active":
            return r
    return None


def network_problems(network: Any, plan: Any, region: str, ec2: Any) -> NetworkReport:
    """Check ``network`` (:class:`~deploy_engine.settings.NetworkSettings`) against the account
    through ``ec2`` (a boto3 EC2 client). Raises :class:`PreflightError` when a call fails."""
    problems: list[str] = []
    checked: list[str] = []
    vpc = network.vpc_id
    vpcs = _call("ec2:DescribeVpcs", ec2.describe_vpcs, Filters=[{"Name": "vpc-id", "Values": [vpc]}]).get("Vpcs") or []
    if not vpcs:
        return NetworkReport((f"{ENV_VARS['vpc_id']}: {vpc} does not exist in {region} (in the account the credentials belong to)",), ())
    checked.append(f"VPC {vpc}")
    private, public = list(network.private_subnet_ids), list(network.public_subnet_ids)
    wanted = private + public
    subnets = {s["SubnetId"]: s for s in _pages("ec2:DescribeSubnets", ec2.describe_subnets, "Subnets",
                                                 Filters=[{"Name": "subnet-id", "Values": wanted}])}
    for field_name, ids in (("private_subnet_ids", private), ("public_subnet_ids", public)):
        if not ids:
            continue
        var = ENV_VARS[field_name]
        missing = [s for s in ids if s not in subnets]
        if missing:
            problems.append(f"{var}: {', '.join(missing)} do(es) not exist in {region}")
        foreign = [f"{s} (in {subnets[s]['VpcId']})" for s in ids if s in subnets and subnets[s]["VpcId"] != vpc]
        if foreign:
            problems.append(f"{var}: {', '.join(foreign)} not in {vpc}")
        zones: dict[str, list[str]] = {}
        for s in ids:
            if s in subnets:
                zones.setdefault(subnets[s]["AvailabilityZone"], []).append(s)
        if len(zones) == 1 and not missing:
            (zone, members), = zones.items()
            problems.append(f"{var}: {', '.join(members)} are all in {zone}: they must span at least 2 Availability Zones")
        checked.append(f"{var}: {len(ids)} subnets in {len(zones)} zones")
    if problems:
        return NetworkReport(tuple(problems), tuple(checked))
    workloads = [i for i in plan.items if i.kind == "workload"]
    tables = _route_tables(ec2, vpc, wanted)
    if workloads:
        without_route = [s for s in private if not (_default_route(tables[s]) and any(k in _default_route(tables[s]) for k in _EGRESS_TARGETS))]
        if without_route:
            services = {e["ServiceName"].rsplit(f"{region}.", 1)[-1] for e in _pages(
                "ec2:DescribeVpcEndpoints", ec2.describe_vpc_endpoints, "VpcEndpoints", Filters=[{"Name": "vpc-id", "Values": [vpc]}])
                if e.get("State", "available").lower() in ("available", "pending")}
            absent = [e for e in REQUIRED_ENDPOINTS if e not in services]
            # The health probe sidecar's image is pulled too (internal health.path workloads).
            images = [str(w.capacity["image"]) for w in workloads] + [i for w in workloads if (i := health_probe_image(network, w.capacity))]
            outside = sorted({i.split("@")[0] for i in images if not is_private_ecr(i)})
            where = f"{ENV_VARS['private_subnet_ids']}: {', '.join(without_route)} have no route to 0.0.0.0/0 through a NAT gateway"
            if outside:
                problems.append(f"{where}, and the images {', '.join(outside)} are pulled from outside ECR: ECS tasks there cannot "
                                "start without one (VPC endpoints reach AWS services only)")
            if absent:
                problems.append(f"{where} and {vpc} lacks the VPC endpoints ECS tasks need without one: "
                                + ", ".join(f"com.amazonaws.{region}.{e}" for e in absent))
        checked.append("private subnets: a route out or the VPC endpoints")
    if public:
        no_igw = [s for s in public if not str((_default_route(tables[s]) or {}).get("GatewayId", "")).startswith("igw-")]
        if no_igw:
            problems.append(f"{ENV_VARS['public_subnet_ids']}: {', '.join(no_igw)} have no route to 0.0.0.0/0 through an internet gateway "
                            "(an internet-facing ALB needs one)")
        checked.append("public subnets: an internet gateway route")
    return NetworkReport(tuple(problems), tuple(checked))


def existing_parameters(ssm: Any, root: str) -> set[str]:
    """Names of the SSM parameters under ``root`` (recursive), from ``DescribeParameters``:
    metadata only, never a value."""
    found = _pages("ssm:DescribeParameters", ssm.describe_parameters, "Parameters",
                   ParameterFilters=[{"Key": "Path", "Option": "Recursive", "Values": [root]}], MaxResults=_PAGE)
    return {p["Name"] for p in found}


def missing_parameters(ssm: Any, product: str, environment: str, names: Iterable[str]) -> list[str]:
    """The ``names`` (SSM parameter names under ``/runway/<product>/<env>``) that do not exist, sorted."""
    present = existing_parameters(ssm, parameter_root(product, environment))
    return sorted(set(names) - present)


@dataclass
class ParameterWait:
    """The result of :func:`wait_for_parameters`: ``missing`` (empty when all exist), polls made."""

    missing: list[str] = field(default_factory=list)
    polls: int = 0


def wait_for_parameters(
    ssm: Any, product: str, environment: str, names: Iterable[str], *, timeout_s: float, interval_s: float = 10.0,
    clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
) -> ParameterWait:
    """Poll :func:`missing_parameters` until none is missing or ``timeout_s`` (seconds) passed.

    The Infisical -> SSM sync runs when a secret changes in Infisical (and on its own schedule),
    so values written by this ``up`` appear after a delay; the wait is bounded and fails closed.
    """
    wanted = sorted(set(names))
    end = clock() + max(0.0, timeout_s)
    result = ParameterWait()
    while True:
        result.missing = missing_parameters(ssm, product, environment, wanted) if wanted else []
        result.polls += 1
        if not result.missing or clock() >= end:
            return result
        sleep(max(0.0, min(interval_s, end - clock())))


def sync_advice(product: str, environment: str, slug: str, missing: Sequence[str]) -> str:
    """How to fix missing parameters: which Infisical folder fills which SSM path (docs/deploy.md)."""
    folders = sorted({name.split("/")[4] for name in missing if name.count("/") >= 5})
    return (f"the Infisical -> SSM sync fills {parameter_root(product, environment)}/<resource>/ from {slug}:/runtime/<resource>/; "
            f"check that a Parameter Store sync exists for {', '.join(f'{slug}:/runtime/{f}/' for f in folders)} "
            "with that path and key format (docs/deploy.md, \"Infisical -> SSM\"), and that a workload's own secrets are set in its folder")


__all__ = [
    "REQUIRED_ENDPOINTS",
    "NetworkReport",
    "ParameterWait",
    "PreflightError",
    "aws_client",
    "existing_parameters",
    "missing_parameters",
    "network_problems",
    "sync_advice",
    "unsteady_services",
    "wait_for_parameters",
]


def pending_modifications(rds: Any, databases: Mapping[str, tuple[str, str]]) -> list[str]:
    """After ``up``: what RDS holds for the next maintenance window (``apply_immediately`` off
    outside disposable environments), so ``up`` never reports a change as done while it is
    pending. ``databases``: postgres name -> (flavor ``rds`` / ``aurora``, its ARN, which
    DescribeDBInstances / DescribeDBClusters take as the identifier). Reads
    ``PendingModifiedValues`` (botocore's rds service model: ``EngineVersion``,
    ``AllocatedStorage``, ``DBInstanceClass``, ``MultiAZ``, ``StorageType``); returns one line per
    database with something pending, e.g. ``main-db: upgrade to 17.2 (now 16.4) scheduled for
    the next maintenance window``. Raises :class:`PreflightError`."""
    lines: list[str] = []
    for name, (flavor, arn) in databases.items():
        if flavor == "aurora":
            page = _call("rds:DescribeDBClusters", rds.describe_db_clusters, DBClusterIdentifier=arn)
            found = (page.get("DBClusters") or [{}])[0]
        else:
            page = _call("rds:DescribeDBInstances", rds.describe_db_instances, DBInstanceIdentifier=arn)
            found = (page.get("DBInstances") or [{}])[0]
        pending = found.get("PendingModifiedValues") or {}
        parts = []
        if pending.get("EngineVersion"):
            parts.append(f"upgrade to {pending['EngineVersion']} (now {found.get('EngineVersion')})")
        if pending.get("AllocatedStorage"):
            parts.append(f"storage {pending['AllocatedStorage']} GB (now {found.get('AllocatedStorage')} GB)")
        if pending.get("DBInstanceClass"):
            parts.append(f"instance class {pending['DBInstanceClass']} (now {found.get('DBInstanceClass')})")
        if pending.get("MultiAZ") is not None:
            parts.append("Multi-AZ " + ("on" if pending["MultiAZ"] else "off"))
        if pending.get("StorageType"):
            parts.append(f"storage type {pending['StorageType']}")
        if parts:
            lines.append(f"{name}: {', '.join(parts)} scheduled for the next maintenance window")
    return lines


def unsteady_services(ecs: Any, cluster: str, services: Mapping[str, tuple[str, str]]) -> list[str]:
    """After ``up``: each ECS service of ``services`` (workload -> (service ARN, task definition
    ARN the program declared)) runs that task definition and has reached steady state: one
    deployment, ``PRIMARY`` with that task definition, rollout ``COMPLETED`` (when ECS reports
    one), as many tasks running as desired. A deployment the circuit breaker rolled back runs
    the previous revision: not steady. Returns one line per service that is not; raises
    :class:`PreflightError`. ``ecs:DescribeServices`` only."""
    if not services:
        return []
    arns = [arn for arn, _ in services.values()]
    found: dict[str, Any] = {}
    for i in range(0, len(arns), 10):  # DescribeServices takes up to 10 services
        page = _call("ecs:DescribeServices", ecs.describe_services, cluster=cluster, services=arns[i:i + 10])
        found.update({s["serviceArn"]: s for s in page.get("services") or []})
    problems: list[str] = []
    for workload, (arn, task_definition) in services.items():
        s = found.get(arn)
        if s is None:
            problems.append(f"{workload}: service {arn} not found in {cluster}")
            continue
        deployments = s.get("deployments") or []
        primary = next((d for d in deployments if d.get("status") == "PRIMARY"), None)
        if primary is None or primary.get("taskDefinition") != task_definition:
            problems.append(f"{workload}: runs {primary.get('taskDefinition') if primary else 'no deployment'}, not {task_definition} "
                            "(rolled back by the deployment circuit breaker?)")
        elif len(deployments) > 1 or primary.get("rolloutState", "COMPLETED") != "COMPLETED" \
                or s.get("runningCount") != s.get("desiredCount"):
            problems.append(f"{workload}: not steady: rollout {primary.get('rolloutState')}, {s.get('runningCount')} of "
                            f"{s.get('desiredCount')} tasks running, {len(deployments)} deployment(s)")
    return problems
