// Module resolution hook for node20-compat.mjs (runs in Node's loader thread).
const shim = new URL('./fs-compat.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') &&
      context.parentURL && context.parentURL.includes('/@modelcontextprotocol/conformance/')) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
