// bench/observe: uiscope's full accessibility snapshot against a reference
// per-attribute libatspi walk (and pyatspi when /usr/bin/python3 has it) of
// the same tree, in one run, on the GTK3 fixture with --rows 1000; plus the
// default (showing-only) snapshot of the fixture with 5 rows (~100 nodes).
//
//   build/bin/bench_observe [--rows N] [--runs N]
#include "engine/observe.h"

#include <atspi/atspi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "engine/desktop.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The reference: libatspi with its default caching, one call per attribute.
int AtspiWalk(AtspiAccessible* obj) {
  int count = 1;
  GError* error = nullptr;
  atspi_accessible_get_role(obj, &error);
  g_clear_error(&error);
  g_free(atspi_accessible_get_name(obj, &error));
  g_clear_error(&error);
  g_object_unref(atspi_accessible_get_state_set(obj));
  AtspiComponent* component = atspi_accessible_get_component_iface(obj);
  if (component != nullptr) {
    g_free(atspi_component_get_extents(component, ATSPI_COORD_TYPE_SCREEN, &error));
    g_clear_error(&error);
    g_object_unref(component);
  }
  AtspiAction* action = atspi_accessible_get_action_iface(obj);
  if (action != nullptr) {
    int n = atspi_action_get_n_actions(action, &error);
    g_clear_error(&error);
    for (int i = 0; i < n; ++i) {
      g_free(atspi_action_get_action_name(action, i, &error));
      g_clear_error(&error);
    }
    g_object_unref(action);
  }
  int children = atspi_accessible_get_child_count(obj, &error);
  g_clear_error(&error);
  for (int i = 0; i < children; ++i) {
    AtspiAccessible* child = atspi_accessible_get_child_at_index(obj, i, &error);
    g_clear_error(&error);
    if (child != nullptr) {
      count += AtspiWalk(child);
      g_object_unref(child);
    }
  }
  return count;
}

AtspiAccessible* FindAtspiApp(int pid) {
  AtspiAccessible* desktop = atspi_get_desktop(0);
  int n = atspi_accessible_get_child_count(desktop, nullptr);
  for (int i = 0; i < n; ++i) {
    AtspiAccessible* app = atspi_accessible_get_child_at_index(desktop, i, nullptr);
    if (app != nullptr && static_cast<int>(atspi_accessible_get_process_id(app, nullptr)) == pid) {
      g_object_unref(desktop);
      return app;
    }
    if (app != nullptr) g_object_unref(app);
  }
  g_object_unref(desktop);
  return nullptr;
}

struct Timing {
  int nodes = 0;
  double best_ms = 1e18;
  double median_ms = 0;
};

template <typename Fn>
Timing Measure(int runs, Fn fn) {
  Timing t;
  std::vector<double> all;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    t.nodes = fn();
    all.push_back(Ms(Clock::now() - start));
  }
  std::sort(all.begin(), all.end());
  t.best_ms = all.front();
  t.median_ms = all[all.size() / 2];
  return t;
}

