#include "platform/atspi/dbus_connection.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace uiscope::atspi {
namespace {

struct ErrorGuard {
  DBusError err;
  ErrorGuard() { dbus_error_init(&err); }
  ~ErrorGuard() { dbus_error_free(&err); }
  std::string Text() const {
    return std::string(err.name ? err.name : "") + ": " + (err.message ? err.message : "");
  }
};

// UnknownObject / UnknownMethod: the object was destroyed (GTK answers
// UnknownMethod for paths it no longer exports). ServiceUnknown /
// NameHasNoOwner: the application itself is gone.
bool IsGoneErrorName(std::string_view name) {
  return name == DBUS_ERROR_UNKNOWN_OBJECT || name == DBUS_ERROR_UNKNOWN_METHOD ||
         name == DBUS_ERROR_SERVICE_UNKNOWN || name == DBUS_ERROR_NAME_HAS_NO_OWNER;
}

}  // namespace

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 600'000));
}

MessagePtr NewMethodCall(const std::string& dest, const std::string& path, const char* iface,
                         const char* method) {
  return MessagePtr(dbus_message_new_method_call(dest.c_str(), path.c_str(), iface, method));
}

bool IsDeadObjectError(DBusMessage* reply) {
  if (reply == nullptr || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_ERROR) return false;
  const char* name = dbus_message_get_error_name(reply);
  if (name == nullptr) return false;
  // A NoReply *message* comes from the bus daemon when the app disconnected
  // without answering (libdbus's own timeouts never reach a pipeline).
  return IsGoneErrorName(name) || std::string_view(name) == DBUS_ERROR_NO_REPLY;
}

bool IsAppGoneError(DBusMessage* reply) {
  if (reply == nullptr || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_ERROR) return false;
  const char* name = dbus_message_get_error_name(reply);
  if (name == nullptr) return false;
  std::string_view n(name);
  return n == DBUS_ERROR_SERVICE_UNKNOWN || n == DBUS_ERROR_NAME_HAS_NO_OWNER ||
         n == DBUS_ERROR_NO_REPLY;
}

Result<std::unique_ptr<DbusConnection>> DbusConnection::Open(const std::string& address,
                                                             std::chrono::milliseconds timeout) {
  static std::once_flag threads_once;
  std::call_once(threads_once, [] { dbus_threads_init_default(); });

  ErrorGuard e;
  DBusConnection* raw = dbus_connection_open_private(address.c_str(), &e.err);
  if (raw == nullptr) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot connect to D-Bus at " + address + " (" + e.Text() + ")");
  }
  dbus_connection_set_exit_on_disconnect(raw, FALSE);
  std::unique_ptr<DbusConnection> conn(new DbusConnection(raw));

  // dbus_bus_register() blocks for libdbus's default 25 s; send Hello
  // ourselves so a wedged bus costs `timeout`, not 25 s.
  MessagePtr hello(dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                "org.freedesktop.DBus", "Hello"));
  auto reply = conn->Call(std::move(hello), timeout);
  if (!reply.ok()) {
    return MakeError(reply.error().code,
                     "D-Bus at " + address + " did not accept us: " + reply.error().message);
  }
  const char* name = nullptr;
  if (!dbus_message_get_args(reply->get(), nullptr, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) ||
      name == nullptr || !dbus_bus_set_unique_name(raw, name)) {
    return MakeError(ErrorCode::kInternal, "malformed Hello reply from the D-Bus daemon");
  }
  conn->unique_name_ = name;
  return conn;
}

Result<std::unique_ptr<DbusConnection>> DbusConnection::OpenPeer(const std::string& address) {
  ErrorGuard e;
  DBusConnection* raw = dbus_connection_open_private(address.c_str(), &e.err);
  if (raw == nullptr) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot connect to " + address + " (" + e.Text() + ")");
  }
  dbus_connection_set_exit_on_disconnect(raw, FALSE);
  std::unique_ptr<DbusConnection> conn(new DbusConnection(raw));
  conn->peer_ = true;
  return conn;
}

DbusConnection::~DbusConnection() {
  dbus_connection_close(conn_);
  dbus_connection_unref(conn_);
}

