"""Every name and value check refuses a trailing line break (ninth adversary L13, L11).

Python's ``$`` matches before a final ``\\n`` too, so ``re.match(r"^[a-z]+$", "shop\\n")``
holds: a ``product: |`` block scalar (value ``"shop\\n"``), a quoted ``"dev\\n"``, an
``image`` digest with its line break, or a client's rename ``newName`` ending in ``\\n``
passed every check and reached the plan, AWS names, SSM paths and Pulumi stacks. Every check
tests a whole value with ``fullmatch`` now: this module sweeps each validator with a trailing
``"\\n"`` and ``"\\r\\n"``, and reads the three packages' source so that no ``$``-anchored
pattern is used with ``.match`` as a check again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from runway_core import names
from runway_core.catalog import is_region_code
from tests.core.test_fixes import analyse, diags

REPO = Path(__file__).resolve().parents[2]
BREAKS = ("\n", "\r\n")
DIGEST = "registry.example.com/api@sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("brk", BREAKS, ids=["lf", "crlf"])
@pytest.mark.parametrize(
    ("pattern", "good"),
    [
        (names.DNS_LABEL, "shop"),
        (names.NAME_LABEL, "main-db"),
        (names.DIGEST, DIGEST),
        (names.UPPER_SNAKE, "DB_PASSWORD"),
        (names.ENV_NAME, "log_level"),
    ],
    ids=["dns-label", "name-label", "digest", "upper-snake", "env-name"],
)
def test_each_name_pattern_refuses_a_trailing_line_break(pattern, good, brk):
    assert pattern.fullmatch(good)
    assert not pattern.fullmatch(good + brk)
    # The JSON Schema states the pattern as it is: ECMA-262's `$` (no `m` flag) is the end.
    assert pattern.pattern.startswith("^") and pattern.pattern.endswith("$")


def _runway(product: str = "shop", env: str = "dev", res: str = "db", wl: str = "api", image: str = DIGEST,
            var: str = "LOG_LEVEL", secret: str = "STRIPE_KEY") -> str:
    q = lambda s: '"' + s.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'  # noqa: E731
    return (
        f"runway: 1\nproduct: {q(product)}\nenvironments:\n  {q(env)}: {{}}\n"
        f"resources:\n  {q(res)}:\n    kind: postgres\n"
        f"workloads:\n  {q(wl)}:\n    image: {q(image)}\n    port: 8080\n    health: {{path: /health}}\n"
        f"    env: {{{q(var)}: debug}}\n    secrets: [{q(secret)}]\n    uses: [{q(res)}]\n"
        "    reason: \"no-managed-fit: our API\"\n"
    )


def test_the_sweep_runway_is_clean_without_line_breaks(catalog):
    an = analyse(_runway(), catalog)
    assert not [(d.code, d.message) for d in an.all_diagnostics() if d.severity.name == "ERROR"]


@pytest.mark.parametrize("brk", BREAKS, ids=["lf", "crlf"])
@pytest.mark.parametrize(
    ("field", "code", "shown"),
    [
        ("product", "RW110", "product `shop{}`"),
        ("env", "RW110", "environment name `dev{}`"),
        ("res", "RW110", "resource name `db{}`"),
        ("wl", "RW110", "workload name `api{}`"),
        ("image", "RW140", "it starts or ends with a space or a line break"),
        ("var", "RW144", "`LOG_LEVEL{}` is not a valid environment variable name"),
        ("secret", "RW144", "this `secrets` item is not a name"),
    ],
)
def test_each_name_with_a_trailing_line_break_is_an_error(catalog, field, code, shown, brk):
    good = {"product": "shop", "env": "dev", "res": "db", "wl": "api", "image": DIGEST, "var": "LOG_LEVEL", "secret": "STRIPE_KEY"}[field]
    an = analyse(_runway(**{field: good + brk}), catalog)
    found = diags(an, code)
    escaped = brk.encode("unicode_escape").decode("ascii")
    assert any(shown.format(escaped) in d.message for d in found), [d.message for d in an.all_diagnostics()]
    # The message keeps to one line: the name's line break is written as `\n`.
    assert all("\n" not in d.message and "\r" not in d.message for d in found)


def test_a_block_scalar_product_is_refused(catalog):
    # `product: |` keeps the block's final line break: the value is "shop\n".
    text = _runway().replace('product: "shop"\n', "product: |\n  shop\n")
    an = analyse(text, catalog)
    (d,) = diags(an, "RW110")
    assert d.message.startswith("product `shop\\n` must be a DNS label")


@pytest.mark.parametrize("brk", BREAKS, ids=["lf", "crlf"])
def test_the_deploy_and_catalogue_checks_refuse_a_trailing_line_break(brk):
    from deploy_engine.cli.output import own_descriptor
    from deploy_engine.infisical import InfisicalConfigError, check_host
    from deploy_engine.pricelist.selectors import usage_location, usage_matches
    from deploy_engine.records.export import key_problem
    from deploy_engine.records.kinds import timed_name_problem
    from deploy_engine.records.store import _segment
    from deploy_engine.settings import NetworkSettings, SettingsError

    assert is_region_code("eu-west-1") and not is_region_code("eu-west-1" + brk)
    assert usage_location("EUC1-Requests") == "EUC1" and usage_location("EUC1" + brk + "-Requests") is None
    assert usage_matches("EU-InstanceUsage:x", "InstanceUsage:x") and not usage_matches("EU" + brk + "-InstanceUsage:x", "InstanceUsage:x")
    assert key_problem("p/a.json", "p/") is None and key_problem("p/a.json" + brk, "p/") is not None
    stamp = "20260101T000000.000000Z.json"
    assert timed_name_problem(stamp) is None and timed_name_problem(stamp + brk) is not None
    assert _segment("shop", "product") == "shop"
    with pytest.raises(ValueError):
        _segment("shop" + brk, "product")
    assert check_host("https://vault.example.com") == "https://vault.example.com"
    for host in ("https://vault.example.com" + brk, "https://vault.example.com/x" + brk, "https://vault" + brk + ".example.com"):
        with pytest.raises(InfisicalConfigError):
            check_host(host)
    assert own_descriptor("/dev/fd/1") == 1 and own_descriptor("/dev/fd/1" + brk) is None  # a file of that name, not descriptor 1
    good = dict(vpc_id="vpc-0123abcd", private_subnet_ids=("subnet-0123abcd", "subnet-4567abcd"))
    NetworkSettings(**good)
    for field, value in (
        ("vpc_id", "vpc-0123abcd"),
        ("private_subnet_ids", ("subnet-0123abcd", "subnet-4567abcd")),
        ("public_domain", "shop.example.com"),
        ("certificate_arn", "arn:aws:acm:eu-west-1:123456789012:certificate/abc-123"),
        ("allowed_account_ids", ("123456789012",)),
        ("health_probe_image", "busybox@sha256:" + "0" * 64),
    ):
        bad = tuple(v + brk for v in value) if isinstance(value, tuple) else value + brk
        with pytest.raises(SettingsError):
            NetworkSettings(**{**good, field: bad})
    with pytest.raises(SettingsError):
        NetworkSettings(**good, public_domain="shop.example.com", hosted_zone_id="Z123ABC" + brk)


# --- no `$`-anchored pattern is used with `.match` -----------------------------------------

#: `$`-anchored patterns used with `.match`/`.search` on purpose, each with why: a line of a
#: file (no line break in it), or a redaction, where matching more is the safe side.
ALLOWED = {
    ("runway_core/ide/fixes/_source.py", "_BLOCK_HEADER"): "a line's text, without its line break",
    ("runway_core/ide/completion/__init__.py", "_WRITTEN_VALUE"): "a line's text, without its line break",
    ("runway_core/ide/_usage.py", "_KEY"): "a line of the usage file, split on line breaks",
    ("runway_core/analysis/usage.py", "_KEY_LINE"): "a line of the usage file, split on line breaks",
    ("deploy_engine/receipts.py", "_ENDPOINT_VARIABLE"): "redaction: a variable to scrub, more is safer",
    ("deploy_engine/cli/sides.py", "_TREE_ENTRY"): "DOTALL: the path takes every byte to the end",
}


def _dollar_patterns(tree: ast.Module, imported: dict[str, str]) -> dict[str, str]:
    out = dict(imported)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
            call, target = node.value, node.targets[0]
            if (isinstance(target, ast.Name) and isinstance(call.func, ast.Attribute) and call.func.attr == "compile"
                    and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, (str, bytes))):
                pat = call.args[0].value
                pat = pat.decode("latin-1") if isinstance(pat, bytes) else pat
                if pat.endswith("$") and not pat.endswith("\\$"):
                    out[target.id] = pat
    return out


def test_no_dollar_anchored_pattern_is_tested_with_match():
    name_patterns = {n: getattr(names, n).pattern for n in ("DNS_LABEL", "NAME_LABEL", "DIGEST", "UPPER_SNAKE", "ENV_NAME")}
    offenders = []
    for pkg in ("runway_core", "runway_lsp", "deploy_engine"):
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            pats = _dollar_patterns(tree, name_patterns)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "match"):
                    continue
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id in pats and (rel, owner.id) not in ALLOWED:
                    offenders.append(f"{rel}:{node.lineno} {owner.id}.match")
                elif (isinstance(owner, ast.Name) and owner.id == "re" and node.args and isinstance(node.args[0], ast.Constant)
                        and isinstance(node.args[0].value, str) and re.search(r"(?<!\\)\$$", node.args[0].value)):
                    offenders.append(f"{rel}:{node.lineno} re.match({node.args[0].value!r})")
    assert not offenders, "use .fullmatch (a `$` matches before a final line break):\n" + "\n".join(offenders)
