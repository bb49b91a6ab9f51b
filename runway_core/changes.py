"""Changes AWS refuses, found at check time: the runway as it is now against the plan last
deployed (docs/diagnostics.md RW190-RW193; docs/deploy.md, "Changes AWS refuses").

The first ``up`` of a runway always works; a later one runs against what exists. Some edits
that look ordinary cannot be applied to what exists, and Pulumi finds out half-way through an
``up``. They are diagnostics here instead, positioned on the runway, whenever the deployed
plan is known: ``check --deployed FILE``, the editor and ``check`` from the product's
``.runway/`` records (:func:`deployed_from_records`), ``diff`` against its base side, and
``preview``/``up`` against the reviewed plan of the last successful ``up``.

- **RW190** the region changed and the environment has data resources: every resource is
  created again, empty, in the new region (Pulumi's provider change); refused outside
  disposable environments, a warning in them.
- **RW191** a postgres' allocated storage would shrink (``size`` large -> medium lowers it
  250 -> 100 GB): RDS ModifyDBInstance only grows storage (InvalidParameterCombination).
- **RW192** a postgres or cache engine version would go down: RDS and ElastiCache upgrade in
  place, never downgrade (a downgrade would replace the resource under its own fixed name).
- **RW193** a postgres ``flavor`` switch (rds <-> aurora): another database, created empty;
  refused outside disposable environments (docs/deploy.md, "Switching flavor").

Pure: a base :class:`~runway_core.plan_diff.PlanSide` in, diagnostics out; the reader of the
records is given the folder and reads only under ``.runway/``.
"""

from __future__ import annotations

import os
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from . import kinds
from .diagnostics import CODES, Diagnostic, Severity
from .plan_diff import PlanDocumentError, PlanSide, SideItem, side_of_json
from .planner import FORMAT_VERSION
from .positions import Position, Range
from .workspace import read_json
from .yamlsrc import YMap

if TYPE_CHECKING:
    from .facts import Analysis

#: The codes this module reports.
CHANGE_CODES = ("RW190", "RW191", "RW192", "RW193")
#: Records read for the deployed plan: at most this many receipts per environment, newest first.
MAX_RECEIPTS = 200
MAX_RECORD_BYTES = 16 * 1024 * 1024


#: A version compared by RW192: one to four parts of one to nine ASCII digits (``[0-9]``, never
#: ``str.isdigit``, which takes ``²`` and ``١٧``), dot-separated.
_VERSION = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9}){0,3}")


def _version(text: Any) -> tuple[int, ...] | None:
    """``"16"`` -> (16,), ``"7.2"`` -> (7, 2); None (not compared) for anything else: another
    type, ``"latest"``, ``"²"`` or ``"١٧"`` (no ASCII digits: never read as 17), a part of
    more than nine digits (ninth adversary C6: ``int()`` of 5,000 digits raised)."""
    if not isinstance(text, str) or _VERSION.fullmatch(text) is None:
        return None
    return tuple(int(p) for p in text.split("."))


