#include "mcp/json_rpc.h"

namespace uiscope::mcp {
namespace {

// nlohmann's message without its "[json.exception.x.n] " prefix, cut short:
// it quotes the offending token, which may be megabytes of digits.
std::string Detail(const json::exception& e) {
  std::string_view what = e.what();
  if (auto end = what.find("] "); what.starts_with("[json.exception.") && end != what.npos)
    what.remove_prefix(end + 2);
  // "parse error at line 1, column 42: syntax error ...": the caller says
  // where, once.
  if (auto colon = what.find(": "); what.starts_with("parse error at") && colon != what.npos)
    what.remove_prefix(colon + 2);
  constexpr size_t kMax = 160;
  if (what.size() <= kMax) return std::string(what);
  return std::string(what.substr(0, kMax)) + "...";
}

// A SAX consumer that builds the document exactly as json::parse does (its
// own DOM builder, no exceptions) and keeps the first error. One pass: a bad
// frame used to be parsed twice, once to a discarded value and again to learn
// why, which made malformed input, a fuzzer's usual diet, the slowest kind.
class DomAndError {
 public:
  explicit DomAndError(json& result) : dom_(result, /*allow_exceptions=*/false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(size_t n) { return dom_.start_object(n); }
  bool key(json::string_t& k) { return dom_.key(k); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  bool parse_error(size_t at, const std::string& token, const json::exception& e) {
    if (id == 0) {
      id = e.id;  // nlohmann's exception id: 101 syntax, 406 number out of range, ...
      position = at;
      detail = Detail(e);
    }
    return dom_.parse_error(at, token, e);
  }

  int id = 0;
  size_t position = 0;
  std::string detail;

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

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
  // Through SAX, which is handed the error instead of throwing it: a thrown
  // out_of_range ("1e400") once escaped the parse_error handler here and
  // aborted the server (issue 14).
  DomAndError sax(p.value);
  if (!json::sax_parse(bytes, &sax) || sax.id != 0) {
    p.value = nullptr;
    std::string why = "the message is not valid JSON";
    if (sax.id == 406) {
      why =
          "a number in the message is out of range (JSON numbers must fit a double, about "
          "1.8e308): " +
          sax.detail;
    } else if (sax.id != 0) {
      why += " at byte " + std::to_string(sax.position) + ": " + sax.detail;
    }
    p.error = RpcError{kParseError, "parse error: " + why, nullptr};
    return p;
  }
  p.ok = true;
  return p;
}

}  // namespace uiscope::mcp
