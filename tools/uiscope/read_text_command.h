// `uiscope read-text` (DESIGN §11):
//   uiscope read-text [--region X,Y,W,H] [--window ID] [--scale S] [--lang L]
// Prints the text on the screen, a region or a window, read by OCR (one line
// per line), or with --json the MCP read_text tool's structuredContent and
// the whole text in "text" (which the tool sends as text content instead).
// Password fields are masked before OCR when the desktop's accessibility
// tree can locate them (a warning says so when it cannot).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct ReadTextFlags {
  std::string region;  // X,Y,W,H
  std::string window;  // X window ID or element ID from observe
  double scale = 0;    // 0 = automatic
  std::string lang = "eng";
  int timeout_ms = 2000;  // per application, locating password fields
};

CLI::App* AddReadTextCommand(CLI::App& app, GlobalFlags& g, ReadTextFlags& f);
int RunReadTextCommand(const GlobalFlags& g, const ReadTextFlags& f);

}  // namespace uiscope::cli
