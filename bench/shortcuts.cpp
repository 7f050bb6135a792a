// bench/shortcuts: the shortcut registry read from an app's tree (issue 19:
// target <= 200 ms for gedit): one walk with hidden nodes (closed menus and
// popovers) and the parse, for gedit and the GTK 3 fixture in one headless
// desktop. The reference, measured in the same run: a default observe of the
// same app (showing nodes only), the walk every action already pays.
//
//   build/bin/bench_shortcuts [--runs N]
//
// Writes only to the tests' private state directory. Not part of the test
// suite.
#include "engine/shortcuts.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/workspace.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
constexpr double kTargetMs = 200;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Shows(Workspace& ws, const std::string& app) {
  return test::WaitUntil(
      [&] {
        auto lease = ws.Acquire();
        if (!lease.ok()) return false;
        ObserveRequest r;
        r.app = app;
        auto obs = lease->observer->Observe(r);
        return obs.ok() && obs->snapshot.stats.ax_nodes > 20;
      },
      milliseconds(60000));
}

void Measure(Workspace& ws, const std::string& app, int runs) {
  std::vector<double> registry_ms, observe_ms;
  size_t count = 0;
  for (int i = 0; i < runs; ++i) {
    auto lease = ws.Acquire();
    if (!lease.ok()) return;
    ShortcutsRequest r;
    r.app = app;
    const auto start = std::chrono::steady_clock::now();
    auto read = AppShortcuts(*lease, r, nullptr);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!read.ok()) {
      std::fprintf(stderr, "bench_shortcuts: %s: %s\n", app.c_str(), read.error().message.c_str());
      return;
    }
    registry_ms.push_back(ms);
    count = read->shortcuts.size();
    ObserveRequest o;
    o.app = app;
    const auto t0 = std::chrono::steady_clock::now();
    auto obs = lease->observer->Observe(o);
    if (!obs.ok()) return;
    observe_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double reg = Median(registry_ms);
  const double ref = Median(observe_ms);
  std::printf("| %s | %zu | %.1f ms | %.1f ms | %.2fx | %.2fx |\n", app.c_str(), count, reg, ref,
              reg / ref, reg / kTargetMs);
  std::fflush(stdout);
}

int Run(int runs) {
  test::TestDesktop desktop;
  if (!desktop.ok()) {
    std::fprintf(stderr, "bench_shortcuts: %s\n", desktop.error().c_str());
    return 1;
  }
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  Workspace ws(options);
  std::printf(
      "bench_shortcuts: the registry from the tree (walk with hidden nodes + parse + "
      "schema), median of %d, against a default observe of the same app\n\n",
      runs);
  std::printf("| app | shortcuts | registry | observe (reference) | ratio | vs 200 ms |\n");
  std::printf("|---|---|---|---|---|---|\n");
  auto fixture = desktop.LaunchFixture({"--name", "bench-reference"});
  if (!fixture || !Shows(ws, "bench-reference")) return 1;
  Measure(ws, "bench-reference", runs);
  if (std::system("command -v gedit >/dev/null 2>&1") != 0) {
    std::printf("| gedit | not installed | | | | |\n");
    return 0;
  }
  SpawnOptions o;
  o.argv = {"gedit", "--standalone"};
  auto gedit = desktop.Launch(o);
  if (!gedit || !Shows(ws, "gedit")) {
    std::fprintf(stderr, "bench_shortcuts: gedit did not show a window\n");
    return 1;
  }
  Measure(ws, "gedit", runs);
  (void)gedit->Terminate(milliseconds(3000));
  return 0;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  int runs = 9;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: bench_shortcuts [--runs N]\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  return uiscope::Run(runs);
}
