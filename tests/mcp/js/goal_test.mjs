#!/usr/bin/env node
// execute_goal (issue 21 part 6) with the official TypeScript SDK client and
// a scripted sampling handler, on a headless desktop with the GTK3 fixture.
//
//   node goal_test.mjs BUILD_DIR
//
// Checks:
//   - a client without the sampling capability does not see execute_goal
//     in tools/list and cannot call it;
//   - one valid plan, then [] (goal reached): the fixture's status label
//     proves the click; one progress notification per round at least; the
//     sampling request is text only (no image) and holds the screen context;
//   - an invalid answer, then a valid plan: the second request carries the
//     stricter prompt (R2) and the plan runs;
//   - invalid twice: stopped, the model's output in the error, nothing run;
//   - a step held for confirmation (requireConfirmation) ends the call with
//     its token and how to go on; a person approves it (`uiscope confirm
//     TOKEN --approve`), the confirm tool performs it, and execute_goal
//     called again with the same goal plans from the screen and is done;
//   - a valid plan over Streamable HTTP (sampling/createMessage on the
//     tool call's event stream).
// Private UISCOPE_STATE_DIR; the desktop and the fixture are stopped at the
// end, on failure and on the global deadline. Prints one line per check and
// "N passed, N failed"; exit 1 on a failure, 2 on usage.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsc, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const GLOBAL_DEADLINE_MS = 240_000;
const REQUEST_TIMEOUT_MS = 90_000;
const APP_READY_DEADLINE_MS = 30_000;
const FIXTURE_NAME = 'uiscope-goal-fixture';

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
  log('usage: node goal_test.mjs BUILD_DIR');
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
const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-goal-'));
let env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
delete env.DISPLAY;
delete env.UISCOPE_CONFIG;
delete env.UISCOPE_MCP_TOKEN;
cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
const configFile = path.join(stateDir, 'config.json');
// More actions in a minute than the default rate limit allows: the checks
// run a dozen plan steps back to back.
writeFileSync(configFile, JSON.stringify({ database: path.join(stateDir, 'goal.db'), rate_limit: { max_actions: 100 } }));

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

// A client whose "model" answers from `script` (strings, in order) and keeps
// the requests it got.
function scriptedClient(sampling) {
  const client = new Client(
    { name: 'uiscope-goal-test', version: '1.0.0' },
    { capabilities: sampling ? { sampling: {} } : {} },
  );
  const model = { script: [], requests: [] };
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      model.requests.push(request.params);
      const text = model.script.shift();
      if (text === undefined) throw new Error('the scripted model has no answer left');
      return { role: 'assistant', content: { type: 'text', text }, model: 'scripted', stopReason: 'endTurn' };
    });
  }
  cleanups.push(async () => client.close().catch(() => {}));
  return { client, model };
}

async function connectStdio(sampling) {
  const c = scriptedClient(sampling);
  await c.client.connect(new StdioClientTransport({ command: uiscope, args: ['mcp', '--config', configFile], env, stderr: 'ignore' }), {
    timeout: REQUEST_TIMEOUT_MS,
  });
  return c;
}

// HTTP always needs a token; the server is given this one.
const HTTP_TOKEN = 'goal-test-token';

