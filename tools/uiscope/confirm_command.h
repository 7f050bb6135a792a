// `uiscope confirm` (DESIGN §8): a person's decision on an action the safety
// policy holds, from any terminal: the process holding it (the MCP server,
// a CLI action waiting) sees the decision through the state database.
//   uiscope confirm                          the pending confirmations
//   uiscope confirm --all                    also decided and expired ones (last day)
//   uiscope confirm TOKEN --approve | --deny
// Exit 1 when the token is unknown, expired or already decided.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct ConfirmFlags {
  std::string token;
  bool approve = false;
  bool deny = false;
  bool all = false;
  std::string grant;           // --grant: "30m", "20", "30m,20"
  bool revoke_grants = false;  // --revoke-grants
};

CLI::App* AddConfirmCommand(CLI::App& app, GlobalFlags& g, ConfirmFlags& f);
int RunConfirmCommand(const GlobalFlags& g, const ConfirmFlags& f);

}  // namespace uiscope::cli
