"""Every declared input checked against AWS's own API shapes, as botocore carries them.

The program runs under Pulumi's mock monitor (deploy_engine.resources) for plans covering every
kind and every size of the packaged catalogue (postgres rds/aurora with and without proxy,
FIFO and standard queues with dead-letter queues, topics, caches, buckets, public and internal
workloads with path and command health checks). Each input that reaches an AWS API is mapped
to the member of the request shape it becomes (``botocore.session.get_session()
.get_service_model(service).operation_model(op).input_shape``) and checked against that
shape: type, ``min``/``max`` (length or value), ``pattern``, ``enum``. A container
definition is checked whole against ECS's ``ContainerDefinition``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest

botocore_session = pytest.importorskip("botocore.session", reason="botocore carries the AWS API shapes")
pytest.importorskip("pulumi_aws", reason="the Pulumi program needs the [deploy] extra")

from deploy_engine.resources import declared_resources  # noqa: E402
from deploy_engine.settings import NetworkSettings  # noqa: E402
from test_program_mocks import entry, make_plan  # noqa: E402

SESSION = botocore_session.get_session()
NETWORK = NetworkSettings("vpc-0a1b2c3d4e5f60718", ("subnet-0a000000000000001", "subnet-0a000000000000002"),
                          ("subnet-0b000000000000001", "subnet-0b000000000000002"), public_domain="example.com",
                          certificate_arn="arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
                          hosted_zone_id="Z0123456789ABCDEFGHIJ")

#: (Pulumi type, input path, service, operation, request member path). ``[]`` is each element
#: of a list; ``{}`` each value of a map. A path missing from the inputs is skipped (optional).
MAPPING: list[tuple[str, str, str, str, str]] = [
    ("aws:lb/targetGroup:TargetGroup", "port", "elbv2", "CreateTargetGroup", "Port"),
    ("aws:lb/targetGroup:TargetGroup", "protocol", "elbv2", "CreateTargetGroup", "Protocol"),
    ("aws:lb/targetGroup:TargetGroup", "targetType", "elbv2", "CreateTargetGroup", "TargetType"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.interval", "elbv2", "CreateTargetGroup", "HealthCheckIntervalSeconds"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.timeout", "elbv2", "CreateTargetGroup", "HealthCheckTimeoutSeconds"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.healthyThreshold", "elbv2", "CreateTargetGroup", "HealthyThresholdCount"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.unhealthyThreshold", "elbv2", "CreateTargetGroup", "UnhealthyThresholdCount"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.path", "elbv2", "CreateTargetGroup", "HealthCheckPath"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.protocol", "elbv2", "CreateTargetGroup", "HealthCheckProtocol"),
    ("aws:lb/targetGroup:TargetGroup", "healthCheck.matcher", "elbv2", "CreateTargetGroup", "Matcher.HttpCode"),
    ("aws:lb/listener:Listener", "port", "elbv2", "CreateListener", "Port"),
    ("aws:lb/listener:Listener", "protocol", "elbv2", "CreateListener", "Protocol"),
    ("aws:lb/listener:Listener", "sslPolicy", "elbv2", "CreateListener", "SslPolicy"),
    ("aws:lb/listener:Listener", "defaultActions.[].type", "elbv2", "CreateListener", "DefaultActions.[].Type"),
    ("aws:lb/listener:Listener", "defaultActions.[].fixedResponse.statusCode", "elbv2", "CreateListener", "DefaultActions.[].FixedResponseConfig.StatusCode"),
    ("aws:lb/listener:Listener", "defaultActions.[].fixedResponse.contentType", "elbv2", "CreateListener", "DefaultActions.[].FixedResponseConfig.ContentType"),
    ("aws:lb/listener:Listener", "defaultActions.[].fixedResponse.messageBody", "elbv2", "CreateListener", "DefaultActions.[].FixedResponseConfig.MessageBody"),
    ("aws:lb/listener:Listener", "defaultActions.[].redirect.statusCode", "elbv2", "CreateListener", "DefaultActions.[].RedirectConfig.StatusCode"),
    ("aws:lb/listener:Listener", "defaultActions.[].redirect.protocol", "elbv2", "CreateListener", "DefaultActions.[].RedirectConfig.Protocol"),
    ("aws:lb/listener:Listener", "defaultActions.[].redirect.port", "elbv2", "CreateListener", "DefaultActions.[].RedirectConfig.Port"),
    ("aws:lb/listenerRule:ListenerRule", "priority", "elbv2", "CreateRule", "Priority"),
    ("aws:lb/listenerRule:ListenerRule", "actions.[].type", "elbv2", "CreateRule", "Actions.[].Type"),
    ("aws:lb/listenerRule:ListenerRule", "conditions.[].hostHeader.values.[]", "elbv2", "CreateRule", "Conditions.[].HostHeaderConfig.Values.[]"),
    ("aws:lb/listenerRule:ListenerRule", "conditions.[].pathPattern.values.[]", "elbv2", "CreateRule", "Conditions.[].PathPatternConfig.Values.[]"),
    ("aws:lb/loadBalancer:LoadBalancer", "loadBalancerType", "elbv2", "CreateLoadBalancer", "Type"),
    ("aws:lb/loadBalancer:LoadBalancer", "subnets.[]", "elbv2", "CreateLoadBalancer", "Subnets.[]"),
    ("aws:ecs/taskDefinition:TaskDefinition", "family", "ecs", "RegisterTaskDefinition", "family"),
    ("aws:ecs/taskDefinition:TaskDefinition", "cpu", "ecs", "RegisterTaskDefinition", "cpu"),
    ("aws:ecs/taskDefinition:TaskDefinition", "memory", "ecs", "RegisterTaskDefinition", "memory"),
    ("aws:ecs/taskDefinition:TaskDefinition", "networkMode", "ecs", "RegisterTaskDefinition", "networkMode"),
    ("aws:ecs/taskDefinition:TaskDefinition", "requiresCompatibilities.[]", "ecs", "RegisterTaskDefinition", "requiresCompatibilities.[]"),
    ("aws:ecs/taskDefinition:TaskDefinition", "runtimePlatform.cpuArchitecture", "ecs", "RegisterTaskDefinition", "runtimePlatform.cpuArchitecture"),
    ("aws:ecs/taskDefinition:TaskDefinition", "runtimePlatform.operatingSystemFamily", "ecs", "RegisterTaskDefinition", "runtimePlatform.operatingSystemFamily"),
    ("aws:ecs/service:Service", "desiredCount", "ecs", "CreateService", "desiredCount"),
    ("aws:ecs/service:Service", "launchType", "ecs", "CreateService", "launchType"),
    ("aws:ecs/service:Service", "propagateTags", "ecs", "CreateService", "propagateTags"),
    ("aws:ecs/service:Service", "healthCheckGracePeriodSeconds", "ecs", "CreateService", "healthCheckGracePeriodSeconds"),
    ("aws:ecs/service:Service", "loadBalancers.[].containerPort", "ecs", "CreateService", "loadBalancers.[].containerPort"),
    ("aws:ecs/service:Service", "networkConfiguration.subnets.[]", "ecs", "CreateService", "networkConfiguration.awsvpcConfiguration.subnets.[]"),
    ("aws:ecs/cluster:Cluster", "name", "ecs", "CreateCluster", "clusterName"),
    ("aws:rds/instance:Instance", "identifier", "rds", "CreateDBInstance", "DBInstanceIdentifier"),
    ("aws:rds/instance:Instance", "instanceClass", "rds", "CreateDBInstance", "DBInstanceClass"),
    ("aws:rds/instance:Instance", "engine", "rds", "CreateDBInstance", "Engine"),
    ("aws:rds/instance:Instance", "engineVersion", "rds", "CreateDBInstance", "EngineVersion"),
    ("aws:rds/instance:Instance", "allocatedStorage", "rds", "CreateDBInstance", "AllocatedStorage"),
    ("aws:rds/instance:Instance", "storageType", "rds", "CreateDBInstance", "StorageType"),
    ("aws:rds/instance:Instance", "backupRetentionPeriod", "rds", "CreateDBInstance", "BackupRetentionPeriod"),
    ("aws:rds/instance:Instance", "dbName", "rds", "CreateDBInstance", "DBName"),
    ("aws:rds/instance:Instance", "port", "rds", "CreateDBInstance", "Port"),
    ("aws:rds/instance:Instance", "finalSnapshotIdentifier", "rds", "DeleteDBInstance", "FinalDBSnapshotIdentifier"),
    ("aws:rds/cluster:Cluster", "clusterIdentifier", "rds", "CreateDBCluster", "DBClusterIdentifier"),
    ("aws:rds/cluster:Cluster", "engine", "rds", "CreateDBCluster", "Engine"),
    ("aws:rds/cluster:Cluster", "backupRetentionPeriod", "rds", "CreateDBCluster", "BackupRetentionPeriod"),
    ("aws:rds/cluster:Cluster", "databaseName", "rds", "CreateDBCluster", "DatabaseName"),
    ("aws:rds/clusterInstance:ClusterInstance", "identifier", "rds", "CreateDBInstance", "DBInstanceIdentifier"),
    ("aws:rds/clusterInstance:ClusterInstance", "instanceClass", "rds", "CreateDBInstance", "DBInstanceClass"),
    ("aws:rds/proxy:Proxy", "name", "rds", "CreateDBProxy", "DBProxyName"),
    ("aws:rds/proxy:Proxy", "engineFamily", "rds", "CreateDBProxy", "EngineFamily"),
    ("aws:rds/proxy:Proxy", "auths.[].authScheme", "rds", "CreateDBProxy", "Auth.[].AuthScheme"),
    ("aws:rds/proxy:Proxy", "auths.[].iamAuth", "rds", "CreateDBProxy", "Auth.[].IAMAuth"),
    ("aws:rds/proxy:Proxy", "auths.[].clientPasswordAuthType", "rds", "CreateDBProxy", "Auth.[].ClientPasswordAuthType"),
    ("aws:rds/proxy:Proxy", "auths.[].description", "rds", "CreateDBProxy", "Auth.[].Description"),
    ("aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup", "connectionPoolConfig.maxConnectionsPercent", "rds", "ModifyDBProxyTargetGroup", "ConnectionPoolConfig.MaxConnectionsPercent"),
    ("aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup", "connectionPoolConfig.connectionBorrowTimeout", "rds", "ModifyDBProxyTargetGroup", "ConnectionPoolConfig.ConnectionBorrowTimeout"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "replicationGroupId", "elasticache", "CreateReplicationGroup", "ReplicationGroupId"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "description", "elasticache", "CreateReplicationGroup", "ReplicationGroupDescription"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "nodeType", "elasticache", "CreateReplicationGroup", "CacheNodeType"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "numCacheClusters", "elasticache", "CreateReplicationGroup", "NumCacheClusters"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "snapshotRetentionLimit", "elasticache", "CreateReplicationGroup", "SnapshotRetentionLimit"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "port", "elasticache", "CreateReplicationGroup", "Port"),
    ("aws:sqs/queue:Queue", "name", "sqs", "CreateQueue", "QueueName"),
    ("aws:sns/topic:Topic", "name", "sns", "CreateTopic", "Name"),
    ("aws:cloudwatch/logGroup:LogGroup", "name", "logs", "CreateLogGroup", "logGroupName"),
    ("aws:cloudwatch/logGroup:LogGroup", "retentionInDays", "logs", "PutRetentionPolicy", "retentionInDays"),
    ("aws:iam/role:Role", "description", "iam", "CreateRole", "Description"),
    ("aws:iam/role:Role", "assumeRolePolicy", "iam", "CreateRole", "AssumeRolePolicyDocument"),
    ("aws:iam/rolePolicy:RolePolicy", "name", "iam", "PutRolePolicy", "PolicyName"),
    ("aws:iam/rolePolicy:RolePolicy", "policy", "iam", "PutRolePolicy", "PolicyDocument"),
    ("aws:secretsmanager/secret:Secret", "description", "secretsmanager", "CreateSecret", "Description"),
    ("aws:secretsmanager/secret:Secret", "recoveryWindowInDays", "secretsmanager", "DeleteSecret", "RecoveryWindowInDays"),
    ("aws:servicediscovery/service:Service", "name", "servicediscovery", "CreateService", "Name"),
    ("aws:servicediscovery/service:Service", "dnsConfig.dnsRecords.[].ttl", "servicediscovery", "CreateService", "DnsConfig.DnsRecords.[].TTL"),
    ("aws:servicediscovery/service:Service", "dnsConfig.dnsRecords.[].type", "servicediscovery", "CreateService", "DnsConfig.DnsRecords.[].Type"),
    ("aws:servicediscovery/service:Service", "dnsConfig.routingPolicy", "servicediscovery", "CreateService", "DnsConfig.RoutingPolicy"),
    ("aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace", "name", "servicediscovery", "CreatePrivateDnsNamespace", "Name"),
    ("aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace", "description", "servicediscovery", "CreatePrivateDnsNamespace", "Description"),
    ("aws:route53/record:Record", "name", "route53", "ChangeResourceRecordSets", "ChangeBatch.Changes.[].ResourceRecordSet.Name"),
    ("aws:route53/record:Record", "type", "route53", "ChangeResourceRecordSets", "ChangeBatch.Changes.[].ResourceRecordSet.Type"),
    ("aws:route53/record:Record", "zoneId", "route53", "ChangeResourceRecordSets", "HostedZoneId"),
    ("aws:s3/bucketPolicy:BucketPolicy", "policy", "s3", "PutBucketPolicy", "Policy"),
    ("aws:s3/bucketVersioning:BucketVersioning", "versioningConfiguration.status", "s3", "PutBucketVersioning", "VersioningConfiguration.Status"),
    ("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
     "rules.[].applyServerSideEncryptionByDefault.sseAlgorithm", "s3", "PutBucketEncryption",
     "ServerSideEncryptionConfiguration.Rules.[].ApplyServerSideEncryptionByDefault.SSEAlgorithm"),
    ("aws:ec2/securityGroup:SecurityGroup", "description", "ec2", "CreateSecurityGroup", "Description"),
    ("aws:ec2/securityGroup:SecurityGroup", "ingress.[].fromPort", "ec2", "AuthorizeSecurityGroupIngress", "IpPermissions.[].FromPort"),
    ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "fromPort", "ec2", "AuthorizeSecurityGroupIngress", "IpPermissions.[].FromPort"),
    ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "description", "ec2", "AuthorizeSecurityGroupIngress", "IpPermissions.[].IpRanges.[].Description"),
]


def member(service: str, operation: str, path: str) -> Any:
    shape = SESSION.get_service_model(service).operation_model(operation).input_shape
    for part in path.split("."):
        shape = shape.member if part == "[]" else shape.members[part]
    return shape


def values_at(doc: Any, path: str) -> Iterator[Any]:
    head, _, rest = path.partition(".")
    if head == "[]":
        for v in doc if isinstance(doc, list) else []:
            yield from (values_at(v, rest) if rest else [v])
        return
    if not isinstance(doc, dict) or head not in doc:
        return
    yield from (values_at(doc[head], rest) if rest else [doc[head]])


def problems(shape: Any, value: Any, where: str) -> list[str]:
    """``value`` against a botocore shape: type, min/max, pattern, enum (recursively)."""
    t, meta = shape.type_name, shape.metadata
    out: list[str] = []
    if t == "string":
        if not isinstance(value, str):
            return [f"{where}: {value!r} is not a string"]
        if "min" in meta and len(value) < meta["min"] or "max" in meta and len(value) > meta["max"]:
            out.append(f"{where}: length {len(value)} outside {meta.get('min', 0)}..{meta.get('max', '')}")
        if shape.enum and value not in shape.enum:
            out.append(f"{where}: {value!r} not one of {shape.enum}")
        if "pattern" in meta and not re.fullmatch(meta["pattern"], value, re.DOTALL):
            out.append(f"{where}: {value!r} does not match {meta['pattern']}")
    elif t in ("integer", "long"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
            return [f"{where}: {value!r} is not an integer"]
        if "min" in meta and value < meta["min"] or "max" in meta and value > meta["max"]:
            out.append(f"{where}: {value} outside {meta.get('min')}..{meta.get('max')}")
    elif t == "boolean":
        if not isinstance(value, bool):
            out.append(f"{where}: {value!r} is not a boolean")
    elif t == "list":
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        if "min" in meta and len(value) < meta["min"] or "max" in meta and len(value) > meta["max"]:
            out.append(f"{where}: {len(value)} items outside {meta.get('min', 0)}..{meta.get('max', '')}")
        for i, v in enumerate(value):
            out += problems(shape.member, v, f"{where}[{i}]")
    elif t == "map":
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a map"]
        for k, v in value.items():
            out += problems(shape.key, k, f"{where} key") + problems(shape.value, v, f"{where}[{k}]")
    elif t == "structure":
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a structure"]
        unknown = set(value) - set(shape.members)
        if unknown:
            out.append(f"{where}: {sorted(unknown)} are not members of {shape.name}")
        for k in shape.required_members:
            if k not in value:
                out.append(f"{where}: required {k} missing")
        for k, v in value.items():
            if k in shape.members:
                out += problems(shape.members[k], v, f"{where}.{k}")
    return out


def plans(catalog) -> list[tuple[str, Any, NetworkSettings]]:
    """Every kind in every size of the catalogue, with each engine variant; and one public
    workload without a domain or certificate (its rule matches every path)."""
    plain = NetworkSettings(NETWORK.vpc_id, NETWORK.private_subnet_ids, NETWORK.public_subnet_ids)
    found = [("one-public", make_plan(catalog, entry("web", "workload", expose="public")), plain)]
    for size in ("small", "medium", "large"):
        for env in ("dev", "production"):
            found.append((f"{size}-{env}", make_plan(
                catalog,
                entry("main-db", "postgres", size, in_env=env, engine={"version": "17"}),
                entry("ledger", "postgres", size, in_env=env, engine={"flavor": "aurora", "proxy": False}),
                entry("jobs", "queue", size, in_env=env, engine={"fifo": True, "visibility_timeout_s": 43200, "dead_letter": {"max_receives": 1000}}),
                entry("mail", "queue", size, in_env=env),
                entry("events", "topic", size, in_env=env, engine={"fifo": True}),
                entry("sessions", "cache", size, in_env=env),
                entry("files", "bucket", size, in_env=env, engine={"versioning": size != "small"}),
                entry("web", "workload", size, in_env=env, expose="public", port=3000, uses=("main-db", "jobs", "files"),
                      health={"path": "/up", "interval_s": 300, "timeout_s": 120}),
                entry("admin", "workload", size, in_env=env, expose="public", port=4000, uses=("ledger",)),
                entry("worker", "workload", size, in_env=env, uses=("main-db", "sessions", "events", "web"), secrets=("API_KEY",),
                      health={"command": ["/bin/ok"], "interval_s": 300, "timeout_s": 60}),
                # Internal with a `path`: its task has the health probe container too (checked whole).
                entry("reports", "workload", size, in_env=env, port=5000, health={"path": "/ready", "interval_s": 300, "timeout_s": 60}),
                env=env,
            ), NETWORK))
    return found


@pytest.fixture(scope="module")
def declared(catalog_module) -> list[tuple[str, dict[str, Any]]]:
    return [(name, declared_resources(plan, product="acme", region="us-east-1", network=network)) for name, plan, network in plans(catalog_module)]


@pytest.fixture(scope="module")
def catalog_module():
    from runway_core.catalog import load_catalog

    return load_catalog()


def test_every_mapped_input_fits_its_botocore_shape(declared):
    seen: set[tuple[str, str]] = set()
    found: list[str] = []
    for case, doc in declared:
        for r in doc["resources"]:
            for typ, path, service, operation, target in MAPPING:
                if r["type"] != typ:
                    continue
                shape = member(service, operation, target)
                for value in values_at(r["inputs"], path):
                    seen.add((typ, path))
                    found += problems(shape, value, f"{case} {r['name']} {path} -> {service}:{operation}.{target}")
    assert found == []
    # Every mapping met a value in at least one plan: none of them is dead.
    assert {(t, p) for t, p, *_ in MAPPING} - seen == set()


def test_every_container_definition_is_an_ecs_container_definition(declared):
    shape = member("ecs", "RegisterTaskDefinition", "containerDefinitions.[]")
    count = 0
    for case, doc in declared:
        for r in doc["resources"]:
            if r["type"] == "aws:ecs/taskDefinition:TaskDefinition":
                defs = json.loads(r["inputs"]["containerDefinitions"])
                for container in defs:
                    count += 1
                    assert problems(shape, container, f"{case} {r['name']}") == []
                # ECS refuses container limits that add up to more than the task's Fargate size.
                assert sum(d.get("cpu", 0) for d in defs) <= int(r["inputs"]["cpu"])
                assert sum(d.get("memory", 0) for d in defs) <= int(r["inputs"]["memory"])
    assert count == 6 * (4 + 1) + 1  # four workloads and the internal `path` one's health probe, per plan


def test_the_checker_catches_what_aws_refuses():
    """The validator itself: each kind of constraint is enforced (so an empty list means something)."""
    assert problems(member("elbv2", "CreateTargetGroup", "HealthCheckTimeoutSeconds"), 121, "t")
    assert problems(member("elbv2", "CreateRule", "Priority"), 0, "p")
    assert problems(member("rds", "CreateDBProxy", "DBProxyName"), "1-starts-with-a-digit", "n")
    assert problems(member("ecs", "RegisterTaskDefinition", "runtimePlatform.cpuArchitecture"), "ARM", "a")
    assert problems(member("logs", "CreateLogGroup", "logGroupName"), "a" * 513, "l")
    assert problems(member("ecs", "RegisterTaskDefinition", "containerDefinitions.[]"), {"name": "x", "image": "i", "bogus": 1}, "c")
