"""What each optimisation buys: the keystroke replay with one optimisation undone at a time.

``.venv/bin/python benchmarks/variants.py [--edits 150] [--rounds 2] [--only a,b] [--base REV]`` runs
:mod:`bench_keystrokes`' replay (our server only) once with everything on and once per
optimisation with that one undone (the server is started through ``variants.py serve
<name>``, which patches it back to the old behaviour first); with ``--base REV``, also once
with the code of that git revision (``git archive``, put first on PYTHONPATH). Per row:
didChange -> publishDiagnostics p50/p95, the server's CPU time per edit (/proc: all the work
a keystroke causes, also what runs after the publish), and the analysis alone (cold, and the
keystroke case, as bench_analysis measures them). Leave-one-out: each row is what the whole
loses without that one piece, every other optimisation kept. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: name -> what undoing it means (the old behaviour).
VARIANTS = {
    "debounce": "debounce back to 40 ms (DEBOUNCE_S)",
    "gcpause": "no garbage-collector pause inside analyze()",
    "freeze": "no gc.freeze() of the start-up objects",
    "idlegc": "automatic garbage collection left on (no collect-when-quiet policy)",
    "parsecache": "every file parsed again at every analysis (members included)",
    "entrycache": "every resource and workload converted and validated again",
    "planreuse": "no previous analysis: every entry spec built and plan item priced again",
    "linememo": "line items priced again for every item (no memo)",
    "signature": "runway/costsChanged decided by JSON + sha256 of every plan",
    "flushmemo": "no memo of disk stats, groups and roots within a flush or a request",
    "sentskip": "every file of the group pushed again after every flush",
}


#: Variants that change only the server (the analysis alone is not timed for them).
SERVER_ONLY = {"debounce", "freeze", "idlegc", "signature", "flushmemo", "sentskip"}


def _patch(names: set[str]) -> None:
    """Undo the optimisations ``names`` in this process (then start the server)."""
    import runway_core.analysis as A
    import runway_core.analysis.cache as AC
    import runway_core.analysis.root as AR
    import runway_core.analysis.run as R
    import runway_core.baseline as B
    import runway_core.planner.pricing as PP
    import runway_lsp.analyses as AN
    import runway_lsp.analysis_thread as AT
    import runway_lsp.publish as PUB
    import runway_lsp.schedule as SCH

    if "debounce" in names:
        SCH.DEBOUNCE_S = 0.04
    if "gcpause" in names:
        def step(steps):
            next(steps)

        def analyze(root_file, catalog, read=None, previous=None, refused=None):
            steps = R.analysis_steps(root_file, catalog, read, previous, refused)
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    return done.value
        A.analyze = R.analyze = B.analyze = AN.analyze = AT.analyze = analyze
        A.step = R.step = AN.step = step
    if "freeze" in names:
        gc.freeze = lambda: None
    if "idlegc" in names:
        import types

        import runway_lsp.__main__ as M
        M.gc = types.SimpleNamespace(freeze=lambda: gc.freeze(), disable=lambda: None)  # main() leaves the collector on
    if "parsecache" in names:
        from runway_core.yamlsrc import parse_yaml
        AC.parse_file = lambda text, path: parse_yaml(text, path)
    if "entrycache" in names:
        AR._entry_text_keys = lambda *a, **k: None
    if "planreuse" in names:
        inner, inner_steps = A.analyze, A.analysis_steps

        def no_previous(root_file, catalog, read=None, previous=None, refused=None):
            return inner(root_file, catalog, read, refused=refused)

        def no_previous_steps(root_file, catalog, read=None, previous=None, refused=None):
            return inner_steps(root_file, catalog, read, refused=refused)
        A.analyze = R.analyze = B.analyze = AN.analyze = no_previous
        AN.analysis_steps = no_previous_steps
    if "linememo" in names:
        PP._collect = lambda pricer, specs: PP._price_specs(pricer, tuple(specs))
    if "signature" in names:
        import hashlib

        import runway_lsp.custom as C
        from runway_core.planner import environment_json

        def signature(an):
            doc = [environment_json(p) for p in an.plans.values()]
            return hashlib.sha256(json.dumps([an.root_file, doc], sort_keys=True, default=str).encode()).hexdigest()
        C._signature = signature
    if "flushmemo" in names:
        import contextlib

        AN.Analyses.memoised = lambda self: contextlib.nullcontext()
    if "sentskip" in names:
        class Never(dict):
            def get(self, key, default=None):
                return None
        init = PUB.Publisher.__init__

        def __init__(self, *a, **k):
            init(self, *a, **k)
            self._sent = Never()
        PUB.Publisher.__init__ = __init__


def serve(names: set[str]) -> int:
    _patch(names)
    from runway_lsp.__main__ import main as lsp_main

    return lsp_main(["--stdio"])


def _head_tree(dest: Path, rev: str) -> bool:
    """The packages at git revision ``rev``, extracted under ``dest`` (read-only for git)."""
    try:
        archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", rev, "runway_core", "runway_lsp", "catalog", "deploy_engine"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def _analysis_times(env: dict[str, str], undo: str, repeat: int, patch: bool = True) -> dict[str, float]:
    """Median ms of a cold analysis and of the keystroke case (bench_analysis' two figures),
    in a fresh process with ``undo`` applied (``patch`` False: the code on PYTHONPATH as is)."""
    code = f"""
import sys, json, statistics, io
sys.path.insert(0, {str(HERE)!r})
if {patch!r}:
    import variants
    variants._patch(set({undo!r}.split(',')) - {{''}})
import bench_analysis
out = io.StringIO()
rows = bench_analysis.run([1], {repeat}, out=out)
print(json.dumps({{"cold": statistics.median(rows[0]["cold_ms"]), "keystroke": statistics.median(rows[0]["keystroke_ms"])}}))
"""
    # cwd: not the checkout, whose packages would shadow PYTHONPATH's (sys.path[0] is the cwd)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(HERE))
    if done.returncode != 0:
        return {"error": done.stderr[-500:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=120)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--gap", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=9, help="analysis timings per variant")
    ap.add_argument("--only", default=None, help="comma-separated variants (default: 'all on' and every variant)")
    ap.add_argument("--base", default=None, metavar="REV", help="also measure the code at this git revision (e.g. the commit before the optimisations)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()

    import bench_keystrokes as bk
    from common import read_source, summary
    from generate import generate

    wanted = ["all on", *VARIANTS] if a.only is None else a.only.split(",")
    if a.base:
        wanted.append("base")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "x1", 1)
        edits = bk.make_edits(read_source(root), a.edits)
        head = Path(tmp) / "head"
        head.mkdir()
        have_head = "base" in wanted and _head_tree(head, a.base)
        print(f"{len(edits)} edits, {a.rounds} round(s); leave-one-out (each row: that optimisation undone, every other kept)")
        print(f"{'variant':<12} {'keystroke p50':>14} {'p95':>8} {'CPU/edit':>9} {'RSS MiB':>8} {'analysis cold':>14} {'keystroke analysis':>19}  what is undone")
        for name in wanted:
            env = dict(os.environ)
            if name == "base":
                if not have_head:
                    print(f"{'base':<12} ({a.base}: git archive failed: skipped)")
                    continue
                env["PYTHONPATH"] = str(head) + os.pathsep + env.get("PYTHONPATH", "")
                cmd = [sys.executable, "-m", "runway_lsp", "--stdio"]
            elif name == "all on":
                cmd = [sys.executable, str(HERE / "variants.py"), "serve", ""]
            else:
                cmd = [sys.executable, str(HERE / "variants.py"), "serve", name]
            lat: list[float] = []
            rss, cpu = [], []
            for _ in range(a.rounds):
                r = asyncio.run(_replay_env(bk, cmd, root, edits, a.gap, env))
                lat += r["latencies"]
                rss.append(r.get("rss_mb") or 0)
                if r.get("cpu_ms_per_edit") is not None:
                    cpu.append(r["cpu_ms_per_edit"])
            s = summary(lat)
            times = {} if name in SERVER_ONLY else _analysis_times(env, "" if name in ("all on", "base") else name, a.repeat, patch=name != "base")
            results[name] = {"keystroke": s, "rss_mb": rss, "cpu_ms_per_edit": cpu, "analysis": times}
            cold = f"{times['cold']:.1f} ms" if "cold" in times else "-"
            keys = f"{times['keystroke']:.1f} ms" if "keystroke" in times else "-"
            cpu_s = f"{statistics.median(cpu):.1f} ms" if cpu else "-"
            what = VARIANTS.get(name, "everything on" if name == "all on" else f"the code at {a.base}")
            print(f"{name:<12} {s['median']:>11.1f} ms {s['p95']:>5.1f} ms {cpu_s:>9} {max(rss):>8.0f} {cold:>14} {keys:>19}  {what}", flush=True)
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))


async def _replay_env(bk, cmd, root, edits, gap, env):
    return await bk.replay(cmd, root, edits, language_id="runway", settings=bk.ours_settings(), gap=gap, env=env)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        sys.exit(serve(set(filter(None, (sys.argv[2] if len(sys.argv) > 2 else "").split(",")))))
    main()
