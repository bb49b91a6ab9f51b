"""The planner: one pure function from (runway, catalogue, environment) to a plan.

docs/format.md, "Plan (data, runs nothing)": per environment, every resource and workload
(declared or implicit) with kind, size, concrete capacity, monthly estimate with line items,
consumers and the variable names they receive; the total, the cap and the verdict. The same
plan feeds the editor, the CLI and the Pulumi program: there is one planner.

Money is ``decimal.Decimal`` in USD. Each line item is unit price x quantity (730 hours a
month, docs/catalog.md), rounded half-up to cents; item and environment totals are sums of the
rounded line items, so every printed table adds up to the cent. Free tiers are ignored
(estimates are conservative). A unit price missing for the region is reported in
``missing_prices`` and never replaced by another region's price.

Must not import pygls, lsprotocol or pulumi.

The package: :mod:`~runway_core.planner.spec` (the planner's validated input and the
injected variable names), :mod:`~runway_core.planner.items` (the plan's value types),
:mod:`~runway_core.planner.pricing` (line items of one entry from the catalogue),
:mod:`~runway_core.planner.plan` (one environment's plan),
:mod:`~runway_core.planner.verdict` (the one verdict rule: the planner's and the one every
view shows) and :mod:`~runway_core.planner.output` (the documented JSON and the receipt digest).
"""

from .items import REFUSED_VERDICTS, VERDICTS, EnvironmentPlan, ItemPlan, LineItem, Plan, cap_unchecked_text, refresh_command
from .output import FORMAT_VERSION, environment_json, hide_secret_env, plan_digest, plan_json
from .plan import clear_memos, plan_all, plan_environment
from .pricing import entry_cost
from .verdict import SHOWN_VERDICTS, cap_verdict, not_estimated, shown_fields, shown_verdict
from .spec import (
    VARIABLES,
    ConsumerSpec,
    PLATFORMS,
    EntrySpec,
    DISPOSABLE_BY_DEFAULT,
    EnvSpec,
    is_disposable,
    RunwaySpec,
    default_environments,
    engine_defaults,
    env_prefix,
    injected_variables,
    scale_map,
    size_map,
)

__all__ = [
    "SHOWN_VERDICTS",
    "cap_verdict",
    "not_estimated",
    "shown_fields",
    "shown_verdict",
    "FORMAT_VERSION",
    "VARIABLES",
    "DISPOSABLE_BY_DEFAULT",
    "EnvSpec",
    "is_disposable",
    "PLATFORMS",
    "EntrySpec",
    "ConsumerSpec",
    "RunwaySpec",
    "LineItem",
    "ItemPlan",
    "EnvironmentPlan",
    "VERDICTS",
    "REFUSED_VERDICTS",
    "cap_unchecked_text",
    "refresh_command",
    "Plan",
    "plan_environment",
    "entry_cost",
    "plan_all",
    "plan_json",
    "hide_secret_env",
    "plan_digest",
    "environment_json",
    "clear_memos",
    "injected_variables",
    "env_prefix",
    "engine_defaults",
    "default_environments",
    "size_map",
    "scale_map",
]
