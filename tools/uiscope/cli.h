// What the subcommands of the `uiscope` CLI share: global flags, exit codes
// and error printing. Each subcommand family lives in its own
// `*_command.cpp` with an Add...Command(app, flags) that registers it and
// returns the subcommand, and a Run...Command that main() calls once parsed.
#pragma once

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/escape.h"
#include "core/result.h"

namespace uiscope::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct GlobalFlags {
  std::string display;
  std::string session;  // --session: a session ID ("" = $UISCOPE_SESSION, else the display)
  bool json = false;
  std::string config;  // --config: the safety policy file ("" = the default place)
};

// Prints the error (to stderr; with --json also as {"error": {...}} on
// stdout) and returns the exit code: 2 for InvalidArgument, else 1.
// Messages quote app text (names, a launched app's log): on the terminal
// they go through the one escaping printer, lines after the first indented,
// so none can pass for a line of uiscope's own, move the cursor, retitle or
// clear the terminal.
inline int Fail(const GlobalFlags& g, const Error& error) {
  if (g.json) {
    nlohmann::json j = {
        {"error", {{"code", ErrorCodeName(error.code)}, {"message", error.message}}}};
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  std::cerr << "uiscope: " << EscapeLinesForDisplay(error.message, "    ") << "\n";
  return error.code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed;
}

}  // namespace uiscope::cli
