#include "read_text_command.h"

#include <iostream>
#include <mutex>
#include <optional>

#include "core/escape.h"
#include "engine/desktop.h"
#include "engine/read_text.h"
#include "engine/screenshot.h"
#include "mcp/wire.h"
#include "policy_flags.h"

namespace uiscope::cli {

CLI::App* AddReadTextCommand(CLI::App& app, GlobalFlags& g, ReadTextFlags& f) {
  auto* cmd = app.add_subcommand("read-text",
                                 "print the text on the screen, a region or a window, read by OCR");
  cmd->add_option("--region", f.region, "only this screen rectangle X,Y,W,H");
  cmd->add_option("--window", f.window,
                  "only this window: an X window ID (0x1e00007) or an element ID from observe");
  cmd->add_option("--scale", f.scale,
                  "magnification before OCR: 0 = automatic from the text height, else 0.5-4")
      ->check(CLI::Range(0.0, 4.0));
  cmd->add_option("--lang", f.lang, "Tesseract language(s), e.g. eng or eng+deu (default eng)");
  cmd->add_option("--timeout-ms", f.timeout_ms,
                  "deadline per application when locating password fields")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_option("--config", g.config, "safety policy file (its deny_apps are not read)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
  return cmd;
}

int RunReadTextCommand(const GlobalFlags& g, const ReadTextFlags& f) {
  ReadTextRequest request;
  if (!f.region.empty()) {
    auto region = ParseRegion(f.region);
    if (!region.ok()) return Fail(g, region.error());
    request.region = *region;
  }
  request.window = f.window;
  request.scale = f.scale;
  request.lang = f.lang;
  request.observe.timeout = std::chrono::milliseconds(f.timeout_ms);

  auto policy = LoadPolicy(g);
  if (!policy.ok()) return Fail(g, policy.error());
  auto target = ResolveDesktop(g.display, g.session);
  if (!target.ok()) return Fail(g, target.error());
  // The accessibility tree locates password fields (and window elements);
  // without it, pixels can still be read, with a warning from ReadText.
  std::optional<DesktopConnection> conn;
  std::optional<Observer> observer;
  std::unique_ptr<Desktop> x_only;
  std::string ax_error;
  if (auto c = ConnectDesktop(*target); c.ok()) {
    conn = std::move(c).value();
    observer.emplace(*conn->accessibility, conn->frame);
    observer->set_hide_app(HiddenApps(*policy));
  } else if (target->backend != "x11") {
    return Fail(g, c.error());  // a VNC desktop that cannot be reached has no other way in
  } else {
    ax_error = c.error().message;
    auto x = OpenX11Desktop(target->display);
    if (!x.ok()) return Fail(g, x.error());
    x_only = std::move(x).value();
  }
  std::mutex mutex;  // a lease holds a lock; nothing else contends here
  Workspace::Lease lease;
  lease.observer = observer ? &*observer : nullptr;
  lease.desktop = conn ? conn->desktop.get() : x_only.get();
  lease.capture = &lease.desktop->capture();
  lease.windows = &lease.desktop->windows();
  lease.display = target->display;
  lease.session_id = target->session_id;
  lease.lock = std::unique_lock(mutex);

  auto reader = CliTextReader(*policy);
  auto read = reader->Read(std::move(lease), request);
  if (!read.ok()) {
    if (!ax_error.empty() && !f.window.empty() && !ParseXWindowId(f.window)) {
      std::cerr << "uiscope: the accessibility bus is unreachable: " << ax_error << "\n";
    }
    return Fail(g, read.error());
  }
  for (const auto& w : read->warnings) {
    std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
  }
  if (!ax_error.empty()) std::cerr << "uiscope: accessibility: " << ax_error << "\n";
  if (g.json) {
    std::cout << ReadTextToJson(*read).dump() << "\n";
    return kExitOk;
  }
  if (read->ocr.text.empty()) {
    std::cerr << "uiscope: no text found in " << read->region.x << "," << read->region.y << ","
              << read->region.w << "," << read->region.h << "\n";
    return kExitOk;
  }
  std::cout << read->ocr.text << "\n";
  return kExitOk;
}

}  // namespace uiscope::cli
