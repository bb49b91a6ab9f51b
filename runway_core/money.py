"""Money: USD amounts as ``decimal.Decimal``, rounded and written one way by every face.

Each line item of a plan is rounded half up to cents (:func:`cents`); totals are sums of
rounded line items (docs/catalog.md), so every printed table adds up to the cent. The text
forms below are what the CLI, the hovers, the code lenses and the receipts show: ``$1,234.50``
(:func:`usd`), a whole share of a cap (:func:`cap_percent`), a lens cost (:func:`whole_usd`),
a cap as written (:func:`cap_usd`) and a signed change (:func:`signed_usd`).

A leaf: imports only the standard library.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal

CENT = Decimal("0.01")

#: The minus sign of a negative delta (U+2212), which lines up with "+" in proportional fonts.
MINUS = "\u2212"

#: From this many dollars a month, a resource lens shows whole dollars; below, cents. One rule
#: for every item cost of a lens (issue 15: "$2.05 · $2.05 · $21" mixed cents and dollars for
#: amounts of one size): cents where they are a visible share of the amount, whole dollars
#: where they are not. An environment's total is always to the cent: it is set against its cap.
WHOLE_DOLLARS_FROM = Decimal(100)


def _rounded(x: Decimal, exp: Decimal) -> Decimal:
    """``x`` rounded half up to ``exp`` (``CENT`` or 1), whatever its size.

    The default decimal context holds 28 digits, so quantizing a cap of ``1e26`` (or a
    38-digit integer) to cents raised InvalidOperation in every face; the context here holds
    every digit of the result. Infinite and NaN amounts never get here (the model refuses them).
    """
    if not x.is_finite():
        return x
    digits = max(x.adjusted(), 0) - exp.as_tuple().exponent + 2
    # One shared context for every amount below 10**25 (all real ones): building a Context per
    # call was most of the cost of a completion list's 1,500 prices (issue 16 item 10).
    return x.quantize(exp, rounding=ROUND_HALF_UP, context=_CONTEXT_28 if digits <= 28 else Context(prec=digits))


_CONTEXT_28 = Context(prec=28)

#: Amounts already written by :func:`usd` (a plan's line items are written again at every
#: keystroke by the lenses, hints and completion); bounded, emptied when full.
_USD: dict[Decimal, str] = {}
_USD_MAX = 8192


def cents(x: Decimal) -> Decimal:
    """``x`` USD rounded half up to cents (any size: see :func:`_rounded`)."""
    return _rounded(x, CENT)


def usd(x: Decimal) -> str:
    """``Decimal('1234.5')`` -> ``$1,234.50``; a negative zero prints as ``$0.00``."""
    hit = _USD.get(x)
    if hit is not None:
        return hit
    c = cents(x)
    out = f"${c.copy_abs() if c.is_zero() else c:,.2f}"
    if x.is_finite():  # (NaN is unequal to itself: never a key)
        if len(_USD) >= _USD_MAX:
            _USD.clear()
        _USD[x] = out
    return out


def usd_over(excess: Decimal) -> str:
    """How far a total is over its cap, as :func:`usd`; an excess under half a cent (a cap of
    ``126.8799999`` against $126.88) is ``less than $0.01``, never ``$0.00``: the refusal is
    decided on the exact figures, and the text must not contradict it (round 5 A08)."""
    if excess > 0 and cents(excess).is_zero():
        return "less than $0.01"
    return usd(excess)


def cap_percent(total: Decimal, cap: Decimal | None) -> int | None:
    """``total`` as a whole percentage of ``cap``, rounded half up (the one rule every face
    uses: CLI, hover, code lens, inlay hint, completion); None without a positive cap."""
    if cap is None or cap <= 0:
        return None
    return int(_rounded(total * 100 / cap, Decimal(1)))


def whole_usd(x: Decimal) -> str:
    """A lens cost: to the cent under :data:`WHOLE_DOLLARS_FROM` (``$0.40``, ``$7.21``,
    ``$36.28``), else whole dollars, half up, with thousands separators (``$139``, ``$1,234``)."""
    if abs(cents(x)) < WHOLE_DOLLARS_FROM:
        return usd(x)
    return f"${int(_rounded(x, Decimal(1))):,}"


def cap_usd(cap: Decimal) -> str:
    """A cap as written: ``$150`` for whole dollars, else to the cent (``$150.50``)."""
    return f"${int(cap):,}" if cap == cap.to_integral_value() else usd(cap)


def signed_usd(delta: Decimal) -> str:
    """``+$103.19`` or ``−$3.00`` (U+2212); ``±$0.00`` for no change."""
    c = cents(delta)
    if c == 0:
        return "±$0.00"
    return ("+" if c > 0 else MINUS) + usd(abs(c))


__all__ = ["CENT", "MINUS", "WHOLE_DOLLARS_FROM", "cents", "usd", "usd_over", "cap_percent", "whole_usd", "cap_usd", "signed_usd"]
