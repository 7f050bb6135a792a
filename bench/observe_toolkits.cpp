// bench/observe_toolkits: observe latency and node counts on every toolkit
// uiscope is tested with: the GTK 3, Qt 5 and GTK 4 fixture apps and Chromium
// showing the fixture page, each with 5 rows and with 1000 rows, in one run
// on one headless desktop. One warm Observer per app (as the MCP server
// keeps), after one warm-up observation; the default (showing-only)
// snapshot, and for 1000 rows also the full one (--all).
//
//   build/bin/bench_observe_toolkits [--runs N] [--toolkits gtk3,qt5,gtk4,chromium]
//
// Uses the tests' fixture launchers (tests/support), so it is built with the
// tests.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_args.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;

struct Timing {
  int nodes = 0;
  double best_ms = 0;
  double median_ms = 0;
};

// `runs` observations of the app with `pid`, timed by the Observer's own
// stats.latency_ms (what `uiscope observe --json` reports).
Result<Timing> Measure(Observer& observer, int pid, bool include_hidden, int runs) {
  ObserveRequest request;
  request.pid = pid;
  request.include_hidden = include_hidden;
  request.timeout = milliseconds(20000);
  std::vector<double> all;
  Timing t;
  for (int i = 0; i < runs + 1; ++i) {
    auto obs = observer.Observe(request);
    if (!obs.ok()) return obs.error();
    if (i == 0) continue;  // warm-up: connections, app list, interned strings
    all.push_back(obs->snapshot.stats.latency_ms);
    t.nodes = obs->snapshot.stats.ax_nodes;
  }
  std::sort(all.begin(), all.end());
  t.best_ms = all.front();
  t.median_ms = all[all.size() / 2];
  return t;
}

int Run(int runs, const std::vector<test::Toolkit>& toolkits) {
  test::TestDesktop desktop;
  if (!desktop.ok()) {
    std::fprintf(stderr, "bench_observe_toolkits: %s\n", desktop.error().c_str());
    return 1;
  }
  DesktopTarget target{desktop.info().display_name, desktop.info().dbus_address, ""};
  auto conn = ConnectDesktop(target);
  if (!conn.ok()) {
    std::fprintf(stderr, "bench_observe_toolkits: %s\n", conn.error().ToString().c_str());
    return 1;
  }
  std::printf("bench_observe_toolkits: %d runs each after one warm-up (best / median of "
              "stats.latency_ms)\n\n",
              runs);
  std::printf("| toolkit | rows | snapshot | nodes | best | median | per node (best) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (test::Toolkit toolkit : toolkits) {
    for (int rows : {5, 1000}) {
      test::AppOptions options;
      options.rows = rows;
      auto app = test::LaunchApp(desktop, toolkit, options, milliseconds(120000));
      if (!app) {
        std::fprintf(stderr, "bench_observe_toolkits: %s did not start\n",
                     std::string(test::ToolkitName(toolkit)).c_str());
        ++failures;
        continue;
      }
      Observer observer(*conn->accessibility, conn->frame);
      for (bool all : {false, true}) {
        if (all && rows == 5) continue;
        auto t = Measure(observer, app->pid(), all, runs);
        if (!t.ok()) {
          std::fprintf(stderr, "bench_observe_toolkits: %s: %s\n",
                       std::string(test::ToolkitName(toolkit)).c_str(),
                       t.error().ToString().c_str());
          ++failures;
          continue;
        }
        std::printf("| %s | %d | %s | %d | %.1f ms | %.1f ms | %.0f us |\n",
                    std::string(test::ToolkitName(toolkit)).c_str(), rows,
                    all ? "all (--all)" : "default", t->nodes, t->best_ms, t->median_ms,
                    t->nodes > 0 ? t->best_ms * 1000 / t->nodes : 0.0);
        std::fflush(stdout);
      }
      (void)app->Quit(milliseconds(10000));
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  using uiscope::test::Toolkit;
  static const char kUsage[] =
      "usage: bench_observe_toolkits [--runs N] [--toolkits gtk3,qt5,gtk4,chromium]\n"
      "  observe latency per toolkit's fixture (state in a private temporary directory)\n";
  if (uiscope::bench::HelpAsked(argc, argv, kUsage)) return 0;
  int runs = 7;
  std::vector<Toolkit> toolkits = {Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kGtk4,
                                   Toolkit::kChromium};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
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
    std::fprintf(stderr, "bench_observe_toolkits: no known toolkit in --toolkits\n");
    return 2;
  }
  uiscope::bench::PrivateStateDir state;  // what the desktops' apps write
  return uiscope::Run(runs, toolkits);
}