Result<MessagePtr> DbusConnection::Call(MessagePtr call, std::chrono::milliseconds timeout) {
  ErrorGuard e;
  DBusMessage* reply = dbus_connection_send_with_reply_and_block(
      conn_, call.get(), static_cast<int>(timeout.count()), &e.err);
  if (reply != nullptr) return MessagePtr(reply);
  std::string name = e.err.name ? e.err.name : "";
  if (name == DBUS_ERROR_NO_REPLY || name == DBUS_ERROR_TIMEOUT) {
    return MakeError(ErrorCode::kTimeout, "no answer within " + std::to_string(timeout.count()) +
                                              " ms to " + dbus_message_get_member(call.get()));
  }
  if (name == DBUS_ERROR_DISCONNECTED || !dbus_connection_get_is_connected(conn_)) {
    if (peer_) {
      return MakeError(ErrorCode::kStale,
                       "the application closed its accessibility connection (it exited)");
    }
    return MakeError(ErrorCode::kUnavailable, "the D-Bus connection was closed");
  }
  if (IsGoneErrorName(name)) return MakeError(ErrorCode::kNotFound, e.Text());
  return MakeError(ErrorCode::kInternal, e.Text());
}

void DbusConnection::Pipeline::Add(MessagePtr call, Handler handler) {
  queue_.emplace_back(std::move(call), std::move(handler));
}

void DbusConnection::Pipeline::SendQueued() {
  while (queue_head_ < queue_.size() && in_flight_.size() < max_in_flight_) {
    auto& [call, handler] = queue_[queue_head_];
    dbus_uint32_t serial = 0;
    if (!dbus_connection_send(conn_.conn_, call.get(), &serial)) {
      // Out of memory inside libdbus: report as a missing reply.
      handler(nullptr);
    } else {
      in_flight_.emplace(serial, std::move(handler));
      ++sent_;
    }
    call.reset();
    ++queue_head_;
  }
  if (queue_head_ == queue_.size()) {
    queue_.clear();
    queue_head_ = 0;
  }
}

Status DbusConnection::Pipeline::Run(Clock::time_point deadline, Clock::time_point first_reply_by) {
  DBusConnection* raw = conn_.conn_;
  bool disconnected = false;
  bool silent = false;  // gave up at first_reply_by
  while (true) {
    // Dispatch what has been read before blocking again: read_write() may
    // block even when parsed messages are waiting.
    while (DBusMessage* msg = dbus_connection_pop_message(raw)) {
      MessagePtr owned(msg);
      int type = dbus_message_get_type(msg);
      if (type == DBUS_MESSAGE_TYPE_SIGNAL &&
          dbus_message_is_signal(msg, DBUS_INTERFACE_LOCAL, "Disconnected")) {
        disconnected = true;
        continue;
      }
      if (type != DBUS_MESSAGE_TYPE_METHOD_RETURN && type != DBUS_MESSAGE_TYPE_ERROR) continue;
      auto it = in_flight_.find(dbus_message_get_reply_serial(msg));
      if (it == in_flight_.end()) continue;  // a late reply of an earlier, timed-out run
      Handler handler = std::move(it->second);
      in_flight_.erase(it);
      ++replies_;
      handler(msg);  // may Add() more calls
    }
    if (disconnected) break;
    SendQueued();
    if (in_flight_.empty() && queue_head_ == queue_.size()) return OkStatus();
    int ms = RemainingMs(deadline);
    if (ms <= 0) break;
    if (replies_ == 0 && first_reply_by != Clock::time_point::max()) {
      int first = RemainingMs(first_reply_by);
      if (first <= 0) {
        silent = true;
        break;
      }
      ms = std::min(ms, first);
    }
    if (!dbus_connection_read_write(raw, ms)) {
      disconnected = true;
      break;
    }
  }
  // Deadline or disconnect: every unanswered call gets a null reply.
  size_t missing = in_flight_.size() + (queue_.size() - queue_head_);
  auto in_flight = std::move(in_flight_);
  in_flight_.clear();
  for (auto& [serial, handler] : in_flight) handler(nullptr);
  for (size_t i = queue_head_; i < queue_.size(); ++i) queue_[i].second(nullptr);
  queue_.clear();
  queue_head_ = 0;
  timed_out_ += missing;
  disconnected_ = disconnected;
  if (disconnected) {
    // A peer connection is the application's own socket: it closes when the
    // application exits. Only the bus connection closing is a bus problem.
    if (conn_.peer_) {
      return MakeError(ErrorCode::kUnavailable,
                       "the application closed its accessibility connection (it exited)");
    }
    return MakeError(ErrorCode::kUnavailable,
                     "the accessibility bus connection was closed (is at-spi-bus-launcher "
                     "still running?)");
  }
  return MakeError(ErrorCode::kTimeout, std::to_string(missing) +
                                            " accessibility requests unanswered " +
                                            (silent ? "(no reply at all yet)" : "at the deadline"));
}

