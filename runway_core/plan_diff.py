"""The cost change between two plans of one product: per environment the base and head totals,
the delta, the cap and the head's verdict; per item added / removed / changed / unchanged, with
its size, its capacity changes (a scale 3 -> 4 is ``tasks: 3 -> 4``, not "medium -> medium") and
its money delta (docs/cli.md, "diff").

Pure: no I/O. Each side is a :class:`PlanSide`, built from a :class:`~runway_core.planner.Plan`
(:func:`side_of_plan`) or from the JSON of ``runway-deploy plan --format json``
(:func:`side_of_json`). Money is :class:`~decimal.Decimal` USD per month throughout, rounded to
cents as the plan's JSON prints it, so an environment's delta is exactly head total - base
total of the two ``plan --format json`` documents. Environments and items are joined by name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Mapping, Sequence

from .money import cap_percent, cents
from .planner import FORMAT_VERSION, Plan
from .planner.items import REFUSED_VERDICTS, VERDICTS

#: Capacity keys that configure a workload without sizing it: a change of image digest, of
#: variables or of ``uses`` is not a capacity change (it shows in the runway's own diff).
CONFIGURATION_KEYS = frozenset({"image", "env", "secrets", "uses", "health", "port"})
#: The values of ``ItemDiff.change``.
CHANGES = ("added", "removed", "changed", "unchanged")
ZERO = Decimal("0.00")
#: The verdicts a plan JSON document may hold: the planner's, and ``invalid`` (docs/cli.md,
#: "JSON": an environment with an item not estimated).
PLAN_JSON_VERDICTS = (*VERDICTS, "invalid")


class PlanDocumentError(ValueError):
    """A plan JSON document that is not ``plan --format json`` output (the message says where)."""


@dataclass(frozen=True)
class SideItem:
    """One item of one environment on one side: monthly USD rounded to cents."""

    name: str
    kind: str
    size: str | None
    monthly_usd: Decimal
    capacity: Mapping[str, Any]
    #: False when the item has no line item at all (an unknown size: "not estimated"): its
    #: $0 is no price, and totals holding it are lower bounds.
    priced: bool = True


@dataclass(frozen=True)
class SideEnvironment:
    """One environment on one side: cap (None: no cap) and total in USD per month, verdict
    ``ok`` / ``over-cap`` / ``no-cap``."""

    name: str
    cap: Decimal | None
    total: Decimal
    verdict: str
    items: tuple[SideItem, ...]


@dataclass(frozen=True)
class PlanSide:
    """One side of a diff: the product (None when its root could not be read) and its
    environments; ``present`` False when the side does not exist at all (a product the change
    adds has no base, one it deletes no head)."""

    product: str | None
    region: str | None
    environments: tuple[SideEnvironment, ...]
    present: bool = True


@dataclass(frozen=True)
class CapacityChange:
    """A capacity key whose value differs (``None``: absent on that side)."""

    key: str
    base: Any
    head: Any


@dataclass(frozen=True)
class ItemDiff:
    """One item: ``change`` one of :data:`CHANGES`; sizes and money None on the side it is absent from."""

    name: str
    kind: str
    change: str
    base_size: str | None
    head_size: str | None
    base_monthly_usd: Decimal | None
    head_monthly_usd: Decimal | None
    delta_monthly_usd: Decimal
    capacity_changes: tuple[CapacityChange, ...]
    #: False when head has the item but could not price it (:attr:`SideItem.priced`).
    head_priced: bool = True


@dataclass(frozen=True)
class EnvironmentDiff:
    """One environment. An environment only in head has base total 0 (every item added); only
    in base, head total 0, ``head_verdict`` None and every item removed. ``cap`` is head's
    (base's when the environment was removed). ``head_verdict`` is ``invalid`` for every
    environment when head has errors (its totals are then lower bounds, never "ok").
    ``max_increase`` is the ``--max-increase`` limit in USD per month (None: no limit)."""

    name: str
    base_total: Decimal
    head_total: Decimal
    delta: Decimal
    cap: Decimal | None
    base_cap: Decimal | None
    head_verdict: str | None
    items: tuple[ItemDiff, ...]
    max_increase: Decimal | None = None
    in_base: bool = True
    in_head: bool = True
    #: Head exists but could not be read at all (no root read: no product, region or
    #: environment): nothing of this environment is compared, its delta is not known.
    head_unread: bool = False

    @property
    def max_increase_exceeded(self) -> bool:
        """The head total grew by more than ``max_increase`` USD per month."""
        return self.max_increase is not None and self.delta > self.max_increase

    @property
    def cap_changed(self) -> bool:
        """Both sides have the environment and their caps differ (one may be None: no cap)."""
        return self.in_base and self.in_head and self.base_cap != self.cap

    @property
    def not_estimated(self) -> tuple[str, ...]:
        """Head's items it could not price (an unknown size): counted as $0, a lower bound."""
        return tuple(i.name for i in self.items if not i.head_priced and i.change != "removed")

    @property
    def changed_items(self) -> tuple[ItemDiff, ...]:
        return tuple(i for i in self.items if i.change != "unchanged")

    @property
    def base_percent(self) -> int | None:
        """Base total as a percentage of base's cap (None without one)."""
        return cap_percent(self.base_total, self.base_cap)

    @property
    def head_percent(self) -> int | None:
        return cap_percent(self.head_total, self.cap)


@dataclass(frozen=True)
class PlanDiff:
    """The whole diff: head's product (base's when head has none), environments in head's
    order, then the ones only base has; both regions; ``head_errors`` the number of head's
    errors (other than the refusal codes: docs/cli.md, "diff"); ``change`` one of
    :data:`CHANGES` for the product as a whole."""

    product: str | None
    environments: tuple[EnvironmentDiff, ...]
    base_region: str | None = None
    head_region: str | None = None
    head_errors: int = 0
    change: str = "changed"
    #: False when head exists but could not be read at all (:attr:`EnvironmentDiff.head_unread`).
    head_read: bool = True

    @property
    def region_changed(self) -> bool:
        """Both sides were read and name different regions (an unread head has no region)."""
        return self.change == "changed" and self.head_read and self.base_region != self.head_region

    def environment(self, name: str) -> EnvironmentDiff | None:
        return next((e for e in self.environments if e.name == name), None)


# --------------------------------------------------------------------------------------
# Sides
# --------------------------------------------------------------------------------------


def side_of_plan(plan: Plan) -> PlanSide:
    """A side from a computed plan (money rounded to cents, as its JSON prints it)."""
    return PlanSide(
        plan.product,
        plan.region,
        tuple(
            SideEnvironment(
                e.name, None if e.cap is None else Decimal(e.cap), cents(e.total), e.verdict,
                tuple(SideItem(i.name, i.kind, i.size, cents(i.monthly_usd), dict(i.capacity), bool(i.line_items)) for i in e.items),
            )
            for e in plan.environments
        ),
    )


def _money(value: Any, where: str, *, optional: bool = False, exact: bool = False) -> Decimal | None:
    """An amount in USD of a plan document, rounded to cents (``exact``: as written, for a cap:
    `126.875` is below a $126.88 total, and rounding it to $126.88 let an over-cap head pass,
    tenth adversary C8). Raises :class:`PlanDocumentError` for anything but a JSON number from
    0 to :data:`MAX_PLAN_USD`."""
    if value is None and optional:
        return None
    # A JSON number only: `plan` writes every amount as one; the string "126.88" is what a
    # hand-edited document holds, and is refused as `true` is (ninth adversary C2).
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise PlanDocumentError(f"{where}: expected an amount in USD (a JSON number), got {type(value).__name__}")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise PlanDocumentError(f"{where}: {value!r} is not an amount") from None
    if not amount.is_finite() or amount < 0 or amount > MAX_PLAN_USD:
        # A plan never holds a negative, NaN or infinite amount, nor one past any total a plan
        # can reach: such a document is forged or broken, and a verdict against it means
        # nothing (fail closed). `1e99999999` is finite as a Decimal, and rounding it to cents
        # raised InvalidOperation: exit 70 (tenth adversary C2, C3).
        raise PlanDocumentError(f"{where}: {_shown_number(value)} is not an amount in USD from 0 to {MAX_PLAN_USD:,}")
    return amount if exact else cents(amount)


#: The largest amount in USD a plan document may hold: far past any total (caps stop at
#: $1,000,000,000, runway_core.model.MAX_CAP_USD), short of what money formatting overflows on.
MAX_PLAN_USD = Decimal(10) ** 15
#: The largest ``storage_gb`` a plan document may hold (RDS gp3: 65,536 GB, runway_core.model).
MAX_PLAN_STORAGE_GB = 65_536


def _shown_number(value: Any) -> str:
    """A number from a document for a message: at most 40 characters of it."""
    text = str(value)
    return text if len(text) <= 40 else f"{text[:24]}… ({len(text):,} characters)"


def _verdict(name: str, cap: Decimal | None, total: Decimal, unpriced: bool, unestimated: bool, written: str) -> str:
    """The verdict of an environment, recomputed from its cap, total, missing prices and items
    not estimated as ``plan`` decides it (``runway_core.planner.verdict``: ``cap_verdict``, then
    ``invalid`` when an item is not estimated and that would pass): never taken on the
    document's word. A written verdict that refuses (``over-cap``, ``unpriced``, ``invalid``)
    is kept when the recomputation would pass: the stricter of the two (fail closed)."""
    if written not in PLAN_JSON_VERDICTS:
        raise PlanDocumentError(f"{name}.verdict: {written!r} is not one of {', '.join(PLAN_JSON_VERDICTS)}")
    if written == "invalid":
        # `plan --format json` writes it for an environment with an item not estimated: its
        # total is a lower bound, so no recomputation may turn it into "ok" (fail closed).
        return written
    if cap is None:
        verdict = "no-cap"
    elif total > cap:
        verdict = "over-cap"
    elif unpriced:
        verdict = "unpriced"
    else:
        verdict = "ok"
    if unestimated and verdict in ("ok", "no-cap"):
        # An item not estimated counts as $0: the total is a lower bound, which proves nothing
        # under a cap (runway_core.planner.verdict.shown_verdict; ninth adversary C2: a head
        # whose written verdict was edited to "ok" passed `diff --max-increase 0`).
        verdict = "invalid"
    return written if written in REFUSED_VERDICTS and verdict not in REFUSED_VERDICTS else verdict


def _names(value: Any, where: str) -> list[str]:
    """A list of strings (``missing_prices``, ``not_estimated``); absent is empty. Raises
    :class:`PlanDocumentError` for anything else (``"main-db"`` alone is no list)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PlanDocumentError(f"{where}: expected a list of strings")
    return value


#: The longest ``capacity.engine_version`` a plan document may hold (the planner writes "16",
#: "8.0"): a record is evidence, and a version of 5,000 digits is none (ninth adversary C6).
MAX_VERSION_CHARS = 32


def _capacity(capacity: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``capacity`` of a plan document, its fields the refused changes read (RW191-RW193:
    ``flavor``, ``storage_gb``, ``engine_version``) checked strictly: a record is evidence,
    never an instruction, and one whose fields do not fit is no plan (ninth adversary C6).
    ``storage_gb`` a JSON number (``true`` is none), finite and non-negative;
    ``engine_version`` a string of 1 to :data:`MAX_VERSION_CHARS` printable ASCII characters
    (``"²"`` or ``"١٧"`` is no version the planner writes); ``flavor`` a string. Raises
    :class:`PlanDocumentError` naming the field."""
    out = dict(capacity)
    if "storage_gb" in out:
        gb = out["storage_gb"]
        if isinstance(gb, bool) or not isinstance(gb, (int, float, Decimal)):
            raise PlanDocumentError(f"{where}.storage_gb: expected a number of GB, got {type(gb).__name__}")
        amount = Decimal(gb if not isinstance(gb, float) else str(gb))
        if not amount.is_finite() or amount < 0 or amount > MAX_PLAN_STORAGE_GB:
            raise PlanDocumentError(f"{where}.storage_gb: {_shown_number(gb)} is not a number of GB from 0 to {MAX_PLAN_STORAGE_GB:,}")
    if "engine_version" in out:
        v = out["engine_version"]
        if not isinstance(v, str) or not 0 < len(v) <= MAX_VERSION_CHARS or not all("!" <= c <= "~" for c in v):
            shown = f"{len(v):,} characters" if isinstance(v, str) and len(v) > MAX_VERSION_CHARS else repr(v) if isinstance(v, str) else type(v).__name__
            raise PlanDocumentError(
                f"{where}.engine_version: expected a version of at most {MAX_VERSION_CHARS} printable ASCII characters, got {shown}")
    if "flavor" in out and not isinstance(out["flavor"], str):
        raise PlanDocumentError(f"{where}.flavor: expected a string")
    return out


def _text(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise PlanDocumentError(f"{where}: expected a string")
    return value


def _refuse_twice(names: Sequence[str], where: str, what: str) -> None:
    """PlanDocumentError when a name occurs twice in ``names``: environments and items are
    joined by name (:func:`diff_plans`), so of two entries of one name only one would be
    compared and the other dropped without a word -- an over-cap environment listed second
    passed ``diff`` as "no change ... ok" (eighth adversary F2). Fails closed: such a side is
    no plan ``diff`` can compare (a runway whose resource and workload share a name, RW112,
    is compared from the runway itself, where that error is counted)."""
    seen: set[str] = set()
    for n, name in enumerate(names):
        if name in seen:
            raise PlanDocumentError(f"{where}[{n}]: the {what} {name!r} is listed twice; each is compared by its name")
        seen.add(name)


def side_of_json(doc: Any) -> PlanSide:
    """A side from the JSON of ``plan --format json`` (``format_version`` 1), parsed with
    ``parse_float=Decimal`` or not. Fails closed on a forged or broken document: every amount
    must be a non-negative finite JSON number, each environment's total the exact sum of its
    items (docs/cli.md, "JSON"), ``missing_prices`` and ``not_estimated`` lists of strings, and
    its verdict is recomputed from cap, total, missing prices and the items not estimated
    (:func:`_verdict`). Raises :class:`PlanDocumentError` naming the first field that does not
    fit."""
    if not isinstance(doc, Mapping):
        raise PlanDocumentError("not a plan: the document is not a JSON object")
    version = doc.get("format_version")
    # The integer itself: JSON's `true` and `1.0` compare equal to 1 in Python, and are no version.
    if type(version) is not int or version != FORMAT_VERSION:
        raise PlanDocumentError(f"not a plan of format_version {FORMAT_VERSION} (runway-deploy plan --format json)")
    envs = doc.get("environments")
    if not isinstance(envs, list):
        raise PlanDocumentError("environments: expected a list")
    out = []
    for n, e in enumerate(envs):
        where = f"environments[{n}]"
        if not isinstance(e, Mapping) or not isinstance(e.get("items"), list):
            raise PlanDocumentError(f"{where}: expected an object with items")
        items = []
        listed = set(_names(e.get("not_estimated"), f"{where}.not_estimated"))
        missing_any, unestimated = False, bool(listed)
        for k, i in enumerate(e["items"]):
            iw = f"{where}.items[{k}]"
            if not isinstance(i, Mapping):
                raise PlanDocumentError(f"{iw}: expected an object")
            capacity = i.get("capacity") or {}
            if not isinstance(capacity, Mapping):
                raise PlanDocumentError(f"{iw}.capacity: expected an object")
            line_items = i.get("line_items")
            if line_items is not None and not isinstance(line_items, list):
                raise PlanDocumentError(f"{iw}.line_items: expected a list")
            item_missing = _names(i.get("missing_prices"), f"{iw}.missing_prices")
            name = _text(i.get("name"), f"{iw}.name")
            monthly = _money(i.get("monthly_usd"), f"{iw}.monthly_usd")
            if line_items:
                # Each line item is one the planner writes (an object with its amount), and the
                # item costs their sum, as `plan` computes it (runway_core.planner.plan): a
                # `[null]` or `["x"]` counted as priced and hid an item not estimated (tenth
                # adversary C10), and an item $36 below its own lines passed as a saving.
                lines = ZERO
                for m, li in enumerate(line_items):
                    if not isinstance(li, Mapping):
                        raise PlanDocumentError(f"{iw}.line_items[{m}]: expected an object")
                    lines += _money(li.get("monthly_usd"), f"{iw}.line_items[{m}].monthly_usd")  # type: ignore[operator]
                if lines != monthly:
                    raise PlanDocumentError(f"{iw}.monthly_usd: {monthly} is not the sum of its line items ({lines})")
            # Not estimated as the planner says it (verdict.not_estimated): no line item and no
            # missing price (an unknown size), or named in the environment's `not_estimated`.
            estimated = not (isinstance(line_items, list) and not line_items and not item_missing)
            missing_any = missing_any or bool(item_missing)
            unestimated = unestimated or not estimated
            items.append(SideItem(
                name, _text(i.get("kind"), f"{iw}.kind"),  # type: ignore[arg-type]
                _text(i.get("size"), f"{iw}.size", optional=True), monthly,  # type: ignore[arg-type]
                _capacity(capacity, f"{iw}.capacity"), (not isinstance(line_items, list) or bool(line_items)) and name not in listed,
            ))
        cap = _money(e.get("cap_monthly_usd"), f"{where}.cap_monthly_usd", optional=True, exact=True)
        total = _money(e.get("total_monthly_usd"), f"{where}.total_monthly_usd")
        assert total is not None
        added = sum((i.monthly_usd for i in items), ZERO)
        if added != total:
            # docs/cli.md, "JSON": each environment total is the exact sum of its items.
            raise PlanDocumentError(f"{where}.total_monthly_usd: {total} is not the sum of its items ({added})")
        _refuse_twice([i.name for i in items], f"{where}.items", "item")
        missing = _names(e.get("missing_prices", []), f"{where}.missing_prices")
        out.append(SideEnvironment(
            _text(e.get("name"), f"{where}.name"),  # type: ignore[arg-type]
            cap, total,
            _verdict(where, cap, total, bool(missing) or missing_any, unestimated,
                     _text(e.get("verdict"), f"{where}.verdict")),  # type: ignore[arg-type]
            tuple(items),
        ))
    _refuse_twice([e.name for e in out], "environments", "environment")
    return PlanSide(_text(doc.get("product"), "product", optional=True), _text(doc.get("region"), "region", optional=True), tuple(out))


# --------------------------------------------------------------------------------------
# Diff
# --------------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equal as plan values: 2 == 2.0 == Decimal('2'), nested containers compared alike."""
    if isinstance(a, (int, float, Decimal)) and isinstance(b, (int, float, Decimal)) and not isinstance(a, bool) and not isinstance(b, bool):
        return Decimal(str(a)) == Decimal(str(b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def capacity_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[CapacityChange, ...]:
    """The capacity keys whose values differ, in head's key order then base's; configuration
    keys (:data:`CONFIGURATION_KEYS`) left out."""
    keys = [k for k in head if k not in CONFIGURATION_KEYS] + [k for k in base if k not in head and k not in CONFIGURATION_KEYS]
    return tuple(CapacityChange(k, base.get(k), head.get(k)) for k in keys if not _same(base.get(k), head.get(k)))


def _item_diff(base: SideItem | None, head: SideItem | None) -> ItemDiff:
    if base is None:
        assert head is not None
        return ItemDiff(head.name, head.kind, "added", None, head.size, None, head.monthly_usd, head.monthly_usd,
                        capacity_changes({}, head.capacity), head.priced)
    if head is None:
        return ItemDiff(base.name, base.kind, "removed", base.size, None, base.monthly_usd, None, -base.monthly_usd,
                        capacity_changes(base.capacity, {}))
    changes = capacity_changes(base.capacity, head.capacity)
    changed = (bool(changes) or base.size != head.size or base.kind != head.kind or base.monthly_usd != head.monthly_usd
               or base.priced != head.priced)
    return ItemDiff(head.name, head.kind, "changed" if changed else "unchanged", base.size, head.size,
                    base.monthly_usd, head.monthly_usd, head.monthly_usd - base.monthly_usd, changes, head.priced)


def _by_name(items: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i in items:
        out.setdefault(i.name, i)
    return out


def _environment_diff(name: str, base: SideEnvironment | None, head: SideEnvironment | None,
                      invalid: bool, max_increase: Decimal | None) -> EnvironmentDiff:
    base_items = _by_name(base.items) if base else {}
    head_items = _by_name(head.items) if head else {}
    items = [_item_diff(base_items.get(n), i) for n, i in head_items.items()]
    items += [_item_diff(i, None) for n, i in base_items.items() if n not in head_items]
    base_total = base.total if base else ZERO
    head_total = head.total if head else ZERO
    cap = head.cap if head else (base.cap if base else None)
    # An invalid head has no verdict to trust: never "ok", whatever its (lower-bound) total.
    verdict = "invalid" if invalid else (head.verdict if head else None)
    return EnvironmentDiff(name, base_total, head_total, head_total - base_total, cap, base.cap if base else None,
                           verdict, tuple(items), max_increase, base is not None, head is not None)


def diff_plans(base: PlanSide, head: PlanSide, *, head_errors: int = 0, max_increase: Decimal | None = None) -> PlanDiff:
    """The diff of ``base`` and ``head`` (environments in head's order, then base's others).
    ``head_errors`` > 0 makes every ``head_verdict`` ``invalid``; ``max_increase`` (USD per
    month) is recorded on each environment (:attr:`EnvironmentDiff.max_increase_exceeded`)."""
    base_envs = _by_name(base.environments)
    head_envs = _by_name(head.environments)
    invalid = head_errors > 0
    # A head with errors and nothing in it (no product, region or environment): its root could
    # not be read (a syntax error), so it says nothing about any environment.
    unread = head.present and head_errors > 0 and head.product is None and head.region is None and not head.environments
    envs = [_environment_diff(n, base_envs.get(n), e, invalid, max_increase) for n, e in head_envs.items()]
    envs += [replace(_environment_diff(n, e, None, invalid, max_increase), head_unread=unread)
             for n, e in base_envs.items() if n not in head_envs]
    if not base.present and head.present:
        change = "added"
    elif base.present and not head.present:
        change = "removed"
    elif (base.region != head.region or base.product != head.product
          or any(not e.in_base or not e.in_head or e.cap_changed or not e.delta.is_zero() or e.changed_items for e in envs)):
        change = "changed"
    else:
        change = "unchanged"
    return PlanDiff(head.product if head.product is not None else base.product, tuple(envs),
                    base.region, head.region, head_errors, change, not unread)


# --------------------------------------------------------------------------------------
# JSON (docs/cli.md, "diff --format json", format_version 1)
# --------------------------------------------------------------------------------------


def _num(x: Decimal | None) -> float | None:
    """An amount for JSON: a number of USD with cents (as the plan's ``total_monthly_usd``)."""
    return None if x is None else float(cents(x))


def _plain(v: Any) -> Any:
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def diff_json(d: PlanDiff) -> dict[str, Any]:
    """The documented JSON of a diff: ``{"format_version", "product", "change", "base_region",
    "head_region", "head_errors", "environments": [{"name", "base_total_monthly_usd",
    "head_total_monthly_usd", "delta_monthly_usd", "cap_monthly_usd", "base_cap_monthly_usd",
    "head_verdict", "max_increase_exceeded", "not_estimated", "items": [{"name", "kind",
    "change", "base_size", "head_size", "base_monthly_usd", "head_monthly_usd",
    "delta_monthly_usd", "head_estimated", "capacity_changes": [{"key", "base",
    "head"}]}]}]}``; amounts are numbers of USD per month with cents."""
    return {
        "format_version": FORMAT_VERSION,
        "product": d.product,
        "change": d.change,
        "base_region": d.base_region,
        "head_region": d.head_region,
        "head_errors": d.head_errors,
        "head_read": d.head_read,
        "environments": [
            {
                "name": e.name,
                "base_total_monthly_usd": _num(e.base_total),
                # An unread head has no total: null, never a $0 "saving" of the whole base.
                "head_total_monthly_usd": None if e.head_unread else _num(e.head_total),
                "delta_monthly_usd": None if e.head_unread else _num(e.delta),
                "cap_monthly_usd": _num(e.cap),
                "base_cap_monthly_usd": _num(e.base_cap),
                "head_verdict": e.head_verdict,
                "max_increase_exceeded": e.max_increase_exceeded,
                "not_estimated": list(e.not_estimated),
                "items": [
                    {
                        "name": i.name,
                        "kind": i.kind,
                        "change": i.change,
                        "base_size": i.base_size,
                        "head_size": i.head_size,
                        "base_monthly_usd": _num(i.base_monthly_usd),
                        "head_monthly_usd": _num(i.head_monthly_usd),
                        # Not estimated at head: no delta (its $0 is no saving).
                        "delta_monthly_usd": None if not i.head_priced and i.change != "removed" else _num(i.delta_monthly_usd),
                        "head_estimated": i.head_priced if i.change != "removed" else None,
                        "capacity_changes": [{"key": c.key, "base": _plain(c.base), "head": _plain(c.head)} for c in i.capacity_changes],
                    }
                    for i in e.items
                ],
            }
            for e in d.environments
        ],
    }


__all__ = [
    "CHANGES",
    "CONFIGURATION_KEYS",
    "CapacityChange",
    "EnvironmentDiff",
    "ItemDiff",
    "PlanDiff",
    "PlanDocumentError",
    "PlanSide",
    "SideEnvironment",
    "SideItem",
    "capacity_changes",
    "diff_json",
    "diff_plans",
    "side_of_json",
    "side_of_plan",
]
