"""A copy of the packages with one more kind declared in ``runway_core/kinds.py``, and a way to
run code against it in a fresh interpreter (issue 21: "adding a kind to the registry alone", and
"adding its component, prices and docs makes it plan, hover, complete and declare").

The registry is built once at import time and derived everywhere (model, catalogue, planner,
rules, editor queries, program), so a kind added to it is seen only by a process that imports
the changed file: the copy is put first on ``PYTHONPATH`` of a subprocess.

:data:`STREAM_COMPLETE` and :data:`STREAM_PATCHES` are the newcomer's recipe: a whole kind
(``stream``, Amazon Kinesis Data Streams with provisioned shards) added by following only
docs/architecture.md's "to add X, touch Y" row "a resource kind", one :class:`Patch` per place
the row names, in the row's order. :func:`tree_with_complete_kind` applies it to a copy of the
packages, the docs and the tests that check a kind (tests/deploy/test_kinds.py's
``missing_pieces`` reads the copy's docs and test tables).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("runway_core", "deploy_engine", "catalog")
#: Where a declaration goes: after the last kind of ``REGISTRY``.
REGISTRY_END = "\n)\n\n#: name -> declaration."

#: A kind declared alone: its words, variables and component token, nothing to price it with
#: (no size table, quantities or price keys) and, in the copy, no component, prices or docs.
STREAM_ALONE = '''
    Kind(
        name="stream",
        label="stream (Kinesis Data Streams)",
        service="Kinesis Data Streams",
        summary="Amazon Kinesis data stream (provisioned shards)",
        synonyms=("stream", "streams", "kinesis", "clickstream"),
        variables=("NAME", "ARN"),
        in_vpc=False,
        holds_data=True,
        component="runway:aws:Stream",
    ),'''


@dataclass(frozen=True)
class Patch:
    """One edit of a recipe: insert ``text`` after (``before``: before; ``replace``: in place of)
    the one occurrence of ``anchor`` in ``path`` (relative to the tree); an ``anchor`` of None
    creates the file."""

    path: str
    anchor: str | None
    text: str
    before: bool = False
    replace: bool = False

    def apply(self, tree: Path) -> None:
        target = tree / self.path
        if self.anchor is None:
            assert not target.exists(), f"{self.path} exists already"
            target.write_text(self.text, encoding="utf-8")
            return
        text = target.read_text(encoding="utf-8")
        assert text.count(self.anchor) == 1, f"{self.path}: the place of the patch moved: {self.anchor!r}"
        new = self.text if self.replace else self.text + self.anchor if self.before else self.anchor + self.text
        target.write_text(text.replace(self.anchor, new), encoding="utf-8")


def tree_with_kind(dest: Path, declaration: str = STREAM_ALONE) -> Path:
    """Copy the packages to ``dest`` and append ``declaration`` (Python source of one ``Kind(...),``)
    to ``REGISTRY``; returns ``dest``. Raises AssertionError when kinds.py has no such place."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    Patch("runway_core/kinds.py", REGISTRY_END, declaration, before=True).apply(dest)
    return dest


# --------------------------------------------------------------------------------------
# The recipe: a complete kind, by docs/architecture.md's row "a resource kind"
# --------------------------------------------------------------------------------------

#: The declaration with every field of the row's first sentence: its size table, quantities,
#: price keys and capacity text (the functions are the first patch below).
STREAM_COMPLETE = STREAM_ALONE.replace('        component="runway:aws:Stream",\n', '''\
        component="runway:aws:Stream",
        size_fields=_frozen({None: {"shards": POSINT, "put_payload_units_millions": NUM}}),
        quantities=_stream,
        price_keys=_fixed("kinesis:shard-hour", "kinesis:put-payload-units", "kinesis:extended-retention"),
        describe=_stream_text,
''')

#: The tests that check a kind, copied into the tree with the docs (two of them patched below).
TESTS = ("tests/deploy/test_kinds.py", "tests/deploy/test_botocore_models.py", "tests/deploy/test_program_mocks.py")

