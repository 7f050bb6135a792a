#!/usr/bin/env node
// Runs the selected server scenarios of @modelcontextprotocol/conformance
// against `uiscope mcp --http 127.0.0.1:0`. Called by run_conformance.sh
// (which installs the packages first); see CONFORMANCE.md for the selection.
//
//   node conformance_runner.mjs BUILD_DIR [--out DIR] [--keep-going]
//
// Prints a per-scenario table (one row per scenario and spec version), the
// failed checks with their details, and "N passed, N failed" (scenarios);
// exits 1 if any selected scenario has a FAILURE check, the server could not
// be started or probed, or it died during the run; 2 on usage errors.

import { spawn, execFile } from 'node:child_process';
import { accessSync, constants as fsc, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONFORMANCE_CLI = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const NODE_ARGS = ['--import', path.join(HERE, 'node20-compat.mjs')];

// The protocol versions uiscope's server speaks, oldest first.
const SPEC_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'];

// Scenarios that apply to a server with uiscope's own tools and no demo
// tools/resources/prompts of the suite. Each runs at every version in
// SPEC_VERSIONS at which the suite says it applies. Keep in sync with
// CONFORMANCE.md.
const SELECTED = [
  'server-initialize', // lifecycle: initialize handshake, session id is visible ASCII, wire schema
  'server-session-lifecycle', // initialized notification accepted, DELETE, then 404 on the old session
  'ping', // ping -> {}
  'tools-list', // tools have name/description/inputSchema, tool-name format, wire schema
  'server-sse-multiple-streams', // three concurrent POSTs on one session, each answered
  'dns-rebinding-protection', // foreign Host/Origin -> 4xx; localhost Host/Origin -> 2xx
];
// Selected only when the server declares the matching capability.
const CONDITIONAL = [
  { scenario: 'logging-set-level', capability: 'logging' },
  { scenario: 'resources-list', capability: 'resources' }, // every resource has uri and name; wire schema
  { scenario: 'prompts-list', capability: 'prompts' }, // every prompt has name and description; wire schema
];

const SCENARIO_TIMEOUT_MS = 60_000;
const GLOBAL_DEADLINE_MS = 600_000;

function log(s = '') {
  process.stdout.write(`${s}\n`);
}

function short(v, max = 400) {
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (s === undefined) s = String(v);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

function execFileP(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, signal: error?.signal, stdout, stderr });
    });
  });
}

function runConformance(args, timeout = SCENARIO_TIMEOUT_MS) {
  return execFileP(process.execPath, [...NODE_ARGS, CONFORMANCE_CLI, ...args], { timeout, killSignal: 'SIGKILL', cwd: HERE });
}

// ---- the server -----------------------------------------------------------

let server = null;

// HTTP always needs a token, and the suite cannot send one: it talks to
// this loopback proxy, which adds the header and passes everything else,
// event streams and the Host and Origin headers included, through
// unchanged (the DNS-rebinding scenario's Host and Origin are the proxy's,
// so the server judges exactly what the suite sent).
const HTTP_TOKEN = 'conformance-token';
function tokenProxy(target) {
  const t = new URL(target);
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${HTTP_TOKEN}` };
    const up = http.request({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers, agent: false }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve({ proxy, url: `http://127.0.0.1:${proxy.address().port}${t.pathname}` })));
}

async function startServer(uiscope, outDir) {
  const env = { ...process.env, UISCOPE_STATE_DIR: mkdtempSync(path.join(tmpdir(), 'uiscope-mcp-conf-')) };
  // Hermetic: none of the selected scenarios needs a desktop.
  for (const k of ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'UISCOPE_SESSION']) delete env[k];
  delete env.UISCOPE_MCP_TOKEN;
  const args = ['mcp', '--http', '127.0.0.1:0', '--token', HTTP_TOKEN];
  const child = spawn(uiscope, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d.toString()));
  child.stderr.on('data', (d) => (stderr += d.toString()));
  server = { child, env, stderr: () => stderr, stdout: () => stdout, outDir };
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no "MCP server listening on" line on stderr within 15 s; stderr: ${short(stderr, 800)}`)), 15_000);
    const onData = () => {
      const m = /MCP server listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        child.stderr.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code, sig) => {
      clearTimeout(t);
      reject(new Error(`\`uiscope ${args.join(' ')}\` exited (${code ?? sig}) before listening; stderr: ${short(stderr, 800)}; stdout: ${short(stdout, 300)}`));
    });
  });
  const { proxy, url: proxied } = await tokenProxy(url);
  server.proxy = proxy;
  server.url = proxied;
  return proxied;
}

