"""What every runway component shares: the environment context, names, tags, IAM documents.

:class:`Context` is built once per program run by :func:`deploy_engine.program.declare_environment`
and handed to each component; it holds the plan, the network settings, the explicit AWS
provider and the account/partition the provider reports (``aws.get_caller_identity``), which
the SSM parameter ARNs and the ``aws:SourceAccount`` conditions need.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import pulumi

from runway_core.planner import EnvironmentPlan, ItemPlan

from ..layout import is_private_ecr
from ..settings import DISPOSABLE_ENVIRONMENTS, NetworkSettings

#: The fixed admin login of every postgres resource (``<R>_USER``).
ADMIN_USERNAME = "runway_admin"
POSTGRES_PORT = 5432
VALKEY_PORT = 6379
LISTENER_PORT = 80
HTTPS_PORT = 443
#: The ALB's TLS policy with a certificate: TLS 1.3 and 1.2 only (AWS's recommended policy).
TLS_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"
#: The inputs that carry a database password, by resource part: ``ignore_changes`` unless set.
PASSWORD_INPUTS = {"instance": "password", "cluster": "master_password", "proxy-secret-version": "secret_string"}
#: The credential version of a database whose version the stack never recorded.
INITIAL_CREDENTIAL_VERSION = "initial"

# AWS name length limits (service quotas pages of each service).
LIMIT_RDS = 63  # DB instance / cluster identifier
LIMIT_PROXY = 60  # DB proxy name
LIMIT_CACHE_ID = 40  # ElastiCache replication group id
LIMIT_SQS = 80  # including ".fifo"
LIMIT_SNS = 256  # including ".fifo"
LIMIT_BUCKET_PREFIX = 37  # s3 bucket_prefix (AWS appends 26 characters)
LIMIT_GENERIC = 255



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


def to_json(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def policy(statements: Sequence[Mapping[str, Any]]) -> str:
    return to_json({"Version": "2012-10-17", "Statement": list(statements)})


@dataclass
class Offer:
    """What one declared item offers its consumers.

    ``values``: injected-variable suffix -> value (str or Output) for the values that are not
    secret (written to Infisical by ``up`` after the data phase); ``secret_suffixes``: those
    only the deploy job's credential yields (postgres ``PASSWORD``, ``URL``); ``grants``: IAM
    statements a consuming task role gets; ``credential_version``: changes whenever the
    credential does (postgres), so consumers' task definitions change with it.
    """

    values: dict[str, Any] = field(default_factory=dict)
    secret_suffixes: frozenset[str] = frozenset()
    grants: list[Mapping[str, Any]] = field(default_factory=list)
    credential_version: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    """One program run: the environment plan and everything every component needs."""

    plan: EnvironmentPlan
    product: str
    region: str
    network: NetworkSettings
    provider: pulumi.ProviderResource
    account_id: pulumi.Output
    partition: pulumi.Output
    credentials: Mapping[str, Any] = field(default_factory=dict)
    set_passwords: frozenset[str] = frozenset()
    credential_versions: Mapping[str, str] = field(default_factory=dict)
    listener_priorities: Mapping[str, int] = field(default_factory=dict)
    #: Postgres resource -> the full engine version to declare (deploy_engine.engine_versions);
    #: a resource not in it declares its plan's major version.
    engine_versions: Mapping[str, str] = field(default_factory=dict)

    @property
    def env(self) -> str:
        return self.plan.name

    @property
    def disposable(self) -> bool:
        """The plan's ``disposable`` (docs/format.md, "Disposable environments"): a property of the
        environment, never of its name; every other environment is protected."""
        return self.plan.disposable

    @property
    def scheme(self) -> str:
        return "https" if self.network.certificate_arn else "http"

    @property
    def workloads(self) -> list[ItemPlan]:
        return [i for i in self.plan.items if i.kind == "workload"]

    @property
    def public(self) -> list[ItemPlan]:
        return [w for w in self.workloads if w.capacity.get("expose") == "public"]

    @property
    def internal(self) -> list[ItemPlan]:
        return [w for w in self.workloads if w.capacity.get("expose") != "public"]

    def name(self, *parts: str, limit: int = LIMIT_GENERIC) -> str:
        """A physical name ``<product>-<env>-<parts>`` (for resources whose name AWS never needs to replace)."""
        return aws_name(self.product, self.env, *parts, limit=limit)

    def tags(self, resource: str) -> dict[str, str]:
        """Per-resource tags; product, environment and ``managed-by`` come from the provider's ``default_tags``."""
        return {"runway:resource": resource}

    def default_tags(self) -> dict[str, str]:
        return {"runway:product": self.product, "runway:environment": self.env, "managed-by": "runway"}

    def users_of(self, name: str) -> list[ItemPlan]:
        """The workloads whose ``uses`` names ``name`` (plan order)."""
        return [w for w in self.workloads if w.name != name and name in (w.capacity.get("uses") or ())]

    def parameter_arn(self, path: str) -> pulumi.Output:
        """The ARN of the SSM parameter ``path`` (which the Infisical sync creates, never the program)."""
        return pulumi.Output.concat("arn:", self.partition, f":ssm:{self.region}:", self.account_id, f":parameter{path}")

    def service_trust(self, service: str, source_arn_service: str | None = None) -> pulumi.Output:
        """Trust policy for an AWS service principal, limited to this account (``aws:SourceAccount``:
        the confused-deputy guard) and, with ``source_arn_service``, to that service's resources
        in this region and account (``aws:SourceArn``)."""

        def doc(args: list[str]) -> str:
            account, partition = args
            condition: dict[str, Any] = {"StringEquals": {"aws:SourceAccount": account}}
            if source_arn_service:
                condition["ArnLike"] = {"aws:SourceArn": f"arn:{partition}:{source_arn_service}:{self.region}:{account}:*"}
            return policy([{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole", "Condition": condition}])

        return pulumi.Output.all(self.account_id, self.partition).apply(doc)


def plain_trust(service: str) -> str:
    """Trust policy without conditions: for the ECS task *execution* role, which ECS assumes for
    the agent (image pull, logs, SSM); AWS documents the confused-deputy condition keys for task
    roles, not for the execution role, so none is added there (a refused assume would stop
    every task from starting)."""
    return policy([{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}])


def child(parent: pulumi.Resource, **kw: Any) -> pulumi.ResourceOptions:
    """Options of a component's child: parented to it (the provider is inherited through the parent)."""
    return pulumi.ResourceOptions(parent=parent, **kw)


__all__ = [
    "ADMIN_USERNAME",
    "DISPOSABLE_ENVIRONMENTS",
    "HTTPS_PORT",
    "INITIAL_CREDENTIAL_VERSION",
    "LISTENER_PORT",
    "PASSWORD_INPUTS",
    "POSTGRES_PORT",
    "TLS_POLICY",
    "VALKEY_PORT",
    "Context",
    "Offer",
    "aws_name",
    "child",
    "is_private_ecr",
    "plain_trust",
    "policy",
    "to_json",
]
