#!/usr/bin/env node
// Negative and edge cases of uiscope's MCP server on the wire, which neither
// the SDK client test nor the conformance suite (for the dated protocol
// versions) exercises: raw JSON-RPC over stdio and raw HTTP requests.
//
//   node protocol_edge_test.mjs BUILD_DIR
//
// No desktop needed: nothing here calls a tool that looks at the screen
// (DISPLAY is removed; a private UISCOPE_STATE_DIR is used and any desktop
// the server might start anyway is stopped at the end).
//
// Each check has a level: MUST (the spec or JSON-RPC 2.0 requires it: a
// failure fails the run) or SHOULD (recommended, or what the official SDK
// server does: reported as WARN, never fails the run). Prints
// "N passed, N failed" and exits 1 on any MUST failure, 2 on usage errors.

import { spawn, execFile } from 'node:child_process';
import { accessSync, constants as fsc, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const GLOBAL_DEADLINE_MS = 90_000;
const VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'];
const LATEST = '2025-11-25';
const CLIENT_INFO = { name: 'uiscope-protocol-edge-test', version: '1.0.0' };

// ---- reporting --------------------------------------------------------------

const results = [];
let currentStep = 'start-up';

function log(s = '') {
  process.stdout.write(`${s}\n`);
}
function short(v, max = 300) {
  let s;
  try {
    s = typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  if (s === undefined) s = String(v);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
function record(transport, level, name, ok, detail = '') {
  const status = ok ? 'PASS' : level === 'MUST' ? 'FAIL' : 'WARN';
  results.push({ transport, level, name, status, detail });
  log(`${status}  ${transport.padEnd(5)} [${level.padEnd(6)}] ${name}${detail ? `: ${detail}` : ''}`);
}
// Runs fn; fn returns nothing/a detail string on success or throws.
async function check(transport, level, name, fn) {
  currentStep = `${transport}: ${name}`;
  try {
    const detail = await fn();
    record(transport, level, name, true, typeof detail === 'string' ? detail : '');
  } catch (e) {
    record(transport, level, name, false, e instanceof Error ? e.message : String(e));
  }
}
function expect(cond, msg) {
  if (!cond) throw new Error(msg);
}

// ---- processes ----------------------------------------------------------------

const cleanups = [];
function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
async function kill(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitExit(child, 3000))) {
    child.kill('SIGKILL');
    await waitExit(child, 2000);
  }
}
function execFileP(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, options, (error, stdout, stderr) => resolve({ code: error ? error.code ?? -1 : 0, stdout, stderr }));
  });
}

// ---- stdio ------------------------------------------------------------------------

