#include "engine/shortcuts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/escape.h"
#include "core/ids.h"
#include "engine/act.h"
#include "engine/app_schemas.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

bool IsMenuEntry(Role role) {
  return role == Role::kMenuItem || role == Role::kCheckMenuItem || role == Role::kRadioMenuItem;
}

// What --deep must leave as it found it: the app's windows (role and name)
// and which is active.
std::vector<std::string> WindowState(const Node& app) {
  std::vector<std::string> out;
  for (const Node& w : app.children) {
    if (!IsWindowRole(w.role) && w.role != Role::kMenu) continue;
    out.push_back(std::string(RoleName(w.role)) + " \"" + w.name + "\"" +
                  (w.Has(State::kActive) ? " active" : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The top menus of the app's menu bars.
std::vector<const Node*> TopMenus(const Node& app) {
  std::vector<const Node*> out;
  ForEachNode(app.children, [&](const Node& n, int) {
    if (n.role != Role::kMenuBar) return;
    for (const Node& c : n.children) {
      if ((c.role == Role::kMenu || c.role == Role::kMenuItem) && !c.id.empty()) out.push_back(&c);
    }
  });
  return out;
}

bool AnyItemShowing(const Node& menu) {
  bool showing = false;
  ForEachNode(menu.children, [&](const Node& n, int) {
    if (IsMenuEntry(n.role) && n.Has(State::kShowing)) showing = true;
  });
  return showing;
}

}  // namespace

Result<ShortcutsReport> ReadShortcuts(Workspace::Lease& lease, const ShortcutsRequest& request) {
  if (request.app.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "shortcuts: name the application (--app NAME)");
  }
  ShortcutsReport report;
  report.app = request.app;
  const auto start = Clock::now();
  ObserveRequest all;
  all.app = request.app;
  all.include_hidden = true;
  all.timeout = request.timeout;
  auto obs = lease.observer->Observe(all);
  if (!obs.ok()) return obs.error();
  const Node* app = FindAppNode(obs->snapshot.roots, request.app);
  if (app == nullptr) {
    return MakeError(ErrorCode::kNotFound, "no application \"" + request.app +
                                               "\" with an accessibility tree on this desktop");
  }
  report.app = app->name;
  report.pid = app->pid;
  std::vector<std::vector<Shortcut>> lists = {ShortcutsFromTree(*app)};
  report.tree_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  for (const std::string& w : obs->warnings) report.notes.push_back(w);
  if (!request.deep) {
    report.shortcuts = MergeShortcuts(lists);
    return report;
  }
  if (lease.hands == nullptr) {
    return MakeError(ErrorCode::kUnavailable, "shortcuts --deep needs input (acquire with hands)");
  }
  ObserveRequest shown;
  shown.app = report.app;
  shown.timeout = request.timeout;
  auto before = lease.observer->Observe(shown);
  if (!before.ok()) return before.error();
  const Node* app_before = FindAppNode(before->snapshot.roots, report.app);
  if (app_before == nullptr) return MakeError(ErrorCode::kStale, report.app + " went away");
  const std::vector<std::string> state_before = WindowState(*app_before);
  std::vector<std::pair<std::string, std::string>> menus;  // id, name
  for (const Node* m : TopMenus(*app_before)) menus.push_back({m->id, m->name});
  if (menus.empty()) report.notes.push_back("no menu bar: nothing to open");

  auto act = [&](ActionRequest r) -> Result<ActionResult> {
    r.verify.settle = std::chrono::milliseconds(150);
    r.verify.tree_timeout = request.timeout;
    r.timeout = request.timeout;
    r.confirmation_token = request.confirmation_token;
    auto done = PerformAction(lease, r);
    if (done.ok() && !done->performed) {
      return MakeError(ErrorCode::kDenied, "the safety policy did not let --deep " +
                                               std::string(ActionToolName(r.kind)) + ": " +
                                               done->decision.reason);
    }
    return done;
  };
  for (const auto& [id, name] : menus) {
    ActionRequest open;
    open.kind = ActionKind::kClick;
    open.target.id = id;
    open.via = Via::kAuto;
    open.arguments = {{"shortcuts", "deep"}, {"open_menu", name}};
    auto opened = act(open);
    if (!opened.ok()) {
      report.notes.push_back("could not open menu \"" + name + "\": " + opened.error().message);
      continue;
    }
    ++report.menus_opened;
    // The items show once the app has drawn the menu.
    const auto deadline = Clock::now() + request.timeout;
    while (true) {
      auto now = lease.observer->Observe(shown);
      if (!now.ok()) break;
      const Node* a = FindAppNode(now->snapshot.roots, report.app);
      const Node* menu = a ? FindById(now->snapshot.roots, id) : nullptr;
      if (menu != nullptr && AnyItemShowing(*menu)) {
        lists.push_back(ShortcutsFromTree(*a));
        break;
      }
      if (Clock::now() >= deadline) {
        report.notes.push_back("menu \"" + name + "\" showed no items within " +
                               std::to_string(request.timeout.count()) + " ms");
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    ActionRequest close;
    close.kind = ActionKind::kPressKeys;
    close.keys = {"Escape"};
    close.arguments = {{"shortcuts", "deep"}, {"close_menu", name}};
    if (auto closed = act(close); !closed.ok()) {
      report.notes.push_back("could not close menu \"" + name + "\": " + closed.error().message);
    }
  }
  // Escape closes a GTK menu at once, but the app may take a moment to say so.
  const auto deadline = Clock::now() + request.timeout;
  std::vector<std::string> state_after;
  while (true) {
    auto after = lease.observer->Observe(shown);
    if (!after.ok()) return after.error();
    const Node* a = FindAppNode(after->snapshot.roots, report.app);
    if (a == nullptr) return MakeError(ErrorCode::kStale, report.app + " went away during --deep");
    state_after = WindowState(*a);
    bool open_menu = false;
    for (const auto& m : menus) {
      const Node* n = FindById(after->snapshot.roots, m.first);
      if (n != nullptr && AnyItemShowing(*n)) open_menu = true;
    }
    if ((state_after == state_before && !open_menu) || Clock::now() >= deadline) {
      report.state_unchanged = state_after == state_before && !open_menu;
      if (open_menu) report.notes.push_back("a menu is still open after Escape");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  if (!*report.state_unchanged) {
    std::string was, is;
    for (const auto& s : state_before) was += (was.empty() ? "" : ", ") + s;
    for (const auto& s : state_after) is += (is.empty() ? "" : ", ") + s;
    report.notes.push_back("the app's state changed: before [" + was + "], after [" + is + "]");
  }
  report.shortcuts = MergeShortcuts(lists);
  return report;
}

// Menu labels, key names and the app's name are the app's own text: each
// goes through the one escaping printer (core/escape.h).
std::string FormatRegistry(const Registry& registry) {
  char line[512];
  std::snprintf(line, sizeof line, "%s: %zu shortcuts (tree read in %.1f ms%s%s)\n",
                EscapeForDisplay(registry.read.app, 60).c_str(), registry.shortcuts.size(),
                registry.read.tree_ms,
                registry.schema_file.empty() ? "" : "; schema ", registry.schema_file.c_str());
  std::string out = line;
  for (const Shortcut& s : registry.shortcuts) {
    // Each field cut so that the line fits: a cut line would lose its newline.
    std::snprintf(line, sizeof line, "  %-10s %-18s %-32s %-7s %s\n",
                  EscapeForDisplay(s.category, 16).c_str(), EscapeForDisplay(s.keys, 24).c_str(),
                  EscapeForDisplay(s.action, 40).c_str(), EscapeForDisplay(s.source, 10).c_str(),
                  EscapeForDisplay(s.path, 40).c_str());
    out += line;
    if (out.back() != '\n') out += '\n';
  }
  if (registry.read.state_unchanged) {
    out += "deep: opened " + std::to_string(registry.read.menus_opened) +
           " menus; the app's state " +
           (*registry.read.state_unchanged ? "is unchanged" : "CHANGED") + "\n";
  }
  for (const std::string& n : registry.read.notes) out += "note: " + n + "\n";
  return out;
}

Result<Registry> AppShortcuts(Workspace::Lease& lease, const ShortcutsRequest& request,
                              ShortcutRegistryStore* store, const std::string& category) {
  Registry out;
  auto read = ReadShortcuts(lease, request);
  if (!read.ok()) return read.error();
  out.read = std::move(read).value();
  const std::string& app = out.read.app;
  std::vector<Shortcut> user, learned;
  if (store != nullptr) {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    if (auto st = store->ReplaceSource(app, "menu", out.read.shortcuts, now_ms); !st.ok()) {
      out.read.notes.push_back("the registry was not kept: " + st.error().message);
    }
    if (auto kept = store->List(app); kept.ok()) {
      for (Shortcut& s : *kept) {
        if (s.source == "user") user.push_back(std::move(s));
        if (s.source == "learned") learned.push_back(std::move(s));
      }
    }
  }
  std::vector<Shortcut> schema_shortcuts;
  auto schema = FindAppSchema(app);
  if (!schema.ok()) {
    out.read.notes.push_back(schema.error().message);
  } else if (schema->has_value()) {
    out.schema_file = (*schema)->file;
    schema_shortcuts = (*schema)->shortcuts;
    for (Shortcut& s : schema_shortcuts) s.app = app;
  }
  std::vector<Shortcut> all = MergeShortcuts({user, schema_shortcuts, out.read.shortcuts, learned});
  for (Shortcut& s : all) {
    if (category.empty() || EqualsIgnoringCase(s.category, category)) {
      out.shortcuts.push_back(std::move(s));
    }
  }
  return out;
}

Result<Shortcut> PlanShortcutPress(Workspace::Lease& lease, const std::string& app,
                                   const std::string& action, ShortcutRegistryStore* store,
                                   std::chrono::milliseconds timeout, ActionRequest& request) {
  ShortcutsRequest read;
  read.app = app;
  read.timeout = timeout;
  auto registry = AppShortcuts(lease, read, store);
  if (!registry.ok()) return registry.error();
  auto hit = LookupShortcut(registry->shortcuts, action);
  if (!hit.ok()) {
    Error e = hit.error();
    e.message = registry->read.app + ": " + e.message;
    return e;
  }
  ObserveRequest shown;
  shown.app = registry->read.app;
  shown.timeout = timeout;
  // The app's active window, else its first: (raised and) its focused element.
  auto find_window = [&](const Observation& obs) -> const Node* {
    const Node* app_node = FindAppNode(obs.snapshot.roots, registry->read.app);
    const Node* window = nullptr;
    if (app_node == nullptr) return nullptr;
    for (const Node& w : app_node->children) {
      if (!IsWindowRole(w.role) || !w.Has(State::kShowing)) continue;
      if (window == nullptr || (w.Has(State::kActive) && !window->Has(State::kActive))) window = &w;
    }
    return window;
  };
  auto obs = lease.observer->Observe(shown);
  if (!obs.ok()) return obs.error();
  const Node* window = find_window(*obs);
  if (window == nullptr) {
    return MakeError(ErrorCode::kNotFound,
                     registry->read.app + " shows no window to press " + hit->keys + " into");
  }
  // Toolkits mark the focused element only in the active window, and a
  // window cannot be focused through accessibility (act.cpp would click into
  // it): the window is activated through the window system first, so the
  // keys go where the app had its focus.
  if (!window->Has(State::kActive) && lease.hands != nullptr && lease.hands->windows) {
    const std::string title = window->name;
    const int pid = window->pid;
    if (auto listed = lease.hands->windows->ListWindows(); listed.ok()) {
      const WindowInfo* pick = nullptr;
      for (const WindowInfo& w : *listed) {
        if (w.pid == pid && (pick == nullptr || w.title == title)) pick = &w;
      }
      if (pick != nullptr && lease.hands->windows->Activate(pick->id, timeout).ok()) {
        const auto deadline = Clock::now() + timeout;
        while (Clock::now() < deadline) {
          auto again = lease.observer->Observe(shown);
          if (!again.ok()) break;
          obs = std::move(again);
          window = find_window(*obs);
          if (window == nullptr || window->Has(State::kActive)) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    }
    if (window == nullptr) return MakeError(ErrorCode::kStale, registry->read.app + " went away");
  }
  const Node* focused = nullptr;
  ForEachNode(window->children, [&](const Node& n, int) {
    if (focused == nullptr && n.Has(State::kFocused) && !n.id.empty()) focused = &n;
  });
  request.kind = ActionKind::kPressKeys;
  request.keys = {PressableChord(hit->keys)};
  // No focused element: the keys go to the (now active) window as it is.
  request.target.id = focused != nullptr ? focused->id : "";
  return hit;
}

std::optional<Shortcut> LearnShortcut(const ActionRequest& request, ActionResult& result,
                                      ShortcutRegistryStore* store) {
  if (store == nullptr || request.kind != ActionKind::kPressKeys || request.keys.size() != 1 ||
      !result.performed || !result.verification || result.verification->effect != "observed") {
    return std::nullopt;
  }
  std::optional<Shortcut> learned = LearnFromPress(request.keys[0], result.verification->tree);
  if (!learned || learned->app.empty()) return std::nullopt;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  if (auto st = store->Put(*learned, now_ms); !st.ok()) {
    result.notes.push_back("the shortcut it showed was not kept: " + st.error().message);
    return std::nullopt;
  }
  result.notes.push_back("learned for " + learned->app + ": " + learned->keys + " opens \"" +
                         learned->action + "\" (uiscope shortcuts --app " + learned->app + ")");
  return learned;
}

}  // namespace uiscope