_QUANTITIES = '''

# ---- stream (Kinesis Data Streams, provisioned shards)


def _stream(s: Sizing) -> tuple[dict[str, Any], list[LineSpec]]:
    cap, h = s.capacity, s.hours
    shards = cap["shards"]
    extended = bool(s.engine.get("extended_retention"))
    capacity = {"mode": "PROVISIONED", "shards": int(shards), "retention_hours": 168 if extended else 24,
                "assumed_put_payload_units_millions": cap["put_payload_units_millions"]}
    units, src, words = s.used("put_payload_units_millions", cap["put_payload_units_millions"])
    s.note(capacity, "put_payload_units_millions")
    lines: list[LineSpec] = [
        ("kinesis:shard-hour", f"{int(shards)} shard(s) x {h} h", shards * h),
        ("kinesis:put-payload-units", f"PUT payload units (25 KB each), {words}{units} M", units, src),
    ]
    if extended:
        lines.append(("kinesis:extended-retention", f"retention 24 h to 7 days, {int(shards)} shard(s) x {h} h", shards * h))
    return capacity, lines


def _stream_text(c: Mapping[str, Any], q: Callable[[Any], str]) -> str:
    return (f"Kinesis provisioned, {c.get('shards')} shard(s), {_used(c, 'put_payload_units_millions', q)} M PUT payload units/month, "
            f"retention {c.get('retention_hours')} h")'''

_ENGINE = '''

class StreamEngine(_Strict):
    extended_retention: StrictBool = Field(False, description="Keep records 7 days instead of 24 hours (priced per shard-hour).")'''

_SIZES = '''
# stream: Kinesis Data Streams, provisioned shards; assumed PUT payload units (25 KB each) per month.
[stream.small]
shards = 1
put_payload_units_millions = 25

[stream.medium]
shards = 2
put_payload_units_millions = 250

[stream.large]
shards = 8
put_payload_units_millions = 2500
'''

# us-east-1 as the AWS pricing page states them (provisioned mode), not re-read for these rows:
# hence `unverified`; the other catalogue regions carry the same figures with a wider band.
_US = ("best-known figure of the AWS pricing page (aws.amazon.com/kinesis/data-streams/pricing/, provisioned mode, "
       "US East (N. Virginia)), not re-read")
_EU = "No regional source; best-known figure, the same as us-east-1 (Frankfurt may be higher: a wider band)"
_PRICES = f'''\
kinesis:shard-hour,Kinesis Data Streams,provisioned shard hour,us-east-1,shard-hour,0.015,unverified,"{_US}: $0.015 per shard hour",2026-12-02,
kinesis:put-payload-units,Kinesis Data Streams,PUT payload units (25 KB each),us-east-1,1M units,0.014,unverified,"{_US}: $0.014 per million",2026-12-02,
kinesis:extended-retention,Kinesis Data Streams,extended retention (24 h to 7 days),us-east-1,shard-hour,0.020,unverified,"{_US}: $0.020 per shard hour",2026-12-02,
kinesis:shard-hour,Kinesis Data Streams,provisioned shard hour,eu-west-1;eu-central-1,shard-hour,0.015,unverified,"{_EU}",2026-12-02,20%
kinesis:put-payload-units,Kinesis Data Streams,PUT payload units (25 KB each),eu-west-1;eu-central-1,1M units,0.014,unverified,"{_EU}",2026-12-02,20%
kinesis:extended-retention,Kinesis Data Streams,extended retention (24 h to 7 days),eu-west-1;eu-central-1,shard-hour,0.020,unverified,"{_EU}",2026-12-02,20%
'''

# The usage types of AmazonKinesis's provisioned-mode products (Infracost's kinesis_stream.go
# filters the same); the units accepted are a best guess, to check with `catalog refresh`.
_SELECTOR = '''\
    if head == "kinesis" and len(parts) == 2 and parts[1] in ("shard-hour", "put-payload-units", "extended-retention"):
        usage = {"shard-hour": "Storage-ShardHour", "put-payload-units": "PutRequestPayloadUnits", "extended-retention": "Extended-ShardHour"}[parts[1]]
        item = {"shard-hour": "provisioned shard hour", "put-payload-units": "PUT payload units (25 KB each)",
                "extended-retention": "extended retention (24 h to 7 days)"}[parts[1]]
        put = parts[1] == "put-payload-units"
        return Selector(key, "Kinesis Data Streams", item, "1M units" if put else "shard-hour", "AmazonKinesis", "Kinesis Streams", (), usage,
                        _units(("payloadunits", "putrequestpayloadunits"), MILLION) if put else _units(_HOURS + ("shardhour",)),
                        f"Kinesis Streams, usagetype {usage}")
'''