class StdioServer {
  constructor(uiscope, env, extraArgs = []) {
    this.child = spawn(uiscope, ['mcp', ...extraArgs], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.on('error', () => {});
    this.lines = []; // every stdout line, raw
    this.bad = []; // stdout lines that are not JSON-RPC messages
    this.waiters = [];
    this.stderr = '';
    this.child.stderr.on('data', (d) => (this.stderr += d.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        this.bad.push(line);
        return;
      }
      const ok = (m) => m && typeof m === 'object' && m.jsonrpc === '2.0';
      if (!(Array.isArray(msg) ? msg.length > 0 && msg.every(ok) : ok(msg))) this.bad.push(line);
      for (const w of [...this.waiters]) {
        if (w.match(msg)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          clearTimeout(w.timer);
          w.resolve(msg);
        }
      }
    });
    cleanups.push(() => kill(this.child));
  }
  sendRaw(text) {
    this.child.stdin.write(text);
  }
  send(msg) {
    this.sendRaw(`${JSON.stringify(msg)}\n`);
  }
  // Next stdout message for which match(msg) is true (from now on).
  next(match, ms = 10_000, what = 'a reply') {
    return new Promise((resolve, reject) => {
      const w = { match, resolve };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`no ${what} on stdout within ${ms} ms`));
      }, ms);
      this.waiters.push(w);
    });
  }
  request(msg, ms) {
    const p = this.next((m) => !Array.isArray(m) && m.id === msg.id && ('result' in m || 'error' in m), ms, `reply to id ${JSON.stringify(msg.id)}`);
    this.send(msg);
    return p;
  }
  async initialize(version, id = 'init') {
    const r = await this.request({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  // Collects whatever arrives on stdout during ms.
  async quietFor(ms) {
    const before = this.lines.length;
    await sleep(ms);
    return this.lines.slice(before);
  }
}

function isError(reply, code) {
  return reply && reply.error && typeof reply.error.code === 'number' && (code === undefined || reply.error.code === code);
}
function describe(reply) {
  return short(reply, 240);
}

async function stdioChecks(uiscope, env) {
  const T = 'stdio';
  const s = new StdioServer(uiscope, env);

  await check(T, 'MUST', 'initialize 2025-11-25: same version back, serverInfo, capabilities', async () => {
    const r = await s.initialize(LATEST);
    expect(r.result, `no result: ${describe(r)}`);
    expect(r.result.protocolVersion === LATEST, `protocolVersion ${r.result.protocolVersion}`);
    expect(r.result.serverInfo?.name && r.result.serverInfo?.version, 'serverInfo lacks name or version');
    expect(typeof r.result.capabilities === 'object', 'no capabilities');
  });

  await check(T, 'MUST', 'notification (notifications/initialized) gets no reply', async () => {
    const lines = await s.quietFor(300);
    expect(lines.length === 0, `unexpected stdout: ${short(lines.join(' | '))}`);
  });

  await check(T, 'MUST', 'unparsable line -> error -32700 with id null, and the server goes on', async () => {
    const p = s.next((m) => !Array.isArray(m) && m.error && m.id === null, 5000, 'error with id null');
    s.sendRaw('{"jsonrpc": "2.0", "id": 7, "method": \n');
    const r = await p;
    expect(r.error.code === -32700, `error code ${r.error.code} (JSON-RPC: parse error is -32700): ${describe(r)}`);
    const ping = await s.request({ jsonrpc: '2.0', id: 'after-parse-error', method: 'ping' });
    expect(ping.result && Object.keys(ping.result).length === 0, `ping after the bad line: ${describe(ping)}`);
  });

  await check(T, 'MUST', 'unknown method -> error -32601', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 11, method: 'no/such/method' });
    expect(isError(r, -32601), describe(r));
  });

  await check(T, 'MUST', 'request without "method" -> error -32600 (Invalid Request)', async () => {
    const p = s.next((m) => !Array.isArray(m) && m.error && (m.id === 12 || m.id === null), 5000, 'error for id 12 or null');
    s.send({ jsonrpc: '2.0', id: 12 });
    const r = await p;
    expect(r.error.code === -32600, describe(r));
  });

  await check(T, 'SHOULD', '"jsonrpc": "1.0" -> error -32600', async () => {
    const p = s.next((m) => !Array.isArray(m) && (m.id === 13 || (m.id === null && m.error)), 5000, 'reply for id 13 or null');
    s.send({ jsonrpc: '1.0', id: 13, method: 'ping' });
    const r = await p;
    expect(isError(r, -32600), describe(r));
  });

  await check(T, 'MUST', 'ids come back as sent: string, 0, negative, unicode', async () => {
    for (const id of ['abc-1', 0, -5, 'ü✓ 𝄞']) {
      const r = await s.request({ jsonrpc: '2.0', id, method: 'ping' });
      expect(r.id === id && r.result, `id ${JSON.stringify(id)} came back as ${describe(r)}`);
    }
  });

  await check(T, 'SHOULD', 'tools/call of an unknown tool -> JSON-RPC error -32602 (2025-11-25 tools: "Unknown tools" are protocol errors)', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    expect(isError(r, -32602), describe(r));
  });

  await check(T, 'SHOULD', 'tools/call without "name" -> JSON-RPC error -32602 (malformed request)', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 21, method: 'tools/call', params: { arguments: {} } });
    expect(isError(r, -32602), describe(r));
  });

  await check(T, 'MUST', 'tools/call observe with a bad argument -> result with isError: true', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: 'observe', arguments: { max_nodes: 'x' } } });
    expect(r.result && r.result.isError === true, describe(r));
  });

  // Resources and prompts are declared (issue 21); completions are not.
  await check(T, 'SHOULD', 'completion/complete (capability not declared) -> error -32601', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 23, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'plan_actions' }, argument: { name: 'goal', value: 'x' } } });
    expect(isError(r, -32601), describe(r));
  });

  await check(T, 'SHOULD', 'logging/setLevel {level:"bogus"} -> error -32602', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 24, method: 'logging/setLevel', params: { level: 'bogus' } });
    expect(isError(r, -32602), describe(r));
  });

  await check(T, 'MUST', 'logging/setLevel {level:"debug"} -> {} (capability declared)', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 25, method: 'logging/setLevel', params: { level: 'debug' } });
    expect(r.result && Object.keys(r.result).length === 0, describe(r));
  });

  await check(T, 'MUST', 'notifications/cancelled for an unknown request id is ignored (no reply)', async () => {
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent', reason: 'test' } });
    const lines = await s.quietFor(300);
    expect(lines.length === 0, `unexpected stdout: ${short(lines.join(' | '))}`);
  });

  await check(T, 'SHOULD', 'second initialize on the same connection -> error', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 26, method: 'initialize', params: { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT_INFO } });
    expect(isError(r), describe(r));
  });

  await check(T, 'SHOULD', 'CRLF line ending accepted', async () => {
    const p = s.next((m) => m.id === 27, 5000, 'reply to id 27');
    s.sendRaw(`${JSON.stringify({ jsonrpc: '2.0', id: 27, method: 'ping' })}\r\n`);
    const r = await p;
    expect(r.result, describe(r));
  });

  await check(T, 'SHOULD', 'empty line ignored (no reply, or a -32700 error) and the server goes on', async () => {
    s.sendRaw('\n');
    await sleep(200);
    const r = await s.request({ jsonrpc: '2.0', id: 28, method: 'ping' });
    expect(r.result, describe(r));
  });

  await check(T, 'SHOULD', 'a 1 MiB request line is handled', async () => {
    const r = await s.request({ jsonrpc: '2.0', id: 29, method: 'ping', params: { _meta: { pad: 'x'.repeat(1 << 20) } } });
    expect(r.result, describe(r));
  });

  await check(T, 'SHOULD', 'batch in a 2025-11-25 session -> error (batches were removed in 2025-06-18)', async () => {
    const p = s.next((m) => Array.isArray(m) || (m.error && (m.id === null || m.id === 30 || m.id === 31)), 5000, 'reply to the batch');
    s.send([
      { jsonrpc: '2.0', id: 30, method: 'ping' },
      { jsonrpc: '2.0', id: 31, method: 'ping' },
    ]);
    const r = await p;
    expect(!Array.isArray(r) && isError(r), `answered ${describe(r)}`);
  });

  await check(T, 'MUST', 'stdout carried only JSON-RPC messages', async () => {
    expect(s.bad.length === 0, `${s.bad.length} other line(s): ${short(s.bad.join(' | '))}`);
    return `${s.lines.length} lines`;
  });

  await check(T, 'SHOULD', 'exits promptly (3 s) once stdin is closed', async () => {
    s.child.stdin.end();
    const exited = await waitExit(s.child, 3000);
    expect(exited, 'still running 3 s after stdin was closed');
    return `exit code ${s.child.exitCode ?? s.child.signalCode}`;
  });

  // 2025-03-26 session: batches MUST be accepted there.
  const s0 = new StdioServer(uiscope, env);
  await check(T, 'MUST', 'initialize 2025-03-26 -> same version back', async () => {
    const r = await s0.initialize('2025-03-26');
    expect(r.result?.protocolVersion === '2025-03-26', describe(r));
  });
  await check(T, 'MUST', 'batch [ping, ping, notification] in a 2025-03-26 session -> array of 2 replies (2025-03-26: "MUST support receiving JSON-RPC batches")', async () => {
    const p = s0.next((m) => Array.isArray(m), 5000, 'a batch reply (JSON array)');
    s0.send([
      { jsonrpc: '2.0', id: 40, method: 'ping' },
      { jsonrpc: '2.0', id: 41, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } },
    ]);
    const r = await p;
    const ids = r.map((m) => m.id).sort();
    expect(r.length === 2 && ids[0] === 40 && ids[1] === 41 && r.every((m) => m.result), describe(r));
  });
  await check(T, 'SHOULD', 'exits promptly (3 s) on SIGTERM', async () => {
    s0.child.kill('SIGTERM');
    expect(await waitExit(s0.child, 3000), 'still running 3 s after SIGTERM');
  });

  // A small message limit on stdio: an over-long line is refused, the server goes on.
  const sl = new StdioServer(uiscope, env, ['--max-message-bytes', '2048']);
  await sl.initialize(LATEST);
  await check(T, 'SHOULD', 'a line above --max-message-bytes (2048) -> an error reply, and the server goes on', async () => {
    const p = sl.next((m) => !Array.isArray(m) && (m.id === 60 || m.id === null), 5000, 'reply for id 60 or null');
    sl.send({ jsonrpc: '2.0', id: 60, method: 'ping', params: { _meta: { pad: 'x'.repeat(8192) } } });
    const r = await p;
    expect(isError(r), `answered ${describe(r)}`);
    const ping = await sl.request({ jsonrpc: '2.0', id: 61, method: 'ping' });
    expect(ping.result, `ping after the long line: ${describe(ping)}`);
    return `error ${r.error.code}: ${short(r.error.message, 120)}`;
  });
  await kill(sl.child);

  // Unsupported version proposed: the server answers with one it supports.
  const s1 = new StdioServer(uiscope, env);
  await check(T, 'MUST', 'initialize with protocolVersion "1999-01-01" -> a version the server supports', async () => {
    const r = await s1.initialize('1999-01-01');
    expect(r.result && VERSIONS.includes(r.result.protocolVersion), describe(r));
    return `answered ${r.result.protocolVersion}`;
  });
  await check(T, 'SHOULD', 'a request before initialize -> error (not a normal result)', async () => {
    const s2 = new StdioServer(uiscope, env);
    const r = await s2.request({ jsonrpc: '2.0', id: 50, method: 'tools/list' });
    await kill(s2.child);
    expect(isError(r), describe(r));
  });
  await kill(s1.child);
}