def _gb(value: Any) -> Decimal | None:
    """A capacity's ``storage_gb`` as a Decimal; None (not compared) for anything but a finite
    number: ``True`` is no number of GB (ninth adversary C6: ``Decimal(str(True))`` raised)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return None
    gb = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    return gb if gb.is_finite() else None


def _anchor(an: "Analysis", name: str) -> tuple[str, Range]:
    sym = an.symbols.get(name)
    if sym is not None and sym.file is not None and sym.range is not None:
        return sym.file, sym.range
    if sym is not None and sym.origins:
        return sym.origins[0]
    return an.root_file, _region_range(an)


def _region_range(an: "Analysis") -> Range:
    root = an.root.parsed.root
    if isinstance(root, YMap):
        node = root.get("region")
        if node is not None:
            return node.range
        if root.entries:
            return root.entries[0][0].range
    return Range(Position(0, 0), Position(0, 0))


def _diag(file: str, rng: Range, code: str, msg: str, data: dict[str, Any], severity: Severity | None = None) -> Diagnostic:
    sev = severity if severity is not None else Severity[CODES[code][0].upper()]
    return Diagnostic(file, rng, sev, code, msg, data)


def refused_changes(an: "Analysis", deployed: PlanSide, source: str) -> list[Diagnostic]:
    """The RW190-RW193 diagnostics of ``an`` (the runway now) against ``deployed`` (the plan
    last deployed, or a diff's base side), per environment both have; ``source`` says what
    ``deployed`` is, in the messages ("the deployed plan", "the base side")."""
    if an.spec is None:
        return []
    out: list[Diagnostic] = []
    base_envs = {e.name: e for e in deployed.environments}
    for env, plan in an.plans.items():
        base = base_envs.get(env)
        if base is None:
            continue
        disposable = plan.disposable
        before = {i.name: i for i in base.items}
        if deployed.region and deployed.region != an.spec.region:
            data_items = sorted(i.name for i in plan.items if i.kind in kinds.DATA_KINDS and i.name in before)
            if data_items:
                out.append(_diag(
                    an.root_file, _region_range(an), "RW190",
                    f"{env}: region {deployed.region} -> {an.spec.region} (against {source}) creates every resource again in "
                    f"{an.spec.region}, empty: {', '.join(data_items)}" + (
                        "; allowed in this disposable environment, its data is lost" if disposable else
                        "; refused outside disposable environments: add the environment in the new region, copy the data, "
                        "move the consumers, then remove the old one (docs/deploy.md, \"Moving to another region\")"),
                    {"environment": env, "from": deployed.region, "to": an.spec.region, "resources": data_items},
                    Severity.WARNING if disposable else None))
        for item in plan.items:
            old = before.get(item.name)
            if old is None or old.kind != item.kind:
                continue
            out.extend(_item_changes(an, env, disposable, old, item.name, item.kind, item.size, item.capacity, source))
    return out


def _item_changes(an: "Analysis", env: str, disposable: bool, old: SideItem, name: str, kind: str, size: str | None,
                  cap: Mapping[str, Any], source: str) -> Iterator[Diagnostic]:
    file, rng = _anchor(an, name)
    was = old.capacity
    if kind == "postgres":
        if was.get("flavor") and cap.get("flavor") and was["flavor"] != cap["flavor"]:
            yield _diag(file, rng, "RW193",
                        f"{env}: `{name}` flavor {was['flavor']} -> {cap['flavor']} (against {source}) is another database, created empty" + (
                            "; allowed in this disposable environment" if disposable else
                            "; refused outside disposable environments: add a second resource with the new flavor and migrate "
                            "(docs/deploy.md, \"Switching flavor\")"),
                        {"environment": env, "name": name, "from": was["flavor"], "to": cap["flavor"]},
                        Severity.WARNING if disposable else None)
            return  # another database: its storage and version start afresh
        before_gb, after_gb = was.get("storage_gb"), cap.get("storage_gb")
        gb0, gb1 = _gb(before_gb), _gb(after_gb)
        if cap.get("flavor") != "aurora" and gb0 is not None and gb1 is not None and gb1 < gb0:
            yield _diag(file, rng, "RW191",
                        f"{env}: `{name}` allocated storage {before_gb} -> {after_gb} GB (size {old.size} -> {size}, "
                        f"against {source}): RDS storage can only grow; keep the size or set `engine.storage_gb: {before_gb}`",
                        {"environment": env, "name": name, "from_gb": before_gb, "to_gb": after_gb})
    what = getattr(kinds.get(kind), "upgraded_in_place_by", None)
    if what is not None:
        v0, v1 = _version(was.get("engine_version")), _version(cap.get("engine_version"))
        if v0 is not None and v1 is not None and v1 < v0:
            yield _diag(file, rng, "RW192",
                        f"{env}: `{name}` engine version {was.get('engine_version')} -> {cap.get('engine_version')} (against {source}): "
                        f"{what} upgrades in place and never downgrades; restore a snapshot into a new resource instead",
                        {"environment": env, "name": name, "from": str(was.get("engine_version")), "to": str(cap.get("engine_version"))})


def side_of_deployed(doc: Any) -> PlanSide:
    """A side from a deployed plan document: ``plan --format json`` output, or a reviewed plan
    record (``{"format_version": 1, "plan_digest", "plan": {"product", "region", "environment"}}``,
    docs/deploy.md "The reviewed plan"). Raises :class:`PlanDocumentError`."""
    if isinstance(doc, Mapping) and isinstance(doc.get("plan"), Mapping) and "plan_digest" in doc:
        plan = doc["plan"]
        env = plan.get("environment")
        if not isinstance(env, Mapping):
            raise PlanDocumentError("plan.environment: expected an object")
        doc = {"format_version": FORMAT_VERSION, "product": plan.get("product"), "region": plan.get("region"), "environments": [env]}
    return side_of_json(doc)


def _read_json(path: str) -> Any:
    return read_json(path, limit=MAX_RECORD_BYTES, parse_float=Decimal)


def deployed_from_records(product_dir: str) -> tuple[PlanSide, list[str]] | None:
    """The deployed plan from the embedded backend's records under ``<product_dir>/.runway/``:
    per environment, the newest receipt of a succeeded ``up`` (``receipts/<env>/*.json``) and
    the reviewed plan stored under its ``plan_digest`` (``plans/<env>/<digest>.json``). Returns
    (the side, the record paths read) or None when no environment has both. Unreadable or
    malformed records are skipped (a record is evidence, never an instruction)."""
    receipts = os.path.join(product_dir, ".runway", "receipts")
    plans = os.path.join(product_dir, ".runway", "plans")
    try:
        envs = sorted(os.listdir(receipts))
    except OSError:
        return None
    region: str | None = None
    product: str | None = None
    found = []
    read: list[str] = []
    for env in envs:
        try:
            names = sorted((n for n in os.listdir(os.path.join(receipts, env)) if n.endswith(".json")), reverse=True)[:MAX_RECEIPTS]
        except OSError:
            continue
        for n in names:
            try:
                receipt = _read_json(os.path.join(receipts, env, n))
            except (OSError, ValueError):
                continue
            if not isinstance(receipt, dict) or receipt.get("command") != "up" or receipt.get("outcome") != "succeeded":
                continue
            digest = receipt.get("plan_digest")
            if not isinstance(digest, str) or not all(c in "0123456789abcdef" for c in digest) or len(digest) != 64:
                break
            path = os.path.join(plans, env, f"{digest}.json")
            try:
                side = side_of_deployed(_read_json(path))
            except (OSError, ValueError, ArithmeticError, PlanDocumentError):
                # ArithmeticError: decimal's Overflow/InvalidOperation on a number no bound has
                # caught yet (a `1e99999999` cap was exit 70 here: tenth adversary C12). A
                # record is evidence, never an instruction: skipped.
                break
            if len(side.environments) == 1 and side.environments[0].name == env:
                found.append(side.environments[0])
                region, product = region or side.region, product or side.product
                read.append(path)
            break
    if not found:
        return None
    return PlanSide(product, region, tuple(found)), read


def add_diagnostics(an: "Analysis", diags: list[Diagnostic]) -> None:
    """Add ``diags`` to ``an.diagnostics`` under their files (in place)."""
    for d in diags:
        an.diagnostics.setdefault(d.file, []).append(d)


def with_recorded_changes(an: "Analysis") -> "Analysis":
    """``an`` with RW190-RW193 against the plan its product's ``.runway/`` records say was last
    deployed (:func:`deployed_from_records`), when they hold one; what the editor and ``check``
    without ``--deployed`` run. Never raises for a missing or broken record."""
    if an.spec is None:
        return an
    try:
        found = deployed_from_records(os.path.dirname(an.root_file))
    except (OSError, ValueError):
        found = None
    if found is not None:
        add_diagnostics(an, refused_changes(an, found[0], "the last deployed plan (.runway/ records)"))
    return an


__all__ = ["CHANGE_CODES", "add_diagnostics", "deployed_from_records", "refused_changes", "side_of_deployed", "with_recorded_changes"]