int Run(int rows, int runs) {
  auto desktop = HeadlessDesktop::Start();
  if (!desktop.ok()) {
    std::fprintf(stderr, "bench_observe: %s\n", desktop.error().message.c_str());
    return 1;
  }
  const DesktopInfo& info = (*desktop)->info();
  for (const auto& [k, v] : SessionEnvironment(info)) setenv(k.c_str(), v.c_str(), 1);

  auto launch = [&](int n) -> std::unique_ptr<Process> {
    SpawnOptions spawn;
    spawn.argv = {UISCOPE_FIXTURE_GTK3, "--rows", std::to_string(n)};
    spawn.capture_stdout = true;
    spawn.pipe_stdin = true;
    ApplySessionEnvironment(info, &spawn);
    auto p = Process::Spawn(spawn);
    if (!p.ok() || !(*p)->ReadLine(std::chrono::seconds(60)).ok()) return nullptr;
    return std::move(p).value();
  };
  auto big = launch(rows);
  auto small = launch(5);
  if (!big || !small) {
    std::fprintf(stderr, "bench_observe: the fixture did not start\n");
    return 1;
  }

  auto conn = ConnectDesktop(DesktopTarget{info.display_name, info.dbus_address, info.id});
  if (!conn.ok()) {
    std::fprintf(stderr, "bench_observe: %s\n", conn.error().message.c_str());
    return 1;
  }
  Observer observer(*conn->accessibility, conn->frame);
  int last_requests = 0;  // AT-SPI requests of the last observation
  auto observe = [&](int pid, bool all) {
    ObserveRequest r;
    r.pid = pid;
    r.include_hidden = all;
    r.timeout = std::chrono::seconds(30);
    auto obs = observer.Observe(r);
    last_requests = obs.ok() ? obs->requests : 0;
    return obs.ok() ? obs->snapshot.stats.ax_nodes : -1;
  };
  // Wait until both apps are on the bus with their windows.
  for (int i = 0; i < 200 && (observe(big->pid(), false) < 10 || observe(small->pid(), false) < 10);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  std::printf("bench_observe: GTK3 fixture, %d rows, %d runs each (best / median)\n\n", rows, runs);
  Timing ours = Measure(runs, [&] { return observe(big->pid(), true); });
  const int full_requests = last_requests;

  atspi_init();
  AtspiAccessible* app = FindAtspiApp(big->pid());
  if (app == nullptr) {
    std::fprintf(stderr, "bench_observe: libatspi does not see the fixture\n");
    return 1;
  }
  Timing ref = Measure(std::max(1, runs / 2), [&] { return AtspiWalk(app); });
  g_object_unref(app);

  auto per_node_us = [](const Timing& t) { return t.best_ms * 1000.0 / std::max(1, t.nodes); };
  std::printf("%-44s %6d nodes %9.1f ms %9.1f ms  %6.1f us/node\n",
              "uiscope full snapshot (all nodes)", ours.nodes, ours.best_ms, ours.median_ms,
              per_node_us(ours));
  std::printf("%-44s %6d nodes %9.1f ms %9.1f ms  %6.1f us/node\n",
              "libatspi per-attribute walk (reference)", ref.nodes, ref.best_ms, ref.median_ms,
              per_node_us(ref));
  std::printf("  -> uiscope is %.1fx faster per node than libatspi\n",
              per_node_us(ref) / per_node_us(ours));
  std::printf("  uiscope sent %d AT-SPI requests: %.2f per node, %.1f us per request\n",
              full_requests, static_cast<double>(full_requests) / std::max(1, ours.nodes),
              ours.best_ms * 1000.0 / std::max(1, full_requests));

  if (access("/usr/bin/python3", X_OK) == 0) {
    std::string cmd = std::string("/usr/bin/python3 ") + UISCOPE_PYATSPI_WALK + " " +
                      std::to_string(big->pid()) + " 1 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    int nodes = 0;
    double seconds = 0;
    if (p != nullptr && std::fscanf(p, "%d %lf", &nodes, &seconds) == 2 && nodes > 0) {
      double us = seconds * 1e6 / nodes;
      std::printf("%-44s %6d nodes %9.1f ms %12s  %6.1f us/node\n", "pyatspi walk (reference)",
                  nodes, seconds * 1000, "", us);
      std::printf("  -> uiscope is %.1fx faster per node than pyatspi\n", us / per_node_us(ours));
    } else {
      std::printf("pyatspi: not available (/usr/bin/python3 without pyatspi)\n");
    }
    if (p != nullptr) pclose(p);
  }

  Timing shown = Measure(runs, [&] { return observe(big->pid(), false); });
  std::printf("\n%-44s %6d nodes %9.1f ms %9.1f ms  (%d requests)\n",
              "uiscope default snapshot, 1000-row app", shown.nodes, shown.best_ms,
              shown.median_ms, last_requests);
  Timing hundred = Measure(runs, [&] { return observe(small->pid(), false); });
  std::printf("%-44s %6d nodes %9.1f ms %9.1f ms  (target <= 15 ms; %d requests)\n",
              "uiscope default snapshot, 5-row app", hundred.nodes, hundred.best_ms,
              hundred.median_ms, last_requests);
  (void)small->Terminate();
  (void)big->Terminate();
  return 0;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  static const char kUsage[] =
      "usage: bench_observe [--rows N] [--runs N]\n"
      "  the full accessibility snapshot of the fixture with N rows against a libatspi (and\n"
      "  pyatspi) walk of the same tree, in a headless desktop of its own\n";
  if (uiscope::bench::HelpAsked(argc, argv, kUsage)) return 0;
  int rows = 1000, runs = 5;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 < argc && std::strcmp(argv[i], "--rows") == 0) {
      rows = std::atoi(argv[i + 1]);
    } else if (i + 1 < argc && std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[i + 1]);
    } else {
      return uiscope::bench::BadUsage(argv[i], kUsage);
    }
  }
  uiscope::bench::PrivateStateDir state;  // the desktop's registry and what its apps write
  return uiscope::Run(std::max(1, rows), std::max(1, runs));
}
