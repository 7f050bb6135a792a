// The toolkit specialists' verbs (issue 19, DESIGN §11):
//   uiscope shortcuts [--app NAME] [--category C] [--deep] [--json]
//   uiscope shortcuts add --app NAME --keys CHORD --action NAME [--category C]
//   uiscope shortcuts remove --app NAME --keys CHORD [--action NAME]
//   uiscope discover  --app NAME [--deep] [--json]
//   uiscope menu      --app NAME "File > Save As…"
// (and `uiscope keys --action NAME --app NAME`, keys_command.cpp). Menus
// opened by --deep and `menu` go through the safety policy and the audit log
// like every action (hands_commands.h).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "cli.h"
#include "hands_commands.h"
#include "memory/shortcut_store.h"

namespace uiscope::cli {

// The shortcut registry in the state database of --config; null (with a
// warning on stderr) when it cannot be opened: the registry is then read
// afresh and not kept.
std::shared_ptr<memory::ShortcutStore> OpenShortcutStore(const GlobalFlags& g);

class SpecialistCommands {
 public:
  static std::unique_ptr<SpecialistCommands> Add(CLI::App& app, GlobalFlags& g);
  std::optional<int> RunParsed();

 private:
  explicit SpecialistCommands(GlobalFlags& g) : g_(g) {}
  int RunShortcuts();
  int RunAddShortcut();
  int RunRemoveShortcut();
  int RunDiscover();
  int RunMenu();

  GlobalFlags& g_;
  std::string app_;
  std::string category_;
  bool deep_ = false;
  std::string path_;
  std::string keys_;         // shortcuts add / remove
  std::string action_name_;  // shortcuts add / remove
  ActionFlags action_;  // menu; timeout and token of the others
  CLI::App* shortcuts_cmd_ = nullptr;
  CLI::App* add_cmd_ = nullptr;
  CLI::App* remove_cmd_ = nullptr;
  CLI::App* discover_cmd_ = nullptr;
  CLI::App* menu_cmd_ = nullptr;
};

}  // namespace uiscope::cli
