// Discovery of an application's capabilities (seed 004 §4.4 and §5.4, issue
// 19), by the seed's cascade: its schema (engine/app_schemas.h), its
// accessibility tree (one walk with hidden nodes: windows, menus, widgets by
// role, custom actions, shortcuts), with --deep its menus opened one by one
// (engine/shortcuts.h), never its pixels here.
//
// Toolkit: from the application's ToolkitName / version on the bus and
// process hints: gtk2, gtk3, gtk4, qt5, qt6, chromium, electron (Chromium's
// accessibility in a process that is not a Chromium browser, or whose
// command line names electron or an app.asar), libreoffice-vcl, or "none"
// when the app has no tree; else the bus's name in lower case.
//
// exploration_confidence in [0, 1]: the mean of four signs that the cascade
// found its way around the app — a schema exists; the menus were read
// (a menu bar in the tree, or --deep opened menus); shortcuts were found;
// the share of interactive elements that carry a name. A guide for agents,
// not a probability.
//
// Not thread-safe: call under the workspace lease (Need::kHands for deep).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/shortcuts.h"
#include "engine/workspace.h"

namespace uiscope {

// The normalised toolkit (see above) from the bus's name and version, the
// app's name and its process's command line ("" when unknown). Pure.
std::string NormaliseToolkit(std::string_view toolkit, std::string_view version,
                             std::string_view app_name, std::string_view command_line);

struct DiscoverRequest {
  std::string app;  // required
  bool deep = false;
  std::chrono::milliseconds timeout{2000};
  std::string confirmation_token;  // --deep's menu openings
};

struct Discovery {
  std::string app;
  int pid = 0;
  std::string toolkit;                      // normalised
  std::string toolkit_name;                 // as the bus says ("GTK")
  std::string toolkit_version;              // "3.24.38"
  std::vector<std::string> windows;         // "frame \"Untitled\""
  std::vector<std::string> menus;           // the menu bars' top menus
  std::vector<Shortcut> shortcuts;          // tree (+ deep) and schema, merged
  std::map<std::string, int> roles;         // widgets by role, hidden ones included
  std::vector<std::string> custom_actions;  // names other than click, press, activate
  bool schema = false;
  std::string schema_file;
  double confidence = 0;
  std::optional<bool> state_unchanged;  // --deep
  double elapsed_ms = 0;
  std::vector<std::string> notes;
};

Result<Discovery> Discover(Workspace::Lease& lease, const DiscoverRequest& request);

std::string FormatDiscovery(const Discovery& d);

}  // namespace uiscope
