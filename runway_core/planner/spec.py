"""The planner's input: a runway already validated and normalised (:class:`RunwaySpec`),
and the variable names each consumer of an entry receives (docs/format.md, "Uses and
injected variables").

Built by :func:`runway_core.analysis.analyze` from the models, and by completion from a
file still being typed (with :func:`size_map` / :func:`scale_map`, the one reading of
``size:`` and ``scale:`` values for both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from ..kinds import REGISTRY, WORKLOAD_PLATFORMS
from ..model import DEFAULT_CAPS, DEFAULT_ENVIRONMENTS, ENGINE_MODELS
from ..usage import UsageValue

#: Injected variable suffixes per kind (docs/format.md, "Uses and injected variables"): each
#: kind's declaration (:attr:`runway_core.kinds.Kind.variables`).
VARIABLES: Mapping[str, tuple[str, ...]] = MappingProxyType({k.name: k.variables for k in REGISTRY})


def env_prefix(name: str) -> str:
    """``main-db`` -> ``MAIN_DB`` (docs/format.md: names turn into env-var prefixes)."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


@lru_cache(maxsize=16384)  # pure; asked for every item of every environment (issue 6)
def injected_variables(name: str, kind: str) -> tuple[str, ...]:
    """Variable names a consumer of resource/workload ``name`` of ``kind`` receives."""
    prefix = env_prefix(name)
    return tuple(f"{prefix}_{s}" for s in VARIABLES.get(kind, ()))


@dataclass(frozen=True)
class EnvSpec:
    """One environment: cap in USD per month (None = no cap) and shared pool sizes."""

    name: str
    cap: Decimal | None
    cap_source: str  # "set" | "default" | "none" | "invalid" (written but RW100: no cap, no verdict against it)
    shared: Mapping[str, str] = field(default_factory=dict)
    #: ``environments.<env>.disposable``; None: by name (:data:`DISPOSABLE_BY_DEFAULT`).
    disposable: bool | None = None
    #: With ``cap_source`` ``invalid``: ``(code, why)``, the diagnostic that makes the cap
    #: unreadable and the key it blames (``("RW102", "`environments.dev.limits.currency` ...")``).
    cap_error: tuple[str, str] | None = None

    @property
    def is_disposable(self) -> bool:
        return is_disposable(self.name, self.disposable)


#: Environments that are disposable unless ``disposable: false`` says otherwise (docs/format.md,
#: "Disposable environments"): no deletion protection, no final snapshot, no ``protect``.
DISPOSABLE_BY_DEFAULT = frozenset({"dev"})


def is_disposable(name: str, written: bool | None) -> bool:
    """Whether environment ``name`` is disposable: ``written`` (its ``disposable`` key) when
    given, else whether it is named in :data:`DISPOSABLE_BY_DEFAULT`."""
    return bool(written) if written is not None else name in DISPOSABLE_BY_DEFAULT


#: A workload's ``platform`` -> (ECS ``runtimePlatform.cpuArchitecture``, Fargate price-key part):
#: the workload's declaration in the kind registry (:data:`runway_core.kinds.WORKLOAD_PLATFORMS`).
PLATFORMS: Mapping[str, tuple[str, str]] = WORKLOAD_PLATFORMS


@dataclass(frozen=True)
class EntrySpec:
    """A resource or workload after normalisation.

    ``kind`` is a resource kind or ``"workload"``; ``sizes`` maps env -> size (missing env =
    small); ``scales`` env -> task count (workloads; missing = 1); ``engine`` the validated
    engine options as a dict (defaults filled in); ``implicit`` marks ``shared-<kind>``.
    """

    name: str
    kind: str
    sizes: Mapping[str, str]
    default_size: str = "small"
    scales: Mapping[str, int] = field(default_factory=dict)
    default_scale: int = 1
    engine: Mapping[str, Any] = field(default_factory=dict)
    implicit: bool = False
    origin: str = "declared"
    # workload only
    image: str | None = None
    port: int | None = None
    health: Mapping[str, Any] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    expose: str = "internal"
    platform: str = "linux/arm64"


    def size_in(self, env: str) -> str:
        return self.sizes.get(env, self.default_size)

    def scale_in(self, env: str) -> int:
        return self.scales.get(env, self.default_scale)


