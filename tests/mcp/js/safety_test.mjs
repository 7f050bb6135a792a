#!/usr/bin/env node
// The safety policy end to end (issue 7, "How it is checked"): real
// `uiscope mcp` processes on a real headless desktop with the GTK3 fixture,
// driven by the official TypeScript SDK client.
//
//   node safety_test.mjs BUILD_DIR
//
// Checks:
//   - a secret typed into the fixture's password field reaches the field,
//     and appears in no tool result, no log (server stderr, MCP log
//     notifications), no audit row, and no byte of any file under the state
//     directory (uiscope.db, -wal, -shm, session logs), read while the
//     server runs and after it exits;
//   - a click on a point off the screen is dropped (R5) and the app gets
//     nothing (its status, focus and fields read back unchanged);
//   - a name that matches several elements (find-then-act, R4: every list
//     row has an "Open" button) is held with its candidates; the confirm tool cannot approve it
//     (agent_may_confirm false) and nothing happens until
//     `uiscope confirm TOKEN --approve`, after which confirm performs it;
//   - with the default rate limit (10 a minute) the 11th unconfirmed action
//     is held with rule rate;
//   - `kill -9` of a `uiscope mcp` in the middle of an action loses none of
//     the audit entries of the calls that had returned;
//   - with confirm_tools ["click"], a client declaring elicitation is asked
//     through elicitation/create: "decline" leaves the app untouched,
//     accept + approve performs the click;
//   - execute_plan: an invalid plan runs nothing (R2); a plan of labels,
//     keys, text, a click and a wait logs the fixture in; a step marked
//     requireConfirmation is held and the plan stops there;
//   - with the fixture on deny_apps, its window is black in screenshots and
//     unread by read_text (both show it without the list), and a click on
//     it is denied with the app untouched.
// Each server gets its own configuration and database (rate counts are per
// database). Private UISCOPE_STATE_DIR; the desktop and fixture are stopped
// at the end, on failure and on the global deadline. Prints one line per
// check and "N passed, N failed"; exit 1 on a failure, 2 on usage.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsc, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { inflateSync } from 'node:zlib';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const GLOBAL_DEADLINE_MS = 240_000;
const REQUEST_TIMEOUT_MS = 45_000;
const APP_READY_DEADLINE_MS = 30_000;
const FIXTURE_NAME = 'uiscope-safety-fixture';
// Distinctive, with non-ASCII, so that a grep cannot hit it by chance.
const SECRET = 'Zq7-hunter2-Grüße-xK9';

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
function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
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

// ---- setup ------------------------------------------------------------------

const build = process.argv[2];
if (!build) {
  log('usage: node safety_test.mjs BUILD_DIR');
  process.exit(2);
}
const uiscope = path.resolve(build, 'bin', 'uiscope');
const fixtureBin = path.resolve(build, 'bin', 'uiscope-fixture-gtk3');
for (const f of [uiscope, fixtureBin]) {
  try {
    accessSync(f, fsc.X_OK);
  } catch {
    log(`no executable ${f}: build first`);
    process.exit(2);
  }
}
const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-safety-'));
const configDir = mkdtempSync(path.join(tmpdir(), 'uiscope-safety-config-'));
let env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
delete env.DISPLAY;
delete env.UISCOPE_CONFIG;
delete env.UISCOPE_MCP_TOKEN;
cleanups.push(async () => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

// A configuration of its own (and a database of its own, in the state dir).
function config(name, extra) {
  const file = path.join(configDir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ database: path.join(stateDir, `${name}.db`), ...extra }));
  return file;
}

async function startDesktop() {
  const r = await run(uiscope, ['session', 'start', '--json'], env);
  if (r.code !== 0) throw new Error(`uiscope session start: ${short(r.stderr || r.stdout)}`);
  const session = JSON.parse(r.stdout.trim().split('\n').pop());
  cleanups.push(async () => {
    await run(uiscope, ['session', 'stop', session.id], env, 20_000);
  });
  env = { ...env, ...session.env };
  return session;
}

