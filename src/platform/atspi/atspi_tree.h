// AtspiAccessibility: the AT-SPI2 backend of Accessibility, on raw libdbus.
//
// Why not libatspi: its walk makes one blocking D-Bus round trip per
// attribute (~0.1–0.3 ms each here), and ATSPI_CACHE_NONE can deadlock. This
// backend pipelines every request of a walk (DbusConnection::Pipeline) and,
// when an application offers one (atk-bridge's GetApplicationBusAddress),
// talks to it on its private peer-to-peer socket so the bus daemon is not a
// second hop for every message.
//
// Per node it asks, all in flight at once: the Accessible properties
// (name, description, child count), role, state set and screen extents; then,
// only for showing nodes, children, actions (interactive roles) and value
// (text fields, sliders — never password fields). Nodes that are not showing,
// or lie outside their scrolled viewport or the screen, are pruned with their
// subtrees unless TreeRequest::include_hidden is set. Each application has its
// own deadline, all within the request's; cycles, self-parents and dead
// objects are skipped.
//
// A hung application must not hide the others: an app that answers nothing
// within a short probe (kFirstReplyProbe) is set aside, the others are
// walked, and it gets what is left of its deadline last. An app whose
// private socket closes mid-walk has exited (not a bus failure).
//
// With AtspiOptions::mirror (long-running processes: the MCP server), each
// application's last walk is kept in a MirrorBook (atspi_mirror.h) and
// served again while the application's events (atspi_events.h) say nothing
// changed: TreeResult::cache says "hit" then, "miss" after a walk. When
// events named a few objects (MirrorBook::Dirty), only those are read again,
// each with its subtree and in the context a walk gives it, into a copy of
// the stored tree ("partial"; RefreshStored in atspi_tree.cpp); what cannot
// be re-read faithfully is walked.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "platform/accessibility.h"
#include "platform/atspi/atspi_events.h"
#include "platform/atspi/atspi_mirror.h"
#include "platform/atspi/dbus_connection.h"
#include "platform/windows.h"
#include "platform/x11/x11_display.h"

namespace uiscope::atspi {

class AtspiAccessibility final : public Accessibility {
 public:
  static Result<std::unique_ptr<AtspiAccessibility>> Connect(const AtspiOptions& options);

  Result<std::vector<AppInfo>> ListApps() override;
  Result<TreeResult> Tree(const TreeRequest& request) override;
  std::vector<Liveness> Probe(const std::vector<AppInfo>& apps,
                              std::chrono::milliseconds timeout) override;

  // Acting on elements: atspi_actions.cpp.
  void NoteActed(int pid) override;
  // The mirror's count (MirrorEventsFrom) while its event stream is up.
  std::optional<uint64_t> EventsFrom(int pid) override {
    if (!book_ || !events_ || !events_->alive() || pid <= 0) return std::nullopt;
    return MirrorEventsFrom(pid);
  }

  Result<ElementCapabilities> Capabilities(const Node& node,
                                           std::chrono::milliseconds timeout) override;
  Status DoAction(const Node& node, std::string_view action,
                  std::chrono::milliseconds timeout) override;
  Status SetText(const Node& node, std::string_view text,
                 std::chrono::milliseconds timeout) override;
  Status SetValue(const Node& node, double value, std::chrono::milliseconds timeout) override;
  Status GrabFocus(const Node& node, std::chrono::milliseconds timeout) override;
  Result<std::string> ChooseOption(const Node& node, std::string_view option,
                                   std::chrono::milliseconds timeout) override;

  // Tests only: the mirror's event stream is lost from now on, as if the
  // bus had dropped it (EventWatcher::BreakForTest); the next Tree() starts
  // listening again.
  void BreakEventStreamForTest() {
    if (events_) events_->BreakForTest();
  }
  // Tests and benchmarks: the heap the mirror's stored trees hold
  // (MirrorBook::bytes); 0 without a mirror.
  size_t MirrorBytes() const { return book_ ? book_->bytes() : 0; }
  // Tests and benchmarks: how many events the mirror has counted from the
  // applications of process `pid` seen by Tree() (MirrorBook::events_of); 0
  // without a mirror. Not thread-safe against Tree().
  uint64_t MirrorEventsFrom(int pid) const {
    uint64_t n = 0;
    if (!book_) return n;
    for (const auto& [bus, info] : known_apps_) n += info.pid == pid ? book_->events_of(bus) : 0;
    return n;
  }

 private:
  struct AppHandle {
    AppInfo info;
    ObjectRef root;
    // False when the listing asked the app its name and got no reply by
    // the deadline: it is not answering, and walking it would only wait again.
    bool answered = true;
  };
  AtspiAccessibility(AtspiOptions options, std::unique_ptr<DbusConnection> bus,
                     std::string bus_address)
      : options_(std::move(options)), bus_(std::move(bus)), bus_address_(std::move(bus_address)) {}

  // Apps on the registry with pid, name and toolkit. With `only_pid`, names
  // are asked of that app only. Apps on `skip_buses` are left out unasked.
  Result<std::vector<AppHandle>> ListAppHandles(Clock::time_point deadline, int only_pid,
                                                const std::vector<std::string>& skip_buses = {});
  // Remembers that `app` left the bus (see exited_).
  void NoteExited(const AppInfo& app);
  // The most recent exited app with that pid (or lower-case name).
  const AppInfo* FindExited(const std::string& name_lower, int pid) const;
  // The connection to use for `app`: its private socket when offered, else
  // the bus. Asking for the socket's address waits until `deadline` at most.
  DbusConnection& ConnectionFor(const AppHandle& app, Clock::time_point deadline);
  // The connection for the object `node` was read from; Stale when the node
  // carries no reference (not from this backend).
  Result<DbusConnection*> ConnectionForNode(const Node& node, Clock::time_point deadline);
  // The mirror's guard for actions: the application of `node` is walked on
  // its next observation, whatever its events say.
  void NoteActedOn(const Node& node);
  // With options_.mirror: the event watcher, (re)started when it is not
  // running (its connection dropped). False when it cannot be.
  bool EnsureEventWatcher();
  // The X server's top-level windows now, through display_ (opened when it
  // is not); none without a display.
  std::vector<WindowInfo> ListTopLevelsNow();

  AtspiOptions options_;
  std::unique_ptr<DbusConnection> bus_;
  // Peer-to-peer connections by application bus name; null = the app offers none.
  std::unordered_map<std::string, std::unique_ptr<DbusConnection>> peers_;
  // Pid, name and toolkit of the apps seen, by bus name (see ListAppHandles).
  std::unordered_map<std::string, AppInfo> known_apps_;
  // Apps that left the bus, by pid: a later request for one says it exited
  // rather than that no such app exists. Bounded (oldest dropped).
  std::vector<AppInfo> exited_;
  // Bus names of apps whose last walk got no answer: walked after the others.
  std::unordered_set<std::string> unresponsive_;
  // Opened on the first Tree() and kept: one X connection, not one per call.
  std::unique_ptr<x11::X11Display> display_;
  std::string bus_address_;
  // The mirror (options_.mirror only): the trees and the events feeding it.
  // The book outlives the watcher that reports to it.
  std::unique_ptr<MirrorBook> book_;
  std::unique_ptr<EventWatcher> events_;
};

// Finds the address of the accessibility bus: $AT_SPI_BUS_ADDRESS, then
// org.a11y.Bus.GetAddress on the session bus (which starts the bus by D-Bus
// activation), then the AT_SPI_BUS property of the X root window.
Result<std::string> FindAccessibilityBus(const AtspiOptions& options);

}  // namespace uiscope::atspi
