// A fixture app whatever its toolkit, so that desktop tests are written once
// and run on GTK 3, GTK 4, Qt 5 Widgets and Chromium. For tests only.
//
// Every FixtureApp speaks the GTK3 fixture's control channel
// (tests/fixtures/gtk3_app/main.c): `geometry`, `widget NAME`, `move X Y`
// (frame top-left, answered once the window is there), `set-email T`,
// `set-password T`, `insert-row`, `click-login`, `status`, `quit`. Boxes are
// screen pixels. The GTK 3, GTK 4 and Qt apps answer on their stdin/stdout;
// Chromium's page (tests/fixtures/web/form.html) answers through the
// DevTools protocol (chromium_fixture.h), with geometry and moves done on its
// X window.
//
// For action tests, the Qt, GTK 4 and web fixtures also read their state
// back from the app itself, never through accessibility, with the verbs the
// GTK 3 fixture gains for issue 5: `text email|password`, `checked
// remember`, `value volume`, `scroll list`, `focus`, `later MS TEXT`; and
// `tab`, `rows`, `select-tab T`; the GTK 3 and Qt fixtures also `clicks
// remember` (how often the check box emitted its click signal).
//
// What differs between toolkits is stated here, not hidden:
// - `hang MS` exists on the native fixtures, not on Chromium.
// - GTK 4 (4.8) reports content boxes (inside CSS border and padding) as
//   accessible extents: its fixture also answers `content NAME` with them
//   (see tests/fixtures/gtk4_app/main.c).
// - GTK 3 and Qt have a menu bar; GTK 4 and the page have none.
// - `open-menu` (pop up the File menu) exists on Qt only.
//
// Failures are gtest failures plus a null return, as in desktop_fixture.h.
// Not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope::test {

enum class Toolkit { kGtk3, kGtk4, kQt5, kChromium };

// "gtk3", "gtk4", "qt5", "chromium" (test names, logs).
std::string_view ToolkitName(Toolkit toolkit);

struct AppOptions {
  int rows = 5;       // list rows "Row 1".."Row N"
  std::string title;  // window title; "" = "uiscope fixture"
  // Top-left corner of the window frame; default 100,80.
  std::optional<std::pair<int, int>> position;
  // AT-SPI application name for the native fixtures; "" = each fixture's
  // default. Chromium always calls itself "Chromium".
  std::string name;
};

class FixtureApp {
 public:
  virtual ~FixtureApp() = default;

  virtual Toolkit toolkit() const = 0;
  // The process that owns the app's windows and its accessibility root.
  virtual int pid() const = 0;
  // The application's name on the accessibility bus.
  virtual const std::string& app_name() const = 0;
  // Sends one control command; the answer without "ok " (kInternal for an
  // "error ..." answer, kTimeout when none came in time).
  virtual Result<std::string> Command(std::string_view command,
                                      milliseconds timeout = milliseconds(5000)) = 0;
  // The app's output so far (stderr and, for the native fixtures, nothing
  // else): for "the app logged no warning" checks.
  virtual std::string Log() const = 0;
  // Asks the app to quit and waits for it to exit.
  virtual Status Quit(milliseconds timeout = milliseconds(10000)) = 0;
  // Ends the app without asking it (SIGTERM, SIGKILL after `grace`), as a
  // crash would: for tests of what uiscope says about a dead app.
  virtual Status Terminate(milliseconds grace = milliseconds(2000)) = 0;

  // Command() for the commands answering "X Y W H".
  Result<ScreenBox> Box(std::string_view command, milliseconds timeout = milliseconds(5000));
};

// Starts `toolkit`'s fixture in `desktop` and waits until it is ready: drawn,
// placed, (Chromium) its page loaded, and its form in the accessibility tree
// (toolkits register on the bus a moment after they draw: GTK 4 well after).
// nullptr and a gtest failure (with the app's log) otherwise.
std::unique_ptr<FixtureApp> LaunchApp(TestDesktop& desktop, Toolkit toolkit,
                                      const AppOptions& options = {},
                                      milliseconds timeout = milliseconds(60000));

// Waits until the accessibility tree of process `pid` in `desktop` shows the
// fixtures' "Login" button with bounds. kTimeout (or the connection's
// error) otherwise.
Status WaitForAccessibleForm(TestDesktop& desktop, int pid, milliseconds timeout);

}  // namespace uiscope::test
