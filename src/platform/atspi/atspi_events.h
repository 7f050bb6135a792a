// EventWatcher: listens to the AT-SPI events of every application on the
// accessibility bus and reports them to a MirrorBook (atspi_mirror.h).
//
// Why a connection and a thread of its own: events must be read as they
// come, not when the next observation happens to run. Left unread, they
// pile up in the bus daemon, which drops what exceeds its per-connection
// limit, silently; a dropped event would leave a stale tree in the mirror.
// The thread owns the connection; nothing else touches it.
//
// Toolkits built on atk-bridge (GTK 3, Chromium) send most events only when
// a listener registered for them with the registry (at-spi2-core 2.46,
// atk-adaptor/event.c, signal_is_needed(): only children-changed, state-
// changed and name/description/parent/role changes go out unasked, and not
// even those for objects that manage their descendants or are transient);
// and they send them on the bus only, never on the peer-to-peer sockets the
// walk uses. So the watcher registers for every object, window, focus and
// document event, on the bus.
//
// Sync() is the barrier that lets the mirror vouch for a tree: it asks each
// application, on this connection, for its name, which the toolkit answers
// from its main loop. D-Bus keeps one sender's messages in order, so once
// the answer is read, every event the application sent before answering
// has been reported. The registry sends EventListenerRegistered to the apps
// before it answers RegisterEvent, so an app that answers a later Sync()
// has seen our registration too.
//
// Thread safety: Sync() and alive() may be called from any thread; the
// destructor stops the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/result.h"
#include "platform/atspi/atspi_mirror.h"
#include "platform/atspi/dbus_connection.h"

namespace uiscope::atspi {

class EventWatcher {
 public:
  // Connects to the accessibility bus at `address`, subscribes, registers
  // for the events and starts the thread. `book` must outlive the watcher.
  // `tap`, when set, also sees every event (sender, "Object.StateChanged",
  // its detail "focused"), on the watcher's thread: for tests and tools that
  // measure which events a toolkit sends.
  using Tap = std::function<void(const std::string& sender, const std::string& event,
                                 const std::string& detail)>;
  static Result<std::unique_ptr<EventWatcher>> Start(const std::string& address,
                                                     MirrorBook& book,
                                                     std::chrono::milliseconds timeout,
                                                     Tap tap = nullptr);
  ~EventWatcher();
  EventWatcher(const EventWatcher&) = delete;
  EventWatcher& operator=(const EventWatcher&) = delete;

  // The barrier (see above) for the applications with these unique bus
  // names; returns those that answered by `deadline`. Events of the others
  // may still be in flight: their trees must not be served.
  std::unordered_set<std::string> Sync(const std::vector<std::string>& buses,
                                       Clock::time_point deadline);
  // False once the connection dropped (the book was told: OnStreamLost).
  bool alive() const;
  // Tests only: the thread stops reading and acts as if the connection had
  // dropped, so the events sent from now on are lost, as a bus that drops
  // them would lose them.
  void BreakForTest();

 private:
  EventWatcher(std::unique_ptr<DbusConnection> conn, MirrorBook& book, int wake_fd);
  void Loop();
  // Sends the barrier calls queued by Sync(); in the thread.
  void SendQueued();
  void Handle(DBusMessage* msg);

  std::unique_ptr<DbusConnection> conn_;
  MirrorBook& book_;
  Tap tap_;
  int wake_fd_;  // eventfd: Sync() and the destructor wake the thread

  mutable std::mutex mutex_;
  std::condition_variable answered_;
  bool stop_ = false;
  bool break_ = false;
  bool alive_ = true;
  // Barrier calls: queued by Sync(), sent by the thread (by serial), and
  // answered (the bus names whose answer was read) — per Sync() round.
  struct Round {
    std::vector<std::string> to_send;
    std::unordered_set<std::string> answered;
    size_t pending = 0;
  };
  uint64_t next_round_ = 0;
  std::unordered_map<uint64_t, Round> rounds_;
  std::unordered_map<uint32_t, std::pair<uint64_t, std::string>> by_serial_;
  std::thread thread_;
};

}  // namespace uiscope::atspi
