// JSON-RPC 2.0 as MCP uses it: message shapes, error codes, builders.
//
// Pure functions over nlohmann::json; no I/O and no MCP semantics (those live
// in server.h). Every function here is total: malformed input is classified,
// never thrown at the caller.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace uiscope::mcp {

using nlohmann::json;

// JSON-RPC and MCP error codes.
inline constexpr int kParseError = -32700;      // the bytes are not JSON
inline constexpr int kInvalidRequest = -32600;  // JSON, but not a valid request object
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

struct RpcError {
  int code = kInternalError;
  std::string message;
  json data;  // null = omitted
};

enum class MessageKind {
  kRequest,       // method + id
  kNotification,  // method, no id
  kResponse,      // result or error + id (a reply to a server->client request)
  kInvalid,       // anything else; see the RpcError
};

struct Classified {
  MessageKind kind = MessageKind::kInvalid;
  RpcError error;  // for kInvalid: kInvalidRequest with the reason
  json id;         // the id when it could be read (even for kInvalid), else null
};

// Classifies one message (not a batch). MCP narrows JSON-RPC: ids are strings
// or integers, never null; params, when present, are an object.
Classified Classify(const json& message);

// A valid MCP request id: a string or an integer.
bool IsValidId(const json& id);

json MakeResult(const json& id, json result);
json MakeError(const json& id, const RpcError& error);  // id null when unknown
json MakeNotification(std::string_view method, json params);

// A message as compact JSON text for the wire. Invalid UTF-8 in a string
// (a tool's output may carry any bytes) becomes U+FFFD instead of throwing.
std::string DumpMessage(const json& message);

// Parses one frame. On failure returns an error with kParseError and the
// parser's position, never throws.
struct Parsed {
  json value;
  bool ok = false;
  RpcError error;
};
Parsed ParseFrame(std::string_view bytes);

}  // namespace uiscope::mcp
