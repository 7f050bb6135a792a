#include "engine/desktop.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "engine/read_text.h"
#include "image/image_diff.h"
#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_desktop.h"
#include "session/headless_desktop.h"

namespace uiscope {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// ":3" and ":3.0" name the same display.
std::string DisplayBase(std::string d) {
  auto dot = d.rfind('.');
  if (dot != std::string::npos && dot > d.rfind(':')) d.resize(dot);
  return d;
}

// The title bar `band` of `screen` as dark ink on white, for OCR: each
// row's background (its median brightness: the text covers less) becomes
// white and what departs from it on the text's side becomes dark, in
// proportion. The text's side, and the departure taken as full ink, are
// those of the band's middle (its ends hold the buttons and the icon, often
// far brighter or darker than the title): so grey text on a light gradient
// (openbox Clearlooks, inactive) reads as well as white on blue, and an
// embossed title's one-pixel shadow, which departs less than its strokes,
// stays light.
Image TitleInk(const Image& screen, const Rect& band) {
  Image out = CropImage(screen, band);
  const int w = out.width;
  const int h = out.height;
  std::vector<int> dev(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    std::vector<int> row(static_cast<size_t>(w));
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = out.Pixel(x, y);
      row[static_cast<size_t>(x)] = (p[0] * 299 + p[1] * 587 + p[2] * 114) / 1000;
    }
    std::vector<int> sorted = row;
    std::nth_element(sorted.begin(), sorted.begin() + w / 2, sorted.end());
    const int median = sorted[static_cast<size_t>(w / 2)];
    for (int x = 0; x < w; ++x) dev[static_cast<size_t>(y) * w + x] = row[x] - median;
  }
  const int x0 = w > 4 * h ? 2 * h : 0;
  const int x1 = w > 4 * h ? w - 2 * h : w;
  int64_t darker = 0;
  int64_t lighter = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = x0; x < x1; ++x) {
      const int d = dev[static_cast<size_t>(y) * w + x];
      (d < 0 ? darker : lighter) += std::abs(d);
    }
  }
  const int sign = darker >= lighter ? -1 : 1;
  int reach = 1;
  for (int y = 0; y < h; ++y) {
    for (int x = x0; x < x1; ++x)
      reach = std::max(reach, sign * dev[static_cast<size_t>(y) * w + x]);
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int d = std::max(0, sign * dev[static_cast<size_t>(y) * w + x]);
      uint8_t* p = out.Pixel(x, y);
      p[0] = p[1] = p[2] = static_cast<uint8_t>(255 - std::min(255, d * 255 / reach));
    }
  }
  return out;
}

}  // namespace

// The title of a window found from its title bar: the OCR line of the band
// with the most letters and digits (the buttons read apart, as a glyph or
// two). One reader for the desktop's life, made on first use.
TitleReader OcrTitleReader() {
  auto reader = std::make_shared<TextReader>();
  return [reader](const Image& screen, const Rect& band) -> std::string {
    const Rect area = ClampToFrame(band, screen.width, screen.height);
    if (area.Empty()) return "";
    auto read = reader->ReadImage(TitleInk(screen, area), Point{area.x, area.y}, {});
    if (!read.ok()) return "";
    std::string best;
    size_t best_count = 0;
    for (const ocr::OcrLine& line : read->lines) {
      const size_t count = static_cast<size_t>(std::count_if(
          line.text.begin(), line.text.end(), [](unsigned char c) { return std::isalnum(c); }));
      if (count > best_count) {
        best = line.text;
        best_count = count;
      }
    }
    return best;
  };
}

DesktopTarget TargetOf(const DesktopInfo& session) {
  DesktopTarget t;
  t.display = session.display_name;
  t.dbus_address = session.dbus_address;
  t.session_id = session.id;
  t.backend = session.backend;
  t.password_file = session.password_file;
  return t;
}

Error DeadSession(const DesktopInfo& session) {
  const std::string what =
      session.backend == "vnc"
          ? "Start its VNC server again, or detach it with `uiscope session stop " + session.id +
                "` (MCP: session_stop)"
          : "Stop it with `uiscope session stop " + session.id +
                "` (MCP: session_stop) and start a new one";
  return MakeError(ErrorCode::kUnavailable, "session " + session.id + " (" + session.display_name +
                                                ") is dead (" + session.problem + "). " + what);
}

Result<DesktopTarget> ResolveDesktop(const std::string& display_flag,
                                     const std::string& session_flag) {
  if (!display_flag.empty() && !session_flag.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--display and --session both name a desktop: give one");
  }
  const std::string session_id = !session_flag.empty()  ? session_flag
                                 : display_flag.empty() ? Env("UISCOPE_SESSION")
                                                        : "";
  if (!session_id.empty()) {
    auto session = FindSession(session_id);
    if (!session.ok()) return session.error();
    if (!session->alive) return DeadSession(*session);
    return TargetOf(*session);
  }
  DesktopTarget t;
  std::string env_display = Env("DISPLAY");
  t.display = !display_flag.empty() ? display_flag : env_display;
  if (t.display.empty()) {
    return MakeError(ErrorCode::kUnavailable,
                     "no display: DISPLAY is not set and neither --display nor --session was "
                     "given. Start a headless desktop with `uiscope session start`, then export "
                     "the DISPLAY and DBUS_SESSION_BUS_ADDRESS it prints (or pass --display :N), "
                     "or attach a remote one with `uiscope session attach vnc://HOST:PORT` and "
                     "pass --session ID");
  }
  if (DisplayBase(t.display) == DisplayBase(env_display))
    t.dbus_address = Env("DBUS_SESSION_BUS_ADDRESS");
  // A display started by `uiscope session start` has its bus in the registry.
  if (auto sessions = ListSessions(); sessions.ok()) {
    for (const DesktopInfo& s : *sessions) {
      if (DisplayBase(s.display_name) == DisplayBase(t.display)) {
        if (!s.alive) return DeadSession(s);
        t.session_id = s.id;
        if (t.dbus_address.empty()) t.dbus_address = s.dbus_address;
      }
    }
  }
  return t;
}

Result<DesktopConnection> ConnectDesktop(const DesktopTarget& target, bool accessibility_mirror) {
  DesktopConnection conn;
  conn.target = target;
  if (target.backend == "vnc") {
    auto address = ParseVncAddress(target.display);
    if (!address.ok()) return address.error();
    VncOptions options;
    options.password_file = target.password_file;
    auto desktop = OpenVncDesktop(*address, options, OcrTitleReader());
    if (!desktop.ok()) return desktop.error();
    const ScreenCapture& screen = (*desktop)->capture();
    conn.frame = Frame{screen.screen_width(), screen.screen_height(), 1.0};
    conn.accessibility = NoAccessibility("the VNC desktop " + target.display);
    conn.desktop = std::move(desktop).value();
    return conn;
  }
  auto desktop = OpenX11Desktop(target.display);
  if (!desktop.ok()) return desktop.error();
  const ScreenCapture& screen = (*desktop)->capture();
  conn.frame = Frame{screen.screen_width(), screen.screen_height(), 1.0};

  AtspiOptions options;
  options.display = target.display;
  options.session_bus_address = target.dbus_address;
  options.mirror = accessibility_mirror;
  auto ax = ConnectAtspi(options);
  if (!ax.ok()) return ax.error();
  conn.accessibility = std::move(ax).value();
  conn.desktop = std::move(desktop).value();
  return conn;
}

}  // namespace uiscope
