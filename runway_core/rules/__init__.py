"""The semantic rules of the runway format (docs/format.md), one small function each, with
stable codes, and their ordered registry.

Each rule takes the :class:`~runway_core.facts.Analysis` (trees, models, spec, plans) and
yields :class:`~runway_core.diagnostics.Diagnostic` values. Codes and texts are documented
in docs/diagnostics.md (:data:`runway_core.diagnostics.CODES`; a test keeps them in sync).
Loader codes (RW001-RW010) and schema codes (RW100-RW102) come from :mod:`runway_core.yamlsrc`
and :mod:`runway_core.analysis`.

One module per family of rules (:mod:`.naming`, :mod:`.kinds`, :mod:`.workloads`,
:mod:`.secrets`, :mod:`.references`, :mod:`.costs`); :data:`RULES` is the order they run
in, which is the order of their diagnostics at one position. A new rule is a function in
its family's module and a line here.
"""

from __future__ import annotations

from ..names import ENVIRONMENT_ITEM_NAMES
from ._common import Rule
from .costs import caps, region, verdict_margin
from .kinds import kinds, sizes, undeclared_environments, unpriced_kinds
from .naming import format_version, name_clash, names, shared_collision
from .references import unused, uses
from .secrets import secret_looking_env, secret_looking_sizes, variable_names
from .workloads import duplicate_entries, env_and_secrets, health_limits, image_digest, injected_collisions, reasons

RULES: tuple[Rule, ...] = (
    format_version,
    names,
    shared_collision,
    name_clash,
    kinds,
    unpriced_kinds,
    sizes,
    undeclared_environments,
    image_digest,
    reasons,
    injected_collisions,
    variable_names,
    duplicate_entries,
    env_and_secrets,
    health_limits,
    secret_looking_env,
    secret_looking_sizes,
    uses,
    unused,
    region,
    caps,
    verdict_margin,
)

#: The rules a lone member runway (no root above lists it) is checked with: shape only.
LONE_MEMBER_RULES: tuple[Rule, ...] = (format_version, names, kinds)

__all__ = ["RULES", "LONE_MEMBER_RULES", "Rule", "ENVIRONMENT_ITEM_NAMES"]
