#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios that apply to uiscope
# (the list and the reasons are in CONFORMANCE.md) against
# `BUILD_DIR/bin/uiscope mcp --http 127.0.0.1:0`, prints a per-scenario
# table and exits non-zero if any selected scenario fails.
#   tests/mcp/js/run_conformance.sh BUILD_DIR [--out DIR]
# Results (checks.json per scenario, the suite's output, the server's stderr)
# go to tests/mcp/js/results/conformance/ unless --out is given.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  echo "usage: $0 BUILD_DIR [--out DIR]" >&2
  exit 2
fi
"$here/install.sh"
exec node "$here/conformance_runner.mjs" "$@"
