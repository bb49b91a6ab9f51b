"""Replacement safety: every AWS resource the program declares with a fixed physical name, the
inputs that make the provider replace it, and what keeps a replacement from meeting its own
name (docs/deploy.md, "Replacement safety"; issue 24).

Pulumi replaces a resource when an input marked *replace on change* differs; pulumi-aws takes
that mark from terraform-provider-aws's schema (``ForceNew: true``) and, by default, **creates
the new resource before deleting the old one**. With a fixed name the create fails (RDS, ECS,
SQS, ElastiCache: names are unique per account and region), and ``up`` stops half-way. So each
row says which of three things holds:

- ``constant``: every replacing input the program sets is the same for every plan of that
  resource (a literal, or derived from the resource's own name); a replacement can only come
  from a change that is refused at check time (RW190 region, RW193 flavor) or that makes a
  new resource under a new logical name;
- ``name-follows``: the physical name is derived from the replacing inputs (a FIFO queue's
  ``.fifo``, the RDS Proxy's subnet digest), so a replacement is created under another name;
- ``parent-follows``: the name is unique only inside a parent (an IAM role's inline policy, a
  Cloud Map service in its namespace, a record in its hosted zone, a task definition family's
  revisions) and a replacing input is that parent, which is auto-named or replaced with it;
- ``delete-before-replace``: the resource carries Pulumi's ``delete_before_replace``.

``REPLACING`` is per Pulumi type token (kept as one self-contained table, to be folded into
the kind registry): the fixed-name input (wire name), the replacing inputs the program sets
(wire names; ``ForceNew`` attributes the program never sets are left out: they cannot change),
how it is protected, and the terraform-provider-aws file whose schema marks them ``ForceNew``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

#: The input names that carry a fixed physical name (``namePrefix`` / ``bucketPrefix`` are not fixed).
NAME_INPUTS = ("name", "identifier", "clusterIdentifier", "replicationGroupId", "family")
PROTECTIONS = ("constant", "name-follows", "parent-follows", "delete-before-replace")


@dataclass(frozen=True)
class Replacing:
    """One fixed-name resource type: ``name_input`` (wire name), ``inputs`` (wire names of the
    replacing inputs the program sets), ``protection`` (one of :data:`PROTECTIONS`), ``source``
    (terraform-provider-aws file whose schema marks them ForceNew) and ``why`` (one line)."""

    name_input: str
    inputs: tuple[str, ...]
    protection: str
    source: str
    why: str


TPA = "hashicorp/terraform-provider-aws internal/service/"

REPLACING: Mapping[str, Replacing] = {
    "aws:rds/instance:Instance": Replacing(
        "identifier", ("identifier", "engine", "dbName", "username", "storageEncrypted"), "constant", TPA + "rds/instance.go",
        "engine `postgres`, admin `runway_admin`, encryption on and the database name from the resource name never change; "
        "`dbSubnetGroupName` and `allocatedStorage` update in place (a shrink is refused at check time, RW191)"),
    "aws:rds/cluster:Cluster": Replacing(
        "clusterIdentifier", ("clusterIdentifier", "engine", "databaseName", "masterUsername", "storageEncrypted", "dbSubnetGroupName"),
        "constant", TPA + "rds/cluster.go",
        "as the instance; the subnet group is auto-named and its subnets update in place, so its name never changes"),
    "aws:rds/clusterInstance:ClusterInstance": Replacing(
        "identifier", ("identifier", "clusterIdentifier", "engine", "dbSubnetGroupName"), "constant", TPA + "rds/cluster_instance.go",
        "its cluster, engine and subnet group are the cluster's, which never change"),
    "aws:rds/proxy:Proxy": Replacing(
        "name", ("engineFamily", "vpcSubnetIds"), "name-follows", TPA + "rds/proxy.go",
        "the name ends in a digest of the private subnets: new subnets create a proxy under a new name, then the old one goes"),
    "aws:elasticache/replicationGroup:ReplicationGroup": Replacing(
        "replicationGroupId", ("replicationGroupId", "atRestEncryptionEnabled", "port", "subnetGroupName"), "constant",
        TPA + "elasticache/replication_group.go",
        "encryption and port are literals, the subnet group is auto-named; an engine downgrade (ForceNew in its CustomizeDiff) "
        "is refused at check time (RW192)"),
    "aws:sqs/queue:Queue": Replacing(
        "name", ("name", "fifoQueue"), "name-follows", TPA + "sqs/queue.go", "a FIFO queue's name ends in `.fifo`"),
    "aws:sns/topic:Topic": Replacing(
        "name", ("name", "fifoTopic"), "name-follows", TPA + "sns/topic.go", "a FIFO topic's name ends in `.fifo`"),
    "aws:ecs/cluster:Cluster": Replacing(
        "name", ("name",), "constant", TPA + "ecs/cluster.go", "`<product>-<env>`"),
    "aws:ecs/taskDefinition:TaskDefinition": Replacing(
        "family", ("family", "containerDefinitions", "cpu", "memory", "runtimePlatform"), "parent-follows", TPA + "ecs/task_definition.go",
        "a family holds any number of revisions: a replacement is the next revision"),
    "aws:cloudwatch/logGroup:LogGroup": Replacing(
        "name", ("name",), "constant", TPA + "logs/group.go",
        "`/runway/<product>/<env>/<workload>`; kept on delete (`retain_on_delete`), so a renamed workload's logs stay for their retention"),
    "aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace": Replacing(
        "name", ("name", "vpc"), "delete-before-replace", TPA + "servicediscovery/private_dns_namespace.go",
        "another VPC replaces every workload anyway; the old namespace goes first"),
    "aws:servicediscovery/service:Service": Replacing(
        "name", ("name", "dnsConfig", "healthCheckCustomConfig"), "parent-follows", TPA + "servicediscovery/service.go",
        "unique in its namespace; a new namespace holds a new service"),
    "aws:iam/rolePolicy:RolePolicy": Replacing(
        "name", ("name", "role"), "parent-follows", TPA + "iam/role_policy.go", "an inline policy of an auto-named role"),
    "aws:route53/record:Record": Replacing(
        "name", ("name", "zoneId"), "parent-follows", TPA + "route53/record.go", "unique in its hosted zone"),
}


def fixed_name(inputs: Mapping[str, object]) -> str | None:
    """The input of ``inputs`` (wire names) that fixes a physical name, or None."""
    for key in NAME_INPUTS:
        if isinstance(inputs.get(key), str):
            return key
    return None


__all__ = ["NAME_INPUTS", "PROTECTIONS", "REPLACING", "Replacing", "fixed_name"]
