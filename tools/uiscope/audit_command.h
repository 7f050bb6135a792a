// `uiscope audit` (DESIGN §8): reads the audit log of the safety policy.
//   uiscope audit [--since WHEN] [--limit N] [--tool T] [--decision D] [--json]
//                 [--config PATH]
// One line per entry, oldest first: local time, decision, tool, target,
// rule and reason, and the screen hashes before and after. --json prints
// {"database", "entries": [...]} with every field (arguments redacted as
// stored). WHEN: 10m, 2h, 7d, 2025-11-22, 2025-11-22T16:15[:30][Z], @UNIX.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct AuditFlags {
  std::string since;
  int limit = 100;
  std::string tool;
  std::string decision;
};

CLI::App* AddAuditCommand(CLI::App& app, GlobalFlags& g, AuditFlags& f);
int RunAuditCommand(const GlobalFlags& g, const AuditFlags& f);

}  // namespace uiscope::cli
