"""Which Price List product each catalogue price key is, selected by published attributes.

A :class:`Selector` names the offer (``AmazonRDS``...), the ``productFamily``, attribute values
(``databaseEngine`` ``PostgreSQL``, ``deploymentOption`` ``Single-AZ``, ``cacheEngine``
``Valkey``...), the ``usagetype`` without its region prefix (``InstanceUsage:db.t4g.micro``,
``Fargate-ARM-vCPU-Hours:perCPU``; the prefix ``EU-``/``EUC1-``/``USE1-`` or none varies by
region and service) and the AWS units it accepts with the factor to the catalogue's unit
(``Requests`` x 1,000,000 -> "1M requests"). Products are never taken by position: a key whose
best-ranked matching SKUs disagree on the price is *ambiguous* and reported, not guessed.

The attribute values and usage types are the ones AWS publishes in its offer files; the same
filters are used by public cost tools (Infracost's AWS resources, e.g. ``db_instance.go``:
``instanceType``/``deploymentOption``/``databaseEngine``, gp3 ``usagetype``
``-RDS:GP3-Storage``/``-RDS:Multi-AZ-GP3-Storage``, ElastiCache ``cacheEngine``, SQS
``queueType`` ``FIFO (first-in, first-out)``, CloudWatch Logs ``-DataProcessing-Bytes``).
The rules the selection relies on are written in docs/catalog.md ("Refreshing prices").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

from .offers import Product

MILLION = Decimal(1_000_000)
THOUSAND = Decimal(1_000)

_HOURS = ("hrs", "hours", "hour", "hr")
_GB_MONTH = ("gb-mo", "gb-month", "gb-months")

#: A usage type's region prefix: ``EU``, ``EUC1``, ``USE1``, ``APN1``, ``CAN1``...
_PREFIX_RE = re.compile(r"^[A-Z]{2,4}[0-9]?$")

#: Each region's billing code, the location prefix of its usage types (``EU-NatGateway-Hours``),
#: from AWS's table "Region billing codes" (docs.aws.amazon.com/global-infrastructure/latest/
#: regions/aws-region-billing-codes.html); us-east-1 usage types carry ``USE1-`` or, for some
#: services (RDS instances, SQS), none.
BILLING_CODES: Mapping[str, str] = {
    "us-east-1": "USE1", "us-east-2": "USE2", "us-west-1": "USW1", "us-west-2": "USW2",
    "ca-central-1": "CAN1", "ca-west-1": "CAN2", "mx-central-1": "MXC1", "sa-east-1": "SAE1",
    "af-south-1": "AFS1", "ap-east-1": "APE1", "ap-east-2": "APE2",
    "ap-northeast-1": "APN1", "ap-northeast-2": "APN2", "ap-northeast-3": "APN3",
    "ap-south-1": "APS3", "ap-south-2": "APS5", "ap-southeast-1": "APS1", "ap-southeast-2": "APS2",
    "ap-southeast-3": "APS4", "ap-southeast-4": "APS6", "ap-southeast-5": "APS7", "ap-southeast-6": "APS8",
    "ap-southeast-7": "APS9", "eu-central-1": "EUC1", "eu-central-2": "EUC2", "eu-north-1": "EUN1",
    "eu-south-1": "EUS1", "eu-south-2": "EUS2", "eu-west-1": "EU", "eu-west-2": "EUW2", "eu-west-3": "EUW3",
    "il-central-1": "ILC1", "me-central-1": "MEC1", "me-south-1": "MES1",
    "us-gov-east-1": "UGE1", "us-gov-west-1": "UGW1", "cn-north-1": "CNN1", "cn-northwest-1": "CNW1",
}

#: A location code before a usage type's first ``-``: a region's billing code, or a Local Zone
#: or Wavelength location (``LAX1``, ``BOS1``, ``PER1``: three letters and a digit).
_LOCATION_RE = re.compile(r"^(?:[A-Z]{3,4}[0-9]|EU)$")


def usage_location(usagetype: str) -> str | None:
    """The location code a usage type starts with (``EU``, ``EUC1``, ``LAX1``), or None when it
    names none (``InstanceUsage:db.t4g.micro``, ``Requests-Tier1``, ``DNS-Queries``)."""
    head, sep, _rest = usagetype.partition("-")
    return head if sep and _LOCATION_RE.fullmatch(head) else None


def in_region(product_region: str | None, usagetype: str, region: str) -> bool:
    """A product is the region's own: its ``regionCode`` (when it has one) is the region, and
    the location its usage type names (when it names one) is the region's billing code. A
    product without ``regionCode`` is accepted only on its usage type's word: the region's
    location prefix, or none in us-east-1 (whose usage types often carry none); a Local Zone's
    (``LAX1-``) or another region's prefix is never the region's."""
    own = BILLING_CODES.get(region)
    loc = usage_location(usagetype)
    if product_region:
        if product_region != region:
            return False
        return loc is None or own is None or loc == own
    if own is None:
        return False  # nothing to tell the region's products from others': fail closed
    return loc == own or (loc is None and region == "us-east-1")


@dataclass(frozen=True)
class Selector:
    """How one catalogue key is found in an offer file.

    - ``key``: the catalogue key (``rds:db.t4g.micro:single-az``); ``service``, ``item``,
      ``unit``: the prices.csv columns written for it (``unit`` is the catalogue's unit).
    - ``offer``: the offer code (``AmazonRDS``).
    - ``family``: the ``productFamily`` the product must have (``None``: any).
    - ``attrs``: ``(normalised attribute, accepted values in preference order)``; a product
      must carry one of the values; earlier values rank first (``PostgreSQL`` before ``Any``).
    - ``usage``: the ``usagetype`` without its region prefix (``None``: not checked).
    - ``units``: accepted AWS units (lower case) -> factor to ``unit`` (``None``: any unit, x1).
    - ``scope``: ``"regional"``, or ``"global"`` for a price AWS publishes once for every
      region (Route 53 hosted zones): read from the region's file if the offer has one, else
      from the offer's ``global`` entry; never from another region's file.
    - ``what``: a short description of the selection, for sources and reports.
    """

    key: str
    service: str
    item: str
    unit: str
    offer: str
    family: str | None
    attrs: tuple[tuple[str, tuple[str, ...]], ...]
    usage: str | None
    units: Mapping[str, Decimal] | None
    what: str
    scope: str = "regional"

    def rank(self, product: Product, region: str) -> tuple[int, ...] | None:
        """The product's preference rank (lower is better), or ``None`` when it does not match."""
        if self.family is not None and product.family != self.family:
            return None
        if self.usage is not None and not usage_matches(product.attributes.get("usagetype", ""), self.usage):
            return None
        code = product.attributes.get("regioncode")
        if not (self.scope == "global" and (code or "").lower() in ("global", "")) and \
                not in_region(code, product.attributes.get("usagetype", ""), region):
            return None  # a product of another region or a Local Zone: never another location's price
        ranks = []
        for name, accepted in self.attrs:
            value = product.attributes.get(name)
            if value not in accepted:
                return None
            ranks.append(accepted.index(value))
        return tuple(ranks)


def usage_matches(usagetype: str, usage: str) -> bool:
    """``usagetype`` is ``usage`` with or without a region prefix (``EU-``, ``EUC1-``, ``USE1-``).

    ``EU-InstanceUsage:db.t4g.micro`` matches ``InstanceUsage:db.t4g.micro``;
    ``EU-ExtendedSupport-InstanceUsage:...`` and ``EU-InstanceUsageIOOptimized:...`` do not.
    """
    if usagetype == usage:
        return True
    prefix, sep, rest = usagetype.partition("-")
    return bool(sep) and rest == usage and bool(_PREFIX_RE.fullmatch(prefix))


def _units(names: tuple[str, ...], factor: Decimal = Decimal(1)) -> dict[str, Decimal]:
    return {n: factor for n in names}


_RDS = "RDS PostgreSQL"
_PG = (("databaseengine", ("PostgreSQL",)),)
_AZ = {"single-az": "Single-AZ", "multi-az": "Multi-AZ"}


def selector_for(key: str) -> Selector | None:
    """The selector of catalogue key ``key``, or ``None`` for a key this engine does not know."""
    parts = key.split(":")
    head = parts[0]
    if head == "rds" and len(parts) == 3 and parts[2] in _AZ:
        az = _AZ[parts[2]]
        if parts[1] == "gp3":
            usage = "RDS:GP3-Storage" if az == "Single-AZ" else "RDS:Multi-AZ-GP3-Storage"
            return Selector(key, _RDS, f"gp3 storage {az}", "GB-month", "AmazonRDS", "Database Storage",
                            (("volumetype", ("General Purpose-GP3",)), ("deploymentoption", (az,)),
                             ("databaseengine", ("PostgreSQL", "Any"))),
                            usage, _units(_GB_MONTH), f"Database Storage, General Purpose-GP3, {az}, usagetype {usage}")
        cls = parts[1]
        usage = f"InstanceUsage:{cls}" if az == "Single-AZ" else f"Multi-AZUsage:{cls}"
        return Selector(key, _RDS, f"{cls} {az}", "instance-hour", "AmazonRDS", "Database Instance",
                        (("instancetype", (cls,)), ("deploymentoption", (az,)), *_PG),
                        usage, _units(_HOURS), f"Database Instance {cls}, PostgreSQL, {az}, usagetype {usage}")
    if head == "aurora" and len(parts) == 3 and parts[2] == "standard":
        apg = (("databaseengine", ("Aurora PostgreSQL",)),)
        if parts[1] == "storage":
            return Selector(key, "Aurora PostgreSQL", "storage (Aurora Standard)", "GB-month", "AmazonRDS", "Database Storage",
                            apg, "Aurora:StorageUsage", _units(_GB_MONTH), "Database Storage, Aurora PostgreSQL, usagetype Aurora:StorageUsage")
        if parts[1] == "io":
            return Selector(key, "Aurora PostgreSQL", "I/O requests (Aurora Standard only)", "1M requests", "AmazonRDS", "System Operation",
                            apg, "Aurora:StorageIOUsage", _units(("ios",), MILLION), "System Operation, Aurora PostgreSQL, usagetype Aurora:StorageIOUsage")
        cls = parts[1]
        return Selector(key, "Aurora PostgreSQL", f"{cls} (Aurora Standard)", "instance-hour", "AmazonRDS", "Database Instance",
                        (("instancetype", (cls,)), *apg), f"InstanceUsage:{cls}", _units(_HOURS),
                        f"Database Instance {cls}, Aurora PostgreSQL, usagetype InstanceUsage:{cls} (not IOOptimized)")
    if key == "rds-proxy:vcpu":
        return Selector(key, "RDS Proxy", "provisioned target (RDS/Aurora instances)", "vCPU-hour of target instances (min 2 vCPU)",
                        "AmazonRDS", None, (("databaseengine", ("PostgreSQL", "Any")),), "RDS:ProxyUsage", _units(_HOURS),
                        "usagetype RDS:ProxyUsage, PostgreSQL (per vCPU of the target instances)")
    if head == "valkey" and len(parts) == 2:
        node = parts[1]
        return Selector(key, "ElastiCache Valkey", f"{node} node", "node-hour", "AmazonElastiCache", "Cache Instance",
                        (("instancetype", (node,)), ("cacheengine", ("Valkey",))), f"NodeUsage:{node}", _units(_HOURS),
                        f"Cache Instance {node}, Valkey, usagetype NodeUsage:{node} (not ExtendedSupport)")
    if head == "sqs" and len(parts) == 2 and parts[1] in ("standard", "fifo"):
        queue = "Standard" if parts[1] == "standard" else "FIFO (first-in, first-out)"
        # By usage type too: a second Standard-queue product (another usage type) must not make
        # the key ambiguous (issue 25). Usage types as AWS publishes them: Requests-Tier1,
        # Requests-FIFO-Tier1 (Infracost's sqs_queue.go filters the same).
        usage = "Requests-Tier1" if parts[1] == "standard" else "Requests-FIFO-Tier1"
        return Selector(key, "SQS", f"{'Standard' if parts[1] == 'standard' else 'FIFO'} requests", "1M requests",
                        "AWSQueueService", "API Request", (("queuetype", (queue,)),), usage, _units(("requests",), MILLION),
                        f"API Request, queueType {queue}, usagetype {usage}, first paid tier")
    if key == "sns:standard":
        return Selector(key, "SNS", "Standard topic publishes", "1M requests", "AmazonSNS", "API Request", (),
                        "Requests-Tier1", _units(("requests",), MILLION), "API Request, usagetype Requests-Tier1, first paid tier")
    if key == "sns:fifo":
        return Selector(key, "SNS", "FIFO topic publishes", "1M requests", "AmazonSNS", "API Request", (),
                        "F-Request-Tier1", _units(("requests",), MILLION), "API Request, usagetype F-Request-Tier1 (FIFO topics), first paid tier")
    if key == "sns:fifo:payload":
        # SNS FIFO bills the payload published per GB (usagetype F-Ingress-Tier1, as Infracost's
        # SNSFIFOTopic publishAPIPayloadCostComponent selects it).
        return Selector(key, "SNS", "FIFO topic payload data", "GB", "AmazonSNS", None, (),
                        "F-Ingress-Tier1", _units(("gb",)), "usagetype F-Ingress-Tier1 (FIFO topic payload), first paid tier")
    if key == "s3:storage":
        return Selector(key, "S3", "Standard storage first 50 TB", "GB-month", "AmazonS3", "Storage",
                        (("storageclass", ("General Purpose",)), ("volumetype", ("Standard",))), "TimedStorage-ByteHrs",
                        _units(_GB_MONTH), "Storage, General Purpose / Standard, usagetype TimedStorage-ByteHrs, first paid tier")
    if key in ("s3:tier1", "s3:tier2"):
        n = key[-1]
        return Selector(key, "S3", "PUT/COPY/POST/LIST (Tier 1)" if n == "1" else "GET and others (Tier 2)", "1,000 requests",
                        "AmazonS3", "API Request", (("group", (f"S3-API-Tier{n}",)),), f"Requests-Tier{n}",
                        _units(("requests",), THOUSAND), f"API Request, group S3-API-Tier{n}, usagetype Requests-Tier{n}")
    if head == "fargate" and len(parts) == 3 and parts[1] in ("arm", "x86") and parts[2] in ("vcpu", "memory"):
        arm = "ARM-" if parts[1] == "arm" else ""
        usage = f"Fargate-{arm}vCPU-Hours:perCPU" if parts[2] == "vcpu" else f"Fargate-{arm}GB-Hours"
        label = "Linux/ARM (Graviton)" if arm else "Linux/x86"
        return Selector(key, "ECS Fargate", f"{label} {'vCPU' if parts[2] == 'vcpu' else 'memory'}",
                        "vCPU-hour" if parts[2] == "vcpu" else "GB-hour", "AmazonECS", "Compute", (), usage,
                        _units(_HOURS + ("vcpu-hours", "gb-hours")), f"Compute, usagetype {usage} (not Spot, not Windows)")
    if key in ("alb:hour", "alb:lcu"):
        usage = "LoadBalancerUsage" if key == "alb:hour" else "LCUUsage"
        return Selector(key, "ELB (ALB)", "Application Load Balancer hour" if key == "alb:hour" else "LCU",
                        "LB-hour" if key == "alb:hour" else "LCU-hour", "AWSELB", "Load Balancer-Application", (),
                        usage, _units(_HOURS) if key == "alb:hour" else _units(("lcu-hrs", "lcu-hours")),
                        f"Load Balancer-Application, usagetype {usage}")
    if key == "vpc:public-ipv4":
        return Selector(key, "VPC", "Public IPv4 address in use", "address-hour", "AmazonVPC", None, (),
                        "PublicIPv4:InUseAddress", _units(_HOURS), "usagetype PublicIPv4:InUseAddress")
    if key == "route53:private-zone":
        return Selector(key, "Route 53", "private hosted zone created by a Cloud Map DNS namespace", "zone-month",
                        "AmazonRoute53", "DNS Zone", (), "HostedZone", None, "DNS Zone, usagetype HostedZone, first paid tier (first 25 zones)",
                        scope="global")
    if key == "cloudmap:instance":
        return Selector(key, "Cloud Map", "registered resource", "resource-month", "AWSCloudMap", None, (),
                        "CloudMap-RegisteredResource", None, "usagetype CloudMap-RegisteredResource")
    if key == "secretsmanager:secret":
        return Selector(key, "Secrets Manager", "secret", "secret-month", "AWSSecretsManager", "Secret", (),
                        "AWSSecretsManager-Secrets", None, "Secret, usagetype AWSSecretsManager-Secrets")
    if key in ("nat:hour", "nat:gb"):
        usage = "NatGateway-Hours" if key == "nat:hour" else "NatGateway-Bytes"
        return Selector(key, "VPC NAT Gateway", "NAT gateway hour" if key == "nat:hour" else "data processed",
                        "gateway-hour" if key == "nat:hour" else "GB", "AmazonEC2", "NAT Gateway", (), usage,
                        _units(_HOURS) if key == "nat:hour" else _units(("gb",)), f"NAT Gateway, usagetype {usage}")
    if key == "transfer:internet-out":
        # Data out to the internet (priced only from a usage file): AWSDataTransfer's products
        # carry fromRegionCode, not regionCode, so the usage type's location prefix decides
        # the region (``EU-DataTransfer-Out-Bytes``); the first paid tier (after 100 GB free).
        return Selector(key, "Data transfer", "internet egress first 10 TB (after 100 GB/month free)", "GB", "AWSDataTransfer",
                        "Data Transfer", (("transfertype", ("AWS Outbound",)),), "DataTransfer-Out-Bytes", _units(("gb",)),
                        "Data Transfer, AWS Outbound, usagetype DataTransfer-Out-Bytes, first paid tier")
    if key == "logs:ingestion":
        return Selector(key, "CloudWatch Logs", "log data ingested (Standard log class)", "GB", "AmazonCloudWatch", "Data Payload", (),
                        "DataProcessing-Bytes", _units(("gb",)), "Data Payload, usagetype DataProcessing-Bytes, first paid tier")
    if key == "logs:storage":
        return Selector(key, "CloudWatch Logs", "log data stored", "GB-month", "AmazonCloudWatch", "Storage Snapshot", (),
                        "TimedStorage-ByteHrs", _units(_GB_MONTH), "Storage Snapshot, usagetype TimedStorage-ByteHrs")
    return None


def catalogue_keys(sizes: "object") -> list[str]:
    """Every price key the planner can ask for with the capacity tables of ``sizes`` (a
    :class:`runway_core.catalog.Catalog`), plus the per-environment and fixed keys, sorted.

    RDS instance classes get both deployment options (an override catalogue may change
    ``multi_az``); Aurora classes and cache node types come from their tables.
    """
    from runway_core.catalog import Catalog
    from runway_core.kinds import REGISTRY

    assert isinstance(sizes, Catalog)
    # The per-environment and fixed keys; each kind's from its declaration (Kind.price_keys).
    keys = {"alb:hour", "alb:lcu", "vpc:public-ipv4", "route53:private-zone", "cloudmap:instance"}
    for kind in REGISTRY:
        if kind.price_keys is None or kind.size_fields is None:
            continue
        rows = {flavor: [cap for size in sizes.sizes(kind.name) if (cap := sizes.capacity(kind.name, size, flavor)) is not None]
                for flavor in (kind.flavors or (None,))}
        keys.update(kind.price_keys(rows))
    return sorted(keys)
