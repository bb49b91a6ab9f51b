"""``runway:aws:Workload``: one container workload on ECS Fargate (ADR 0493 §2).

Children: a ``cloudwatch.LogGroup`` (``/runway/<product>/<env>/<workload>``, 30 days), an
execution ``iam.Role`` + ``RolePolicy`` (its log group, the SSM parameters it reads, a private
ECR image), a task ``iam.Role`` + ``RolePolicy`` when it uses a queue, topic or bucket (trust
limited by ``aws:SourceAccount`` and ``aws:SourceArn``), an ``ecs.TaskDefinition`` (Fargate,
ARM64 or X86_64) and an ``ecs.Service`` that **waits for steady state** (``wait_for_steady_state``:
``pulumi up`` fails when the tasks do not turn healthy) with the deployment circuit breaker.
``expose: internal``: a ``servicediscovery.Service`` in the environment's namespace.
``expose: public``: an ``lb.TargetGroup`` (auto-named: a port change replaces it without
meeting its own name), an ``lb.ListenerRule`` at a priority that never moves
(:func:`deploy_engine.layout.listener_priorities`), and with a hosted zone a ``route53.Record``
alias ``<workload>.<domain>`` -> the ALB.

Secrets: the container gets every secret and injected variable as ``{"name", "valueFrom":
<SSM parameter ARN>}`` (:func:`deploy_engine.layout.workload_parameters`); the parameters are
created and filled by the Infisical -> SSM sync, never by the program. ECS reads them when a
task starts, so the task definition carries two Docker labels that change with what its tasks
would read: ``runway.credentials`` (the credential version of each postgres it uses: a
rotation bumps it) and ``runway.values`` (a digest of the non-secret values it reads: a queue
URL, a proxy endpoint). A change to either is a new task definition revision, hence a new ECS
deployment: running tasks never keep a stale password or endpoint.

Health checks: ``health.path`` is the target group's HTTP check of a public workload (never a
check inside the container: many images ship neither a shell nor curl); ``health.command`` is
the container health check (``["CMD", ...]`` unless it starts with ``CMD`` / ``CMD-SHELL``).
An **internal** workload with ``health.path`` has no load balancer to call it, so its task gets
a second, essential container, the health probe (:func:`probe_container`), whose ECS container
health check GETs ``http://127.0.0.1:<port><path>``: what the image of the application ships
does not matter (a distroless image has no shell, curl or wget). Why this replaces a hung task,
from AWS's documentation:

- awsvpc (Fargate's only network mode) gives the task one ENI, and "containers that belong to
  the same task can also communicate over the ``localhost`` interface" (Amazon ECS Developer
  Guide, "Amazon ECS task networking options for Fargate");
- "The container health check status of nonessential containers only affects the health status
  of a task if no essential containers have health checks defined"; a task is UNHEALTHY when
  "one or more essential containers have failed their health check", and "for tasks that are
  part of a service, if the task reports as unhealthy then the task will be stopped and the
  service scheduler will replace it" (Amazon ECS API Reference, ``HealthCheck``). The ECS agent
  reports health only for containers whose task definition has a check
  (amazon-ecs-agent, ``agent/api/container/container.go``, ``HealthStatusShouldBeReported``),
  so the application container, without one, does not hold the task at UNKNOWN;
- the Cloud Map service has custom health (``HealthCheckCustomConfig``: Cloud Map only records
  what it is told, AWS Cloud Map API Reference), which ECS keeps for its tasks: the stopped
  task's instance is deregistered either way.

The probe takes :data:`PROBE_CPU_UNITS` and :data:`PROBE_MEMORY_MIB` out of the task's Fargate
cpu/memory (the application container gets the rest), so the task size and its price do not change.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

import pulumi
from ._aws import load as _load_aws

from runway_core import kinds
from runway_core.planner import ItemPlan, env_prefix

from ..layout import HEALTH_PROBE_IMAGE, health_probe_image, needs_probe, used_items, workload_parameters
from .common import Context, Offer, child, is_private_ecr, plain_trust, policy
from .environment import Environment

aws = _load_aws()

#: Docker labels of the task definition that change with what its tasks read at start.
LABEL_CREDENTIALS = "runway.credentials"
LABEL_VALUES = "runway.values"
#: Seconds a new task may fail its load-balancer health check before ECS counts it.
GRACE_PERIOD_S = 60
#: The probe's container name in the task (the application container is named after the workload).
PROBE_CONTAINER = "health-probe"
#: CPU units (1024 = 1 vCPU) and MiB the probe takes from the task's Fargate size: a wget
#: every ``interval_s`` seconds and a sleeping process; the smallest task (256 units, 512 MiB)
#: keeps 240 units and 480 MiB for the application.
PROBE_CPU_UNITS = 16
PROBE_MEMORY_MIB = 32
#: Retries and start period of every container health check runway declares (ECS allows
#: 1-10 and 0-300 seconds; Amazon ECS API Reference, ``HealthCheck``).
HEALTH_RETRIES = 3
HEALTH_START_PERIOD_S = 60


def container_health(health: Mapping[str, Any]) -> dict[str, Any] | None:
    """The container health check from ``health.command``, else None (see the module docstring)."""
    if not health.get("command"):
        return None
    command = [str(c) for c in health["command"]]
    if command[0] not in ("CMD", "CMD-SHELL"):
        command = ["CMD", *command]
    return _check(command, health)


def _check(command: list[str], health: Mapping[str, Any]) -> dict[str, Any]:
    """An ECS ``HealthCheck`` (seconds) running ``command``, timed by ``health``'s ``interval_s``/``timeout_s``."""
    interval = int(health.get("interval_s") or 30)
    timeout = int(health.get("timeout_s") or 5)
    return {"command": command, "interval": interval, "timeout": timeout, "retries": HEALTH_RETRIES, "startPeriod": HEALTH_START_PERIOD_S}


