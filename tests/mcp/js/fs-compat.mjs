// node:fs plus a minimal globSync (Node 22 API) for the conformance suite on Node 20.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

// Supports the patterns the suite uses: '**/NAME' (NAME at any depth) and a
// plain relative path. Returns paths relative to options.cwd, like Node 22.
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  if (pattern.startsWith('**/') && !/[*?[{]/.test(pattern.slice(3))) {
    const name = pattern.slice(3);
    let entries;
    try {
      entries = fs.readdirSync(cwd, { recursive: true, withFileTypes: false });
    } catch {
      return [];
    }
    return entries.map(String).filter((p) => path.basename(p) === name);
  }
  if (!/[*?[{]/.test(pattern)) {
    return fs.existsSync(path.resolve(cwd, pattern)) ? [pattern] : [];
  }
  throw new Error(`fs-compat globSync: unsupported pattern ${pattern}`);
}