// ---- HTTP ---------------------------------------------------------------------------

// Sends Content-Length unless chunked is true (then Transfer-Encoding: chunked).
// HTTP always needs a token: every server here gets this one, and every
// request carries it unless it names an authorization of its own.
const HTTP_TOKEN = 'protocol-edge-test-token';

function httpRequest(url, { method = 'POST', headers = {}, body, timeout = 15_000, stream = false, pathOverride, chunked = false } = {}) {
  const u = new URL(url);
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) headers = { ...headers, authorization: `Bearer ${HTTP_TOKEN}` };
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  if (payload && !chunked) headers = { ...headers, 'content-length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: pathOverride ?? u.pathname, method, headers, agent: false, timeout },
      (res) => {
        if (stream) {
          // Event stream: report the headers and close.
          resolve({ status: res.statusCode, headers: res.headers, text: '' });
          res.destroy();
          req.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no complete answer within ${timeout} ms`)));
    req.on('error', reject);
    if (payload) {
      if (chunked) {
        // at least two chunks
        const half = Math.floor(payload.length / 2);
        req.write(payload.subarray(0, half));
        req.write(payload.subarray(half));
      } else {
        req.write(payload);
      }
    }
    req.end();
  });
}

// The JSON-RPC messages of a response body (JSON or an SSE stream).
function messagesOf(res) {
  const ct = res.headers['content-type'] ?? '';
  if (!res.text) return [];
  if (ct.includes('text/event-stream')) {
    const out = [];
    for (const block of res.text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim()) out.push(JSON.parse(data));
    }
    return out;
  }
  return [JSON.parse(res.text)];
}
function replyOf(res, id) {
  const msgs = messagesOf(res);
  return msgs.find((m) => !Array.isArray(m) && m.id === id && ('result' in m || 'error' in m)) ?? msgs.find((m) => Array.isArray(m)) ?? msgs[0];
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${HTTP_TOKEN}` };

class HttpSession {
  constructor(url) {
    this.url = url;
  }
  async open(version = LATEST) {
    const res = await httpRequest(this.url, {
      headers: JSON_HEADERS,
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO } },
    });
    this.sid = res.headers['mcp-session-id'];
    this.init = res;
    this.reply = res.status === 200 ? replyOf(res, 1) : undefined;
    this.version = this.reply?.result?.protocolVersion ?? version;
    return res;
  }
  headers(extra = {}) {
    const h = { ...JSON_HEADERS, 'mcp-protocol-version': this.version };
    if (this.sid) h['mcp-session-id'] = this.sid;
    return { ...h, ...extra };
  }
  initialized() {
    return httpRequest(this.url, { headers: this.headers(), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  }
  post(body, extra = {}, options = {}) {
    return httpRequest(this.url, { headers: this.headers(extra), body, ...options });
  }
}

async function startHttp(uiscope, env, extra = []) {
  const child = spawn(uiscope, ['mcp', '--http', '127.0.0.1:0', '--token', HTTP_TOKEN, ...extra], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  cleanups.push(() => kill(child));
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no "listening on" line within 15 s: ${short(stderr)}`)), 15_000);
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      const m = /MCP server listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    child.once('exit', (c, sig) => {
      clearTimeout(t);
      reject(new Error(`exited (${c ?? sig}) before listening: ${short(stderr)}`));
    });
  });
  return { child, url, stderr: () => stderr };
}

function statusLine(res) {
  return `HTTP ${res.status} ${res.headers['content-type'] ?? ''} ${short(res.text, 200)}`;
}

async function httpChecks(uiscope, env) {
  const T = 'http';
  const srv = await startHttp(uiscope, env);
  const url = srv.url;
  const port = new URL(url).port;

  for (const v of VERSIONS) {
    await check(T, 'MUST', `initialize ${v} -> 200, same version back, Mcp-Session-Id`, async () => {
      const s = new HttpSession(url);
      const res = await s.open(v);
      expect(res.status === 200, statusLine(res));
      expect(s.reply?.result?.protocolVersion === v, `reply ${describe(s.reply)}`);
      expect(s.sid, 'no Mcp-Session-Id header (the rest of these checks assume sessions)');
      const n = await s.initialized();
      expect(n.status === 202 && n.text === '', `notifications/initialized: ${statusLine(n)} (spec: 202 with no body)`);
    });
  }

  await check(T, 'MUST', 'initialize with protocolVersion "1999-01-01" -> a version the server supports', async () => {
    const s = new HttpSession(url);
    const res = await s.open('1999-01-01');
    expect(res.status === 200 && VERSIONS.includes(s.reply?.result?.protocolVersion), `${statusLine(res)}`);
  });

  const s = new HttpSession(url);
  await s.open(LATEST);
  await s.initialized();

  await check(T, 'MUST', 'unknown method -> JSON-RPC error -32601', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    const r = replyOf(res, 2);
    expect(isError(r, -32601), statusLine(res));
  });

  await check(T, 'MUST', 'ids come back as sent: string, 0, unicode', async () => {
    for (const id of ['abc-1', 0, 'ü✓ 𝄞']) {
      const res = await s.post({ jsonrpc: '2.0', id, method: 'ping' });
      const r = replyOf(res, id);
      expect(res.status === 200 && r?.id === id && r.result, `id ${JSON.stringify(id)}: ${statusLine(res)}`);
    }
  });

  await check(T, 'MUST', 'unparsable body -> HTTP 400 (body, if any: error -32700, id null)', async () => {
    const res = await httpRequest(url, { headers: s.headers(), body: '{"jsonrpc": "2.0", "id": 3, "method": ' });
    expect(res.status === 400, statusLine(res));
    if (res.text) {
      const r = JSON.parse(res.text);
      expect(r.error?.code === -32700 && r.id === null, `body ${short(res.text)}`);
    }
  });

  await check(T, 'MUST', 'request without "method" -> error -32600 (HTTP 400 or 200)', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 4 });
    const r = res.text ? JSON.parse(res.text) : null;
    expect((res.status === 400 || res.status === 200) && isError(r, -32600), statusLine(res));
  });

  await check(T, 'MUST', 'notification -> 202 Accepted with no body', async () => {
    const res = await s.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } });
    expect(res.status === 202 && res.text === '', statusLine(res));
  });

  await check(T, 'MUST', 'a JSON-RPC response from the client -> 202 with no body, or an HTTP error', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect((res.status === 202 && res.text === '') || res.status >= 400, statusLine(res));
    return `HTTP ${res.status}`;
  });

  await check(T, 'SHOULD', 'no Mcp-Session-Id on a non-initialize request -> 400', async () => {
    const h = s.headers();
    delete h['mcp-session-id'];
    const res = await httpRequest(url, { headers: h, body: { jsonrpc: '2.0', id: 5, method: 'ping' } });
    expect(res.status === 400, statusLine(res));
  });

  await check(T, 'MUST', 'unknown Mcp-Session-Id -> 404', async () => {
    const res = await httpRequest(url, { headers: s.headers({ 'mcp-session-id': 'no-such-session-0123456789' }), body: { jsonrpc: '2.0', id: 6, method: 'ping' } });
    expect(res.status === 404, statusLine(res));
  });

  await check(T, 'MUST', 'MCP-Protocol-Version: 1999-01-01 -> 400', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status === 400, statusLine(res));
  });

  await check(T, 'SHOULD', 'no MCP-Protocol-Version header in a session -> served', async () => {
    const h = s.headers();
    delete h['mcp-protocol-version'];
    const res = await httpRequest(url, { headers: h, body: { jsonrpc: '2.0', id: 8, method: 'ping' } });
    expect(res.status === 200 && replyOf(res, 8)?.result, statusLine(res));
  });

  await check(T, 'MUST', 'Origin: http://evil.example.com -> 403 (2025-11-25: "MUST respond with HTTP 403 Forbidden")', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { origin: 'http://evil.example.com' });
    expect(res.status === 403, statusLine(res));
  });

  await check(T, 'MUST', `Origin: http://127.0.0.1:${port} (the server's own) -> served`, async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 10, method: 'ping' }, { origin: `http://127.0.0.1:${port}` });
    expect(res.status === 200, statusLine(res));
  });

  await check(T, 'SHOULD', 'Origin of another local port -> 403 (a page of any local server is another origin)', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 10, method: 'ping' }, { origin: `http://localhost:${port}` });
    expect(res.status === 403, statusLine(res));
  });

  await check(T, 'SHOULD', 'Host: evil.example.com (no Origin) -> 4xx (DNS rebinding: a same-origin GET carries no Origin)', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 11, method: 'ping' }, { host: `evil.example.com:${port}` });
    expect(res.status >= 400 && res.status < 500, statusLine(res));
  });

  await check(T, 'MUST', 'GET with Accept: text/event-stream -> 200 text/event-stream, or 405', async () => {
    const res = await httpRequest(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': s.sid, 'mcp-protocol-version': s.version }, stream: true });
    const ct = res.headers['content-type'] ?? '';
    expect((res.status === 200 && ct.includes('text/event-stream')) || res.status === 405, `HTTP ${res.status} ${ct}`);
    return `HTTP ${res.status} ${ct}`;
  });

  await check(T, 'SHOULD', 'GET without Mcp-Session-Id -> 400 (or 405)', async () => {
    const res = await httpRequest(url, { method: 'GET', headers: { accept: 'text/event-stream' }, stream: true });
    expect(res.status === 400 || res.status === 405, `HTTP ${res.status}`);
  });

  await check(T, 'SHOULD', 'POST with Content-Type: text/plain -> 415 (or 400)', async () => {
    const res = await httpRequest(url, { headers: s.headers({ 'content-type': 'text/plain' }), body: { jsonrpc: '2.0', id: 12, method: 'ping' } });
    expect(res.status === 415 || res.status === 400, statusLine(res));
  });

  await check(T, 'SHOULD', 'POST with Accept: text/html -> 406', async () => {
    const res = await httpRequest(url, { headers: s.headers({ accept: 'text/html' }), body: { jsonrpc: '2.0', id: 13, method: 'ping' } });
    expect(res.status === 406, statusLine(res));
  });

  await check(T, 'SHOULD', 'PUT /mcp -> 405', async () => {
    const res = await httpRequest(url, { method: 'PUT', headers: s.headers(), body: { jsonrpc: '2.0', id: 14, method: 'ping' } });
    expect(res.status === 405, statusLine(res));
  });

  await check(T, 'SHOULD', 'POST /not-mcp -> 404', async () => {
    const res = await httpRequest(url, { headers: s.headers(), body: { jsonrpc: '2.0', id: 15, method: 'ping' }, pathOverride: '/not-mcp' });
    expect(res.status === 404, statusLine(res));
  });

  await check(T, 'SHOULD', 'tools/call of an unknown tool -> JSON-RPC error -32602', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    const r = replyOf(res, 16);
    expect(isError(r, -32602), statusLine(res));
  });

  await check(T, 'MUST', 'tools/call observe {max_nodes:"x"} -> result with isError: true', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 17, method: 'tools/call', params: { name: 'observe', arguments: { max_nodes: 'x' } } });
    const r = replyOf(res, 17);
    expect(res.status === 200 && r?.result?.isError === true, statusLine(res));
  });

  await check(T, 'SHOULD', 'batch in a 2025-11-25 session -> refused (HTTP 400, or a JSON-RPC error)', async () => {
    const res = await s.post([
      { jsonrpc: '2.0', id: 18, method: 'ping' },
      { jsonrpc: '2.0', id: 19, method: 'ping' },
    ]);
    const body = res.text ? JSON.parse(res.text) : null;
    expect(res.status === 400 || (body && !Array.isArray(body) && body.error), statusLine(res));
  });

  await check(T, 'MUST', 'batch [ping, ping] in a 2025-03-26 session -> array of 2 replies (2025-03-26: "MUST support receiving JSON-RPC batches")', async () => {
    const old = new HttpSession(url);
    await old.open('2025-03-26');
    await old.initialized();
    const res = await old.post([
      { jsonrpc: '2.0', id: 20, method: 'ping' },
      { jsonrpc: '2.0', id: 21, method: 'ping' },
    ]);
    const msgs = messagesOf(res);
    const arr = msgs.length === 1 && Array.isArray(msgs[0]) ? msgs[0] : msgs;
    const ids = arr.map((m) => m.id).sort();
    expect(res.status === 200 && arr.length === 2 && ids[0] === 20 && ids[1] === 21, statusLine(res));
  });

  await check(T, 'MUST', 'two sessions are independent: DELETE one, the other still answers; the deleted one gets 404', async () => {
    const a = new HttpSession(url);
    const b = new HttpSession(url);
    await a.open();
    await b.open();
    await a.initialized();
    await b.initialized();
    expect(a.sid !== b.sid, 'both sessions got the same id');
    const del = await httpRequest(url, { method: 'DELETE', headers: { 'mcp-session-id': a.sid, 'mcp-protocol-version': a.version } });
    expect(del.status >= 200 && del.status < 300, `DELETE: ${statusLine(del)}`);
    const rb = await b.post({ jsonrpc: '2.0', id: 22, method: 'ping' });
    expect(rb.status === 200, `other session after DELETE: ${statusLine(rb)}`);
    const ra = await a.post({ jsonrpc: '2.0', id: 23, method: 'ping' });
    expect(ra.status === 404, `deleted session: ${statusLine(ra)}`);
  });

  await check(T, 'SHOULD', 'DELETE without Mcp-Session-Id -> 400', async () => {
    const res = await httpRequest(url, { method: 'DELETE', headers: {} });
    expect(res.status === 400, statusLine(res));
  });

  await check(T, 'SHOULD', 'initialize inside an existing session -> refused (HTTP 4xx or a JSON-RPC error)', async () => {
    const res = await s.post({ jsonrpc: '2.0', id: 24, method: 'initialize', params: { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT_INFO } });
    const r = res.status === 200 ? replyOf(res, 24) : null;
    expect(res.status >= 400 || isError(r), statusLine(res));
  });

  await check(T, 'SHOULD', 'exits promptly (3 s) on SIGTERM while a client holds an idle keep-alive connection', async () => {
    // A client (like Node's fetch) keeps its connection open after a reply.
    const agent = new http.Agent({ keepAlive: true });
    const u = new URL(url);
    await new Promise((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: s.headers(), agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 25, method: 'ping' }));
    });
    const t0 = Date.now();
    srv.child.kill('SIGTERM');
    const exited = await waitExit(srv.child, 3000);
    agent.destroy();
    if (!exited) {
      const later = await waitExit(srv.child, 40_000);
      throw new Error(`still running 3 s after SIGTERM; ${later ? `exited ${Date.now() - t0} ms after SIGTERM` : 'still running after 43 s'} (the idle connection was open until 3 s)`);
    }
    return `exited after ${Date.now() - t0} ms`;
  });

  // A small message limit.
  const small = await startHttp(uiscope, env, ['--max-message-bytes', '2048']);
  const t = new HttpSession(small.url);
  await t.open();
  await t.initialized();
  await check(T, 'MUST', 'a chunked body below --max-message-bytes (2048) -> served', async () => {
    const res = await t.post({ jsonrpc: '2.0', id: 29, method: 'ping' }, {}, { chunked: true });
    expect(res.status === 200 && replyOf(res, 29)?.result, statusLine(res));
  });
  await check(T, 'MUST', 'an 8 KiB body with Content-Length above --max-message-bytes (2048) -> 413', async () => {
    const res = await t.post({ jsonrpc: '2.0', id: 30, method: 'ping', params: { _meta: { pad: 'x'.repeat(8192) } } });
    expect(res.status === 413, statusLine(res));
  });
  await check(T, 'MUST', 'an 8 KiB chunked body (no Content-Length) above --max-message-bytes (2048) -> 413', async () => {
    const res = await t.post({ jsonrpc: '2.0', id: 31, method: 'ping', params: { _meta: { pad: 'x'.repeat(8192) } } }, {}, { chunked: true });
    expect(res.status === 413, `${statusLine(res)} (the limit is not applied to chunked bodies)`);
  });
  await kill(small.child);

  // The limits a client can meet (issue 14, defects 4 and 8), set by flags.
  const limited = await startHttp(uiscope, env, ['--max-sessions-per-client', '2', '--max-connections', '3']);
  await check(T, 'MUST', 'at --max-sessions-per-client 2, a third session of one client ends its oldest idle one (404 after); another client is served', async () => {
    const a = new HttpSession(limited.url);
    const b = new HttpSession(limited.url);
    const c = new HttpSession(limited.url);
    for (const [n, s] of [['a', a], ['b', b], ['c', c]]) {
      const res = await s.open();
      expect(res.status === 200, `session ${n}: ${statusLine(res)}`);
      await s.initialized();
    }
    const old = await a.post({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(old.status === 404, `the oldest idle session: ${statusLine(old)}`);
    const other = await httpRequest(limited.url, {
      headers: JSON_HEADERS,
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'another-client', version: '1.0.0' } } },
    });
    expect(other.status === 200, `another client: ${statusLine(other)}`);
  });
  await check(T, 'MUST', 'at --max-sessions-per-client 2 with both sessions busy (open event streams), a third -> 429 with Retry-After', async () => {
    const u = new URL(limited.url);
    const held = [];
    try {
      for (let i = 0; i < 2; ++i) {
        const s = new HttpSession(limited.url);
        await s.open();
        await s.initialized();
        held.push(await new Promise((resolve, reject) => {
          const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: s.headers({ accept: 'text/event-stream' }), agent: false }, (res) => resolve({ req, res }));
          req.on('error', reject);
          req.end();
        }));
        expect(held[i].res.statusCode === 200, `event stream ${i}: HTTP ${held[i].res.statusCode}`);
      }
      const third = await new HttpSession(limited.url).open();
      expect(third.status === 429 && third.headers['retry-after'], `${statusLine(third)} retry-after: ${third.headers['retry-after']}`);
    } finally {
      for (const h of held) h.req.destroy();
    }
  });
  await check(T, 'MUST', 'a connection beyond --max-connections 3 -> 503 with Retry-After at once; served again once one closes', async () => {
    const port = Number(new URL(limited.url).port);
    const held = await Promise.all([1, 2, 3].map(() => new Promise((resolve, reject) => {
      const sock = net.connect(port, '127.0.0.1', () => resolve(sock));
      sock.on('error', reject);
    })));
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    try {
      const res = await httpRequest(limited.url, { headers: JSON_HEADERS, body: ping, timeout: 5000 });
      expect(res.status === 503 && res.headers['retry-after'], `${statusLine(res)} retry-after: ${res.headers['retry-after']}`);
    } finally {
      for (const sock of held) sock.destroy();
    }
    // The server notices the closed connections on its own time: poll.
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await httpRequest(limited.url, { headers: JSON_HEADERS, body: ping, timeout: 5000 });
      if (res.status !== 503) {
        // No session: the request itself is refused, but by the endpoint, not the limit.
        expect(res.status === 400, statusLine(res));
        break;
      }
      expect(Date.now() < deadline, 'still 503 five seconds after the held connections closed');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  await kill(limited.child);
}

// ---- main ---------------------------------------------------------------------------

async function main() {
  const buildArg = process.argv[2];
  if (!buildArg || buildArg === '-h' || buildArg === '--help') {
    process.stderr.write('usage: node protocol_edge_test.mjs BUILD_DIR\n');
    return 2;
  }
  const uiscope = path.join(path.resolve(buildArg), 'bin', 'uiscope');
  try {
    accessSync(uiscope, fsc.X_OK);
  } catch {
    process.stderr.write(`protocol_edge_test: ${uiscope} is missing or not executable\n`);
    return 2;
  }
  const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-mcp-edge-'));
  const env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
  for (const k of ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'UISCOPE_SESSION', 'UISCOPE_MCP_TOKEN']) delete env[k];
  cleanups.push(async () => {
    // Stop any desktop the server may have started on its own.
    const r = await execFileP(uiscope, ['session', 'list', '--json'], { env, timeout: 10_000 });
    try {
      for (const sess of JSON.parse(r.stdout).sessions ?? []) {
        log(`note: the server left desktop session ${sess.id} running; stopping it`);
        await execFileP(uiscope, ['session', 'stop', sess.id], { env, timeout: 20_000 });
      }
    } catch {
      // no sessions or no JSON
    }
    rmSync(stateDir, { recursive: true, force: true });
  });
  await stdioChecks(uiscope, env);
  await httpChecks(uiscope, env);
  return 0;
}

