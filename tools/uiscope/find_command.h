// `uiscope find` (DESIGN §11):
//   uiscope find LABEL [--role ROLE] [--exact] [--app NAME]
//                [--sources ax,ocr,vision] [--limit N]
// Prints the matching elements, best first, one per line with bounds, click
// point and source; with --json the MCP find tool's structuredContent. When
// nothing matches, says so with the closest names on screen ("Similar:")
// and exits 1.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct FindFlags {
  std::string name;
  std::string role;
  std::string app;
  std::string sources;  // "" = as observe's default
  std::string detector;  // vision's; "" = the default
  bool exact = false;
  int limit = 20;
  int timeout_ms = 2000;
};

CLI::App* AddFindCommand(CLI::App& app, GlobalFlags& g, FindFlags& f);
int RunFindCommand(const GlobalFlags& g, const FindFlags& f);

}  // namespace uiscope::cli
