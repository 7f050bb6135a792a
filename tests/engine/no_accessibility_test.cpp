// Apps without accessibility are still apps (issue 15 §5), on a real
// headless desktop: xterm observed by --app and --pid from its X11 window,
// its OCR text acted on by ID in a later CLI process (where it was seen, then
// perceived again once its window moved), keys to its window by
// ID; a Tk window (no _NET_WM_PID) launched and closed; a launcher that
// hands its window over to a forked child and exits.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/perceive.h"
#include "support/desktop_fixture.h"

// Last: Xlib defines Status, None and Bool as macros.
#include <X11/Xlib.h>
#undef Status

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

struct CliRun {
  int exit_code = -1;
  std::string out;
  double ms = 0;
};

CliRun RunCli(const std::string& args) {
  std::string env = "env -u AT_SPI_BUS_ADDRESS OMP_THREAD_LIMIT=1";
  for (const auto& [k, v] : test::TestDesktop::Shared().Environment()) {
    env += " " + k + "='" + v + "'";
  }
  const std::string err = test::TestStateDir() + "/noa11y-stderr.txt";
  const std::string cmd = env + " " UISCOPE_CLI " " + args + " 2>" + err;
  CliRun r;
  const auto t0 = Clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = fopen(err.c_str(), "r")) {
    r.out += "\n[stderr] ";
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.out.append(buf.data(), n);
    fclose(f);
  }
  return r;
}

json Parse(const CliRun& r) {
  const size_t end = r.out.find("\n[stderr] ");
  return json::parse(r.out.substr(0, end), nullptr, false);
}

// The first node (preorder) of a json tree whose field `key` contains `part`.
json FindJson(const json& nodes, const std::string& key, const std::string& part) {
  for (const json& n : nodes) {
    if (n.contains(key) && n[key].is_string() &&
        n[key].get<std::string>().find(part) != std::string::npos) {
      return n;
    }
    if (n.contains("children")) {
      json found = FindJson(n["children"], key, part);
      if (!found.is_null()) return found;
    }
  }
  return nullptr;
}

// Moves the top-level window titled `title` by (dx, dy), as a person
// dragging it would, and waits until the window system lists it there.
bool MoveWindowBy(const std::string& title, int dx, int dy) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  WorkspaceOptions where;
  where.display = desktop.info().display_name;
  where.start_headless = false;
  Workspace workspace(where);
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok() || !lease->hands->windows) return false;
  WindowSystem& windows = *lease->hands->windows;
  auto find = [&]() -> std::optional<WindowInfo> {
    auto listed = windows.ListWindows();
    if (!listed.ok()) return std::nullopt;
    for (const WindowInfo& w : *listed) {
      if (w.title == title) return w;
    }
    return std::nullopt;
  };
  const auto before = find();
  if (!before) return false;
  Display* dpy = XOpenDisplay(where.display.c_str());
  if (dpy == nullptr) return false;
  // xterm keeps NorthWest gravity: the position asked for is the frame's
  // (ICCCM 4.1.2.3).
  const Rect frame = before->Covers();
  XMoveWindow(dpy, before->id, frame.x + dx, frame.y + dy);
  XFlush(dpy);
  XCloseDisplay(dpy);
  return test::WaitUntil(
      [&] {
        auto now = find();
        return now && now->bounds == before->bounds.Translated(dx, dy);
      },
      milliseconds(5000));
}

class NoAccessibilityDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(test::TestDesktop::Shared().ok()); }
};

