// uiscope's web page (DESIGN §9): plain JavaScript, no framework, nothing
// fetched from elsewhere. Every text from the server is set with
// textContent, never parsed as HTML.
'use strict';

const $ = (sel) => document.querySelector(sel);
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    // Through the CSSOM: the page's CSP (style-src 'self') drops style
    // attributes, setAttribute('style', ...) included.
    else if (k === 'style') for (const [name, value] of Object.entries(v)) e.style.setProperty(name, value);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
// The page's token comes once, in the fragment of the URL the server printed
// (#token=T: a browser sends the fragment to no server), and lives only in
// this script's memory; every request to the API carries it in a header.
// Never a cookie: cookies are not scoped by port, so every other server on
// 127.0.0.1 would receive it.
const pageToken = (() => {
  const m = /^#token=([A-Za-z0-9._~-]+)$/.exec(location.hash);
  if (m) history.replaceState(null, '', location.pathname);  // out of the address bar and history
  return m ? m[1] : '';
})();
function withToken(init = {}) {
  return { ...init, credentials: 'omit', headers: { ...init.headers, Authorization: `Bearer ${pageToken}` } };
}
// An image of the API into `img`: an <img src> cannot carry the token, so
// it is fetched and shown from a blob: URL (the previous one released).
async function loadImage(img, url) {
  const r = await fetch(url, withToken());
  if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
  const blob = await r.blob();
  if (img.src.startsWith('blob:')) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(blob);
}
async function getJson(url) {
  const r = await fetch(url, withToken());
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || `${r.status} ${r.statusText}`);
  return body;
}
async function postJson(url, body) {
  const r = await fetch(url, withToken({
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Uiscope': 'web' },
    body: JSON.stringify(body),
  }));
  const out = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(out.error || `${r.status} ${r.statusText}`);
  return out;
}
const when = (ms) => (ms ? new Date(ms).toLocaleString() : '');

// --- Display text ------------------------------------------------------------------
// Names, titles, values, arguments and reasons are what an app or an agent
// wrote. A bidi override makes "Save \u202Egnp.exe" read "Save exe.png" on an
// approval card, and a zero-width space hides inside a name; textContent
// keeps markup out but shows both as the app meant. The rules of the CLI's
// and the agent's text (core/escape.h): C0 and C1 controls, bidi controls
// and invisible characters are written as visible escapes ("\u202e").
function escapedForDisplay(cp) {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;  // C0, DEL, C1
  if ([0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x180e, 0x3164, 0xfeff, 0xffa0].includes(cp)) return true;
  return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}
