"""``runway:aws:Postgres``: one postgres resource (ADR 0493 §2, 0473).

Children: an ``rds.SubnetGroup`` and an ``ec2.SecurityGroup`` (both auto-named: a replacement
never meets its own name), then ``flavor: rds``: an ``rds.Instance``; ``flavor: aurora``: an
``rds.Cluster`` and N ``rds.ClusterInstance``. With ``proxy``: a ``secretsmanager.Secret`` +
``SecretVersion`` holding the admin login (the proxy's only way to log in, ADR 0493 §4), an
``iam.Role`` (trust limited by ``aws:SourceAccount``) + ``RolePolicy`` that may read that one
secret, ``rds.Proxy``, ``rds.ProxyDefaultTargetGroup``, ``rds.ProxyTarget``.

The database keeps a fixed identifier (``<product>-<env>-<resource>``): a database is never
replaced by accident, and if a change would replace it, the fixed name makes AWS refuse the
new one instead of silently creating an empty database beside the old. ``allow_major_version_upgrade``
is on (the format allows versions 14-17; a major change is an in-place upgrade); outside
disposable environments (the plan's ``disposable``: ``dev`` by default, never decided by a
name) the database has deletion protection, a final snapshot (:func:`final_snapshot_name`),
Pulumi's ``protect`` and waits for the maintenance window (``apply_immediately`` off). Its
RDS Proxy is named after its subnets (:func:`proxy_name`): see
:mod:`deploy_engine.program.replacement`.

Password inputs (``password``, ``master_password``, ``secret_string``) carry ``ignore_changes``
unless this run sets the password (docs/deploy.md, "Credentials").
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

import pulumi
from ._aws import load as _load_aws

from runway_core import kinds
from runway_core.planner import ItemPlan, env_prefix

from .common import (
    ADMIN_USERNAME, INITIAL_CREDENTIAL_VERSION, LIMIT_GENERIC, LIMIT_PROXY, LIMIT_RDS, PASSWORD_INPUTS, POSTGRES_PORT,
    Context, Offer, aws_name, child, policy, to_json,
)
from .environment import Environment

aws = _load_aws()


def proxy_name(ctx: Context, resource: str) -> str:
    """``<product>-<env>-<resource>-<8 hex of sha256 over the sorted private subnet ids>``, at
    most :data:`LIMIT_PROXY` characters."""
    digest = hashlib.sha256(",".join(sorted(ctx.network.private_subnet_ids)).encode()).hexdigest()[:8]
    return aws_name(ctx.product, ctx.env, resource, limit=LIMIT_PROXY - 9) + "-" + digest


def final_snapshot_name(identifier: str, credential_version: str) -> str:
    """The final snapshot of a database: ``<identifier>-final-<credential version>``. A database
    created again (removed from the runway, added back) gets a new credential version, so its
    final snapshot never meets the one the first left (DeleteDBInstance refuses an existing
    ``FinalDBSnapshotIdentifier``: DBSnapshotAlreadyExists)."""
    return aws_name(identifier, "final", credential_version, limit=LIMIT_GENERIC)


class Postgres(pulumi.ComponentResource):
    """One postgres item; ``offer`` is what its consumers get (values, credential version)."""

    def __init__(self, item: ItemPlan, ctx: Context, env: Environment, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["postgres"].component, f"{ctx.env}-{item.name}", None, opts)
        self.ctx, self.item = ctx, item
        cap, r = item.capacity, item.name
        self.prefix = f"{ctx.env}-{r}"
        tags = ctx.tags(r)
        password = pulumi.Output.secret(ctx.credentials[r])
        db_name = env_prefix(r).lower()
        identifier = ctx.name(r, limit=LIMIT_RDS)
        subnets = aws.rds.SubnetGroup(
            f"{self.prefix}-subnet-group", subnet_ids=list(ctx.network.private_subnet_ids), description=f"runway {r}", tags=tags, opts=child(self))
        # The proxy shares this group, so it reaches the database through the self rule.
        sg = env.store_security_group(self, r, "PostgreSQL", POSTGRES_PORT, [aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp", from_port=POSTGRES_PORT, to_port=POSTGRES_PORT, self=True, description="RDS Proxy to the database")])
        version = ctx.credential_versions.get(r) or INITIAL_CREDENTIAL_VERSION
        protection: dict[str, Any] = {
            "deletion_protection": not ctx.disposable,
            "skip_final_snapshot": ctx.disposable,
            "final_snapshot_identifier": None if ctx.disposable else final_snapshot_name(identifier, version),
        }
        keep = not ctx.disposable
        self.offer = Offer(secret_suffixes=frozenset({"PASSWORD", "URL"}), credential_version=version)
        outputs = self.offer.outputs
        if cap["flavor"] == "aurora":
            cluster = aws.rds.Cluster(
                f"{self.prefix}-cluster",
                cluster_identifier=identifier,
                engine="aurora-postgresql",
                engine_version=ctx.engine_versions.get(r) or cap["engine_version"],
                allow_major_version_upgrade=True,
                database_name=db_name,
                master_username=ADMIN_USERNAME,
                master_password=password,
                db_subnet_group_name=subnets.name,
                vpc_security_group_ids=[sg.id],
                # Aurora cannot turn automated backups off: 1 day is its minimum.
                backup_retention_period=max(1, int(cap["backup_retention_days"])),
                storage_encrypted=True,
                copy_tags_to_snapshot=True,
                apply_immediately=ctx.disposable,
                tags=tags,
                opts=child(self, protect=keep, ignore_changes=self._ignored("cluster")),
                **protection,
            )
            for n in range(1, int(cap["instances"]) + 1):
                aws.rds.ClusterInstance(
                    f"{self.prefix}-instance-{n}",
                    identifier=ctx.name(r, str(n), limit=LIMIT_RDS),
                    cluster_identifier=cluster.id,
                    instance_class=cap["instance_class"],
                    engine=cluster.engine,
                    engine_version=cluster.engine_version,
                    db_subnet_group_name=subnets.name,
                    publicly_accessible=False,
                    auto_minor_version_upgrade=True,
                    apply_immediately=ctx.disposable,
                    tags=tags,
                    opts=child(self, protect=keep),
                )
            host, target = cluster.endpoint, {"db_cluster_identifier": cluster.cluster_identifier}
            outputs.update(endpoint=cluster.endpoint, reader_endpoint=cluster.reader_endpoint, arn=cluster.arn)
        else:
            instance = aws.rds.Instance(
                f"{self.prefix}-instance",
                identifier=identifier,
                engine="postgres",
                engine_version=ctx.engine_versions.get(r) or cap["engine_version"],
                allow_major_version_upgrade=True,
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
                apply_immediately=ctx.disposable,
                tags=tags,
                opts=child(self, protect=keep, ignore_changes=self._ignored("instance")),
                **protection,
            )
            host, target = instance.address, {"db_instance_identifier": instance.identifier}
            outputs.update(endpoint=instance.address, arn=instance.arn)
        if cap.get("proxy"):
            host = self._proxy(password, sg, target)
            outputs["proxy_endpoint"] = host
        outputs["port"] = POSTGRES_PORT
        outputs["flavor"] = cap["flavor"]  # read back by the next run (not secret): which database exists
        outputs["credential_version"] = version
        self.offer.values.update(HOST=host, PORT=str(POSTGRES_PORT), USER=ADMIN_USERNAME, DATABASE=db_name)
        self.register_outputs(dict(outputs))

    def _ignored(self, part: str) -> list[str] | None:
        """``ignore_changes`` on the password input of ``part`` unless this run sets it."""
        if self.item.name in self.ctx.set_passwords:
            return None
        return [PASSWORD_INPUTS[part]]

    def _proxy(self, password: pulumi.Output, sg: aws.ec2.SecurityGroup, target: Mapping[str, Any]) -> pulumi.Output:
        """RDS Proxy in front of the database; returns its endpoint (what consumers connect to)."""
        ctx, r, tags = self.ctx, self.item.name, self.ctx.tags(self.item.name)
        secret = aws.secretsmanager.Secret(
            f"{self.prefix}-proxy-secret",
            name_prefix=f"runway/{ctx.product}/{ctx.env}/{r}/rds-proxy-admin-",
            description=f"RDS Proxy admin login of {r} (source of truth: Infisical {ctx.env}:/runtime/{r}/)",
            recovery_window_in_days=0 if ctx.disposable else 7,
            tags=tags,
            opts=child(self),
        )
        # The login the proxy uses (RDS Proxy secret format: username + password), secret.
        secret_string = pulumi.Output.secret(password.apply(lambda p: to_json({"username": ADMIN_USERNAME, "password": p})))
        version = aws.secretsmanager.SecretVersion(
            f"{self.prefix}-proxy-secret-version", secret_id=secret.id, secret_string=secret_string,
            opts=child(self, ignore_changes=self._ignored("proxy-secret-version")))
        role = aws.iam.Role(
            f"{self.prefix}-proxy-role",
            assume_role_policy=ctx.service_trust("rds.amazonaws.com"),
            description=f"RDS Proxy of {r}: reads its admin secret",
            tags=tags,
            opts=child(self),
        )
        role_policy = aws.iam.RolePolicy(
            f"{self.prefix}-proxy-policy",
            name="read-admin-secret",
            role=role.id,
            policy=secret.arn.apply(lambda arn: policy([{"Effect": "Allow", "Action": ["secretsmanager:GetSecretValue"], "Resource": arn}])),
            opts=child(self),
        )
        proxy = aws.rds.Proxy(
            f"{self.prefix}-proxy",
            # vpc_subnet_ids forces a new proxy (terraform-provider-aws rds/proxy.go, ForceNew) and
            # Pulumi creates before it deletes: the name follows the subnets, so the new proxy
            # never meets the old one's name (docs/deploy.md, "Replacement safety").
            name=proxy_name(ctx, r),
            engine_family="POSTGRESQL",
            auths=[aws.rds.ProxyAuthArgs(auth_scheme="SECRETS", secret_arn=secret.arn, iam_auth="DISABLED", client_password_auth_type="POSTGRES_SCRAM_SHA_256", description="admin login")],
            role_arn=role.arn,
            vpc_subnet_ids=list(ctx.network.private_subnet_ids),
            vpc_security_group_ids=[sg.id],
            require_tls=True,
            debug_logging=False,
            tags=tags,
            opts=child(self, depends_on=[role_policy, version]),
        )
        group = aws.rds.ProxyDefaultTargetGroup(
            f"{self.prefix}-proxy-target-group",
            db_proxy_name=proxy.name,
            connection_pool_config=aws.rds.ProxyDefaultTargetGroupConnectionPoolConfigArgs(max_connections_percent=90, max_idle_connections_percent=50, connection_borrow_timeout=120),
            opts=child(self),
        )
        aws.rds.ProxyTarget(f"{self.prefix}-proxy-target", db_proxy_name=proxy.name, target_group_name=group.name, opts=child(self), **target)
        return proxy.endpoint


__all__ = ["Postgres", "final_snapshot_name", "proxy_name"]