def probe_command(port: int, path: str) -> list[str]:
    """The probe's ECS health check command (exec form): an HTTP GET of ``path`` on the task's localhost."""
    return ["CMD", "wget", "-q", "-O", "/dev/null", f"http://127.0.0.1:{port}{path}"]


def probe_container(health: Mapping[str, Any], port: int, image: str, log_options: Mapping[str, str]) -> dict[str, Any]:
    """The essential health probe container of an internal ``health.path`` workload (module docstring).

    Its main process only sleeps (``sleep`` under ECS's init process, so a task stop's SIGTERM ends it
    at once); its health check is ``wget -q -O /dev/null http://127.0.0.1:<port><path>`` in exec
    form. BusyBox ``wget`` exits 1 on a refused connection or an HTTP status of 400 or more and
    0 on 2xx (following a redirect); a GET that hangs is ended by the check's own ``timeout``
    (``timeout_s``: "the time period in seconds to wait for a health check to succeed before it is
    considered a failure", Amazon ECS API Reference, ``HealthCheck``). No ``-T``: Debian's
    BusyBox 1.35 ``wget -T`` segfaulted (exit 139) here on every GET, which would fail every check.
    A hung or failing application so turns the task UNHEALTHY after ``retries`` failures and ECS
    replaces it (tests/deploy/test_program_mocks.py runs the command against a real BusyBox)."""
    return {
        "name": PROBE_CONTAINER,
        "image": image,
        "essential": True,
        "cpu": PROBE_CPU_UNITS,
        "memory": PROBE_MEMORY_MIB,
        # 2^31-1 seconds: BusyBox sleep's argument is an unsigned int; the process never needs to end.
        "command": ["sleep", "2147483647"],
        "linuxParameters": {"initProcessEnabled": True},
        "readonlyRootFilesystem": True,
        "stopTimeout": 5,
        "healthCheck": _check(probe_command(port, health["path"]), health),
        "logConfiguration": {"logDriver": "awslogs", "options": dict(log_options)},
    }