function shown(text) {
  let out = '';
  for (const ch of String(text ?? '')) {
    const cp = ch.codePointAt(0);
    if (cp === 0x0a) out += '\\n';
    else if (cp === 0x0d) out += '\\r';
    else if (cp === 0x09) out += '\\t';
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';  // a lone surrogate
    else if (escapedForDisplay(cp)) out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}
// --- end of display text

// --- Views ----------------------------------------------------------------------

const views = ['confirm', 'wall', 'session', 'audit', 'memory'];
function route() {
  const [name, arg] = (location.hash.slice(1) || 'confirm').split('/');
  const view = views.includes(name) ? name : 'confirm';
  for (const v of views) $(`#view-${v}`).hidden = v !== view;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#${view === 'session' ? 'wall' : view}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (view === 'audit') loadAudit();
  if (view === 'memory') loadMemory();
  if (view === 'session') openSession(decodeURIComponent(arg || ''));
}
window.addEventListener('hashchange', route);

// --- Confirmations ----------------------------------------------------------------

const GRANTS = [['', 'only this action'], ['10', 'the next 10 actions'], ['5m', 'the next 5 minutes'], ['30m', 'the next 30 minutes']];

function confirmationCard(c) {
  const title = shown(`${c.tool} ${c.target || ''}`.trim());
  const id = `c-${c.token}`;
  const status = el('p', { class: 'error', role: 'alert' });
  const decide = async (decision, grant) => {
    try {
      await postJson('/api/decide', { token: c.token, decision, grant });
      // Keep the keyboard where it was: on the next held action, else the heading.
      const had = card.contains(document.activeElement);
      const next = card.nextElementSibling?.matches('article') ? card.nextElementSibling : card.previousElementSibling;
      card.remove();
      if (had) (next?.querySelector('button') || $('#h-confirm')).focus();
      announce(`${decision === 'approve' ? 'Approved' : 'Denied'}: ${title}`);
      refreshConfirmations();
    } catch (e) {
      status.textContent = e.message;
    }
  };
  const dl = el('dl', {},
    el('dt', {}, 'What'), el('dd', {}, title),
    el('dt', {}, 'Where'), el('dd', {}, shown([c.app, c.session && `session ${c.session}`, c.display].filter(Boolean).join(', ')) || 'unknown'),
    el('dt', {}, 'Why held'), el('dd', {}, shown(`rule ${c.rule}: ${c.reason}`)),
    el('dt', {}, 'Expires'), el('dd', {}, when(c.expires_ms)));
  if (Object.keys(c.arguments || {}).length) {
    dl.append(el('dt', {}, 'Arguments'), el('dd', { class: 'args' }, shown(JSON.stringify(c.arguments))));
  }
  let candidates = null;
  if ((c.candidates || []).length) {
    candidates = el('ol', { 'aria-label': 'Candidates' });
    for (const k of c.candidates) {
      const b = k.bounds ? ` at ${k.bounds.x},${k.bounds.y} ${k.bounds.w}×${k.bounds.h}` : '';
      candidates.append(el('li', {}, shown(`${k.role || ''} "${k.name || ''}" ${k.id || ''}`) + b));
    }
  }
  const actions = el('div', { class: 'actions' },
    el('button', { type: 'button', class: 'approve', dataset: { action: 'approve', token: c.token }, 'aria-describedby': `${id}-h`, onclick: () => decide('approve') }, 'Approve'),
    el('button', { type: 'button', class: 'deny', dataset: { action: 'deny', token: c.token }, 'aria-describedby': `${id}-h`, onclick: () => decide('deny') }, 'Deny'));
  if (c.grantable) {
    const select = el('select', { 'aria-label': `Also allow ${shown(c.app) || 'this desktop'} without asking for`, dataset: { token: c.token } });
    for (const [v, label] of GRANTS.slice(1)) select.append(el('option', { value: v }, label));
    actions.append(el('label', {}, 'and also allow for ', select),
      el('button', { type: 'button', dataset: { action: 'grant', token: c.token }, 'aria-describedby': `${id}-h`, onclick: () => decide('approve', select.value) }, 'Approve with grant'));
  }
  const crop = el('img', { alt: `where: ${title}` });
  const noCrop = () => crop.replaceWith(el('p', { class: 'hint' }, 'no picture of the target'));
  crop.addEventListener('error', noCrop);
  loadImage(crop, `/api/crop?confirmation=${encodeURIComponent(c.token)}`).catch(noCrop);
  const card = el('article', { class: 'confirm', id, 'aria-labelledby': `${id}-h`, dataset: { token: c.token } },
    el('div', {}, el('h3', { id: `${id}-h` }, `Allow ${title}?`), dl, candidates, actions, status),
    el('figure', {}, crop, el('figcaption', { class: 'hint' }, candidates ? 'numbered as the candidates' : 'the target')));
  card.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && e.target.tagName !== 'SELECT') {
      e.preventDefault();
      decide('deny');
    }
  });
  return card;
}

function announce(text) {
  $('#announce').textContent = text;
}

