// MirrorBook: the per-application mirror of AT-SPI trees (issue 16), as
// plain data, so that what it serves is decided without D-Bus and tested
// with a fake event stream (tests/platform/atspi_mirror_test.cpp).
//
// The backend (AtspiAccessibility, with the mirror switched on) stores each
// application's last walk here, keyed by what shaped it (the request's
// limits, the screen, the app's X11 windows: see MirrorKeyFor in
// atspi_tree.cpp); its event thread (atspi_events.h) reports every AT-SPI
// event an application sends. A stored tree is served ("hit") only while
// the book can vouch for it:
// - the application has sent no event since the walk began (any event, of
//   any kind, on any of its objects, makes the next observation walk it);
// - its event stream is known to work: it has sent at least one event since
//   the book started listening (an app whose toolkit emits nothing would
//   otherwise be served its first tree forever);
// - after an action on it (input or accessibility), it has sent an event
//   since the action: an app that never reacts to actions with events (a
//   toolkit that does not report that effect) is walked every time;
// - the key is the same (a moved or resized window, another screen size,
//   other request limits);
// - the event stream was not lost since (the bus connection dropped): that
//   drops every tree, and walks begun before it are not stored.
// An application that leaves the bus (or restarts: a new bus name) loses
// its tree. Events are counted, not queued: a storm costs no memory, and no
// event is "dropped" from a queue that could overflow.
//
// Thread safety: every method may be called from any thread (one mutex);
// the event thread calls OnEvent / OnAppGone / OnStreamLost while the
// observing thread looks up and stores.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/node.h"

namespace uiscope::atspi {

class MirrorBook {
 public:
  // Where an application's event stream stood when a walk began: pass it to
  // Store() so that events that came during the walk keep the tree dirty.
  struct Mark {
    uint64_t generation = 0;  // of the whole stream (OnStreamLost counts up)
    uint64_t epoch = 0;       // of the app's record (a new one after OnAppGone)
    uint64_t events = 0;      // events seen from the application
  };

  // An event from the application with unique bus name `bus`, on the object
  // at `path` (kept for diagnostics only: any event dirties the whole app).
  void OnEvent(const std::string& bus, std::string_view path);
  // The application left the bus (NameOwnerChanged): its tree goes.
  void OnAppGone(const std::string& bus);
  // The event stream itself was lost (the bus connection dropped): nothing
  // stored can be vouched for any more.
  void OnStreamLost();
  // Something was done to the application (input, an accessibility action,
  // a text or value set): its tree is not served again until the app has
  // sent an event since and been walked after that event.
  void NoteActed(const std::string& bus);

  Mark MarkOf(const std::string& bus);
  // The tree stored for `bus` under `key`, when it can be vouched for (see
  // the top of this file); nullopt means "walk".
  std::optional<Node> Lookup(const std::string& bus, const std::string& key) const;
  // Stores the tree of a walk that began at `mark`. Not stored when the
  // stream was lost since `mark`; stored but dirty when the app sent events
  // since (the next Lookup walks again).
  void Store(const std::string& bus, const std::string& key, Mark mark, Node tree);
  void Drop(const std::string& bus);

  // Counts, for tests and benchmarks.
  size_t stored() const;
  uint64_t events_of(const std::string& bus) const;

 private:
  struct App {
    uint64_t epoch = 0;
    uint64_t events = 0;  // since the book started listening (or since the stream was lost)
    bool has_tree = false;
    std::string key;
    uint64_t events_at_walk = 0;
    bool acted = false;
    uint64_t events_at_act = 0;  // events when it was last acted on
    Node tree;
  };
  mutable std::mutex mutex_;
  uint64_t generation_ = 0;
  uint64_t next_epoch_ = 1;
  // The app's record, made (with a new epoch) when there is none.
  App& AppOf(const std::string& bus);
  std::unordered_map<std::string, App> apps_;
};

}  // namespace uiscope::atspi
