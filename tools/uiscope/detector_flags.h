// --detector, as the verbs that perceive take it (observe, find, screenshot
// --marks): which of vision's detectors runs, on the windows vision reads
// when named in --sources and on the windows read from pixels by default
// (apps not answering or without accessibility).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "core/result.h"
#include "vision/detector.h"

namespace uiscope::cli {

// Adds the option, its help and its check to `cmd`.
CLI::Option* AddDetectorOption(CLI::App* cmd, std::string& kind);

// The detector `kind` names; null for "" (Perceive then makes the default
// one where it needs one). A fallback (auto without a model) is a warning on
// stderr. Errors: a missing or unreadable model, naming its path.
Result<std::unique_ptr<vision::Detector>> CliDetector(const std::string& kind);

}  // namespace uiscope::cli
