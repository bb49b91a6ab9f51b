"""``runway:aws:Environment``: the pieces one environment's items share.

Children: one security group per workload (its rules as separate ``vpc.SecurityGroupIngressRule``
/ ``SecurityGroupEgressRule`` resources, so that two workloads using each other make no cycle;
data stores reference these groups, so they live here and exist before any store), and when
the plan needs them the ECS cluster, the Cloud Map private DNS namespace (internal workloads),
and the public entry: the ALB's security group, the ALB and its listeners.

Listeners answer **404** by default (a fixed response): a request for a host name no workload
serves is never routed to some workload. Each public workload adds its own listener rule
(``runway:aws:Workload``). With ``certificate_arn``: HTTPS on 443 (TLS policy
:data:`~deploy_engine.program.common.TLS_POLICY`) plus HTTP on 80 redirecting to it (301);
without: HTTP on 80. The HTTP listener keeps its logical name either way, so adding a
certificate later updates it in place. The ALB security group's description is the same
with or without a certificate (EC2 cannot change a description: a new one would replace the
group, which the ALB still holds).
"""

from __future__ import annotations

from typing import Any

import pulumi
from ._aws import load as _load_aws

from .common import HTTPS_PORT, LISTENER_PORT, TLS_POLICY, Context, child

aws = _load_aws()

#: The ALB security group's description: constant (see the module docstring).
ALB_SG_DESCRIPTION = "runway ALB: HTTP and HTTPS from the internet"


def _not_found() -> list[Any]:
    return [aws.lb.ListenerDefaultActionArgs(
        type="fixed-response",
        fixed_response=aws.lb.ListenerDefaultActionFixedResponseArgs(content_type="text/plain", message_body="not found", status_code="404"),
    )]


