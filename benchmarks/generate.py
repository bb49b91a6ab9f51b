"""Generate a realistic large runway workspace for benchmarks.

At scale 1: about 200 resources, 100 workloads, 5 environments, 20 member runways and a
~3,000-line root (issue: performance). ``--scale N`` multiplies resources, workloads and
members. Deterministic: the same arguments (scale and seed) give the same files; another
``--seed`` gives another workspace of the same shape (sizes, ``uses`` items, digests).

Usage: .venv/bin/python benchmarks/generate.py OUT_DIR [--scale N] [--seed N]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

KINDS = ("postgres", "queue", "topic", "cache", "bucket")
ENVS = ("dev", "staging", "production", "qa", "perf")
SIZES = ("small", "medium", "large")
DEFAULT_SEED = 493  # the seed of every figure in RESULTS.md


def generate(out: Path, scale: int = 1, seed: int = DEFAULT_SEED) -> Path:
    """Write the workspace under ``out``; returns the root runway path."""
    rnd = random.Random(seed)
    n_res, n_wl, n_mem = 200 * scale, 100 * scale, 20 * scale
    lines = [
        "# Generated benchmark runway (benchmarks/generate.py)",
        "runway: 1",
        "product: bigshop",
        "region: us-east-1",
        "members:",
    ]
    lines += [f"  - services/svc-{m}" for m in range(n_mem)]
    lines.append("environments:")
    for e in ENVS:
        lines += [f"  {e}:", "    limits:", f"      monthly: {1_000_000 * scale}", "    shared:", "      cache: small", "      queue: medium"]
    lines.append("resources:")
    res_names = []
    for i in range(n_res):
        kind = KINDS[i % len(KINDS)]
        name = f"{kind}-{i}"
        res_names.append(name)
        lines += [f"  {name}:", f"    kind: {kind}"]
        if kind == "postgres":
            lines += ["    engine:", f"      flavor: {'aurora' if i % 10 == 0 else 'rds'}", '      version: "16"']
        elif kind == "queue":
            lines += ["    engine: { fifo: true }"]
        lines += ["    size:", f"      staging: {rnd.choice(SIZES)}", f"      production: {rnd.choice(SIZES)}"]
        lines.append("")
    lines.append("workloads:")
    for i in range(n_wl):
        uses = rnd.sample(res_names, 3)
        lines += [
            f"  app-{i}:",
            f"    image: registry.example.com/app-{i}@sha256:{rnd.getrandbits(256):064x}",
            "    port: 8080",
            "    health:",
            "      path: /healthz",
            "      interval_s: 15",
            "    env:",
            f"      APP_NAME: app-{i}",
            "      LOG_LEVEL: info",
            "    secrets: [API_TOKEN, SIGNING_KEY]",
            "    size:",
            f"      production: {rnd.choice(SIZES)}",
            "    scale:",
            f"      production: {rnd.randint(1, 4)}",
            f"    uses: [{', '.join(uses)}]",
            f"    expose: {'public' if i % 7 == 0 else 'internal'}",
            '    reason: "residency: tenants in an in-country region keep data there"',
            "",
        ]
    out.mkdir(parents=True, exist_ok=True)
    root = out / "runway.yaml"
    root.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for m in range(n_mem):
        d = out / "services" / f"svc-{m}"
        d.mkdir(parents=True, exist_ok=True)
        uses = rnd.sample(res_names, 2)
        (d / "runway.yaml").write_text(
            f"runway: 1\nmember: svc-{m}\nrequires: [queue, cache]\nuses: [{', '.join(uses)}]\n", encoding="utf-8"
        )
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder to write the workspace into (created)")
    ap.add_argument("--scale", type=int, default=1, help="multiplies resources, workloads and members (default 1: ~3,200-line root)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED}, the one RESULTS.md's figures use)")
    a = ap.parse_args()
    root = generate(a.out, a.scale, a.seed)
    print(f"{root} ({sum(1 for _ in root.open())} lines, seed {a.seed})")


if __name__ == "__main__":
    main()
