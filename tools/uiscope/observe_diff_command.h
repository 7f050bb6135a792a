// `uiscope observe --format diff` (DESIGN §3, §11): what changed since the
// previous `observe --format diff` of the same desktop and scope, from
// another process (engine/observe_diff.h keeps the baseline in a private
// file). The first run prints the whole tree and keeps it as the baseline.
#pragma once

#include <string>

#include "cli.h"

namespace uiscope::cli {

struct ObserveDiffFlags {
  std::string app;
  int pid = 0;
  std::string sources;  // "" = as observe's default
  int max_nodes = 0;  // lines of the diff (nodes of a baseline)
  int max_chars = 0;  // of a baseline
  bool all = false;
  int timeout_ms = 2000;
};

int RunObserveDiffCommand(const GlobalFlags& g, const ObserveDiffFlags& f);

}  // namespace uiscope::cli
