#!/usr/bin/env bash
# The extension's E2E in a real VS Code (code-server 4.100.3 + Debian Chromium): installs what
# is missing (e2e/setup.sh, cached in .e2e-cache/), packages the .vsix when it is not built,
# then runs e2e/run.mjs. Exit 0 only when every check passed.
# Environment: RUNWAY_E2E_PYTHON (default <repo>/.venv/bin/python), RUNWAY_E2E_CACHE.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash e2e/setup.sh
[ -f runway-yaml-linux-x64.vsix ] || npm run --silent package
exec node e2e/run.mjs
