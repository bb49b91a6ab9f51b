"""The names RW111 reserves are one list (`runway_core.names.reserved_name`), and the rule,
the rename and the "Create resource" fix agree on it (ninth adversary L12, L10).

A rename to `alb` or `service-discovery` was accepted (RW111 afterwards) while one to
`shared-cache` was refused: the rename knew only the `shared-<kind>` half of the list."""

from __future__ import annotations

import pytest

from runway_core.ide import navigation as navigate
from runway_core.kinds import RESOURCE_KINDS
from runway_core.names import ENVIRONMENT_ITEM_NAMES, reserved_name
from runway_core.positions import Position
from tests.core.test_fixes import ROOT, analyse, diags

RESERVED = ["alb", "service-discovery", *(f"shared-{k}" for k in RESOURCE_KINDS)]
FREE = ["albs", "service-discovery-1", "shared-thing", "shared-x1", "shared", "my-alb"]


def _runway(name: str) -> str:
    return (
        "runway: 1\nproduct: shop\nenvironments:\n  dev: {}\n"
        f"resources:\n  {name}:\n    kind: queue\n"
    )


def test_the_list_is_the_shared_kinds_and_the_environment_items():
    assert set(ENVIRONMENT_ITEM_NAMES) == {"alb", "service-discovery"}
    assert all(reserved_name(n) for n in RESERVED)
    assert not any(reserved_name(n) for n in FREE)


@pytest.mark.parametrize("name", RESERVED + FREE)
def test_rw111_flags_exactly_the_reserved_names(catalog, name):
    an = analyse(_runway(name), catalog)
    assert bool(diags(an, "RW111")) == (reserved_name(name) is not None)


@pytest.mark.parametrize("name", RESERVED + FREE)
def test_a_rename_is_refused_exactly_for_the_reserved_names(catalog, name):
    an = analyse(_runway("jobs"), catalog)
    got = navigate.rename_at(an, ROOT, Position(5, 3), name)
    if reserved_name(name) is None:
        assert isinstance(got, dict) and got, got
    else:
        assert isinstance(got, str) and f"`{name}` is the name of {reserved_name(name)} (RW111)" in got


@pytest.mark.parametrize("name", RESERVED + FREE)
def test_create_resource_is_offered_exactly_for_the_free_names(catalog, name):
    """Ninth adversary L10: "Create resource `alb`" for `uses: [alb]` made a resource RW111
    refuses; no create fix is offered for a reserved name, as none is for `My_DB`."""
    from runway_core.ide.fixes import fixes_for

    text = (
        "runway: 1\nproduct: shop\nenvironments:\n  dev: {}\nresources:\n  jobs:\n    kind: queue\n"
        "workloads:\n  api:\n    image: registry.example.com/api@sha256:" + "0" * 64 + "\n"
        f"    port: 8080\n    health: {{path: /health}}\n    uses: [jobs, {name}]\n    reason: \"no-managed-fit: our API\"\n"
    )
    an = analyse(text, catalog)
    found = [d for d in diags(an, "RW150") if (d.data or {}).get("name") == name]
    if not found:
        assert name.startswith("shared-") and reserved_name(name), [(d.code, d.message) for d in an.all_diagnostics()]
        return  # a use of an implicit pool by its name: nothing unknown, no fix asked
    creates = [f.title for f in fixes_for(an, ROOT, found) if f.title.startswith("Create resource")]
    assert bool(creates) == (reserved_name(name) is None), creates
