// bench/observe_loop: the agent's loop (observe, act, observe) with the
// event-fed accessibility mirror (issue 16) against a full walk, on the
// GTK 3, Qt 5 and Chromium fixtures with 1000 rows, in one run on one
// headless desktop.
//
// Per toolkit, one warm Observer on a backend with the mirror (as the MCP
// server keeps) and one on a backend without (every observation walks, the
// CLI's way): the median of stats.latency_ms for
//   - walk:      an observation with fresh = true (the reference);
//   - unchanged: an observation of the app when nothing changed;
//   - one click: an observation right after the app's login button was
//     clicked (its status label renames to "Logged in as <new email>": the
//     fixture's set-email, an untimed observation, then click-login, and
//     the events of the click awaited: Chromium's travel from its renderer
//     after the command answered, and an observation before they arrive
//     would measure a hit of the tree before the click);
//   - verified click: the login button clicked by ID through the engine
//     (PerformAction, via auto as an agent gets it: the accessibility
//     action, the pointer for a Qt button in its focused window), with
//     its verification: the tree
//     read again (from the mirror) and the pixels compared until the
//     status label shows the new email. Wall time of the whole call, after
//     an untimed set-email and observation.
// Median and p95 of each; the cache column says how each observation was
// served (hit / partial / miss). Ratios are
// against the walk measured in the same run, and against a pyatspi full
// re-walk of the same app (bench/pyatspi_walk.py: role, name, states,
// extents, actions of every node, the way pyatspi agent tools read a tree;
// best of 3), the reference issue 16 names (target >= 20x in the loop),
// when /usr/bin/python3 has pyatspi.
//
//   build/bin/bench_observe_loop [--runs N] [--rows N] [--toolkits gtk3,qt5,chromium]
//                                [--via auto|accessibility|xtest]
//   (BENCH_LOOP_VERBOSE=1: each verified click's resolve / act / verify split
//   and what ended its wait; the table adds their medians and p95)
// --via accessibility presses the button through its accessibility action
// everywhere (Qt's Press action is an animated click: 100 ms pressed
// before it emits clicked); --via xtest clicks it with the pointer
// everywhere. The row counts which path each click took.
//
// Writes nothing outside the headless desktop's own temporary directory.
// Uses the tests' fixture launchers (tests/support), so it is built with the
// tests.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_args.h"
#include "engine/act.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "engine/workspace.h"
#include "platform/atspi/atspi_tree.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;

struct Timing {
  int nodes = 0;
  double median_ms = 0;
  double p95_ms = 0;
  std::map<std::string, int> cache;  // "hit" -> how many
};

// `runs` observations, each after `before` (a change, or nothing).
Result<Timing> Measure(Observer& observer, int pid, bool fresh, int runs,
                       const std::function<Status()>& before) {
  ObserveRequest request;
  request.pid = pid;
  request.fresh = fresh;
  request.timeout = milliseconds(20000);
  std::vector<double> all;
  Timing t;
  for (int i = 0; i < runs; ++i) {
    if (before) {
      if (auto st = before(); !st.ok()) return st.error();
    }
    auto obs = observer.Observe(request);
    if (!obs.ok()) return obs.error();
    all.push_back(obs->snapshot.stats.latency_ms);
    t.nodes = obs->snapshot.stats.ax_nodes;
    ++t.cache[obs->snapshot.stats.cache.empty() ? "-" : obs->snapshot.stats.cache];
  }
  std::sort(all.begin(), all.end());
  t.median_ms = all[all.size() / 2];
  t.p95_ms = all[std::min(all.size() - 1, all.size() * 95 / 100)];
  return t;
}

// pyatspi's full walk of the app of `pid` (best of `runs`), in ms; 0 when
// /usr/bin/python3 or pyatspi is missing. `env`: the desktop's session.
double PyatspiWalkMs(int pid, int runs, const std::vector<std::pair<std::string, std::string>>& env,
                     int* nodes) {
  if (access("/usr/bin/python3", X_OK) != 0) return 0;
  std::string cmd = "env";
  for (const auto& [k, v] : env) cmd += " " + k + "='" + v + "'";
  cmd += std::string(" /usr/bin/python3 ") + UISCOPE_PYATSPI_WALK + " " + std::to_string(pid) +
         " " + std::to_string(runs) + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return 0;
  double seconds = 0;
  if (std::fscanf(p, "%d %lf", nodes, &seconds) != 2) seconds = 0;
  pclose(p);
  return seconds * 1000;
}

