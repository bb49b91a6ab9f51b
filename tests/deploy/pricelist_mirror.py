"""A small AWS Price List Bulk API mirror for tests and the refresh benchmark.

Writes the documented layout under a folder: ``offers/v1.0/aws/index.json`` (the offer index),
``offers/v1.0/aws/<offer>/current/region_index.json`` and the per-region offer files
``offers/v1.0/aws/<offer>/<version>/<region>/index.json`` and ``index.csv``. The files have
the shapes AWS publishes (products keyed by SKU with ``productFamily`` and ``attributes``;
``terms.OnDemand`` and ``terms.Reserved`` keyed by SKU and offer term code, price dimensions with
``pricePerUnit.USD``; the CSV with its five metadata rows, then the header, one row per
dimension). Beside each real product the mirror holds *decoys* a careless selector would take:
other engines (MySQL, Aurora), other deployment options (Multi-AZ readable standbys), Extended
Support and I/O-Optimized usage types, Redis OSS nodes, Spot and x86 Fargate, FIFO/Standard
twins, and Reserved terms with lower prices. Prices are made up per region (the test data is
not a source of real prices).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

VERSION = "20261120093015"
PUBLISHED = "2026-11-20T09:30:15Z"

#: The usage-type region prefix AWS uses (us-east-1 has none for some services, "USE1-" for others).
PREFIX = {"us-east-1": "USE1-", "eu-west-1": "EU-", "eu-central-1": "EUC1-", "ap-southeast-2": "APS2-"}
LOCATION = {"us-east-1": "US East (N. Virginia)", "eu-west-1": "EU (Ireland)", "eu-central-1": "EU (Frankfurt)",
            "ap-southeast-2": "Asia Pacific (Sydney)"}

OD_CODE = "JRTCKXETXF"  # AWS's OnDemand offer term code
RES_CODE = "4NA7Y494T4"  # a Reserved offer term code


@dataclass
class Item:
    """One product and its OnDemand tiers ``[(begin, end, unit, usd)]``, plus a Reserved price."""

    sku: str
    family: str
    attributes: dict[str, str]
    tiers: list[tuple[str, str, str, str]]
    reserved_usd: str | None = "0.0001"


@dataclass
class Offer:
    code: str
    regions: dict[str, list[Item]] = field(default_factory=dict)


def sku(*parts: str) -> str:
    """A stable 16-character SKU like AWS's (upper-case letters and digits)."""
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest().upper()
    return "".join(c for c in digest if c.isalnum())[:16]


def _attrs(region: str, usage: str, **extra: str) -> dict[str, str]:
    out = {"location": LOCATION.get(region, region), "locationType": "AWS Region", "regionCode": region, "usagetype": usage}
    out.update(extra)
    return out


def _one(unit: str, usd: str) -> list[tuple[str, str, str, str]]:
    return [("0", "Inf", unit, usd)]


