#include "platform/atspi/atspi_events.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>

namespace uiscope::atspi {
namespace {

constexpr char kEventPrefix[] = "org.a11y.atspi.Event.";
constexpr char kRootPath[] = "/org/a11y/atspi/accessible/root";

// The event classes the mirror must hear of: every change to an object
// (children, properties, states, text, bounds, ...), to a window (created,
// moved, activated, ...), the focus and documents (Chromium's page loads).
constexpr const char* kEventClasses[] = {"object:", "window:", "focus:", "document:"};

MessagePtr AddMatch(const char* rule) {
  MessagePtr m = NewMethodCall("org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "AddMatch");
  dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &rule, DBUS_TYPE_INVALID);
  return m;
}

}  // namespace

Result<std::unique_ptr<EventWatcher>> EventWatcher::Start(const std::string& address,
                                                          MirrorBook& book,
                                                          std::chrono::milliseconds timeout,
                                                          Tap tap) {
  auto conn = DbusConnection::Open(address, timeout);
  if (!conn.ok()) return conn.error();
  for (const char* rule : {"type='signal',interface='org.a11y.atspi.Event.Object'",
                           "type='signal',interface='org.a11y.atspi.Event.Window'",
                           "type='signal',interface='org.a11y.atspi.Event.Focus'",
                           "type='signal',interface='org.a11y.atspi.Event.Document'",
                           "type='signal',sender='org.freedesktop.DBus',"
                           "interface='org.freedesktop.DBus',member='NameOwnerChanged'"}) {
    auto reply = (*conn)->Call(AddMatch(rule), timeout);
    if (!reply.ok()) {
      return MakeError(reply.error().code,
                       "cannot subscribe to accessibility events: " + reply.error().message);
    }
  }
  for (const char* event : kEventClasses) {
    MessagePtr m = NewMethodCall("org.a11y.atspi.Registry", "/org/a11y/atspi/registry",
                                 "org.a11y.atspi.Registry", "RegisterEvent");
    dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &event, DBUS_TYPE_INVALID);
    auto reply = (*conn)->Call(std::move(m), timeout);
    if (!reply.ok()) {
      return MakeError(reply.error().code, std::string("the AT-SPI registry refused ") + event +
                                               " events: " + reply.error().message);
    }
  }
  const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    return MakeError(ErrorCode::kInternal,
                     std::string("eventfd for the event thread: ") + std::strerror(errno));
  }
  std::unique_ptr<EventWatcher> watcher(new EventWatcher(std::move(conn).value(), book, wake));
  watcher->tap_ = std::move(tap);
  watcher->thread_ = std::thread([w = watcher.get()] { w->Loop(); });
  return watcher;
}

EventWatcher::EventWatcher(std::unique_ptr<DbusConnection> conn, MirrorBook& book, int wake_fd)
    : conn_(std::move(conn)), book_(book), wake_fd_(wake_fd) {}

EventWatcher::~EventWatcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
  close(wake_fd_);
}

void EventWatcher::BreakForTest() {
  {
    std::lock_guard lock(mutex_);
    break_ = true;
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  std::unique_lock lock(mutex_);
  answered_.wait(lock, [&] { return !alive_; });
}

bool EventWatcher::alive() const {
  std::lock_guard lock(mutex_);
  return alive_;
}

std::unordered_set<std::string> EventWatcher::Sync(const std::vector<std::string>& buses,
                                                   Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!alive_ || buses.empty()) return {};
  const uint64_t id = next_round_++;
  Round& round = rounds_[id];
  round.to_send = buses;
  round.pending = buses.size();
  lock.unlock();
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  lock.lock();
  answered_.wait_until(lock, deadline, [&] { return !alive_ || rounds_[id].pending == 0; });
  std::unordered_set<std::string> answered = std::move(rounds_[id].answered);
  rounds_.erase(id);
  if (!alive_) return {};
  return answered;
}

