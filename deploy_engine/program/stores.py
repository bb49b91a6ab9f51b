"""``runway:aws:Queue``, ``runway:aws:Topic``, ``runway:aws:Cache``, ``runway:aws:Bucket``.

- Queue: ``sqs.Queue`` (``.fifo`` name when FIFO; SQS-managed encryption) and, with
  ``dead_letter``, a dead-letter queue and a redrive policy.
- Topic: ``sns.Topic`` encrypted with the AWS-managed key ``alias/aws/sns`` (publishers in the
  account need no KMS grant: that key's policy admits SNS calls from the account; AWS services
  such as CloudWatch alarms or S3 notifications cannot publish to it, which no runway item does).
- Cache: ``elasticache.SubnetGroup`` + ``ec2.SecurityGroup`` (auto-named) +
  ``elasticache.ReplicationGroup`` (Valkey, encrypted in transit and at rest; outside
  disposable environments daily snapshots kept 7 days and the maintenance window).
- Bucket: ``s3.Bucket`` (``bucket_prefix``: S3 names are global) + ``BucketVersioning`` +
  ``BucketPublicAccessBlock`` + ``BucketServerSideEncryptionConfiguration`` (SSE-S3) + a
  ``BucketPolicy`` denying every request not made over TLS; ``protect`` outside disposable environments.

Queue and topic names stay fixed (``<product>-<env>-<resource>[.fifo]``): consumers outside
this stack (members) find them by name, and the only replacing change (FIFO on or off) changes
the name too, so a replacement never meets its own name.
"""

from __future__ import annotations

import pulumi
from ._aws import load as _load_aws

from runway_core import kinds
from runway_core.planner import ItemPlan

from .common import LIMIT_BUCKET_PREFIX, LIMIT_CACHE_ID, LIMIT_SNS, LIMIT_SQS, VALKEY_PORT, Context, Offer, child, policy, to_json
from .environment import Environment

aws = _load_aws()

#: Caches outside disposable environments keep daily snapshots this many days (ElastiCache SnapshotRetentionLimit).
PRODUCTION_SNAPSHOT_DAYS = 7


class Queue(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["queue"].component, f"{ctx.env}-{item.name}", None, opts)
        cap, r, tags = item.capacity, item.name, ctx.tags(item.name)
        fifo = bool(cap["fifo"])
        suffix = ".fifo" if fifo else ""
        limit = LIMIT_SQS - len(suffix)
        redrive = None
        self.offer = Offer()
        dead_letter = cap.get("dead_letter")
        if dead_letter:
            dlq = aws.sqs.Queue(
                f"{ctx.env}-{r}-dlq",
                name=ctx.name(r, "dlq", limit=limit) + suffix,
                fifo_queue=fifo,
                message_retention_seconds=14 * 24 * 3600,  # the SQS maximum: time to inspect failures
                sqs_managed_sse_enabled=True,
                tags=tags,
                opts=child(self),
            )
            receives = int(dead_letter["max_receives"])
            redrive = dlq.arn.apply(lambda arn: to_json({"deadLetterTargetArn": arn, "maxReceiveCount": receives}))
            self.offer.outputs["dead_letter_arn"] = dlq.arn
        timeout = cap.get("visibility_timeout_s")
        queue = aws.sqs.Queue(
            f"{ctx.env}-{r}-queue",
            name=ctx.name(r, limit=limit) + suffix,
            fifo_queue=fifo,
            visibility_timeout_seconds=30 if timeout is None else int(timeout),  # 30 s: the SQS default
            redrive_policy=redrive,
            sqs_managed_sse_enabled=True,
            tags=tags,
            opts=child(self),
        )
        self.offer.values.update(URL=queue.url, ARN=queue.arn)
        self.offer.outputs.update(url=queue.url, arn=queue.arn)
        self.offer.grants.append({
            "Effect": "Allow",
            "Action": ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"],
            "Resource": queue.arn,
        })
        self.register_outputs(dict(self.offer.outputs))