def region_items(region: str, p: dict[str, str]) -> dict[str, list[Item]]:
    """The products of every needed offer in ``region`` with the real prices ``p`` (AWS units:
    per hour, per GB-Mo, per request, per IO) keyed by catalogue key, plus decoys.

    A key missing from ``p`` gets no product at all (to test reporting a missing price).
    """
    pre = PREFIX.get(region, "XX1-")
    rds_pre = "" if region == "us-east-1" else pre  # RDS instance usage types have no USE1- prefix
    out: dict[str, list[Item]] = {}

    def add(offer: str, item: Item) -> None:
        out.setdefault(offer, []).append(item)

    for cls in ("db.t4g.micro", "db.t4g.small", "db.t4g.medium", "db.m7g.large", "db.r7g.large"):
        for az, usage in (("Single-AZ", f"{rds_pre}InstanceUsage:{cls}"), ("Multi-AZ", f"{rds_pre}Multi-AZUsage:{cls}")):
            key = f"rds:{cls}:{az.lower()}"
            base = dict(instanceType=cls, deploymentOption=az, databaseEngine="PostgreSQL", licenseModel="No license required",
                        servicecode="AmazonRDS")
            if key in p:
                add("AmazonRDS", Item(sku(region, key), "Database Instance", _attrs(region, usage, **base), _one("Hrs", p[key])))
            # decoys: the same class and option in MySQL, and an Extended Support surcharge
            add("AmazonRDS", Item(sku(region, key, "mysql"), "Database Instance",
                                  _attrs(region, usage, **{**base, "databaseEngine": "MySQL"}), _one("Hrs", "0.9")))
            add("AmazonRDS", Item(sku(region, key, "es"), "Database Instance",
                                  _attrs(region, f"{rds_pre}ExtendedSupport-{usage.split('-', 1)[-1] if rds_pre else usage}", **base),
                                  _one("Hrs", "0.7")))
        add("AmazonRDS", Item(sku(region, cls, "readable"), "Database Instance",
                              _attrs(region, f"{rds_pre}Multi-AZClusterUsage:{cls}", instanceType=cls, deploymentOption="Multi-AZ (readable standbys)",
                                     databaseEngine="PostgreSQL"), _one("Hrs", "0.8")))
        akey = f"aurora:{cls}:standard"
        if akey in p:
            add("AmazonRDS", Item(sku(region, akey), "Database Instance",
                                  _attrs(region, f"{rds_pre}InstanceUsage:{cls}", instanceType=cls, databaseEngine="Aurora PostgreSQL",
                                         deploymentOption="Single-AZ"), _one("Hrs", p[akey])))
        add("AmazonRDS", Item(sku(region, akey, "ioopt"), "Database Instance",
                              _attrs(region, f"{rds_pre}InstanceUsageIOOptimized:{cls}", instanceType=cls, databaseEngine="Aurora PostgreSQL",
                                     deploymentOption="Single-AZ"), _one("Hrs", "0.6")))
    for az, usage in (("Single-AZ", f"{pre}RDS:GP3-Storage"), ("Multi-AZ", f"{pre}RDS:Multi-AZ-GP3-Storage")):
        key = f"rds:gp3:{az.lower()}"
        if key in p:
            add("AmazonRDS", Item(sku(region, key), "Database Storage",
                                  _attrs(region, usage, volumeType="General Purpose-GP3", deploymentOption=az, databaseEngine="Any"),
                                  _one("GB-Mo", p[key])))
        add("AmazonRDS", Item(sku(region, key, "gp2"), "Database Storage",
                              _attrs(region, usage.replace("GP3-", "GP2-"), volumeType="General Purpose", deploymentOption=az, databaseEngine="Any"),
                              _one("GB-Mo", "0.5")))
    if "aurora:storage:standard" in p:
        add("AmazonRDS", Item(sku(region, "aurora:storage:standard"), "Database Storage",
                              _attrs(region, f"{pre}Aurora:StorageUsage", databaseEngine="Aurora PostgreSQL", volumeType="General Purpose-Aurora"),
                              _one("GB-Mo", p["aurora:storage:standard"])))
    add("AmazonRDS", Item(sku(region, "aurora-storage-io"), "Database Storage",
                          _attrs(region, f"{pre}Aurora:IO-OptimizedStorageUsage", databaseEngine="Aurora PostgreSQL", volumeType="IO Optimized-Aurora"),
                          _one("GB-Mo", "0.4")))
    if "aurora:io:standard" in p:
        add("AmazonRDS", Item(sku(region, "aurora:io:standard"), "System Operation",
                              _attrs(region, f"{pre}Aurora:StorageIOUsage", databaseEngine="Aurora PostgreSQL", group="Aurora I/O Operation"),
                              _one("IOs", p["aurora:io:standard"])))
    add("AmazonRDS", Item(sku(region, "aurora-io-mysql"), "System Operation",
                          _attrs(region, f"{pre}Aurora:StorageIOUsage", databaseEngine="Aurora MySQL"), _one("IOs", "0.0000009")))
    if "rds-proxy:vcpu" in p:
        add("AmazonRDS", Item(sku(region, "rds-proxy:vcpu"), "RDS Proxy",
                              _attrs(region, f"{pre}RDS:ProxyUsage", databaseEngine="PostgreSQL"), _one("Hrs", p["rds-proxy:vcpu"])))
    add("AmazonRDS", Item(sku(region, "proxy-asv2"), "RDS Proxy",
                          _attrs(region, f"{pre}RDS:Proxy-ASv2-Usage", databaseEngine="PostgreSQL"), _one("ACU-Hr", "0.9")))

    for node in ("cache.t4g.micro", "cache.t4g.small", "cache.m7g.large"):
        key = f"valkey:{node}"
        if key in p:
            add("AmazonElastiCache", Item(sku(region, key), "Cache Instance",
                                          _attrs(region, f"{pre}NodeUsage:{node}", instanceType=node, cacheEngine="Valkey"), _one("Hrs", p[key])))
        add("AmazonElastiCache", Item(sku(region, key, "redis"), "Cache Instance",
                                      _attrs(region, f"{pre}NodeUsage:{node}", instanceType=node, cacheEngine="Redis"), _one("Hrs", "0.9")))
        add("AmazonElastiCache", Item(sku(region, key, "es"), "Cache Instance",
                                      _attrs(region, f"{pre}ExtendedSupportYr3-NodeUsage:{node}", instanceType=node, cacheEngine="Valkey"),
                                      _one("Hrs", "0.7")))

    for q, queue in (("standard", "Standard"), ("fifo", "FIFO (first-in, first-out)")):
        key = f"sqs:{q}"
        if key in p:
            add("AWSQueueService", Item(sku(region, key), "API Request",
                                        _attrs(region, f"{pre}Requests-{'FIFO-' if q == 'fifo' else ''}Tier1", queueType=queue, group="SQS-APIRequest-Tier1"),
                                        [("0", "1000000", "Requests", "0.0000000000"), ("1000000", "100000000000", "Requests", p[key]),
                                         ("100000000000", "Inf", "Requests", "0.0000000001")]))
    if "sns:standard" in p:
        add("AmazonSNS", Item(sku(region, "sns:standard"), "API Request", _attrs(region, f"{pre}Requests-Tier1"),
                              [("0", "1000000", "Requests", "0"), ("1000000", "Inf", "Requests", p["sns:standard"])]))
    if "sns:fifo" in p:
        add("AmazonSNS", Item(sku(region, "sns:fifo"), "API Request", _attrs(region, f"{pre}F-Request-Tier1"), _one("Requests", p["sns:fifo"])))
    if "transfer:internet-out" in p:
        # AWSDataTransfer: no regionCode (fromRegionCode/toRegionCode), the region in the usage
        # type's prefix; the first 100 GB free, then the first paid tier.
        add("AWSDataTransfer", Item(sku(region, "transfer:internet-out"), "Data Transfer",
                                    {"transferType": "AWS Outbound", "fromLocation": LOCATION.get(region, region), "fromRegionCode": region,
                                     "toLocation": "External", "usagetype": f"{pre}DataTransfer-Out-Bytes"},
                                    [("0", "100", "GB", "0.0000000000"), ("100", "10240", "GB", p["transfer:internet-out"]), ("10240", "Inf", "GB", "0.085")]))
    if "sns:fifo:payload" in p:
        # SNS FIFO's publish payload, per GB (usagetype F-Ingress-Tier1; Infracost's SNSFIFOTopic).
        add("AmazonSNS", Item(sku(region, "sns:fifo:payload"), "API Request", _attrs(region, f"{pre}F-Ingress-Tier1"), _one("GB", p["sns:fifo:payload"])))
    add("AmazonSNS", Item(sku(region, "sns-http"), "Message Delivery", _attrs(region, f"{pre}DeliveryAttempts-HTTP"), _one("Notifications", "0.0000006")))

    if "s3:storage" in p:
        add("AmazonS3", Item(sku(region, "s3:storage"), "Storage",
                             _attrs(region, f"{pre}TimedStorage-ByteHrs", storageClass="General Purpose", volumeType="Standard"),
                             [("0", "51200", "GB-Mo", p["s3:storage"]), ("51200", "512000", "GB-Mo", "0.001"), ("512000", "Inf", "GB-Mo", "0.0005")]))
    add("AmazonS3", Item(sku(region, "s3-ia"), "Storage",
                         _attrs(region, f"{pre}TimedStorage-SIA-ByteHrs", storageClass="Infrequent Access", volumeType="Standard - Infrequent Access"),
                         _one("GB-Mo", "0.0125")))
    for n in ("1", "2"):
        key = f"s3:tier{n}"
        if key in p:
            add("AmazonS3", Item(sku(region, key), "API Request", _attrs(region, f"{pre}Requests-Tier{n}", group=f"S3-API-Tier{n}"),
                                 _one("Requests", p[key])))

    for arch in ("arm", "x86"):
        a = "ARM-" if arch == "arm" else ""
        for what, usage in (("vcpu", f"Fargate-{a}vCPU-Hours:perCPU"), ("memory", f"Fargate-{a}GB-Hours")):
            key = f"fargate:{arch}:{what}"
            if key in p:
                add("AmazonECS", Item(sku(region, key), "Compute", _attrs(region, f"{pre}{usage}"), _one("hours", p[key])))
            add("AmazonECS", Item(sku(region, key, "spot"), "Compute", _attrs(region, f"{pre}SpotUsage-{usage}"), _one("hours", "0.001")))
    add("AmazonECS", Item(sku(region, "fargate-windows"), "Compute", _attrs(region, f"{pre}Fargate-Windows-vCPU-Hours:perCPU"), _one("hours", "0.09")))

    for key, usage, unit in (("alb:hour", "LoadBalancerUsage", "Hrs"), ("alb:lcu", "LCUUsage", "LCU-Hrs")):
        if key in p:
            add("AWSELB", Item(sku(region, key), "Load Balancer-Application", _attrs(region, f"{pre}{usage}"), _one(unit, p[key])))
        add("AWSELB", Item(sku(region, key, "nlb"), "Load Balancer-Network", _attrs(region, f"{pre}{usage}"), _one(unit, "0.05")))
    if "vpc:public-ipv4" in p:
        add("AmazonVPC", Item(sku(region, "vpc:public-ipv4"), "VPC Public IPv4 Address", _attrs(region, f"{pre}PublicIPv4:InUseAddress"),
                              _one("Hrs", p["vpc:public-ipv4"])))
    add("AmazonVPC", Item(sku(region, "ipv4-idle"), "VPC Public IPv4 Address", _attrs(region, f"{pre}PublicIPv4:IdleAddress"), _one("Hrs", "0.05")))
    if "cloudmap:instance" in p:
        add("AWSCloudMap", Item(sku(region, "cloudmap:instance"), "Cloud Map Resource", _attrs(region, f"{pre}CloudMap-RegisteredResource"),
                                _one("Resources", p["cloudmap:instance"])))
    if "secretsmanager:secret" in p:
        add("AWSSecretsManager", Item(sku(region, "secretsmanager:secret"), "Secret", _attrs(region, f"{pre}AWSSecretsManager-Secrets"),
                                      _one("Secrets", p["secretsmanager:secret"])))
    add("AWSSecretsManager", Item(sku(region, "secret-api"), "API Request", _attrs(region, f"{pre}AWSSecretsManagerAPIRequest"),
                                  _one("API Requests", "0.000005")))
    if "logs:ingestion" in p:
        add("AmazonCloudWatch", Item(sku(region, "logs:ingestion"), "Data Payload", _attrs(region, f"{pre}DataProcessing-Bytes"),
                                     [("0", "5", "GB", "0"), ("5", "Inf", "GB", p["logs:ingestion"])]))
    add("AmazonCloudWatch", Item(sku(region, "logs-ia"), "Data Payload", _attrs(region, f"{pre}DataProcessingIA-Bytes"), _one("GB", "0.25")))
    if "logs:storage" in p:
        add("AmazonCloudWatch", Item(sku(region, "logs:storage"), "Storage Snapshot", _attrs(region, f"{pre}TimedStorage-ByteHrs"),
                                     _one("GB-Mo", p["logs:storage"])))
    for key, usage, unit in (("nat:hour", "NatGateway-Hours", "Hrs"), ("nat:gb", "NatGateway-Bytes", "GB")):
        if key in p:
            add("AmazonEC2", Item(sku(region, key), "NAT Gateway", _attrs(region, f"{pre}{usage}"), _one(unit, p[key])))
    add("AmazonEC2", Item(sku(region, "box"), "Compute Instance", _attrs(region, f"{pre}BoxUsage:m5.large", instanceType="m5.large"),
                          _one("Hrs", "0.107")))
    return out


