// The uiscope CLI run as a script on another machine would run it, for the
// suites that drive a session only through `--session` (the VNC tests):
// no DISPLAY, no buses, no $UISCOPE_SESSION; the test process's state dir
// and a policy file of the test's. For tests only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace uiscope::test {

struct CliRun {
  int exit_code = -1;
  std::string out;  // the whole of stdout
  std::string err;  // the last 20 lines of stderr
};

// Runs `cli` with `args`, UISCOPE_STATE_DIR = TestStateDir() and
// UISCOPE_CONFIG = `config`; stderr goes to `log` (in the state dir).
CliRun RunIsolatedCli(const std::string& cli, const std::vector<std::string>& args,
                      const std::string& config, const std::string& log);

// The first node named `name` (and of `role` unless empty) in an `observe
// --format json` tree; null when there is none.
nlohmann::json FindJsonNode(const nlohmann::json& node, const std::string& name,
                            const std::string& role = "");

}  // namespace uiscope::test
