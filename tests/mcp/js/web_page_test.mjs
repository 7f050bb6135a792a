#!/usr/bin/env node
// The web page end to end (issue 22, "How it is checked"): `uiscope mcp
// --http` with a token serves the page beside /mcp; a headless browser is
// the person: Debian's Chromium driven by playwright-core (the default), or
// Debian's Firefox ESR driven by puppeteer-core over WebDriver BiDi
// (--browser firefox; web_browsers.mjs holds both behind one interface, so
// every check below runs the same in each); the official SDK client over
// Streamable HTTP is the agent; two real headless sessions, the GTK3 fixture
// in the first.
//
//   node web_page_test.mjs BUILD_DIR [--browser chromium|firefox]
//
// Checks:
//   - without the page's token (printed by the server on stderr, after `#`;
//     not the MCP token the agent holds) the API is refused (401); the
//     page keeps the token in memory, out of the address bar, and sets no
//     cookie (a cookie would reach every other server on 127.0.0.1);
//   - a foreign Origin is refused (403), on the page's API and on /mcp;
//   - the wall shows both sessions as tiles;
//   - a click in session A updates A's tile within 1 s (and not B's);
//   - a held action (an ambiguous name, R4) appears on the page with its
//     candidates and a crop of where they are, is approved with the
//     keyboard only (Tab, Enter), and the agent's waiting confirm call
//     completes with the action performed in the app;
//   - Escape on a held action denies it; the agent's call reports the
//     refusal and the app is untouched;
//   - the audit view filtered by decision shows that refusal, only;
//   - forget on the memory view removes the fixture's learned memory
//     (`uiscope memory list` no longer has it);
//   - the session view draws element boxes and the tree, finds, highlights;
//   - with the fixture on deny_apps, its window is black on the page's
//     screenshot (as in the agent's).
//   - no script error and no Content-Security-Policy violation on the page.
// Screenshots of each page state are saved under the artifacts directory
// printed at the start ($UISCOPE_TEST_ARTIFACTS/web for Chromium,
// $UISCOPE_TEST_ARTIFACTS/web/firefox for Firefox, else a new temporary one,
// kept). Prints one line per check and "N passed, N failed"; exit 1 on a
// failure, 2 on usage, 77 (skipped) when the browser is not installed.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsc, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { BROWSERS, PACKAGES, launchBrowser } from './web_browsers.mjs';

const GLOBAL_DEADLINE_MS = 300_000;
const REQUEST_TIMEOUT_MS = 60_000;
const APP_READY_DEADLINE_MS = 30_000;
const FIXTURE_NAME = 'uiscope-web-fixture';
const TOKEN = 'web-test-token-4f1c9a';
const SKIPPED = 77; // ctest's SKIP_RETURN_CODE for web.browser.*

let passed = 0;
let failed = 0;
const cleanups = [];

