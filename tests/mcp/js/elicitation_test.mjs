#!/usr/bin/env node
// Confirmations of held actions with the official TypeScript SDK client.
//
//   node elicitation_test.mjs BUILD_DIR
//
// `uiscope mcp --config CFG` with "confirm_tools": ["session_stop"], so that
// stopping a headless desktop (a real action, through the safety policy)
// needs a person's confirmation. Checks, over stdio and Streamable HTTP:
//   - a client that declares the elicitation capability is asked through
//     elicitation/create (SDK request handler); "accept" + approve performs
//     the stop, "decline" refuses it and the desktop stays up;
//   - a client without the capability gets confirmation_required with a
//     token; `uiscope confirm TOKEN --approve` (another process) approves,
//     and the `confirm` tool then performs it;
//   - `uiscope audit --json` holds the whole story (awaiting_confirmation,
//     approved / rejected, done).
// Private UISCOPE_STATE_DIR (database and sessions); every desktop started
// is stopped at the end, on failure and on the 150 s global deadline.
// Prints one line per check and "N passed, N failed"; exit 1 on a failure.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsc, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const GLOBAL_DEADLINE_MS = 150_000;
const REQUEST_TIMEOUT_MS = 45_000;

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
async function check(transport, name, fn) {
  try {
    const detail = await fn();
    passed += 1;
    log(`PASS  ${transport.padEnd(14)} ${name}${detail ? `: ${detail}` : ''}`);
  } catch (e) {
    failed += 1;
    log(`FAIL  ${transport.padEnd(14)} ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
function run(file, args, env) {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
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
  log('usage: node elicitation_test.mjs BUILD_DIR');
  process.exit(2);
}
const uiscope = path.resolve(build, 'bin', 'uiscope');
try {
  accessSync(uiscope, fsc.X_OK);
} catch {
  log(`no executable ${uiscope}: build first`);
  process.exit(2);
}
const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-elicitation-'));
// Not in the state dir: that is the session registry, whose *.json files
// are session records.
const configDir = mkdtempSync(path.join(tmpdir(), 'uiscope-elicitation-config-'));
const configPath = path.join(configDir, 'config.json');
writeFileSync(configPath, JSON.stringify({ confirm_tools: ['session_stop'], rate_limit: { max_actions: 100 } }));
const env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
delete env.DISPLAY; // the server starts nothing by itself here: every desktop comes from session_start
delete env.UISCOPE_CONFIG;
delete env.UISCOPE_MCP_TOKEN;
cleanups.push(async () => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});
cleanups.push(async () => {
  const l = await run(uiscope, ['session', 'list', '--json'], env);
  try {
    for (const s of JSON.parse(l.stdout).sessions ?? []) await run(uiscope, ['session', 'stop', s.id], env);
  } catch {
    // nothing listed
  }
});

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

function newClient(elicitation) {
  const client = new Client(
    { name: 'uiscope-elicitation-test', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  cleanups.push(async () => client.close().catch(() => {}));
  return client;
}

// HTTP always needs a token; the server is given this one.
const HTTP_TOKEN = 'elicitation-test-token';

async function startHttp() {
  const child = spawn(uiscope, ['mcp', '--http', '127.0.0.1:0', '--token', HTTP_TOKEN, '--config', configPath], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 15_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
}

const callRaw = (client, name, args) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
    timeout: REQUEST_TIMEOUT_MS,
  });

async function sessionAlive(id) {
  const l = await run(uiscope, ['session', 'list', '--json'], env);
  return (JSON.parse(l.stdout).sessions ?? []).some((s) => s.id === id && s.alive);
}

async function startSession(client) {
  const res = await callRaw(client, 'session_start', { width: 640, height: 480 });
  if (res.isError) throw new Error(`session_start: ${textOf(res)}`);
  return res.structuredContent.id;
}

// ---- the checks -------------------------------------------------------------

async function withElicitation(label, connect) {
  const client = newClient(true);
  const asked = [];
  let answer = { action: 'decline' };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer;
  });
  await connect(client);
  let id;
  await check(label, 'session_start (allowed: not in confirm_tools)', async () => {
    id = await startSession(client);
    return id;
  });
  if (!id) return;
  await check(label, 'session_stop is asked about; "decline" refuses it', async () => {
    answer = { action: 'decline' };
    const res = await callRaw(client, 'session_stop', { id });
    if (asked.length !== 1) throw new Error(`${asked.length} elicitation requests`);
    const q = asked[0];
    if (!q.message.includes(`stop session ${id}`)) throw new Error(`message: ${q.message}`);
    if (q.requestedSchema?.properties?.approve?.type !== 'boolean') throw new Error(`schema: ${short(q.requestedSchema)}`);
    if (!res.isError || res.structuredContent?.status !== 'denied') throw new Error(`result: ${short(res)}`);
    if (!(await sessionAlive(id))) throw new Error(`session ${id} was stopped although declined`);
    return short(q.message, 120);
  });
  await check(label, 'session_stop asked again; accept + approve performs it', async () => {
    answer = { action: 'accept', content: { approve: true } };
    const res = await callRaw(client, 'session_stop', { id });
    if (asked.length !== 2) throw new Error(`${asked.length} elicitation requests`);
    if (res.isError) throw new Error(`isError: ${textOf(res)}`);
    if (res.structuredContent?.stopped !== id) throw new Error(`result: ${short(res)}`);
    if (await sessionAlive(id)) throw new Error(`session ${id} still alive`);
  });
  await client.close();
}

async function withoutElicitation(label, connect) {
  const client = newClient(false);
  let asked = 0;
  await connect(client);
  let id;
  await check(label, 'session_start', async () => {
    id = await startSession(client);
    return id;
  });
  if (!id) return;
  let token;
  await check(label, 'session_stop -> confirmation_required with a token; nothing done', async () => {
    const res = await callRaw(client, 'session_stop', { id });
    const sc = res.structuredContent;
    if (!res.isError || sc?.status !== 'confirmation_required') throw new Error(`result: ${short(res)}`);
    token = sc.token;
    if (!/^[a-z2-9]{10}$/.test(token)) throw new Error(`token ${token}`);
    if (!textOf(res).includes(`uiscope confirm ${token} --approve`)) throw new Error(`text: ${textOf(res)}`);
    if (!(await sessionAlive(id))) throw new Error('the session was stopped');
    return `token ${token}`;
  });
  if (!token) return;
  await check(label, '`uiscope confirm TOKEN --approve` (another process), then confirm {token} performs it', async () => {
    const pending = await run(uiscope, ['confirm', '--json', '--config', configPath], env);
    const listed = JSON.parse(pending.stdout).confirmations ?? [];
    if (!listed.some((c) => c.token === token)) throw new Error(`not listed as pending: ${pending.stdout}`);
    const approve = await run(uiscope, ['confirm', token, '--approve', '--config', configPath], env);
    if (approve.code !== 0) throw new Error(`uiscope confirm exited ${approve.code}: ${approve.stderr}`);
    if (!(await sessionAlive(id))) throw new Error('approval alone must not act: the agent performs it');
    const res = await callRaw(client, 'confirm', { token, wait_ms: 10_000 });
    if (res.isError) throw new Error(`confirm: ${textOf(res)}`);
    if (res.structuredContent?.stopped !== id) throw new Error(`result: ${short(res)}`);
    if (await sessionAlive(id)) throw new Error('still alive');
  });
  await check(label, 'the token cannot be used twice', async () => {
    const res = await callRaw(client, 'confirm', { token });
    if (!res.isError) throw new Error(`second use accepted: ${short(res)}`);
  });
  if (asked) throw new Error('a client without the capability was asked');
  await client.close();
}

async function main() {
  const stdio = (client) =>
    client.connect(new StdioClientTransport({ command: uiscope, args: ['mcp', '--config', configPath], env }), {
      timeout: REQUEST_TIMEOUT_MS,
    });
  const url = await startHttp();
  const http = (client) => client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${HTTP_TOKEN}` } } }), { timeout: REQUEST_TIMEOUT_MS });

  await withElicitation('stdio+elicit', stdio);
  await withElicitation('http+elicit', http);
  await withoutElicitation('stdio', stdio);
  await withoutElicitation('http', http);

  await check('audit', '`uiscope audit --json` tells what happened', async () => {
    const r = await run(uiscope, ['audit', '--json', '--tool', 'session_stop', '--config', configPath], env);
    if (r.code !== 0) throw new Error(r.stderr);
    const decisions = JSON.parse(r.stdout).entries.map((e) => e.decision);
    const want = { awaiting_confirmation: 6, rejected: 2, approved: 4, done: 4 };
    for (const [d, n] of Object.entries(want)) {
      const got = decisions.filter((x) => x === d).length;
      if (got !== n) throw new Error(`${got} "${d}" entries, expected ${n}: ${decisions.join(', ')}`);
    }
    return decisions.join(', ');
  });
}

try {
  await main();
} catch (e) {
  failed += 1;
  log(`FAIL  ${e instanceof Error ? e.stack : e}`);
}
clearTimeout(deadline);
await cleanupAll();
log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
