"""What the Pulumi engine reported, as data: the engine events of an Automation API operation
(``on_event``) read into :class:`PreviewSummary`, :class:`UpSummary`, :class:`DriftReport` and
:class:`DestroySummary` (used by :mod:`deploy_engine.automation`).

- **Steps**: a preview's resource steps, except ``same`` and the stack itself; the URNs an
  update finished (``ResOutputsEvent``) and those it created or replaced.
- **Drift**: ``pulumi refresh --preview-only`` (``Stack.preview_refresh``): what the cloud
  reports differs from the state, i.e. resources changed or deleted outside Pulumi. Each
  refresh step is classified as the engine does (``RefreshStep.ResultOp`` in pulumi/pulumi
  ``pkg/resource/deploy/step.go``): no new state -> ``deleted``; changed keys -> ``updated``.

Reads event objects by attribute only: imports no pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

#: Parts of the logical names (``<env>-<resource>-<part>``) of the resources holding a
#: database's password: ``deploy_engine.program.PASSWORD_INPUTS`` (a test keeps them equal).
PASSWORD_HOLDER_PARTS = ("instance", "cluster", "proxy-secret-version")


@dataclass(frozen=True)
class Step:
    """One resource step of a preview: URN, type token and operation (``create``, ``update``...)."""

    urn: str
    type: str
    op: str


@dataclass(frozen=True)
class PreviewSummary:
    changes: Mapping[str, int]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class UpSummary:
    """``resources`` are the URNs the engine reported for this update (every resource of the
    stack); ``created`` those it created or replaced (a step ``create``, ``replace`` or
    ``create-replacement``)."""

    changes: Mapping[str, int]
    resources: tuple[str, ...]
    outputs: Mapping[str, Any] = field(default_factory=dict)
    created: tuple[str, ...] = ()


@dataclass(frozen=True)
class DriftItem:
    """A resource changed outside Pulumi. ``change`` is ``updated`` or ``deleted``; ``properties`` are names only."""

    urn: str
    type: str
    change: str
    properties: tuple[str, ...] = ()


@dataclass(frozen=True)
class DriftReport:
    items: tuple[DriftItem, ...]
    checked: int


def _op(value: Any) -> str:
    return str(getattr(value, "value", value) or "")


def _metadata(event: Any) -> tuple[Any, bool]:
    """(step metadata, is_outputs_event) of a resource event, or (None, False)."""
    pre = getattr(event, "resource_pre_event", None)
    if pre is not None:
        return pre.metadata, False
    out = getattr(event, "res_outputs_event", None)
    if out is not None:
        return out.metadata, True
    return None, False


def _state_outputs(state: Any) -> Any:
    return getattr(state, "outputs", None) if state is not None else None


def classify_refresh_step(md: Any) -> DriftItem | None:
    """A refresh step as drift, or None when the resource matches its state.

    Mirrors ``RefreshStep.ResultOp``: no new state -> deleted; changed keys (``diffs`` or
    ``detailed_diff``), or different outputs when the engine sent no diff -> updated. Steps
    already reported as ``update``/``delete`` (newer engines) are taken as they are.
    """
    op = _op(md.op)
    urn = md.urn
    rtype = md.type
    if rtype == "pulumi:pulumi:Stack" or rtype.startswith("pulumi:providers:"):
        return None
    if op in ("delete", "discard"):
        return DriftItem(urn, rtype, "deleted")
    if op not in ("refresh", "update"):
        return None
    if op == "refresh" and md.new is None and md.old is not None:
        return DriftItem(urn, rtype, "deleted")
    keys = tuple(sorted(set(md.diffs or ()) | set((md.detailed_diff or {}).keys())))
    if keys:
        return DriftItem(urn, rtype, "updated", keys)
    if op == "update":
        return DriftItem(urn, rtype, "updated")
    old, new = _state_outputs(md.old), _state_outputs(md.new)
    if old is not None and new is not None and old != new:
        changed = tuple(sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)))
        return DriftItem(urn, rtype, "updated", changed)
    return None


def drift_from_events(events: Sequence[Any]) -> DriftReport:
    """Summarise the engine events of ``refresh --preview-only`` (one item per URN, last wins)."""
    found: dict[str, DriftItem] = {}
    checked: set[str] = set()
    for ev in events:
        md, _ = _metadata(ev)
        if md is None or not getattr(md, "urn", None):
            continue
        if md.type != "pulumi:pulumi:Stack" and not md.type.startswith("pulumi:providers:"):
            checked.add(md.urn)
        item = classify_refresh_step(md)
        if item is not None:
            found[md.urn] = item
    return DriftReport(tuple(found[u] for u in sorted(found)), len(checked))


def steps_from_events(events: Sequence[Any]) -> tuple[Step, ...]:
    """Resource steps of a preview, except ``same`` and the stack itself, in engine order."""
    seen: dict[str, Step] = {}
    for ev in events:
        md, is_out = _metadata(ev)
        if md is None or is_out or md.type == "pulumi:pulumi:Stack":
            continue
        op = _op(md.op)
        if op != "same":
            seen[md.urn] = Step(md.urn, md.type, op)
    return tuple(seen.values())


#: Step operations that create a resource (a new one, or the new half of a replacement).
CREATING_OPS = frozenset({"create", "replace", "create-replacement"})


def created_from_events(events: Sequence[Any]) -> tuple[str, ...]:
    """URNs of the resources an update created or replaced (pre-events with a creating op), sorted."""
    urns = {md.urn for md, is_out in (_metadata(e) for e in events) if md is not None and not is_out and md.urn and _op(md.op) in CREATING_OPS}
    return tuple(sorted(urns))


def password_holders(environment: str, resource: str) -> tuple[str, ...]:
    """Logical names of the resources holding ``resource``'s admin password: a step that creates
    one of them sets the password passed to the program."""
    return tuple(f"{environment}-{resource}-{part}" for part in PASSWORD_HOLDER_PARTS)


def urns_from_events(events: Sequence[Any]) -> tuple[str, ...]:
    """Every URN the engine finished (``ResOutputsEvent``), sorted."""
    urns = {md.urn for md, is_out in (_metadata(e) for e in events) if md is not None and is_out and md.urn}
    return tuple(sorted(urns))


def change_counts(raw: Mapping[Any, int] | None) -> dict[str, int]:
    return {_op(k): int(v) for k, v in (raw or {}).items()}


@dataclass(frozen=True)
class DestroySummary:
    """What ``pulumi destroy`` did: operation counts and the URNs it reached."""

    changes: Mapping[str, int]
    resources: tuple[str, ...]


__all__ = [
    "CREATING_OPS", "PASSWORD_HOLDER_PARTS", "DestroySummary", "DriftItem", "DriftReport", "PreviewSummary", "Step",
    "UpSummary", "change_counts", "classify_refresh_step", "created_from_events", "drift_from_events",
    "password_holders", "steps_from_events", "urns_from_events",
]