std::string CacheText(const Timing& t) {
  std::string out;
  for (const auto& [what, n] : t.cache) {
    if (!out.empty()) out += " ";
    out += what + " " + std::to_string(n);
  }
  return out;
}

// Median and p95 of `all` (sorted here).
std::pair<double, double> MedianP95(std::vector<double> all) {
  if (all.empty()) return {0, 0};
  std::sort(all.begin(), all.end());
  return {all[all.size() / 2], all[std::min(all.size() - 1, all.size() * 95 / 100)]};
}

int Run(int runs, int rows, const std::vector<test::Toolkit>& toolkits, Via via) {
  test::TestDesktop desktop;
  if (!desktop.ok()) {
    std::fprintf(stderr, "bench_observe_loop: %s\n", desktop.error().c_str());
    return 1;
  }
  DesktopTarget target{desktop.info().display_name, desktop.info().dbus_address, ""};
  auto mirrored = ConnectDesktop(target, /*accessibility_mirror=*/true);
  auto walking = ConnectDesktop(target, /*accessibility_mirror=*/false);
  if (!mirrored.ok() || !walking.ok()) {
    std::fprintf(stderr, "bench_observe_loop: %s\n",
                 (!mirrored.ok() ? mirrored.error() : walking.error()).ToString().c_str());
    return 1;
  }
  std::printf(
      "bench_observe_loop: %d rows, median of %d observations each (stats.latency_ms)"
      "\n\n",
      rows, runs);
  // The engine's actions, on the same desktop, with a mirror as the MCP
  // server keeps one.
  for (const auto& [k, v] : desktop.Environment()) setenv(k.c_str(), v.c_str(), 1);
  WorkspaceOptions where;
  where.display = desktop.info().display_name;
  where.start_headless = false;
  where.accessibility_mirror = true;
  Workspace workspace(where);
  std::printf("| toolkit | nodes | case | median | p95 | cache | vs walk | vs pyatspi |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (test::Toolkit toolkit : toolkits) {
    const std::string name(test::ToolkitName(toolkit));
    test::AppOptions options;
    options.rows = rows;
    auto app = test::LaunchApp(desktop, toolkit, options, milliseconds(120000));
    if (!app) {
      std::fprintf(stderr, "bench_observe_loop: %s did not start\n", name.c_str());
      ++failures;
      continue;
    }
    Observer mirror(*mirrored->accessibility, mirrored->frame);
    Observer walker(*walking->accessibility, walking->frame);
    // One click that renames a label: a new email is typed and observed
    // (untimed), then the login button clicked, which sets the status label
    // to "Logged in as <email>".
    int clicks = 0;
    auto* backend = dynamic_cast<atspi::AtspiAccessibility*>(mirrored->accessibility.get());
    auto events_from = [&]() -> uint64_t {
      return backend != nullptr ? backend->MirrorEventsFrom(app->pid()) : 0;
    };
    auto click = [&]() -> Status {
      auto typed = app->Command("set-email user" + std::to_string(++clicks) + "@example.org");
      if (!typed.ok()) return typed.error();
      ObserveRequest settle;
      settle.pid = app->pid();
      settle.timeout = milliseconds(20000);
      if (auto obs = mirror.Observe(settle); !obs.ok()) return obs.error();
      const uint64_t events = events_from();
      auto answer = app->Command("click-login");
      if (!answer.ok()) return answer.error();
      // The click's events (the status label's), within 2 s.
      for (int i = 0; i < 400 && events_from() == events; ++i) {
        usleep(5000);
      }
      usleep(20000);  // the rest of the burst
      return OkStatus();
    };
    // The login button's ID, from the workspace's own observer.
    std::string login;
    {
      auto lease = workspace.Acquire();
      ObserveRequest scope;
      scope.pid = app->pid();
      scope.timeout = milliseconds(20000);
      auto obs = lease.ok() ? lease->observer->Observe(scope) : Result<Observation>(lease.error());
      if (obs.ok()) {
        ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
          if (login.empty() && n.role == Role::kButton && n.name == "Login") login = n.id;
        });
      }
    }
    // A verified click by ID: wall time of PerformAction.
    int observed = 0;
    std::vector<double> resolve_ms, act_ms, verify_ms;
    std::map<std::string, int> ended_by;
    std::map<std::string, int> via_used;  // which path each click took
    auto verified_click = [&](int runs, Timing* t) -> Status {
      std::vector<double> all;
      resolve_ms.clear();
      act_ms.clear();
      verify_ms.clear();
      ended_by.clear();
      via_used.clear();
      for (int i = 0; i < runs; ++i) {
        auto typed = app->Command("set-email user" + std::to_string(++clicks) + "@example.org");
        if (!typed.ok()) return typed.error();
        auto lease = workspace.Acquire("", Workspace::Need::kHands);
        if (!lease.ok()) return lease.error();
        ObserveRequest settle;
        settle.pid = app->pid();
        settle.timeout = milliseconds(20000);
        if (auto obs = lease->observer->Observe(settle); !obs.ok()) return obs.error();
        ActionRequest r;
        r.kind = ActionKind::kClick;
        r.target.id = login;
        r.via = via;
        const auto start = std::chrono::steady_clock::now();
        auto result = PerformAction(*lease, r);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        if (!result.ok()) return result.error();
        all.push_back(ms);
        if (result->verification && result->verification->effect == "observed") ++observed;
        ++via_used["via " + result->via];
        if (result->verification) {
          resolve_ms.push_back(result->resolve_ms);
          act_ms.push_back(result->act_ms);
          verify_ms.push_back(result->verification->waited_ms);
          ++ended_by[result->verification->ended_by];
        }
        if (std::getenv("BENCH_LOOP_VERBOSE") && result->verification) {
          std::fprintf(stderr,
                       "verified click: resolve %.1f act %.1f verify %.1f polls %d ended by %s\n",
                       result->resolve_ms, result->act_ms, result->verification->waited_ms,
                       result->verification->polls, result->verification->ended_by.c_str());
        }
      }
      std::sort(all.begin(), all.end());
      t->median_ms = all[all.size() / 2];
      t->p95_ms = all[std::min(all.size() - 1, all.size() * 95 / 100)];
      return OkStatus();
    };
    // Warm-up: connections, the app list, the first walk into the mirror
    // (an app's first events come with it).
    (void)Measure(mirror, app->pid(), false, 3, click);
    (void)Measure(walker, app->pid(), false, 1, nullptr);
    auto walk = Measure(walker, app->pid(), false, runs, nullptr);
    auto fresh = Measure(mirror, app->pid(), true, runs, nullptr);
    auto unchanged = Measure(mirror, app->pid(), false, runs, nullptr);
    auto clicked = Measure(mirror, app->pid(), false, runs, click);
    Timing verified;
    Status verified_status = login.empty()
                                 ? MakeError(ErrorCode::kNotFound, "no Login button in the tree")
                                 : verified_click(2, &verified);  // warm-up
    if (verified_status.ok()) {
      observed = 0;
      verified_status = verified_click(runs, &verified);
    }
    if (!verified_status.ok()) {
      std::fprintf(stderr, "bench_observe_loop: %s: verified click: %s\n", name.c_str(),
                   verified_status.error().ToString().c_str());
      ++failures;
    }
    for (auto* r : {&walk, &fresh, &unchanged, &clicked}) {
      if (!r->ok()) {
        std::fprintf(stderr, "bench_observe_loop: %s: %s\n", name.c_str(),
                     r->error().ToString().c_str());
        ++failures;
      }
    }
    if (!walk.ok() || !fresh.ok() || !unchanged.ok() || !clicked.ok()) continue;
    int py_nodes = 0;
    const double py_ms = PyatspiWalkMs(app->pid(), 3, desktop.Environment(), &py_nodes);
    auto ratio = [](double reference, double ms) -> std::string {
      if (reference <= 0 || ms <= 0) return "-";
      char text[32];
      std::snprintf(text, sizeof text, "%.1fx", reference / ms);
      return text;
    };
    auto row = [&](const std::string& what, const Timing& t) {
      std::printf("| %s | %d | %s | %.2f ms | %.2f ms | %s | %s | %s |\n", name.c_str(), t.nodes,
                  what.c_str(), t.median_ms, t.p95_ms, CacheText(t).c_str(),
                  ratio(walk->median_ms, t.median_ms).c_str(), ratio(py_ms, t.median_ms).c_str());
    };
    if (py_ms > 0) {
      std::printf("| %s | %d | pyatspi full walk (reference) | %.2f ms | - | - | - | 1.0x |\n",
                  name.c_str(), py_nodes, py_ms);
    } else {
      std::printf(
          "| %s | - | pyatspi: not available (/usr/bin/python3 without pyatspi) | - | - "
          "| - | - | - |\n",
          name.c_str());
    }
    row("walk (no mirror)", *walk);
    row("walk (fresh)", *fresh);
    row("unchanged", *unchanged);
    row("after one click", *clicked);
    if (verified_status.ok()) {
      verified.nodes = clicked->nodes;
      verified.cache["effect observed"] = observed;
      for (const auto& [path, n] : via_used) verified.cache[path] = n;
      row(via == Via::kAuto ? std::string("verified click by ID")
                            : "verified click by ID (via " + std::string(ViaName(via)) + ")",
          verified);
      if (std::getenv("BENCH_LOOP_VERBOSE")) {
        std::string ends;
        for (const auto& [what, n] : ended_by) ends += " " + what + " " + std::to_string(n);
        for (const auto& [what, list] :
             {std::pair{"resolve", &resolve_ms}, std::pair{"act", &act_ms},
              std::pair{"verify", &verify_ms}}) {
          const auto [median, p95] = MedianP95(*list);
          std::printf("|   | | %s | %.2f ms | %.2f ms | %s | | |\n", what, median, p95,
                      what == std::string("verify") ? ("ended by" + ends).c_str() : "");
        }
      }
    }
    std::fflush(stdout);
    (void)app->Quit(milliseconds(10000));
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  using uiscope::test::Toolkit;
  static const char kUsage[] =
      "usage: bench_observe_loop [--runs N] [--rows N] [--toolkits gtk3,qt5,gtk4,chromium]\n"
      "                          [--via auto|accessibility|xtest]\n"
      "  the agent's loop with the event-fed mirror against a full walk: median and p95\n"
      "  observe latency of an unchanged app and after one click, and of a verified click\n"
      "  by ID (PerformAction with its verification), per toolkit, beside a pyatspi walk\n";
  if (uiscope::bench::HelpAsked(argc, argv, kUsage)) return 0;
  int runs = 15;
  int rows = 1000;
  std::vector<Toolkit> toolkits = {Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kChromium};
  uiscope::Via via = uiscope::Via::kAuto;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
      rows = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--via") == 0 && i + 1 < argc) {
      const std::string v = argv[++i];
      auto parsed = uiscope::ParseVia(v);
      if (!parsed.ok()) return uiscope::bench::BadUsage(argv[i], kUsage);
      via = *parsed;
    } else if (std::strcmp(argv[i], "--toolkits") == 0 && i + 1 < argc) {
      toolkits.clear();
      std::string list = argv[++i];
      for (Toolkit t : {Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kGtk4, Toolkit::kChromium}) {
        if (list.find(uiscope::test::ToolkitName(t)) != std::string::npos) toolkits.push_back(t);
      }
    } else {
      return uiscope::bench::BadUsage(argv[i], kUsage);
    }
  }
  if (toolkits.empty()) {
    std::fprintf(stderr, "bench_observe_loop: no known toolkit in --toolkits\n");
    return 2;
  }
  uiscope::bench::PrivateStateDir state;  // what the desktops' apps write
  return uiscope::Run(runs, rows, toolkits, via);
}
