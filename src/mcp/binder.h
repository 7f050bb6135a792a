// The binder: JSON-RPC method names to typed handlers (clangd's LSPBinder).
//
// A handler is registered with the C++ type of its params; the binder parses
// `params` into that type with `FromJson(const json&, P&)`, and a parse
// failure becomes an InvalidParams error naming the field, so no handler ever
// sees malformed input. Wire structs and their FromJson live in protocol.h.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "mcp/json_rpc.h"

namespace uiscope::mcp {

// Thrown by FromJson functions for a malformed field; caught by the binder
// and turned into InvalidParams. Never crosses the binder.
struct ParamError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A request handler's answer: a result or a JSON-RPC error.
struct Reply {
  json result;
  RpcError error;
  bool ok = true;

  static Reply Result(json r) { return Reply{std::move(r), {}, true}; }
  static Reply Fail(int code, std::string message) {
    return Reply{nullptr, RpcError{code, std::move(message), nullptr}, false};
  }
};

class Call;  // server.h: the request being answered

class Binder {
 public:
  using RawRequest = std::function<Reply(const json& params, Call& call)>;
  using RawNotification = std::function<void(const json& params)>;

  // `slow`: the handler may block (tools/call); the server runs it off the
  // transport's reading thread so pings and cancellations keep flowing.
  template <typename Params>
  void Request(std::string method, std::function<Reply(const Params&, Call&)> handler,
               bool slow = false) {
    requests_[std::move(method)] =
        Entry{[handler = std::move(handler)](const json& params, Call& call) -> Reply {
                Params p{};
                try {
                  FromJson(params.is_null() ? json::object() : params, p);
                } catch (const ParamError& e) {
                  return Reply::Fail(kInvalidParams, std::string("invalid params: ") + e.what());
                } catch (const json::exception& e) {
                  return Reply::Fail(kInvalidParams, std::string("invalid params: ") + e.what());
                }
                return handler(p, call);
              },
              slow};
  }

  // Notifications have no reply; malformed params are dropped (the spec
  // leaves no way to report them) and counted by the caller's logging.
  template <typename Params>
  void Notification(std::string method, std::function<void(const Params&)> handler) {
    notifications_[std::move(method)] = [handler = std::move(handler)](const json& params) {
      Params p{};
      try {
        FromJson(params.is_null() ? json::object() : params, p);
      } catch (const std::exception&) {
        return;
      }
      handler(p);
    };
  }

  struct Entry {
    RawRequest handler;
    bool slow = false;
  };
  const Entry* FindRequest(std::string_view method) const {
    auto it = requests_.find(method);
    return it == requests_.end() ? nullptr : &it->second;
  }
  const RawNotification* FindNotification(std::string_view method) const {
    auto it = notifications_.find(method);
    return it == notifications_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Entry, std::less<>> requests_;
  std::map<std::string, RawNotification, std::less<>> notifications_;
};

}  // namespace uiscope::mcp