TEST_F(NoAccessibilityDesktopTest, AnXtermIsObservedAndActedOnByIdAcrossCliCalls) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  SpawnOptions options;
  options.argv = {"xterm",
                  "-T",
                  "noa11y-xterm",
                  "-geometry",
                  "60x8+40+500",
                  "-fa",
                  "DejaVu Sans Mono",
                  "-fs",
                  "12",
                  "-e",
                  "printf 'uiscope clickable words\\n'; exec bash --norc --noprofile"};
  auto xterm = desktop.Launch(options);
  ASSERT_NE(xterm, nullptr);

  // By name (WM_CLASS) and by pid, from its X11 window.
  CliRun by_app;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        by_app = RunCli("observe --app xterm --format json");
        return by_app.exit_code == 0 && by_app.out.find("noa11y-xterm") != std::string::npos;
      },
      milliseconds(15000)))
      << by_app.out;
  json window = FindJson(Parse(by_app)["nodes"], "name", "noa11y-xterm");
  ASSERT_FALSE(window.is_null()) << by_app.out;
  EXPECT_EQ(window["source"], "x11");
  EXPECT_NE(by_app.out.find("no accessibility tree"), std::string::npos) << by_app.out;
  CliRun by_pid = RunCli("observe --pid " + std::to_string(xterm->pid()) + " --format json");
  ASSERT_EQ(by_pid.exit_code, 0) << by_pid.out;
  json same = FindJson(Parse(by_pid)["nodes"], "name", "noa11y-xterm");
  ASSERT_FALSE(same.is_null()) << by_pid.out;
  EXPECT_EQ(same["id"], window["id"]);
  // The whole desktop shows it too, with the same ID.
  CliRun all = RunCli("observe --format json");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  json in_all = FindJson(Parse(all)["nodes"], "name", "noa11y-xterm");
  ASSERT_FALSE(in_all.is_null()) << all.out;
  EXPECT_EQ(in_all["id"], window["id"]);

  // OCR of the window: its words get IDs; one is clicked by ID in another
  // process, which perceives again with OCR to find it.
  CliRun ocr;
  json word;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        ocr = RunCli("observe --app xterm --sources ax,ocr --format json");
        if (ocr.exit_code != 0) return false;
        word = FindJson(Parse(ocr)["nodes"], "name", "clickable");
        return !word.is_null();
      },
      milliseconds(20000)))
      << ocr.out;
  EXPECT_EQ(word["source"], "ocr");
  const std::string word_id = word["id"];
  CliRun click = RunCli("click " + word_id + " --json");
  ASSERT_EQ(click.exit_code, 0) << click.out;
  json clicked = Parse(click);
  EXPECT_EQ(clicked["via"], "xtest") << click.out;
  // Its window and pixels are as observed: acted on where it was, without
  // perceiving again (engine/pixel_ids.h).
  EXPECT_EQ(clicked["resolution"], "place") << click.out;
  EXPECT_EQ(click.out.find("perceiving again"), std::string::npos) << click.out;
  std::cout << "[ measured ] CLI click on an OCR ID of an earlier call, at its place: "
            << clicked["timing"]["resolve_ms"] << " ms to resolve, " << click.ms << " ms wall\n";

  // The window moved: the remembered place is stale, so the word is found
  // by perceiving again and clicked where it is now.
  const json& wb = word["bounds"];
  const Rect word_bounds{wb["x"].get<int>(), wb["y"].get<int>(), wb["w"].get<int>(),
                         wb["h"].get<int>()};
  ASSERT_TRUE(MoveWindowBy("noa11y-xterm", 40, -60));
  CliRun moved = RunCli("click " + word_id + " --json");
  ASSERT_EQ(moved.exit_code, 0) << moved.out;
  json after_move = Parse(moved);
  EXPECT_EQ(after_move["resolution"], "perceived") << moved.out;
  EXPECT_NE(moved.out.find("its window moved"), std::string::npos) << moved.out;
  ASSERT_EQ(after_move["points"].size(), 1u) << moved.out;
  const Point at{after_move["points"][0]["x"].get<int>(), after_move["points"][0]["y"].get<int>()};
  EXPECT_TRUE(word_bounds.Translated(40, -60).Contains(at))
      << "clicked at " << at.x << "," << at.y << ": " << moved.out;
  std::cout << "[ measured ] CLI click on it after its window moved (perceived again): "
            << after_move["timing"]["resolve_ms"] << " ms to resolve, " << moved.ms << " ms wall\n";

  // Keys to the window by its ID: typed into the shell, seen by OCR.
  const std::string id = window["id"];
  ASSERT_EQ(RunCli("type " + id + " 'echo typed $((6*7))77'").exit_code, 0);
  ASSERT_EQ(RunCli("keys --target " + id + " Return").exit_code, 0);
  CliRun seen;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        seen = RunCli("observe --app xterm --sources ax,ocr");
        return seen.out.find("typed 4277") != std::string::npos;
      },
      milliseconds(15000)))
      << seen.out;
  ::kill(xterm->pid(), SIGKILL);
}

