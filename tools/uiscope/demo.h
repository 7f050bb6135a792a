// The `uiscope demo` scenario: a headless desktop, the GTK3 fixture, one
// observation and how its compact tree compares with a screenshot of the
// same window; then the loop an agent runs — type an email, tick "Remember
// me", click Login — each action verified, and the status label it ends
// with. Part of the CLI, not of the engine: starting a session and a
// fixture app is a tool's job, not orchestration.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace uiscope {

struct DemoOptions {
  std::string fixture_path;  // the uiscope-fixture-gtk3 binary
  int rows = 5;
  // Progress lines ("starting a headless desktop…") as the demo goes.
  std::function<void(const std::string&)> progress;
};

// One verified action of the demo.
struct DemoStep {
  std::string what;    // "type the email into txt_5556"
  std::string via;     // how it was done
  std::string effect;  // observed / none
  std::string report;  // FormatActionResult: the verification, for people
  double ms = 0;
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
  std::vector<DemoStep> steps;  // type, tick, click
  std::string final_status;     // the status label after the steps
};

Result<DemoReport> RunDemo(const DemoOptions& options);

}  // namespace uiscope