_COMPONENT = '''"""``runway:aws:Stream``: one ``kinesis.Stream`` in provisioned mode, its shard count and
retention from the plan, encrypted with the AWS-managed key ``alias/aws/kinesis`` (whose key
policy admits Kinesis calls from the account: consumers need no KMS grant). The name is fixed
(``<product>-<env>-<resource>``) and only the name replaces it (terraform-provider-aws
``internal/service/kinesis/stream.go``: ``name`` is its one ``ForceNew`` attribute).
"""

from __future__ import annotations

import pulumi
from ._aws import load as _load_aws

from runway_core import kinds
from runway_core.planner import ItemPlan

from .common import Context, Offer, child

aws = _load_aws()

#: Kinesis ``StreamName``: 1 to 128 characters (botocore's kinesis CreateStream input shape).
LIMIT_KINESIS = 128


class Stream(pulumi.ComponentResource):
    def __init__(self, item: ItemPlan, ctx: Context, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(kinds.BY_NAME["stream"].component, f"{ctx.env}-{item.name}", None, opts)
        cap, r = item.capacity, item.name
        stream = aws.kinesis.Stream(
            f"{ctx.env}-{r}-stream",
            name=ctx.name(r, limit=LIMIT_KINESIS),
            shard_count=int(cap["shards"]),
            retention_period=int(cap["retention_hours"]),
            stream_mode_details=aws.kinesis.StreamStreamModeDetailsArgs(stream_mode="PROVISIONED"),
            encryption_type="KMS",
            kms_key_id="alias/aws/kinesis",
            tags=ctx.tags(r),
            opts=child(self),
        )
        self.offer = Offer(values={"NAME": stream.name, "ARN": stream.arn}, outputs={"name": stream.name, "arn": stream.arn})
        self.offer.grants.append({
            "Effect": "Allow",
            "Action": ["kinesis:PutRecord", "kinesis:PutRecords", "kinesis:GetRecords", "kinesis:GetShardIterator",
                       "kinesis:DescribeStreamSummary", "kinesis:ListShards"],
            "Resource": stream.arn,
        })
        self.register_outputs(dict(self.offer.outputs))
'''

_WHY = "`<product>-<env>-<resource>`; shard count, retention, encryption and stream mode update in place"

_CATALOG_SECTION = '''
## stream — Kinesis Data Streams, provisioned (shards; assumed PUT payload units/month)

| size | shards | PUT payload units (25 KB each) |
|---|---|---|
| small | 1 | 25 M |
| medium | 2 | 250 M |
| large | 8 | 2,500 M |

Shard-hours x 730 (`kinesis:shard-hour`), the PUT payload units (`kinesis:put-payload-units`) and,
with `extended_retention: true`, the extended retention per shard-hour (`kinesis:extended-retention`).
'''