// --- Argument readers ------------------------------------------------------

bool ReadString(DBusMessageIter* it, std::string* out) {
  int t = dbus_message_iter_get_arg_type(it);
  if (t != DBUS_TYPE_STRING && t != DBUS_TYPE_OBJECT_PATH) return false;
  const char* s = nullptr;
  dbus_message_iter_get_basic(it, &s);
  out->assign(s ? s : "");
  dbus_message_iter_next(it);
  return true;
}

bool ReadInt32(DBusMessageIter* it, int32_t* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_INT32) return false;
  dbus_int32_t v = 0;
  dbus_message_iter_get_basic(it, &v);
  *out = v;
  dbus_message_iter_next(it);
  return true;
}

bool ReadUint32(DBusMessageIter* it, uint32_t* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_UINT32) return false;
  dbus_uint32_t v = 0;
  dbus_message_iter_get_basic(it, &v);
  *out = v;
  dbus_message_iter_next(it);
  return true;
}

bool ReadDouble(DBusMessageIter* it, double* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_DOUBLE) return false;
  double v = 0;
  dbus_message_iter_get_basic(it, &v);
  *out = v;
  dbus_message_iter_next(it);
  return true;
}

bool ReadBool(DBusMessageIter* it, bool* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_BOOLEAN) return false;
  dbus_bool_t v = 0;
  dbus_message_iter_get_basic(it, &v);
  *out = v != 0;
  dbus_message_iter_next(it);
  return true;
}

bool ReadObjectRef(DBusMessageIter* it, ObjectRef* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_STRUCT) return false;
  DBusMessageIter sub;
  dbus_message_iter_recurse(it, &sub);
  ObjectRef ref;
  if (!ReadString(&sub, &ref.bus) || !ReadString(&sub, &ref.path)) return false;
  *out = std::move(ref);
  dbus_message_iter_next(it);
  return true;
}

bool ReadStringArray(DBusMessageIter* it, std::vector<std::string>* out) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_ARRAY) return false;
  DBusMessageIter sub;
  dbus_message_iter_recurse(it, &sub);
  out->clear();
  std::string s;
  while (dbus_message_iter_get_arg_type(&sub) != DBUS_TYPE_INVALID) {
    if (!ReadString(&sub, &s)) return false;
    out->push_back(std::move(s));
  }
  dbus_message_iter_next(it);
  return true;
}

namespace {
template <typename T, typename Reader>
bool ReadVariant(DBusMessageIter* it, T* out, Reader reader) {
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_VARIANT) return reader(it, out);
  DBusMessageIter sub;
  dbus_message_iter_recurse(it, &sub);
  if (!reader(&sub, out)) return false;
  dbus_message_iter_next(it);
  return true;
}
}  // namespace

bool ReadVariantString(DBusMessageIter* it, std::string* out) {
  return ReadVariant(it, out, ReadString);
}
bool ReadVariantDouble(DBusMessageIter* it, double* out) {
  return ReadVariant(it, out, ReadDouble);
}
bool ReadVariantBool(DBusMessageIter* it, bool* out) { return ReadVariant(it, out, ReadBool); }
bool ReadVariantInt32(DBusMessageIter* it, int32_t* out) { return ReadVariant(it, out, ReadInt32); }

}  // namespace uiscope::atspi
