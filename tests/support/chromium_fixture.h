// Chromium showing the local fixture page (tests/fixtures/web/form.html) in a
// headless desktop, driven through the DevTools protocol. For tests only.
//
// Started as a real, non-headless window on the session's Xvfb with
// accessibility on (ACCESSIBILITY_ENABLED=1 from the session environment,
// --force-renderer-accessibility) and the flags a root user needs
// (--no-sandbox, --test-type so no infobar warns about it, a fresh
// --user-data-dir), no network of any kind: the page is a file:// URL and
// the DevTools protocol runs over --remote-debugging-pipe (two FIFOs), not a
// port.
//
// The page mirrors the native fixtures' control channel
// (window.uiscopeControl); this class answers `geometry` and `move` from the
// X window, and turns the page's `widget NAME` boxes (CSS pixels of the
// viewport) into screen pixels with the viewport's screen origin. So the
// geometry tests compare uiscope's bounds (from Chromium's accessibility
// tree) with the DOM's getBoundingClientRect() plus the X window's position:
// two independent sources.
//
// Not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "session/process.h"
#include "support/fixture_app.h"

struct _XDisplay;  // Xlib's Display

namespace uiscope::test {

// Closes an Xlib display (XCloseDisplay).
struct XDisplayCloser {
  void operator()(_XDisplay* display) const;
};

// The DevTools protocol over Chromium's --remote-debugging-pipe: JSON
// messages ended by '\0', commands written to the browser's fd 3, answers
// and events read from its fd 4. Here fd 3 and 4 are FIFOs in a directory
// of the test, which the test opens first (read-write, so neither side
// blocks on open).
class DevToolsPipe {
 public:
  // Creates `dir`/devtools.in and `dir`/devtools.out and opens them.
  static Result<std::unique_ptr<DevToolsPipe>> Create(const std::string& dir);
  ~DevToolsPipe();
  DevToolsPipe(const DevToolsPipe&) = delete;
  DevToolsPipe& operator=(const DevToolsPipe&) = delete;

  // The FIFO the browser reads (its fd 3) and the one it writes (fd 4).
  const std::string& to_browser_path() const { return to_browser_path_; }
  const std::string& from_browser_path() const { return from_browser_path_; }

  // Sends `method` (to a page when `session` is set) and waits for its
  // answer; events in between are skipped. The "result" object, or kInternal
  // with the protocol's error message, or kTimeout.
  Result<nlohmann::json> Call(std::string_view method, const nlohmann::json& params,
                              const std::string& session, std::chrono::milliseconds timeout);

 private:
  DevToolsPipe(int to_browser, int from_browser, std::string to_path, std::string from_path)
      : to_browser_(to_browser),
        from_browser_(from_browser),
        to_browser_path_(std::move(to_path)),
        from_browser_path_(std::move(from_path)) {}

  int to_browser_;
  int from_browser_;
  std::string to_browser_path_;
  std::string from_browser_path_;
  std::string buffer_;  // bytes read after the last complete message
  int next_id_ = 1;
};

class ChromiumFixture final : public FixtureApp {
 public:
  ~ChromiumFixture() override;

  Toolkit toolkit() const override { return Toolkit::kChromium; }
  int pid() const override;
  const std::string& app_name() const override { return app_name_; }
  Result<std::string> Command(std::string_view command,
                              milliseconds timeout = milliseconds(5000)) override;
  std::string Log() const override;
  Status Quit(milliseconds timeout = milliseconds(10000)) override;
  Status Terminate(milliseconds grace = milliseconds(2000)) override;

  // Loads `url` in the page as the address bar would: a navigation no page
  // started (Sec-Fetch-Site: none). Returns once the browser took it.
  Status Navigate(const std::string& url, milliseconds timeout = milliseconds(10000));
  // Evaluates a JavaScript expression in the page; its value as a string.
  Result<std::string> Evaluate(const std::string& expression,
                               milliseconds timeout = milliseconds(5000));
  // X window ID of the browser window showing the page.
  unsigned long window() const { return window_; }

 private:
  friend std::unique_ptr<ChromiumFixture> LaunchChromium(TestDesktop&, const AppOptions&,
                                                         milliseconds);
  ChromiumFixture() = default;

  Result<ScreenBox> ClientBox() const;
  Result<std::pair<int, int>> FrameOrigin() const;
  Result<ScreenBox> MoveFrame(int x, int y, milliseconds timeout);
  Result<std::string> WidgetBox(std::string_view name, milliseconds timeout);

  std::string dir_;  // temporary: profile and FIFOs, removed with the fixture
  std::unique_ptr<DevToolsPipe> devtools_;
  std::unique_ptr<Process> process_;
  std::string log_file_;
  std::string session_;  // DevTools session attached to the page
  std::unique_ptr<_XDisplay, XDisplayCloser> display_;
  unsigned long window_ = 0;
  std::string app_name_ = "Chromium";
};

// Starts Chromium on the fixture page with `options` (rows and title go in
// the page's URL; the window is moved so its frame's top-left corner is at
// options.position, default 100,80) and waits until the page has loaded,
// its window is placed and the accessibility tree shows the form (the
// "Login" button). nullptr and a gtest failure with Chromium's log otherwise.
// Chromium is /usr/lib/chromium/chromium (Debian's `chromium` package), or
// `chromium` on PATH.
// The command line that shows the fixture page in its own Chromium window
// (--app) with a fresh profile in `profile_dir`, accessibility on, and the
// flags root needs; no DevTools pipe. For tests that launch Chromium as a
// user would, through uiscope's app_launch. The window is titled `title`.
std::vector<std::string> ChromiumAppCommand(const std::string& profile_dir,
                                            const std::string& title, int rows = 5);

// The same for any `url` (a file:// page of tests/fixtures/web).
std::vector<std::string> ChromiumUrlCommand(const std::string& profile_dir, const std::string& url);

std::unique_ptr<ChromiumFixture> LaunchChromium(TestDesktop& desktop,
                                                const AppOptions& options = {},
                                                milliseconds timeout = milliseconds(60000));

}  // namespace uiscope::test
