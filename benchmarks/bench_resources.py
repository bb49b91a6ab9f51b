"""Wall time of ``runway-deploy resources`` (issue 12), each run a fresh process, against floors
measured in the same run.

Rows (median and spread of ``--runs`` runs, seconds):

- ``python -c "import pulumi"``: the floor every Pulumi program pays;
- ``runway-deploy plan --env ENV``: the same CLI, analysis and plan, no Pulumi;
- ``runway-deploy resources --env ENV --format json``: the real program under the mock monitor;
- the same with every used ``pulumi_aws`` submodule imported whole first (what the program cost
  before ``deploy_engine/program/_aws.py`` loaded them slim).

Ratios are against the ``import pulumi`` floor of the same run, so a loaded machine shows in
every row alike. The runway is examples/orders with its one mistyped digest fixed, in a
temporary copy. Nothing here is asserted in tests.

    .venv/bin/python benchmarks/bench_resources.py [--env production] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Attribute access loads a submodule (pulumi_aws registers each as a lazy module: `import`
# alone would load nothing).
FULL_IMPORTS = "import pulumi_aws; " + "; ".join(
    f"getattr(pulumi_aws.{m}, 'runway_probe', None)" for m in ("ec2", "vpc", "ecs", "lb", "servicediscovery", "rds", "secretsmanager", "iam", "sqs", "sns",
                                        "elasticache", "s3", "cloudwatch", "route53"))
CLI = "import sys; from deploy_engine.cli import main; sys.exit(main(sys.argv[1:]))"


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="production")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    orders = tmp / "orders"
    shutil.copytree(ROOT / "examples" / "orders", orders)
    text = (orders / "runway.yaml").read_text(encoding="utf-8")
    (orders / "runway.yaml").write_text(re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", text), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    py = sys.executable
    rows = {
        "import pulumi (floor)": [py, "-c", "import pulumi"],
        f"plan --env {args.env}": [py, "-c", CLI, "plan", str(orders), "--env", args.env],
        f"resources --env {args.env}": [py, "-c", CLI, "resources", str(orders), "--env", args.env, "--format", "json"],
        f"resources, pulumi_aws submodules imported whole": [py, "-c", FULL_IMPORTS + "; " + CLI, "resources", str(orders), "--env", args.env,
                                                            "--format", "json"],
    }
    times: dict[str, list[float]] = {k: [] for k in rows}
    for _ in range(args.runs):  # interleaved: a load spike hits every row alike
        for name, argv in rows.items():
            times[name].append(timed(argv, env))
    floor = statistics.median(times["import pulumi (floor)"])
    out = {"load_average": os.getloadavg(), "runs": args.runs, "rows": {}}
    for name, values in times.items():
        med = statistics.median(values)
        out["rows"][name] = {"median_s": round(med, 3), "min_s": round(min(values), 3), "max_s": round(max(values), 3),
                             "x_floor": round(med / floor, 2)}
        print(f"{name:<52} median {med:6.2f} s  (min {min(values):.2f}, max {max(values):.2f})  x{med / floor:.2f} of the floor")
    print(json.dumps(out))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