class Topic(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["topic"].component, f"{ctx.env}-{item.name}", None, opts)
        cap, r = item.capacity, item.name
        fifo = bool(cap["fifo"])
        suffix = ".fifo" if fifo else ""
        topic = aws.sns.Topic(
            f"{ctx.env}-{r}-topic",
            name=ctx.name(r, limit=LIMIT_SNS - len(suffix)) + suffix,
            fifo_topic=fifo,
            kms_master_key_id="alias/aws/sns",
            tags=ctx.tags(r),
            opts=child(self),
        )
        self.offer = Offer(values={"ARN": topic.arn}, outputs={"arn": topic.arn})
        self.offer.grants.append({"Effect": "Allow", "Action": ["sns:Publish"], "Resource": topic.arn})
        self.register_outputs(dict(self.offer.outputs))


class Cache(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, env: Environment, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["cache"].component, f"{ctx.env}-{item.name}", None, opts)
        cap, r, tags = item.capacity, item.name, ctx.tags(item.name)
        nodes = int(cap["nodes"])
        subnets = aws.elasticache.SubnetGroup(
            f"{ctx.env}-{r}-subnet-group", subnet_ids=list(ctx.network.private_subnet_ids), description=f"runway {r}", tags=tags, opts=child(self))
        sg = env.store_security_group(self, r, "Valkey", VALKEY_PORT)
        snapshots = 0 if ctx.disposable else PRODUCTION_SNAPSHOT_DAYS
        group = aws.elasticache.ReplicationGroup(
            f"{ctx.env}-{r}-replication-group",
            replication_group_id=ctx.name(r, limit=LIMIT_CACHE_ID),
            description=f"runway {ctx.product} {ctx.env} {r}",
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
            snapshot_retention_limit=snapshots,
            apply_immediately=ctx.disposable,
            tags=tags,
            opts=child(self),
        )
        host = group.primary_endpoint_address
        url = pulumi.Output.concat("rediss://", host, f":{VALKEY_PORT}")
        self.offer = Offer(values={"HOST": host, "PORT": str(VALKEY_PORT), "URL": url}, outputs={"primary_endpoint": host, "arn": group.arn})
        self.register_outputs(dict(self.offer.outputs))


class Bucket(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["bucket"].component, f"{ctx.env}-{item.name}", None, opts)
        cap, r, tags, env = item.capacity, item.name, ctx.tags(item.name), ctx.env
        prefix = ctx.name(r, limit=LIMIT_BUCKET_PREFIX - 1) + "-"
        bucket = aws.s3.Bucket(
            f"{env}-{r}-bucket", bucket_prefix=prefix, force_destroy=ctx.disposable, tags=tags,
            opts=child(self, protect=not ctx.disposable))
        aws.s3.BucketVersioning(
            f"{env}-{r}-versioning",
            bucket=bucket.id,
            # "Suspended", not "Disabled": S3 cannot return a bucket to unversioned, and a
            # later `versioning: true -> false` must stay an in-place update.
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled" if cap["versioning"] else "Suspended"),
            opts=child(self),
        )
        block = aws.s3.BucketPublicAccessBlock(
            f"{env}-{r}-public-access-block", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
            ignore_public_acls=True, restrict_public_buckets=True, opts=child(self))
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{env}-{r}-encryption",
            bucket=bucket.id,
            rules=[aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(sse_algorithm="AES256"),
            )],
            opts=child(self),
        )
        # Refuse every request not made over TLS (S3 accepts plain HTTP otherwise). A Deny is not
        # a public policy, so the public access block allows it; applied after that block.
        aws.s3.BucketPolicy(
            f"{env}-{r}-tls-only-policy",
            bucket=bucket.id,
            policy=bucket.arn.apply(lambda arn: policy([{
                "Sid": "DenyInsecureTransport",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": [arn, f"{arn}/*"],
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }])),
            opts=child(self, depends_on=[block]),
        )
        self.offer = Offer(values={"NAME": bucket.bucket, "ARN": bucket.arn}, outputs={"name": bucket.bucket, "arn": bucket.arn})
        self.offer.grants.append({"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": bucket.arn})
        self.offer.grants.append({"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"], "Resource": pulumi.Output.concat(bucket.arn, "/*")})
        self.register_outputs(dict(self.offer.outputs))


__all__ = ["PRODUCTION_SNAPSHOT_DAYS", "Bucket", "Cache", "Queue", "Topic"]
