#include "demo.h"

#include <thread>

#include "core/format.h"
#include "engine/act.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "engine/workspace.h"
#include "platform/capture.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

void Say(const DemoOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

const Node* FindIn(const std::vector<Node>& roots, int pid, Role role, const std::string& name) {
  const Node* found = nullptr;
  ForEachNode(roots, [&](const Node& n, int) {
    if (found == nullptr && n.pid == pid && n.role == role && n.name == name) found = &n;
  });
  return found;
}

// The agent's loop on the fixture's form, each step verified.
Status RunSteps(const DesktopInfo& info, int pid, DemoReport* report, const DemoOptions& options) {
  WorkspaceOptions where;
  where.display = info.display_name;
  where.start_headless = false;
  Workspace workspace(where);
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok()) return lease.error();
  auto obs = lease->observer->Observe(ObserveRequest{});
  if (!obs.ok()) return obs.error();
  const auto& roots = obs->snapshot.roots;
  const Node* email = FindIn(roots, pid, Role::kTextField, "Email");
  const Node* remember = FindIn(roots, pid, Role::kCheckBox, "Remember me");
  const Node* login = FindIn(roots, pid, Role::kButton, "Login");
  if (!email || !remember || !login) {
    return MakeError(ErrorCode::kNotFound, "the fixture's form is not in its accessibility tree");
  }
  struct Plan {
    std::string what;
    ActionRequest request;
  };
  std::vector<Plan> plan(3);
  plan[0].what = "type \"ada@example.org\" into the Email field " + email->id;
  plan[0].request.kind = ActionKind::kTypeText;
  plan[0].request.target.id = email->id;
  plan[0].request.text = "ada@example.org";
  plan[0].request.via = Via::kXTest;  // real key events, as a person types
  plan[1].what = "tick \"Remember me\" " + remember->id;
  plan[1].request.kind = ActionKind::kClick;
  plan[1].request.target.id = remember->id;
  plan[2].what = "click Login " + login->id;
  plan[2].request.kind = ActionKind::kClick;
  plan[2].request.target.id = login->id;
  for (Plan& step : plan) {
    Say(options, step.what + "...");
    auto result = PerformAction(*lease, step.request);
    if (!result.ok()) return result.error();
    DemoStep done;
    done.what = step.what;
    done.via = result->via;
    done.effect = result->verification ? result->verification->effect : "";
    done.report = FormatActionResult(*result);
    done.ms = result->total_ms;
    report->steps.push_back(std::move(done));
  }
  auto after = lease->observer->Observe(ObserveRequest{});
  if (!after.ok()) return after.error();
  ForEachNode(after->snapshot.roots, [&](const Node& n, int) {
    if (n.pid == pid && n.role == Role::kLabel && n.name.rfind("Logged in", 0) == 0) {
      report->final_status = n.name;
    }
  });
  return OkStatus();
}

}  // namespace

Result<DemoReport> RunDemo(const DemoOptions& options) {
  DemoReport report;
  Say(options, "starting a headless desktop (Xvfb, D-Bus, AT-SPI, openbox)...");
  auto desktop = HeadlessDesktop::Start();
  if (!desktop.ok()) return desktop.error();
  const DesktopInfo& info = (*desktop)->info();
  report.display = info.display_name;

  Say(options, "launching the GTK3 fixture on " + info.display_name + "...");
  SpawnOptions spawn;
  spawn.argv = {options.fixture_path, "--rows", std::to_string(options.rows)};
  spawn.capture_stdout = true;
  spawn.pipe_stdin = true;
  ApplySessionEnvironment(info, &spawn);
  auto app = Process::Spawn(spawn);
  if (!app.ok()) return app.error();
  auto ready = (*app)->ReadLine(std::chrono::seconds(15));
  if (!ready.ok() || ready->rfind("ready", 0) != 0) {
    return MakeError(ErrorCode::kTimeout, "the fixture app did not report ready within 15 s");
  }
  report.pid = (*app)->pid();

  DesktopTarget target{info.display_name, info.dbus_address, info.id};
  auto conn = ConnectDesktop(target);
  if (!conn.ok()) return conn.error();
  Observer observer(*conn->accessibility, conn->frame);
  ObserveRequest request;
  request.pid = report.pid;
  // The app registers on the accessibility bus shortly after it maps its
  // window; poll until it is there.
  Result<Observation> obs = MakeError(ErrorCode::kNotFound, "not observed yet");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    obs = observer.Observe(request);
    if (obs.ok() && !obs->snapshot.roots.empty() && !obs->snapshot.roots[0].children.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!obs.ok()) return obs.error();
  // Observe once more, warm: the number an agent sees on every later call.
  obs = observer.Observe(request);
  if (!obs.ok()) return obs.error();
  const Snapshot& snap = obs->snapshot;
  report.app = snap.roots.empty() ? "" : snap.roots[0].name;
  report.nodes = snap.stats.ax_nodes;
  report.observe_ms = snap.stats.latency_ms;
  auto text = FormatSnapshot(snap, FormatOptions{});
  if (!text.ok()) return text.error();
  report.tree = text->text;
  report.tree_chars = report.tree.size();
  report.tree_tokens = (report.tree_chars + 3) / 4;

  // The same window as pixels.
  const Node* window = nullptr;
  if (!snap.roots.empty() && !snap.roots[0].children.empty()) window = &snap.roots[0].children[0];
  if (window != nullptr && window->bounds) {
    auto capture = OpenScreenCapture(info.display_name);
    if (!capture.ok()) return capture.error();
    auto frame = (*capture)->CaptureRegion(*window->bounds);
    if (!frame.ok()) return frame.error();
    const Image* image = &frame->image;
    auto png = EncodePng(*image);
    if (!png.ok()) return png.error();
    report.png_bytes = png->size();
    report.window_width = image->width;
    report.window_height = image->height;
    report.image_tokens = static_cast<size_t>(image->width) * image->height / 750;
  }

  if (auto st = RunSteps(info, report.pid, &report, options); !st.ok()) return st.error();

  Say(options, "cleaning up...");
  conn->accessibility.reset();  // close our connections before their server goes
  (void)(*app)->WriteLine("quit");
  (void)(*app)->Terminate(std::chrono::milliseconds(2000));
  if (auto st = (*desktop)->Stop(); !st.ok()) return st.error();
  return report;
}

}  // namespace uiscope