def global_items(p: dict[str, str]) -> list[Item]:
    """Route 53: one global file (hosted zones are priced once, location Global)."""
    items = [Item(sku("global", "zone-queries"), "DNS Query", {"location": "Global", "locationType": "AWS Region", "usagetype": "DNS-Queries"},
                  _one("Queries", "0.0000004"))]
    if "route53:private-zone" in p:
        items.append(Item(sku("global", "route53:private-zone"), "DNS Zone", {"location": "Global", "locationType": "AWS Region", "usagetype": "HostedZone"},
                          [("0", "25", "HostedZone", p["route53:private-zone"]), ("25", "Inf", "HostedZone", "0.1")]))
    return items


def terms(i: Item) -> tuple[dict, dict | None]:
    """The item's ``terms.OnDemand[sku]`` and ``terms.Reserved[sku]`` objects (AWS's shapes)."""
    dims = {}
    for n, (begin, end, unit, usd) in enumerate(i.tiers):
        rate = f"{i.sku}.{OD_CODE}.{6 + n:010d}"
        dims[rate] = {"rateCode": rate, "description": f"${usd} per {unit}", "beginRange": begin, "endRange": end,
                      "unit": unit, "pricePerUnit": {"USD": usd}, "appliesTo": []}
    od = {f"{i.sku}.{OD_CODE}": {"offerTermCode": OD_CODE, "sku": i.sku, "effectiveDate": "2026-11-01T00:00:00Z",
                                 "priceDimensions": dims, "termAttributes": {}}}
    if i.reserved_usd is None:
        return od, None
    rate = f"{i.sku}.{RES_CODE}.2TG2D8R56U"
    res = {f"{i.sku}.{RES_CODE}": {"offerTermCode": RES_CODE, "sku": i.sku, "effectiveDate": "2026-11-01T00:00:00Z",
                                   "priceDimensions": {rate: {"rateCode": rate, "description": "reserved", "beginRange": "0",
                                                              "endRange": "Inf", "unit": "Hrs", "pricePerUnit": {"USD": i.reserved_usd},
                                                              "appliesTo": []}},
                                   "termAttributes": {"LeaseContractLength": "1yr", "PurchaseOption": "No Upfront"}}}
    return od, res