async function refreshConfirmations() {
  let data;
  try {
    data = await getJson('/api/confirmations');
  } catch (e) {
    $('#confirm-list').replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  const list = $('#confirm-list');
  const want = new Set(data.confirmations.map((c) => c.token));
  for (const card of [...list.querySelectorAll('article')]) if (!want.has(card.dataset.token)) card.remove();
  list.querySelector('p.empty')?.remove();
  for (const c of data.confirmations) {
    if (!list.querySelector(`article[data-token="${CSS.escape(c.token)}"]`)) list.append(confirmationCard(c));
  }
  if (!data.confirmations.length) list.append(el('p', { class: 'empty hint' }, 'Nothing is waiting.'));
  $('#pending-count').textContent = data.confirmations.length ? `(${data.confirmations.length})` : '';
  $('#grant-list').replaceChildren(...data.grants.map((g) => el('li', {},
    `${g.app || 'unknown apps'}: rule ${g.rule}${g.tool ? ` for ${g.tool}` : ''}, ${g.max_actions ? `${g.max_actions - g.used} actions left, ` : ''}until ${when(g.expires_ms)}`)));
}

// --- Wall of tiles -----------------------------------------------------------------

async function loadSessions() {
  let data;
  try {
    data = await getJson('/api/sessions');
  } catch (e) {
    $('#wall').replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  const wall = $('#wall');
  const ids = new Set(data.sessions.map((s) => s.id));
  for (const t of [...wall.children]) if (!ids.has(t.dataset.session)) t.remove();
  for (const s of data.sessions) {
    let tile = wall.querySelector(`[data-session="${CSS.escape(s.id)}"]`);
    const apps = shown(s.apps ? s.apps.map((a) => a.name).filter(Boolean).join(', ') || 'no accessible apps' : s.apps_error || '');
    const caption = `${s.id} ${s.display} · ${s.width}×${s.height} · ${s.backend} · ${s.alive ? 'running' : s.problem} · ${apps}`;
    if (!tile) {
      tile = el('a', { class: 'tile', href: `#session/${encodeURIComponent(s.id)}`, dataset: { session: s.id } },
        el('img', { alt: `screen of session ${s.id}` }), el('div', { class: 'caption' }));
      wall.append(tile);
    }
    tile.querySelector('.caption').textContent = caption;
    showTile(s.id);
  }
  if (!data.sessions.length) wall.replaceChildren(el('p', { class: 'hint' }, 'No sessions: start one with `uiscope session start`.'));
}

const tileVersions = new Map();  // session -> the latest version of its image
// Points the session's tile at its latest image; false when it has no tile yet.
function showTile(session) {
  const img = document.querySelector(`.tile[data-session="${CSS.escape(session)}"] img`);
  if (!img) return false;
  const v = tileVersions.get(session);
  if (v !== undefined && img.dataset.version !== String(v)) {
    loadImage(img, `/api/tile?session=${encodeURIComponent(session)}&v=${v}`).catch(() => {});
    img.dataset.version = v;
  }
  return true;
}

function onTileMessage(m) {
  if (m.type === 'sessions') loadSessions();
  if (m.type === 'tile') {
    // Kept, so that a tile drawn later (the session list arrives after
    // its first image) shows it: an unchanged screen sends no other.
    tileVersions.set(m.session, m.version);
    if (!showTile(m.session)) loadSessions();
  }
  if (m.type === 'stats') $('#tile-stats').textContent = `server CPU per unchanged tile: ${m.unchanged_tile_cpu_ms.toFixed(2)} ms`;
}

// The tile event stream, read with fetch: an EventSource cannot send the
// token. Reconnects after a pause when the stream ends, as EventSource does.
async function watchTiles() {
  for (;;) {
    try {
      const r = await fetch('/api/tiles', withToken({ headers: { Accept: 'text/event-stream' } }));
      if (!r.ok || !r.body) throw new Error(`${r.status} ${r.statusText}`);
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
          buffer = buffer.slice(end + 2);
          if (data) onTileMessage(JSON.parse(data));
        }
      }
    } catch (e) {
      // Retried below.
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

// --- Session view -----------------------------------------------------------------

let tree = { nodes: [], frame: { width: 1, height: 1 } };
async function openSession(id) {
  $('#h-session').textContent = `Session ${id}`;
  loadImage($('#shot'), `/api/screenshot?session=${encodeURIComponent(id)}&t=${Date.now()}`).catch(() => {});
  $('#tree').replaceChildren(el('li', {}, 'loading the tree…'));
  try {
    tree = await getJson(`/api/tree?session=${encodeURIComponent(id)}`);
  } catch (e) {
    $('#tree').replaceChildren(el('li', { class: 'error' }, e.message));
    return;
  }
  renderTree();
  loadSessionActions(id);
}

// The session's last actions and what each changed (the audit's verification).
async function loadSessionActions(id) {
  const body = $('#session-actions tbody');
  try {
    const data = await getJson(`/api/audit?session=${encodeURIComponent(id)}&limit=20`);
    body.replaceChildren(...data.entries.slice().reverse().map((e) => el('tr', {},
      el('td', {}, when(e.time_ms)), el('td', {}, shown(e.tool)), el('td', {}, shown(e.target_desc || e.target || '')),
      el('td', {}, e.decision), el('td', { class: 'args' }, shown(e.error || JSON.stringify(e.verification || {}))))));
  } catch (e) {
    body.replaceChildren(el('tr', {}, el('td', { colspan: '5', class: 'error' }, e.message)));
  }
}

function renderTree() {
  const boxes = $('#boxes');
  const list = $('#tree');
  boxes.replaceChildren();
  list.replaceChildren();
  const fw = tree.frame.width || 1;
  const fh = tree.frame.height || 1;
  const query = $('#find').value.trim().toLowerCase();
  const walk = (nodes, depth) => {
    for (const n of nodes) {
      const label = shown(`${n.role} "${n.name || ''}" ${n.id}`);
      const item = el('li', { dataset: { id: n.id }, style: { 'padding-left': `${depth}em` }, tabindex: '-1' }, label);
      if (query && label.toLowerCase().includes(query)) item.classList.add('match');
      list.append(item);
      if (n.bounds && n.bounds.w > 0 && n.bounds.h > 0 && depth > 0) {
        const b = el('div', { class: 'box', dataset: { id: n.id },
          style: {
            left: `${(100 * n.bounds.x) / fw}%`,
            top: `${(100 * n.bounds.y) / fh}%`,
            width: `${(100 * n.bounds.w) / fw}%`,
            height: `${(100 * n.bounds.h) / fh}%`,
          } },
        el('span', {}, n.id));
        if (!query || item.classList.contains('match')) boxes.append(b);
      }
      walk(n.children || [], depth + 1);
    }
  };
  walk(tree.nodes, 0);
  const first = list.querySelector('li.match');
  if (first) first.scrollIntoView({ block: 'nearest' });
}

function highlight(id, on) {
  for (const e of document.querySelectorAll(`#boxes [data-id="${CSS.escape(id)}"], #tree [data-id="${CSS.escape(id)}"]`)) {
    e.classList.toggle('hot', on);
  }
}
$('#tree').addEventListener('mouseover', (e) => e.target.dataset.id && highlight(e.target.dataset.id, true));
$('#tree').addEventListener('mouseout', (e) => e.target.dataset.id && highlight(e.target.dataset.id, false));
// The boxes let the pointer through; find the smallest box under it.
$('.shot-wrap').addEventListener('mousemove', (e) => {
  const r = $('#shot').getBoundingClientRect();
  const x = ((e.clientX - r.left) / r.width) * (tree.frame.width || 1);
  const y = ((e.clientY - r.top) / r.height) * (tree.frame.height || 1);
  let best = null;
  const visit = (nodes, depth) => {
    for (const n of nodes) {
      const b = n.bounds;
      if (b && depth > 0 && x >= b.x && y >= b.y && x < b.x + b.w && y < b.y + b.h && (!best || b.w * b.h <= best.bounds.w * best.bounds.h)) best = n;
      visit(n.children || [], depth + 1);
    }
  };
  visit(tree.nodes, 0);
  for (const h of document.querySelectorAll('.hot')) h.classList.remove('hot');
  if (best) {
    highlight(best.id, true);
    document.querySelector(`#tree [data-id="${CSS.escape(best.id)}"]`)?.scrollIntoView({ block: 'nearest' });
  }
});
$('#show-boxes').addEventListener('change', (e) => $('#boxes').classList.toggle('hidden', !e.target.checked));
$('#find').addEventListener('input', renderTree);
$('#refresh-session').addEventListener('click', () => openSession(decodeURIComponent(location.hash.split('/')[1] || '')));

// --- Audit ------------------------------------------------------------------------

async function loadAudit() {
  const params = new URLSearchParams();
  for (const [k, v] of new FormData($('#audit-form'))) if (v) params.set(k, v);
  $('#audit-error').textContent = '';
  let data;
  try {
    data = await getJson(`/api/audit?${params}`);
  } catch (e) {
    $('#audit-error').textContent = e.message;
    return;
  }
  $('#audit tbody').replaceChildren(...data.entries.slice().reverse().map((e) => el('tr', { dataset: { decision: e.decision, tool: e.tool } },
    el('td', {}, when(e.time_ms)), el('td', {}, shown(e.tool)), el('td', {}, shown(e.target_desc || e.target || '')), el('td', {}, shown(e.app || '')),
    el('td', { class: 'decision' }, e.decision), el('td', {}, shown(e.rule || '')), el('td', {}, shown(e.error || e.reason || '')),
    el('td', { class: 'args' }, shown(JSON.stringify(e.arguments || {}))))));
}
$('#audit-form').addEventListener('submit', (e) => {
  e.preventDefault();
  loadAudit();
});

// --- Memory -----------------------------------------------------------------------

async function loadMemory() {
  $('#memory-error').textContent = '';
  let data;
  try {
    data = await getJson('/api/memory');
  } catch (e) {
    $('#memory-error').textContent = e.message;
    $('#memory-list').replaceChildren();
    return;
  }
  // One line per app: the store lists each window title pattern and toolkit apart.
  const byApp = new Map();
  for (const s of data.apps) {
    const a = byApp.get(s.app) || { app: s.app, targets: 0, taught: 0, last_seen_ms: 0, signatures: 0 };
    a.targets += s.targets;
    a.taught += s.taught;
    a.signatures += 1;
    a.last_seen_ms = Math.max(a.last_seen_ms, s.last_seen_ms);
    byApp.set(s.app, a);
  }
  const name = (a) => a.app;
  $('#memory-list').replaceChildren(...[...byApp.values()].map((a) => el('li', { dataset: { app: name(a) } },
    `${shown(name(a))}: ${a.targets} targets (${a.taught} taught) in ${a.signatures} window kind(s), last seen ${when(a.last_seen_ms)} `,
    el('button', { type: 'button', onclick: () => showApp(name(a)) }, `Show ${shown(name(a))}`), ' ',
    el('button', { type: 'button', class: 'deny', dataset: { action: 'forget' }, onclick: () => forget(name(a)) }, `Forget ${shown(name(a))}`))));
  if (!data.apps.length) $('#memory-list').append(el('li', { class: 'hint' }, 'Nothing learned.'));
}
async function showApp(app) {
  try {
    const data = await getJson(`/api/memory?app=${encodeURIComponent(app)}`);
    const rows = [];
    for (const s of data.signatures || []) {
      for (const t of s.targets || []) rows.push(el('li', {}, shown(`${t.role || ''} "${t.label || t.name || ''}" ${t.id || ''}`)));
    }
    $('#memory-detail').replaceChildren(el('h3', {}, shown(app)), el('ul', {}, ...rows));
  } catch (e) {
    $('#memory-error').textContent = e.message;
  }
}
async function forget(app) {
  try {
    await postJson('/api/forget', { app });
    $('#memory-detail').replaceChildren();
    loadMemory();
  } catch (e) {
    $('#memory-error').textContent = e.message;
  }
}

// --- Start ------------------------------------------------------------------------

route();
refreshConfirmations();
setInterval(refreshConfirmations, 1000);
loadSessions();
setInterval(loadSessions, 5000);  // apps come and go
watchTiles();
