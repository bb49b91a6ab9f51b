"""The Pulumi program: one environment's plan declared as AWS resources (ADR 0493 §2).

:func:`declare_environment` is a pure function of one :class:`EnvironmentPlan` (plus the
network settings and the credentials the deploy job generated): every capacity figure comes
from the plan's items, never from the catalogue again (one planner, RUNWAY_FORMAT.md "Plan").
Nothing happens at import time (STYLE.md §6); the Automation API's inline program calls it
inside a stack. This module imports pulumi and pulumi_aws, so only the deploy code path may
import it (``deploy_engine.cli`` must import it lazily, inside ``preview`` / ``up``); it must not
import pygls or lsprotocol. The stack's ``aws:region`` must be the plan's ``region`` (used here
for the tasks' log configuration).

What each plan item becomes:

- ``postgres`` (``flavor: rds``): ``rds.SubnetGroup``, ``ec2.SecurityGroup``, ``rds.Instance``;
  (``flavor: aurora``): ``rds.Cluster`` + N ``rds.ClusterInstance``; with ``proxy``: a
  ``secretsmanager.Secret`` + ``SecretVersion`` holding the admin login (the proxy's only way
  to log in, ADR 0493 §4), an ``iam.Role`` + ``RolePolicy`` that may read that one secret,
  ``rds.Proxy``, ``rds.ProxyDefaultTargetGroup``, ``rds.ProxyTarget``.
- ``queue``: ``sqs.Queue`` (``.fifo`` name when FIFO) and, with ``dead_letter``, a dead-letter
  queue and a redrive policy. ``topic``: ``sns.Topic``. ``cache``: ``elasticache.SubnetGroup``,
  ``ec2.SecurityGroup``, ``elasticache.ReplicationGroup`` (Valkey, encrypted in transit and at
  rest). ``bucket``: ``s3.Bucket`` + ``BucketVersioning`` + ``BucketPublicAccessBlock`` +
  ``BucketServerSideEncryptionConfiguration`` (SSE-S3, AES256).
- workloads: one ``ecs.Cluster`` per environment; per workload an ``ec2.SecurityGroup`` (its
  rules as ``vpc.SecurityGroupIngressRule`` / ``SecurityGroupEgressRule`` resources, so that
  two workloads using each other make no cycle), a ``cloudwatch.LogGroup`` (kept the plan's
  ``log_retention_days``, the retention its storage line is estimated for), an execution
  ``iam.Role`` + ``RolePolicy`` (its SSM parameters and its log group), a task ``iam.Role`` +
  ``RolePolicy`` when it uses a queue, topic or bucket, an ``ecs.TaskDefinition`` (Fargate,
  ARM64) and an ``ecs.Service``. ``expose: internal``: one
  ``servicediscovery.PrivateDnsNamespace`` per environment and a ``servicediscovery.Service``
  per workload. ``expose: public``: one ALB per environment (``lb.LoadBalancer`` + its security
  group + listeners, below), per workload an ``lb.TargetGroup`` (target type ``ip``).
- bucket: also an ``s3.BucketPolicy`` denying every request not made over TLS
  (``aws:SecureTransport`` false).
- every injected variable of every item: an ``ssm.Parameter``
  ``/runway/<product>/<env>/<resource>/<VAR>``, and every workload secret name:
  ``/runway/<product>/<env>/<workload>/<NAME>`` (see "Secrets" below).

Public routing: with ``certificate_arn`` (settings), an HTTPS ``lb.Listener`` on 443 with
that ACM certificate (TLS policy :data:`TLS_POLICY`) and an HTTP listener on 80 that redirects
to HTTPS (301); without it, one HTTP listener on 80 (the CLI refuses that in production unless
``RUNWAY_ALLOW_HTTP=1``). The forwarding listener's default action goes to the first public
workload (plan order). Each further public workload gets an ``lb.ListenerRule`` matching the
host header ``<workload>.<public_domain>``; host-based rather than path-based routing, because
most images do not serve under a path prefix. Without ``public_domain`` there is no host name
to route or to publish as ``<W>_URL``, so more than one public workload then needs one
(:class:`~deploy_engine.settings.SettingsError`). ``<W>_URL`` of a public workload is
``https://<workload>.<public_domain>`` (``http://`` without a certificate), or
``http(s)://<ALB DNS name>`` without a domain.

Health checks: ``health.path`` is the ALB target group's HTTP health check of a public
workload (an internal workload with a ``path`` gets no health check: ECS health checks run
inside the container, and many images ship neither a shell nor curl). ``health.command`` is
the container health check (``["CMD", ...]`` unless the list starts with ``CMD`` or
``CMD-SHELL``); a public workload with a ``command`` is checked by the ALB on ``/``.

Secrets (RUNWAY_FORMAT.md "Uses and injected variables", ADR 0493 §4): the generated database
password goes only to the RDS master password and, for the proxy, the Secrets Manager secret
version, both as Pulumi secrets. Those three inputs (``password``, ``master_password``,
``secret_string``) are declared with ``ignore_changes``, except for the databases named in
``set_passwords`` (a new database, or a rotation): so a run that does not set a password can
pass any value (``preview`` a fixed placeholder) and shows no diff, and nobody needs to read
the stored one. SSM parameters holding a secret (``<R>_PASSWORD``, the
postgres ``<R>_URL`` which embeds it, a workload's own ``secrets``) are created with the
placeholder :data:`PLACEHOLDER` and ``ignore_changes=["value"]``: the Infisical sync fills
them and later deploys never write them back. They are ``SecureString``, as is the cache
``<R>_URL`` (a connection string by convention; its value carries no password). Containers get
every secret and injected variable as ``{"name", "valueFrom": <parameter ARN>}``, never a
value; ``environment`` holds the plain ``env`` only.

Network (CATALOG.md: outside the runway): everything sits in the settings' private subnets
except the ALB. Each workload has its own security group. A database or cache accepts its
port only from the security groups of the workloads that ``use`` it and, if set,
``allowed_cidr`` (members are not ECS tasks of this environment: they reach a resource only
through ``allowed_cidr``); a workload accepts its port from the workloads that use it, from
the ALB when public, and from ``allowed_cidr`` when internal.

``apply_immediately``: outside production (:data:`~deploy_engine.settings.PRODUCTION_ENVIRONMENTS`)
RDS and ElastiCache apply modifications at once; in production they wait for the maintenance
window (a master password change is applied as soon as possible either way).

Names: logical names ``<env>-<resource>-<part>`` (environment-wide parts under ``workloads``,
``alb`` and ``service-discovery``); AWS names ``<product>-<env>-<resource>[-<part>]`` within each
service's length limit (:func:`aws_name`: truncated with a short hash when too long). Buckets use
that as ``bucket_prefix`` (S3 names are global; AWS appends a unique suffix).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Collection, Mapping, Sequence

import pulumi
import pulumi_aws as aws

from runway_core.planner import EnvironmentPlan, ItemPlan, env_prefix

from .settings import PRODUCTION_ENVIRONMENTS, NetworkSettings, SettingsError

#: The fixed admin login of every postgres resource (``<R>_USER``).
ADMIN_USERNAME = "runway_admin"
#: Value of a secret SSM parameter until the Infisical sync writes the real one.
PLACEHOLDER = "set-by-infisical-sync"
POSTGRES_PORT = 5432
VALKEY_PORT = 6379
LISTENER_PORT = 80
HTTPS_PORT = 443
#: The ALB's TLS policy with a certificate: TLS 1.3 and 1.2 only (AWS's recommended policy).
TLS_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"
#: The inputs that carry a database password, by resource type: ``ignore_changes`` unless set.
PASSWORD_INPUTS = {"instance": "password", "cluster": "master_password", "proxy-secret-version": "secret_string"}
#: Environments where data may be destroyed with the stack (no deletion protection, no final
#: snapshot). Every other environment keeps both.
DISPOSABLE_ENVIRONMENTS = frozenset({"dev"})

# AWS name length limits (service quotas pages of each service).
_LIMIT_RDS = 63  # DB instance / cluster identifier
_LIMIT_PROXY = 60  # DB proxy name
_LIMIT_CACHE_ID = 40  # ElastiCache replication group id
_LIMIT_LB = 32  # ALB and target group names
_LIMIT_IAM_ROLE = 64
_LIMIT_SQS = 80  # including ".fifo"
_LIMIT_SNS = 256  # including ".fifo"
_LIMIT_BUCKET_PREFIX = 37  # s3 bucket_prefix (AWS appends 26 characters)
_LIMIT_GENERIC = 255

_ECS_TASKS_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
_ECR_IMAGE = re.compile(r"^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/")
_RDS_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "rds.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def _all_egress() -> list[aws.ec2.SecurityGroupEgressArgs]:
    # Tasks pull images and call AWS APIs; data stores answer only. Egress is the network's
    # job to narrow (NAT, endpoints), which is outside the runway.
    return [aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"], description="all outbound")]


def aws_name(*parts: str, limit: int = 63) -> str:
    """``<part>-<part>...`` in lowercase, at most ``limit`` characters.

    Consecutive hyphens are collapsed (RDS and ElastiCache refuse them). When the name had to
    change (collapsed or truncated), an 8-hex sha256 of the full name keeps it unique and
    deterministic: ``orders-production-a-very-long-na-1a2b3c4d``.
    """
    raw = "-".join(p for p in parts if p).lower()
    clean = re.sub(r"-{2,}", "-", raw).strip("-")
    if clean == raw and len(clean) <= limit:
        return clean
    digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
    head = clean[: limit - len(digest) - 1].rstrip("-")
    return f"{head}-{digest}"


def _json(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def _policy(statements: Sequence[Mapping[str, Any]]) -> str:
    return _json({"Version": "2012-10-17", "Statement": list(statements)})


@dataclass
class _Item:
    """What one declared item offers its consumers: values of its variables, IAM grants."""

    values: dict[str, Any] = field(default_factory=dict)  # variable suffix -> str | Output
    secret_suffixes: frozenset[str] = frozenset()  # suffixes written by the Infisical sync
    secure_suffixes: frozenset[str] = frozenset()  # SecureString parameters
    grants: list[Mapping[str, Any]] = field(default_factory=list)  # (Output) IAM statements
    outputs: dict[str, Any] = field(default_factory=dict)


class _Declarer:
    def __init__(
        self, plan: EnvironmentPlan, product: str, region: str, network: NetworkSettings, credentials: Mapping[str, Any],
        set_passwords: Collection[str] = (),
    ) -> None:
        self.plan = plan
        self.env = plan.name
        self.product = product
        self.region = region
        self.network = network
        self.credentials = credentials
        self.set_passwords = frozenset(set_passwords)
        self.disposable = plan.name in DISPOSABLE_ENVIRONMENTS
        self.apply_immediately = plan.name not in PRODUCTION_ENVIRONMENTS
        self.scheme = "https" if network.certificate_arn else "http"
        self.resources: dict[str, pulumi.Resource] = {}
        self.items: dict[str, _Item] = {}
        self.parameters: dict[str, aws.ssm.Parameter] = {}  # SSM path -> parameter
        workloads = [i for i in plan.items if i.kind == "workload"]
        self.workloads = workloads
        self.public = [w for w in workloads if w.capacity.get("expose") == "public"]
        self.internal = [w for w in workloads if w.capacity.get("expose") != "public"]
        # Environment-wide resources, declared by environment_wide() when the plan needs them.
        self.workload_sgs: dict[str, aws.ec2.SecurityGroup] = {}
        self.alb_sg: aws.ec2.SecurityGroup | None = None
        self.alb: aws.lb.LoadBalancer | None = None
        self.cluster: aws.ecs.Cluster | None = None
        self.namespace: aws.servicediscovery.PrivateDnsNamespace | None = None
        self.namespace_name = ""

    # -- names, tags ------------------------------------------------------------------
    def logical(self, resource: str, part: str) -> str:
        return f"{self.env}-{resource}-{part}"

    def name(self, *parts: str, limit: int = _LIMIT_GENERIC) -> str:
        return aws_name(self.product, self.env, *parts, limit=limit)

    def tags(self, resource: str) -> dict[str, str]:
        return {
            "runway:product": self.product,
            "runway:environment": self.env,
            "runway:resource": resource,
            "managed-by": "runway",
        }

    def add(self, logical: str, resource: pulumi.Resource) -> Any:
        if logical in self.resources:  # a bug in this module, never a user mistake
            raise AssertionError(f"logical name {logical} declared twice")
        self.resources[logical] = resource
        return resource

    def security_group(self, resource: str, part: str, description: str, ingress: list[Any] | None) -> aws.ec2.SecurityGroup:
        """``ingress=None``: no inline rules at all (a workload's group: its rules are separate
        resources, and AWS's default egress rule is replaced by one of them)."""
        name = self.name(resource, part)
        if name.startswith("sg-"):  # EC2 reserves the sg- prefix for ids
            name = "rw-" + name
        inline: dict[str, Any] = {} if ingress is None else {"ingress": ingress, "egress": _all_egress()}
        return self.add(
            self.logical(resource, part),
            aws.ec2.SecurityGroup(
                self.logical(resource, part),
                name=name,
                description=description,
                vpc_id=self.network.vpc_id,
                revoke_rules_on_delete=True,
                tags=self.tags(resource),
                **inline,
            ),
        )

    def users_of(self, name: str) -> list[ItemPlan]:
        """The workloads whose ``uses`` names ``name`` (plan order)."""
        return [w for w in self.workloads if w.name != name and name in (w.capacity.get("uses") or ())]

    def clients_ingress(self, port: int, what: str, resource: str) -> list[Any]:
        """Ingress on ``port`` from the workloads that use ``resource`` and, if set, ``allowed_cidr``."""
        rules: list[Any] = []
        for w in self.users_of(resource):
            rules.append(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=port, to_port=port, security_groups=[self.workload_sgs[w.name].id], description=f"{what} from {w.name}"))
        if self.network.allowed_cidr:
            rules.append(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=port, to_port=port, cidr_blocks=[self.network.allowed_cidr], description=f"{what} from the allowed CIDR"))
        return rules

    # -- checks -----------------------------------------------------------------------
    def check(self) -> None:
        if self.public and not self.network.public_subnet_ids:
            names = ", ".join(w.name for w in self.public)
            raise SettingsError(f"{self.env}: workload(s) {names} are public: set RUNWAY_PUBLIC_SUBNET_IDS (the ALB's subnets)")
        if len(self.public) > 1 and not self.network.public_domain:
            names = ", ".join(w.name for w in self.public)
            raise SettingsError(
                f"{self.env}: {len(self.public)} public workloads ({names}) share one ALB and are routed by host name: "
                "set RUNWAY_PUBLIC_DOMAIN"
            )
        for item in self.plan.items:
            if item.kind == "postgres" and item.capacity:
                value = self.credentials.get(item.name)
                if value is None or (isinstance(value, str) and not value):
                    raise ValueError(f"credentials: no generated password for postgres resource {item.name!r}")
            if item.kind in ("postgres", "queue", "topic", "cache", "bucket", "workload") and not item.capacity:
                raise ValueError(f"{self.env}: {item.kind} {item.name!r} has no capacity in the plan (size not in the catalogue)")
        if self.internal and self.plan.item("service-discovery") is None:
            raise ValueError(f"{self.env}: internal workloads but no service-discovery item in the plan")
        for w in self.workloads:
            # Its own secrets live beside its own variables (/runway/<product>/<env>/<w>/...).
            clash = sorted(set(w.capacity.get("secrets") or ()) & set(w.variables))
            if clash:
                raise ValueError(f"{self.env}: workload {w.name!r}: secret {clash[0]} is also the variable it injects into its consumers")

    # -- environment-wide ------------------------------------------------------------
    def environment_wide(self) -> None:
        if self.public:
            ports = [(LISTENER_PORT, "HTTP")] + ([(HTTPS_PORT, "HTTPS")] if self.network.certificate_arn else [])
            self.alb_sg = self.security_group(
                "alb", "sg", "ALB: " + " and ".join(what for _, what in ports) + " from the internet",
                [aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=port, to_port=port, cidr_blocks=["0.0.0.0/0"], ipv6_cidr_blocks=["::/0"], description=what)
                 for port, what in ports],
            )
            self.alb = self.add(
                self.logical("alb", "load-balancer"),
                aws.lb.LoadBalancer(
                    self.logical("alb", "load-balancer"),
                    name=self.name(limit=_LIMIT_LB),
                    load_balancer_type="application",
                    internal=False,
                    subnets=list(self.network.public_subnet_ids),
                    security_groups=[self.alb_sg.id],
                    drop_invalid_header_fields=True,
                    enable_deletion_protection=not self.disposable,
                    tags=self.tags("alb"),
                ),
            )
        if self.workloads:
            for w in self.workloads:
                self.workload_sgs[w.name] = self.security_group(w.name, "sg", f"runway {w.name}: its ECS tasks", None)
            for w in self.workloads:
                self.workload_rules(w)
            self.cluster = self.add(
                self.logical("workloads", "ecs-cluster"),
                aws.ecs.Cluster(self.logical("workloads", "ecs-cluster"), name=self.name(), tags=self.tags("workloads")),
            )
        if self.internal:
            namespace = self.plan.item("service-discovery").capacity["namespace"]  # checked in check()
            self.namespace_name = namespace
            self.namespace = self.add(
                self.logical("service-discovery", "namespace"),
                aws.servicediscovery.PrivateDnsNamespace(
                    self.logical("service-discovery", "namespace"),
                    name=namespace,
                    vpc=self.network.vpc_id,
                    description=f"runway {self.product} {self.env}: internal workloads",
                    tags=self.tags("service-discovery"),
                ),
            )

    def workload_rules(self, item: ItemPlan) -> None:
        """A workload's security group rules: all outbound; its port from the workloads that use
        it, from the ALB when public, from ``allowed_cidr`` when internal."""
        w, port = item.name, int(item.capacity["port"])
        sg, tags = self.workload_sgs[w], self.tags(w)
        self.add(self.logical(w, "sg-egress"), aws.vpc.SecurityGroupEgressRule(
            self.logical(w, "sg-egress"), security_group_id=sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0", description="all outbound", tags=tags))

        def ingress(part: str, description: str, **source: Any) -> None:
            self.add(self.logical(w, part), aws.vpc.SecurityGroupIngressRule(
                self.logical(w, part), security_group_id=sg.id, ip_protocol="tcp", from_port=port, to_port=port,
                description=description, tags=tags, **source))

        for user in self.users_of(w):
            ingress(f"sg-from-{user.name}", f"from {user.name}", referenced_security_group_id=self.workload_sgs[user.name].id)
        if item.capacity.get("expose") == "public":
            ingress("sg-from-alb", "from the ALB", referenced_security_group_id=self.alb_sg.id)
        elif self.network.allowed_cidr:
            ingress("sg-from-allowed-cidr", "from the allowed CIDR", cidr_ipv4=self.network.allowed_cidr)

    def password_options(self, r: str, part: str) -> pulumi.ResourceOptions | None:
        """``ignore_changes`` on the password input of ``r``'s ``part`` unless this run sets it."""
        if r in self.set_passwords:
            return None
        return pulumi.ResourceOptions(ignore_changes=[PASSWORD_INPUTS[part]])

    # -- postgres --------------------------------------------------------------------
    def postgres(self, item: ItemPlan) -> _Item:
        cap = item.capacity
        r = item.name
        tags = self.tags(r)
        password = pulumi.Output.secret(self.credentials[r])
        db_name = env_prefix(r).lower()
        identifier = self.name(r, limit=_LIMIT_RDS)
        subnets = self.add(
            self.logical(r, "subnet-group"),
            aws.rds.SubnetGroup(self.logical(r, "subnet-group"), name=self.name(r), subnet_ids=list(self.network.private_subnet_ids), description=f"runway {r}", tags=tags),
        )
        ingress = self.clients_ingress(POSTGRES_PORT, "PostgreSQL", r)
        # The proxy shares this group, so it reaches the database through the self rule.
        ingress.append(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=POSTGRES_PORT, to_port=POSTGRES_PORT, self=True, description="RDS Proxy to the database"))
        sg = self.security_group(r, "sg", f"runway {r}: PostgreSQL", ingress)
        protection = {
            "deletion_protection": not self.disposable,
            "skip_final_snapshot": self.disposable,
            "final_snapshot_identifier": None if self.disposable else aws_name(identifier, "final", limit=_LIMIT_GENERIC),
        }
        out = _Item(secret_suffixes=frozenset({"PASSWORD", "URL"}), secure_suffixes=frozenset({"PASSWORD", "URL"}))
        if cap["flavor"] == "aurora":
            cluster = self.add(
                self.logical(r, "cluster"),
                aws.rds.Cluster(
                    self.logical(r, "cluster"),
                    cluster_identifier=identifier,
                    engine="aurora-postgresql",
                    engine_version=cap["engine_version"],
                    database_name=db_name,
                    master_username=ADMIN_USERNAME,
                    master_password=password,
                    db_subnet_group_name=subnets.name,
                    vpc_security_group_ids=[sg.id],
                    # Aurora cannot turn automated backups off: 1 day is its minimum.
                    backup_retention_period=max(1, int(cap["backup_retention_days"])),
                    storage_encrypted=True,
                    copy_tags_to_snapshot=True,
                    apply_immediately=self.apply_immediately,
                    tags=tags,
                    opts=self.password_options(r, "cluster"),
                    **protection,
                ),
            )
            for n in range(1, int(cap["instances"]) + 1):
                self.add(
                    self.logical(r, f"instance-{n}"),
                    aws.rds.ClusterInstance(
                        self.logical(r, f"instance-{n}"),
                        identifier=self.name(r, str(n), limit=_LIMIT_RDS),
                        cluster_identifier=cluster.id,
                        instance_class=cap["instance_class"],
                        engine=cluster.engine,
                        engine_version=cluster.engine_version,
                        db_subnet_group_name=subnets.name,
                        publicly_accessible=False,
                        auto_minor_version_upgrade=True,
                        apply_immediately=self.apply_immediately,
                        tags=tags,
                    ),
                )
            host, target = cluster.endpoint, {"db_cluster_identifier": cluster.cluster_identifier}
            out.outputs.update(endpoint=cluster.endpoint, reader_endpoint=cluster.reader_endpoint, arn=cluster.arn)
        else:
            instance = self.add(
                self.logical(r, "instance"),
                aws.rds.Instance(
                    self.logical(r, "instance"),
                    identifier=identifier,
                    engine="postgres",
                    engine_version=cap["engine_version"],
                    instance_class=cap["instance_class"],
                    multi_az=cap["multi_az"],
                    storage_type=cap["storage_type"],
                    allocated_storage=int(cap["storage_gb"]),
                    db_name=db_name,
                    username=ADMIN_USERNAME,
                    password=password,
                    port=POSTGRES_PORT,
                    db_subnet_group_name=subnets.name,
                    vpc_security_group_ids=[sg.id],
                    backup_retention_period=int(cap["backup_retention_days"]),
                    storage_encrypted=True,
                    publicly_accessible=False,
                    copy_tags_to_snapshot=True,
                    auto_minor_version_upgrade=True,
                    apply_immediately=self.apply_immediately,
                    tags=tags,
                    opts=self.password_options(r, "instance"),
                    **protection,
                ),
            )
            host, target = instance.address, {"db_instance_identifier": instance.identifier}
            out.outputs.update(endpoint=instance.address, arn=instance.arn)
        if cap.get("proxy"):
            host = self.proxy(r, password, sg, target)
            out.outputs["proxy_endpoint"] = host
        out.outputs["port"] = POSTGRES_PORT
        out.outputs["flavor"] = cap["flavor"]  # read back by the next run (not secret): which database exists
        out.values.update(HOST=host, PORT=str(POSTGRES_PORT), USER=ADMIN_USERNAME, DATABASE=db_name, PASSWORD=PLACEHOLDER, URL=PLACEHOLDER)
        return out

    def proxy(self, r: str, password: pulumi.Output, sg: aws.ec2.SecurityGroup, target: Mapping[str, Any]) -> pulumi.Output:
        """RDS Proxy in front of ``r``; returns its endpoint (what consumers connect to)."""
        tags = self.tags(r)
        secret = self.add(
            self.logical(r, "proxy-secret"),
            aws.secretsmanager.Secret(
                self.logical(r, "proxy-secret"),
                name=f"runway/{self.product}/{self.env}/{r}/rds-proxy-admin",
                description=f"RDS Proxy admin login of {r} (source of truth: Infisical {self.env}:/runtime/{r}/)",
                recovery_window_in_days=0 if self.disposable else 7,
                tags=tags,
            ),
        )
        # The login the proxy uses (RDS Proxy secret format: username + password), secret.
        secret_string = pulumi.Output.secret(password.apply(lambda p: _json({"username": ADMIN_USERNAME, "password": p})))
        version = self.add(
            self.logical(r, "proxy-secret-version"),
            aws.secretsmanager.SecretVersion(self.logical(r, "proxy-secret-version"), secret_id=secret.id, secret_string=secret_string,
                                             opts=self.password_options(r, "proxy-secret-version")),
        )
        role = self.add(
            self.logical(r, "proxy-role"),
            aws.iam.Role(
                self.logical(r, "proxy-role"),
                name=self.name(r, "proxy", limit=_LIMIT_IAM_ROLE),
                assume_role_policy=_json(_RDS_TRUST),
                description=f"RDS Proxy of {r}: reads its admin secret",
                tags=tags,
            ),
        )
        policy = self.add(
            self.logical(r, "proxy-policy"),
            aws.iam.RolePolicy(
                self.logical(r, "proxy-policy"),
                name="read-admin-secret",
                role=role.id,
                policy=secret.arn.apply(lambda arn: _policy([{"Effect": "Allow", "Action": ["secretsmanager:GetSecretValue"], "Resource": arn}])),
            ),
        )
        proxy = self.add(
            self.logical(r, "proxy"),
            aws.rds.Proxy(
                self.logical(r, "proxy"),
                name=self.name(r, limit=_LIMIT_PROXY),
                engine_family="POSTGRESQL",
                auths=[aws.rds.ProxyAuthArgs(auth_scheme="SECRETS", secret_arn=secret.arn, iam_auth="DISABLED", client_password_auth_type="POSTGRES_SCRAM_SHA_256", description="admin login")],
                role_arn=role.arn,
                vpc_subnet_ids=list(self.network.private_subnet_ids),
                vpc_security_group_ids=[sg.id],
                require_tls=True,
                debug_logging=False,
                tags=tags,
                opts=pulumi.ResourceOptions(depends_on=[policy, version]),
            ),
        )
        group = self.add(
            self.logical(r, "proxy-target-group"),
            aws.rds.ProxyDefaultTargetGroup(
                self.logical(r, "proxy-target-group"),
                db_proxy_name=proxy.name,
                connection_pool_config=aws.rds.ProxyDefaultTargetGroupConnectionPoolConfigArgs(max_connections_percent=90, max_idle_connections_percent=50, connection_borrow_timeout=120),
            ),
        )
        self.add(
            self.logical(r, "proxy-target"),
            aws.rds.ProxyTarget(self.logical(r, "proxy-target"), db_proxy_name=proxy.name, target_group_name=group.name, **target),
        )
        return proxy.endpoint

    # -- queue, topic, cache, bucket ---------------------------------------------------
    def queue(self, item: ItemPlan) -> _Item:
        cap, r, tags = item.capacity, item.name, self.tags(item.name)
        fifo = bool(cap["fifo"])
        suffix = ".fifo" if fifo else ""
        limit = _LIMIT_SQS - len(suffix)
        redrive = None
        out = _Item()
        dead_letter = cap.get("dead_letter")
        if dead_letter:
            dlq = self.add(
                self.logical(r, "dlq"),
                aws.sqs.Queue(
                    self.logical(r, "dlq"),
                    name=self.name(r, "dlq", limit=limit) + suffix,
                    fifo_queue=fifo,
                    message_retention_seconds=14 * 24 * 3600,  # the SQS maximum: time to inspect failures
                    sqs_managed_sse_enabled=True,
                    tags=tags,
                ),
            )
            receives = int(dead_letter["max_receives"])
            redrive = dlq.arn.apply(lambda arn: _json({"deadLetterTargetArn": arn, "maxReceiveCount": receives}))
            out.outputs["dead_letter_arn"] = dlq.arn
        timeout = cap.get("visibility_timeout_s")
        queue = self.add(
            self.logical(r, "queue"),
            aws.sqs.Queue(
                self.logical(r, "queue"),
                name=self.name(r, limit=limit) + suffix,
                fifo_queue=fifo,
                visibility_timeout_seconds=30 if timeout is None else int(timeout),  # 30 s: the SQS default
                redrive_policy=redrive,
                sqs_managed_sse_enabled=True,
                tags=tags,
            ),
        )
        out.values.update(URL=queue.url, ARN=queue.arn)
        out.outputs.update(url=queue.url, arn=queue.arn)
        out.grants.append({
            "Effect": "Allow",
            "Action": ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"],
            "Resource": queue.arn,
        })
        return out

    def topic(self, item: ItemPlan) -> _Item:
        cap, r = item.capacity, item.name
        fifo = bool(cap["fifo"])
        suffix = ".fifo" if fifo else ""
        topic = self.add(
            self.logical(r, "topic"),
            aws.sns.Topic(self.logical(r, "topic"), name=self.name(r, limit=_LIMIT_SNS - len(suffix)) + suffix, fifo_topic=fifo, tags=self.tags(r)),
        )
        out = _Item(values={"ARN": topic.arn}, outputs={"arn": topic.arn})
        out.grants.append({"Effect": "Allow", "Action": ["sns:Publish"], "Resource": topic.arn})
        return out

    def cache(self, item: ItemPlan) -> _Item:
        cap, r, tags = item.capacity, item.name, self.tags(item.name)
        nodes = int(cap["nodes"])
        subnets = self.add(
            self.logical(r, "subnet-group"),
            aws.elasticache.SubnetGroup(self.logical(r, "subnet-group"), name=self.name(r), subnet_ids=list(self.network.private_subnet_ids), description=f"runway {r}", tags=tags),
        )
        sg = self.security_group(r, "sg", f"runway {r}: Valkey", self.clients_ingress(VALKEY_PORT, "Valkey", r))
        group = self.add(
            self.logical(r, "replication-group"),
            aws.elasticache.ReplicationGroup(
                self.logical(r, "replication-group"),
                replication_group_id=self.name(r, limit=_LIMIT_CACHE_ID),
                description=f"runway {self.product} {self.env} {r}",
                engine="valkey",
                engine_version=cap["engine_version"],
                node_type=cap["node_type"],
                num_cache_clusters=nodes,
                # A replica can take over only when there is one (nodes = primary + replicas).
                automatic_failover_enabled=nodes > 1,
                multi_az_enabled=nodes > 1,
                port=VALKEY_PORT,
                subnet_group_name=subnets.name,
                security_group_ids=[sg.id],
                transit_encryption_enabled=True,
                at_rest_encryption_enabled=True,
                auto_minor_version_upgrade=True,
                apply_immediately=self.apply_immediately,
                tags=tags,
            ),
        )
        host = group.primary_endpoint_address
        url = pulumi.Output.concat("rediss://", host, f":{VALKEY_PORT}")
        return _Item(
            values={"HOST": host, "PORT": str(VALKEY_PORT), "URL": url},
            secure_suffixes=frozenset({"URL"}),
            outputs={"primary_endpoint": host, "arn": group.arn},
        )

    def bucket(self, item: ItemPlan) -> _Item:
        cap, r, tags = item.capacity, item.name, self.tags(item.name)
        prefix = self.name(r, limit=_LIMIT_BUCKET_PREFIX - 1) + "-"
        bucket = self.add(
            self.logical(r, "bucket"),
            aws.s3.Bucket(self.logical(r, "bucket"), bucket_prefix=prefix, force_destroy=self.disposable, tags=tags),
        )
        self.add(
            self.logical(r, "versioning"),
            aws.s3.BucketVersioning(
                self.logical(r, "versioning"),
                bucket=bucket.id,
                # "Suspended", not "Disabled": S3 cannot return a bucket to unversioned, and a
                # later `versioning: true -> false` must stay an in-place update.
                versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled" if cap["versioning"] else "Suspended"),
            ),
        )
        block = self.add(
            self.logical(r, "public-access-block"),
            aws.s3.BucketPublicAccessBlock(
                self.logical(r, "public-access-block"),
                bucket=bucket.id,
                block_public_acls=True,
                block_public_policy=True,
                ignore_public_acls=True,
                restrict_public_buckets=True,
            ),
        )
        self.add(
            self.logical(r, "encryption"),
            aws.s3.BucketServerSideEncryptionConfiguration(
                self.logical(r, "encryption"),
                bucket=bucket.id,
                rules=[aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                    apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(sse_algorithm="AES256"),
                )],
            ),
        )
        # Refuse every request not made over TLS (S3 accepts plain HTTP otherwise). A Deny is not
        # a public policy, so the public access block allows it; applied after that block.
        self.add(
            self.logical(r, "tls-only-policy"),
            aws.s3.BucketPolicy(
                self.logical(r, "tls-only-policy"),
                bucket=bucket.id,
                policy=bucket.arn.apply(lambda arn: _policy([{
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [arn, f"{arn}/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }])),
                opts=pulumi.ResourceOptions(depends_on=[block]),
            ),
        )
        out = _Item(values={"NAME": bucket.bucket, "ARN": bucket.arn}, outputs={"name": bucket.bucket, "arn": bucket.arn})
        out.grants.append({"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": bucket.arn})
        out.grants.append({"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"], "Resource": pulumi.Output.concat(bucket.arn, "/*")})
        return out

    # -- workloads --------------------------------------------------------------------
    def workload_url(self, item: ItemPlan) -> Any:
        w, port = item.name, int(item.capacity["port"])
        if item.capacity.get("expose") == "public":
            if self.network.public_domain:
                return f"{self.scheme}://{w}.{self.network.public_domain}"
            return pulumi.Output.concat(f"{self.scheme}://", self.alb.dns_name)
        return f"http://{w}.{self.namespace_name}:{port}"

    def parameters_of(self, item: ItemPlan, declared: _Item) -> None:
        """One SSM parameter per injected variable of ``item`` (path from the plan)."""
        prefix = env_prefix(item.name) + "_"
        for var in item.variables:
            suffix = var[len(prefix):]
            path = item.ssm_parameters[var]
            secure = suffix in declared.secure_suffixes
            placeholder = suffix in declared.secret_suffixes
            self.parameter(item.name, var, path, secure, None if placeholder else declared.values[suffix])

    def parameter(self, resource: str, var: str, path: str, secure: bool, value: Any) -> aws.ssm.Parameter:
        """``value=None``: a secret the Infisical sync fills; created as :data:`PLACEHOLDER`."""
        if path in self.parameters:
            raise ValueError(f"SSM parameter {path} is declared twice ({var} of {resource})")
        logical = self.logical(resource, "ssm-" + var.lower().replace("_", "-"))
        args: dict[str, Any] = {"name": path, "type": "SecureString" if secure else "String", "tags": self.tags(resource)}
        opts = None
        if value is None:
            args["value"] = PLACEHOLDER
            args["description"] = "secret: filled by the Infisical sync, never by a deploy"
            opts = pulumi.ResourceOptions(ignore_changes=["value"])
        elif secure:
            args["value"] = value
        else:
            args["insecure_value"] = value
        param = self.add(logical, aws.ssm.Parameter(logical, opts=opts, **args))
        self.parameters[path] = param
        return param

    def uses_of(self, item: ItemPlan) -> list[ItemPlan]:
        wanted = item.capacity.get("uses") or ()
        return [i for i in self.plan.items if i.name in wanted and i.name != item.name]

    def health_check(self, health: Mapping[str, Any]) -> dict[str, Any] | None:
        """The container health check: only from ``health.command`` (exec form ``["CMD", ...]``
        unless the list already starts with ``CMD`` or ``CMD-SHELL``). ``health.path`` is never
        turned into one: ECS runs a container check inside the container, and many images (e.g.
        distroless ones) have neither a shell nor curl, so their tasks would never be healthy.
        The path is the ALB's check of a public workload (:meth:`target_group`)."""
        if not health.get("command"):
            return None
        command = [str(c) for c in health["command"]]
        if command[0] not in ("CMD", "CMD-SHELL"):
            command = ["CMD", *command]
        interval = int(health.get("interval_s") or 30)
        timeout = int(health.get("timeout_s") or 5)
        return {"command": command, "interval": interval, "timeout": timeout, "retries": 3, "startPeriod": 60}

    def target_group(self, item: ItemPlan) -> aws.lb.TargetGroup:
        w, cap = item.name, item.capacity
        health = cap.get("health") or {}
        return self.add(
            self.logical(w, "target-group"),
            aws.lb.TargetGroup(
                self.logical(w, "target-group"),
                name=self.name(w, limit=_LIMIT_LB),
                port=int(cap["port"]),
                protocol="HTTP",
                target_type="ip",
                vpc_id=self.network.vpc_id,
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
                tags=self.tags(w),
            ),
        )

    def routing(self, groups: Mapping[str, aws.lb.TargetGroup]) -> list[pulumi.Resource]:
        """The listeners and the host rules; returned so services can wait for them.

        With a certificate: HTTPS on 443 forwards, HTTP on 80 redirects to it (301). Without:
        HTTP on 80 forwards. The HTTP listener keeps its logical name either way, so adding a
        certificate later updates it in place.
        """
        first, *others = self.public
        forward = [aws.lb.ListenerDefaultActionArgs(type="forward", target_group_arn=groups[first.name].arn)]
        routed: list[pulumi.Resource] = []
        if self.network.certificate_arn:
            listener = self.add(
                self.logical("alb", "listener-https"),
                aws.lb.Listener(
                    self.logical("alb", "listener-https"),
                    load_balancer_arn=self.alb.arn,
                    port=HTTPS_PORT,
                    protocol="HTTPS",
                    ssl_policy=TLS_POLICY,
                    certificate_arn=self.network.certificate_arn,
                    default_actions=forward,
                    tags=self.tags("alb"),
                ),
            )
            http_actions = [aws.lb.ListenerDefaultActionArgs(
                type="redirect",
                redirect=aws.lb.ListenerDefaultActionRedirectArgs(protocol="HTTPS", port=str(HTTPS_PORT), status_code="HTTP_301"),
            )]
        else:
            listener = None
            http_actions = forward
        http = self.add(
            self.logical("alb", "listener-http"),
            aws.lb.Listener(
                self.logical("alb", "listener-http"),
                load_balancer_arn=self.alb.arn,
                port=LISTENER_PORT,
                protocol="HTTP",
                default_actions=http_actions,
                tags=self.tags("alb"),
            ),
        )
        routed.append(http)
        if listener is None:
            listener = http
        else:
            routed.append(listener)
        for priority, w in enumerate(others, start=1):
            routed.append(self.add(
                self.logical(w.name, "listener-rule"),
                aws.lb.ListenerRule(
                    self.logical(w.name, "listener-rule"),
                    listener_arn=listener.arn,
                    priority=priority,
                    actions=[aws.lb.ListenerRuleActionArgs(type="forward", target_group_arn=groups[w.name].arn)],
                    conditions=[aws.lb.ListenerRuleConditionArgs(host_header=aws.lb.ListenerRuleConditionHostHeaderArgs(values=[f"{w.name}.{self.network.public_domain}"]))],
                    tags=self.tags(w.name),
                ),
            ))
        return routed

    def workload(self, item: ItemPlan, target_group: aws.lb.TargetGroup | None, routed: Sequence[pulumi.Resource]) -> dict[str, Any]:
        w, cap, tags = item.name, item.capacity, self.tags(item.name)
        port = int(cap["port"])
        log_group = self.add(
            self.logical(w, "logs"),
            aws.cloudwatch.LogGroup(self.logical(w, "logs"), name=f"/runway/{self.product}/{self.env}/{w}", retention_in_days=int(cap["log_retention_days"]), tags=tags),
        )
        # Its own secrets, then every variable its uses inject: names -> SSM parameters.
        secret_refs: list[tuple[str, pulumi.Output]] = []
        for name in dict.fromkeys(cap.get("secrets") or ()):
            param = self.parameter(w, name, f"/runway/{self.product}/{self.env}/{w}/{name}", True, None)
            secret_refs.append((name, param.arn))
        grants: list[Mapping[str, Any]] = []
        for used in self.uses_of(item):
            for var in used.variables:
                secret_refs.append((var, self.parameters[used.ssm_parameters[var]].arn))
            grants.extend(self.items[used.name].grants)
        log_statement = {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": pulumi.Output.concat(log_group.arn, ":*")}
        statements: list[Mapping[str, Any]] = [log_statement]
        if secret_refs:
            statements.append({"Effect": "Allow", "Action": ["ssm:GetParameters"], "Resource": [arn for _, arn in secret_refs]})
        if _ECR_IMAGE.match(str(cap["image"])):
            # A private ECR image needs the execution role to pull it; other registries are public.
            statements.append({"Effect": "Allow", "Action": ["ecr:GetAuthorizationToken", "ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"], "Resource": "*"})
        execution_role = self.add(
            self.logical(w, "execution-role"),
            aws.iam.Role(self.logical(w, "execution-role"), name=self.name(w, "exec", limit=_LIMIT_IAM_ROLE), assume_role_policy=_json(_ECS_TASKS_TRUST),
                         description=f"ECS execution role of {w}: logs and its SSM parameters", tags=tags),
        )
        self.add(
            self.logical(w, "execution-policy"),
            aws.iam.RolePolicy(self.logical(w, "execution-policy"), name="logs-and-parameters", role=execution_role.id, policy=pulumi.Output.from_input(statements).apply(_policy)),
        )
        task_role = None
        if grants:
            task_role = self.add(
                self.logical(w, "task-role"),
                aws.iam.Role(self.logical(w, "task-role"), name=self.name(w, "task", limit=_LIMIT_IAM_ROLE), assume_role_policy=_json(_ECS_TASKS_TRUST),
                             description=f"Task role of {w}: the queues, topics and buckets it uses", tags=tags),
            )
            self.add(
                self.logical(w, "task-policy"),
                aws.iam.RolePolicy(self.logical(w, "task-policy"), name="uses", role=task_role.id, policy=pulumi.Output.from_input(grants).apply(_policy)),
            )
        health = self.health_check(cap.get("health") or {})
        names = [n for n, _ in secret_refs]

        def container_definitions(args: list[Any]) -> str:
            group_name, *arns = args
            container: dict[str, Any] = {
                "name": w,
                "image": cap["image"],
                "essential": True,
                "portMappings": [{"containerPort": port, "protocol": "tcp"}],
                "environment": [{"name": k, "value": str(v)} for k, v in sorted((cap.get("env") or {}).items())],
                "secrets": [{"name": n, "valueFrom": a} for n, a in zip(names, arns)],
                "logConfiguration": {
                    "logDriver": "awslogs",
                    "options": {"awslogs-group": group_name, "awslogs-region": self.region, "awslogs-stream-prefix": w},
                },
            }
            if health is not None:
                container["healthCheck"] = health
            return json.dumps([container], sort_keys=True)

        task = self.add(
            self.logical(w, "task-definition"),
            aws.ecs.TaskDefinition(
                self.logical(w, "task-definition"),
                family=self.name(w),
                requires_compatibilities=["FARGATE"],
                network_mode="awsvpc",
                runtime_platform=aws.ecs.TaskDefinitionRuntimePlatformArgs(cpu_architecture=cap["architecture"], operating_system_family="LINUX"),
                cpu=str(cap["cpu_units"]),
                memory=str(cap["memory_mib"]),
                execution_role_arn=execution_role.arn,
                task_role_arn=task_role.arn if task_role is not None else None,
                container_definitions=pulumi.Output.all(log_group.name, *[a for _, a in secret_refs]).apply(container_definitions),
                tags=tags,
            ),
        )
        extra: dict[str, Any] = {}
        outputs: dict[str, Any] = {}
        if target_group is not None:
            extra["load_balancers"] = [aws.ecs.ServiceLoadBalancerArgs(target_group_arn=target_group.arn, container_name=w, container_port=port)]
            extra["health_check_grace_period_seconds"] = 60
            outputs["target_group_arn"] = target_group.arn
        else:
            discovery = self.add(
                self.logical(w, "discovery"),
                aws.servicediscovery.Service(
                    self.logical(w, "discovery"),
                    name=w,
                    dns_config=aws.servicediscovery.ServiceDnsConfigArgs(
                        namespace_id=self.namespace.id,
                        dns_records=[aws.servicediscovery.ServiceDnsConfigDnsRecordArgs(ttl=10, type="A")],
                        routing_policy="MULTIVALUE",
                    ),
                    force_destroy=True,
                    tags=tags,
                ),
            )
            extra["service_registries"] = aws.ecs.ServiceServiceRegistriesArgs(registry_arn=discovery.arn)
            outputs["discovery_arn"] = discovery.arn
        service = self.add(
            self.logical(w, "service"),
            aws.ecs.Service(
                self.logical(w, "service"),
                name=self.name(w),
                cluster=self.cluster.arn,
                task_definition=task.arn,
                desired_count=int(cap["tasks"]),
                launch_type="FARGATE",
                network_configuration=aws.ecs.ServiceNetworkConfigurationArgs(subnets=list(self.network.private_subnet_ids), security_groups=[self.workload_sgs[w].id], assign_public_ip=False),
                deployment_circuit_breaker=aws.ecs.ServiceDeploymentCircuitBreakerArgs(enable=True, rollback=True),
                propagate_tags="SERVICE",
                enable_ecs_managed_tags=True,
                tags=tags,
                opts=pulumi.ResourceOptions(depends_on=list(routed)) if target_group is not None else None,
                **extra,
            ),
        )
        outputs.update(service_name=service.name, task_definition_arn=task.arn, log_group=log_group.name)
        return outputs

    # -- all --------------------------------------------------------------------------
    def declare(self) -> dict[str, Any]:
        self.check()
        self.environment_wide()
        kinds = {"postgres": self.postgres, "queue": self.queue, "topic": self.topic, "cache": self.cache, "bucket": self.bucket}
        for item in self.plan.items:
            if item.kind in kinds:
                self.items[item.name] = kinds[item.kind](item)
        for item in self.workloads:
            self.items[item.name] = _Item(values={"URL": self.workload_url(item)})
        for item in self.plan.items:
            if item.name in self.items:
                self.parameters_of(item, self.items[item.name])
        groups = {w.name: self.target_group(w) for w in self.public}
        routed = self.routing(groups) if self.public else []
        for item in self.workloads:
            self.items[item.name].outputs.update(self.workload(item, groups.get(item.name), routed))
            self.items[item.name].outputs["url"] = self.items[item.name].values["URL"]
        env_outputs: dict[str, Any] = {}
        if self.cluster is not None:
            env_outputs["ecs_cluster_arn"] = self.cluster.arn
        if self.alb is not None:
            env_outputs["alb_dns_name"] = self.alb.dns_name
        if self.namespace is not None:
            env_outputs["namespace_id"] = self.namespace.id
            env_outputs["namespace"] = self.namespace_name
        return {
            "product": self.product,
            "environment": self.env,
            "region": self.region,
            "logical_names": list(self.resources),
            "urns": {name: r.urn for name, r in self.resources.items()},
            "resources": {name: dict(i.outputs) for name, i in self.items.items()},
            "environment_resources": env_outputs,
            "ssm_parameters": {path: p.arn for path, p in self.parameters.items()},
        }


def declare_environment(
    plan: EnvironmentPlan,
    *,
    product: str,
    region: str,
    network: NetworkSettings,
    credentials: Mapping[str, pulumi.Output | str],
    set_passwords: Collection[str] = (),
) -> dict[str, Any]:
    """Declare one environment's resources from its plan; call inside a Pulumi program.

    ``credentials`` maps each postgres resource name to an admin password (a string or an
    Output; it is wrapped with ``pulumi.Output.secret``). It is *set* only for the resources
    named in ``set_passwords`` (a new database, or a rotation): for every other one, the
    password inputs (the RDS ``password`` / ``master_password``, the proxy's ``secret_string``)
    carry ``ignore_changes``, so the value passed is ignored once the resource exists and a
    preview may pass a placeholder. (A resource being *created* takes the value passed either
    way: the deploy job passes a real one for a database it does not know yet.) Returns
    plain data and Outputs, never a secret: ``product``, ``environment``, ``region``,
    ``logical_names`` (declaration order), ``urns`` (logical name -> URN), ``resources``
    (item -> endpoints, ARNs, names, workload URLs; a postgres item's ``flavor``), ``environment_resources`` (ECS cluster,
    ALB DNS name, namespace) and ``ssm_parameters`` (path -> ARN).

    Raises :class:`~deploy_engine.settings.SettingsError` when the settings lack what the plan
    needs (public subnets, a public domain for several public workloads) and ``ValueError``
    when a postgres resource has no credential or an item has no capacity (its size is not in
    the catalogue); both before any resource is declared. An over-cap plan raises ValueError
    before anything is declared too, and so does an ``unpriced`` one (a capped plan missing a
    unit price: its cap cannot be checked): the CLI refuses such a plan before importing
    Pulumi, and the program refuses it again whoever calls it (ADR 0493 §3).
    """
    if plan.verdict == "over-cap":
        raise ValueError(f"{plan.name}: the plan is over its cap and refused (ADR 0493 §3); nothing is declared")
    if plan.verdict == "unpriced":
        raise ValueError(f"{plan.name}: the plan misses unit prices for {region}, its cap cannot be checked and it is refused; nothing is declared")
    return _Declarer(plan, product, region, network, credentials, set_passwords).declare()


__all__ = ["ADMIN_USERNAME", "PLACEHOLDER", "DISPOSABLE_ENVIRONMENTS", "PASSWORD_INPUTS", "TLS_POLICY", "aws_name", "declare_environment"]
