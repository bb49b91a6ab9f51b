"""Plan figures as text, the same in every query: quantities, unit prices, an item's cost
and its concrete capacity (docs/catalog.md). Money is USD per month."""

from __future__ import annotations

import re

from decimal import Decimal
from typing import Any

from .. import kinds
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


def capacity_text(item: ItemPlan) -> str:
    """One line of concrete capacity for an item (instance class, Multi-AZ, storage, nodes,
    vCPU/memory, tasks)."""
    c = dict(item.capacity)
    if not c:
        return "not in the catalogue"
    declared = kinds.get(item.kind)
    if declared is not None and declared.describe is not None:
        return declared.describe(c, quantity)
    return ", ".join(f"{key}: {quantity(v)}" for key, v in c.items() if v is not None)


def confidence_line(plan: EnvironmentPlan) -> str:
    """How much of the environment's total rests on each price confidence, for hovers and
    lenses' tooltips: ``**Prices:** $361.54 price-list, $616.49 secondary`` (docs/catalog.md,
    "Pricing rules")."""
    parts = [f"{usd(v)} {c}" for c, v in plan.price_confidence().items() if v]
    return "**Prices:** " + (", ".join(parts) if parts else "none")


__all__ = ["quantity", "unit_price", "cell", "item_usd", "capacity_text", "confidence_line"]