#: The rest of the row, in its order: one patch per place it names.
STREAM_PATCHES: tuple[Patch, ...] = (
    # the declaration's quantities and capacity text, beside the other kinds' in kinds.py
    Patch("runway_core/kinds.py", "\n\ndef _fixed(*keys: str) -> PriceKeys:", _QUANTITIES, before=True),
    # its engine options model in runway_core/model.py (ENGINE_MODELS)
    Patch("runway_core/model.py", "\n\nENGINE_MODELS: dict[str, type[_Strict]] = {", _ENGINE, before=True),
    Patch("runway_core/model.py", '    "bucket": BucketEngine,\n', '    "stream": StreamEngine,\n'),
    # the usage keys its quantities read: runway_core/usage.py (USAGE_KEYS), docs/format.md "Usage file"
    Patch("runway_core/usage.py", '    "workload": (UsageKey("log_ingested_gb",',
          '    "stream": (UsageKey("put_payload_units_millions", "M PUT payload units/month", "Kinesis PUT payload units (25 KB each)",'
          ' "put_payload_units_millions"),),\n', before=True),
    Patch("docs/format.md", "| workload | `log_ingested_gb` |",
          "| stream | `put_payload_units_millions` | million PUT payload units (25 KB each)/month | `put_payload_units_millions` of the size |\n",
          before=True),
    # its rows in catalog/sizes.toml, a price per key and region in catalog/prices.csv
    Patch("catalog/sizes.toml", "\n# workload: ECS Fargate", _SIZES, before=True),
    Patch("catalog/prices.csv", "key,service,item,region,unit,usd,confidence,source,seen,uncertainty\n", _PRICES),
    # a Price List selector per new key (deploy_engine/pricelist/selectors.py, selector_for)
    Patch("deploy_engine/pricelist/selectors.py", '    if key == "logs:ingestion":\n', _SELECTOR, before=True),
    # its component in deploy_engine/program/, registered in COMPONENTS, its classes in _aws.py's USED
    Patch("deploy_engine/program/stream.py", None, _COMPONENT),
    Patch("deploy_engine/program/__init__.py", "from .stores import Bucket, Cache, Queue, Topic\n", "from .stream import Stream\n"),
    Patch("deploy_engine/program/__init__.py", '    "bucket": lambda item, ctx, env, opts: Bucket(item, ctx, opts),\n',
          '    "stream": lambda item, ctx, env, opts: Stream(item, ctx, opts),\n'),
    Patch("deploy_engine/program/_aws.py", '    "sns": ("Topic",),\n', '    "kinesis": ("Stream", "StreamStreamModeDetailsArgs"),\n'),
    # its fixed-name AWS resource: a REPLACING row and docs/deploy.md's "Replacement safety" row
    Patch("deploy_engine/program/replacement.py", '    "aws:ecs/cluster:Cluster": Replacing(',
          f'    "aws:kinesis/stream:Stream": Replacing(\n        "name", ("name",), "constant", TPA + "kinesis/stream.go",\n        "{_WHY}"),\n',
          before=True),
    Patch("docs/deploy.md", "| `aws:ecs/cluster:Cluster` |",
          f"| `aws:kinesis/stream:Stream` | `name` | `name` | `internal/service/kinesis/stream.go` | constant | {_WHY} |\n", before=True),
    # docs: docs/format.md's two kind tables, docs/catalog.md's section, docs/diagnostics.md's
    # RW120 row and section, docs/deploy.md's "What the program declares" row
    Patch("docs/format.md", "| `bucket` | S3 | `versioning` |\n",
          "| `stream` | Kinesis Data Streams (provisioned shards) | `extended_retention` (7 days instead of 24 hours) |\n"),
    Patch("docs/format.md", "| bucket | `<R>_NAME`, `<R>_ARN` |\n", "| stream | `<R>_NAME`, `<R>_ARN` |\n"),
    Patch("docs/catalog.md", "\n## workload — ECS Fargate", _CATALOG_SECTION, before=True),
    Patch("docs/diagnostics.md", "a kind that is not postgres, queue, topic, cache, bucket", ", stream"),
    Patch("docs/diagnostics.md", "`topic`, `cache` or `bucket`.", "`topic`, `cache`, `bucket` or `stream`.", replace=True),
    Patch("docs/deploy.md", "| `runway:aws:Workload` |", "| `runway:aws:Stream` | the Kinesis data stream (provisioned, KMS-encrypted) |\n", before=True),
    # a plan of tests/deploy/test_botocore_models.py's plans() declaring it, a MAPPING of its AWS type
    Patch("tests/deploy/test_botocore_models.py", '    ("aws:sns/topic:Topic", "name", "sns", "CreateTopic", "Name"),\n',
          '    ("aws:kinesis/stream:Stream", "name", "kinesis", "CreateStream", "StreamName"),\n'
          '    ("aws:kinesis/stream:Stream", "shardCount", "kinesis", "CreateStream", "ShardCount"),\n'
          '    ("aws:kinesis/stream:Stream", "retentionPeriod", "kinesis", "IncreaseStreamRetentionPeriod", "RetentionPeriodHours"),\n'),
    Patch("tests/deploy/test_botocore_models.py", '                entry("files", "bucket", size, in_env=env, engine={"versioning": size != "small"}),\n',
          '                entry("clicks", "stream", size, in_env=env, engine={"extended_retention": size == "large"}),\n'),
)


def tree_with_complete_kind(dest: Path) -> Path:
    """:func:`tree_with_kind` with :data:`STREAM_COMPLETE`, the docs and :data:`TESTS` copied,
    and every patch of :data:`STREAM_PATCHES` applied; returns ``dest``."""
    tree_with_kind(dest, STREAM_COMPLETE)
    shutil.copytree(ROOT / "docs", dest / "docs")
    for test in TESTS:
        (dest / test).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / test, dest / test)
    for patch in STREAM_PATCHES:
        patch.apply(dest)
    return dest


def run_python(tree: Path, code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c code args...`` with ``tree`` first on the import path (the venv's other
    packages, pydantic and pulumi among them, as installed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd or tree, env=env, capture_output=True, text=True, timeout=300)


def cli(tree: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``runway-deploy args...`` from the copy."""
    return run_python(tree, "import sys; from deploy_engine.cli import main; sys.exit(main(sys.argv[1:]))", *args, cwd=cwd)
