#include "engine/discover.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/escape.h"
#include "core/toolkit.h"
#include "engine/app_schemas.h"
#include "engine/shortcuts.h"
#include "platform/process_name.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// Actions every toolkit names for its plain activation.
bool IsPlainAction(const std::string& action) {
  return action == "click" || action == "press" || action == "activate";
}

}  // namespace

std::string NormaliseToolkit(std::string_view toolkit, std::string_view version,
                             std::string_view app_name, std::string_view command_line) {
  const std::string label = ToolkitLabel(toolkit, version, app_name, command_line);
  return label.empty() ? "none" : label;
}

Result<Discovery> Discover(Workspace::Lease& lease, const DiscoverRequest& request) {
  if (request.app.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "discover: name the application (--app NAME)");
  }
  const auto start = Clock::now();
  Discovery d;
  d.app = request.app;
  // 1. The schema.
  auto schema = FindAppSchema(request.app);
  if (!schema.ok()) {
    d.notes.push_back(schema.error().message);
  } else if (schema->has_value()) {
    d.schema = true;
    d.schema_file = (*schema)->file;
  }
  // 2. The tree, hidden nodes included (closed menus).
  ObserveRequest all;
  all.app = request.app;
  all.include_hidden = true;
  all.timeout = request.timeout;
  auto obs = lease.observer->Observe(all);
  if (!obs.ok()) return obs.error();
  const Node* app = FindAppNode(obs->snapshot.roots, request.app);
  for (const std::string& w : obs->warnings) d.notes.push_back(w);
  if (app == nullptr) {
    // A window without a tree (X11 only): its toolkit cannot be told.
    d.toolkit = "none";
    d.notes.push_back("no accessibility tree for \"" + request.app +
                      "\": only its pixels can tell more (observe with sources ocr, vision)");
    d.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return d;
  }
  d.app = app->name;
  d.pid = app->pid;
  if (auto apps = lease.accessibility->ListApps(); apps.ok()) {
    for (const AppInfo& a : *apps) {
      if ((app->pid != 0 && a.pid == app->pid) || (app->pid == 0 && a.name == app->name)) {
        d.toolkit_name = a.toolkit;
        d.toolkit_version = a.toolkit_version;
        break;
      }
    }
  }
  d.toolkit = NormaliseToolkit(d.toolkit_name, d.toolkit_version, d.app, ProcessCommandLine(d.pid));

  int interactive = 0;
  int named = 0;
  std::set<std::string> custom;
  for (const Node& w : app->children) {
    if (IsWindowRole(w.role)) {
      d.windows.push_back(std::string(RoleName(w.role)) + " \"" + w.name + "\"" +
                          (w.Has(State::kShowing) ? "" : " (hidden)"));
    }
  }
  ForEachNode(app->children, [&](const Node& n, int) {
    ++d.roles[std::string(RoleName(n.role))];
    if (IsInteractiveRole(n.role)) {
      ++interactive;
      if (!n.name.empty()) ++named;
    }
    for (const std::string& a : n.actions) {
      if (!IsPlainAction(a)) custom.insert(a);
    }
    if (n.role == Role::kMenuBar) {
      for (const Node& m : n.children) {
        if (!m.name.empty()) d.menus.push_back(m.name);
      }
    }
  });
  d.custom_actions.assign(custom.begin(), custom.end());
  std::vector<std::vector<Shortcut>> lists;
  if (d.schema) lists.push_back((*schema)->shortcuts);
  // 3. The menus: read from the tree, and with --deep opened.
  bool menus_read = !d.menus.empty();
  if (request.deep) {
    ShortcutsRequest deep;
    deep.app = d.app;
    deep.deep = true;
    deep.timeout = request.timeout;
    deep.confirmation_token = request.confirmation_token;
    auto read = ReadShortcuts(lease, deep);
    if (!read.ok()) return read.error();
    lists.push_back(read->shortcuts);
    d.state_unchanged = read->state_unchanged;
    menus_read = menus_read || read->menus_opened > 0;
    for (const std::string& n : read->notes) d.notes.push_back(n);
  } else {
    lists.push_back(ShortcutsFromTree(*app));
  }
  d.shortcuts = MergeShortcuts(lists);
  const double labelled = interactive > 0 ? static_cast<double>(named) / interactive : 0.0;
  d.confidence = ((d.schema ? 1.0 : 0.0) + (menus_read ? 1.0 : 0.0) +
                  (d.shortcuts.empty() ? 0.0 : 1.0) + labelled) /
                 4.0;
  d.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return d;
}

std::string FormatDiscovery(const Discovery& d) {
  // Names, window titles, menus and actions are the app's own text: each
  // goes through the one escaping printer (core/escape.h).
  std::string out = EscapeForDisplay(d.app, 60) + " (pid " + std::to_string(d.pid) +
                    "): toolkit " + EscapeForDisplay(d.toolkit, 40);
  if (!d.toolkit_name.empty()) {
    out += " (" + EscapeForDisplay(d.toolkit_name, 40) + " " +
           EscapeForDisplay(d.toolkit_version, 40) + ")";
  }
  out += "\n";
  auto list = [](const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : ", ") + EscapeForDisplay(i, 80);
    return s.empty() ? std::string("none") : s;
  };
  out += "windows: " + list(d.windows) + "\n";
  out += "menus: " + list(d.menus) + "\n";
  out += "shortcuts: " + std::to_string(d.shortcuts.size()) + "\n";
  std::vector<std::pair<int, std::string>> roles;
  for (const auto& [role, count] : d.roles) roles.push_back({count, role});
  std::sort(roles.rbegin(), roles.rend());
  std::string widgets;
  for (const auto& [count, role] : roles) {
    widgets += (widgets.empty() ? "" : ", ") + EscapeForDisplay(role, 40) + " " +
               std::to_string(count);
  }
  out += "widgets: " + (widgets.empty() ? std::string("none") : widgets) + "\n";
  out += "custom actions: " + list(d.custom_actions) + "\n";
  out += std::string("schema: ") + (d.schema ? d.schema_file : "none") + "\n";
  char conf[32];
  std::snprintf(conf, sizeof conf, "%.2f", d.confidence);
  out += std::string("exploration confidence: ") + conf + "\n";
  if (d.state_unchanged) {
    out += std::string("deep: the app's state ") + (*d.state_unchanged ? "unchanged" : "CHANGED") +
           "\n";
  }
  for (const std::string& n : d.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace uiscope
