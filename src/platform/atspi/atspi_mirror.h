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
//   otherwise be served its first tree forever), or its toolkit is one known
//   to report every change to a registered listener (Store's `stream`:
//   kToolkit), so that an app at rest, which sends nothing, is served too;
// - after an action on it (input or accessibility), it has sent an event
//   since the action: an app that never reacts to actions with events (a
//   toolkit that does not report that effect) is walked every time. Not
//   for a toolkit trusted to report every change (StreamTrust::kToolkit):
//   until its reaction's events come, nothing it reports has changed, so
//   its tree is served (a verification's polls read it at no cost, and its
//   events then refresh it in part);
// - the key is the same (a moved or resized window, another screen size,
//   other request limits);
// - the event stream was not lost since (the bus connection dropped): that
//   drops every tree, and walks begun before it are not stored.
// An application that leaves the bus (or restarts: a new bus name) loses
// its tree. Events are counted, not queued: a storm costs no memory, and no
// event is "dropped" from a queue that could overflow.
//
// Which objects changed (the first step to refreshing a tree in part, issue
// 16 "only dirty subtrees are re-fetched"): besides counting, the book keeps
// the objects the events since the last walk named, each with what the
// event may have changed (EventChange, from ClassifyEvent), at most
// kMaxDirtyObjects distinct objects per app. Dirty() hands them out for a
// stored tree that would be served but for those events; an event that may
// have changed objects it does not name (kElsewhere), or more objects than
// the bound, makes Dirty() say "walk" (nullopt). The log is bounded too: a
// storm costs at most kMaxDirtyObjects entries per app.
// Tree() (atspi_tree.cpp) re-reads those objects into a copy of the stored
// tree and serves that ("cache: partial"), or walks the app when it cannot
// re-read them faithfully (see RefreshStored there).
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
#include <vector>

#include "core/node.h"

namespace uiscope::atspi {

// What an event may have changed, from the most local to the least.
enum class EventChange {
  // Only where the named object lies on the screen (BoundsChanged: GTK 3
  // sends one for every widget whose allocation changed, so the objects
  // that moved are each named). Its box is asked again; if it moved, its
  // subtree is read again (what it clips may have changed).
  kBounds,
  // The named object's own attributes: name, description, value, text,
  // states other than those in kSubtree.
  kAttributes,
  // The named object and what lies below it: its children (children-changed
  // names the parent), or whether it and its subtree are shown at all
  // (showing, visible, defunct, expanded...), a role change, a selection or
  // active descendant among its children, a table's rows.
  kSubtree,
  // Objects the event does not name may have changed too (bounds moved
  // siblings, a window or document changed, a parent was re-set), or the
  // event is not one the book knows: only a walk of the whole app is sure.
  kElsewhere,
};

// The change an AT-SPI event implies. `iface` is its interface after
// "org.a11y.atspi.Event." ("Object", "Window", "Focus", "Document"),
// `member` the signal ("StateChanged"), `detail` its first argument
// ("showing", "accessible-name"; "" when it has none).
EventChange ClassifyEvent(std::string_view iface, std::string_view member, std::string_view detail);

// Why an application's event stream may be trusted to report its changes.
enum class StreamTrust {
  // Only once it has carried an event (the app's toolkit is not known to
  // report changes: an unknown bridge, a toolkit that sends nothing).
  kOnceAnEventCame,
  // From the start: the toolkit's bridge sends an event for every change
  // once a listener registered (checked by the property test of
  // atspi_mirror_desktop_test, and on LibreOffice and Inkscape), and the
  // barrier (EventWatcher::Sync) proved the app saw the registration.
  kToolkit,
};

// Controls that a walk names by the label inside them, dropping the label
// (FoldRepeatedLabel in atspi_tree.cpp).
bool IsLabelledControl(Role r);

// One object of a stored tree read again for a refresh in part: its path
// (it is found by it in the stored tree) and the node a walk builds of it now
// with its subtree (nullopt: a walk would not show it: not showing any
// more, scrolled out, dead-empty).
struct Reread {
  std::string path;
  std::optional<Node> node;
};
// What of the toolkit the merge must know.
struct MergeRules {
  // The toolkit names every object whose box changed (BoundsChanged): a
  // read object that moved did not move what lies around it unnamed.
  bool sends_bounds_events = false;
  // Chromium: children stay in DOM order (not sorted by position), a
  // sizeless unnamed empty panel is left out, a label is named by its one
  // text leaf.
  bool chromium = false;
};
// A copy of `stored` (an application's tree from an earlier walk) with each
// read object in place of the stored one (removed when a walk would not show
// it), or nullopt when the copy would not be what a walk gives now, so that
// the caller walks (never serves stale data as fresh):
// - an object is not in the stored tree, or is the application or a window,
//   or lies inside another read object;
// - a node above it derives from its children what the walk shows of it: a
//   control named by the label inside it (through unnamed boxes), and on
//   Chromium a label named by its text leaf, or a panel that removing the
//   object would leave empty (a walk leaves such a panel out);
// - its box changed and the toolkit does not name every object that moved;
// - an object of another application is in it;
// - the order of its siblings, by position where the walk sorts them, no
//   longer holds with its new box (or some siblings lost or gained a box).
std::optional<Node> MergeRereads(const Node& stored, std::vector<Reread> reads,
                                 const MergeRules& rules);

class MirrorBook {
 public:
  // How many distinct objects the events since an app's walk may name for
  // its tree still to be refreshed in part (Dirty()). Why this bound: each
  // object costs at least one pipelined round of ~5 requests (more for a
  // subtree), and beyond a few dozen (a page switch, a list refilled, a
  // storm) the change is broad enough that the walk of a window's shown
  // nodes (a few hundred) costs about as much; it also bounds the book's
  // memory per app whatever the event rate. Not tuned to a fixture.
  static constexpr size_t kMaxDirtyObjects = 32;