class Environment(pulumi.ComponentResource):
    """The shared network, ALB and cluster pieces of one environment.

    Attributes set for the other components: ``workload_sgs`` (workload name -> security
    group), ``cluster`` / ``namespace`` / ``alb`` / ``alb_sg`` / ``listener`` (the one public
    rules attach to) / ``routed`` (the listeners, which services wait for), or None.
    """

    def __init__(self, name: str, ctx: Context, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("runway:aws:Environment", name, None, opts)
        self.ctx = ctx
        env = ctx.env
        self.workload_sgs: dict[str, aws.ec2.SecurityGroup] = {}
        self.alb_sg: aws.ec2.SecurityGroup | None = None
        self.alb: aws.lb.LoadBalancer | None = None
        self.listener: aws.lb.Listener | None = None
        self.routed: list[pulumi.Resource] = []
        self.cluster: aws.ecs.Cluster | None = None
        self.namespace: aws.servicediscovery.PrivateDnsNamespace | None = None
        self.namespace_name = ""
        if ctx.public:
            self._alb(env)
        for w in ctx.workloads:
            self.workload_sgs[w.name] = aws.ec2.SecurityGroup(
                f"{env}-{w.name}-sg",
                description=f"runway {w.name}: its ECS tasks",
                vpc_id=ctx.network.vpc_id,
                revoke_rules_on_delete=True,
                tags=ctx.tags(w.name),
                opts=child(self),
            )
        for w in ctx.workloads:
            self._workload_rules(w)
        if ctx.workloads:
            self.cluster = aws.ecs.Cluster(
                f"{env}-workloads-ecs-cluster",
                name=ctx.name(),
                tags=ctx.tags("workloads"),
                opts=child(self),
            )
        if ctx.internal:
            self.namespace_name = ctx.plan.item("service-discovery").capacity["namespace"]  # checked before
            self.namespace = aws.servicediscovery.PrivateDnsNamespace(
                f"{env}-service-discovery-namespace",
                name=self.namespace_name,
                vpc=ctx.network.vpc_id,
                description=f"runway {ctx.product} {env}: internal workloads",
                tags=ctx.tags("service-discovery"),
                # `vpc` forces a new namespace under the same name (terraform-provider-aws
                # servicediscovery/private_dns_namespace.go, ForceNew): the old one goes first.
                opts=child(self, delete_before_replace=True),
            )
        outputs: dict[str, Any] = {}
        if self.cluster is not None:
            outputs["ecs_cluster_arn"] = self.cluster.arn
        if self.alb is not None:
            outputs["alb_dns_name"] = self.alb.dns_name
        if self.namespace is not None:
            outputs["namespace_id"] = self.namespace.id
            outputs["namespace"] = self.namespace_name
        self.outputs = outputs
        self.register_outputs(outputs)

    def _alb(self, env: str) -> None:
        ctx = self.ctx
        ports = [(LISTENER_PORT, "HTTP")] + ([(HTTPS_PORT, "HTTPS")] if ctx.network.certificate_arn else [])
        self.alb_sg = aws.ec2.SecurityGroup(
            f"{env}-alb-sg",
            description=ALB_SG_DESCRIPTION,
            vpc_id=ctx.network.vpc_id,
            revoke_rules_on_delete=True,
            ingress=[aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=p, to_port=p, cidr_blocks=["0.0.0.0/0"], ipv6_cidr_blocks=["::/0"], description=what)
                     for p, what in ports],
            # The ALB reaches its targets (the workloads' ports) and nothing needs more.
            egress=[aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"], description="to the targets")],
            tags=ctx.tags("alb"),
            opts=child(self),
        )
        self.alb = aws.lb.LoadBalancer(
            f"{env}-alb-load-balancer",
            load_balancer_type="application",
            internal=False,
            subnets=list(ctx.network.public_subnet_ids),
            security_groups=[self.alb_sg.id],
            drop_invalid_header_fields=True,
            enable_deletion_protection=not ctx.disposable,
            tags=ctx.tags("alb"),
            opts=child(self),
        )
        if ctx.network.certificate_arn:
            https = aws.lb.Listener(
                f"{env}-alb-listener-https",
                load_balancer_arn=self.alb.arn,
                port=HTTPS_PORT,
                protocol="HTTPS",
                ssl_policy=TLS_POLICY,
                certificate_arn=ctx.network.certificate_arn,
                default_actions=_not_found(),
                tags=ctx.tags("alb"),
                opts=child(self),
            )
            http_actions = [aws.lb.ListenerDefaultActionArgs(
                type="redirect",
                redirect=aws.lb.ListenerDefaultActionRedirectArgs(protocol="HTTPS", port=str(HTTPS_PORT), status_code="HTTP_301"),
            )]
        else:
            https = None
            http_actions = _not_found()
        http = aws.lb.Listener(
            f"{env}-alb-listener-http",
            load_balancer_arn=self.alb.arn,
            port=LISTENER_PORT,
            protocol="HTTP",
            default_actions=http_actions,
            tags=ctx.tags("alb"),
            opts=child(self),
        )
        self.routed = [http] + ([https] if https is not None else [])
        self.listener = https if https is not None else http

    def _workload_rules(self, item: Any) -> None:
        """A workload's security group rules: all outbound; its port from the workloads that use
        it, from the ALB when public, from ``allowed_cidr`` when internal."""
        ctx, w, port = self.ctx, item.name, int(item.capacity["port"])
        sg, tags, env = self.workload_sgs[w], ctx.tags(w), ctx.env
        aws.vpc.SecurityGroupEgressRule(
            f"{env}-{w}-sg-egress", security_group_id=sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0", description="all outbound",
            tags=tags, opts=child(self))

        def ingress(part: str, description: str, **source: Any) -> None:
            aws.vpc.SecurityGroupIngressRule(
                f"{env}-{w}-{part}", security_group_id=sg.id, ip_protocol="tcp", from_port=port, to_port=port,
                description=description, tags=tags, opts=child(self), **source)

        for user in ctx.users_of(w):
            ingress(f"sg-from-{user.name}", f"from {user.name}", referenced_security_group_id=self.workload_sgs[user.name].id)
        if item.capacity.get("expose") == "public":
            ingress("sg-from-alb", "from the ALB", referenced_security_group_id=self.alb_sg.id)
        elif ctx.network.allowed_cidr:
            ingress("sg-from-allowed-cidr", "from the allowed CIDR", cidr_ipv4=ctx.network.allowed_cidr)

    def store_security_group(self, parent: pulumi.Resource, resource: str, what: str, port: int, extra: list[Any] = ()) -> aws.ec2.SecurityGroup:
        """A data store's security group (child of ``parent``, auto-named, constant description):
        ``port`` from the workloads that use ``resource`` and the allowed CIDR, plus ``extra``
        rules; all outbound."""
        ctx = self.ctx
        return aws.ec2.SecurityGroup(
            f"{ctx.env}-{resource}-sg", description=f"runway {resource}: {what}", vpc_id=ctx.network.vpc_id, revoke_rules_on_delete=True,
            ingress=self.clients_ingress(port, what, resource) + list(extra),
            egress=[aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"], description="all outbound")],
            tags=ctx.tags(resource), opts=child(parent))

    def clients_ingress(self, port: int, what: str, resource: str) -> list[Any]:
        """Inline ingress on ``port`` from the workloads that use ``resource`` and, if set, ``allowed_cidr``."""
        rules: list[Any] = []
        for w in self.ctx.users_of(resource):
            rules.append(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=port, to_port=port, security_groups=[self.workload_sgs[w.name].id], description=f"{what} from {w.name}"))
        if self.ctx.network.allowed_cidr:
            rules.append(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=port, to_port=port, cidr_blocks=[self.ctx.network.allowed_cidr], description=f"{what} from the allowed CIDR"))
        return rules


__all__ = ["ALB_SG_DESCRIPTION", "Environment"]