def workload_url(ctx: Context, env: Environment, item: ItemPlan) -> Any:
    """``<W>_URL``: ``http(s)://<w>.<domain>`` when public with a domain, the ALB's DNS name without;
    ``http://<w>.<namespace>:<port>`` when internal."""
    w, port = item.name, int(item.capacity["port"])
    if item.capacity.get("expose") == "public":
        if ctx.network.public_domain:
            return f"{ctx.scheme}://{w}.{ctx.network.public_domain}"
        return pulumi.Output.concat(f"{ctx.scheme}://", env.alb.dns_name)
    return f"http://{w}.{env.namespace_name}:{port}"


def values_digest(pairs: Sequence[tuple[str, Any]]) -> str:
    """16 hex of sha256 over the sorted ``(variable, value)`` pairs a task reads (not secret)."""
    doc = json.dumps(sorted((str(k), str(v)) for k, v in pairs), separators=(",", ":"))
    return hashlib.sha256(doc.encode()).hexdigest()[:16]


class Workload(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, env: Environment, offers: Mapping[str, Offer],
                 opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["workload"].component, f"{ctx.env}-{item.name}", None, opts)
        w, cap, tags = item.name, item.capacity, ctx.tags(item.name)
        p = f"{ctx.env}-{w}"
        port = int(cap["port"])
        public = cap.get("expose") == "public"
        # Kept when it leaves the stack (a renamed or removed workload): its logs stay for their
        # retention instead of going with the log group (CloudWatch DeleteLogGroup deletes them).
        log_group = aws.cloudwatch.LogGroup(
            f"{p}-logs", name=f"/runway/{ctx.product}/{ctx.env}/{w}", retention_in_days=int(cap["log_retention_days"]), tags=tags,
            opts=child(self, retain_on_delete=True))
        refs = workload_parameters(ctx.plan, ctx.product)[w]
        arns = [ctx.parameter_arn(path) for _, path in refs]
        grants: list[Mapping[str, Any]] = []
        versions: list[str] = []
        consumed: list[tuple[str, Any]] = []
        for used in used_items(ctx.plan, item):
            offer = offers[used.name]
            grants.extend(offer.grants)
            if offer.credential_version is not None:
                versions.append(f"{used.name}={offer.credential_version}")
            prefix = env_prefix(used.name) + "_"
            consumed += [(prefix + suffix, value) for suffix, value in offer.values.items()]
        statements: list[Any] = [{"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": pulumi.Output.concat(log_group.arn, ":*")}]
        if arns:
            statements.append({"Effect": "Allow", "Action": ["ssm:GetParameters"], "Resource": arns})
        if is_private_ecr(str(cap["image"])):
            # A private ECR image needs the execution role to pull it; other registries are public.
            statements.append({"Effect": "Allow", "Action": ["ecr:GetAuthorizationToken", "ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"], "Resource": "*"})
        execution_role = aws.iam.Role(
            f"{p}-execution-role", assume_role_policy=plain_trust("ecs-tasks.amazonaws.com"),
            description=f"ECS execution role of {w}: logs and its SSM parameters", tags=tags, opts=child(self))
        aws.iam.RolePolicy(f"{p}-execution-policy", name="logs-and-parameters", role=execution_role.id,
                           policy=pulumi.Output.from_input(statements).apply(policy), opts=child(self))
        task_role = None
        if grants:
            task_role = aws.iam.Role(
                f"{p}-task-role", assume_role_policy=ctx.service_trust("ecs-tasks.amazonaws.com", "ecs"),
                description=f"Task role of {w}: the queues, topics and buckets it uses", tags=tags, opts=child(self))
            aws.iam.RolePolicy(f"{p}-task-policy", name="uses", role=task_role.id,
                               policy=pulumi.Output.from_input(grants).apply(policy), opts=child(self))
        health = container_health(cap.get("health") or {})
        probe_image = health_probe_image(ctx.network, cap)
        names = [n for n, _ in refs]
        consumed_values = [v for _, v in consumed]
        credentials_label = ",".join(versions)

        def container_definitions(args: list[Any]) -> str:
            group_name, *rest = args
            arn_values, value_values = rest[: len(arns)], rest[len(arns):]
            container: dict[str, Any] = {
                "name": w,
                "image": cap["image"],
                "essential": True,
                "portMappings": [{"containerPort": port, "protocol": "tcp"}],
                "environment": [{"name": k, "value": str(v)} for k, v in sorted((cap.get("env") or {}).items())],
                "secrets": [{"name": n, "valueFrom": a} for n, a in zip(names, arn_values)],
                "dockerLabels": {
                    LABEL_CREDENTIALS: credentials_label,
                    LABEL_VALUES: values_digest(list(zip([k for k, _ in consumed], value_values))),
                },
                "logConfiguration": {
                    "logDriver": "awslogs",
                    "options": {"awslogs-group": group_name, "awslogs-region": ctx.region, "awslogs-stream-prefix": w},
                },
            }
            if health is not None:
                container["healthCheck"] = health
            if probe_image is None:
                return json.dumps([container], sort_keys=True)
            # The probe's share comes out of the application's: the two hard limits add up to
            # the task's Fargate size exactly (ECS refuses container limits above the task's).
            container["cpu"] = int(cap["cpu_units"]) - PROBE_CPU_UNITS
            container["memory"] = int(cap["memory_mib"]) - PROBE_MEMORY_MIB
            probe = probe_container(cap["health"], port, probe_image,
                                    {"awslogs-group": group_name, "awslogs-region": ctx.region, "awslogs-stream-prefix": f"{w}-{PROBE_CONTAINER}"})
            return json.dumps([container, probe], sort_keys=True)

        task = aws.ecs.TaskDefinition(
            f"{p}-task-definition",
            family=ctx.name(w),
            requires_compatibilities=["FARGATE"],
            network_mode="awsvpc",
            runtime_platform=aws.ecs.TaskDefinitionRuntimePlatformArgs(cpu_architecture=cap["architecture"], operating_system_family="LINUX"),
            cpu=str(cap["cpu_units"]),
            memory=str(cap["memory_mib"]),
            execution_role_arn=execution_role.arn,
            task_role_arn=task_role.arn if task_role is not None else None,
            container_definitions=pulumi.Output.all(log_group.name, *arns, *consumed_values).apply(container_definitions),
            tags=tags,
            opts=child(self),
        )
        extra: dict[str, Any] = {}
        outputs: dict[str, Any] = {}
        waits: list[pulumi.Resource] = []
        if public:
            group = self._public(ctx, env, item, outputs)
            waits = [*env.routed, outputs.pop("_rule")]
            extra["load_balancers"] = [aws.ecs.ServiceLoadBalancerArgs(target_group_arn=group.arn, container_name=w, container_port=port)]
            extra["health_check_grace_period_seconds"] = GRACE_PERIOD_S
        else:
            discovery = aws.servicediscovery.Service(
                f"{p}-discovery",
                name=w,
                dns_config=aws.servicediscovery.ServiceDnsConfigArgs(
                    namespace_id=env.namespace.id,
                    dns_records=[aws.servicediscovery.ServiceDnsConfigDnsRecordArgs(ttl=10, type="A")],
                    routing_policy="MULTIVALUE",
                ),
                # ECS reports each task's health to Cloud Map (custom health): a task whose
                # container health check (health.command, or the probe's GET of health.path)
                # fails leaves DNS, then ECS replaces it.
                health_check_custom_config=aws.servicediscovery.ServiceHealthCheckCustomConfigArgs(),
                force_destroy=True,
                tags=tags,
                opts=child(self),
            )
            extra["service_registries"] = aws.ecs.ServiceServiceRegistriesArgs(registry_arn=discovery.arn)
            outputs["discovery_arn"] = discovery.arn
        service = aws.ecs.Service(
            f"{p}-service",
            cluster=env.cluster.arn,
            task_definition=task.arn,
            desired_count=int(cap["tasks"]),
            launch_type="FARGATE",
            network_configuration=aws.ecs.ServiceNetworkConfigurationArgs(subnets=list(ctx.network.private_subnet_ids), security_groups=[env.workload_sgs[w].id], assign_public_ip=False),
            deployment_circuit_breaker=aws.ecs.ServiceDeploymentCircuitBreakerArgs(enable=True, rollback=True),
            wait_for_steady_state=True,
            propagate_tags="SERVICE",
            enable_ecs_managed_tags=True,
            tags=tags,
            opts=child(self, depends_on=waits) if waits else child(self),
            **extra,
        )
        outputs.update(service_name=service.name, service_arn=service.id, task_definition_arn=task.arn, log_group=log_group.name,
                       url=workload_url(ctx, env, item))
        self.outputs = outputs
        self.register_outputs(dict(outputs))

    def _public(self, ctx: Context, env: Environment, item: ItemPlan, outputs: dict[str, Any]) -> aws.lb.TargetGroup:
        w, cap, tags = item.name, item.capacity, ctx.tags(item.name)
        p = f"{ctx.env}-{w}"
        health = cap.get("health") or {}
        group = aws.lb.TargetGroup(
            f"{p}-target-group",
            port=int(cap["port"]),
            protocol="HTTP",
            target_type="ip",
            vpc_id=ctx.network.vpc_id,
            deregistration_delay=30,
            health_check=aws.lb.TargetGroupHealthCheckArgs(
                enabled=True,
                path=health.get("path") or "/",
                protocol="HTTP",
                port="traffic-port",
                matcher="200-399",
                interval=int(health.get("interval_s") or 30),
                timeout=int(health.get("timeout_s") or 5),
                healthy_threshold=2,
                unhealthy_threshold=3,
            ),
            tags=tags,
            # A replacement (a new port) creates the new group first; the listener rule and the
            # service move to it, then the old one goes.
            opts=child(self),
        )
        domain = ctx.network.public_domain
        if domain:
            condition = aws.lb.ListenerRuleConditionArgs(host_header=aws.lb.ListenerRuleConditionHostHeaderArgs(values=[f"{w}.{domain}"]))
        else:
            # One public workload without a domain (checked before): every path of the ALB.
            condition = aws.lb.ListenerRuleConditionArgs(path_pattern=aws.lb.ListenerRuleConditionPathPatternArgs(values=["/*"]))
        priority = ctx.listener_priorities[w]
        rule = aws.lb.ListenerRule(
            f"{p}-listener-rule",
            listener_arn=env.listener.arn,
            priority=priority,
            actions=[aws.lb.ListenerRuleActionArgs(type="forward", target_group_arn=group.arn)],
            conditions=[condition],
            tags=tags,
            opts=child(self),
        )
        if domain and ctx.network.hosted_zone_id:
            record = aws.route53.Record(
                f"{p}-dns",
                zone_id=ctx.network.hosted_zone_id,
                name=f"{w}.{domain}",
                type="A",
                aliases=[aws.route53.RecordAliasArgs(name=env.alb.dns_name, zone_id=env.alb.zone_id, evaluate_target_health=True)],
                opts=child(self),
            )
            outputs["dns_name"] = record.fqdn
        outputs.update(target_group_arn=group.arn, listener_priority=priority, _rule=rule)
        return group


__all__ = ["HEALTH_PROBE_IMAGE", "LABEL_CREDENTIALS", "LABEL_VALUES", "PROBE_CONTAINER", "PROBE_CPU_UNITS", "PROBE_MEMORY_MIB",
           "Workload", "container_health", "needs_probe", "probe_command", "probe_container", "values_digest", "workload_url"]
