// A private libdbus connection with pipelined method calls.
//
// AT-SPI2 is chatty: one D-Bus round trip per property. Waiting for each reply
// before sending the next request (what libatspi does) leaves the bus idle
// most of the time. DbusConnection::Pipeline keeps many requests in flight and
// dispatches each reply to its handler as it arrives; handlers may queue more
// requests (a breadth-first walk then needs no per-level barrier). Every
// pipeline run has one deadline: a peer that stops answering costs at most
// that long, never a hang.
//
// Thread safety: a DbusConnection and its pipelines are used from one thread
// at a time. Ownership: DbusConnection owns the DBusConnection (closed and
// unreferenced in the destructor); MessagePtr owns one message reference.
#pragma once

#include <dbus/dbus.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"

namespace uiscope::atspi {

struct MessageUnref {
  void operator()(DBusMessage* m) const { dbus_message_unref(m); }
};
using MessagePtr = std::unique_ptr<DBusMessage, MessageUnref>;

using Clock = std::chrono::steady_clock;

// Milliseconds left until `deadline`, clamped to [0, 600000].
int RemainingMs(Clock::time_point deadline);

// Builds a method call; never null (libdbus aborts on out-of-memory).
MessagePtr NewMethodCall(const std::string& dest, const std::string& path, const char* iface,
                         const char* method);

// True for the errors that mean "this object or app is gone".
bool IsDeadObjectError(DBusMessage* reply);
// True for the errors that mean "the whole application is gone" (it left
// the bus, or the bus daemon answered for it because it disconnected), as
// opposed to one of its objects being destroyed.
bool IsAppGoneError(DBusMessage* reply);

class DbusConnection {
 public:
  // Opens a private connection to the bus daemon at `address` and registers
  // on the bus (Hello).
  static Result<std::unique_ptr<DbusConnection>> Open(const std::string& address,
                                                      std::chrono::milliseconds timeout);
  // Opens a peer-to-peer connection (no bus daemon, no Hello), as offered by
  // AT-SPI applications through GetApplicationBusAddress.
  static Result<std::unique_ptr<DbusConnection>> OpenPeer(const std::string& address);
  // True for a connection from OpenPeer: when it closes, the application
  // closed it (it exited or crashed), not the accessibility bus.
  bool is_peer() const { return peer_; }
  ~DbusConnection();
  DbusConnection(const DbusConnection&) = delete;
  DbusConnection& operator=(const DbusConnection&) = delete;

  // One blocking call. Errors: Timeout, Unavailable (the bus connection
  // closed), Stale (a peer connection closed: the application exited), or
  // the peer's error reply as NotFound (dead object) / Internal.
  Result<MessagePtr> Call(MessagePtr call, std::chrono::milliseconds timeout);

  DBusConnection* raw() const { return conn_; }
  const std::string& unique_name() const { return unique_name_; }

  // Handler of one reply: a method return or an error message; null when the
  // pipeline's deadline passed first.
  using Handler = std::function<void(DBusMessage* reply)>;

  class Pipeline {
   public:
    explicit Pipeline(DbusConnection& conn, size_t max_in_flight = 1024)
        : conn_(conn), max_in_flight_(max_in_flight) {}
    // Queues a call; it is sent as soon as the in-flight window allows.
    void Add(MessagePtr call, Handler handler);
    // Runs until every queued call (including those added by handlers) is
    // answered or `deadline` passes. Unanswered calls get a null reply.
    // With `first_reply_by`, it also gives up then if no reply at all has
    // come: a peer that answers nothing is hung or busy, and the caller may
    // serve others first. Returns Timeout if any call was unanswered;
    // Unavailable if the connection dropped (on a peer connection: the
    // application went away; see disconnected()).
    Status Run(Clock::time_point deadline,
               Clock::time_point first_reply_by = Clock::time_point::max());

    size_t sent() const { return sent_; }
    size_t timed_out() const { return timed_out_; }
    size_t replies() const { return replies_; }
    bool disconnected() const { return disconnected_; }

   private:
    void SendQueued();

    DbusConnection& conn_;
    size_t max_in_flight_;
    std::vector<std::pair<MessagePtr, Handler>> queue_;  // not yet sent, FIFO from queue_head_
    size_t queue_head_ = 0;
    std::unordered_map<uint32_t, Handler> in_flight_;  // by serial
    size_t sent_ = 0;
    size_t timed_out_ = 0;
    size_t replies_ = 0;
    bool disconnected_ = false;
  };

 private:
  explicit DbusConnection(DBusConnection* conn) : conn_(conn) {}

  DBusConnection* conn_;
  std::string unique_name_;
  bool peer_ = false;
};

// --- Reading message arguments -------------------------------------------
// Thin helpers over DBusMessageIter. Each returns false (and leaves `out`
// unchanged) when the next argument has another type: peers are untrusted.

bool ReadString(DBusMessageIter* it, std::string* out);
bool ReadInt32(DBusMessageIter* it, int32_t* out);
bool ReadUint32(DBusMessageIter* it, uint32_t* out);
bool ReadDouble(DBusMessageIter* it, double* out);
bool ReadBool(DBusMessageIter* it, bool* out);
// An object reference: struct (so) of bus name and object path.
struct ObjectRef {
  std::string bus;
  std::string path;
  bool operator==(const ObjectRef&) const = default;
  bool IsNull() const { return path.empty() || path == "/org/a11y/atspi/null"; }
};
struct ObjectRefHash {
  size_t operator()(const ObjectRef& r) const {
    return std::hash<std::string>()(r.path) ^ (std::hash<std::string>()(r.bus) * 31);
  }
};
bool ReadObjectRef(DBusMessageIter* it, ObjectRef* out);
bool ReadStringArray(DBusMessageIter* it, std::vector<std::string>* out);
// Reads the value of a variant (as returned by Properties.Get) into a string,
// double or bool according to its type.
bool ReadVariantString(DBusMessageIter* it, std::string* out);
bool ReadVariantDouble(DBusMessageIter* it, double* out);
bool ReadVariantBool(DBusMessageIter* it, bool* out);
bool ReadVariantInt32(DBusMessageIter* it, int32_t* out);

}  // namespace uiscope::atspi