// The GTK3 fixture and its control channel (tests/fixtures/gtk3_app/main.c).
async function startFixture() {
  const child = spawn(fixtureBin, ['--name', FIXTURE_NAME], { env, stdio: ['pipe', 'pipe', 'pipe'] });
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
  const ask = async (command) => {
    const answer = next();
    child.stdin.write(`${command}\n`);
    const line = await Promise.race([answer, sleep(10_000).then(() => null)]);
    if (!line?.startsWith('ok')) throw new Error(`fixture "${command}": ${line}`);
    return line.slice(3);
  };
  const deadline = Date.now() + APP_READY_DEADLINE_MS;
  while (Date.now() < deadline) {
    const o = await run(uiscope, ['observe', '--app', FIXTURE_NAME], env, 15_000);
    if (o.code === 0 && o.stdout.includes('Login')) return ask;
    await sleep(250);
  }
  throw new Error('the fixture never showed up in the accessibility tree');
}

// A `uiscope mcp` over stdio with the SDK client; its stderr and the log
// notifications it sends are kept.
async function connect(configFile, { elicitation = false } = {}) {
  const client = new Client(
    { name: 'uiscope-safety-test', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  const transport = new StdioClientTransport({
    command: uiscope,
    args: ['mcp', '--config', configFile],
    env,
    stderr: 'pipe',
  });
  const logs = { stderr: '', notifications: '' };
  transport.stderr?.on('data', (d) => {
    logs.stderr += d.toString();
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.notifications += `${JSON.stringify(n.params)}\n`;
  });
  cleanups.push(async () => client.close().catch(() => {}));
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  await client.setLoggingLevel('debug').catch(() => {});
  const call = (name, args) =>
    client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
      timeout: REQUEST_TIMEOUT_MS,
    });
  return { client, transport, call, logs };
}

async function idOf(call, name, role) {
  const res = await call('find', { name, role, app: FIXTURE_NAME });
  const m = res.structuredContent?.matches?.[0];
  if (res.isError || !m) throw new Error(`find ${name}: ${short(textOf(res))}`);
  return m.id;
}

function filesUnder(dir) {
  const out = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    const s = statSync(p, { throwIfNoEntry: false });
    if (!s) continue;
    if (s.isDirectory()) out.push(...filesUnder(p));
    else if (s.isFile()) out.push(p);
  }
  return out;
}
// The files whose bytes hold `needle` (UTF-8).
function filesHolding(dir, needle) {
  const bytes = Buffer.from(needle, 'utf8');
  return filesUnder(dir).filter((f) => {
    try {
      return readFileSync(f).includes(bytes);
    } catch {
      return false;
    }
  });
}

async function audit(configFile, extra = []) {
  const r = await run(uiscope, ['audit', '--config', configFile, '--json', ...extra], env);
  if (r.code !== 0) throw new Error(`uiscope audit: ${short(r.stderr)}`);
  return r.stdout;
}

// ---- the checks -------------------------------------------------------------

async function secrets(ask) {
  const cfg = config('secret', {});
  const { call, logs, client } = await connect(cfg);
  let typed;
  const seen = [];
  await check('a secret typed into the password field reaches it', async () => {
    const id = await idOf(call, 'Password', 'text_field');
    typed = await call('type_text', { target: id, text: SECRET, replace: true, settle_ms: 100 });
    seen.push(JSON.stringify(typed));
    if (typed.isError) throw new Error(short(textOf(typed)));
    const text = await ask('text password');
    if (text !== SECRET) throw new Error(`the field holds ${JSON.stringify(text)}`);
    return `${id}, result: ${short(textOf(typed).split('\n')[0], 100)}`;
  });
  await check('observe, find and read_text after it do not show the secret', async () => {
    for (const [tool, args] of [
      ['observe', { app: FIXTURE_NAME, format: 'json' }],
      ['observe', { app: FIXTURE_NAME, format: 'compact' }],
      ['find', { name: 'Password', app: FIXTURE_NAME }],
      ['read_text', {}],
    ]) {
      const res = await call(tool, args);
      seen.push(JSON.stringify(res));
    }
    const hit = seen.findIndex((s) => s.includes(SECRET));
    if (hit >= 0) throw new Error(`tool result ${hit} holds it: ${short(seen[hit], 300)}`);
    return `${seen.length} tool results`;
  });
  await check('the audit row masks the typed text as ••••', async () => {
    const out = await audit(cfg, ['--tool', 'type_text']);
    if (out.includes(SECRET)) throw new Error('uiscope audit prints the secret');
    if (!out.includes('••••')) throw new Error(`no •••• in ${short(out)}`);
    return short(out.trim().split('\n')[0], 160);
  });
  await check('no file under the state directory holds the secret while the server runs', async () => {
    const files = filesUnder(stateDir);
    if (!files.some((f) => f.endsWith('secret.db-wal'))) throw new Error(`no -wal among ${files.join(' ')}`);
    const hits = filesHolding(stateDir, SECRET);
    if (hits.length) throw new Error(`in ${hits.join(', ')}`);
    return `${files.length} files, ${files.filter((f) => /secret\.db/.test(f)).map((f) => path.basename(f)).join(' ')}`;
  });
  await client.close().catch(() => {});
  await check('nor after it exits; nor its stderr and log notifications', async () => {
    const hits = filesHolding(stateDir, SECRET).concat(filesHolding(configDir, SECRET));
    if (hits.length) throw new Error(`in ${hits.join(', ')}`);
    if (logs.stderr.includes(SECRET)) throw new Error('server stderr holds it');
    if (logs.notifications.includes(SECRET)) throw new Error('a log notification holds it');
    return `stderr ${logs.stderr.length} bytes, notifications ${logs.notifications.length} bytes`;
  });
}

