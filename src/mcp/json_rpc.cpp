#include "mcp/json_rpc.h"

namespace uiscope::mcp {
namespace {

// nlohmann's message without its "[json.exception.x.n] " prefix, cut short:
// it quotes the offending token, which may be megabytes of digits.
std::string Detail(const json::exception& e) {
  std::string_view what = e.what();
  if (auto end = what.find("] "); what.starts_with("[json.exception.") && end != what.npos)
    what.remove_prefix(end + 2);
  constexpr size_t kMax = 120;
  if (what.size() <= kMax) return std::string(what);
  return std::string(what.substr(0, kMax)) + "...";
}

}  // namespace

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
    // Parse again with exceptions on to say why, for the message. Not only
    // parse_error: a number beyond a double ("1e400") is an out_of_range,
    // and letting that escape aborted the server (issue 14).
    std::string why = "the message is not valid JSON";
    try {
      [[maybe_unused]] json again = json::parse(bytes);
    } catch (const json::parse_error& e) {
      why += " at byte " + std::to_string(e.byte);
    } catch (const json::out_of_range& e) {
      why =
          "a number in the message is out of range (JSON numbers must fit a double, about "
          "1.8e308): " +
          Detail(e);
    } catch (const json::exception& e) {
      why += ": " + Detail(e);
    }
    p.error = RpcError{kParseError, "parse error: " + why, nullptr};
    return p;
  }
  p.ok = true;
  return p;
}

}  // namespace uiscope::mcp
