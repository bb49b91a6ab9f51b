"""Help text of each diagnostic code, for SARIF rules (``help.text``, ``fullDescription``).

The "Triggered by" and "Fix" columns of the summary table in docs/diagnostics.md, which is not
shipped with the package: a test (tests/deploy/test_ci_formats.py) keeps this table equal to that
page, and names the code whose row changed. RW120's list of kinds is the registry's
(``runway_core.kinds.RESOURCE_KINDS``), which the page's row names too. Must not import pulumi.
"""

from __future__ import annotations

from runway_core.kinds import RESOURCE_KINDS

#: Code -> (triggered by, fix), as in docs/diagnostics.md's summary table.
RULE_HELP: dict[str, tuple[str, str]] = {
    "RW001": ("text YAML cannot parse; an alias to no anchor; bytes that are not UTF-8", "close the bracket or quote; save as UTF-8"),
    "RW002": ("the same key twice in one mapping", "keep one of them"),
    "RW003": ("a `---` after the first document", "one runway per file; remove the second document"),
    "RW004": ("nothing but whitespace, comments or document markers", "write at least `runway: 1` (and `product:` in a root)"),
    "RW005": ("aliases that expand past 100,000 nodes", "use fewer nested aliases"),
    "RW006": ("a tab where YAML expects indentation", "indent with spaces"),
    "RW007": ("the file starts with U+FEFF", "save as UTF-8 without BOM"),
    "RW008": ("any tag but YAML's core tags", "write the plain value"),
    "RW009": ("an explicit `?` key or a flow mapping as key", "use a plain name as key"),
    "RW010": ("more than 64 nested levels", "flatten the value"),
    "RW011": ("a runway file larger than 1,048,576 bytes", "keep the runway small: generated or bulk data does not belong in it"),
    "RW012": ("a generated or hostile file with hundreds of faults", "fix the problems shown; the rest appear as they go"),
    "RW013": ("`%YAML 1.1` copied from an older file", "remove the directive (or write `%YAML 1.2`); quote `\"on\"`/`\"no\"` if they were meant as booleans"),
    "RW100": ("a value of the wrong type or out of range", "use the type and range the message names"),
    "RW101": ("a required key absent, or an empty resource/workload", "add the key"),
    "RW102": ("a key the format does not define", "fix the spelling (the closest key is suggested)"),
    "RW103": ("`runway:` other than `1`", "write `runway: 1`"),
    "RW110": ("a name that is not a DNS label", "lowercase letters, digits and `-`, starting with a letter"),
    "RW111": ("a resource or workload named `shared-<kind>`, `alb` or `service-discovery`", "choose another name"),
    "RW112": ("the same name under `resources` and `workloads`", "rename one of them"),
    "RW120": (f"a kind that is not {', '.join(RESOURCE_KINDS)}", "use one of the kinds the first column names"),
    "RW121": ("`kafka` or `opensearch`", "use a managed kind; the message names the trigger that brings it back"),
    "RW122": ("a kind the tooling declares (`runway_core/kinds.py`) without a size table or price quantities: a kind still being added",
              "finish the kind (its size table, quantities, prices, component: docs/architecture.md, \"a resource kind\"), or use another kind"),
    "RW130": ("a size that is not small, medium, large", "use a catalogue size"),
    "RW131": ("a `size:`/`scale:` map key that is no environment", "name a declared environment"),
    "RW140": ("an image with a tag or a malformed digest", "`name@sha256:<64 hex digits>`"),
    "RW141": ("`reason` missing, null or blank", "give one of the three grounds"),
    "RW142": ("a reason that names no ground", "start it with `no-managed-fit`, `residency` or `on-prem-parity`"),
    "RW143": ("a name that a `uses` entry injects", "rename or remove it"),
    "RW144": ("a secret not in UPPER_SNAKE; an `env` name that is not a variable name", "`DB_PASSWORD`; letters, digits, `_`"),
    "RW145": ("the same name twice in one list", "remove the second one"),
    "RW146": ("a workload variable that is both plain and secret", "keep it in `secrets` only"),
    "RW147": ("a credential-shaped value, or a `*_PASSWORD`/`*_PASS`/`*_PWD`/`*_TOKEN`/`*_SECRET`/`*_KEY`/`*_DSN` name with a plain value", "list the name in `secrets`; rotate the value"),
    "RW148": ("`health.path` with `timeout_s` >= `interval_s` (defaults 5 and 30)", "make `timeout_s` smaller than `interval_s`"),
    "RW149": ("`health.command`, or `health.path` of an internal workload (its health probe), with `timeout_s` over 60", "`timeout_s: 60` or less"),
    "RW150": ("an unknown name in a workload's `uses`", "name a declared resource or workload"),
    "RW151": ("a `members` entry that cannot be read safely, or whose folder is another product's (its runway has `product:`, or another root's folder holds it)", "fix the path; keep members inside the root's folder, out of another root's"),
    "RW152": ("an unknown name in a member's `uses`", "name a resource of the root"),
    "RW153": ("a workload listing its own name in `uses`", "remove it"),
    "RW154": ("a member runway (`member`, `requires` or `uses`, no `product`) analysed with no root above that lists it", "list the folder in a root's `members` (or add `product:` if it is meant to be a root)"),
    "RW155": ("a root's `members` lists more than 1,000 distinct member folders", "split the product, or list only the folders that are members"),
    "RW156": ("`environments` names more than 50 environments, or more than 5,000 / (resources + workloads)", "split the product, or remove environments nobody deploys"),
    "RW157": ("`resources` and `workloads` hold more than 2,500 entries together", "split the product into several roots"),
    "RW158": ("a `runway.yml` opened in the editor (root or member) whose folder also holds a `runway.yaml`", "move what you need into `runway.yaml` and delete the `.yml`"),
    "RW160": ("a `region:` that is an AWS region the catalogue has no prices for", "use a priced region, or `runway-deploy catalog refresh --region <region>`"),
    "RW161": ("a plan item whose unit price the region lacks, in an environment without a cap", "accept the lower bound, or refresh the catalogue for the region"),
    "RW162": ("an environment with a cap whose estimate misses a unit price for the region", "`runway-deploy catalog refresh --region <region>` and plan with `--catalog`"),
    "RW163": ("an item that a capped environment cannot price in the region", "refresh the catalogue for the region, or change the item"),
    "RW164": ("a `region:` that is no region of any AWS partition (botocore's endpoint data)", "write the AWS region's name in lower case (the suggested one)"),
    "RW170": ("an estimate above `limits.monthly` (or the default cap)", "shrink sizes or scale, or raise the cap"),
    "RW171": ("an environment with no cap", "set `environments.<env>.limits.monthly`"),
    "RW180": ("a declared resource no workload or member uses", "use it or remove it"),
    "RW190": ("`region` differs from the plan last deployed and the environment has a postgres, cache, bucket or queue",
              "add the environment in the new region and migrate (docs/deploy.md, \"Moving to another region\")"),
    "RW191": ("a size or `storage_gb` lowering a deployed database's allocated storage", "keep the size, or `engine.storage_gb` at the deployed value"),
    "RW192": ("a postgres or cache `version` below the deployed one", "keep the version; restore a snapshot into a new resource"),
    "RW193": ("`flavor` differs from the deployed one", "add a second resource and migrate (docs/deploy.md, \"Switching flavor\")"),
    "RW172": ("an environment under its cap by less than (or over it by no more than) the sum of its derived and unverified prices' shares × their stated uncertainty", "refresh the named prices (`runway-deploy catalog refresh --region <region>`), or leave more room under the cap"),
    "RW200": ("a `runway.usage.yaml` without `usage: 1`, an unknown top-level key, a quantity that is text or negative; a `--usage` file that cannot be read; a `runway.usage.yaml` that is a symlink leaving the product", "write the format of docs/format.md \"Usage file\" (`runway-deploy usage init` writes a template)"),
    "RW201": ("an environment or item the runway does not declare", "name a declared environment and resource or workload (the closest is suggested)"),
    "RW202": ("a key the item's kind has no usage quantity for, or one its options do not bill", "use one of the kind's keys (the message lists them)"),
}


__all__ = ["RULE_HELP"]
