// Observer: one observation of the desktop (DESIGN §5): the accessibility
// trees of the requested applications, stable IDs reconciled against the
// previous observation of the same Observer, and the stats of §11.
//
// IDs are anchored to the apps' accessible objects (core/id_anchors.h): the
// Observer keeps the anchors of every app it saw, whatever the scope, and
// with an IdAnchorStore (set_anchor_store) shares them with every other
// process observing the desktop, so `observe`, `observe --all` and an
// action's re-observation, in one process or in several, give an object one
// ID.
//
// The Observer takes the Accessibility interface, never a backend header, so
// it is tested with the fake accessibility of tests/support. Not thread-safe:
// one Observer per client session.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/id_anchors.h"
#include "core/node.h"
#include "core/result.h"
#include "engine/id_anchor_store.h"
#include "engine/app_health.h"
#include "platform/accessibility.h"
#include "platform/windows.h"

namespace uiscope {

struct ObserveRequest {
  std::string app;              // application name ("" = all)
  int pid = 0;                  // process (0 = all)
  bool include_hidden = false;  // also nodes that are not showing / scrolled out
  int max_depth = 64;
  int max_fetch_nodes = 20000;              // cap of the walk (the output budget is separate)
  std::chrono::milliseconds timeout{2000};  // per application
  // The whole observation's deadline (no application is waited for past
  // it), for callers with a deadline of their own (wait_for); unset = none.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Walk every application even where the accessibility backend could serve
  // its tree from its mirror (TreeRequest::fresh).
  bool fresh = false;
};

struct Observation {
  Snapshot snapshot;
  std::vector<std::string> warnings;
  int requests = 0;  // accessibility requests made
  // Applications left out: not answering (busy or hung), or exited.
  std::vector<AppInfo> unanswered;
  std::vector<AppInfo> exited;
};

class CdpPages;  // engine/cdp_pages.h

class Observer {
 public:
  Observer(Accessibility& accessibility, Frame frame);
  ~Observer();
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  // Observes and assigns IDs, reconciled against the previous observation of
  // the same scope (same app / pid).
  Result<Observation> Observe(const ObserveRequest& request);

  // Re-observes only the application of process `pid` and splices its tree
  // into the last observation of every application (an Observe without app
  // or pid), with IDs reconciled exactly as a full observation would give
  // them; the other applications keep their last trees. An application that
  // has gone is removed. Much cheaper than observing everything on a busy
  // desktop: actions verify their effect this way. Without a previous full
  // observation it observes everything.
  Result<Observation> RefreshApp(int pid, std::chrono::milliseconds timeout,
                                 bool include_hidden = false);

  // Why the element `id` is missing from the last observation when its
  // application is to blame: a Timeout naming the application (name, pid)
  // that is not answering, or a Stale error naming one that exited. The
  // element's application is known when it was in an earlier observation;
  // an ID never seen is blamed on a non-answering application if there is
  // one (its elements could not be read). nullopt otherwise: then the ID is
  // simply not on screen.
  std::optional<Error> WhyMissing(std::string_view id) const;

  // The roots of the last observation (with IDs), empty before the first.
  const std::vector<Node>& last_roots() const { return previous_roots_; }
  // True when the last observation covered every application.
  bool last_was_full() const;

  const Frame& frame() const { return frame_; }

  // Applications this observer never reads nor reports (the safety policy's
  // deny list, DESIGN §8): true for an application name. Every path that
  // observes (observe, find, read_text's password masks, screenshot marks,
  // actions resolving IDs) goes through Observe() or RefreshApp(), so none
  // sees them.
  void set_hide_app(std::function<bool(const std::string& app_name)> hide_app) {
    hide_app_ = std::move(hide_app);
  }
  // Whether anything is hidden, and whether `app_name` is.
  bool hides_anything() const { return static_cast<bool>(hide_app_); }
  bool Hides(const std::string& app_name) const { return hide_app_ && hide_app_(app_name); }
  // The processes of the hidden applications on the accessibility bus now
  // (names only are asked for: their trees are never read). Empty when
  // nothing is hidden or the bus does not answer.
  std::vector<int> HiddenPids();

  // Keeps the ID anchors in `store` too (read before, written after each
  // observation); without one they live as long as this Observer.
  void set_anchor_store(std::unique_ptr<IdAnchorStore> store) { anchor_store_ = std::move(store); }

