#!/usr/bin/env node
// uiscope's MCP server seen by the official TypeScript SDK client.
//
//   node sdk_client_test.mjs BUILD_DIR        (e.g. /work/main/build)
//
// Starts a headless desktop (`uiscope session start --json`, private
// UISCOPE_STATE_DIR), the GTK3 fixture app in it, then talks to
// `uiscope mcp` over three transports:
//   stdio       StdioClientTransport           (`uiscope mcp`)
//   http        StreamableHTTPClientTransport  (`uiscope mcp --http 127.0.0.1:0 --full-schemas`)
//   http+token  the same with `--token`: no token -> 401, the token -> works
// and checks: initialize, tools/list (five tools, schemas), observe (compact
// and json; structuredContent validated with ajv against the tool's
// outputSchema, published over http with --full-schemas; over stdio none is
// published and structuredContent must still come), find, bad arguments -> isError result (not a protocol
// error), unknown app -> isError result, ping, session termination (HTTP).
//
// Prints one line per check and "N passed, N failed"; exits 1 on any failure,
// 2 on usage errors. Everything it starts (desktop, fixture, servers) is
// stopped on success, failure, Ctrl-C and the 120 s global deadline.

import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, accessSync, writeFileSync, constants as fsc } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LATEST_PROTOCOL_VERSION, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default ?? addFormatsModule;

const GLOBAL_DEADLINE_MS = 120_000;
const APP_READY_DEADLINE_MS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
const FIXTURE_NAME = 'uiscope-mcp-fixture';
const TOOLS = ['observe', 'find', 'screenshot', 'session_start', 'session_list', 'session_stop',
  'click', 'type_text', 'press_keys', 'scroll', 'drag', 'set_value', 'wait_for', 'windows',
  'app_launch', 'app_list', 'app_focus', 'app_close'];
const TOOLS_WITH_OUTPUT_SCHEMA = ['observe', 'find', 'screenshot'];
const HTTP_TOKEN = 'uiscope-sdk-test-token';
// The servers' safety configuration (written in main): this test acts more
// than the default rate limit allows (10 a minute); the limit has its own
// test (safety_test.mjs).
let configPath = null;

// ---- output ----------------------------------------------------------------

const results = []; // {transport, name, ok, detail}
let fixturePid = null;
let sessionIdForChecks = null;
let currentStep = 'start-up';

function log(msg) {
  process.stdout.write(`${msg}\n`);
}

function record(transport, name, ok, detail = '') {
  results.push({ transport, name, ok, detail });
  const tag = ok ? 'PASS' : 'FAIL';
  log(`${tag}  ${transport.padEnd(10)} ${name}${detail ? `: ${detail}` : ''}`);
}

function short(value, max = 600) {
  let s;
  try {
    s = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    s = String(value);
  }
  if (s === undefined) s = String(value);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

function errText(e) {
  if (e && typeof e === 'object' && 'code' in e && e.code !== undefined) {
    return `${e.name ?? 'Error'} code=${e.code}: ${e.message}${e.data !== undefined ? ` data=${short(e.data, 300)}` : ''}`;
  }
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

// ---- processes and clean-up -----------------------------------------------

const cleanups = []; // LIFO: async functions, each must not throw
let cleaningUp = false;

async function cleanupAll() {
  if (cleaningUp) return;
  cleaningUp = true;
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (e) {
      log(`warning: clean-up step failed: ${errText(e)}`);
    }
  }
}

function execFileP(file, args, options) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 32 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, error, stdout, stderr });
    });
  });
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