// A key of an app without accessibility (xcalc), found by vision, acts by
// ID from a later call, and its effect — the display, not the key — is
// seen: nothing but pixels can show it, so a change anywhere in the key's
// window counts (issue 15 §8). The key's box alone said "none".
TEST_F(NoAccessibilityDesktopTest, AnXcalcKeyClickedByIdShowsItsEffectInTheDisplay) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  SpawnOptions options;
  options.argv = {"xcalc", "-geometry", "+300+200"};
  auto xcalc = desktop.Launch(options);
  ASSERT_NE(xcalc, nullptr) << "xcalc (Debian x11-apps, scripts/deps.sh) did not start";
  json seven;
  json window;
  CliRun observed;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        observed = RunCli("observe --app xcalc --format json");
        const json j = Parse(observed);
        if (!j.is_object() || !j.contains("nodes")) return false;
        window = FindJson(j["nodes"], "role", "window");
        json keys = window.is_object() ? window.value("children", json::array()) : json::array();
        seven = nullptr;
        for (const json& k : keys) {
          if (k.value("role", "") == "button" && k.value("name", "") == "7") seven = k;
        }
        return seven.is_object();
      },
      milliseconds(30000)))
      << "no key 7 found by vision: " << observed.out.substr(0, 2000);
  CliRun click = RunCli("click " + seven["id"].get<std::string>() + " --json");
  ASSERT_EQ(click.exit_code, 0) << click.out;
  const json r = Parse(click);
  ASSERT_TRUE(r.is_object()) << click.out;
  EXPECT_EQ(r.value("effect", ""), "observed") << click.out;
  // Where the pixels changed: the display, above the keys, not the key.
  const json changed = r["verification"]["pixels"].value("bounds", json());
  ASSERT_TRUE(changed.is_object()) << click.out;
  const json key = seven["bounds"];
  EXPECT_LT(changed["y"].get<int>() + changed["h"].get<int>(), key["y"].get<int>())
      << "the change " << changed.dump() << " is not above the key " << key.dump();
  const json frame = window["bounds"];
  EXPECT_GE(changed["y"].get<int>(), frame["y"].get<int>()) << changed.dump();
  (void)xcalc->Terminate();
}