async function startHttp() {
  const child = spawn(uiscope, ['mcp', '--http', '127.0.0.1:0', '--token', HTTP_TOKEN, '--config', configFile], {
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

async function callGoal(client, args, progress) {
  return client.request({ method: 'tools/call', params: { name: 'execute_goal', arguments: args } }, CallToolResultSchema, {
    timeout: REQUEST_TIMEOUT_MS,
    ...(progress ? { onprogress: (p) => progress.push(p) } : {}),
  });
}

function loginPlan(email) {
  return JSON.stringify([
    { type: 'press_keys', args: { target: 'Email', keys: 'ctrl+a' } },
    { type: 'type_text', args: { target: 'Email', text: email } },
    { type: 'click', args: { target: 'Login' } },
  ]);
}

async function withoutSampling() {
  const { client } = await connectStdio(false);
  await check('a client without sampling does not see execute_goal', async () => {
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === 'execute_goal')) throw new Error('execute_goal is listed');
    if (!tools.some((t) => t.name === 'execute_plan')) throw new Error('execute_plan is not listed either');
    let error = null;
    try {
      await callGoal(client, { goal: 'log in' });
    } catch (e) {
      error = e;
    }
    if (!error || !/sampling/.test(error.message)) throw new Error(`calling it: ${short(error?.message ?? 'no error')}`);
    return `${tools.length} tools; calling it: ${short(error.message, 120)}`;
  });
  await client.close().catch(() => {});
}

async function withSampling(ask) {
  const { client, model } = await connectStdio(true);
  await check('a client with sampling sees execute_goal', async () => {
    const { tools } = await client.listTools();
    const t = tools.find((x) => x.name === 'execute_goal');
    if (!t) throw new Error('not listed');
    return `${tools.length} tools`;
  });
  await check('one valid plan, then [] : the status label proves the click', async () => {
    model.script = [loginPlan('goal1@example.org'), '[]'];
    model.requests = [];
    const progress = [];
    const res = await callGoal(client, { goal: 'log in as goal1@example.org', max_steps: 3 }, progress);
    const s = res.structuredContent;
    if (res.isError || s?.status !== 'done' || s.rounds.length !== 2) throw new Error(short(res, 800));
    if (s.rounds[0].result?.status !== 'done') throw new Error(short(s.rounds[0]));
    const status = await ask('status');
    if (status !== 'Logged in as goal1@example.org') throw new Error(`status ${status}`);
    if (model.requests.length !== 2) throw new Error(`${model.requests.length} sampling requests`);
    const first = JSON.stringify(model.requests[0]);
    if (first.includes('"image"')) throw new Error('the sampling request holds an image');
    if (!first.includes('Login') || !first.includes('log in as goal1@example.org')) throw new Error(`the request lacks the context or the goal: ${short(first)}`);
    if (progress.length < 2) throw new Error(`${progress.length} progress notifications`);
    return `${status}; ${progress.length} progress notifications; request ${first.length} chars, no image`;
  });
  await check('invalid, then valid: asked again with a stricter prompt (R2), the plan runs', async () => {
    model.script = ['Sure! I will type the address and click Login.', loginPlan('goal2@example.org'), '[]'];
    model.requests = [];
    const res = await callGoal(client, { goal: 'log in as goal2@example.org', max_steps: 3 });
    const s = res.structuredContent;
    if (res.isError || s?.status !== 'done' || !s.rounds[0].retried) throw new Error(short(res, 800));
    const second = JSON.stringify(model.requests[1]?.messages ?? []);
    if (!second.includes('not a valid plan') || !second.includes('Sure! I will')) throw new Error(`second request: ${short(second.slice(-600))}`);
    const status = await ask('status');
    if (status !== 'Logged in as goal2@example.org') throw new Error(`status ${status}`);
    return status;
  });
  await check('invalid twice: stopped, the model\'s output in the error, nothing run', async () => {
    const before = [await ask('status'), await ask('text email')];
    model.script = ['I cannot see a Login button.', '[{"type": "click", "args": {"bounds": 3}}]'];
    model.requests = [];
    const res = await callGoal(client, { goal: 'log in as goal3@example.org', max_steps: 3 });
    const text = textOf(res);
    if (!res.isError || res.structuredContent?.status !== 'invalid_plan') throw new Error(short(res, 800));
    if (!text.includes('I cannot see a Login button.') || !text.includes('"bounds": 3')) throw new Error(short(text, 800));
    if (model.requests.length !== 2) throw new Error(`${model.requests.length} sampling requests`);
    const after = [await ask('status'), await ask('text email')];
    if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error(`${short(before)} -> ${short(after)}`);
    return short(text.split('\n')[0], 140);
  });
  await check('a held step ends the call; approved and confirmed, execute_goal goes on', async () => {
    model.script = [
      JSON.stringify([
        { type: 'press_keys', args: { target: 'Email', keys: 'ctrl+a' } },
        { type: 'type_text', args: { target: 'Email', text: 'goal5@example.org' } },
        { type: 'click', args: { target: 'Login', requireConfirmation: true } },
      ]),
    ];
    model.requests = [];
    const res = await callGoal(client, { goal: 'log in as goal5@example.org', max_steps: 3 });
    const s = res.structuredContent;
    if (!res.isError || s?.status !== 'confirmation_required') throw new Error(short(res, 800));
    if (!textOf(res).includes('call execute_goal again')) throw new Error(`no hint: ${short(textOf(res), 600)}`);
    const held = s.rounds[0]?.result?.steps?.find((x) => x.status === 'held');
    const token = held?.result?.token;
    if (!token) throw new Error(`no held step with a token: ${short(s.rounds[0], 800)}`);
    if ((await ask('status')) === 'Logged in as goal5@example.org') throw new Error('the held click was performed');
    const approved = await run(uiscope, ['confirm', token, '--approve', '--config', configFile], env);
    if (approved.code !== 0) throw new Error(`uiscope confirm: ${short(approved.stderr || approved.stdout)}`);
    const confirmed = await client.callTool({ name: 'confirm', arguments: { token } }, undefined, { timeout: REQUEST_TIMEOUT_MS });
    if (confirmed.isError) throw new Error(`confirm: ${short(textOf(confirmed))}`);
    const status = await ask('status');
    if (status !== 'Logged in as goal5@example.org') throw new Error(`status after confirm ${status}`);
    model.script = ['[]'];
    const again = await callGoal(client, { goal: 'log in as goal5@example.org', max_steps: 3 });
    if (again.isError || again.structuredContent?.status !== 'done') throw new Error(`again: ${short(again, 800)}`);
    return `${status}; token ${token.slice(0, 8)}…`;
  });
  await client.close().catch(() => {});
}

async function overHttp(ask) {
  const url = await startHttp();
  const { client, model } = scriptedClient(true);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${HTTP_TOKEN}` } } }), { timeout: REQUEST_TIMEOUT_MS });
  await check('Streamable HTTP: one valid plan, then []', async () => {
    model.script = [loginPlan('goal4@example.org'), '[]'];
    const res = await callGoal(client, { goal: 'log in as goal4@example.org', max_steps: 2 });
    if (res.isError || res.structuredContent?.status !== 'done') throw new Error(short(res, 800));
    const status = await ask('status');
    if (status !== 'Logged in as goal4@example.org') throw new Error(`status ${status}`);
    return status;
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
  await withoutSampling();
  await withSampling(ask);
  await overHttp(ask);
} catch (e) {
  failed += 1;
  log(`FAIL  setup: ${e instanceof Error ? e.stack : String(e)}`);
}
clearTimeout(deadline);
await cleanupAll();
log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
