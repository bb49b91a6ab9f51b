// End to end in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) + Debian Chromium driven
// by playwright-core, with the built .vsix installed into a fresh extensions folder, as a new
// user would. Run through e2e/run.sh, which installs
// code-server into the cache folder first.
//
// Checks, on a temporary copy of examples/orders (and a broken copy of it):
//   1. the language mode of runway.yaml is the extension's ("Runway YAML");
//   2. the status bar shows dev's cost against its cap, with the warning colour (81 %);
//   3. a hover over `main-db` shows its cost in every environment;
//   4. code lenses show each environment's total;
//   5. Runway: Select Environment switches the status bar to production;
//   6. a cost lens and Runway: Show Plan open the webview: the chart (a bar per environment) and
//      every environment side by side;
//   7. the broken copy lists its problems in the Problems panel;
//   8. a quick fix applied through the UI (Ctrl+.) changes the file as expected;
//   9. with an interpreter that lacks runway_lsp, the error names it and how to get the tooling
//      (not on PyPI), the status bar says the server is not running (so does Show Plan), and
//      the cost comes back once the interpreter is fixed. (Also: "used by N" opens the
//      references peek; the selected environment is never written to .vscode/settings.json.)
// Screenshots go to e2e/artifacts/ (every step) and docs/images/ (for the README).
//
// Every path the run writes (HOME, XDG_*, TMPDIR, profiles) is inside one temp folder;
// servers bind 127.0.0.1; every process started is stopped by PID (with its descendants,
// which include the fileWatcher and the language server) at the end.
//
// Environment: RUNWAY_E2E_PYTHON (the venv python that has runway-tooling; default
// <repo>/.venv/bin/python), RUNWAY_E2E_CACHE, RUNWAY_E2E_VSIX, RUNWAY_E2E_KEEP=1 (keep the temp folder),
// RUNWAY_E2E_UPDATE_IMAGES=0 (leave docs/images/ alone).

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT = path.resolve(HERE, '..');
const REPO = path.resolve(EXT, '..');
const CS_VERSION = '4.100.3';
const CACHE = process.env.RUNWAY_E2E_CACHE || path.join(EXT, '.e2e-cache');
const ENTRY = path.join(CACHE, `code-server-${CS_VERSION}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const VSIX = process.env.RUNWAY_E2E_VSIX || path.join(EXT, 'runway-yaml.vsix');
const PYTHON = process.env.RUNWAY_E2E_PYTHON || path.join(REPO, '.venv', 'bin', 'python');
const ARTIFACTS = path.join(HERE, 'artifacts');
const IMAGES = path.join(REPO, 'docs', 'images');
const CHROMIUM = process.env.RUNWAY_E2E_CHROMIUM || '/usr/bin/chromium';
// README screenshots go to docs/images/ too unless RUNWAY_E2E_UPDATE_IMAGES=0 (always to artifacts/readme/).
const UPDATE_IMAGES = process.env.RUNWAY_E2E_UPDATE_IMAGES !== '0';
const STEP_TIMEOUT = 30_000;

const t0 = Date.now();
const timings = [];
let lastMark = t0;
function mark(what) {
  const now = Date.now();
  timings.push([what, now - lastMark]);
  console.log(`[e2e ${((now - t0) / 1000).toFixed(1)}s] ${what} (${((now - lastMark) / 1000).toFixed(1)}s)`);
  lastMark = now;
}

const results = [];
async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: Date.now() - started });
    console.log(`ok - ${name} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  } catch (error) {
    results.push({ name, ok: false, ms: Date.now() - started, error });
    console.log(`not ok - ${name}: ${error?.message ?? error}`);
    await shot(`FAILED-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`).catch(() => undefined);
  }
}

// --- processes -----------------------------------------------------------------------------

const started = []; // PIDs of process groups we started

