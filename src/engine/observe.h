// Observer: one observation of the desktop (DESIGN §5): the accessibility
// trees of the requested applications, stable IDs reconciled against the
// previous observation of the same Observer, and the stats of §11.
//
// The Observer takes the Accessibility interface, never a backend header, so
// it is tested with the fake accessibility of tests/support. Not thread-safe:
// one Observer per client session.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"
#include "platform/accessibility.h"

namespace uiscope {

struct ObserveRequest {
  std::string app;              // application name ("" = all)
  int pid = 0;                  // process (0 = all)
  bool include_hidden = false;  // also nodes that are not showing / scrolled out
  int max_depth = 64;
  int max_fetch_nodes = 20000;              // cap of the walk (the output budget is separate)
  std::chrono::milliseconds timeout{2000};  // per application
};

struct Observation {
  Snapshot snapshot;
  std::vector<std::string> warnings;
  int requests = 0;  // accessibility requests made
};

class Observer {
 public:
  Observer(Accessibility& accessibility, Frame frame)
      : accessibility_(accessibility), frame_(frame) {}

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

 private:
  Accessibility& accessibility_;
  Frame frame_;
  std::function<bool(const std::string&)> hide_app_;
  std::string previous_scope_;
  std::vector<Node> previous_roots_;
};

}  // namespace uiscope
