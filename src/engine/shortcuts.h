// Reading an application's shortcut registry from a desktop (issue 19):
// its tree, and with --deep its menus opened one by one. The registry's
// data and parsing are pure (core/shortcuts.h).
//
// Not thread-safe: call under the workspace lease (Need::kHands for deep).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/shortcuts.h"
#include "engine/act.h"
#include "engine/workspace.h"

namespace uiscope {

// --- Reading them from a desktop -------------------------------------------

struct ShortcutsRequest {
  std::string app;  // application name (required)
  bool deep = false;
  std::chrono::milliseconds timeout{2000};
  // --deep only: what each menu opening and closing is decided and audited
  // with (the gate sees one click and one Escape per top menu).
  std::string confirmation_token;
};

struct ShortcutsReport {
  std::string app;
  int pid = 0;
  std::vector<Shortcut> shortcuts;  // from the tree (and --deep's menus), source "menu"
  double tree_ms = 0;               // the walk and the parse
  int menus_opened = 0;             // --deep
  // --deep: the app's windows and focus as before, every menu closed again.
  std::optional<bool> state_unchanged;
  std::vector<std::string> notes;
};

// Reads the app's shortcuts from its tree (one walk with hidden nodes). With
// `deep`, also opens each top menu of its menu bar through the gate (a click
// on it, never on an item), records the items shown, closes it with Escape
// and checks the app's windows and focus are as before. NotFound naming the
// apps present for an unknown app.
Result<ShortcutsReport> ReadShortcuts(Workspace::Lease& lease, const ShortcutsRequest& request);

// An app's whole registry: what a person taught ("user", from `store`), its
// schema (engine/app_schemas.h), its tree (ReadShortcuts, which replaces the
// app's "menu" entries in `store`) and what was learned (`store`), merged in
// that order of trust (core/shortcuts.h MergeShortcuts), then only
// `category` ("" = all). `store` may be null (nothing kept).
struct Registry {
  ShortcutsReport read;
  std::vector<Shortcut> shortcuts;
  std::string schema_file;  // "" = no schema
};
// A table for people: category, keys, action, source, path.
std::string FormatRegistry(const Registry& registry);

Result<Registry> AppShortcuts(Workspace::Lease& lease, const ShortcutsRequest& request,
                              ShortcutRegistryStore* store, const std::string& category = "");

// `uiscope keys --action NAME --app APP` / press_keys with action: looks
// `action` up in the app's registry (AppShortcuts, LookupShortcut) and fills
// `request` to press its chord into the app: keys, and as target the
// focused element of the app's active window. A window of the app that is
// not active is activated first (through the window system, as act.cpp
// raises a target's window), so the keys go where the app keeps its focus. The press itself is the
// caller's, through PerformAction (gate, audit, verification). Returns the entry used.
Result<Shortcut> PlanShortcutPress(Workspace::Lease& lease, const std::string& app,
                                   const std::string& action, ShortcutRegistryStore* store,
                                   std::chrono::milliseconds timeout, ActionRequest& request);

// What a performed press teaches, kept in `store` as source "learned": a
// press of one chord (request.keys), performed, whose verification observed
// an effect, and whose tree diff core/shortcuts.h LearnFromPress reads as
// chord -> the one dialog it opened. A note on `result` says what was
// learned (or why it was not kept). nullopt when it taught nothing.
std::optional<Shortcut> LearnShortcut(const ActionRequest& request, ActionResult& result,
                                      ShortcutRegistryStore* store);

}  // namespace uiscope