function log(line) {
  process.stdout.write(`${line}\n`);
}
function short(v, max = 400) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > max ? `${s.slice(0, max)}…` : s;
}
async function check(name, fn) {
  try {
    const detail = await fn();
    passed += 1;
    log(`PASS  ${name}${detail ? `: ${detail}` : ''}`);
  } catch (e) {
    failed += 1;
    log(`FAIL  ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
function run(file, args, env, timeout = 60_000) {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function cleanupAll() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (e) {
      log(`warning: clean-up failed: ${e}`);
    }
  }
}

const USAGE = 'usage: node web_page_test.mjs BUILD_DIR [--browser chromium|firefox]';
const build = process.argv[2];
let browserKind = 'chromium';
if (process.argv.length === 5 && process.argv[3] === '--browser') {
  browserKind = process.argv[4];
} else if (process.argv.length !== 3) {
  log(USAGE);
  process.exit(2);
}
if (!build || !(browserKind in BROWSERS)) {
  log(USAGE);
  process.exit(2);
}
const browserBin = BROWSERS[browserKind];
try {
  accessSync(browserBin, fsc.X_OK);
} catch {
  log(`SKIP  ${browserKind}: no executable ${browserBin} (Debian: apt-get install ${PACKAGES[browserKind]})`);
  process.exit(SKIPPED);
}
const uiscope = path.resolve(build, 'bin', 'uiscope');
const fixtureBin = path.resolve(build, 'bin', 'uiscope-fixture-gtk3');
for (const f of [uiscope, fixtureBin]) {
  try {
    accessSync(f, fsc.X_OK);
  } catch {
    log(`no executable ${f}`);
    process.exit(2);
  }
}
const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-web-'));
// Chromium's where they always were; Firefox's beside them.
const artifacts = process.env.UISCOPE_TEST_ARTIFACTS
  ? path.resolve(process.env.UISCOPE_TEST_ARTIFACTS, 'web', ...(browserKind === 'chromium' ? [] : [browserKind]))
  : mkdtempSync(path.join(tmpdir(), `uiscope-web-artifacts-${browserKind}-`));
mkdirSync(artifacts, { recursive: true });
log(`screenshots in ${artifacts}`);
let env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
delete env.DISPLAY;
delete env.DBUS_SESSION_BUS_ADDRESS;
delete env.AT_SPI_BUS_ADDRESS;
delete env.UISCOPE_CONFIG;
delete env.UISCOPE_MCP_TOKEN;
delete env.UISCOPE_PAGE_TOKEN;
delete env.UISCOPE_SESSION;
cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
const cfg = path.join(stateDir, 'config.json');
// A person decides (the agent may not), in a database of this test's own.
writeFileSync(cfg, JSON.stringify({ database: path.join(stateDir, 'web.db'), confirmations: { agent_may_confirm: false } }));

async function startSession() {
  const r = await run(uiscope, ['session', 'start', '--json'], env);
  if (r.code !== 0) throw new Error(`uiscope session start: ${short(r.stderr || r.stdout)}`);
  const session = JSON.parse(r.stdout.trim().split('\n').pop());
  cleanups.push(async () => {
    await run(uiscope, ['session', 'stop', session.id], env, 20_000);
  });
  return session;
}

// The GTK3 fixture on `fenv`'s desktop and its control channel
// (tests/fixtures/gtk3_app/main.c).
async function startFixture(fenv) {
  const child = spawn(fixtureBin, ['--name', FIXTURE_NAME], { env: fenv, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {});
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
  });
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const ready = await Promise.race([next(), sleep(APP_READY_DEADLINE_MS).then(() => null)]);
  if (!ready?.startsWith('ready')) throw new Error(`fixture printed no "ready": ${ready}`);
  return async (command) => {
    const answer = next();
    child.stdin.write(`${command}\n`);
    const line = await Promise.race([answer, sleep(10_000).then(() => null)]);
    if (!line?.startsWith('ok')) throw new Error(`fixture "${command}": ${line}`);
    return line.slice(3);
  };
}

// `uiscope mcp --http 127.0.0.1:0 --token TOKEN` on `senv`'s desktop: its
// base URL and the page's URL (with the page's own token) from stderr.
async function startServer(senv, config = cfg) {
  const child = spawn(uiscope, ['mcp', '--http', '127.0.0.1:0', '--token', TOKEN, '--config', config], {
    env: senv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 20_000);
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      const m = stderr.match(/listening on (http:\/\/[^\s]+)\/mcp/);
      const p = stderr.match(/web page at (http:\/\/[^\s]+#token=([^\s]+))/);
      if (m && p) {
        clearTimeout(timer);
        resolve({ base: m[1], pageUrl: p[1], pageToken: p[2] });
      }
    });
  });
}

async function main() {
  const a = await startSession();
  const b = await startSession();
  const aenv = { ...env, ...a.env };
  const ask = await startFixture(aenv);
  const { base, pageUrl, pageToken } = await startServer(aenv);

  const client = new Client({ name: 'uiscope-web-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    { timeout: REQUEST_TIMEOUT_MS },
  );
  cleanups.push(async () => client.close().catch(() => {}));
  const call = (name, args) =>
    client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
      timeout: REQUEST_TIMEOUT_MS,
    });
  // Wait until the agent sees the fixture (its tree is up).
  const deadline = Date.now() + APP_READY_DEADLINE_MS;
  for (;;) {
    const res = await call('find', { name: 'Login', role: 'button', app: FIXTURE_NAME });
    if (!res.isError && res.structuredContent?.matches?.length) break;
    if (Date.now() > deadline) throw new Error(`the fixture never showed up: ${short(res)}`);
    await sleep(250);
  }

  await check("without the page's token its API is refused (the agent's MCP token included)", async () => {
    const codes = [];
    // The page itself holds nothing of the desktop: its script brings the token.
    for (const shell of [`${base}/`, `${base}/app.js`]) {
      const r = await fetch(shell);
      if (r.status !== 200) throw new Error(`${shell}: ${r.status}`);
    }
    for (const [url, headers] of [
      [`${base}/api/confirmations`, {}],
      [`${base}/api/confirmations`, { Cookie: `uiscope_${new URL(base).port}=${pageToken}` }],
      [`${base}/?token=wrong`, {}],
      // The agent's (MCP) token does not open the page: with it an agent
      // could approve its own held actions.
      [`${base}/api/confirmations`, { Authorization: `Bearer ${TOKEN}` }],
      [`${base}/?token=${TOKEN}`, {}],
    ]) {
      const r = await fetch(url, { headers, redirect: 'manual' });
      codes.push(r.status);
      const body = await r.text();
      if (r.status !== 401) throw new Error(`${url}: ${r.status} ${short(body)}`);
      if (body.includes('<script')) throw new Error(`${url}: the refusal carries the page`);
    }
    const ok = await fetch(`${base}/api/confirmations`, { headers: { Authorization: `Bearer ${pageToken}` } });
    if (ok.status !== 200) throw new Error(`with the token: ${ok.status}`);
    return codes.join(' ');
  });
  await check('a foreign Origin is refused (page API and /mcp)', async () => {
    const r1 = await fetch(`${base}/api/confirmations`, { headers: { Authorization: `Bearer ${pageToken}`, Origin: 'https://evil.example' } });
    const r2 = await fetch(`${base}/api/sessions`, { headers: { Authorization: `Bearer ${pageToken}`, Origin: 'http://127.0.0.1:1' } });
    const r3 = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    const r4 = await fetch(`${base}/api/decide`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${pageToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: 'x', decision: 'approve' }),
    });
    if (r1.status !== 403 || r2.status !== 403 || r3.status !== 403 || r4.status !== 403) {
      throw new Error(`${r1.status} ${r2.status} ${r3.status} ${r4.status}`);
    }
    return 'evil.example 403, another local port 403, /mcp 403, a POST without X-Uiscope 403';
  });

  await check('`uiscope web` serves the page alone: its URL on stdout, no /mcp', async () => {
    const child = spawn(uiscope, ['web', '--port', '0', '--config', cfg], { env: aenv, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL on stdout: ${out}`)), 20_000);
        child.stdout.on('data', (d) => {
          out += d.toString();
          const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/)#token=([0-9a-f]{32})\n/);
          if (m) {
            clearTimeout(timer);
            resolve({ base: m[1], token: m[2] });
          }
        });
      });
      const page = await fetch(`${url.base}?token=${url.token}`, { redirect: 'manual' });
      const mcp = await fetch(`${url.base}mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${url.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      const pending = await fetch(`${url.base}api/confirmations`, { headers: { Authorization: `Bearer ${url.token}` } });
      if (page.status !== 303 || mcp.status !== 404 || pending.status !== 200) {
        throw new Error(`page ${page.status}, /mcp ${mcp.status}, API ${pending.status}`);
      }
      return `old-style page URL 303 to the fragment, /mcp 404, API 200`;
    } finally {
      child.kill('SIGTERM');
    }
  });

  const browser = await launchBrowser(browserKind);
  cleanups.push(async () => browser.close());
  log(`browser: ${browser.name} ${browser.version} (${browserBin})`);
  const page = await browser.newPage({ width: 1400, height: 1000 });
  const errors = [];
  page.onPageError((e) => errors.push(e));
  const shot = (name) => page.screenshot(path.join(artifacts, `${name}.png`), { fullPage: true });

  await check('the token in the page URL leaves the address bar and sets no cookie', async () => {
    await page.goto(pageUrl);
    await page.waitFor('#confirm-list p.empty, #confirm-list article', 10_000);
    if (page.url() !== `${base}/`) throw new Error(`address ${page.url()}`);
    const cookies = await page.cookies();
    if (cookies.length) throw new Error(`cookies: ${short(cookies)}`);
    await shot('01-confirmations-empty');
    return 'no cookie; the token in the page script\'s memory';
  });

  const tileVersion = (id) =>
    page.evaluate((s) => Number(document.querySelector(`.tile[data-session="${s}"] img`)?.dataset.version || 0), id);
  await check('the wall shows two sessions', async () => {
    await page.goto(`${base}/#wall`);
    for (const s of [a.id, b.id]) {
      await page.waitForFunction(
        (id) => {
          const img = document.querySelector(`.tile[data-session="${id}"] img`);
          return img && img.complete && img.naturalWidth > 0;
        },
        s,
        { timeout: 15_000 },
      );
    }
    await shot('02-wall');
    const n = await page.count('.tile');
    return `${n} tiles (${a.id}, ${b.id})`;
  });

  await check("a click in session A updates its tile within 1 s, and not B's", async () => {
    await sleep(1000); // let the tiles settle
    const va = await tileVersion(a.id);
    const vb = await tileVersion(b.id);
    await ask('set-email tile@example.org');
    // That change is not the click's: wait until A's tile has shown it and
    // stays the same for 750 ms (three ticks).
    let va2 = await tileVersion(a.id);
    for (let stable = Date.now(); Date.now() - stable < 750; ) {
      await sleep(50);
      const v = await tileVersion(a.id);
      if (v !== va2) {
        va2 = v;
        stable = Date.now();
      }
    }
    const start = Date.now();
    const res = await call('click', { name: 'Login', role: 'button', app: FIXTURE_NAME, settle_ms: 0 });
    const t0 = Date.now();
    if (res.isError) throw new Error(short(res));
    await page.waitForFunction(([s, v]) => Number(document.querySelector(`.tile[data-session="${s}"] img`)?.dataset.version || 0) > v, [a.id, va2], {
      timeout: 1000,
      polling: 20,
    });
    const ms = Date.now() - t0;
    await page.waitForFunction(([s]) => document.querySelector(`.tile[data-session="${s}"] img`)?.complete, [a.id]);
    await shot('03-wall-after-click');
    const vb2 = await tileVersion(b.id);
    if (vb2 !== vb) throw new Error(`B's tile changed too (${vb} -> ${vb2}) although its pixels did not`);
    await page.waitForFunction(() => document.querySelector('#tile-stats').textContent, null, { timeout: 5000 });
    const stats = await page.text('#tile-stats');
    return `A's tile ${va} -> ${va2} -> ${await tileVersion(a.id)} ${ms} ms after the click returned (${t0 - start} ms after it was sent); B stayed ${vb}; ${stats}`;
  });

  // Tabs (and nothing else) until the focus is on `selector`.
  async function tabTo(selector) {
    for (let i = 0; i < 60; i++) {
      await page.press('Tab');
      if (await page.evaluate((sel) => document.activeElement?.matches(sel), selector)) return i + 1;
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  async function heldOpen() {
    const res = await call('click', { name: 'Open', role: 'button', app: FIXTURE_NAME, settle_ms: 200 });
    const s = res.structuredContent;
    if (!res.isError || s?.status !== 'confirmation_required') throw new Error(`not held: ${short(res)}`);
    return s;
  }

  await check('a held action is approved from the page with the keyboard only; the agent call completes', async () => {
    const before = await ask('status');
    const held = await heldOpen();
    const waiting = call('confirm', { token: held.token, wait_ms: 60_000 });
    await page.goto(`${base}/#confirm`);
    const card = `article[data-token="${held.token}"]`;
    await page.waitFor(card, 5000);
    const crop = await fetch(`${base}/api/crop?confirmation=${held.token}`, { headers: { Authorization: `Bearer ${pageToken}` } });
    if (crop.status !== 200 || crop.headers.get('content-type') !== 'image/png') {
      throw new Error(`the crop of the target: ${crop.status} ${short(await crop.text())}`);
    }
    await page.waitForFunction((sel) => document.querySelector(`${sel} figure img`)?.naturalWidth > 0, card, { timeout: 10_000 });
    const items = await page.count(`${card} ol li`);
    if (items < 2) throw new Error(`${items} candidates shown`);
    const label = await page.text(`${card} h3`);
    await shot('04-confirmation-held');
    const tabs = await tabTo(`${card} button[data-action="approve"]`);
    const t0 = Date.now();
    await page.press('Enter');
    const res = await waiting;
    const ms = Date.now() - t0;
    if (res.isError || res.structuredContent?.performed !== true) throw new Error(short(res));
    const after = await ask('status');
    if (!after.startsWith('Opened')) throw new Error(`status ${before} -> ${after}`);
    await page.waitGone(card, 5000);
    await shot('05-confirmation-approved');
    return `"${label}", ${items} candidates, ${tabs} Tabs then Enter; the agent's confirm returned ${ms} ms later; app: ${after}`;
  });

  let deniedToken;
  await check('Escape on a held action denies it; the agent is told and the app untouched', async () => {
    await ask('set-email deny@example.org');
    const before = await ask('status');
    const held = await heldOpen();
    deniedToken = held.token;
    const waiting = call('confirm', { token: held.token, wait_ms: 60_000 });
    const card = `article[data-token="${held.token}"]`;
    await page.waitFor(card, 5000);
    await tabTo(`${card} button[data-action="approve"]`);
    await page.press('Escape');
    const res = await waiting;
    if (!res.isError || res.structuredContent?.status !== 'denied') throw new Error(short(res));
    const after = await ask('status');
    if (after !== before) throw new Error(`status ${before} -> ${after}`);
    await page.waitGone(card, 5000);
    return short(res.content?.[0]?.text, 120);
  });

  await check('the audit view filtered by decision shows the refusal, only', async () => {
    await page.goto(`${base}/#audit`);
    await page.select('#audit-form select[name="decision"]', 'rejected');
    await page.click('#audit-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('#audit tbody tr').length > 0, null, { timeout: 5000 });
    await sleep(300);
    const rows = await page.evalAll('#audit tbody tr', (trs) => trs.map((t) => t.dataset.decision));
    if (rows.some((d) => d !== 'rejected')) throw new Error(`decisions shown: ${rows}`);
    const text = await page.text('#audit tbody');
    if (!text.includes('click')) throw new Error(short(text));
    await shot('06-audit-rejected');
    const r = await fetch(`${base}/api/audit?decision=rejected`, { headers: { Authorization: `Bearer ${pageToken}` } });
    const entries = (await r.json()).entries;
    if (!entries.some((e) => e.token === deniedToken)) throw new Error(`the refusal ${deniedToken} is not in ${short(entries)}`);
    return `${rows.length} rejected row(s)`;
  });

  await check("forget on the memory view removes the fixture's memory", async () => {
    const listed = async () => {
      const r = await run(uiscope, ['memory', 'list', '--json', '--config', cfg], env);
      return r.stdout;
    };
    const deadline2 = Date.now() + 15_000;
    while (!(await listed()).includes(FIXTURE_NAME)) {
      if (Date.now() > deadline2) throw new Error(`memory never held the fixture: ${await listed()}`);
      await sleep(300);
    }
    await page.goto(`${base}/#memory`);
    const item = `#memory-list li[data-app="${FIXTURE_NAME}"]`;
    await page.waitFor(item, 5000);
    await shot('07-memory');
    await page.click(`${item} button[data-action="forget"]`);
    await page.waitGone(item, 5000);
    await shot('08-memory-forgotten');
    const after = await listed();
    if (after.includes(FIXTURE_NAME)) throw new Error(`still listed: ${short(after)}`);
    return 'gone from the page and from `uiscope memory list`';
  });

  await check('the session view draws element boxes and the tree', async () => {
    await page.goto(`${base}/#session/${a.id}`);
    await page.waitFor('#tree li[data-id]', 20_000);
    const boxes = await page.count('#boxes .box');
    const nodes = await page.count('#tree li');
    await page.fill('#find', 'Login');
    const match = await page.count('#tree li.match');
    await page.hover('#tree li.match');
    const hot = await page.count('#boxes .box.hot');
    // The highlighted box sits on Login in the screenshot (the agent's
    // bounds scaled to the image as shown), within 2 px.
    const found = await call('find', { name: 'Login', role: 'button', app: FIXTURE_NAME });
    const bounds = found.structuredContent?.matches?.[0]?.bounds;
    if (!bounds) throw new Error(short(found));
    // The boxes are drawn in percent of the screenshot, which may still be
    // loading: measure once it has its size (before, its height is 0).
    await page.waitForFunction(() => {
      const shot = document.querySelector('#shot');
      return shot.complete && shot.naturalWidth > 0 && shot.getBoundingClientRect().height > 0;
    }, null, { timeout: 20_000, polling: 100 });
    const placed = await page.evaluate((bx) => {
      const img = document.querySelector('#shot').getBoundingClientRect();
      const k = img.width / document.querySelector('#shot').naturalWidth;
      const r = document.querySelector('#boxes .box.hot').getBoundingClientRect();
      const want = [img.left + bx.x * k, img.top + bx.y * k, bx.w * k, bx.h * k];
      return { got: [r.left, r.top, r.width, r.height].map(Math.round), want: want.map(Math.round) };
    }, bounds);
    if (placed.got.some((v, i) => Math.abs(v - placed.want[i]) > 2)) {
      throw new Error(`Login's box at ${placed.got} (x, y, w, h), Login at ${placed.want}`);
    }
    await page.waitFor('#session-actions tbody tr', 5000);
    const actions = await page.count('#session-actions tbody tr');
    await shot('09-session');
    if (!boxes || !match || !hot) throw new Error(`${boxes} boxes, ${match} matches, ${hot} highlighted`);
    const tiles = await page.evaluate(() => [...document.querySelectorAll('.tile .caption')].map((c) => c.textContent));
    if (!tiles.some((t) => t.includes(FIXTURE_NAME))) throw new Error(`no tile names the fixture app: ${short(tiles)}`);
    return `${nodes} nodes, ${boxes} boxes; find "Login": ${match}; hover highlights ${hot}, its box at ${placed.got} on Login at ${placed.want}; ${actions} last actions`;
  });

  await check("a deny-listed app's window is black on the page's screenshot, as in the agent's", async () => {
    const found = await call('find', { name: 'Login', role: 'button', app: FIXTURE_NAME });
    const bounds = found.structuredContent?.matches?.[0]?.bounds;
    if (!bounds) throw new Error(short(found));
    const x = bounds.x + Math.floor(bounds.w / 2);
    const y = bounds.y + Math.floor(bounds.h / 2);
    // The pixel at (x, y) of the page's screenshot of session A, read in the page.
    // The page sends its token in a header (it keeps no cookie): so does this.
    const pixel = (p, token) =>
      p.evaluate(
        async ([id, px, py, t]) => {
          const r = await fetch(`/api/screenshot?session=${id}`, { headers: { Authorization: `Bearer ${t}` } });
          if (!r.ok) return `HTTP ${r.status}`;
          const bitmap = await createImageBitmap(await r.blob());
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const ctx = canvas.getContext('2d');
          ctx.drawImage(bitmap, 0, 0);
          return [...ctx.getImageData(px, py, 1, 1).data.slice(0, 3)];
        },
        [a.id, x, y, token],
      );
    const shown = await pixel(page, pageToken);
    const denyCfg = path.join(stateDir, 'deny.json');
    writeFileSync(denyCfg, JSON.stringify({ database: path.join(stateDir, 'deny.db'), deny_apps: [FIXTURE_NAME] }));
    const denied = await startServer(aenv, denyCfg);
    const other = await browser.newPage();
    await other.goto(denied.pageUrl);
    const hidden = await pixel(other, denied.pageToken);
    await other.screenshot(path.join(artifacts, '10-deny-listed-page.png'));
    await other.close();
    if (!Array.isArray(shown) || shown.every((v) => v === 0)) throw new Error(`without the deny list: ${short(shown)}`);
    if (!Array.isArray(hidden) || hidden.some((v) => v !== 0)) throw new Error(`with the deny list: ${short(hidden)}`);
    return `Login's centre (${x},${y}): rgb(${shown}) without the list, rgb(${hidden}) with it`;
  });

  if (errors.length) {
    failed += 1;
    log(`FAIL  the page ran without script errors or CSP violations: ${short(errors)}`);
  }
}

const timer = setTimeout(async () => {
  log(`FAIL  global deadline of ${GLOBAL_DEADLINE_MS} ms`);
  await cleanupAll();
  process.exit(1);
}, GLOBAL_DEADLINE_MS);
try {
  await main();
} catch (e) {
  failed += 1;
  log(`FAIL  setup: ${e instanceof Error ? e.stack : String(e)}`);
}
clearTimeout(timer);
await cleanupAll();
log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
