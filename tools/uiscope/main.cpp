// uiscope: the command-line interface (DESIGN §11).
//
// Human-readable output by default, `--json` for scripts. Exit codes: 0
// success, 1 the operation failed (not found, denied, timeout, no display),
// 2 usage error.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "audit_command.h"
#include "cli.h"
#include "clipboard_command.h"
#include "confirm_command.h"
#include "core/format.h"
#include "detector_flags.h"
#include "demo.h"
#include "engine/apps.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "engine/perceive.h"
#include "engine/workspace.h"
#include "find_command.h"
#include "hands_commands.h"
#include "mcp/http_options.h"
#include "mcp/serve.h"
#include "mcp/wire.h"
#include "memory_command.h"
#include "observe_diff_command.h"
#include "policy_flags.h"
#include "read_text_command.h"
#include "screenshot_command.h"
#include "session/a11y_env.h"
#include "session/headless_desktop.h"
#include "session/sessions.h"
#include "specialist_commands.h"
#include "web/web_site.h"

namespace uiscope {
namespace {

using cli::Fail;
using cli::GlobalFlags;
using cli::kExitFailed;
using cli::kExitOk;
using cli::kExitUsage;

// --- observe -----------------------------------------------------------------

struct ObserveFlags {
  std::string app;
  int pid = 0;
  std::string format = "compact";
  std::string sources;  // "" = ax, and pixels where no tree can be read
  int max_nodes = 0;
  int max_chars = 0;
  std::string cursor;
  bool all = false;
  bool fresh = false;
  int timeout_ms = 2000;
  std::string detector;  // vision's detector; "" = the default (vision/detector.h)
};

int RunObserve(const GlobalFlags& g, const ObserveFlags& f) {
  if (f.format == "diff") {
    return cli::RunObserveDiffCommand(
        g, {f.app, f.pid, f.sources, f.max_nodes, f.max_chars, f.all, f.timeout_ms});
  }
  auto format = ParseFormat(f.format);
  if (!format.ok()) return Fail(g, format.error());
  auto sources = ParseSources(CLI::detail::split(f.sources, ','));
  if (!sources.ok()) return Fail(g, sources.error());
  auto policy = cli::LoadPolicy(g);
  if (!policy.ok()) return Fail(g, policy.error());
  WorkspaceOptions where;
  where.display = g.display;
  where.session = g.session;
  where.start_headless = false;  // the CLI names the desktop; it never starts one
  where.hide_app = cli::HiddenApps(*policy);
  where.learner = cli::LearnerFor(*policy);
  Workspace workspace(where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());

  ObserveRequest request;
  request.app = f.app;
  request.pid = f.pid;
  request.include_hidden = f.all;
  request.fresh = f.fresh;
  request.timeout = std::chrono::milliseconds(f.timeout_ms);
  std::unique_ptr<TextReader> reader;
  if (sources->ocr || sources->vision) reader = cli::CliTextReader(*policy);
  auto detector = cli::CliDetector(f.detector);
  if (!detector.ok()) return Fail(g, detector.error());
  auto perceived = Perceive(*lease, request, *sources, reader.get(), {}, detector->get());
  if (!perceived.ok()) return Fail(g, perceived.error());
  Observation* obs = &perceived->observation;

  FormatOptions options;
  options.format = *format;
  options.max_nodes = f.max_nodes;
  options.max_chars = f.max_chars;
  options.cursor = f.cursor;
  if (lease->learner != nullptr) {
    options.learned_hits = [learner = lease->learner](const Node& n) {
      return learner->Hits(n.id);
    };
  }
  auto out = FormatSnapshot(obs->snapshot, options);
  if (!out.ok()) return Fail(g, out.error());

  for (const auto& w : obs->warnings) std::cerr << "uiscope: warning: " << w << "\n";
  if (g.json) {
    nlohmann::json j;
    if (out->json.is_null()) {
      // compact: the json format's envelope around the text tree.
      j = SnapshotEnvelope(obs->snapshot, *out);
      j["format"] = "compact";
      j["tree"] = out->text;
    } else {
      j = out->json;
    }
    j["format"] = std::string(FormatName(*format));
    j["display"] = lease->display;
    j["warnings"] = obs->warnings;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << out->text;
    if (!out->text.empty() && out->text.back() != '\n') std::cout << "\n";
  }
  return kExitOk;
}

// --- session -----------------------------------------------------------------

void PrintSession(const DesktopInfo& s, const SessionHealth& health) {
  std::cout << SessionLine(s, health);
  if (s.backend == "vnc") {
    if (!s.password_file.empty()) std::cout << "  password-file=" << s.password_file;
  } else {
    std::cout << "  xvfb=" << s.xvfb_pid << " dbus=" << s.dbus_pid << " wm=" << s.wm_pid;
  }
  if (s.owner_pid > 0) std::cout << "  owner=" << s.owner_pid;
  std::cout << "\n";
  if (health.health != "connected") {
    std::cout << "    "
              << (s.backend == "vnc"         ? "start its server again, or detach it"
                  : health.health == "stale" ? "clean up"
                                             : "see what hangs, or stop it")
              << " with `uiscope session stop " << s.id << "`\n";
  }
}

int RunSessionAttach(const GlobalFlags& g, const std::string& address,
                     const std::string& password_file) {
  auto info = AttachVncSession(address, password_file);
  if (!info.ok()) return Fail(g, info.error());
  if (g.json) {
    std::cout << ToJson(*info).dump() << "\n";
    return kExitOk;
  }
  std::cerr << "uiscope: session " << info->id << " is the VNC desktop " << info->url << " ("
            << info->width << "x" << info->height << "); use it with --session " << info->id
            << " or UISCOPE_SESSION=" << info->id << ", detach it with `uiscope session stop "
            << info->id << "`\n";
  // Only a shell assignment on stdout, as `session start` prints.
  std::cout << "export UISCOPE_SESSION='" << info->id << "'\n";
  return kExitOk;
}

int RunSessionStart(const GlobalFlags& g, const std::string& size, bool no_wm) {
  DesktopOptions options;
  if (!size.empty()) {
    int w = 0, h = 0;
    char extra = 0;
    if (std::sscanf(size.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w < 64 || h < 64 ||
        w > 16384 || h > 16384) {
      return Fail(
          g, MakeError(ErrorCode::kInvalidArgument,
                       "--size must be WxH between 64x64 and 16384x16384, got \"" + size + "\""));
    }
    options.width = w;
    options.height = h;
  }
  options.window_manager = !no_wm;
  auto desktop = HeadlessDesktop::Start(options);
  if (!desktop.ok()) return Fail(g, desktop.error());
  (*desktop)->Detach();
  const DesktopInfo& info = (*desktop)->info();
  if (g.json) {
    nlohmann::json j = ToJson(info);
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : SessionEnvironment(info)) env[k] = v;
    j["env"] = env;
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  std::cerr << "uiscope: session " << info.id << " started on " << info.display_name << " ("
            << info.width << "x" << info.height << "); stop it with `uiscope session stop "
            << info.id << "`\n";
  // Only shell assignments on stdout, so `eval "$(uiscope session start)"` works.
  // All of the session's: apps started from that shell get accessibility
  // as `app launch` gives it (GTK 2 and LibreOffice read only variables).
  for (const auto& [k, v] : SessionEnvironment(info)) {
    std::cout << "export " << k << "='" << v << "'\n";
  }
  return kExitOk;
}

// Each session is asked now, at once and with a deadline of its own
// (ProbeSessions): health, apps, size.
int RunSessionList(const GlobalFlags& g) {
  auto sessions = ListSessions();
  if (!sessions.ok()) return Fail(g, sessions.error());
  const std::vector<SessionHealth> health =
      ProbeSessions(*sessions, kSessionProbeDeadline, OcrTitleReader);
  if (g.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < sessions->size(); ++i)
      arr.push_back(SessionJson((*sessions)[i], health[i]));
    std::cout << nlohmann::json{{"sessions", arr}}.dump() << "\n";
    return kExitOk;
  }
  if (sessions->empty())
    std::cerr << "uiscope: no sessions (start one with `uiscope session start`)\n";
  for (size_t i = 0; i < sessions->size(); ++i) PrintSession((*sessions)[i], health[i]);
  return kExitOk;
}

// Without --force the session's apps are first asked to close; one that
// asks to save keeps the session running (exit 1), its question printed.
int RunSessionStop(const GlobalFlags& g, const std::string& id, bool force) {
  if (!force) {
    WorkspaceOptions options;
    options.session = id;
    options.start_headless = false;
    Workspace workspace(options);
    std::vector<CloseResult> asking;
    for (CloseResult& r : AskSessionAppsToClose(workspace, id, std::chrono::milliseconds(3000))) {
      if (r.stage == "asking") asking.push_back(std::move(r));
    }
    if (!asking.empty()) {
      if (g.json) {
        nlohmann::json apps = nlohmann::json::array();
        for (const CloseResult& r : asking) apps.push_back(CloseResultToJson(r));
        std::cout << nlohmann::json{{"stopped", nullptr}, {"asking", apps}}.dump() << "\n";
      }
      for (const CloseResult& r : asking) {
        std::cerr << "uiscope: " << SanitiseForDisplay(r.app.name, 80) << " (pid " << r.app.pid
                  << ") asks \"" << SanitiseForDisplay(r.question->title, 120) << "\"";
        if (!r.question->text.empty()) {
          std::cerr << ": " << SanitiseForDisplay(r.question->text, 500);
        }
        std::cerr << "\n";
        for (const AppQuestion::Button& b : r.question->buttons) {
          std::cerr << "  button \"" << SanitiseForDisplay(b.name, 80) << "\" " << b.id << "\n";
        }
      }
      std::cerr << "uiscope: session " << id
                << " not stopped: answer the question above, or stop it with `uiscope session "
                   "stop "
                << id << " --force` (unsaved work is lost)\n";
      return kExitFailed;
    }
  }
  if (auto st = StopSession(id); !st.ok()) return Fail(g, st.error());
  if (g.json) {
    std::cout << nlohmann::json{{"stopped", id}}.dump() << "\n";
  } else {
    std::cerr << "uiscope: session " << id << " stopped\n";
  }
  return kExitOk;
}

// `session a11y-on [ID]`: switches accessibility on for the apps of a desktop
// that is already running (a session, else the one $DBUS_SESSION_BUS_ADDRESS
// names) and prints the variables for apps started later.
int RunSessionA11yOn(const GlobalFlags& g, const std::string& id) {
  std::string bus;
  std::string where;
  if (!id.empty()) {
    auto info = FindSession(id);
    if (!info.ok()) return Fail(g, info.error());
    bus = info->dbus_address;
    where = "session " + id;
  } else {
    const char* env = std::getenv("DBUS_SESSION_BUS_ADDRESS");
    bus = env ? env : "";
    where = "the session bus " + bus;
  }
  if (bus.empty()) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "no desktop named: give a session ID (`uiscope session list`) or run "
                             "it where DBUS_SESSION_BUS_ADDRESS is set"));
  }
  if (auto st = EnableAccessibilityOnBus(bus); !st.ok()) return Fail(g, st.error());
  const auto env = AccessibilityEnvironment(LibreOfficeGtk3Installed());
  if (g.json) {
    nlohmann::json vars = nlohmann::json::object();
    for (const auto& [k, v] : env) vars[k] = v;
    std::cout << nlohmann::json{{"dbus_address", bus},
                                {"is_enabled", true},
                                {"screen_reader_enabled", true},
                                {"env", vars},
                                {"unset", AccessibilityUnsetEnvironment()}}
                     .dump()
              << "\n";
    return kExitOk;
  }
  std::cerr << "uiscope: org.a11y.Status IsEnabled and ScreenReaderEnabled set on " << where
            << " (Qt, GTK 4, Chromium and Electron apps switch on, running or not); apps "
               "started later also need the variables below (GTK 2, LibreOffice): eval them\n";
  for (const auto& [k, v] : env) std::cout << "export " << k << "='" << v << "'\n";
  for (const auto& k : AccessibilityUnsetEnvironment()) std::cout << "unset " << k << "\n";
  return kExitOk;
}