async function stopServer() {
  if (!server) return;
  const { child, env, outDir, proxy } = server;
  proxy?.closeAllConnections?.();
  proxy?.close();
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const exited = await new Promise((r) => {
      const t = setTimeout(() => r(false), 3000);
      child.once('exit', () => {
        clearTimeout(t);
        r(true);
      });
    });
    if (!exited) {
      log(`warning: uiscope mcp (pid ${child.pid}) ignored SIGTERM for 3 s; SIGKILL`);
      child.kill('SIGKILL');
    }
  }
  if (outDir) writeFileSync(path.join(outDir, 'server-stderr.log'), server.stderr());
  rmSync(env.UISCOPE_STATE_DIR, { recursive: true, force: true });
  server = null;
}

// initialize once with the SDK to read the declared capabilities.
async function probe(url) {
  const client = new Client({ name: 'uiscope-conformance-probe', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, { timeout: 15_000 });
  const info = { serverInfo: client.getServerVersion(), capabilities: client.getServerCapabilities() ?? {}, protocolVersion: transport.protocolVersion, sessionId: transport.sessionId };
  try {
    await transport.terminateSession();
  } catch {
    // the session-lifecycle scenario reports DELETE problems properly
  }
  await client.close();
  return info;
}

// ---- scenarios ------------------------------------------------------------

async function applicableAt(version) {
  const r = await runConformance(['list', '--server', '--spec-version', version], 30_000);
  if (r.code !== 0) throw new Error(`conformance list --server --spec-version ${version} failed: ${short(r.stderr || r.stdout)}`);
  return new Set([...r.stdout.matchAll(/^\s+-\s+(\S+)\s+\[/gm)].map((m) => m[1]));
}

async function allServerScenarios() {
  const r = await runConformance(['list', '--server'], 30_000);
  return new Map([...r.stdout.matchAll(/^\s+-\s+(\S+)\s+\[([^\]]*)\]/gm)].map((m) => [m[1], m[2]]));
}

function readChecks(dir) {
  if (!existsSync(dir)) return null;
  for (const d of readdirSync(dir)) {
    const f = path.join(dir, d, 'checks.json');
    if (existsSync(f)) return JSON.parse(readFileSync(f, 'utf8'));
  }
  return null;
}

async function runScenario(url, scenario, version, outDir) {
  const dir = path.join(outDir, `${version}`, scenario);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const r = await runConformance(['server', '--url', url, '--scenario', scenario, '--spec-version', version, '-o', dir, '--timeout', String(SCENARIO_TIMEOUT_MS - 5000)]);
  writeFileSync(path.join(dir, 'output.txt'), `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  const checks = readChecks(dir);
  const count = (s) => (checks ?? []).filter((c) => c.status === s).length;
  const row = {
    scenario,
    version,
    ms: Date.now() - started,
    passed: count('SUCCESS'),
    failed: count('FAILURE'),
    warnings: count('WARNING'),
    skipped: count('SKIPPED'),
    checks: checks ?? [],
    exit: r.code,
    note: '',
  };
  if (!checks) {
    row.failed = Math.max(1, row.failed);
    row.note = r.signal ? `killed after ${SCENARIO_TIMEOUT_MS} ms` : `no checks.json (exit ${r.code}): ${short((r.stderr || r.stdout).trim(), 300)}`;
  } else if (checks.length === 0) {
    row.failed = 1;
    row.note = 'scenario produced no checks';
  }
  return row;
}

// ---- main -----------------------------------------------------------------

async function main() {
  const argv = process.argv.slice(2);
  const buildArg = argv.find((a) => !a.startsWith('--'));
  const outIdx = argv.indexOf('--out');
  if (!buildArg || argv.includes('-h') || argv.includes('--help')) {
    process.stderr.write('usage: node conformance_runner.mjs BUILD_DIR [--out DIR]\n');
    return 2;
  }
  const uiscope = path.join(path.resolve(buildArg), 'bin', 'uiscope');
  try {
    accessSync(uiscope, fsc.X_OK);
  } catch {
    process.stderr.write(`run_conformance: ${uiscope} is missing or not executable (build first)\n`);
    return 2;
  }
  const outDir = path.resolve(outIdx >= 0 ? argv[outIdx + 1] : path.join(HERE, 'results', 'conformance'));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const pkg = JSON.parse(readFileSync(path.join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8'));
  log(`conformance suite: ${pkg.name}@${pkg.version}; results in ${outDir}`);

  let url;
  try {
    url = await startServer(uiscope, outDir);
  } catch (e) {
    log(`FAIL  server start: ${e.message}`);
    return 1;
  }
  log(`server: ${url}`);

  let info;
  try {
    info = await probe(url);
  } catch (e) {
    log(`FAIL  initialize probe with the SDK client: ${e.message}`);
    log(`server stderr: ${short(server.stderr(), 1500)}`);
    return 1;
  }
  log(`server: ${info.serverInfo?.name} ${info.serverInfo?.version}, protocol ${info.protocolVersion}, capabilities ${short(info.capabilities, 300)}, session id ${info.sessionId ? 'yes' : 'none'}`);

  const selected = [...SELECTED];
  const skippedConditional = [];
  for (const c of CONDITIONAL) {
    if (info.capabilities[c.capability] !== undefined) selected.push(c.scenario);
    else skippedConditional.push(`${c.scenario} (server does not declare capabilities.${c.capability})`);
  }
  const known = await allServerScenarios();
  const unknown = selected.filter((s) => !known.has(s));
  if (unknown.length) log(`warning: this suite version has no scenario ${unknown.join(', ')}`);
  if (skippedConditional.length) log(`not selected: ${skippedConditional.join('; ')}`);
  const notSelected = [...known.keys()].filter((s) => !selected.includes(s));
  log(`not selected (see CONFORMANCE.md): ${notSelected.length} scenarios`);

  const rows = [];
  for (const version of SPEC_VERSIONS) {
    const applicable = await applicableAt(version);
    for (const scenario of selected) {
      if (!applicable.has(scenario)) continue;
      const row = await runScenario(url, scenario, version, outDir);
      rows.push(row);
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        row.note = `${row.note} server died during this scenario (${server.child.exitCode ?? server.child.signalCode})`.trim();
        row.failed = Math.max(1, row.failed);
        break;
      }
    }
    if (server.child.exitCode !== null || server.child.signalCode !== null) break;
  }

  // ---- report
  log('');
  const head = ['scenario', 'spec', 'result', 'pass', 'fail', 'warn', 'skip', 'ms'];
  const w = [30, 10, 6, 4, 4, 4, 4, 6];
  const fmt = (cols) => cols.map((c, i) => String(c).padEnd(w[i])).join(' ');
  log(fmt(head));
  log(fmt(w.map((n) => '-'.repeat(n))));
  for (const r of rows) {
    log(fmt([r.scenario, r.version, r.failed ? 'FAIL' : 'PASS', r.passed, r.failed, r.warnings, r.skipped, r.ms]) + (r.note ? `  ${r.note}` : ''));
  }
  const bad = rows.filter((r) => r.failed);
  const warned = rows.filter((r) => r.warnings);
  if (bad.length || warned.length) {
    log('\nDetails (FAILURE and WARNING checks):');
    for (const r of [...bad, ...warned.filter((x) => !bad.includes(x))]) {
      for (const c of r.checks.filter((x) => x.status === 'FAILURE' || x.status === 'WARNING')) {
        log(`  [${r.version}] ${r.scenario} / ${c.id}: ${c.status}: ${c.errorMessage ?? c.description}`);
        if (c.details) log(`      details: ${short(c.details, 1200)}`);
      }
      if (!r.checks.length && r.note) log(`  [${r.version}] ${r.scenario}: ${r.note}`);
    }
  }
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  if (!alive) log(`\nFAIL  the server died (${server.child.exitCode ?? server.child.signalCode}); stderr: ${short(server.stderr(), 1500)}`);
  const passed = rows.length - bad.length;
  log(`\nconformance: ${passed} passed, ${bad.length} failed`);
  return bad.length || !alive || rows.length === 0 ? 1 : 0;
}

let done = false;
async function finish(code) {
  if (done) return;
  done = true;
  await stopServer().catch(() => {});
  process.exit(code);
}
const deadline = setTimeout(() => {
  log(`FAIL  global deadline of ${GLOBAL_DEADLINE_MS / 1000} s`);
  finish(1);
}, GLOBAL_DEADLINE_MS);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => finish(130));

main()
  .then((code) => {
    clearTimeout(deadline);
    return finish(code);
  })
  .catch((e) => {
    clearTimeout(deadline);
    log(`FAIL  ${e?.stack ?? e}`);
    return finish(1);
  });
