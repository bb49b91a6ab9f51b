"""Plan figures as text, the same in every query: quantities, unit prices, an item's cost
and its concrete capacity (docs/catalog.md). Money is USD per month."""

from __future__ import annotations

import re

from decimal import Decimal
from typing import Any

from ..money import usd
from ..planner import EnvironmentPlan, ItemPlan


def quantity(x: Any) -> str:
    """A quantity without exponent or trailing zeros, with thousands separators."""
    if isinstance(x, Decimal):
        d = x.normalize()
        if d == d.to_integral_value():
            return f"{int(d):,}"
        return format(d, "f")
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def unit_price(x: Decimal) -> str:
    """A unit price at full precision (``$0.03238``), never rounded to cents."""
    d = x.normalize()
    text = format(d, "f")
    if "." in text and len(text.split(".")[1]) == 1:
        text += "0"
    return f"${text}"


#: A brief source fits one hover line (characters); the full text is behind a details block.
SOURCE_BRIEF_CHARS = 110


def source_brief(text: str, limit: int = SOURCE_BRIEF_CHARS) -> str:
    """A price source in one short line: its first source (up to the first ``;``), without the
    parenthesised detail when that is what makes it long, the SKU and a date kept when the text
    names them
    (``AWS Price List, AmazonRDS offer version 20261120093015, eu-west-1 file published
    2026-11-20T09:30:15Z, SKU AE36997DF5563133``), cut at a word with ``…`` past ``limit``."""
    first = text.split("; ", 1)[0].strip()
    if len(first) > limit and " (" in first:
        first = first[: first.index(" (")]
    sku = re.search(r"\bSKU ([A-Z0-9]{8,})", text)
    if sku and sku.group(0) not in first:
        first = f"{first}, {sku.group(0)}"
    date = re.search(r"\b20\d\d-\d\d(-\d\d)?\b", text)
    if date and not re.search(r"\b20\d\d-\d\d", first):
        first = f"{first}, {date.group(0)}"
    if len(first) > limit:
        cut = first.rfind(" ", 0, limit)
        first = first[: cut if cut > limit // 2 else limit].rstrip(" ,;") + "…"
    return first


def cell(text: str) -> str:
    """``text`` as one markdown table cell (``|`` escaped, on one line)."""
    return text.replace("|", "\\|").replace("\n", " ")


def item_usd(item: ItemPlan) -> str:
    """An item's monthly cost, ``at least $36.28`` when a unit price is missing (a lower bound)."""
    return ("at least " if item.missing_prices else "") + usd(item.monthly_usd)


def _used(c: dict, key: str) -> str:
    """A usage quantity of a capacity: the usage file's (``400 (usage file)``) when the plan
    has one (``usage_<key>``), else the catalogue's (``assumed 25``)."""
    if c.get(f"usage_{key}") is not None:
        return f"{quantity(c[f'usage_{key}'])} (usage file)"
    return f"assumed {quantity(c.get(f'assumed_{key}'))}"


def capacity_text(item: ItemPlan) -> str:
    """One line of concrete capacity for an item (instance class, Multi-AZ, storage, nodes,
    vCPU/memory, tasks)."""
    c = dict(item.capacity)
    k = item.kind
    if not c:
        return "not in the catalogue"
    if k == "postgres":
        if c.get("flavor") == "aurora":
            text = f"{c.get('instances')} x {c.get('instance_class')} (Aurora PostgreSQL Standard), {c.get('storage_gb')} GB storage, {_used(c, 'io_requests_millions')} M I/O requests"
        else:
            text = f"{c.get('instance_class')}, {'Multi-AZ' if c.get('multi_az') else 'Single-AZ'}, {c.get('storage_gb')} GB gp3"
        text += f", PostgreSQL {c.get('engine_version')}"
        if c.get("proxy"):
            text += f", RDS Proxy ({c.get('proxy_vcpus')} vCPU billed)"
        text += f", backups {c.get('backup_retention_days')} days"
        return text
    if k == "cache":
        return f"{c.get('nodes')} x {c.get('node_type')} node(s), Valkey {c.get('engine_version')}"
    if k == "queue":
        return f"SQS {'FIFO' if c.get('fifo') else 'Standard'}, {_used(c, 'requests_millions')} M requests/month"
    if k == "topic":
        return (f"SNS {'FIFO' if c.get('fifo') else 'Standard'}, {_used(c, 'publishes_millions')} M publishes/month"
                + (f", {quantity(c['usage_payload_gb'])} GB payload (usage file)" if c.get("usage_payload_gb") is not None else ""))
    if k == "bucket":
        return (
            f"S3 Standard, {_used(c, 'storage_gb')} GB stored, "
            f"{_used(c, 'put_requests_thousands')}k PUT-class and "
            f"{_used(c, 'get_requests_thousands')}k GET-class requests/month"
            + (", versioning on" if c.get("versioning") else "")
        )
    if k == "workload":
        tasks = c.get("tasks")
        return (
            f"Fargate {c.get('architecture', 'ARM64')}, {quantity(c.get('vcpu'))} vCPU, {quantity(c.get('memory_gb'))} GB memory per task, "
            f"{tasks} task{'s' if tasks != 1 else ''}, {c.get('expose')}"
            + (f", {_used(c, 'log_ingested_gb')} GB logs/month per task ({c.get('log_retention_days')}-day retention)"
               if c.get("assumed_log_ingested_gb") is not None else "")
        )
    return ", ".join(f"{key}: {quantity(v)}" for key, v in c.items() if v is not None)


def confidence_line(plan: EnvironmentPlan) -> str:
    """How much of the environment's total rests on each price confidence, for hovers and
    lenses' tooltips: ``**Prices:** $361.54 price-list, $616.49 secondary`` (docs/catalog.md,
    "Pricing rules")."""
    parts = [f"{usd(v)} {c}" for c, v in plan.price_confidence().items() if v]
    return "**Prices:** " + (", ".join(parts) if parts else "none")


__all__ = ["quantity", "unit_price", "cell", "item_usd", "capacity_text", "confidence_line"]
