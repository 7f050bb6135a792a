// The web page's display-text printer (src/web/assets/app.js, `shown`)
// against the rules of core/escape.h: the same cases as
// tests/core/escape_test.cpp, so an approval card shows an app's name as
// the terminal and the agent see it. Runs the function from the shipped
// script, without a browser.
//   node display_text_test.mjs path/to/app.js
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = readFileSync(process.argv[2], 'utf8');
const start = source.indexOf('// --- Display text');
const end = source.indexOf('// --- end of display text');
assert.ok(start >= 0 && end > start, 'app.js has no display-text block');
const shown = new Function(`${source.slice(start, end)}\nreturn shown;`)();

const cases = [
  ['Save as…  «Übersicht» 保存 👍', 'Save as…  «Übersicht» 保存 👍'],
  ['C:\\path "quoted"', 'C:\\path "quoted"'],
  ['a\nb\rc\td', 'a\\nb\\rc\\td'],
  ['\x1b]52;c;ZXZpbA==\x07', '\\u001b]52;c;ZXZpbA==\\u0007'],
  ['a\0b', 'a\\u0000b'],
  ['x\x7fy', 'x\\u007fy'],
  ['\u009b2J', '\\u009b2J'],
  ['\u00a0', '\u00a0'],
  ['Save \u202Egnp.exe', 'Save \\u202egnp.exe'],
  ['\u200E\u200F\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u061C',
    '\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u061c'],
  ['De\u200Blete', 'De\\u200blete'],
  ['\u200C\u200D\u2060\uFEFF\u00AD\u180E', '\\u200c\\u200d\\u2060\\ufeff\\u00ad\\u180e'],
  ['a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
  ['ok\u{E0068}\u{E0069}', 'ok\\U000e0068\\U000e0069'],
  ['\u202f', '\u202f'],
  ['lone \ud800', 'lone \ufffd'],
  [undefined, ''],
  [null, ''],
];
for (const [input, expected] of cases) assert.equal(shown(input), expected, JSON.stringify(input));
// Idempotent, as EscapeForDisplay is.
const hostile = 'Refresh\r\x1b[2K\u202E\u009b\u{E0041}\\n"';
assert.equal(shown(shown(hostile)), shown(hostile));
console.log(`display_text: ${cases.length + 1} checks passed`);
