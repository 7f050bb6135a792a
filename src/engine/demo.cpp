#include "engine/demo.h"

#include <thread>

#include "core/format.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/ximage_capture.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

void Say(const DemoOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
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
    auto display = x11::X11Display::Open(info.display_name);
    if (!display.ok()) return display.error();
    auto image = x11::CaptureRegion(**display, *window->bounds);
    if (!image.ok()) return image.error();
    auto png = EncodePng(*image);
    if (!png.ok()) return png.error();
    report.png_bytes = png->size();
    report.window_width = image->width;
    report.window_height = image->height;
    report.image_tokens = static_cast<size_t>(image->width) * image->height / 750;
  }

  Say(options, "cleaning up...");
  conn->accessibility.reset();  // close our connections before their server goes
  (void)(*app)->WriteLine("quit");
  (void)(*app)->Terminate(std::chrono::milliseconds(2000));
  if (auto st = (*desktop)->Stop(); !st.ok()) return st.error();
  return report;
}

}  // namespace uiscope
