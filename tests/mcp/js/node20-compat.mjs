// Lets @modelcontextprotocol/conformance (which imports `globSync` from 'fs', a
// Node >= 22 API) run on Node 20: imports of 'fs' / 'node:fs' made from the
// conformance package resolve to fs-compat.mjs, which re-exports node:fs and
// adds a globSync sufficient for the suite's one use ('**/NAME' under cwd).
// Used as: node --import ./node20-compat.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...
import { register } from 'node:module';
import fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  register('./node20-compat-hooks.mjs', import.meta.url);
}