async function stopChild(child, label) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitExit(child, 3000))) {
    log(`warning: ${label} (pid ${child.pid}) ignored SIGTERM for 3 s; SIGKILL`);
    child.kill('SIGKILL');
    await waitExit(child, 2000);
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

// ---- JSON Schema validation -----------------------------------------------

const ajvs = new Map();
function ajvFor(schema) {
  const dialect = typeof schema?.$schema === 'string' ? schema.$schema : '';
  // MCP 2025-11-25: a schema without $schema is JSON Schema 2020-12.
  const kind = /draft-0[4-7]/.test(dialect) ? 'draft07' : /2019-09/.test(dialect) ? '2019' : '2020';
  if (!ajvs.has(kind)) {
    const opts = { strict: false, allErrors: true, validateFormats: true };
    const ajv = kind === 'draft07' ? new Ajv(opts) : kind === '2019' ? new Ajv2019(opts) : new Ajv2020(opts);
    addFormats(ajv);
    ajvs.set(kind, ajv);
  }
  return ajvs.get(kind);
}

// Returns {validate} or throws with the compile error.
function compileSchema(schema) {
  const ajv = ajvFor(schema);
  const copy = structuredClone(schema);
  // ajv refuses a $schema it does not know, and caches by $id: drop both.
  delete copy.$id;
  if (typeof copy.$schema === 'string' && !/draft-07|2019-09|2020-12/.test(copy.$schema)) delete copy.$schema;
  return ajv.compile(copy);
}

function ajvErrors(validate) {
  return (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${short(e.params, 120)}` : ''}`)
    .join('; ');
}

// ---- helpers over results -------------------------------------------------

function textOf(result) {
  return (result?.content ?? [])
    .filter((c) => c && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
}

// Depth-first search for an object whose `name` is `name`.
function findNamed(value, name, depth = 0) {
  if (depth > 200 || value === null || typeof value !== 'object') return null;
  if (!Array.isArray(value) && value.name === name) return value;
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const hit = findNamed(v, name, depth + 1);
    if (hit) return hit;
  }
  return null;
}

// ---- the checks, per transport --------------------------------------------

async function runChecks(label, client, extra = {}) {
  const T = label;
  const opt = { timeout: REQUEST_TIMEOUT_MS };
  const check = async (name, fn) => {
    currentStep = `${T}: ${name}`;
    try {
      const detail = await fn();
      record(T, name, true, typeof detail === 'string' ? detail : '');
      return true;
    } catch (e) {
      record(T, name, false, errText(e));
      return false;
    }
  };

  // initialize already happened in connect(); look at what it negotiated.
  await check('initialize result', async () => {
    const info = client.getServerVersion();
    const caps = client.getServerCapabilities();
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw new Error(`serverInfo lacks name/version: ${short(info)}`);
    }
    if (!caps || typeof caps.tools !== 'object') throw new Error(`capabilities.tools missing: ${short(caps)}`);
    const pv = extra.protocolVersion?.();
    if (pv !== undefined && pv !== LATEST_PROTOCOL_VERSION) {
      throw new Error(`negotiated protocolVersion ${pv}, the SDK asked for ${LATEST_PROTOCOL_VERSION} (which the server claims to support)`);
    }
    return `${info.name} ${info.version}, capabilities ${short(caps, 200)}${pv ? `, protocol ${pv}` : ''}`;
  });

  let tools = [];
  const schemas = {}; // name -> {input, output}
  await check('tools/list', async () => {
    const res = await client.listTools(undefined, opt);
    tools = res.tools ?? [];
    const names = tools.map((t) => t.name);
    const missing = TOOLS.filter((n) => !names.includes(n));
    if (missing.length) throw new Error(`missing tools ${missing.join(', ')}; got ${names.join(', ')}`);
    const problems = [];
    for (const t of tools) {
      if (!t.inputSchema || t.inputSchema.type !== 'object') problems.push(`${t.name}: inputSchema.type is not "object"`);
      if (!t.description) problems.push(`${t.name}: no description`);
      // outputSchema is published with --full-schemas only (issue 21: it
      // doubled tools/list); structuredContent comes either way.
      if (extra.fullSchemas && TOOLS_WITH_OUTPUT_SCHEMA.includes(t.name) && !t.outputSchema) problems.push(`${t.name}: no outputSchema`);
      if (!extra.fullSchemas && t.outputSchema) problems.push(`${t.name}: outputSchema published without --full-schemas`);
      if (t.outputSchema && t.outputSchema.type !== 'object') problems.push(`${t.name}: outputSchema.type is not "object"`);
      try {
        schemas[t.name] = { input: compileSchema(t.inputSchema) };
      } catch (e) {
        problems.push(`${t.name}: inputSchema does not compile: ${e.message}`);
      }
      if (t.outputSchema) {
        try {
          schemas[t.name].output = compileSchema(t.outputSchema);
        } catch (e) {
          problems.push(`${t.name}: outputSchema does not compile: ${e.message}`);
        }
      }
    }
    if (problems.length) throw new Error(problems.join('; '));
    return `${names.join(', ')}`;
  });

  // tools/call with the raw result (no SDK-side output validation), then the
  // same through client.callTool, which validates structuredContent itself.
  const callRaw = (name, args) => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, opt);

  const checkStructured = (toolName, result) => {
    if (result.isError) throw new Error(`isError result: ${short(textOf(result))}`);
    if (result.structuredContent === undefined) throw new Error('no structuredContent although the tool declares an outputSchema');
    if (typeof result.structuredContent !== 'object' || Array.isArray(result.structuredContent)) throw new Error('structuredContent is not an object');
    if (!extra.fullSchemas) return; // no published outputSchema to check it against
    const validate = schemas[toolName]?.output;
    if (!validate) throw new Error(`no compiled outputSchema for ${toolName}`);
    if (!validate(result.structuredContent)) {
      throw new Error(`structuredContent does not match outputSchema: ${ajvErrors(validate)}; structuredContent=${short(result.structuredContent, 400)}`);
    }
  };

  for (const format of ['compact', 'json']) {
    const args = { app: FIXTURE_NAME, format };
    let raw;
    await check(`observe ${short(args)}`, async () => {
      raw = await callRaw('observe', args);
      checkStructured('observe', raw);
      const text = textOf(raw);
      if (!text.includes('Login')) throw new Error(`text content does not mention "Login": ${short(text, 400)}`);
      if (format === 'json' && !findNamed(raw.structuredContent, 'Login')) {
        throw new Error('structuredContent has no node named "Login"');
      }
      return `${text.length} chars of text; structuredContent keys ${Object.keys(raw.structuredContent).join(',')}`;
    });
    await check(`observe ${format} via client.callTool (SDK validates structuredContent)`, async () => {
      const res = await client.callTool({ name: 'observe', arguments: args }, undefined, opt);
      if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
    });
  }

  await check('observe {} (every app, default format)', async () => {
    const res = await callRaw('observe', {});
    checkStructured('observe', res);
    if (!textOf(res).includes('Login')) throw new Error(`text does not mention "Login": ${short(textOf(res), 300)}`);
  });

  await check('find {name:"Login"}', async () => {
    const res = await callRaw('find', { name: 'Login' });
    checkStructured('find', res);
    const hit = findNamed(res.structuredContent, 'Login');
    if (!hit) throw new Error(`no match named "Login" in structuredContent: ${short(res.structuredContent, 400)}`);
    if (!textOf(res).includes('Login')) throw new Error(`text does not mention "Login": ${short(textOf(res), 300)}`);
    return `match ${short(hit, 160)}`;
  });

  await check('find {name:"Login"} via client.callTool', async () => {
    const res = await client.callTool({ name: 'find', arguments: { name: 'Login' } }, undefined, opt);
    if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
  });

  await check('find {name:"Logn"}: found false, "Similar:" suggests Login', async () => {
    const res = await callRaw('find', { name: 'Logn' });
    checkStructured('find', res);
    const sc = res.structuredContent;
    if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
    if (sc.found !== false) throw new Error(`found is ${sc.found}`);
    if (!sc.similar.some((s) => s.name === 'Login')) throw new Error(`no Login in ${short(sc.similar, 300)}`);
    if (!textOf(res).includes("Similar: 'Login'")) throw new Error(`text: ${short(textOf(res), 300)}`);
    return short(sc.suggestion, 160);
  });

  await check('find {name:"Login", role:"button"}: the button first, with click point and confidence', async () => {
    const res = await callRaw('find', { name: 'Login', role: 'button' });
    checkStructured('find', res);
    const m = res.structuredContent.matches[0];
    if (!m || m.role !== 'button' || m.name !== 'Login') throw new Error(`first match ${short(m, 200)}`);
    if (!m.click_point || m.confidence !== 1 || m.source !== 'ax') throw new Error(`fields of ${short(m, 300)}`);
  });

  await check('observe {sources:[ax,ocr,vision], format:json}: painted controls as vision nodes', async () => {
    const res = await callRaw('observe', { sources: ['ax', 'ocr', 'vision'], format: 'json', max_chars: 0 });
    checkStructured('observe', res);
    const stats = res.structuredContent.stats;
    if (!(stats.vision_nodes > 0)) throw new Error(`stats ${short(stats, 200)}`);
    if (!JSON.stringify(res.structuredContent.nodes).includes('"source":"vision"')) throw new Error('no vision node');
    return short(stats, 160);
  });

  await check('find {name:"Cancel", sources:[ax,vision]}: the painted button', async () => {
    const res = await callRaw('find', { name: 'Cancel', sources: ['ax', 'vision'] });
    checkStructured('find', res);
    const m = res.structuredContent.matches[0];
    if (!m || m.source !== 'vision' || !(m.confidence < 1)) throw new Error(`first match ${short(m, 300)}`);
  });

  await check('screenshot {max_width:800, marks:true}: a PNG image block and its structuredContent', async () => {
    const res = await callRaw('screenshot', { max_width: 800, marks: true });
    checkStructured('screenshot', res);
    const image = (res.content || []).find((c) => c.type === 'image');
    if (!image || image.mimeType !== 'image/png') throw new Error(`no image/png block: ${short(res.content, 200)}`);
    const bytes = Buffer.from(image.data, 'base64');
    if (bytes.subarray(1, 4).toString() !== 'PNG') throw new Error('the image block is not a PNG');
    const sc = res.structuredContent;
    if (sc.width > 800) throw new Error(`width ${sc.width} exceeds max_width 800`);
    return `${sc.width}x${sc.height}, scale ${sc.scale}, ${bytes.length} bytes`;
  });

  const expectToolError = async (name, args, mustMention) => {
    await check(`${name} ${short(args)} -> isError result`, async () => {
      let res;
      try {
        res = await callRaw(name, args);
      } catch (e) {
        throw new Error(`protocol error instead of a tool result with isError: true (${errText(e)})`);
      }
      if (res.isError !== true) throw new Error(`isError is ${res.isError}; result ${short(res, 300)}`);
      const text = textOf(res);
      if (!text) throw new Error('isError result without a text message');
      if (mustMention && !text.includes(mustMention)) throw new Error(`message does not mention "${mustMention}": ${short(text, 300)}`);
      return short(text, 160);
    });
  };
  await expectToolError('observe', { max_nodes: 'x' });
  await expectToolError('observe', { format: 'no-such-format' });
  await expectToolError('observe', { app: 'no-such-app-uiscope-test' }, FIXTURE_NAME);

  await expectToolError('observe', { app: FIXTURE_NAME, bogus_argument: 1 });

  await check('observe {screenshot:true, marks:true, max_width:400}: the tree, then the fixture window\'s image, in one result', async () => {
    const res = await client.callTool({ name: 'observe', arguments: { app: FIXTURE_NAME, screenshot: true, marks: true, max_width: 400 } }, undefined, opt);
    checkStructured('observe', res);
    if (res.content[0]?.type !== 'text' || !res.content[0].text.includes('Login')) throw new Error(`first block is not the tree: ${short(res.content[0], 200)}`);
    const image = res.content.find((c) => c.type === 'image');
    if (!image || image.mimeType !== 'image/png') throw new Error(`no PNG image block: ${short(res.content.map((c) => c.type))}`);
    const shot = res.structuredContent.screenshot;
    if (!shot || shot.width > 400 || shot.region.w >= shot.frame.width || !(shot.marks_drawn > 0)) {
      throw new Error(`structuredContent.screenshot is not the shrunk, marked fixture window: ${short(shot, 300)}`);
    }
    if ('tree' in res.structuredContent) throw new Error('structuredContent repeats the tree');
    return `${shot.width}x${shot.height} of region ${shot.region.w}x${shot.region.h}, ${shot.marks_drawn} marks, ${Buffer.from(image.data, 'base64').length} bytes`;
  });

  await check('observe paging: max_nodes 5, then every next_cursor', async () => {
    const args = { app: FIXTURE_NAME, max_nodes: 5 };
    let res = await callRaw('observe', args);
    checkStructured('observe', res);
    const first = res.structuredContent.page;
    if (!first.truncated || !first.next_cursor) throw new Error(`first page not truncated / no next_cursor: ${short(first)}`);
    if (first.nodes_emitted > 5) throw new Error(`nodes_emitted ${first.nodes_emitted} > max_nodes 5`);
    let emitted = first.nodes_emitted;
    let text = textOf(res);
    let cursor = first.next_cursor;
    let pages = 1;
    while (cursor && pages < 100) {
      res = await callRaw('observe', { ...args, cursor });
      checkStructured('observe', res);
      const pg = res.structuredContent.page;
      if (pg.nodes_emitted > 5) throw new Error(`page ${pages + 1}: nodes_emitted ${pg.nodes_emitted} > 5`);
      if (pg.next_cursor === cursor) throw new Error(`page ${pages + 1}: next_cursor did not advance (${cursor})`);
      emitted += pg.nodes_emitted;
      text += `\n${textOf(res)}`;
      cursor = pg.next_cursor;
      pages += 1;
    }
    if (cursor) throw new Error('still a next_cursor after 100 pages');
    if (emitted !== first.nodes_total) throw new Error(`pages emitted ${emitted} nodes, nodes_total says ${first.nodes_total}`);
    if (!text.includes('Login')) throw new Error('no page mentions "Login"');
    return `${pages} pages, ${emitted} nodes`;
  });

  await check('observe max_chars 300: the text stays within it and the page is truncated', async () => {
    const res = await callRaw('observe', { app: FIXTURE_NAME, max_chars: 300 });
    checkStructured('observe', res);
    const text = textOf(res);
    const pg = res.structuredContent.page;
    if (!pg.truncated || !pg.next_cursor) throw new Error(`page not truncated: ${short(pg)}`);
    if ('tree' in res.structuredContent) {
      throw new Error('structuredContent repeats the tree the text content carries (issue 21: no double payload)');
    }
    if (text.length > 300) {
      throw new Error(`max_chars 300 exceeded: text content ${text.length} chars (the tool description says "at most this many characters in the page"): ${short(text, 400)}`);
    }
    return `${text.length} chars, ${pg.nodes_emitted}/${pg.nodes_total} nodes`;
  });

  await check('observe format semantic: a button named "Login"', async () => {
    const res = await callRaw('observe', { app: FIXTURE_NAME, format: 'semantic' });
    checkStructured('observe', res);
    const buttons = res.structuredContent.buttons;
    if (!Array.isArray(buttons) || !buttons.some((b) => b.label === 'Login' || b.name === 'Login')) throw new Error(`structuredContent.buttons has no "Login": ${short(res.structuredContent, 400)}`);
  });

  if (fixturePid) {
    await check(`observe {pid: fixture pid}`, async () => {
      const res = await callRaw('observe', { pid: fixturePid, format: 'json' });
      checkStructured('observe', res);
      if (!findNamed(res.structuredContent, 'Login')) throw new Error('no node named "Login"');
      const pids = new Set();
      (function walk(v) {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          if (typeof v.pid === 'number') pids.add(v.pid);
          Object.values(v).forEach(walk);
        }
      })(res.structuredContent.nodes);
      if ([...pids].some((p) => p !== fixturePid)) throw new Error(`nodes of other processes: ${[...pids].join(',')}`);
    });
  }

  await check('observe include_hidden: at least as many nodes as without', async () => {
    const a = await callRaw('observe', { app: FIXTURE_NAME, format: 'json' });
    const b = await callRaw('observe', { app: FIXTURE_NAME, format: 'json', include_hidden: true });
    checkStructured('observe', a);
    checkStructured('observe', b);
    const na = a.structuredContent.page.nodes_total;
    const nb = b.structuredContent.page.nodes_total;
    if (nb < na) throw new Error(`include_hidden gave ${nb} nodes, default ${na}`);
    return `${na} -> ${nb} nodes`;
  });

  await check('find {name:"Login", exact:true, role:"button"}: first match is the button', async () => {
    const res = await callRaw('find', { name: 'Login', exact: true, role: 'button' });
    checkStructured('find', res);
    const m = res.structuredContent.matches?.[0];
    if (!m || m.name !== 'Login' || m.role !== 'button') throw new Error(`first match ${short(m)}`);
    if (!/^btn_/.test(m.id)) throw new Error(`id ${m.id} is not role-prefixed btn_`);
  });

  // The hands: acting on the fixture, each result's structuredContent
  // validated by the SDK (callTool) and by ajv against the outputSchema.
  const idOf = async (name, role) => {
    const f = await callRaw('find', { name, role, exact: true, app: FIXTURE_NAME });
    checkStructured('find', f);
    const id = f.structuredContent.matches?.[0]?.id;
    if (!id) throw new Error(`no ${role} "${name}" in ${short(f.structuredContent)}`);
    return id;
  };
  await check('click {target: the "Remember me" check box}: verified, effect observed', async () => {
    const id = await idOf('Remember me', 'check_box');
    const res = await client.callTool({ name: 'click', arguments: { target: id } }, undefined, opt);
    if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
    checkStructured('click', res);
    const sc = res.structuredContent;
    if (sc.effect !== 'observed') throw new Error(`effect ${sc.effect}: ${short(textOf(res), 300)}`);
    if (!sc.verification.tree.changed.some((c) => c.id === id)) throw new Error(`the diff does not name ${id}`);
    return `via ${sc.via}, ${Math.round(sc.timing.total_ms)} ms`;
  });
  await check('type_text "Grüße, 東京" into Email, then wait_for it', async () => {
    const id = await idOf('Email', 'text_field');
    const res = await client.callTool({ name: 'type_text', arguments: { target: id, text: 'Grüße, 東京', replace: true, via: 'xtest' } }, undefined, opt);
    if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
    checkStructured('type_text', res);
    const seen = await callRaw('wait_for', { text: 'Grüße, 東京', ocr: false, timeout_ms: 5000 });
    checkStructured('wait_for', seen);
    if (!seen.structuredContent.satisfied) throw new Error(short(seen.structuredContent));
  });
  await check('press_keys ctrl+a Delete empties the field', async () => {
    const id = await idOf('Email', 'text_field');
    const res = await callRaw('press_keys', { keys: ['ctrl+a', 'Delete'], target: id });
    checkStructured('press_keys', res);
    const changed = res.structuredContent.verification.tree.changed.find((c) => c.id === id);
    if (!changed || changed.fields.find((f) => f.field === 'value')?.after !== '') throw new Error(short(res.structuredContent.verification));
  });
  await check('set_value 60 on the Volume slider', async () => {
    const res = await callRaw('set_value', { target: await idOf('Volume', 'slider'), value: 60 });
    checkStructured('set_value', res);
    if (res.structuredContent.via !== 'value') throw new Error(`via ${res.structuredContent.via}`);
  });
  await check('windows and app_list name the fixture', async () => {
    const w = await callRaw('windows', {});
    checkStructured('windows', w);
    if (!w.structuredContent.windows.some((x) => x.pid === fixturePid)) throw new Error(short(w.structuredContent));
    const a = await callRaw('app_list', {});
    checkStructured('app_list', a);
    if (!a.structuredContent.apps.some((x) => x.name === FIXTURE_NAME && x.accessible)) throw new Error(short(a.structuredContent));
  });
  await check('observe format diff: a baseline, then nothing changed', async () => {
    const first = await callRaw('observe', { app: FIXTURE_NAME, format: 'diff' });
    checkStructured('observe', first);
    const second = await callRaw('observe', { app: FIXTURE_NAME, format: 'diff' });
    checkStructured('observe', second);
    if (second.structuredContent.baseline) throw new Error('the second diff is a baseline again');
  });
  await expectToolError('click', { target: 'btn_0000' }, 'observe again');

  await check('find {name:"no-such-element-xyz"}: no match, not an error', async () => {
    const res = await callRaw('find', { name: 'no-such-element-xyz' });
    checkStructured('find', res);
    if (res.structuredContent.matches.length !== 0 || res.structuredContent.total !== 0) throw new Error(short(res.structuredContent));
  });

  let ourSessions = [];
  await check('session_list: lists the test desktop, alive', async () => {
    const res = await callRaw('session_list', {});
    checkStructured('session_list', res);
    ourSessions = res.structuredContent.sessions;
    const mine = ourSessions.find((x) => x.id === extra.sessionId);
    if (!mine) throw new Error(`session ${extra.sessionId} not listed: ${short(ourSessions)}`);
    if (!mine.alive) throw new Error(`session ${extra.sessionId} listed as not alive`);
  });

  await check('session_start {width:800,height:600} -> session_list -> session_stop', async () => {
    const st = await callRaw('session_start', { width: 800, height: 600 });
    checkStructured('session_start', st);
    const id = st.structuredContent.id;
    if (st.structuredContent.width !== 800 || st.structuredContent.height !== 600) throw new Error(`size ${st.structuredContent.width}x${st.structuredContent.height}`);
    const l1 = await callRaw('session_list', {});
    checkStructured('session_list', l1);
    if (!l1.structuredContent.sessions.some((x) => x.id === id && x.alive)) throw new Error(`new session ${id} not listed alive`);
    const ob = await callRaw('observe', { session: id });
    if (ob.isError) throw new Error(`observe {session: ${id}} on the new, empty desktop: ${short(textOf(ob))}`);
    checkStructured('observe', ob);
    const sp = await callRaw('session_stop', { id });
    checkStructured('session_stop', sp);
    if (sp.structuredContent.stopped !== id) throw new Error(`stopped ${short(sp.structuredContent)}`);
    const l2 = await callRaw('session_list', {});
    if (l2.structuredContent.sessions.some((x) => x.id === id && x.alive)) throw new Error(`session ${id} still alive after session_stop`);
    return `started and stopped ${id}`;
  });

  await expectToolError('session_stop', { id: 'no-such-session' });
  await expectToolError('session_stop', {});

  await check('progress: observe with a progressToken (onprogress) succeeds; any progress notifications increase', async () => {
    const seen = [];
    const res = await client.callTool({ name: 'observe', arguments: { app: FIXTURE_NAME } }, undefined, { ...opt, onprogress: (p) => seen.push(p) });
    if (res.isError) throw new Error(`isError: ${short(textOf(res))}`);
    for (let i = 1; i < seen.length; i++) {
      if (!(seen[i].progress > seen[i - 1].progress)) throw new Error(`progress did not increase: ${short(seen)}`);
    }
    if (seen.some((p) => p.total !== undefined && p.progress > p.total)) throw new Error(`progress above total: ${short(seen)}`);
    return `${seen.length} progress notification(s)`;
  });

  await check('logging/setLevel debug, then observe of an unknown app: well-formed result (log notifications, if any, parsed by the SDK)', async () => {
    const logs = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await client.setLoggingLevel('debug', opt);
    const res = await callRaw('observe', { app: 'no-such-app-uiscope-test' });
    if (res.isError !== true) throw new Error(`isError ${res.isError}`);
    await client.setLoggingLevel('warning', opt);
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
    const bad = logs.filter((l) => !levels.includes(l.level));
    if (bad.length) throw new Error(`log notifications with an unknown level: ${short(bad)}`);
    return `${logs.length} log notification(s)`;
  });

  await check('8 concurrent tools/call (observe, find, session_list) all answered correctly', async () => {
    const calls = [];
    for (let i = 0; i < 8; i++) {
      const which = i % 3;
      if (which === 0) calls.push(callRaw('observe', { app: FIXTURE_NAME, format: i % 2 ? 'json' : 'compact' }).then((r) => ['observe', r]));
      if (which === 1) calls.push(callRaw('find', { name: 'Login', exact: true }).then((r) => ['find', r]));
      if (which === 2) calls.push(callRaw('session_list', {}).then((r) => ['session_list', r]));
    }
    const all = await Promise.all(calls);
    for (const [name, r] of all) {
      checkStructured(name, r);
      if (name !== 'session_list' && !textOf(r).includes('Login')) throw new Error(`${name}: text without "Login"`);
    }
  });

  // Resources and prompts (issue 21 items 4, 5).
  const TREE_URI = 'uiscope://session/default/tree';
  await check('resources/list, templates/list, read the tree (compact text) and the screenshot (PNG blob)', async () => {
    const caps = client.getServerCapabilities();
    if (!caps.resources?.subscribe) throw new Error(`capabilities.resources.subscribe missing: ${short(caps)}`);
    const listed = await client.listResources(undefined, opt);
    const uris = listed.resources.map((r) => r.uri);
    for (const u of ['uiscope://sessions', TREE_URI, 'uiscope://session/default/screenshot']) {
      if (!uris.includes(u)) throw new Error(`resources/list lacks ${u}: ${short(uris)}`);
    }
    const templates = await client.listResourceTemplates(undefined, opt);
    if (!templates.resourceTemplates.some((t) => t.uriTemplate === 'uiscope://session/{id}/tree')) {
      throw new Error(`no tree template: ${short(templates)}`);
    }
    const tree = await client.readResource({ uri: TREE_URI }, opt);
    const text = tree.contents[0]?.text ?? '';
    if (!text.includes('[button "Login"')) throw new Error(`the tree resource has no Login button: ${short(text, 300)}`);
    const shot = await client.readResource({ uri: 'uiscope://session/default/screenshot' }, opt);
    const png = Buffer.from(shot.contents[0]?.blob ?? '', 'base64');
    if (shot.contents[0]?.mimeType !== 'image/png' || png.subarray(1, 4).toString() !== 'PNG') {
      throw new Error(`the screenshot resource is not a PNG blob: ${short(shot, 200)}`);
    }
    return `${uris.length} resources, tree ${text.length} chars, screenshot ${png.length} bytes`;
  });

  await check('resources/subscribe the tree: notifications/resources/updated after a click, none after unsubscribe', async () => {
    const updates = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
    await client.subscribeResource({ uri: TREE_URI }, opt);
    // Focus moves (seed 001's R1: a focus change is a change even when few
    // pixels move): Email, then Password.
    for (const name of ['Email', 'Password']) {
      const id = await idOf(name, 'text_field');
      const res = await client.callTool({ name: 'click', arguments: { target: id } }, undefined, opt);
      if (res.isError) throw new Error(`click ${name}: ${short(textOf(res))}`);
    }
    const deadline = Date.now() + 10_000;
    while (!updates.includes(TREE_URI) && Date.now() < deadline) await sleep(50);
    if (!updates.includes(TREE_URI)) throw new Error('no notifications/resources/updated within 10 s of the clicks');
    await client.unsubscribeResource({ uri: TREE_URI }, opt);
    await sleep(700); // a watch interval in flight may still report
    const seen = updates.length;
    const id = await idOf('Email', 'text_field');
    await client.callTool({ name: 'click', arguments: { target: id } }, undefined, opt);
    await sleep(1500);
    if (updates.length !== seen) throw new Error(`${updates.length - seen} updates after unsubscribe`);
    return `${seen} update(s)`;
  });

  await check('prompts/list; prompts/get plan_actions (goal, strict schema, context) and describe_screen', async () => {
    const caps = client.getServerCapabilities();
    if (!caps.prompts) throw new Error(`capabilities.prompts missing: ${short(caps)}`);
    const listed = await client.listPrompts(undefined, opt);
    const names = listed.prompts.map((p) => p.name);
    if (!names.includes('plan_actions') || !names.includes('describe_screen')) throw new Error(`prompts: ${names}`);
    const plan = await client.getPrompt({ name: 'plan_actions', arguments: { goal: 'tick Remember me' } }, opt);
    const text = plan.messages[0]?.content?.text ?? '';
    for (const part of ['STRICT JSON', 'tick Remember me', 'uiElementId', 'Remember me', '"metadata"']) {
      if (!text.includes(part)) throw new Error(`plan_actions lacks ${part}: ${short(text, 400)}`);
    }
    const describe = await client.getPrompt({ name: 'describe_screen' }, opt);
    if (!(describe.messages[0]?.content?.text ?? '').includes('Login')) throw new Error('describe_screen without the tree');
    let refused = false;
    try {
      await client.getPrompt({ name: 'plan_actions', arguments: {} }, opt);
    } catch (e) {
      refused = /goal/.test(errText(e));
    }
    if (!refused) throw new Error('plan_actions without a goal was not refused naming it');
    return `plan_actions ${text.length} chars`;
  });

  await check('ping', async () => {
    const res = await client.ping(opt);
    if (res && Object.keys(res).length > 0) throw new Error(`ping result is not {}: ${short(res)}`);
  });

  if (extra.terminate) {
    await check('session termination (HTTP DELETE)', extra.terminate);
  }
}

