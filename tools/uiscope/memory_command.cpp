#include "memory_command.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/escape.h"
#include "engine/find.h"
#include "engine/learner.h"
#include "engine/workspace.h"
#include "memory/target_store.h"
#include "policy_flags.h"

namespace uiscope::cli {
namespace {

Result<Point> ParsePoint(const std::string& text) {
  int x = 0, y = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d,%d%c", &x, &y, &extra) != 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--at must be X,Y in screen pixels (e.g. 420,310), got \"" + text + "\"");
  }
  return Point{x, y};
}

Result<Point> ParseSize(const std::string& text) {
  int w = 0, h = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 4096 ||
      h > 4096) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--size must be WxH in pixels between 1x1 and 4096x4096 (e.g. 80x24), got \"" +
                         text + "\"");
  }
  return Point{w, h};
}

std::string When(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

// The store, for the memory verbs: they work whether learning is on or off
// (forgetting must always be possible).
Result<std::shared_ptr<memory::TargetStore>> OpenStore(const GlobalFlags& g) {
  auto config = LoadPolicy(g);
  if (!config.ok()) return config.error();
  return memory::OpenTargetStore(memory::MemoryDatabasePath(safety::DatabasePath(*config)), true);
}

int RunTeach(const GlobalFlags& g, const TeachFlags& f) {
  auto at = ParsePoint(f.at);
  if (!at.ok()) return Fail(g, at.error());
  Point size{50, 30};
  if (!f.size.empty()) {
    auto parsed = ParseSize(f.size);
    if (!parsed.ok()) return Fail(g, parsed.error());
    size = *parsed;
  }
  auto role = ParseRole(f.role);
  if (!role.ok()) return Fail(g, role.error());
  auto config = LoadPolicy(g);
  if (!config.ok()) return Fail(g, config.error());
  memory::Learning learning = memory::OpenLearning(*config, /*durable=*/true);
  if (!learning.store) {
    return Fail(g, MakeError(ErrorCode::kUnavailable,
                             learning.error.empty()
                                 ? "learning is off in the configuration (\"memory\": "
                                   "{\"learning\": false}); switch it on to teach"
                                 : "the learned memory cannot be opened: " + learning.error));
  }
  auto learner = std::make_shared<Learner>(learning.store, learning.learns);
  WorkspaceOptions where;
  where.display = g.display;
  where.session = g.session;
  where.start_headless = false;
  where.hide_app = HiddenApps(*config);
  Workspace workspace(where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());
  auto obs = lease->observer->Observe(ObserveRequest{});
  if (!obs.ok()) return Fail(g, obs.error());
  RegionCapture capture;
  if (lease->capture != nullptr) capture = RegionsOf(*lease->capture);
  const Rect bounds{at->x - size.x / 2, at->y - size.y / 2, size.x, size.y};
  auto taught = learner->Teach(obs->snapshot.roots, f.label, bounds, *role, capture);
  if (!taught.ok()) return Fail(g, taught.error());
  if (g.json) {
    nlohmann::json j = {{"target", memory::LearnedTargetToJson(taught->target)},
                        {"app", taught->signature.app},
                        {"title_pattern", taught->signature.title_pattern},
                        {"toolkit", taught->signature.toolkit},
                        {"window", taught->window_id},
                        {"display", lease->display}};
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  const LearnedTarget& t = taught->target;
  // Labels, app names and titles come from the app: the one escaping
  // printer keeps each on its own line (core/escape.h).
  std::cout << "taught " << RoleName(t.role) << " " << QuoteForDisplay(t.label)
            << " id=" << EscapeForDisplay(t.id) << " in " << EscapeForDisplay(taught->signature.app)
            << " " << QuoteForDisplay(taught->signature.title_pattern) << " at " << bounds.x << "," << bounds.y << " " << bounds.w << "x" << bounds.h
            << (t.visual_hash ? " (with its fingerprint)" : " (no pixels: no fingerprint)") << "\n";
  return kExitOk;
}

int RunList(const GlobalFlags& g) {
  auto store = OpenStore(g);
  if (!store.ok()) return Fail(g, store.error());
  auto apps = (*store)->ListApps();
  if (!apps.ok()) return Fail(g, apps.error());
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size((*store)->path(), ec);
  if (g.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const memory::AppSummary& a : *apps) list.push_back(memory::AppSummaryToJson(a));
    std::cout << nlohmann::json{{"apps", list},
                                {"path", (*store)->path()},
                                {"file_bytes", ec ? 0 : static_cast<int64_t>(file_bytes)}}
                     .dump()
              << "\n";
    return kExitOk;
  }
  if (apps->empty()) {
    std::cerr << "uiscope: nothing learned yet (" << (*store)->path() << ")\n";
    return kExitOk;
  }
  for (const memory::AppSummary& a : *apps) {
    std::cout << EscapeForDisplay(a.signature.app) << "  "
              << QuoteForDisplay(a.signature.title_pattern) << "  "
              << EscapeForDisplay(a.signature.toolkit) << "  " << a.targets << " targets (" << a.taught
              << " taught)  ~" << (a.bytes + 1023) / 1024 << " KiB  last seen "
              << When(a.last_seen_ms) << "\n";
  }
  std::cerr << "uiscope: " << (*store)->path() << ", "
            << (ec ? 0 : static_cast<int64_t>(file_bytes)) / 1024 << " KiB\n";
  return kExitOk;
}

int RunShow(const GlobalFlags& g, const MemoryFlags& f, bool export_json) {
  auto store = OpenStore(g);
  if (!store.ok()) return Fail(g, store.error());
  auto exported = (*store)->Export(f.app);
  if (!exported.ok()) return Fail(g, exported.error());
  if (g.json || export_json) {
    std::cout << exported->dump(export_json && !g.json ? 2 : -1) << "\n";
    return kExitOk;
  }
  for (const auto& sig : (*exported)["signatures"]) {
    std::cout << EscapeForDisplay((*exported)["app"].get<std::string>()) << "  "
              << QuoteForDisplay(sig["title_pattern"].get<std::string>()) << "  "
              << EscapeForDisplay(sig["toolkit"].get<std::string>()) << "\n";
    for (const auto& t : sig["targets"]) {
      const auto& b = t["bounds"];
      char conf[16];
      std::snprintf(conf, sizeof conf, "%.2f", t["confidence"].get<double>());
      std::cout << "  [" << EscapeForDisplay(t["role"].get<std::string>()) << " "
                << QuoteForDisplay(t["label"].get<std::string>())
                << " id=" << EscapeForDisplay(t["id"].get<std::string>()) << " at=" << b["x"].get<int>() << ","
                << b["y"].get<int>() << " " << b["w"].get<int>() << "x" << b["h"].get<int>()
                << " source=" << EscapeForDisplay(t["source"].get<std::string>()) << " conf=" << conf
                << " hits=" << t["hits"].get<int>() << " misses=" << t["misses"].get<int>()
                << (t["stale"].get<bool>() ? " stale" : "")
                << (t["reliable"].get<bool>() ? " reliable" : "") << "]\n";
    }
  }
  return kExitOk;
}

int RunForget(const GlobalFlags& g, const MemoryFlags& f) {
  if (f.all == !f.app.empty()) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "memory forget takes an APP or --all (not both)"));
  }
  auto store = OpenStore(g);
  if (!store.ok()) return Fail(g, store.error());
  auto forgotten = f.all ? (*store)->ForgetAll() : (*store)->Forget(f.app);
  if (!forgotten.ok()) return Fail(g, forgotten.error());
  // The screen text OCR kept between calls is not kept per app: it goes
  // whole with any forget (a cache: the next read recognises again).
  {
    std::error_code ec;
    std::filesystem::remove(OcrCacheFile(), ec);
    if (ec) {
      return Fail(g, MakeError(ErrorCode::kUnavailable, "cannot delete the OCR cache " +
                                                            OcrCacheFile() + ": " + ec.message()));
    }
  }
  if (g.json) {
    std::cout << nlohmann::json{{"forgotten", *forgotten}, {"app", f.all ? "*" : f.app}}.dump()
              << "\n";
  } else {
    std::cout << "forgot " << *forgotten << " targets of "
              << (f.all ? "every app" : EscapeForDisplay(f.app)) << "\n";
  }
  return kExitOk;
}

}  // namespace

