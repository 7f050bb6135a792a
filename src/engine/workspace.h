// Workspace: the desktops a long-running client (the MCP server) works on,
// each opened once and kept: its display connection, its accessibility bus
// and an Observer whose IDs stay stable from one call to the next.
//
// The default desktop is `--display` if given, else $DISPLAY, else (with
// `start_headless`) a headless desktop the workspace starts on first need
// and stops when it is destroyed; the lease that started it carries a note
// saying so, for the tool result. Other uiscope sessions are reached by ID.
//
// Thread safety: every method may be called from any thread; a Lease holds
// the workspace lock, so desktop work is serialised.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "session/headless_desktop.h"

namespace uiscope {

struct WorkspaceOptions {
  std::string display;         // --display; "" = $DISPLAY, else a headless desktop
  bool start_headless = true;  // start one when no display is known
  DesktopOptions headless;     // its size etc.
  // Applications no observer of this workspace reads (Observer::set_hide_app).
  std::function<bool(const std::string& app_name)> hide_app;
};

class Workspace {
 public:
  explicit Workspace(WorkspaceOptions options);
  // For tests and fuzzing: one desktop, ":fake", served by `accessibility`.
  Workspace(std::unique_ptr<Accessibility> accessibility, Frame frame);
  ~Workspace();  // stops the headless desktop it started, if any
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  struct Lease {
    Observer* observer = nullptr;
    // The desktop's X connection, for capture; null on a fake desktop.
    // Check broken(): a display whose server died needs Invalidate().
    x11::X11Display* display_connection = nullptr;
    std::string display;             // ":N"
    std::string session_id;          // the uiscope session owning it ("" = none)
    std::vector<std::string> notes;  // things the caller should tell the user
    std::unique_lock<std::mutex> lock;
  };

  // The desktop of uiscope session `session_id` ("" = the default one),
  // connected on first use. NotFound for an unknown session, Unavailable for
  // a dead one or no desktop at all (with what to do).
  Result<Lease> Acquire(const std::string& session_id = "");

  // Drops the connection to `display` after it failed (bus or X server
  // gone), so the next Acquire reconnects. Call with the lease released.
  void Invalidate(const std::string& display);

 private:
  struct Desktop {
    DesktopConnection connection;
    std::unique_ptr<Observer> observer;
  };

  Result<DesktopTarget> DefaultTarget(std::vector<std::string>* notes);
  Result<Desktop*> Open(const DesktopTarget& target);

  WorkspaceOptions options_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Desktop>> desktops_;  // by display
  std::unique_ptr<HeadlessDesktop> own_desktop_;              // started on first need
  bool fake_ = false;
};

}  // namespace uiscope