async function offScreen(ask) {
  const cfg = config('offscreen', {});
  const { call, client } = await connect(cfg);
  await check('a click off the screen is dropped (R5) and the app gets nothing', async () => {
    const before = [await ask('status'), await ask('focus'), await ask('text email')];
    const res = await call('click', { target: { x: 5000, y: 5000 }, settle_ms: 300 });
    const d = res.structuredContent?.decision;
    if (!res.isError || res.structuredContent?.performed !== false) throw new Error(short(res));
    if (d?.verdict !== 'drop') throw new Error(`decision ${short(d)}`);
    await sleep(300);
    const after = [await ask('status'), await ask('focus'), await ask('text email')];
    if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error(`${short(before)} -> ${short(after)}`);
    const rows = await audit(cfg, ['--decision', 'dropped']);
    if (!rows.includes('click')) throw new Error(`no dropped row: ${short(rows)}`);
    return `${d.rule}: ${short(d.reason, 100)}`;
  });
  await client.close().catch(() => {});
}

async function ambiguous(ask) {
  const cfg = config('ambiguous', { confirmations: { agent_may_confirm: false } });
  const { call, client } = await connect(cfg);
  let token;
  const before = [await ask('status'), await ask('focus')];
  await check('a name matching several elements is held, with its candidates (R4)', async () => {
    const res = await call('click', { name: 'Open', role: 'button', settle_ms: 200 });
    const s = res.structuredContent;
    if (!res.isError || s?.status !== 'confirmation_required') throw new Error(short(res));
    if (!s.token || (s.candidates ?? []).length < 2) throw new Error(short(s));
    token = s.token;
    return `${s.rule}, ${s.candidates.length} candidates: ${s.candidates.map((c) => c.name).join(', ')}`;
  });
  if (!token) return client.close();
  await check('the agent cannot approve it, and nothing happened yet', async () => {
    const res = await call('confirm', { token, decision: 'approve' });
    if (!res.isError) throw new Error(`confirm approved it: ${short(res)}`);
    const pending = await call('confirm', { token });
    if (pending.structuredContent?.status !== 'pending') throw new Error(short(pending));
    const now = [await ask('status'), await ask('focus')];
    if (JSON.stringify(now) !== JSON.stringify(before)) throw new Error(`${short(before)} -> ${short(now)}`);
    return short(textOf(res), 100);
  });
  await check('after `uiscope confirm TOKEN --approve`, confirm performs it once', async () => {
    const r = await run(uiscope, ['confirm', token, '--approve', '--config', cfg], env);
    if (r.code !== 0) throw new Error(`uiscope confirm: ${short(r.stderr)}`);
    const res = await call('confirm', { token });
    if (res.isError || res.structuredContent?.performed !== true) throw new Error(short(res));
    const status = await ask('status');
    if (!status.startsWith('Opened')) throw new Error(`status ${status}`);
    const again = await call('confirm', { token });
    if (!again.isError) throw new Error(`a second confirm: ${short(again)}`);
    return short(textOf(res).split('\n')[0], 140);
  });
  await client.close().catch(() => {});
}

