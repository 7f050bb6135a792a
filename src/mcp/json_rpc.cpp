#include "mcp/json_rpc.h"

namespace uiscope::mcp {

bool IsValidId(const json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

Classified Classify(const json& message) {
  Classified c;
  auto invalid = [&](std::string reason) {
    c.kind = MessageKind::kInvalid;
    c.error = RpcError{kInvalidRequest, std::move(reason), nullptr};
    return c;
  };
  if (!message.is_object()) return invalid("a JSON-RPC message must be an object");
  if (auto it = message.find("id"); it != message.end() && IsValidId(*it)) c.id = *it;
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") return invalid("\"jsonrpc\" must be \"2.0\"");

  const bool has_id = message.contains("id");
  auto method = message.find("method");
  if (method != message.end()) {
    if (!method->is_string()) return invalid("\"method\" must be a string");
    if (auto params = message.find("params");
        params != message.end() && !params->is_object() && !params->is_null()) {
      return invalid("\"params\" must be an object");
    }
    if (!has_id) {
      c.kind = MessageKind::kNotification;
      return c;
    }
    if (!IsValidId(message["id"]))
      return invalid("\"id\" must be a string or an integer (MCP forbids null ids)");
    c.kind = MessageKind::kRequest;
    return c;
  }
  const bool has_result = message.contains("result");
  const bool has_error = message.contains("error");
  if (has_id && (has_result != has_error)) {
    c.kind = MessageKind::kResponse;
    return c;
  }
  return invalid("a message needs \"method\" (request or notification) or \"result\"/\"error\"");
}

json MakeResult(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json MakeError(const json& id, const RpcError& error) {
  json e = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) e["data"] = error.data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

json MakeNotification(std::string_view method, json params) {
  json n = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) n["params"] = std::move(params);
  return n;
}

std::string DumpMessage(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

Parsed ParseFrame(std::string_view bytes) {
  Parsed p;
  // Depth is bounded by nlohmann's recursive parser only by the stack; cap
  // nesting before parsing so a frame of 100k '[' cannot overflow it.
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char ch : bytes) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > 128) {
        p.error = RpcError{kParseError, "parse error: JSON nested deeper than 128 levels", nullptr};
        return p;
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  p.value = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (p.value.is_discarded()) {
    p.value = nullptr;
    // Find where it broke, for the message; parsing again with exceptions
    // on is cheap next to a human reading the error.
    std::string where;
    try {
      [[maybe_unused]] json again = json::parse(bytes);
    } catch (const json::parse_error& e) {
      where = " at byte " + std::to_string(e.byte);
    }
    p.error = RpcError{kParseError, "parse error: the message is not valid JSON" + where, nullptr};
    return p;
  }
  p.ok = true;
  return p;
}

}  // namespace uiscope::mcp