void EventWatcher::SendQueued() {
  std::lock_guard lock(mutex_);
  DBusConnection* raw = conn_->raw();
  // Calls to apps that never answered, for rounds given up on: forgotten,
  // so a hung app does not grow this map by one per observation.
  if (by_serial_.size() > 1024) {
    std::erase_if(by_serial_, [&](const auto& kv) { return !rounds_.count(kv.second.first); });
  }
  for (auto& [id, round] : rounds_) {
    for (const std::string& bus : round.to_send) {
      // The app's name, from its root: answered from the toolkit's main
      // loop (the same request as Probe()).
      MessagePtr m = NewMethodCall(bus, kRootPath, "org.freedesktop.DBus.Properties", "Get");
      const char* iface = "org.a11y.atspi.Accessible";
      const char* prop = "Name";
      dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
                               DBUS_TYPE_INVALID);
      dbus_uint32_t serial = 0;
      if (!dbus_connection_send(raw, m.get(), &serial)) {
        --round.pending;
        continue;
      }
      by_serial_[serial] = {id, bus};
    }
    round.to_send.clear();
  }
  dbus_connection_flush(raw);
}

void EventWatcher::Handle(DBusMessage* msg) {
  const int type = dbus_message_get_type(msg);
  if (type == DBUS_MESSAGE_TYPE_SIGNAL) {
    const char* iface = dbus_message_get_interface(msg);
    const char* sender = dbus_message_get_sender(msg);
    if (iface == nullptr || sender == nullptr) return;
    if (std::strncmp(iface, kEventPrefix, sizeof(kEventPrefix) - 1) == 0) {
      const char* path = dbus_message_get_path(msg);
      const char* member = dbus_message_get_member(msg);
      const char* detail = nullptr;
      DBusMessageIter it;
      if (dbus_message_iter_init(msg, &it) &&
          dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_STRING) {
        dbus_message_iter_get_basic(&it, &detail);
      }
      const std::string_view kind = iface + sizeof(kEventPrefix) - 1;
      book_.OnEvent(sender, path ? path : "",
                    ClassifyEvent(kind, member ? member : "", detail ? detail : ""));
      if (tap_) {
        tap_(sender, std::string(kind) + "." + (member ? member : ""), detail ? detail : "");
      }
    } else if (std::strcmp(iface, "org.freedesktop.DBus") == 0 &&
               dbus_message_is_signal(msg, "org.freedesktop.DBus", "NameOwnerChanged")) {
      const char *name = nullptr, *old_owner = nullptr, *new_owner = nullptr;
      if (dbus_message_get_args(msg, nullptr, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING,
                                &old_owner, DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID) &&
          new_owner != nullptr && *new_owner == '\0' && name != nullptr) {
        book_.OnAppGone(name);
      }
    }
    return;
  }
  if (type != DBUS_MESSAGE_TYPE_METHOD_RETURN && type != DBUS_MESSAGE_TYPE_ERROR) return;
  std::lock_guard lock(mutex_);
  auto it = by_serial_.find(dbus_message_get_reply_serial(msg));
  if (it == by_serial_.end()) return;
  auto [id, bus] = std::move(it->second);
  by_serial_.erase(it);
  auto round = rounds_.find(id);
  if (round == rounds_.end()) return;  // Sync() gave up on it
  // Only the app's own answer orders its events; an error from the bus
  // daemon (the app is gone) does not.
  if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN) round->second.answered.insert(bus);
  if (round->second.pending > 0) --round->second.pending;
  answered_.notify_all();
}

void EventWatcher::Loop() {
  DBusConnection* raw = conn_->raw();
  int fd = -1;
  dbus_connection_get_unix_fd(raw, &fd);
  while (true) {
    bool broken = false;
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
      broken = break_;
    }
    if (broken) {
      book_.OnStreamLost();
      std::lock_guard lock(mutex_);
      alive_ = false;
      answered_.notify_all();
      return;
    }
    SendQueued();
    do {
      dbus_connection_read_write(raw, 0);
      while (DBusMessage* msg = dbus_connection_pop_message(raw)) {
        Handle(msg);
        dbus_message_unref(msg);
      }
    } while (dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS);
    if (!dbus_connection_get_is_connected(raw) || fd < 0) {
      book_.OnStreamLost();
      std::lock_guard lock(mutex_);
      alive_ = false;
      answered_.notify_all();
      return;
    }
    pollfd fds[2] = {{fd, static_cast<short>(POLLIN | (dbus_connection_has_messages_to_send(raw)
                                                           ? POLLOUT
                                                           : 0)),
                      0},
                     {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) {
      book_.OnStreamLost();
      std::lock_guard lock(mutex_);
      alive_ = false;
      answered_.notify_all();
      return;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t count = 0;
      (void)!read(wake_fd_, &count, sizeof(count));
    }
  }
}

}  // namespace uiscope::atspi
