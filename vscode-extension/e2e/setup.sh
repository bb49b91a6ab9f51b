#!/usr/bin/env bash
# Install what the E2E run needs, once, from the package registries only: Debian chromium +
# ripgrep, and code-server 4.100.3
# (VS Code 1.100.3, the last release whose engines allow Node 20) into a cache folder.
# Reused when present (a stamp file marks a complete install). Usage: setup.sh [CACHE_DIR]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${1:-${RUNWAY_E2E_CACHE:-$HERE/../.e2e-cache}}"
CS_VERSION="4.100.3"
STAMP="$CACHE/code-server-$CS_VERSION.ok"

log() { printf '[e2e setup %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# --- Debian packages ---------------------------------------------------------------------
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/rg ] || need+=(ripgrep)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "missing ${need[*]}: install them (apt-get install -y ${need[*]}) or run as root"; exit 1
  fi
  log "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# --- code-server -------------------------------------------------------------------------
if [ -f "$STAMP" ]; then
  log "code-server $CS_VERSION already in $CACHE"
  exit 0
fi
mkdir -p "$CACHE"
CS_HOME="$CACHE/code-server-$CS_VERSION"
rm -rf "$CS_HOME"
mkdir -p "$CS_HOME"
cd "$CS_HOME"
# Keep npm's own cache and logs inside the cache folder too.
export npm_config_cache="$CACHE/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
NODE_GYP="$(npm prefix -g)/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"

log "npm install code-server@$CS_VERSION"
cat > package.json <<JSON
{ "name": "runway-e2e-code-server", "version": "1.0.0", "private": true,
  "allowScripts": { "argon2": true, "code-server": false } }
JSON
# npm 11 refuses code-server's nested postinstall as root: install without scripts, then build
# argon2 (code-server's password hashing; unused with --auth none) best-effort by hand.
npm install --no-save --ignore-scripts --loglevel=error "code-server@$CS_VERSION" >/dev/null
(cd node_modules/argon2 && npm run install --if-present >/dev/null 2>&1 || node "$NODE_GYP" rebuild --nodedir=/usr >/dev/null 2>&1 || true)

VS="$CS_HOME/node_modules/code-server/lib/vscode"
log "npm install in lib/vscode (runtime dependencies, no scripts)"
(cd "$VS" && npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null)

log "node-gyp rebuild of the native modules against /usr/include/node"
for mod in @vscode/spdlog node-pty native-watchdog @vscode/deviceid; do
  if [ -d "$VS/node_modules/$mod" ]; then
    (cd "$VS/node_modules/$mod" && node "$NODE_GYP" rebuild --nodedir=/usr >/dev/null 2>&1) || log "warning: $mod did not build"
  fi
done
# kerberos needs gssapi headers and is not needed on loopback.

log "ripgrep, links"
mkdir -p "$VS/node_modules/@vscode/ripgrep/bin"
ln -sfn /usr/bin/rg "$VS/node_modules/@vscode/ripgrep/bin/rg"
(cd "$VS" && ln -sfn node_modules node_modules.asar)
(cd "$VS/bin/remote-cli" && ln -sfn code-linux.sh code-server)
(cd "$VS/bin/helpers" && ln -sfn browser-linux.sh browser.sh)

log "built-in extensions' dependencies"
(cd "$VS/extensions" && npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null && node postinstall.mjs >/dev/null)

node "$CS_HOME/node_modules/code-server/out/node/entry.js" --version >/dev/null
touch "$STAMP"
log "code-server $CS_VERSION ready in $CS_HOME ($(du -sh "$CS_HOME" | cut -f1))"