TEST_F(NoAccessibilityDesktopTest, ATkWindowWithoutPidIsLaunchedListedAndClosed) {
  if (std::system("/usr/bin/python3 -c 'import tkinter' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-tk is not installed (scripts/deps.sh installs it)";
  }
  const std::string script = std::string(UISCOPE_NOA11Y_FIXTURES) + "/tk_app.py";
  CliRun launch = RunCli("app launch --json /usr/bin/python3 " + script + " noa11y-tk");
  std::cout << "[ measured ] app launch of a Tk window: " << launch.ms << " ms\n";
  ASSERT_EQ(launch.exit_code, 0) << launch.out;
  json launched = Parse(launch);
  ASSERT_FALSE(launched["window"].is_null()) << launch.out;
  EXPECT_EQ(launched["window"]["title"], "noa11y-tk");
  EXPECT_LT(launch.ms, 8000) << "it waited for accessibility long after the window was there";
  const std::string name = launched["window"]["app_instance"];

  // One name everywhere: `app list`, `windows`, `observe --app`.
  CliRun list = RunCli("app list --json");
  EXPECT_NE(list.out.find("\"" + name + "\""), std::string::npos) << list.out;
  CliRun observed = RunCli("observe --app " + name + " --format json");
  ASSERT_EQ(observed.exit_code, 0) << observed.out;
  EXPECT_FALSE(FindJson(Parse(observed)["nodes"], "name", "noa11y-tk").is_null()) << observed.out;

  CliRun close = RunCli("app close " + name + " --json");
  ASSERT_EQ(close.exit_code, 0) << close.out;
  EXPECT_TRUE(
      test::WaitUntil([&] { return RunCli("windows").out.find("noa11y-tk") == std::string::npos; },
                      milliseconds(5000)));
}

TEST_F(NoAccessibilityDesktopTest, ALauncherThatHandsItsWindowOverIsFollowed) {
  const std::string script = std::string(UISCOPE_NOA11Y_FIXTURES) + "/handover.sh";
  CliRun launch = RunCli("app launch --json " + script + " noa11y-handed-over");
  std::cout << "[ measured ] app launch through a launcher that exits: " << launch.ms << " ms\n";
  ASSERT_EQ(launch.exit_code, 0) << launch.out;
  json launched = Parse(launch);
  ASSERT_FALSE(launched["window"].is_null()) << launch.out;
  EXPECT_EQ(launched["window"]["title"], "noa11y-handed-over");
  const int pid = launched["pid"];
  EXPECT_EQ(launched["window"]["pid"], pid) << "the pid is the window's process";
  CliRun close = RunCli("app close " + std::to_string(pid) + " --json");
  ASSERT_EQ(close.exit_code, 0) << close.out;
  EXPECT_TRUE(test::WaitUntil(
      [&] { return RunCli("windows").out.find("noa11y-handed-over") == std::string::npos; },
      milliseconds(5000)));
}

// The same in one long-lived process, as the MCP server runs: one
// workspace and observer across calls, whose tree holds no OCR nodes
// between them; an OCR word's ID still acts.
TEST_F(NoAccessibilityDesktopTest, OneServerActsOnTheOcrIdOfAnXterm) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  SpawnOptions options;
  options.argv = {"xterm",
                  "-T",
                  "noa11y-server",
                  "-geometry",
                  "60x6+40+300",
                  "-fa",
                  "DejaVu Sans Mono",
                  "-fs",
                  "12",
                  "-e",
                  "printf 'uiscope serverside words\\n'; sleep 600"};
  auto xterm = desktop.Launch(options);
  ASSERT_NE(xterm, nullptr);
  // Managed first: an observation made while the window manager is still
  // framing the window keeps no place for its words (its window is not yet
  // listed), and the click below would rightly perceive again.
  ASSERT_TRUE(test::WaitUntil(
      [&] { return RunCli("windows").out.find("noa11y-server") != std::string::npos; },
      milliseconds(15000)));
  WorkspaceOptions where;
  where.display = desktop.info().display_name;
  where.start_headless = false;
  Workspace workspace(where);
  TextReader reader;
  Sources sources;
  sources.ocr = true;
  ObserveRequest scope;
  scope.pid = xterm->pid();
  std::string id;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        auto lease = workspace.Acquire();
        if (!lease.ok()) return false;
        auto seen = Perceive(*lease, scope, sources, &reader);
        if (!seen.ok()) return false;
        ForEachNode(seen->observation.snapshot.roots, [&](const Node& n, int) {
          if (id.empty() && n.source == Source::kOcr &&
              n.name.find("serverside") != std::string::npos) {
            id = n.id;
          }
        });
        return !id.empty();
      },
      milliseconds(20000)));
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  ASSERT_TRUE(lease.ok()) << lease.error().ToString();
  ActionRequest click;
  click.kind = ActionKind::kClick;
  click.target.id = id;
  auto clicked = PerformAction(*lease, click);
  ASSERT_TRUE(clicked.ok()) << clicked.error().ToString();
  EXPECT_EQ(clicked->via, "xtest");
  EXPECT_EQ(clicked->resolution, "place") << ::testing::PrintToString(clicked->notes);
  ::kill(xterm->pid(), SIGKILL);
}

}  // namespace
}  // namespace uiscope