/** Every descendant PID of `pid` (from /proc). */
function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    for (const c of children.get(stack.pop()) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopTree(pid) {
  const pids = [pid, ...descendants(pid)];
  for (const p of pids) {
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      // gone
    }
  }
  for (let i = 0; i < 50 && pids.some(alive); i++) await sleep(100);
  for (const p of pids.filter(alive)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  return pids;
}

/** PIDs whose environment carries this run's marker (processes this run started, however reparented). */
function markedProcesses(marker) {
  const needle = Buffer.from(`RUNWAY_E2E_RUN=${marker}\0`);
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`).includes(needle)) out.push(Number(entry));
    } catch {
      // exited, or not ours to read
    }
  }
  return out;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// --- setup ---------------------------------------------------------------------------------

if (!existsSync(ENTRY)) throw new Error(`code-server is not installed in ${CACHE}: run e2e/setup.sh`);
if (!existsSync(VSIX)) throw new Error(`${VSIX} is missing: run npm run package`);
if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: set RUNWAY_E2E_PYTHON to a python with runway-tooling installed`);
if (spawnSync(PYTHON, ['-c', 'import runway_lsp'], { stdio: 'ignore' }).status !== 0) throw new Error(`${PYTHON} cannot import runway_lsp`);
mkdirSync(ARTIFACTS, { recursive: true });
for (const f of readdirSync(ARTIFACTS)) rmSync(path.join(ARTIFACTS, f), { recursive: true, force: true });
mkdirSync(IMAGES, { recursive: true });

const TMP = mkdtempSync(path.join(os.tmpdir(), 'runway-e2e-'));
const dirs = {
  home: path.join(TMP, 'home'),
  config: path.join(TMP, 'xdg', 'config'),
  data: path.join(TMP, 'xdg', 'data'),
  state: path.join(TMP, 'xdg', 'state'),
  cache: path.join(TMP, 'xdg', 'cache'),
  runtime: path.join(TMP, 'xdg', 'runtime'),
  tmp: path.join(TMP, 'tmp'),
  userData: path.join(TMP, 'user-data'),
  extensions: path.join(TMP, 'extensions'),
  browser: path.join(TMP, 'browser'),
  work: path.join(TMP, 'work'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
// playwright-core keeps its own temp files under os.tmpdir(): inside the run's folder too.
process.env.TMPDIR = dirs.tmp;
const env = {
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  HOME: dirs.home,
  XDG_CONFIG_HOME: dirs.config,
  XDG_DATA_HOME: dirs.data,
  XDG_STATE_HOME: dirs.state,
  XDG_CACHE_HOME: dirs.cache,
  XDG_RUNTIME_DIR: dirs.runtime,
  TMPDIR: dirs.tmp,
  PYTHONDONTWRITEBYTECODE: '1',
  // Every process of this run inherits it: the final sweep finds them even when reparented.
  RUNWAY_E2E_RUN: TMP,
};

// The workspace: a copy of examples/orders, and a broken copy of it.
const orders = path.join(dirs.work, 'orders');
const broken = path.join(dirs.work, 'broken');
cpSync(path.join(REPO, 'examples', 'orders'), orders, { recursive: true });
cpSync(path.join(REPO, 'examples', 'orders'), broken, { recursive: true });
const brokenRoot = path.join(broken, 'runway.yaml');
const brokenText = readFileSync(brokenRoot, 'utf8').replace('product: orders', 'product: orders-broken').replace('      production: large', '      production: lage').replace('    kind: topic', '    kind: topik');
if (!brokenText.includes('production: lage') || !brokenText.includes('kind: topik')) throw new Error('the broken copy could not be made');
writeFileSync(brokenRoot, brokenText);

// The test profile: the server command points at the project's venv python.
const settings = {
  'runway.server.command': [PYTHON, '-m', 'runway_lsp', '--log-level', 'INFO'],
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'editor.hover.delay': 200,
  'editor.minimap.enabled': false,
  'editor.fontSize': 14,
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'chat.commandCenter.enabled': false,
  'workbench.colorTheme': 'Default Dark Modern',
};
mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
mark('temp folder, workspace and profile');

// Install the .vsix offline into the fresh extensions folder.
const install = spawnSync(process.execPath, [ENTRY, '--install-extension', VSIX, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData], {
  env,
  cwd: TMP,
  encoding: 'utf8',
  timeout: 120_000,
});
if (install.status !== 0) throw new Error(`--install-extension failed: ${install.stdout}\n${install.stderr}`);
const installed = readdirSync(dirs.extensions).filter((d) => d.startsWith('runway-tooling.runway-yaml'));
if (!installed.length) throw new Error(`the extension is not in ${dirs.extensions}: ${install.stdout}`);
mark(`installed ${installed[0]}`);

// --- code-server -----------------------------------------------------------------------------

const port = await freePort();
const logFile = path.join(ARTIFACTS, 'code-server.log');
const serverLog = [];
const server = spawn(
  process.execPath,
  [
    ENTRY,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    dirs.work,
  ],
  { env, cwd: TMP, stdio: ['ignore', 'pipe', 'pipe'] },
);
started.push(server.pid);
server.stdout.on('data', (b) => serverLog.push(b.toString()));
server.stderr.on('data', (b) => serverLog.push(b.toString()));

let browser;
let page;
let exitCode = 1;

async function shot(name, options = {}) {
  if (!page) return;
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, ...options });
  return file;
}

/** A README screenshot (docs/images/NAME.png) of `clip`; a copy stays in artifacts/readme/. */
async function readmeShot(name, clip) {
  mkdirSync(path.join(ARTIFACTS, 'readme'), { recursive: true });
  const file = path.join(ARTIFACTS, 'readme', `${name}.png`);
  await page.screenshot({ path: file, clip });
  if (UPDATE_IMAGES) cpSync(file, path.join(IMAGES, `${name}.png`));
}

/** A clip around `boxes` (padding, kept inside the viewport). */
function clipAround(boxes, pad = 12) {
  const vp = page.viewportSize();
  const x0 = Math.max(0, Math.min(...boxes.map((b) => b.x)) - pad);
  const y0 = Math.max(0, Math.min(...boxes.map((b) => b.y)) - pad);
  const x1 = Math.min(vp.width, Math.max(...boxes.map((b) => b.x + b.width)) + pad);
  const y1 = Math.min(vp.height, Math.max(...boxes.map((b) => b.y + b.height)) + pad);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

async function waitFor(what, fn, timeout = STEP_TIMEOUT) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (${last.message})` : ''}`);
}

