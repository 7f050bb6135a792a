// The `uiscope demo` scenario: a headless desktop, the GTK3 fixture, one
// observation, and how its compact tree compares with a screenshot of the
// same window. Lives in the library so the CLI only prints the report.
#pragma once

#include <functional>
#include <string>

#include "core/result.h"

namespace uiscope {

struct DemoOptions {
  std::string fixture_path;  // the uiscope-fixture-gtk3 binary
  int rows = 5;
  // Progress lines ("starting a headless desktop…") as the demo goes.
  std::function<void(const std::string&)> progress;
};

struct DemoReport {
  std::string display;
  std::string app;
  int pid = 0;
  std::string tree;  // compact format
  int nodes = 0;
  double observe_ms = 0;
  size_t tree_chars = 0;
  size_t png_bytes = 0;  // PNG screenshot of the fixture's window
  int window_width = 0;
  int window_height = 0;
  // Rough LLM token costs: text ~4 characters a token; images
  // ~width*height/750 tokens (Anthropic's published estimate).
  size_t tree_tokens = 0;
  size_t image_tokens = 0;
};

Result<DemoReport> RunDemo(const DemoOptions& options);

}  // namespace uiscope