// ---- transports -----------------------------------------------------------

function newClient() {
  return new Client({ name: 'uiscope-sdk-client-test', version: '1.0.0' }, { capabilities: {} });
}

async function runStdio(uiscope, env) {
  const T = 'stdio';
  currentStep = `${T}: start`;
  const transport = new StdioClientTransport({ command: uiscope, args: ['mcp', '--config', configPath], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d.toString();
  });
  const client = newClient();
  cleanups.push(async () => {
    await client.close().catch(() => {});
  });
  try {
    currentStep = `${T}: connect (initialize)`;
    await withTimeout(client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }), REQUEST_TIMEOUT_MS, 'initialize over stdio');
    record(T, 'connect (initialize + initialized)', true);
  } catch (e) {
    record(T, 'connect (initialize + initialized)', false, `${errText(e)}; server stderr: ${short(stderr, 800)}`);
    await client.close().catch(() => {});
    return;
  }
  await runChecks(T, client, { sessionId: sessionIdForChecks });
  currentStep = `${T}: close`;
  const pid = transport.pid;
  await client.close().catch(() => {});
  if (results.some((r) => r.transport === T && !r.ok) && stderr) log(`      stdio server stderr: ${short(stderr, 1500)}`);
  if (pid) {
    // The SDK ends the child (stdin closed, then signals); check it is gone.
    await sleep(200);
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    record(T, 'server exits when the client closes', !alive, alive ? `pid ${pid} still running` : '');
  }
}

