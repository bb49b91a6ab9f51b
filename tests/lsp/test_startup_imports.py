"""Start-up at the pygls floor (issue 16 item 9; docs/reliability.md, benchmarks/RESULTS.md
"Issue 16"): what ``runway-lsp`` imports before it can answer ``initialize`` is pygls,
lsprotocol and the conversion package only. The analysis, the pydantic models, the catalogue
and the features load in ``RunwayLanguageServer.load``, right after the response. A module
that slips into the start-up imports again shows up here, not only as a slower benchmark."""

from __future__ import annotations

import json
import subprocess
import sys

#: Loaded only by RunwayLanguageServer.load (after the initialize response).
DEFERRED = ("pydantic", "runway_core.analysis", "runway_core.model", "runway_core.catalog", "runway_core.planner",
            "runway_core.rules", "runway_core.ide", "runway_lsp.session")


def test_the_server_imports_nothing_heavy_before_initialize():
    code = (
        "import json, sys, runway_lsp.server, runway_lsp.__main__\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    loaded = json.loads(out)
    early = [m for m in loaded if any(m == d or m.startswith(d + ".") for d in DEFERRED)]
    assert early == [], f"imported before initialize: {early}"
    assert "pygls" in loaded and "lsprotocol" in loaded


def test_load_brings_the_analysis_in():
    # The other side: after load() the deferred modules are there (the test above is not vacuous).
    code = (
        "import json, sys\n"
        "from runway_lsp.server import RunwayLanguageServer\n"
        "s = RunwayLanguageServer()\n"
        "s.load()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert {"pydantic", "runway_core.analysis", "runway_core.catalog", "runway_lsp.session"} <= set(loaded)