async function statusTexts() {
  return page.$$eval('.part.statusbar .statusbar-item', (items) => items.map((i) => ({ id: i.id, text: i.innerText.trim(), cls: i.className })));
}

async function runCommand(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await page.keyboard.press('Enter');
}

async function openFile(relative) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(relative);
  const row = page.locator('.quick-input-list .monaco-list-row').first();
  await row.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await waitFor(`quick open to list ${relative}`, async () => (await row.getAttribute('aria-label'))?.includes(path.basename(path.dirname(relative))));
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: 'runway.yaml' }).waitFor({ timeout: STEP_TIMEOUT });
}

async function goToLine(line) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(`:${line}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
}

/** The span of the visible editor line whose text starts (after indentation) with `text`. */
async function lineSpan(text) {
  const line = page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: text }).first();
  await line.waitFor({ timeout: STEP_TIMEOUT });
  return line;
}

try {
  await waitFor('code-server /healthz', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return res?.ok;
  });
  mark(`code-server listening on 127.0.0.1:${port}`);

  browser = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: CHROMIUM,
    headless: true,
    env,
    viewport: { width: 1400, height: 900 },
    deviceScaleFactor: 1,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-features=Translate,MediaRouter,OptimizationHints',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT);
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.work)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.part.statusbar').waitFor();
  mark('workbench loaded');

  await openFile('orders/runway.yaml');
  mark('orders/runway.yaml open');

  await check('language mode is Runway YAML', async () => {
    await waitFor('the language mode', async () => {
      const mode = await page.locator('#status\\.editor\\.mode').innerText();
      return mode.trim() === 'Runway YAML';
    });
  });

  await check('status bar shows the dev cost near its cap', async () => {
    const item = await waitFor('the runway cost item', async () => (await statusTexts()).find((i) => /dev \$\d+ \/ \$150/.test(i.text)));
    if (item.text !== 'dev $127 / $150') throw new Error(`status bar: ${item.text}`);
    if (!/warning-kind/.test(item.cls)) throw new Error(`no warning colour at 81 %: ${item.cls}`);
    mark(`status bar: ${item.text}`);
    const bar = await page.locator('.part.statusbar').boundingBox();
    await shot('status-bar', { clip: bar });
    // For the README: the item and its tooltip (every environment).
    const el = page.locator('.part.statusbar .statusbar-item', { hasText: 'dev $127' }).first();
    await el.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'staging' }).first();
    await tip.waitFor({ timeout: 10_000 });
    await sleep(300);
    const boxes = [await el.boundingBox(), await tip.boundingBox()];
    await readmeShot('status-bar', clipAround(boxes, 16));
    await page.mouse.move(700, 400);
  });

  await check('code lenses show each environment total', async () => {
    const lenses = page.locator('.editor-group-container.active .codelens-decoration');
    await waitFor('code lenses with costs', async () => {
      const texts = await lenses.allInnerTexts();
      return texts.some((t) => /dev .*\$127/.test(t)) && texts.some((t) => /production/.test(t));
    });
    await goToLine(18);
    await sleep(400);
    const editor = await page.locator('.editor-group-container.active .monaco-editor').first().boundingBox();
    const clip = { x: editor.x, y: editor.y, width: Math.min(editor.width, 900), height: Math.min(editor.height, 520) };
    await readmeShot('lenses', clip);
    await shot('lenses');
  });

  await check('hover over main-db shows the cost in every environment', async () => {
    await goToLine(39);
    const line = await lineSpan('main-db:');
    const word = line.locator('span', { hasText: 'main-db' }).last();
    const box = await word.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)', { hasText: 'production' }).first();
    await hover.waitFor({ timeout: 15_000 });
    const text = await hover.innerText();
    for (const env of ['dev', 'staging', 'production']) if (!text.includes(env)) throw new Error(`hover lacks ${env}: ${text}`);
    if (!/\$\d/.test(text)) throw new Error(`hover has no cost: ${text}`);
    await sleep(300);
    await readmeShot('hover', clipAround([box, await hover.boundingBox()], 16));
    await shot('hover');
    await page.mouse.move(1300, 850);
  });

  await check('"used by N" opens the references peek', async () => {
    await goToLine(39);
    // main-db's lens (its users: metabase, zitadel and two members).
    const lens = page.locator('.editor-group-container.active .codelens-decoration a[title*="metabase"]', { hasText: /^used by \d+$/ }).filter({ visible: true }).first();
    await waitFor('the references peek from a used-by lens', async () => {
      await lens.click();
      return page.locator('.zone-widget .peekview-widget, .reference-zone-widget').first().waitFor({ timeout: 3000 }).then(
        () => true,
        () => false,
      );
    });
    const peek = page.locator('.reference-zone-widget').first();
    const text = await waitFor('references listed', async () => {
      const t = await peek.innerText();
      return /metabase|zitadel|checkout|billing/.test(t) ? t : undefined;
    });
    if (!/Locations \(4\)|4 references/i.test(await page.locator('.zone-widget .peekview-title').first().innerText())) throw new Error(`peek: ${text}`);
    await shot('used-by-peek');
    await page.keyboard.press('Escape');
  });

  await check('Select Environment switches the status bar to production', async () => {
    await page.locator('.part.statusbar .statusbar-item', { hasText: 'dev $127' }).first().click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'production' }).first().waitFor();
    await shot('select-environment');
    await input.fill('production');
    await page.keyboard.press('Enter');
    const item = await waitFor('production in the status bar', async () => (await statusTexts()).find((i) => /^production \$/.test(i.text)));
    if (item.text !== 'production $828 / $2,500') throw new Error(`status bar: ${item.text}`);
    if (/warning-kind|error-kind/.test(item.cls)) throw new Error(`production is at 32 %: ${item.cls}`);
    // The choice lives in the workspace memento: nothing is written into the user's repository.
    if (existsSync(path.join(dirs.work, '.vscode', 'settings.json'))) throw new Error(`.vscode/settings.json written: ${readFileSync(path.join(dirs.work, '.vscode', 'settings.json'), 'utf8')}`);
  });

  await check('Show Plan opens the chart and every environment', async () => {
    // A click on an environment's cost lens opens the plan; so does the command.
    // (A lens clicked while VS Code replaces the lenses after a refresh runs nothing; click again.)
    await goToLine(10);
    await waitFor('the plan view from a lens', async () => {
      await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'staging $258' }).first().click();
      return page.locator('.tab', { hasText: 'Runway Plan' }).first().waitFor({ timeout: 3000 }).then(
        () => true,
        () => false,
      );
    });
    await runCommand('Runway: Show Plan');
    const frame = await waitFor('the plan webview', async () => {
      for (const f of page.frames()) {
        if ((await f.locator('svg.chart').count().catch(() => 0)) > 0) return f;
      }
      return undefined;
    });
    const bars = await frame.locator('svg.chart g.env').count();
    if (bars !== 3) throw new Error(`${bars} bars`);
    const heads = await frame.locator('table.plan th.env-head').allInnerTexts();
    if (heads.join(',') !== 'dev,staging,production') throw new Error(`environments side by side: ${heads}`);
    const mainDb = await frame.locator('table.plan tr', { hasText: 'main-db' }).first().innerText();
    if (!/small\s+\$36\.28\s+medium\s+\$139\.47\s+large\s+\$325\.81/.test(mainDb)) throw new Error(`main-db row: ${mainDb}`);
    if ((await frame.locator('svg.chart g.env.selected').getAttribute('data-env')) !== 'production') throw new Error('the selected environment is not marked');
    await page.locator('.tab', { hasText: 'Runway Plan' }).first().click();
    await runCommand('View: Toggle Maximize Editor Group');
    // A lens clicked while VS Code swaps the lenses leaves a "command not found" toast: not for the README.
    await runCommand('Notifications: Clear All Notifications');
    await sleep(800);
    const panel = await page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: 'Runway Plan' }) }).boundingBox();
    await readmeShot('plan-view', panel);
    await shot('plan-view');
    await runCommand('View: Toggle Maximize Editor Group');
  });

  await check('the broken copy lists its problems in the Problems panel', async () => {
    await runCommand('View: Close All Editors');
    await openFile('broken/runway.yaml');
    await runCommand('View: Focus Problems');
    const panel = page.locator('.markers-panel');
    await panel.waitFor();
    const text = await waitFor('RW130, RW120 and RW140 in the Problems panel', async () => {
      const t = await panel.innerText();
      return ['RW130', 'RW120', 'RW140'].every((c) => t.includes(c)) ? t : undefined;
    });
    if (!text.includes('lage')) throw new Error(`no RW130 message about lage: ${text}`);
    await shot('problems');
  });

  await check('a quick fix through the UI changes the file', async () => {
    await page.locator('.editor-group-container.active .monaco-editor').first().click();
    const line = await waitFor('the line with lage', async () => {
      await goToLine(brokenText.split('\n').findIndex((l) => l.includes('production: lage')) + 1);
      return lineSpan('production: lage');
    });
    const word = line.locator('span', { hasText: 'lage' }).last();
    await word.click();
    await page.keyboard.press('Control+.');
    const menu = page.locator('.action-widget');
    await menu.waitFor({ state: 'visible', timeout: 15_000 });
    await menu.locator('.monaco-list-row', { hasText: 'Change size to large' }).first().waitFor();
    await shot('quick-fix-menu');
    // The keyboard, as a user does (a click is swallowed by the context view's pointer block).
    await waitFor('the large fix focused', async () => {
      if ((await menu.locator('.monaco-list-row.focused', { hasText: 'Change size to large' }).count()) > 0) return true;
      await page.keyboard.press('ArrowDown');
      return false;
    }, 10_000);
    await page.keyboard.press('Enter');
    await waitFor('the fixed line in the editor', async () => (await page.locator('.editor-group-container.active .view-line', { hasText: 'production: large' }).count()) > 0);
    await page.keyboard.press('Control+S');
    const fixed = await waitFor('the saved file', async () => {
      const t = readFileSync(brokenRoot, 'utf8');
      return t.includes('      production: large') ? t : undefined;
    });
    const expected = brokenText.replace('      production: lage', '      production: large');
    if (fixed !== expected) throw new Error('the quick fix changed more than the size');
    await waitFor('RW130 gone from the Problems panel', async () => !(await page.locator('.markers-panel').innerText()).includes('RW130'));
    await shot('quick-fix-applied');
  });

  await check('a missing server module: the interpreter by path, how to get the tooling, server-not-running status', async () => {
    // A stand-in interpreter: `-c "import runway_lsp"` fails as a python without the module
    // does; `-m pip install ...` records its arguments instead of installing anything.
    const fake = path.join(TMP, 'bin', 'python-without-runway');
    const marker = path.join(TMP, 'pip-install-args.txt');
    mkdirSync(path.dirname(fake), { recursive: true });
    writeFileSync(
      fake,
      `#!/bin/sh\nif [ "$1" = "-c" ]; then echo "ModuleNotFoundError: No module named 'runway_lsp'" >&2; exit 1; fi\n` +
        `if [ "$1 $2 $3" = "-m pip install" ]; then shift 3; echo "$*" > '${marker}'; echo "pip install $* (recorded by the e2e stand-in)"; exit 0; fi\nexit 2\n`,
      { mode: 0o755 },
    );
    // In the workspace settings (an empty command gives way to pythonPath); the extension restarts the server.
    const workspaceSettings = path.join(dirs.work, '.vscode', 'settings.json');
    const current = existsSync(workspaceSettings) ? JSON.parse(readFileSync(workspaceSettings, 'utf8')) : {};
    mkdirSync(path.dirname(workspaceSettings), { recursive: true });
    writeFileSync(workspaceSettings, JSON.stringify({ ...current, 'runway.server.command': [], 'runway.server.pythonPath': fake }, null, 2));
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'is not installed' }).first();
    await toast.waitFor({ timeout: 20_000 });
    const message = await toast.innerText();
    // Outside a checkout of the tooling: how to get it (not on PyPI) and the interpreter picker.
    if (!message.includes(fake) || !message.includes('not on PyPI') || message.includes('pip install runway-tooling')) throw new Error(`notification: ${message}`);
    for (const button of ['Select Python interpreter', 'Open Settings']) if (!message.includes(button)) throw new Error(`no "${button}" button: ${message}`);
    // The status bar says the server is not running; its click and Show Plan say where to look.
    const item = await waitFor('the not-running status item', async () => (await statusTexts()).find((i) => i.text === 'runway: server not running'));
    if (!/error-kind/.test(item.cls)) throw new Error(`not-running item without the error colour: ${item.cls}`);
    await shot('install-notification');
    await runCommand('Runway: Show Plan');
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'the runway server is not running — see the Runway output' }).first().waitFor({ timeout: 10_000 });
    // Back to the working interpreter: the status item shows the cost again.
    writeFileSync(workspaceSettings, JSON.stringify(current, null, 2));
    await waitFor('the cost back in the status bar', async () => (await statusTexts()).find((i) => /^production (≥ )?\$/.test(i.text)), 30_000); // the broken copy: a lower bound
    void marker;
  });

  await shot('final');
  if (consoleErrors.length) writeFileSync(path.join(ARTIFACTS, 'browser-console-errors.txt'), consoleErrors.join('\n'));
  exitCode = results.every((r) => r.ok) ? 0 : 1;
} catch (error) {
  console.log(`not ok - e2e run: ${error?.stack ?? error}`);
  await shot('FAILED-run').catch(() => undefined);
  exitCode = 1;
} finally {
  if (browser) await browser.close().catch(() => undefined);
  mark('browser closed');
  // The extension host's output (the Runway channel included) for the artifacts.
  const logs = path.join(dirs.userData, 'logs');
  if (existsSync(logs)) cpSync(logs, path.join(ARTIFACTS, 'vscode-logs'), { recursive: true });
  const stopped = [];
  for (const pid of started) stopped.push(...(await stopTree(pid)));
  // Anything of this run still alive (e.g. a fileWatcher reparented to init): stop it by PID.
  for (const pid of markedProcesses(TMP)) stopped.push(...(await stopTree(pid)));
  const leftover = [...stopped.filter(alive), ...markedProcesses(TMP)];
  writeFileSync(logFile, serverLog.join(''));
  mark(`stopped ${stopped.length} processes (code-server, its children, the language server)${leftover.length ? `; STILL ALIVE: ${leftover.join(' ')}` : ''}`);
  if (leftover.length) exitCode = 1;
  if (process.env.RUNWAY_E2E_KEEP === '1') console.log(`kept ${TMP}`);
  else rmSync(TMP, { recursive: true, force: true });
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  console.log(`e2e: ${((Date.now() - t0) / 1000).toFixed(1)}s in all; artifacts in ${path.relative(process.cwd(), ARTIFACTS) || ARTIFACTS}`);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  if (failed === 0 && exitCode !== 0) console.log('e2e: the run itself failed (see above)');
  process.exitCode = exitCode;
}