  // An object named by the events since an app's walk, and the widest
  // change they imply for it.
  struct DirtyObject {
    std::string path;
    EventChange change = EventChange::kAttributes;
    bool operator==(const DirtyObject&) const = default;
  };

  // Where an application's event stream stood when a walk began: pass it to
  // Store() so that events that came during the walk keep the tree dirty.
  struct Mark {
    uint64_t generation = 0;  // of the whole stream (OnStreamLost counts up)
    uint64_t epoch = 0;       // of the app's record (a new one after OnAppGone)
    uint64_t events = 0;      // events seen from the application
  };

  // An event from the application with unique bus name `bus`, on the object
  // at `path`, that may have changed what `change` says (ClassifyEvent).
  // Every event makes Lookup() walk the app; the objects named are kept
  // for Dirty().
  void OnEvent(const std::string& bus, std::string_view path,
               EventChange change = EventChange::kElsewhere);
  // The application left the bus (NameOwnerChanged): its tree goes.
  void OnAppGone(const std::string& bus);
  // The event stream itself was lost (the bus connection dropped): nothing
  // stored can be vouched for any more.
  void OnStreamLost();
  // Something was done to the application (input, an accessibility action,
  // a text or value set): its tree is not served again until the app has
  // sent an event since and been walked after that event.
  void NoteActed(const std::string& bus);

  // A stored walk: its tree, and what its warnings said of it (where it was
  // cut: a table read by its visible cells, a cap), which a tree served
  // again must say again.
  struct Kept {
    Node tree;
    std::vector<std::string> warnings;
  };

  Mark MarkOf(const std::string& bus);
  // The walk stored for `bus` under `key`, when it can be vouched for (see
  // the top of this file); nullopt means "walk".
  std::optional<Kept> Lookup(const std::string& bus, const std::string& key) const;
  // Stores the tree of a walk that began at `mark`. Not stored when the
  // stream was lost since `mark`; stored but dirty when the app sent events
  // since (the next Lookup walks again). `stream`: whether it may be served
  // before the app has sent any event (see StreamTrust); `warnings`: what
  // the walk said of the tree.
  void Store(const std::string& bus, const std::string& key, Mark mark, Node tree,
             StreamTrust stream = StreamTrust::kOnceAnEventCame,
             std::vector<std::string> warnings = {});
  // For a stored tree that Lookup() refuses only because events came since
  // its walk (every other condition of the top of this file holds, and an
  // action on the app, if any, was answered by an event): the objects those
  // events named, in the order first named, each once with the widest
  // change. nullopt: no such tree, or a kElsewhere event, or more than
  // kMaxDirtyObjects objects: walk. Empty: no event since (Lookup() hits).
  std::optional<std::vector<DirtyObject>> Dirty(const std::string& bus,
                                                const std::string& key) const;
  // Dirty() and the stored walk it speaks of, read together (so that the
  // objects are those named since that walk): what a refresh in part needs.
  struct Refreshable {
    std::vector<DirtyObject> dirty;
    Kept kept;
  };
  std::optional<Refreshable> ForRefresh(const std::string& bus, const std::string& key) const;
  void Drop(const std::string& bus);

  // Counts, for tests and benchmarks.
  size_t stored() const;
  // The heap the stored trees hold, estimated from what they contain: each
  // node's struct, the capacity of every string and vector beyond their
  // inline storage, and 16 bytes of allocator overhead per allocation.
  size_t bytes() const;
  uint64_t events_of(const std::string& bus) const;

 private:
  struct App {
    uint64_t epoch = 0;
    uint64_t events = 0;  // since the book started listening (or since the stream was lost)
    bool has_tree = false;
    std::string key;
    uint64_t events_at_walk = 0;
    StreamTrust stream = StreamTrust::kOnceAnEventCame;
    bool acted = false;
    uint64_t events_at_act = 0;  // events when it was last acted on
    Kept kept;
    // The objects named by events, each with the count (`events` just
    // after it) of the last event naming it; Store() forgets those whose
    // last event is covered by the walk. `lost_at`: the count of the last
    // event that found the log full (its object is not in it).
    struct Logged {
      DirtyObject object;
      uint64_t last = 0;
    };
    std::vector<Logged> log;
    uint64_t lost_at = 0;
  };
  // The stream has carried an event before the stored walk, or needs none.
  static bool StreamVouched(const App& app);
  // Acted on, and its toolkit not known to report the action's effect: it
  // is walked until it has sent an event since the action.
  static bool ActGuarded(const App& app);
  // Dirty() with the lock held.
  std::optional<std::vector<DirtyObject>> DirtyLocked(const std::string& bus,
                                                      const std::string& key) const;
  mutable std::mutex mutex_;
  uint64_t generation_ = 0;
  uint64_t next_epoch_ = 1;
  // The app's record, made (with a new epoch) when there is none.
  App& AppOf(const std::string& bus);
  std::unordered_map<std::string, App> apps_;
};

}  // namespace uiscope::atspi
