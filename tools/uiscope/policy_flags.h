// The safety policy as the CLI verbs use it: the configuration named by
// --config (else $UISCOPE_CONFIG, else ~/.config/uiscope/config.json), and
// its deny list as the observers' filter, so that `uiscope observe`, `find`,
// `screenshot --marks` and `read-text` never read a denied application,
// like the MCP server.
#pragma once

#include <functional>
#include <string>

#include "cli.h"
#include "core/result.h"
#include "safety/policy_config.h"

namespace uiscope::cli {

Result<safety::PolicyConfig> LoadPolicy(const GlobalFlags& g);

// True for an application name on the configuration's deny list; empty
// (no filter) when the list is empty.
std::function<bool(const std::string&)> HiddenApps(const safety::PolicyConfig& config);

}  // namespace uiscope::cli