async function startHttpServer(uiscope, env, extraArgs = []) {
  const args = ['mcp', '--config', configPath, '--http', '127.0.0.1:0', ...extraArgs];
  const child = spawn(uiscope, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => stopChild(child, 'uiscope mcp --http'));
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d.toString();
  });
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no "listening on" line on stderr within 15 s; stderr: ${short(stderr, 800)}`)), 15_000);
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      const m = /MCP server listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      // Without --token the server makes one and prints it after the URL.
      const made = /MCP token [^\n]*: ([0-9a-f]{32})\n/.exec(stderr);
      if (m && (made || extraArgs.includes('--token'))) {
        clearTimeout(t);
        resolve({ url: m[1], token: made?.[1] });
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(t);
      reject(new Error(`\`uiscope ${args.join(' ')}\` exited (${code ?? sig}) before listening; stderr: ${short(stderr, 800)}; stdout: ${short(stdout, 300)}`));
    });
  });
  return { child, url: url.url, token: url.token, stderr: () => stderr };
}

async function runHttp(uiscope, env) {
  const T = 'http';
  currentStep = `${T}: start server`;
  let server;
  try {
    server = await startHttpServer(uiscope, env, ['--full-schemas']);
    record(T, 'server start (listening line and the token it made on stderr)', true, server.url);
  } catch (e) {
    record(T, 'server start (listening line and the token it made on stderr)', false, errText(e));
    return;
  }
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
  });
  const client = newClient();
  cleanups.push(async () => {
    await client.close().catch(() => {});
  });
  try {
    currentStep = `${T}: connect (initialize)`;
    await withTimeout(client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }), REQUEST_TIMEOUT_MS, 'initialize over HTTP');
    record(T, 'connect (initialize + initialized)', true, `session id ${transport.sessionId ?? '(none)'}`);
  } catch (e) {
    record(T, 'connect (initialize + initialized)', false, `${errText(e)}; server stderr: ${short(server.stderr(), 800)}`);
    return;
  }
  await runChecks(T, client, {
    sessionId: sessionIdForChecks,
    fullSchemas: true,
    protocolVersion: () => transport.protocolVersion,
    terminate: async () => {
      const sid = transport.sessionId;
      if (!sid) return 'server issued no session id: nothing to terminate';
      await transport.terminateSession(); // DELETE; 405 is accepted by the SDK
      // A request on the terminated session must now be refused with 404.
      const r = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          authorization: `Bearer ${server.token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      const body = await r.text();
      if (r.status !== 404) throw new Error(`after DELETE, POST ping with the old Mcp-Session-Id got HTTP ${r.status} (spec: 404); body ${short(body, 200)}`);
      return `DELETE ok, then 404`;
    },
  });
  currentStep = `${T}: close`;
  await client.close().catch(() => {});
  if (results.some((r) => r.transport === T && !r.ok)) log(`      http server stderr: ${short(server.stderr(), 1500)}`);
}

async function runHttpToken(uiscope, env) {
  const T = 'http+token';
  currentStep = `${T}: start server`;
  let server;
  try {
    server = await startHttpServer(uiscope, env, ['--token', HTTP_TOKEN]);
    record(T, 'server start with --token', true, server.url);
  } catch (e) {
    record(T, 'server start with --token', false, errText(e));
    return;
  }
  const initBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'uiscope-sdk-client-test', version: '1.0.0' } },
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  for (const [name, auth] of [
    ['no Authorization -> 401', undefined],
    ['wrong bearer token -> 401', 'Bearer not-the-token'],
  ]) {
    currentStep = `${T}: ${name}`;
    try {
      const r = await fetch(server.url, { method: 'POST', headers: auth ? { ...headers, authorization: auth } : headers, body: initBody });
      const body = await r.text();
      record(T, name, r.status === 401, r.status === 401 ? '' : `got HTTP ${r.status}; body ${short(body, 200)}`);
    } catch (e) {
      record(T, name, false, errText(e));
    }
  }
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${HTTP_TOKEN}` } },
  });
  const client = newClient();
  cleanups.push(async () => {
    await client.close().catch(() => {});
  });
  currentStep = `${T}: connect with the token`;
  try {
    await withTimeout(client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }), REQUEST_TIMEOUT_MS, 'initialize over HTTP with token');
    const tools = await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
    await client.ping({ timeout: REQUEST_TIMEOUT_MS });
    record(T, 'correct bearer token: initialize, tools/list, ping', true, `${tools.tools.length} tools`);
  } catch (e) {
    record(T, 'correct bearer token: initialize, tools/list, ping', false, `${errText(e)}; server stderr: ${short(server.stderr(), 600)}`);
  }
  await client.close().catch(() => {});
}