@dataclass(frozen=True)
class ConsumerSpec:
    """A member or workload that uses entries (``type`` is "member" or "workload")."""

    name: str
    type: str
    uses: tuple[str, ...]


@dataclass(frozen=True)
class RunwaySpec:
    """Everything the planner needs, already validated (see :func:`analysis.analyze`)."""

    product: str
    region: str
    environments: tuple[EnvSpec, ...]
    entries: Mapping[str, EntrySpec]
    consumers: tuple[ConsumerSpec, ...]
    #: The usage file's quantities: env -> item (or ``runway_core.usage.NETWORK``) -> usage
    #: key -> value (docs/format.md, "Usage file"); empty without one.
    usage: Mapping[str, Mapping[str, Mapping[str, UsageValue]]] = field(default_factory=dict)
    #: ``(label, why)`` of every resource or workload written in the runway that the analysis
    #: cannot price: dropped by validation (RW100/RW101/RW102), of an unknown or reserved kind
    #: (RW120/RW121), a workload named like a resource (RW112), or a definition hidden by a
    #: duplicate key (RW002). Every environment's plan counts them as not estimated (the
    #: total a lower bound, the shown verdict ``invalid``, never ``ok``: fail closed).
    unpriced: tuple[tuple[str, str], ...] = ()

    def usage_of(self, env: str, item: str) -> Mapping[str, UsageValue]:
        """The usage file's quantities for ``item`` in ``env`` (empty: the catalogue's assumptions)."""
        return self.usage.get(env, {}).get(item, {}) if self.usage else {}

    def env(self, name: str) -> EnvSpec | None:
        for e in self.environments:
            if e.name == name:
                return e
        return None


def default_environments() -> tuple[EnvSpec, ...]:
    return tuple(
        EnvSpec(n, DEFAULT_CAPS.get(n), "default" if n in DEFAULT_CAPS else "none") for n in DEFAULT_ENVIRONMENTS
    )


def engine_defaults(kind: str, engine: Mapping[str, Any] | None) -> dict[str, Any]:
    """Engine options with defaults; invalid options fall back to defaults (rules report them)."""
    model = ENGINE_MODELS.get(kind)
    if model is None:
        return dict(engine or {})
    try:
        return model.model_validate(engine or {}).model_dump()
    except Exception:  # noqa: BLE001 - shape errors are diagnostics elsewhere; plan with defaults
        return model.model_validate({}).model_dump()


def size_map(spec: Any) -> tuple[dict[str, str], str]:
    """``(sizes per environment, default size)`` of a ``size:`` value: one size name for
    every environment, or a map ``{environment: size}`` (entries that are not a size name are
    left out; an environment the map does not name runs ``small``). Anything else (absent,
    a number, a list) is ``({}, "small")``: the model and RW100/RW130 report it.

    Used on validated models (the analysis' spec) and on raw YAML values (completion, a
    file still being typed): the same reading for both."""
    if isinstance(spec, str):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(k, str) and isinstance(v, str)}, "small"
    return {}, "small"


def _task_count(n: Any) -> bool:
    """A valid task count: an int (not a bool) from 0 to 1000 (the model's own bound)."""
    return isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 1000


def scale_map(spec: Any) -> tuple[dict[str, int], int]:
    """``(task counts per environment, default count)`` of a ``scale:`` value: one count for
    every environment, or a map ``{environment: count}``; counts that are not 0 to 1000 (or
    a boolean) are left out, and the default is 1 task. Anything else is ``({}, 1)``."""
    if _task_count(spec):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(k, str) and _task_count(v)}, 1
    return {}, 1
