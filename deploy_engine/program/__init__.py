"""The Pulumi program: one environment's plan declared as AWS resources (ADR 0493 §2).

:func:`declare_environment` is a pure function of one :class:`EnvironmentPlan` (plus the
network settings, the credentials the deploy job generated and what the stack recorded:
credential versions and listener priorities): every capacity figure comes from the plan's
items, never from the catalogue again (one planner, docs/format.md "Plan"). Nothing happens at
import time (docs/architecture.md §6); the Automation API's inline program calls it inside a
stack, and :mod:`deploy_engine.resources` runs it under Pulumi's mock monitor. This package
imports pulumi and pulumi_aws, so only the deploy code path may import it; it must not import
pygls or lsprotocol.

One ComponentResource per logical unit, each AWS resource a child of one (so every URN
says which item it belongs to):

- ``runway:aws:Environment`` (:mod:`.environment`): workload security groups, ECS cluster,
  Cloud Map namespace, ALB + its security group + listeners (default action: 404);
- ``runway:aws:Postgres`` (:mod:`.postgres`), ``runway:aws:Queue``, ``runway:aws:Topic``,
  ``runway:aws:Cache``, ``runway:aws:Bucket`` (:mod:`.stores`): the data resources;
- ``runway:aws:Workload`` (:mod:`.workload`): one per workload.

Components take an explicit ``aws.Provider`` (``region``; ``default_tags`` with
``runway:product``, ``runway:environment`` and ``managed-by``; ``allowed_account_ids`` when
``RUNWAY_AWS_ACCOUNT_IDS`` is configured), which their children inherit. The account and
partition come from ``aws.get_caller_identity`` through that provider.

**No SSM parameter is declared.** Every value a workload reads is an SSM parameter under
``/runway/<product>/<env>/<resource>/`` that the Infisical -> SSM sync creates and fills from
``<env>:/runtime/<resource>/`` (ADR 0493 §4); ``up`` writes those values to Infisical between its
data phase and its services phase and checks, by metadata only, that every parameter exists
before a service changes (docs/deploy.md, "Secrets flow").

Network settings come from the ``network`` argument, else from the stack configuration
(``runway:vpcId``, ``runway:privateSubnetIds``, ...: :func:`deploy_engine.settings.settings_from_config`).
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Mapping

import pulumi
from ._aws import load as _load_aws

from runway_core import kinds
from runway_core.planner import EnvironmentPlan, env_prefix

from ..layout import listener_priorities, required_parameters
from ..settings import NetworkSettings, SettingsError, settings_from_config
from .common import (
    ADMIN_USERNAME, DISPOSABLE_ENVIRONMENTS, INITIAL_CREDENTIAL_VERSION, PASSWORD_INPUTS, TLS_POLICY, Context, Offer, aws_name,
)
from .environment import ALB_SG_DESCRIPTION, Environment
from .postgres import Postgres
from .stores import Bucket, Cache, Queue, Topic
from .workload import LABEL_CREDENTIALS, LABEL_VALUES, Workload, workload_url

aws = _load_aws()

#: The component of each kind of :mod:`runway_core.kinds` (whose ``component`` is its type
#: token), as ``(item, ctx, environment, opts) -> component``: the resource kinds, declared from
#: the plan's items first; the workload, declared after them with their offers
#: (:class:`.workload.Workload`). A kind without one is refused before anything is declared.
COMPONENTS: Mapping[str, Callable[..., Any]] = {
    "postgres": lambda item, ctx, env, opts: Postgres(item, ctx, env, opts),
    "queue": lambda item, ctx, env, opts: Queue(item, ctx, opts),
    "topic": lambda item, ctx, env, opts: Topic(item, ctx, opts),
    "cache": lambda item, ctx, env, opts: Cache(item, ctx, env, opts),
    "bucket": lambda item, ctx, env, opts: Bucket(item, ctx, opts),
    "workload": Workload,
}
#: Logical name of the explicit AWS provider.
PROVIDER_NAME = "runway-aws"


def _check(plan: EnvironmentPlan, network: NetworkSettings, credentials: Mapping[str, Any]) -> None:
    workloads = [i for i in plan.items if i.kind == "workload"]
    public = [w for w in workloads if w.capacity and w.capacity.get("expose") == "public"]
    if public and not network.public_subnet_ids:
        raise SettingsError(f"{plan.name}: workload(s) {', '.join(w.name for w in public)} are public: set RUNWAY_PUBLIC_SUBNET_IDS (the ALB's subnets)")
    if len(public) > 1 and not network.public_domain:
        raise SettingsError(
            f"{plan.name}: {len(public)} public workloads ({', '.join(w.name for w in public)}) share one ALB and are routed by host name: "
            "set RUNWAY_PUBLIC_DOMAIN"
        )
    for item in plan.items:
        if item.origin == "environment":
            continue  # the ALB and the Cloud Map namespace: the Environment component's
        kind = kinds.get(item.kind)
        if kind is None or item.kind not in COMPONENTS:
            raise ValueError(f"{plan.name}: {item.kind} {item.name!r}: the kind has no component in deploy_engine.program.COMPONENTS; nothing is declared")
        if not item.capacity:
            raise ValueError(f"{plan.name}: {item.kind} {item.name!r} has no capacity in the plan (size not in the catalogue)")
        if kind.credentials:
            value = credentials.get(item.name)
            if value is None or (isinstance(value, str) and not value):
                raise ValueError(f"credentials: no generated password for postgres resource {item.name!r}")
    if any(w.capacity.get("expose") != "public" for w in workloads) and plan.item("service-discovery") is None:
        raise ValueError(f"{plan.name}: internal workloads but no service-discovery item in the plan")
    for w in workloads:
        # Its own secrets live beside its own variables (/runway/<product>/<env>/<w>/...).
        clash = sorted(set(w.capacity.get("secrets") or ()) & set(w.variables))
        if clash:
            raise ValueError(f"{plan.name}: workload {w.name!r}: secret {clash[0]} is also the variable it injects into its consumers")


def _network_from_config() -> NetworkSettings:
    config = pulumi.Config("runway")
    return settings_from_config(config.get)


def declare_environment(
    plan: EnvironmentPlan,
    *,
    product: str,
    region: str,
    network: NetworkSettings | None = None,
    credentials: Mapping[str, pulumi.Output | str],
    set_passwords: Collection[str] = (),
    credential_versions: Mapping[str, str] | None = None,
    known_priorities: Mapping[str, int] | None = None,
    engine_versions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Declare one environment's resources from its plan; call inside a Pulumi program.

    ``credentials`` maps each postgres resource name to an admin password (a string or an
    Output; wrapped with ``pulumi.Output.secret``). It is *set* only for the resources named in
    ``set_passwords`` (a new database, or a rotation): for every other one the password inputs
    carry ``ignore_changes``, so the value passed is ignored once the resource exists.
    ``credential_versions`` (postgres name -> version, default ``initial``) label the consumers'
    task definitions: a new version is a new ECS deployment. ``known_priorities`` (public
    workload -> listener-rule priority, from the last ``up``) keeps rules where they are.
    ``engine_versions`` (postgres name -> full engine version, :mod:`deploy_engine.engine_versions`)
    replaces the plan's major version where given.
    ``network`` None: read from the stack configuration.

    Returns plain data and Outputs, never a secret: ``product``, ``environment``, ``region``,
    ``urns`` (component name -> URN), ``resources`` (item -> endpoints, ARNs, names, URLs; a
    postgres item's ``flavor`` and ``credential_version``; every item's non-secret injected
    ``variables``), ``environment_resources`` (ECS cluster, ALB DNS name, namespace,
    ``listener_priorities``) and ``ssm_parameters`` (SSM name -> workloads reading it).

    Raises :class:`~deploy_engine.settings.SettingsError` when the settings lack what the plan
    needs and ``ValueError`` when a postgres resource has no credential or an item has no
    capacity; both before any resource is declared. An over-cap plan raises ValueError before
    anything is declared, and so does an ``unpriced`` one (a capped plan missing a unit price:
    its cap cannot be checked): the CLI refuses such a plan before importing Pulumi, and the
    program refuses it again whoever calls it (ADR 0493 §3).
    """
    if plan.verdict == "over-cap":
        raise ValueError(f"{plan.name}: the plan is over its cap and refused (ADR 0493 §3); nothing is declared")
    if plan.verdict == "unpriced":
        raise ValueError(f"{plan.name}: the plan misses unit prices for {region}, its cap cannot be checked and it is refused; nothing is declared")
    if network is None:
        network = _network_from_config()
    _check(plan, network, credentials)
    ctx_tags = {"runway:product": product, "runway:environment": plan.name, "managed-by": "runway"}
    provider = aws.Provider(
        PROVIDER_NAME,
        region=region,
        default_tags=aws.ProviderDefaultTagsArgs(tags=ctx_tags),
        allowed_account_ids=list(network.allowed_account_ids) or None,
    )
    identity = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(provider=provider))
    # arn:<partition>:sts::<account>:...: the partition of the credentials in use.
    partition = identity.arn.apply(lambda arn: arn.split(":")[1] if arn and arn.count(":") >= 2 else "aws")
    public = [w.name for w in plan.items if w.kind == "workload" and w.capacity.get("expose") == "public"]
    ctx = Context(
        plan=plan, product=product, region=region, network=network, provider=provider, account_id=identity.account_id,
        partition=partition, credentials=credentials, set_passwords=frozenset(set_passwords),
        credential_versions=dict(credential_versions or {}), listener_priorities=listener_priorities(public, known_priorities),
        engine_versions=dict(engine_versions or {}),
    )
    opts = pulumi.ResourceOptions(providers={"aws": provider})
    env = Environment(f"{plan.name}-environment", ctx, opts)
    components: dict[str, pulumi.Resource] = {f"{plan.name}-environment": env}
    offers: dict[str, Offer] = {}
    for item in plan.items:
        kind = kinds.get(item.kind)
        if item.origin == "environment" or kind is None or not kind.resource:
            continue  # the Environment's items; workloads below, once every offer is known
        component = COMPONENTS[item.kind](item, ctx, env, opts)
        offers[item.name] = component.offer
        components[f"{plan.name}-{item.name}"] = component
    for item in ctx.workloads:
        offers[item.name] = Offer(values={"URL": workload_url(ctx, env, item)})
    resources: dict[str, dict[str, Any]] = {name: dict(o.outputs) for name, o in offers.items()}
    for item in ctx.workloads:
        workload = COMPONENTS["workload"](item, ctx, env, offers, opts)
        components[f"{plan.name}-{item.name}"] = workload
        resources[item.name].update(workload.outputs)
    for item in plan.items:
        if item.name in offers:
            prefix = env_prefix(item.name) + "_"
            values = offers[item.name].values
            resources[item.name]["variables"] = {var: values[var[len(prefix):]] for var in item.variables if var[len(prefix):] in values}
    env_outputs = dict(env.outputs)
    # Read back by the next run (not secret): a VPC move replaces every networked resource.
    env_outputs["vpc_id"] = network.vpc_id
    if ctx.listener_priorities:
        env_outputs["listener_priorities"] = dict(ctx.listener_priorities)
    return {
        "product": product,
        "environment": plan.name,
        "region": region,
        "urns": {name: c.urn for name, c in components.items()},
        "resources": resources,
        "environment_resources": env_outputs,
        "ssm_parameters": required_parameters(plan, product),
    }


__all__ = [
    "ADMIN_USERNAME",
    "ALB_SG_DESCRIPTION",
    "COMPONENTS",
    "DISPOSABLE_ENVIRONMENTS",
    "INITIAL_CREDENTIAL_VERSION",
    "LABEL_CREDENTIALS",
    "LABEL_VALUES",
    "PASSWORD_INPUTS",
    "PROVIDER_NAME",
    "TLS_POLICY",
    "aws_name",
    "declare_environment",
]