// --- demo --------------------------------------------------------------------

std::string FixturePath() {
  // The fixture is built next to the CLI (build/bin).
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string dir = n > 0 ? std::string(buf, n) : std::string();
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/uiscope-fixture-gtk3";
}

int RunDemoCommand(const GlobalFlags& g, int rows) {
  DemoOptions options;
  options.fixture_path = FixturePath();
  options.rows = rows;
  if (access(options.fixture_path.c_str(), X_OK) != 0) {
    return Fail(g, MakeError(ErrorCode::kUnavailable,
                             "the demo needs the GTK3 fixture app at " + options.fixture_path +
                                 "; build with tests enabled (scripts/build does)"));
  }
  options.progress = [](const std::string& line) { std::cerr << "uiscope: " << line << "\n"; };
  auto report = uiscope::RunDemo(options);
  if (!report.ok()) return Fail(g, report.error());
  const DemoReport& r = *report;
  if (g.json) {
    std::cout << nlohmann::json{{"display", r.display},
                                {"app", r.app},
                                {"pid", r.pid},
                                {"tree", r.tree},
                                {"nodes", r.nodes},
                                {"observe_ms", r.observe_ms},
                                {"tree_chars", r.tree_chars},
                                {"tree_tokens", r.tree_tokens},
                                {"png_bytes", r.png_bytes},
                                {"window",
                                 {{"width", r.window_width}, {"height", r.window_height}}},
                                {"image_tokens", r.image_tokens},
                                {"steps",
                                 [&] {
                                   nlohmann::json steps = nlohmann::json::array();
                                   for (const DemoStep& s : r.steps) {
                                     steps.push_back({{"what", s.what},
                                                      {"via", s.via},
                                                      {"effect", s.effect},
                                                      {"report", s.report},
                                                      {"ms", s.ms}});
                                   }
                                   return steps;
                                 }()},
                                {"final_status", r.final_status}}
                     .dump()
              << "\n";
    return kExitOk;
  }
  std::cout << "The fixture app \"" << r.app << "\" (pid " << r.pid << ") on " << r.display
            << ", as an agent sees it with `uiscope observe`:\n\n"
            << r.tree << "\n";
  std::printf("%d nodes observed in %.1f ms.\n", r.nodes, r.observe_ms);
  std::printf(
      "Tree: %zu characters (~%zu tokens). PNG screenshot of the same %dx%d window: %zu bytes "
      "(~%zu image tokens).\n",
      r.tree_chars, r.tree_tokens, r.window_width, r.window_height, r.png_bytes, r.image_tokens);
  if (r.png_bytes > 0) {
    std::printf("The tree is %.1fx smaller than the PNG, and every element has an ID to act on.\n",
                static_cast<double>(r.png_bytes) / static_cast<double>(r.tree_chars));
  }
  std::printf("\nThen the agent acts on those IDs, and each action reports what it changed:\n");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    std::printf("\n%zu. %s\n%s", i + 1, r.steps[i].what.c_str(), r.steps[i].report.c_str());
  }
  std::printf("\nFinal status label: \"%s\"\n", r.final_status.c_str());
  return r.final_status.empty() ? kExitFailed : kExitOk;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  using namespace uiscope;
  // Logs go to stderr: stdout carries results (--json) and, for `uiscope
  // mcp`, the protocol itself, which one stray log line would corrupt.
  spdlog::set_default_logger(spdlog::stderr_color_mt("uiscope"));
  CLI::App app{"uiscope: eyes and hands for AI agents on Linux desktop applications"};
  app.set_version_flag("--version", std::string("uiscope ") + UISCOPE_VERSION);
  app.require_subcommand(1);
  GlobalFlags g;
  app.add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  app.add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  app.add_flag("--json", g.json, "machine-readable output (same content as the MCP tool)");
  app.add_option("--config", g.config,
                 "safety policy file (default: $UISCOPE_CONFIG, else "
                 "~/.config/uiscope/config.json)");

  ObserveFlags of;
  auto* observe = app.add_subcommand("observe", "print the tree of what is on screen");
  observe->add_option("--app", of.app, "only this application (by name)");
  observe->add_option("--pid", of.pid, "only this process")->check(CLI::PositiveNumber);
  observe
      ->add_option("--format", of.format,
                   "compact | json | semantic | diff (only what changed since the previous "
                   "`observe --format diff`) | targets (the elements to act on, most relevant "
                   "first, with click points and what memory learned)")
      ->check(CLI::IsMember({"compact", "json", "semantic", "diff", "targets"}));
  observe->add_option("--sources", of.sources,
                      "perception sources, comma-separated: ax (accessibility), "
                      "ocr (adds text where the tree is blind: terminals, canvases), vision "
                      "(adds elements detected in the pixels: painted controls, apps without "
                      "accessibility). Default: ax, and the windows of apps that are not "
                      "answering or have no accessibility read by ocr and vision; naming "
                      "sources (--sources ax) gives exactly those; without ax (--sources vision, "
                      "vision,ocr) the detector runs on every window and only what the pixels "
                      "give is shown, under windows from X11");
  cli::AddDetectorOption(observe, of.detector);
  observe->add_option("--max-nodes", of.max_nodes, "at most N nodes in this page")
      ->check(CLI::NonNegativeNumber);
  observe->add_option("--max-chars", of.max_chars, "at most N characters in this page")
      ->check(CLI::NonNegativeNumber);
  observe->add_option("--cursor", of.cursor, "next page: the cursor printed by the previous page");
  observe->add_flag("--all", of.all, "include nodes that are not showing or scrolled out of view");
  observe->add_flag("--fresh", of.fresh,
                    "walk every application's tree, never serve one from the event-fed mirror "
                    "(a CLI call keeps none: it always walks; the MCP server keeps one)");
  observe->add_option("--timeout-ms", of.timeout_ms, "deadline per application")
      ->check(CLI::Range(10, 600000));
  observe->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  observe->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  observe->add_option("--config", g.config, "safety policy file (its deny_apps are not observed)");
  observe->add_flag("--json", g.json, "machine-readable output");

  cli::FindFlags ff;
  auto* find = cli::AddFindCommand(app, g, ff);
  cli::ScreenshotFlags sf;
  auto* screenshot = cli::AddScreenshotCommand(app, g, sf);
  cli::ReadTextFlags rf;
  auto* read_text = cli::AddReadTextCommand(app, g, rf);
  cli::AuditFlags af;
  auto* audit = cli::AddAuditCommand(app, g, af);
  cli::ConfirmFlags cf;
  auto* confirm = cli::AddConfirmCommand(app, g, cf);
  auto hands = cli::HandsCommands::Add(app, g);
  cli::ClipboardFlags clip;
  auto clipboard = cli::AddClipboardCommand(app, g, clip);
  cli::TeachFlags teach_flags;
  cli::MemoryFlags memory_flags;
  auto memory_cmds = cli::AddMemoryCommands(app, g, teach_flags, memory_flags);
  auto specialists = cli::SpecialistCommands::Add(app, g);

  auto* session = app.add_subcommand(
      "session", "desktops: start (headless) | attach (VNC) | list | stop | a11y-on");
  session->require_subcommand(1);
  std::string size;
  bool no_wm = false;
  auto* start =
      session->add_subcommand("start", "start a headless desktop and print its environment");
  start->add_option("--size", size, "screen size WxH (default 1920x1080)");
  start->add_flag("--no-wm", no_wm, "without a window manager");
  start->add_flag("--json", g.json, "machine-readable output");
  std::string attach_address, attach_password_file;
  auto* attach = session->add_subcommand(
      "attach", "attach a remote desktop over VNC as a session (read from pixels: OCR, vision)");
  attach
      ->add_option("ADDRESS", attach_address,
                   "vnc://HOST[:PORT] (port default 5900), HOST:N (display N, port 5900+N) or "
                   "HOST::PORT")
      ->required();
  attach->add_option("--password-file", attach_password_file,
                     "file whose first line is the VNC password (plain text; never logged)");
  attach->add_flag("--json", g.json, "machine-readable output");
  auto* list = session->add_subcommand(
      "list", "list sessions: backend, size, health, apps (each asked now, 3 s at most)");
  list->add_flag("--json", g.json, "machine-readable output");
  std::string stop_id;
  auto* stop = session->add_subcommand(
      "stop", "stop a session and everything in it (a VNC session is detached, left running)");
  stop->add_option("ID", stop_id, "session ID as printed by `session list`")->required();
  bool stop_force = false;
  stop->add_flag("--force", stop_force,
                 "end its apps even when one asks to save (unsaved work is lost); without it "
                 "they are asked to close first, and one that asks keeps the session running");
  stop->add_flag("--json", g.json, "machine-readable output");
  std::string a11y_id;
  auto* a11y_on = session->add_subcommand(
      "a11y-on",
      "switch accessibility on for a running desktop's apps (org.a11y.Status) and print the "
      "variables for apps started later");
  a11y_on->add_option("ID", a11y_id,
                      "session ID (default: the desktop of $DBUS_SESSION_BUS_ADDRESS)");
  a11y_on->add_flag("--json", g.json, "machine-readable output");

  mcp::ServeOptions mcp_options;
  mcp_options.version = UISCOPE_VERSION;
  std::string mcp_listen;
  auto* mcp_cmd = app.add_subcommand(
      "mcp", "serve MCP on stdio (default) or Streamable HTTP (--http HOST:PORT)");
  mcp_cmd->add_option("--http", mcp_listen,
                      "serve Streamable HTTP at http://HOST:PORT/mcp (port 0: any free port)");
  mcp_cmd
      ->add_option("--token", mcp_options.token,
                   "HTTP: the `Authorization: Bearer TOKEN` /mcp requires (default: a new random "
                   "one, printed on stderr)")
      ->envname("UISCOPE_MCP_TOKEN");
  mcp_cmd
      ->add_option("--page-token", mcp_options.page_token,
                   "HTTP: the web page's own token (default: a new random one, printed in the "
                   "page's URL on stderr); never the MCP token, so an agent cannot open it")
      ->envname("UISCOPE_PAGE_TOKEN");
  mcp_cmd->add_option("--allow-origin", mcp_options.allowed_origins,
                      "also accept requests from this browser Origin (repeatable)");
  mcp_cmd
      ->add_option("--max-message-bytes", mcp_options.max_message_bytes,
                   "refuse larger messages (default 16 MiB)")
      ->check(CLI::Range(size_t{1024}, size_t{1} << 30));
  // The HTTP limits a user may need to move: a machine running many agents
  // at once, or one that must be kept small. The deadlines and thread counts
  // keep their defaults (see mcp/http_options.h).
  const mcp::HttpOptions http_defaults;
  mcp_cmd
      ->add_option("--max-connections", mcp_options.max_connections,
                   "HTTP: connections open at once, event streams included; one more is "
                   "answered 503 with Retry-After (default " +
                       std::to_string(http_defaults.max_connections) +
                       ", lowered to fit `ulimit -n`)")
      ->check(CLI::Range(1, 1000000));
  mcp_cmd
      ->add_option("--max-sessions", mcp_options.max_sessions,
                   "HTTP: sessions in all; beyond, a new one ends an idle session of the client "
                   "holding the most (never a busy one: 503 when all are busy) (default " +
                       std::to_string(http_defaults.max_sessions) + ")")
      ->check(CLI::Range(1, 1000000));
  mcp_cmd
      ->add_option("--max-sessions-per-client", mcp_options.max_sessions_per_client,
                   "HTTP: sessions one client (its token and clientInfo.name) may hold; one more "
                   "ends its least recently used idle one (429 when all are busy) (default " +
                       std::to_string(http_defaults.max_sessions_per_client) + ")")
      ->check(CLI::Range(1, 1000000));
  mcp_cmd->add_flag("--full-schemas", mcp_options.full_schemas,
                    "publish everything in tools/list: every argument in every inputSchema, "
                    "the shared ones too (session, timeout_ms, settle_ms, via, "
                    "confirmation_token), each tool's outputSchema, and annotations at their "
                    "default values; for clients that pass only what a schema lists or validate "
                    "structured results (default: the shared arguments are described once, in "
                    "the server's instructions; results carry structuredContent without a "
                    "published outputSchema)");
  mcp_cmd->add_option("--config", g.config,
                      "safety policy file (default: $UISCOPE_CONFIG, else "
                      "~/.config/uiscope/config.json)");
  mcp_cmd->add_option("--display", g.display,
                      "X display to use (default: $DISPLAY, else a "
                      "headless desktop started on first need)");
  mcp_cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");

  // `uiscope web`: the same server, for a person: the page's URL (with a
  // token of its own) on stdout.
  mcp::ServeOptions web_options;
  web_options.version = UISCOPE_VERSION;
  web_options.web = true;
  std::string web_listen;
  int web_port = -1;
  auto* web_cmd = app.add_subcommand(
      "web", "serve the web page (sessions, confirmations, audit, memory) and print its URL");
  auto* web_http = web_cmd->add_option("--http", web_listen,
                                       "listen at HOST:PORT (default 127.0.0.1, any free port)");
  web_cmd->add_option("--port", web_port, "listen at 127.0.0.1:PORT")
      ->check(CLI::Range(0, 65535))
      ->excludes(web_http);
  web_cmd
      ->add_option("--token", web_options.page_token,
                   "the token the page's URL carries (default: a new random one)")
      ->envname("UISCOPE_PAGE_TOKEN");
  web_cmd->add_option("--allow-origin", web_options.allowed_origins,
                      "also accept requests from this browser Origin (repeatable)");
  web_cmd->add_option("--config", g.config, "safety policy file (as for mcp)");
  web_cmd->add_option("--display", g.display, "X display to use (as for mcp)");
  web_cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");

  int rows = 5;
  auto* demo = app.add_subcommand("demo",
                                  "start a headless desktop, observe the fixture app, act on it "
                                  "(type, tick, click; each verified), clean up");
  demo->add_option("--rows", rows, "list rows in the fixture app")->check(CLI::Range(1, 100000));
  demo->add_flag("--json", g.json, "machine-readable output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  if (observe->parsed()) return RunObserve(g, of);
  if (find->parsed()) return cli::RunFindCommand(g, ff);
  if (screenshot->parsed()) return cli::RunScreenshotCommand(g, sf);
  if (read_text->parsed()) return cli::RunReadTextCommand(g, rf);
  if (audit->parsed()) return cli::RunAuditCommand(g, af);
  if (confirm->parsed()) return cli::RunConfirmCommand(g, cf);
  if (auto code = hands->RunParsed()) return *code;
  if (auto code = specialists->RunParsed()) return *code;
  if (clipboard.get->parsed()) return cli::RunClipboardGetCommand(g, clip);
  if (clipboard.set->parsed()) return cli::RunClipboardSetCommand(g, clip);
  if (int code = cli::RunMemoryCommands(memory_cmds, g, teach_flags, memory_flags); code >= 0) {
    return code;
  }
  if (start->parsed()) return RunSessionStart(g, size, no_wm);
  if (attach->parsed()) return RunSessionAttach(g, attach_address, attach_password_file);
  if (list->parsed()) return RunSessionList(g);
  if (stop->parsed()) return RunSessionStop(g, stop_id, stop_force);
  if (a11y_on->parsed()) return RunSessionA11yOn(g, a11y_id);
  if (demo->parsed()) return RunDemoCommand(g, rows);
  if (mcp_cmd->parsed()) {
    mcp_options.display = g.display;
    mcp_options.session = g.session;
    mcp_options.config_path = g.config;
    if (!mcp_listen.empty()) {
      mcp_options.http = true;
      auto st = mcp::ParseListenAddress(mcp_listen, &mcp_options.http_host, &mcp_options.http_port);
      if (!st.ok()) return Fail(g, st.error());
    } else if (!mcp_options.token.empty() || !mcp_options.allowed_origins.empty() ||
               mcp_options.max_connections > 0 || mcp_options.max_sessions > 0 ||
               mcp_options.max_sessions_per_client > 0) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "--token, --allow-origin, --max-connections, --max-sessions and "
                               "--max-sessions-per-client apply to --http only"));
    }
    if (!mcp_options.page_token.empty() &&
        (!web::WebSite::IsPageSafeToken(mcp_options.page_token) ||
         mcp_options.page_token == mcp_options.token)) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "--page-token: use letters, digits and - . _ ~ only (the page's "
                               "URL carries it), and not the MCP token (an agent holds "
                               "that one)"));
    }
    const int max_sessions =
        mcp_options.max_sessions > 0 ? mcp_options.max_sessions : http_defaults.max_sessions;
    if (mcp_options.max_sessions_per_client > max_sessions) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "--max-sessions-per-client " +
                                   std::to_string(mcp_options.max_sessions_per_client) +
                                   " is more than the sessions in all (" +
                                   std::to_string(max_sessions) + "); raise --max-sessions too"));
    }
    return mcp::Serve(mcp_options);
  }
  if (web_cmd->parsed()) {
    web_options.display = g.display;
    web_options.session = g.session;
    web_options.config_path = g.config;
    web_options.http = true;
    if (!web_options.page_token.empty() && !web::WebSite::IsPageSafeToken(web_options.page_token)) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "--token: the page's URL carries it, so use letters, "
                               "digits and - . _ ~ only (or leave it out for a random one)"));
    }
    if (!web_listen.empty()) {
      auto st = mcp::ParseListenAddress(web_listen, &web_options.http_host, &web_options.http_port);
      if (!st.ok()) return Fail(g, st.error());
    } else if (web_port >= 0) {
      web_options.http_port = web_port;
    }
    return mcp::Serve(web_options);
  }
  return kExitUsage;
}
