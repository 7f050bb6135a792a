#include "specialist_commands.h"

#include <iostream>

#include "core/escape.h"
#include "engine/discover.h"
#include "engine/menu_path.h"
#include "engine/shortcuts.h"
#include "mcp/wire.h"
#include "memory/state_db.h"
#include "policy_flags.h"

namespace uiscope::cli {

std::shared_ptr<memory::ShortcutStore> OpenShortcutStore(const GlobalFlags& g) {
  auto config = LoadPolicy(g);
  if (!config.ok()) return nullptr;
  auto db = memory::OpenStateDatabase(safety::DatabasePath(*config));
  if (!db.ok()) {
    std::cerr << "uiscope: warning: the shortcut registry is not kept: " << db.error().message
              << "\n";
    return nullptr;
  }
  return std::make_shared<memory::ShortcutStore>(std::move(db).value());
}

namespace {

void AddCommon(CLI::App* cmd, GlobalFlags& g, ActionFlags& f) {
  cmd->add_option("--timeout-ms", f.timeout_ms,
                  "deadline of each accessibility walk and call (default 2000)")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
}

}  // namespace

std::unique_ptr<SpecialistCommands> SpecialistCommands::Add(CLI::App& app, GlobalFlags& g) {
  std::unique_ptr<SpecialistCommands> c(new SpecialistCommands(g));
  auto* s = app.add_subcommand("shortcuts",
                               "an app's keyboard shortcuts, read from its menus and accelerators");
  s->add_option("--app", c->app_, "the application (without: every registry kept)");
  s->add_option("--category", c->category_, "only this category (file, edit, view, ...)");
  s->add_flag("--deep", c->deep_,
              "also open each top menu (never an item), record it and close it with Escape");
  s->add_option("--confirmation-token", c->action_.confirmation_token,
                "--deep: approval of menu openings the safety policy held");
  AddCommon(s, g, c->action_);
  c->shortcuts_cmd_ = s;
  s->require_subcommand(0, 1);
  auto* add = s->add_subcommand(
      "add", "teach a shortcut of an app (source user: trusted before the app's menus)");
  add->add_option("--app", c->app_, "the application, as `uiscope shortcuts` names it")->required();
  add->add_option("--keys", c->keys_, "the chord: \"Ctrl+Alt+X\", \"F5\", \"<Primary>s\"")
      ->required();
  add->add_option("--action", c->action_name_, "what it does, as `keys --action` will name it")
      ->required();
  add->add_option("--category", c->category_, "file, edit, view, ... (default general)");
  add->add_option("--config", g.config, "safety policy file (its state database keeps it)");
  add->add_flag("--json", g.json, "print the entry as JSON");
  c->add_cmd_ = add;
  auto* remove = s->add_subcommand(
      "remove", "forget a shortcut a person taught or uiscope learned (the app's own stay)");
  remove->add_option("--app", c->app_, "the application")->required();
  remove->add_option("--keys", c->keys_, "the chord")->required();
  remove->add_option("--action", c->action_name_, "only the entry of this action");
  remove->add_option("--config", g.config, "safety policy file (its state database keeps it)");
  remove->add_flag("--json", g.json, "print {removed: N} as JSON");
  c->remove_cmd_ = remove;

  auto* d = app.add_subcommand(
      "discover", "what an app offers: toolkit, windows, menus, shortcuts, widgets, actions");
  d->add_option("--app", c->app_, "the application")->required();
  d->add_flag("--deep", c->deep_, "also open each top menu (never an item) and close it again");
  d->add_option("--confirmation-token", c->action_.confirmation_token,
                "--deep: approval of menu openings the safety policy held");
  AddCommon(d, g, c->action_);
  c->discover_cmd_ = d;

  auto* m = app.add_subcommand(
      "menu", "walk a menu path through accessibility (\"File > Save As…\") and activate it");
  m->add_option("PATH", c->path_, "menu path, steps separated by '>'")->required();
  m->add_option("--app", c->app_, "the application")->required();
  AddActionFlags(m, g, c->action_, false);
  c->menu_cmd_ = m;
  return c;
}

std::optional<int> SpecialistCommands::RunParsed() {
  if (add_cmd_->parsed()) return RunAddShortcut();
  if (remove_cmd_->parsed()) return RunRemoveShortcut();
  if (shortcuts_cmd_->parsed()) return RunShortcuts();
  if (discover_cmd_->parsed()) return RunDiscover();
  if (menu_cmd_->parsed()) return RunMenu();
  return std::nullopt;
}

int SpecialistCommands::RunShortcuts() {
  auto store = OpenShortcutStore(g_);
  if (app_.empty()) {
    if (!store) return Fail(g_, MakeError(ErrorCode::kUnavailable, "no shortcut registry kept"));
    auto all = store->List("", category_);
    if (!all.ok()) return Fail(g_, all.error());
    if (g_.json) {
      nlohmann::json list = nlohmann::json::array();
      for (const Shortcut& s : *all) list.push_back(ShortcutToJson(s));
      std::cout << nlohmann::json{{"count", all->size()}, {"shortcuts", list}}.dump() << "\n";
    } else {
      for (const Shortcut& s : *all) {
        std::cout << EscapeForDisplay(s.app, 60) << "  " << EscapeForDisplay(s.category, 40)
                  << "  " << EscapeForDisplay(s.keys, 40) << "  " << EscapeForDisplay(s.action, 80)
                  << "  (" << EscapeForDisplay(s.source, 20) << ")\n";
      }
      if (all->empty()) std::cout << "no registry kept yet: uiscope shortcuts --app NAME\n";
    }
    return kExitOk;
  }
  auto where = ActingWorkspace(g_);
  if (!where.ok()) return Fail(g_, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire("", deep_ ? Workspace::Need::kHands : Workspace::Need::kObserve);
  if (!lease.ok()) return Fail(g_, lease.error());
  ShortcutsRequest r;
  r.app = app_;
  r.deep = deep_;
  r.timeout = std::chrono::milliseconds(action_.timeout_ms);
  r.confirmation_token = action_.confirmation_token;
  auto registry = AppShortcuts(*lease, r, store.get(), category_);
  if (!registry.ok()) return Fail(g_, registry.error());
  if (g_.json) {
    std::cout << RegistryToJson(*registry).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << FormatRegistry(*registry);
  }
  if (registry->read.state_unchanged && !*registry->read.state_unchanged) return kExitFailed;
  return kExitOk;
}

int SpecialistCommands::RunAddShortcut() {
  auto entry = UserShortcut(app_, keys_, action_name_, category_);
  if (!entry.ok()) return Fail(g_, entry.error());
  auto store = OpenShortcutStore(g_);
  if (!store) return Fail(g_, MakeError(ErrorCode::kUnavailable, "no shortcut registry kept"));
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  if (auto st = store->Put(*entry, now_ms); !st.ok()) return Fail(g_, st.error());
  if (g_.json) {
    std::cout << ShortcutToJson(*entry).dump() << "\n";
  } else {
    std::cout << EscapeForDisplay(entry->app, 60) << ": " << ShortcutText(*entry) << "\n";
  }
  return kExitOk;
}

int SpecialistCommands::RunRemoveShortcut() {
  auto chord = NormaliseChord(keys_);
  if (!chord) {
    return Fail(g_, MakeError(ErrorCode::kInvalidArgument,
                              "\"" + keys_ + "\" is not a key chord (e.g. \"Ctrl+Alt+X\")"));
  }
  auto store = OpenShortcutStore(g_);
  if (!store) return Fail(g_, MakeError(ErrorCode::kUnavailable, "no shortcut registry kept"));
  auto removed = store->Remove(app_, {"user", "learned"}, *chord, action_name_);
  if (!removed.ok()) return Fail(g_, removed.error());
  if (*removed == 0) {
    std::string kept;
    if (auto all = store->List(app_); all.ok()) {
      for (const Shortcut& s : *all) {
        if (s.source == "user" || s.source == "learned") {
          kept += (kept.empty() ? "" : ", ") + s.keys + " = " + s.action + " (" + s.source + ")";
        }
      }
    }
    return Fail(g_, MakeError(ErrorCode::kNotFound,
                              app_ + " has no user or learned shortcut " + *chord +
                                  (action_name_.empty() ? "" : " = \"" + action_name_ + "\"") +
                                  (kept.empty() ? " (it has none)" : "; it has: " + kept)));
  }
  if (g_.json) {
    std::cout << nlohmann::json{{"removed", *removed}}.dump() << "\n";
  } else {
    std::cout << EscapeForDisplay(app_, 60) << ": removed " << *removed << " shortcut" << (*removed == 1 ? "" : "s")
              << " " << *chord << "\n";
  }
  return kExitOk;
}

int SpecialistCommands::RunDiscover() {
  auto where = ActingWorkspace(g_);
  if (!where.ok()) return Fail(g_, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire("", deep_ ? Workspace::Need::kHands : Workspace::Need::kObserve);
  if (!lease.ok()) return Fail(g_, lease.error());
  DiscoverRequest r;
  r.app = app_;
  r.deep = deep_;
  r.timeout = std::chrono::milliseconds(action_.timeout_ms);
  r.confirmation_token = action_.confirmation_token;
  auto found = Discover(*lease, r);
  if (!found.ok()) return Fail(g_, found.error());
  if (g_.json) {
    std::cout << DiscoveryToJson(*found).dump(-1, ' ', false,
                                              nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << FormatDiscovery(*found);
  }
  return kExitOk;
}

int SpecialistCommands::RunMenu() {
  auto steps = ParseMenuPath(path_);
  if (!steps.ok()) return Fail(g_, steps.error());
  auto via = ParseVia(action_.via);
  if (!via.ok()) return Fail(g_, via.error());
  auto where = ActingWorkspace(g_);
  if (!where.ok()) return Fail(g_, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok()) return Fail(g_, lease.error());
  MenuRequest r;
  r.app = app_;
  r.steps = *steps;
  r.timeout = std::chrono::milliseconds(action_.timeout_ms);
  r.verify.settle = std::chrono::milliseconds(action_.settle_ms);
  r.confirmation_token = action_.confirmation_token;
  r.via = *via;
  r.arguments = {{"menu", path_}, {"app", app_}};
  auto result = WalkMenuPath(*lease, r);
  if (!result.ok()) return Fail(g_, result.error());
  if (g_.json) {
    std::cout << MenuResultToJson(*result).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    for (const ActionResult& s : result->steps) {
      ActionResult shown = s;
      shown.decision.token.clear();
      (s.performed ? std::cout : std::cerr) << FormatActionResult(shown);
    }
  }
  if (!result->steps.empty() &&
      result->steps.back().decision.verdict == GateVerdict::kNeedsConfirmation) {
    std::cerr << HeldHint(result->steps.back().decision, "the same command");
  }
  return result->performed ? kExitOk : kExitFailed;
}

}  // namespace uiscope::cli