// ---- desktop and fixture --------------------------------------------------

async function startDesktop(uiscope, stateDir) {
  currentStep = 'session start';
  const env = { ...process.env, UISCOPE_STATE_DIR: stateDir };
  delete env.UISCOPE_MCP_TOKEN; // `uiscope mcp --token` default: set only where this test wants it
  const r = await execFileP(uiscope, ['session', 'start', '--json'], { env, timeout: 45_000 });
  if (r.code !== 0) throw new Error(`\`uiscope session start --json\` failed (${r.code}): ${short(r.stderr || r.stdout, 800)}`);
  let session = null;
  for (const line of r.stdout.split('\n').reverse()) {
    try {
      session = JSON.parse(line);
      break;
    } catch {
      // not the JSON line
    }
  }
  if (!session || typeof session.id !== 'string' || typeof session.env !== 'object') {
    throw new Error(`\`uiscope session start --json\` printed no object with id and env: ${short(r.stdout, 800)}`);
  }
  cleanups.push(async () => {
    // Every session of the private state dir: ours and any a test left.
    const ids = new Set([session.id]);
    const l = await execFileP(uiscope, ['session', 'list', '--json'], { env, timeout: 10_000 });
    try {
      for (const x of JSON.parse(l.stdout).sessions ?? []) ids.add(x.id);
    } catch {
      // keep ours
    }
    for (const id of ids) {
      const s = await execFileP(uiscope, ['session', 'stop', id], { env, timeout: 20_000 });
      if (s.code !== 0 && id === session.id) log(`warning: \`uiscope session stop ${id}\` failed (${s.code}): ${short(s.stderr, 300)}`);
    }
  });
  return { session, env: { ...env, ...session.env } };
}

