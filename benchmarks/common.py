"""Shared helpers of the benchmark scripts: statistics, server commands, the peer server.

Nothing here asserts a time: the scripts print figures (benchmarks/RESULTS.md keeps them).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEER_DIR = HERE / ".peer"  # gitignored: `npm install yaml-language-server@1.25` goes here
PEER_BIN = PEER_DIR / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"

if str(REPO) not in sys.path:
    sys.path.append(str(REPO))  # after PYTHONPATH, so that other code can be measured (variants.py --base)


def pct(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0-100) by linear interpolation between closest ranks."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summary(values: Sequence[float]) -> dict[str, float]:
    """median, p95, min, max and count of ``values`` (milliseconds or whatever they are)."""
    if not values:
        return {"n": 0, "median": float("nan"), "p95": float("nan"), "min": float("nan"), "max": float("nan")}
    return {"n": len(values), "median": statistics.median(values), "p95": pct(values, 95), "min": min(values), "max": max(values)}


def fmt(s: dict[str, float], unit: str = "ms", p95: bool = True) -> str:
    """``median 12.3 ms (p95 15.0, min 11.0, max 20.1, n 200)``; ``not measured`` without values."""
    if not s.get("n"):
        return "not measured"
    p = f"p95 {s['p95']:.1f}, " if p95 else ""
    return f"median {s['median']:.1f} {unit} ({p}min {s['min']:.1f}, max {s['max']:.1f}, n {s['n']})"


def read_source(path: str | Path) -> str:
    """A runway file's text exactly as on disk (UTF-8, CRLF kept: no newline translation), as
    an editor sends it in ``didOpen`` and as ``runway_core.workspace.read_disk`` reads it."""
    return Path(path).read_bytes().decode("utf-8")


def resolve_root(path: str | Path) -> Path:
    """``--root``: a root runway file, or a folder holding ``runway.yaml`` (or ``runway.yml``);
    returns the root runway file (absolute). Exits with a message when there is none."""
    p = Path(path).expanduser().resolve()
    if p.is_dir():
        for name in ("runway.yaml", "runway.yml"):
            if (p / name).is_file():
                return p / name
        sys.exit(f"--root {path}: no runway.yaml or runway.yml in that folder")
    if not p.is_file():
        sys.exit(f"--root {path}: no such file or folder")
    return p


def server_command() -> list[str]:
    """Our server as an editor starts it: the ``runway-lsp`` console script of this Python."""
    script = Path(sys.executable).with_name("runway-lsp")
    if script.exists():
        return [str(script), "--stdio"]
    return [sys.executable, "-m", "runway_lsp", "--stdio"]


def cli_command() -> list[str]:
    script = Path(sys.executable).with_name("runway-deploy")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "deploy_engine"]


def peer_command() -> list[str] | None:
    """yaml-language-server 1.25 from benchmarks/.peer, or None when it is not installed."""
    node = shutil.which("node")
    if node is None or not PEER_BIN.exists():
        return None
    return [node, str(PEER_BIN), "--stdio"]


def peer_version() -> str | None:
    try:
        return json.loads((PEER_DIR / "node_modules" / "yaml-language-server" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def export_schema(out: Path) -> str:
    """Write the JSON Schema of a root runway exported from our model to ``out``; returns how
    it was made (`runway-deploy schema`, else pydantic's ``RootRunway.model_json_schema()``)."""
    cmd = cli_command() + ["schema"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if done.returncode == 0 and done.stdout.strip().startswith("{"):
            json.loads(done.stdout)
            out.write_text(done.stdout)
            return "runway-deploy schema"
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    from runway_core.model import RootRunway

    out.write_text(json.dumps(RootRunway.model_json_schema(), indent=1))
    return "RootRunway.model_json_schema()"


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    versions = {}
    for mod in ("pygls", "lsprotocol", "pydantic", "ruamel.yaml", "ruamel.yaml.clib"):
        try:
            from importlib import metadata

            versions[mod] = metadata.version(mod)
        except Exception:  # noqa: BLE001
            versions[mod] = "?"
    node = shutil.which("node")
    node_v = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() if node else None
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load": load,
        "node": node_v,
        "yaml-language-server": peer_version(),
        **versions,
    }