def offer_json(code: str, items: Iterable[Item], version: str = VERSION, published: str = PUBLISHED) -> str:
    """An offer file in AWS's JSON layout (products, then terms OnDemand and Reserved)."""
    items = list(items)
    products = {i.sku: {"sku": i.sku, "productFamily": i.family, "attributes": {"servicecode": code, **i.attributes}} for i in items}
    on_demand, reserved = {}, {}
    for i in items:
        od, res = terms(i)
        on_demand[i.sku] = od
        if res is not None:
            reserved[i.sku] = res
    doc = {"formatVersion": "v1.0", "disclaimer": "This pricing list is for informational purposes only.", "offerCode": code,
           "version": version, "publicationDate": published, "products": products,
           "terms": {"OnDemand": on_demand, "Reserved": reserved}}
    return json.dumps(doc, indent=2)


#: CSV column names as AWS prints them, for the JSON attribute names the mirror uses.
CSV_NAMES = {"servicecode": "serviceCode", "location": "Location", "locationType": "Location Type", "regionCode": "Region Code",
             "usagetype": "usageType", "instanceType": "Instance Type", "deploymentOption": "Deployment Option",
             "databaseEngine": "Database Engine", "licenseModel": "License Model", "volumeType": "Volume Type",
             "cacheEngine": "Cache Engine", "queueType": "Queue Type", "group": "Group", "storageClass": "Storage Class"}