async function startFixture(fixtureBin, uiscope, env) {
  currentStep = 'fixture start';
  const child = spawn(fixtureBin, ['--name', FIXTURE_NAME], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d.toString();
  });
  child.stdin.on('error', () => {});
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.write('quit\n');
      if (!(await waitExit(child, 2000))) await stopChild(child, 'fixture');
    }
  });
  const lines = createInterface({ input: child.stdout });
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`fixture printed no "ready" line within ${APP_READY_DEADLINE_MS} ms; stderr: ${short(stderr, 600)}`)), APP_READY_DEADLINE_MS);
    lines.on('line', (line) => {
      if (line.startsWith('ready')) {
        fixturePid = Number(line.split(/\s+/)[1]) || null;
        clearTimeout(t);
        resolve();
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(t);
      reject(new Error(`fixture exited (${code ?? sig}) before "ready"; stderr: ${short(stderr, 600)}`));
    });
  });
  // Ready on screen; now wait until the accessibility tree shows it.
  currentStep = 'fixture visible to `uiscope observe`';
  const deadline = Date.now() + APP_READY_DEADLINE_MS;
  let last;
  while (Date.now() < deadline) {
    last = await execFileP(uiscope, ['observe', '--app', FIXTURE_NAME], { env, timeout: 10_000 });
    if (last.code === 0 && last.stdout.includes('Login')) return child;
    await sleep(250);
  }
  throw new Error(`\`uiscope observe --app ${FIXTURE_NAME}\` did not list the fixture within ${APP_READY_DEADLINE_MS} ms: ${short(last?.stderr || last?.stdout, 600)}`);
}