MemoryCommands AddMemoryCommands(CLI::App& app, GlobalFlags& g, TeachFlags& t, MemoryFlags& m) {
  MemoryCommands c;
  c.teach = app.add_subcommand(
      "teach",
      "remember a target by its label at a screen point (in the window there), kept "
      "across restarts and shown by observe and find");
  c.teach->add_option("LABEL", t.label, "what the target is (\"Save button\")")->required();
  c.teach->add_option("--at", t.at, "its centre, X,Y in screen pixels")->required();
  c.teach->add_option("--size", t.size, "its size, WxH (default 50x30)");
  c.teach->add_option("--role", t.role, "its role (default button)");
  auto* mem = app.add_subcommand("memory",
                                 "what uiscope learned about each app: list, show, "
                                 "forget, export");
  mem->require_subcommand(1);
  c.list = mem->add_subcommand("list", "apps learned about: targets, size, last seen");
  c.show = mem->add_subcommand("show", "the targets learned about APP");
  c.show->add_option("APP", m.app, "application name")->required();
  c.forget = mem->add_subcommand("forget", "delete what was learned about APP (or --all)");
  c.forget->add_option("APP", m.app, "application name");
  c.forget->add_flag("--all", m.all, "every application");
  c.exp = mem->add_subcommand("export", "what was learned about APP, as JSON");
  c.exp->add_option("APP", m.app, "application name")->required();
  for (CLI::App* cmd : {c.teach, c.list, c.show, c.forget, c.exp}) {
    cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
    cmd->add_option(
        "--session", g.session,
        "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
    cmd->add_option("--config", g.config, "configuration file (its \"memory\" key)");
    cmd->add_flag("--json", g.json, "machine-readable output");
  }
  return c;
}

int RunMemoryCommands(const MemoryCommands& c, const GlobalFlags& g, const TeachFlags& t,
                      const MemoryFlags& m) {
  if (c.teach->parsed()) return RunTeach(g, t);
  if (c.list->parsed()) return RunList(g);
  if (c.show->parsed()) return RunShow(g, m, false);
  if (c.forget->parsed()) return RunForget(g, m);
  if (c.exp->parsed()) return RunShow(g, m, true);
  return -1;
}

}  // namespace uiscope::cli
