"""Money: USD amounts as ``decimal.Decimal``, rounded and written one way by every face.

Each line item of a plan is rounded half up to cents (:func:`cents`); totals are sums of
rounded line items (docs/catalog.md), so every printed table adds up to the cent. The text
forms below are what the CLI, the hovers, the code lenses and the receipts show: ``$1,234.50``
(:func:`usd`), a whole share of a cap (:func:`cap_percent`), a lens cost (:func:`whole_usd`),
a cap as written (:func:`cap_usd`) and a signed change (:func:`signed_usd`).

A leaf: imports only the standard library.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")

#: The minus sign of a negative delta (U+2212), which lines up with "+" in proportional fonts.
MINUS = "\u2212"

#: From this many dollars a month, a resource lens shows whole dollars; below, cents. One rule
#: for every item cost of a lens (issue 15: "$2.05 · $2.05 · $21" mixed cents and dollars for
#: amounts of one size): cents where they are a visible share of the amount, whole dollars
#: where they are not. An environment's total is always to the cent: it is set against its cap.
WHOLE_DOLLARS_FROM = Decimal(100)


def cents(x: Decimal) -> Decimal:
    """``x`` USD rounded half up to cents."""
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


def usd(x: Decimal) -> str:
    """``Decimal('1234.5')`` -> ``$1,234.50``; a negative zero prints as ``$0.00``."""
    c = cents(x)
    return f"${c.copy_abs() if c.is_zero() else c:,.2f}"


def cap_percent(total: Decimal, cap: Decimal | None) -> int | None:
    """``total`` as a whole percentage of ``cap``, rounded half up (the one rule every face
    uses: CLI, hover, code lens, inlay hint, completion); None without a positive cap."""
    if cap is None or cap <= 0:
        return None
    return int((total * 100 / cap).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def whole_usd(x: Decimal) -> str:
    """A lens cost: to the cent under :data:`WHOLE_DOLLARS_FROM` (``$0.40``, ``$7.21``,
    ``$36.28``), else whole dollars, half up, with thousands separators (``$139``, ``$1,234``)."""
    if abs(cents(x)) < WHOLE_DOLLARS_FROM:
        return usd(x)
    return f"${int(x.quantize(Decimal(1), rounding=ROUND_HALF_UP)):,}"


def cap_usd(cap: Decimal) -> str:
    """A cap as written: ``$150`` for whole dollars, else to the cent (``$150.50``)."""
    return f"${int(cap):,}" if cap == cap.to_integral_value() else usd(cap)


def signed_usd(delta: Decimal) -> str:
    """``+$103.19`` or ``−$3.00`` (U+2212); ``±$0.00`` for no change."""
    c = cents(delta)
    if c == 0:
        return "±$0.00"
    return ("+" if c > 0 else MINUS) + usd(abs(c))


__all__ = ["CENT", "MINUS", "WHOLE_DOLLARS_FROM", "cents", "usd", "cap_percent", "whole_usd", "cap_usd", "signed_usd"]