// ---- main -----------------------------------------------------------------

async function main() {
  const buildArg = process.argv[2];
  if (!buildArg || buildArg === '-h' || buildArg === '--help') {
    process.stderr.write('usage: node sdk_client_test.mjs BUILD_DIR   (e.g. /work/main/build)\n');
    return 2;
  }
  const buildDir = path.resolve(buildArg);
  const uiscope = path.join(buildDir, 'bin', 'uiscope');
  const fixtureBin = path.join(buildDir, 'bin', 'uiscope-fixture-gtk3');
  for (const f of [uiscope, fixtureBin]) {
    try {
      accessSync(f, fsc.X_OK);
    } catch {
      process.stderr.write(`sdk_client_test: ${f} is missing or not executable (build first: cmake --build ${buildArg})\n`);
      return 2;
    }
  }

  const stateDir = mkdtempSync(path.join(tmpdir(), 'uiscope-mcp-sdk-'));
  const configDir = mkdtempSync(path.join(tmpdir(), 'uiscope-mcp-sdk-config-'));
  cleanups.push(async () => {
    if (existsSync(stateDir)) rmSync(stateDir, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });
  configPath = path.join(configDir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ rate_limit: { max_actions: 0 } }));

  const { session, env } = await startDesktop(uiscope, stateDir);
  sessionIdForChecks = session.id;
  log(`desktop: session ${session.id} DISPLAY=${session.env.DISPLAY}`);
  await startFixture(fixtureBin, uiscope, env);
  log(`fixture: "${FIXTURE_NAME}" is in the accessibility tree`);

  await runStdio(uiscope, env);
  await runHttp(uiscope, env);
  await runHttpToken(uiscope, env);
  return 0;
}

