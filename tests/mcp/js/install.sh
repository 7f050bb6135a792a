#!/usr/bin/env bash
# Installs the npm packages of tests/mcp/js (the official MCP TypeScript SDK,
# the MCP conformance suite, ajv, playwright-core and puppeteer-core for the
# web page test, and @playwright/mcp, whose tools/list bench_mcp and the size
# test measure beside uiscope's; the rest for the
# web page test) exactly as package-lock.json pins them.
# Idempotent and quiet: does nothing when node_modules already matches the
# lock (hash stamp node_modules/.uiscope-install-stamp).
#   tests/mcp/js/install.sh [--force]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

die() { echo "tests/mcp/js/install.sh: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node is missing: install Node.js >= 20 (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 || die "npm is missing: install npm (Debian: apt-get install npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "node $(node --version) is too old: these tests need Node.js >= 20"
[ -f package-lock.json ] || die "package-lock.json is missing"

stamp=node_modules/.uiscope-install-stamp
want=$( { node --version; cat package.json package-lock.json; } | sha256sum | cut -d' ' -f1)
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "tests/mcp/js: npm ci (MCP SDK, conformance suite, ajv, playwright-core, puppeteer-core, @playwright/mcp)" >&2
log=$(mktemp)
# --loglevel=error: @octokit (used only by the suite's tier-check command)
# declares node >= 22 in a dependency; the parts used here run on Node 20.
if ! npm ci --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  die "npm ci failed (is the npm registry reachable?)"
fi
rm -f "$log"
echo "$want" > "$stamp"
