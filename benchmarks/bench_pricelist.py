"""Memory and time of ``catalog refresh`` on a generated 500 MB offer file.

Writes a Price List mirror (tests/deploy/pricelist_mirror.py) whose AmazonRDS eu-west-1 offer file is
inflated to ``--mb`` MB (default 500) with filler products in AWS's layout (Database Instance /
Storage SKUs of other classes and engines, each with OnDemand and Reserved terms), as JSON, and
as CSV with ``--csv``. Then runs ``python -m deploy_engine.pricelist refresh`` on it in a child
process and prints the child's peak RSS (``getrusage(RUSAGE_CHILDREN).ru_maxrss``) and wall
time, against a floor measured in the same run: the RSS of a child that only imports the
package. Nothing asserts a time (RESULTS.md keeps the figures).

    python benchmarks/bench_pricelist.py [--mb 500] [--csv] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests" / "deploy"))
sys.path.insert(0, str(REPO))

import pricelist_mirror as mirror  # noqa: E402

#: eu-west-1 prices of the real products inside the big file (AWS units; made up).
PRICES = {
    "rds:db.t4g.micro:single-az": "0.0170000000", "rds:db.t4g.medium:multi-az": "0.1400000000",
    "rds:db.m7g.large:multi-az": "0.3600000000", "rds:gp3:single-az": "0.1270000000", "rds:gp3:multi-az": "0.2540000000",
    "aurora:db.t4g.medium:standard": "0.0800000000", "aurora:db.r7g.large:standard": "0.3000000000",
    "aurora:storage:standard": "0.1100000000", "aurora:io:standard": "0.0000002200", "rds-proxy:vcpu": "0.0165000000",
}
_CLASSES = [f"db.{fam}.{size}" for fam in ("m5", "m6g", "m6i", "m7i", "r5", "r6g", "r6i", "r7i", "x2g", "c6gd", "t3", "t4g")
            for size in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge")]
_ENGINES = ("MySQL", "MariaDB", "Oracle", "SQL Server", "Aurora MySQL", "Db2")


def _filler(n: int) -> mirror.Item:
    cls = _CLASSES[n % len(_CLASSES)]
    engine = _ENGINES[(n // len(_CLASSES)) % len(_ENGINES)]
    az = ("Single-AZ", "Multi-AZ")[n % 2]
    attrs = {"location": "EU (Ireland)", "locationType": "AWS Region", "regionCode": "eu-west-1",
             "usagetype": f"EU-{'InstanceUsage' if az == 'Single-AZ' else 'Multi-AZUsage'}:{cls}", "instanceType": cls,
             "deploymentOption": az, "databaseEngine": engine, "licenseModel": "License included" if n % 3 else "Bring your own license",
             "vcpu": str(2 ** (n % 6)), "memory": f"{2 ** (n % 8)} GiB", "storage": "EBS Only", "networkPerformance": "Up to 10 Gigabit",
             "processorArchitecture": "64-bit", "engineCode": str(n % 30), "operation": f"CreateDBInstance:{n % 9999:04d}",
             "instanceFamily": "General purpose", "currentGeneration": "Yes", "normalizationSizeFactor": "4"}
    return mirror.Item(mirror.sku("filler", str(n)), "Database Instance", attrs, [("0", "Inf", "Hrs", f"{0.1 + n % 997 / 1000:.10f}")],
                       reserved_usd=f"{0.05 + n % 991 / 1000:.10f}")


def write_big_json(path: Path, real: list[mirror.Item], target_bytes: int) -> int:
    """Write an AmazonRDS offer file of about ``target_bytes``: the real items plus fillers."""
    n_per_mb = 344  # fillers per MB of output (measured on this layout)
    count = max(1, target_bytes * n_per_mb // 1_000_000)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"formatVersion": "v1.0", "disclaimer": "d", "offerCode": "AmazonRDS", "version": mirror.VERSION,
                              "publicationDate": mirror.PUBLISHED})[:-1])
        out.write(', "products" : {\n')
        first = True

        def items():
            half = count // 2
            for n in range(half):
                yield _filler(n)
            yield from real
            for n in range(half, count):
                yield _filler(n)

        for item in items():
            doc = {"sku": item.sku, "productFamily": item.family, "attributes": {"servicecode": "AmazonRDS", **item.attributes}}
            out.write(("" if first else ",\n") + f'    "{item.sku}" : ' + json.dumps(doc, indent=6))
            first = False
        out.write('\n  },\n  "terms" : {\n')
        for t, term in enumerate(("OnDemand", "Reserved")):
            out.write(("" if t == 0 else ",\n") + f'    "{term}" : {{\n')
            first = True
            for item in items():
                one = mirror.terms(item)[t]
                if one is None:
                    continue
                out.write(("" if first else ",\n") + f'      "{item.sku}" : ' + json.dumps(one, indent=8))
                first = False
            out.write("\n    }")
        out.write("\n  }\n}\n")
    return path.stat().st_size


def write_big_csv(path: Path, real: list[mirror.Item], target_bytes: int) -> int:
    count = max(1, target_bytes * 1526 // 1_000_000)
    with path.open("w", encoding="utf-8") as out:
        text = mirror.offer_csv("AmazonRDS", real)
        head, _, body = text.partition('"SKU"')
        header_line, _, rows = ('"SKU"' + body).partition("\n")
        out.write(head + header_line + "\n" + rows)
        cols = header_line.count('","') + 1
        names = [c.strip('"') for c in header_line.split('","')]
        inv = {v: k for k, v in mirror.CSV_NAMES.items()}
        for n in range(count):
            item = _filler(n)
            attrs = {"servicecode": "AmazonRDS", **item.attributes}
            tail = [attrs.get(inv.get(c, c), "") for c in names[14:]]
            b, e, unit, usd = item.tiers[0]
            row = [item.sku, mirror.OD_CODE, f"{item.sku}.{mirror.OD_CODE}.0", "OnDemand", f"${usd} per {unit}", "2026-11-01", b, e, unit, usd,
                   "USD", "", "", item.family, *tail]
            res = [item.sku, mirror.RES_CODE, f"{item.sku}.{mirror.RES_CODE}.R", "Reserved", "reserved", "2026-11-01", "0", "Inf", "Hrs",
                   item.reserved_usd, "USD", "1yr", "No Upfront", item.family, *tail]
            assert len(row) == cols
            out.write(",".join(f'"{c}"' for c in row) + "\n" + ",".join(f'"{c}"' for c in res) + "\n")
    return path.stat().st_size


def child_rss(args: list[str], env: dict[str, str]) -> tuple[int, float, int, str]:
    """Run a child python; return (its peak RSS in KB, wall seconds, exit code, stderr tail)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the max over all waited-for children: run the big one last.
    return max(peak, before), wall, proc.returncode, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--csv", action="store_true", help="inflate and read the CSV offer file instead of the JSON one")
    ap.add_argument("--keep", metavar="DIR", default=None, help="write the mirror here and keep it")
    ns = ap.parse_args()
    root = Path(ns.keep) if ns.keep else Path(tempfile.mkdtemp(prefix="bench-pricelist-"))
    try:
        mirror.write_mirror(root, {"eu-west-1": PRICES})
        real = mirror.region_items("eu-west-1", PRICES)["AmazonRDS"]
        folder = root / "offers" / "v1.0" / "aws" / "AmazonRDS" / mirror.VERSION / "eu-west-1"
        t0 = time.perf_counter()
        if ns.csv:
            size = write_big_csv(folder / "index.csv", real, ns.mb * 1_000_000)
        else:
            size = write_big_json(folder / "index.json", real, ns.mb * 1_000_000)
        gen = time.perf_counter() - t0
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        floor_kb, _, _, _ = child_rss(["-c", "import deploy_engine.pricelist.refresh"], env)
        out = root / "out"
        args = ["-m", "deploy_engine.pricelist", "refresh", "--source", root.as_uri(), "--region", "eu-west-1", "--output", str(out)]
        if ns.csv:
            args += ["--offer-format", "csv"]
        peak_kb, wall, rc, tail = child_rss(args, env)
        found = {}
        for line in (out / "prices.csv").read_text(encoding="utf-8").splitlines()[1:]:
            key = line.split(",", 1)[0]
            found[key] = line
        ok = all(k in found for k in PRICES)
        print(f"offer file: {'CSV' if ns.csv else 'JSON'} {size / 1_000_000:.1f} MB (generated in {gen:.1f} s)")
        print(f"refresh: exit {rc}, {wall:.1f} s wall, {size / 1_000_000 / wall:.1f} MB/s; peak RSS {peak_kb / 1024:.1f} MB "
              f"(floor: importing the package {floor_kb / 1024:.1f} MB); the {len(PRICES)} RDS keys in the big file found: {ok}")
        print(f"last stderr line: {tail}")
        return 0 if ok else 1
    finally:
        if not ns.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