function summary() {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  if (failed) {
    log('\nFailures:');
    for (const r of results.filter((x) => !x.ok)) log(`  ${r.transport} / ${r.name}: ${r.detail}`);
  }
  log(`\n${passed} passed, ${failed} failed`);
  return failed;
}

let finished = false;
async function finish(code) {
  if (finished) return;
  finished = true;
  await cleanupAll();
  process.exit(code);
}
// Checks still running while finish() cleans up must not print.
function quietAfterFinish() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => (finished && !String(chunk).startsWith('warning:') ? true : write(chunk, ...rest));
}
quietAfterFinish();

const deadline = setTimeout(async () => {
  record('global', `deadline of ${GLOBAL_DEADLINE_MS / 1000} s`, false, `still at step "${currentStep}"`);
  summary();
  await finish(1);
}, GLOBAL_DEADLINE_MS);

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, async () => {
    log(`\n${sig}: stopping`);
    await finish(130);
  });
}

main()
  .then(async (code) => {
    clearTimeout(deadline);
    if (finished) return; // interrupted or timed out: already reported
    if (code === 2) return finish(2);
    const failed = summary();
    await finish(failed || results.length === 0 ? 1 : 0);
  })
  .catch(async (e) => {
    clearTimeout(deadline);
    if (finished) return;
    record('setup', currentStep, false, errText(e));
    summary();
    await finish(1);
  });