let finished = false;
async function finish(code) {
  if (finished) return;
  finished = true;
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch {
      // keep cleaning
    }
  }
  process.exit(code);
}
function summary() {
  const fail = results.filter((r) => r.status === 'FAIL');
  const warn = results.filter((r) => r.status === 'WARN');
  const pass = results.filter((r) => r.status === 'PASS');
  if (fail.length || warn.length) {
    log('\nNot passed:');
    for (const r of [...fail, ...warn]) log(`  ${r.status} ${r.transport} [${r.level}] ${r.name}: ${r.detail}`);
  }
  log(`\n${warn.length} warning(s) (SHOULD-level checks not met)`);
  log(`${pass.length} passed, ${fail.length} failed`);
  return fail.length;
}
const deadline = setTimeout(() => {
  record('all', 'MUST', `global deadline ${GLOBAL_DEADLINE_MS / 1000} s`, false, `at "${currentStep}"`);
  summary();
  finish(1);
}, GLOBAL_DEADLINE_MS);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => finish(130));
main()
  .then((code) => {
    clearTimeout(deadline);
    if (code === 2) return finish(2);
    return finish(summary() ? 1 : 0);
  })
  .catch((e) => {
    clearTimeout(deadline);
    record('all', 'MUST', `unexpected error at "${currentStep}"`, false, e?.stack ?? String(e));
    summary();
    finish(1);
  });