def offer_csv(code: str, items: Iterable[Item], version: str = VERSION, published: str = PUBLISHED) -> str:
    """The same offer in AWS's CSV layout: 5 metadata rows, the header, one row per dimension."""
    items = list(items)
    attr_names = sorted({k for i in items for k in {"servicecode": code, **i.attributes}})
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["FormatVersion", "v1.0"])
    w.writerow(["Disclaimer", "This pricing list is for informational purposes only."])
    w.writerow(["Publication Date", published])
    w.writerow(["Version", version])
    w.writerow(["OfferCode", code])
    w.writerow(["SKU", "OfferTermCode", "RateCode", "TermType", "PriceDescription", "EffectiveDate", "StartingRange", "EndingRange",
                "Unit", "PricePerUnit", "Currency", "LeaseContractLength", "PurchaseOption", "Product Family",
                *[CSV_NAMES.get(a, a) for a in attr_names]])
    for i in items:
        attrs = {"servicecode": code, **i.attributes}
        tail = [attrs.get(a, "") for a in attr_names]
        for n, (begin, end, unit, usd) in enumerate(i.tiers):
            w.writerow([i.sku, OD_CODE, f"{i.sku}.{OD_CODE}.{n}", "OnDemand", f"${usd} per {unit}", "2026-11-01", begin, end, unit, usd, "USD",
                        "", "", i.family, *tail])
        if i.reserved_usd is not None:
            w.writerow([i.sku, RES_CODE, f"{i.sku}.{RES_CODE}.R", "Reserved", "reserved", "2026-11-01", "0", "Inf", "Hrs", i.reserved_usd, "USD",
                        "1yr", "No Upfront", i.family, *tail])
    return buf.getvalue()