  // The windows of applications whose tree cannot be read (not answering,
  // or without accessibility: `--app xterm`) are taken from here as window
  // nodes with source x11 (engine/x11_windows_nodes.h). Null: they are left
  // out. Not owned; must outlive the observer.
  void set_windows(WindowSystem* windows) { windows_ = windows; }
  // Where the circuit breaker (engine/app_health.h) keeps the apps that are
  // not answering, so that separate processes (CLI calls) share it; "" (the
  // default) keeps it in memory.
  void set_app_health_file(std::string file) { health_ = AppHealth(std::move(file)); }
  // Whether the pages of Chromium and Electron apps are read over the
  // DevTools protocol where the app has an endpoint (engine/cdp_pages.h);
  // on by default. Off: AT-SPI alone, as for every other toolkit.
  void set_page_protocol(bool on);

 private:
  // Before AssignIds: the stored anchors of the apps in `roots`.
  void LoadAnchors(const std::vector<Node>& roots, std::vector<std::string>& warnings);
  // After AssignIds: stores the anchors of the apps in `roots` (only those of
  // process `only_pid` when not 0). After an observation of everything
  // (`alive` set: the bus names of the apps that did not answer), forgets
  // the apps that are gone.
  void KeepAnchors(const std::vector<Node>& roots, int only_pid,
                   const std::vector<AppInfo>* unanswered, std::vector<std::string>& warnings);
  // The circuit breaker's part of an observation (observe_breaker.cpp).
  // The apps it holds are not walked. A scoped request probes those in its
  // scope first; an observation of everything walks the others first and
  // probes them after (CloseBreaker), with what is left of its deadline, so
  // a hung app never takes the others' time.
  struct Breaker {
    std::vector<AppHealth::Record> silent;  // probed and still silent
    std::vector<std::string> skip_buses;
    bool deferred = false;  // not probed yet: CloseBreaker does
  };
  Breaker OpenBreaker(const ObserveRequest& request);
  // After the walk: apps that missed their deadline trip the breaker, those
  // that answered clear it; deferred probes run, an app that answers one is
  // walked now (`tree` as the observation's); the skipped ones join `obs`
  // with a warning, and the windows of every app left out are added from X11.
  void CloseBreaker(Breaker breaker, const ObserveRequest& request, const TreeRequest& tree,
                    Observation& obs);
  // Windows of apps without accessibility (no tree, no pid among the
  // trees'), as X11 app nodes: an observation of everything shows them too.
  void AddWindowsWithoutTree(Observation& obs);
  // Names unnamed accessible top-level windows by their X11 titles
  // (x11_windows_nodes.h), listing the windows only when one is unnamed.
  void NameUntitledWindows(std::vector<Node>& roots);
  // `observe --app` / `--pid` of an app the accessibility bus does not know
  // (or that is not answering): its X11 windows, when it has any.
  // `why` is the error of the walk, returned when there are no such windows.
  Result<Observation> X11Only(const ObserveRequest& request, const Error& why,
                              const Breaker& breaker);
  // X11 windows of the apps in `apps` (by pid), as application nodes.
  std::vector<Node> WindowNodesOf(const std::vector<AppInfo>& apps);
  // The X11 windows of process `pid`, as an application node named as the
  // last observation named it; empty when it has none.
  std::vector<Node> X11WindowsOfPid(int pid);
  bool HidesWindow(const WindowInfo& w) const;

  Accessibility& accessibility_;
  Frame frame_;
  std::function<bool(const std::string&)> hide_app_;
  // An application missing from the last observation through no choice of
  // the caller's, with the IDs its elements had when last seen.
  struct Absent {
    AppInfo app;
    bool exited = false;
    std::unordered_set<std::string> ids;
  };
  // Records the apps of `result` that did not answer or exited, taking their
  // IDs from the previous roots (or an earlier record). With `only_pid`, only
  // that app's record changes (RefreshApp); else all are replaced.
  void NoteAbsent(const std::vector<AppInfo>& unanswered, const std::vector<AppInfo>& exited,
                  int only_pid);

  std::string previous_scope_;
  std::vector<Node> previous_roots_;
  IdAnchors anchors_;
  std::unique_ptr<IdAnchorStore> anchor_store_;
  std::vector<Absent> absent_;
  AppHealth health_;
  WindowSystem* windows_ = nullptr;
  std::unique_ptr<CdpPages> pages_;
};

}  // namespace uiscope
