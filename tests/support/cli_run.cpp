#include "support/cli_run.h"

#include <chrono>

#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope::test {

CliRun RunIsolatedCli(const std::string& cli, const std::vector<std::string>& args,
                      const std::string& config, const std::string& log) {
  SpawnOptions options;
  options.argv = {cli};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.unset_env = {"DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS",
                       "UISCOPE_SESSION"};
  options.env = {{"UISCOPE_STATE_DIR", TestStateDir()}, {"UISCOPE_CONFIG", config}};
  options.capture_stdout = true;
  options.log_file = TestStateDir() + "/" + log;
  CliRun r;
  auto process = Process::Spawn(options);
  if (!process.ok()) {
    r.err = process.error().message;
    return r;
  }
  for (;;) {
    auto line = (*process)->ReadLine(std::chrono::milliseconds(60000));
    if (!line.ok()) break;
    r.out += *line + "\n";
  }
  auto code = (*process)->Wait(std::chrono::milliseconds(10000));
  r.exit_code = code.ok() ? *code : -1;
  r.err = FileTail(options.log_file, 20);
  return r;
}

nlohmann::json FindJsonNode(const nlohmann::json& node, const std::string& name,
                            const std::string& role) {
  if (node.value("name", "") == name && (role.empty() || node.value("role", "") == role)) {
    return node;
  }
  for (const char* key : {"nodes", "children"}) {
    if (!node.contains(key)) continue;
    for (const nlohmann::json& child : node[key]) {
      nlohmann::json found = FindJsonNode(child, name, role);
      if (!found.is_null()) return found;
    }
  }
  return nullptr;
}

}  // namespace uiscope::test