def write_mirror(root: Path, prices: dict[str, dict[str, str]], *, global_prices: dict[str, str] | None = None,
                 version: str = VERSION, published: str = PUBLISHED) -> Path:
    """Write a mirror under ``root`` for ``prices`` = ``{region: {key: usd in AWS units}}``;
    Route 53 gets one ``global`` file from ``global_prices``. Returns ``root``."""
    base = root / "offers" / "v1.0" / "aws"
    per_offer: dict[str, dict[str, list[Item]]] = {}
    for region, p in prices.items():
        for code, items in region_items(region, p).items():
            per_offer.setdefault(code, {})[region] = items
    per_offer["AmazonRoute53"] = {"global": global_items(global_prices or {})}
    index = {"formatVersion": "v1.0", "disclaimer": "This pricing list is for informational purposes only.",
             "publicationDate": published, "offers": {}}
    for code, regions in per_offer.items():
        index["offers"][code] = {"offerCode": code, "versionIndexUrl": f"/offers/v1.0/aws/{code}/index.json",
                                 "currentVersionUrl": f"/offers/v1.0/aws/{code}/current/index.json",
                                 "currentRegionIndexUrl": f"/offers/v1.0/aws/{code}/current/region_index.json"}
        reg_index = {"formatVersion": "v1.0", "disclaimer": "...", "publicationDate": published, "regions": {}}
        for region, items in regions.items():
            folder = base / code / version / region
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "index.json").write_text(offer_json(code, items, version, published), encoding="utf-8")
            (folder / "index.csv").write_text(offer_csv(code, items, version, published), encoding="utf-8")
            reg_index["regions"][region] = {"regionCode": region, "currentVersionUrl": f"/offers/v1.0/aws/{code}/{version}/{region}/index.json"}
        (base / code / "current").mkdir(parents=True, exist_ok=True)
        (base / code / "current" / "region_index.json").write_text(json.dumps(reg_index, indent=2), encoding="utf-8")
    base.mkdir(parents=True, exist_ok=True)
    (base / "index.json").write_text(json.dumps(index, indent=2), encoding="utf-8")
    return root
