// `uiscope screenshot` (DESIGN §11):
//   uiscope screenshot [-o FILE] [--region X,Y,W,H] [--window ID]
//                      [--encoding png|webp|jpeg] [--max-width PX] [--marks]
// Writes the image to FILE (default screenshot.<ext> in the current
// directory; "-" = stdout) and prints a one-line summary, or with --json the
// MCP screenshot tool's structuredContent (without the image bytes).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct ScreenshotFlags {
  std::string output;    // -o; "" = screenshot.<ext>, "-" = stdout
  std::string region;    // X,Y,W,H
  std::string window;    // X window ID or element ID from observe
  std::string encoding;  // "" = from the output's extension, else png
  int max_width = 0;
  int quality = 80;
  bool marks = false;
  std::string app;             // marks: only this application
  std::string sources;  // marks: ax, ocr, vision; "" = as observe's default
  std::string detector;  // marks: vision's detector; "" = the default
  int timeout_ms = 2000;
};

CLI::App* AddScreenshotCommand(CLI::App& app, GlobalFlags& g, ScreenshotFlags& f);
int RunScreenshotCommand(const GlobalFlags& g, const ScreenshotFlags& f);

}  // namespace uiscope::cli