async function rateLimit() {
  const cfg = config('rate', {}); // the default: 10 per 60 s
  const { call, client } = await connect(cfg);
  let token;
  await check('the 11th unconfirmed action in a minute is held (rule rate)', async () => {
    for (let i = 1; i <= 10; i += 1) {
      const res = await call('press_keys', { keys: 'shift', settle_ms: 20 });
      if (res.isError) throw new Error(`action ${i}: ${short(textOf(res))}`);
    }
    const res = await call('press_keys', { keys: 'shift', settle_ms: 20 });
    const s = res.structuredContent;
    if (!res.isError || s?.status !== 'confirmation_required' || s.rule !== 'rate') throw new Error(short(res));
    token = s.token;
    return short(s.reason, 120);
  });
  if (!token) return client.close();
  await check('the agent cannot approve it (the default); a person approves it with a grant of 3 more', async () => {
    const self = await call('confirm', { token, decision: 'approve' });
    if (!self.isError || !textOf(self).includes('agent_may_confirm is false')) throw new Error(short(self));
    const r = await run(uiscope, ['confirm', token, '--approve', '--grant', '3', '--config', cfg], env);
    if (r.code !== 0) throw new Error(`uiscope confirm: ${short(r.stderr)}`);
    if (!r.stderr.includes('granted 3 actions')) throw new Error(short(r.stderr));
    const res = await call('confirm', { token });
    if (res.isError) throw new Error(short(res));
    for (let i = 1; i <= 3; i += 1) {
      const granted = await call('press_keys', { keys: 'shift', settle_ms: 20 });
      if (granted.isError) throw new Error(`granted action ${i}: ${short(textOf(granted))}`);
    }
    const spent = await call('press_keys', { keys: 'shift', settle_ms: 20 });
    if (spent.structuredContent?.rule !== 'rate') throw new Error(`after the grant: ${short(spent)}`);
    const rows = JSON.parse(await audit(cfg, ['--decision', 'approved'])).entries;
    if (!rows.some((e) => e.reason.includes('granted 3 actions'))) throw new Error(short(rows));
    return 'held again after the 3 granted actions';
  });
  await client.close().catch(() => {});
}

async function killNine() {
  const cfg = config('kill', { rate_limit: { max_actions: 0 } });
  await check('kill -9 of uiscope mcp mid-action loses no audit entry, and leaves the cut-off action in flight', async () => {
    const child = spawn(uiscope, ['mcp', '--config', cfg], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const lines = createInterface({ input: child.stdout });
    const replies = new Map();
    lines.on('line', (l) => {
      try {
        const m = JSON.parse(l);
        if (m.id !== undefined) replies.get(m.id)?.(m);
      } catch {
        // not JSON
      }
    });
    const send = (id, method, params) =>
      new Promise((resolve) => {
        replies.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await send(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'kill', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const finished = 6;
    for (let i = 0; i < finished; i += 1) {
      const r = await send(10 + i, 'tools/call', { name: 'press_keys', arguments: { keys: 'shift', settle_ms: 20 } });
      if (r.result?.isError !== false) throw new Error(`call ${i}: ${short(r)}`);
    }
    // One more, killed while it verifies (a long settle).
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'press_keys', arguments: { keys: 'shift', settle_ms: 3000 } } })}\n`);
    await sleep(800);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const out = await audit(cfg, ['--tool', 'press_keys', '--limit', '100']);
    const entries = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const rows = entries.flatMap((e) => (Array.isArray(e) ? e : e.entries ?? [e]));
    const done = rows.filter((e) => e.decision === 'done');
    if (done.length < finished) throw new Error(`${done.length} done entries of ${finished}: ${short(out)}`);
    // The killed call had pressed its key: its row was written ahead and is
    // left in flight, its writer gone (issue 14, defect 2).
    const cut = rows.filter((e) => e.decision === 'in_flight');
    if (cut.length !== 1 || cut[0].writer_alive !== false) throw new Error(`in flight: ${short(cut)}`);
    const integrity = await run(uiscope, ['audit', '--config', cfg, '--limit', '1'], env);
    if (integrity.code !== 0) throw new Error(`the database after kill -9: ${short(integrity.stderr)}`);
    return `${rows.length} press_keys rows, ${done.length} done (signal ${child.signalCode})`;
  });
}

async function elicitation(ask) {
  const cfg = config('elicit', { confirm_tools: ['click'] });
  const { client, call } = await connect(cfg, { elicitation: true });
  const asked = [];
  let answer = { action: 'decline' };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer;
  });
  const login = await idOf(call, 'Login', 'button');
  await ask('set-email elicited@example.org');
  const before = await ask('status');
  await check('click Login is asked about through elicitation/create; decline leaves the app untouched', async () => {
    const res = await call('click', { target: login, settle_ms: 200 });
    if (asked.length !== 1) throw new Error(`${asked.length} elicitation requests`);
    if (!asked[0].message.includes('click')) throw new Error(`message: ${asked[0].message}`);
    if (!res.isError) throw new Error(`performed although declined: ${short(res)}`);
    await sleep(300);
    const now = await ask('status');
    if (now !== before) throw new Error(`status ${before} -> ${now}`);
    return short(asked[0].message, 120);
  });
  await check('asked again; accept + approve performs the click', async () => {
    answer = { action: 'accept', content: { approve: true } };
    const res = await call('click', { target: login, settle_ms: 200 });
    if (asked.length !== 2) throw new Error(`${asked.length} elicitation requests`);
    if (res.isError || res.structuredContent?.performed !== true) throw new Error(short(res));
    const now = await ask('status');
    if (!now.includes('elicited@example.org')) throw new Error(`status ${now}`);
    return now;
  });
  await client.close().catch(() => {});
}

async function plans(ask) {
  const cfg = config('plan', {});
  const { call, client } = await connect(cfg);
  await check('execute_plan: an invalid plan runs nothing (R2)', async () => {
    const before = [await ask('status'), await ask('text email')];
    const res = await call('execute_plan', {
      plan: [{ type: 'type_text', args: { target: 'Email', text: 'x' } }, { type: 'click', args: { bounds: 3 } }],
    });
    if (!res.isError || !textOf(res).includes('plan step 2')) throw new Error(short(res));
    const after = [await ask('status'), await ask('text email')];
    if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error(`${short(before)} -> ${short(after)}`);
    return short(textOf(res), 120);
  });
  await check('execute_plan on the fixture: labels, keys, text, a click, a wait; each step reported', async () => {
    const res = await call('execute_plan', {
      plan: [
        { type: 'press_keys', args: { target: 'Email', keys: 'ctrl+a' } },
        { type: 'type_text', args: { target: 'Email', text: 'plan@example.org' } },
        { type: 'click', args: { target: 'Login' } },
        { type: 'wait', args: { delayMs: 50 } },
      ],
      settle_ms: 200,
    });
    const s = res.structuredContent;
    if (res.isError || s?.status !== 'done' || s.steps_done !== 4) throw new Error(short(res, 800));
    const email = await ask('text email');
    const status = await ask('status');
    if (email !== 'plan@example.org' || status !== 'Logged in as plan@example.org') throw new Error(`email ${email}, status ${status}`);
    const r1 = s.steps.filter((x) => x.reobservation).map((x) => (x.reobservation.skipped ? 'skipped' : 'observed'));
    return `${status}; re-observations: ${r1.join(' ')}`;
  });
  await check('execute_plan: a step marked requireConfirmation is held and the plan stops there', async () => {
    const res = await call('execute_plan', {
      plan: [
        { type: 'press_keys', args: { keys: 'shift' } },
        { type: 'click', args: { target: 'Login', requireConfirmation: true } },
        { type: 'press_keys', args: { keys: 'shift' } },
      ],
      settle_ms: 50,
    });
    const s = res.structuredContent;
    if (!res.isError || s?.status !== 'confirmation_required' || s.steps_done !== 1) throw new Error(short(res, 800));
    const held = s.steps[1];
    if (held.status !== 'held' || held.result?.rule !== 'plan' || !held.result?.token) throw new Error(short(held));
    return `step 2 held, token ${held.result.token}`;
  });
  await client.close().catch(() => {});
}

// Whether a PNG (8-bit RGB or RGBA, not interlaced) is black all over:
// with every PNG filter, a row of zeros filters to zeros and the first
// non-zero byte of a row filters to a non-zero byte.
function pngIsBlack(bytes) {
  const buf = Buffer.from(bytes, 'base64');
  let offset = 8;
  let width = 0;
  let channels = 3;
  const idat = [];
  while (offset < buf.length) {
    const len = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      channels = data[9] === 6 ? 4 : 3;
      if (data[8] !== 8 || data[12] !== 0) throw new Error('not an 8-bit, non-interlaced PNG');
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = 1 + width * channels;
  for (let i = 0; i < raw.length; i += 1) {
    if (i % stride === 0) continue; // the row's filter type
    if (channels === 4 && (i % stride) % 4 === 0) continue; // alpha
    if (raw[i] !== 0) return false;
  }
  return true;
}

async function denyList(ask) {
  const cfg = config('deny', { deny_apps: [FIXTURE_NAME] });
  const open = config('open', {});
  const [x, y, w, h] = (await ask('geometry')).split(' ').map(Number);
  const region = { x: x + 10, y: y + 10, w: Math.min(w - 20, 200), h: Math.min(h - 20, 100) };
  const allowed = await connect(open);
  const seen = await allowed.call('screenshot', { region });
  const readable = await allowed.call('read_text', {});
  await allowed.client.close().catch(() => {});
  const { call, client } = await connect(cfg);
  await check('a deny-listed app is blacked out of screenshots (it shows without the deny list)', async () => {
    const plain = seen.content?.find((c) => c.type === 'image');
    if (!plain || pngIsBlack(plain.data)) throw new Error(`without the deny list: ${short(seen)}`);
    const res = await call('screenshot', { region });
    const img = res.content?.find((c) => c.type === 'image');
    if (res.isError || !img) throw new Error(short(res));
    if (!pngIsBlack(img.data)) throw new Error('the fixture window shows in the screenshot');
    return `region ${region.x},${region.y},${region.w},${region.h}`;
  });
  await check('read_text (OCR) does not read it either (it does without the deny list)', async () => {
    const words = (r) => JSON.stringify(r.structuredContent ?? {});
    if (!words(readable).includes('Remember')) throw new Error(`without the deny list: ${short(textOf(readable))}`);
    const res = await call('read_text', {});
    if (res.isError) throw new Error(short(res));
    for (const w of ['Remember', 'Login', 'logged']) {
      if (words(res).includes(w)) throw new Error(`"${w}" was read: ${short(textOf(res))}`);
    }
    return `${short(textOf(res).replace(/\n/g, ' '), 80)}`;
  });
  await check('input that would land in its window is denied, and the app gets nothing', async () => {
    const before = [await ask('status'), await ask('focus'), await ask('text email')];
    const res = await call('click', { target: { x: region.x + 20, y: region.y + 20 }, settle_ms: 200 });
    const d = res.structuredContent?.decision;
    if (!res.isError || d?.verdict !== 'deny' || d?.rule !== 'deny_list') throw new Error(short(res));
    const after = [await ask('status'), await ask('focus'), await ask('text email')];
    if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error(`${short(before)} -> ${short(after)}`);
    return short(d.reason, 100);
  });
  await client.close().catch(() => {});
}

// ---- main -------------------------------------------------------------------

const deadline = setTimeout(async () => {
  log(`FAIL  global deadline of ${GLOBAL_DEADLINE_MS} ms`);
  await cleanupAll();
  process.exit(1);
}, GLOBAL_DEADLINE_MS);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    await cleanupAll();
    process.exit(1);
  });
}

try {
  const session = await startDesktop();
  log(`desktop: session ${session.id} DISPLAY=${env.DISPLAY}`);
  const ask = await startFixture();
  log(`fixture: "${FIXTURE_NAME}" is in the accessibility tree`);
  await secrets(ask);
  await offScreen(ask);
  await ambiguous(ask);
  await rateLimit();
  await killNine();
  await elicitation(ask);
  await plans(ask);
  await denyList(ask);
} catch (e) {
  failed += 1;
  log(`FAIL  setup: ${e instanceof Error ? e.stack : String(e)}`);
}
clearTimeout(deadline);
await cleanupAll();
log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
