// The tool registry: what an MCP client sees in tools/list and calls with
// tools/call. Every capability of uiscope is a Tool registered here; the
// server knows nothing about any particular tool.
//
// A tool declares its name, title, description, JSON Schema `input_schema`,
// `output_schema` when its result is structured, and annotations. Its handler
// receives arguments already validated against `input_schema` and returns a
// ToolResult; it never throws (the server turns a stray exception into an
// isError result naming the tool, but that is a bug). A failure the caller
// can act on is `ToolResult::Error(...)`, not a protocol error.
//
// Thread safety: the registry is filled before serving and read-only after;
// handlers may run concurrently on several threads and must lock what they
// share.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace uiscope::mcp {

using nlohmann::json;

struct Content {
  enum class Kind { kText, kImage };
  Kind kind = Kind::kText;
  std::string text;       // kText
  std::string mime_type;  // kImage: "image/png", "image/webp", "image/jpeg"
  std::string data;       // kImage: the encoded bytes (base64-encoded on the wire)

  static Content Text(std::string text) { return {Kind::kText, std::move(text), "", ""}; }
  static Content Image(std::string mime_type, std::string bytes) {
    return {Kind::kImage, "", std::move(mime_type), std::move(bytes)};
  }
};

struct ToolResult {
  std::vector<Content> content;
  json structured;  // structuredContent; null = none
  bool is_error = false;

  // A failure the model can act on: the message says what to do next.
  static ToolResult Error(std::string message);
  static ToolResult FromError(const uiscope::Error& error);  // "NotFound: ..." with the code name
};

// MCP logging levels (RFC 5424 severities), least severe first.
enum class LogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
std::optional<LogLevel> ParseLogLevel(std::string_view name);
std::string_view LogLevelName(LogLevel level);

// A question for the user, asked through the client (MCP elicitation,
// protocol 2025-06-18 and later, form mode).
struct ElicitRequest {
  std::string message;  // what the user is asked, in plain words
  // A flat JSON Schema object of primitive properties (string, number,
  // integer, boolean, enum): what the form asks for.
  json requested_schema;
  // How long to wait for the user; then the request is cancelled.
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
  // Polled while waiting: true when the question was answered elsewhere
  // (a person decided in another process), so the client's dialog is
  // withdrawn (notifications/cancelled) and Elicit returns kStale.
  std::function<bool()> answered_elsewhere;
};

struct ElicitResult {
  std::string action;  // "accept" (content holds the form), "decline" or "cancel"
  json content = json::object();
};

// A question for the client's model (MCP sampling/createMessage): text
// only, never an image.
struct SampleRequest {
  json messages;  // [{role: "user" | "assistant", content: {type: "text", text}}]
  std::string system_prompt;
  int max_tokens = 4000;
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

// What a running handler may ask of the server. Implemented by the server per
// request; valid only during the handler call.
class ToolContext {
 public:
  virtual ~ToolContext() = default;
  // True once the client cancelled the request (notifications/cancelled) or
  // the session ended: stop at the next safe point; the result is discarded.
  virtual bool cancelled() const = 0;
  // Reports progress when the client asked for it (a progressToken); a no-op
  // otherwise. `progress` must increase between calls; total 0 = unknown.
  virtual void Progress(double progress, double total, const std::string& message) = 0;
  // A notifications/message to the client, if `level` passes its log level.
  virtual void Log(LogLevel level, const std::string& message) = 0;

  // True when the user can be asked: the client declared the elicitation
  // capability (form mode, protocol 2025-06-18 or later) and this call may
  // wait for the client's answer.
  virtual bool CanElicit() const { return false; }
  // Sends elicitation/create and waits for the answer. Unsupported when
  // CanElicit() is false; Timeout when the user did not answer in time and
  // Stale when `answered_elsewhere` said so (both withdraw the question with
  // notifications/cancelled); Unavailable when the call was cancelled, the
  // session ended or the client answered with an error.
  virtual Result<ElicitResult> Elicit(const ElicitRequest& request) {
    return MakeError(ErrorCode::kUnsupported, "the client cannot be asked (no elicitation)");
  }

  // True when the client's model can be asked: the client declared the
  // sampling capability and this call may wait for the client's answer.
  virtual bool CanSample() const { return false; }
  // Sends sampling/createMessage and waits: the text of the model's answer
  // (its text blocks joined). Unsupported when CanSample() is false;
  // Timeout, or Unavailable when the call was cancelled, the session ended
  // or the client answered with an error or a result holding no text.
  virtual Result<std::string> Sample(const SampleRequest& request) {
    return MakeError(ErrorCode::kUnsupported, "the client's model cannot be asked (no sampling)");
  }
};

using ToolHandler = std::function<ToolResult(const json& arguments, ToolContext& context)>;

struct ToolAnnotations {
  bool read_only = false;    // readOnlyHint: does not change the desktop
  bool destructive = false;  // destructiveHint: may destroy data (only when not read-only)
  bool idempotent = false;   // idempotentHint: repeating it has no further effect
  bool open_world = false;   // openWorldHint: reaches outside the local desktop
};

struct Tool {
  std::string name;  // short verb, [a-z_]+ ("observe", "session_start")
  std::string title;
  std::string description;
  json input_schema;   // JSON Schema of `arguments`; must be {"type": "object", ...}
  json output_schema;  // JSON Schema of structuredContent; null when unstructured
  ToolAnnotations annotations;
  ToolHandler handler;
  // Listed and callable only for clients that declared the sampling
  // capability (the tool asks the client's model).
  bool needs_sampling = false;
};

class ToolRegistry {
 public:
  // InvalidArgument for a duplicate or malformed name, a schema using
  // keywords the validator does not check (json_schema.h), or no handler.
  Status Add(Tool tool);

  const Tool* Find(std::string_view name) const;
  // In registration order.
  const std::vector<Tool>& tools() const { return tools_; }

 private:
  std::vector<Tool> tools_;
};

// What tools/list publishes of each tool beyond its name, title,
// description and inputSchema. The defaults publish everything; `uiscope
// mcp` publishes the lean form unless --full-schemas (issue 21: every
// character of tools/list is paid for by every client in every session).
struct ToolListing {
  // Arguments described once elsewhere ({name: schema}), left out of each
  // published inputSchema (PublishedInputSchema). Empty: all listed.
  json shared_arguments = json::object();
  // Argument schemas published in a short form: [[declared, published],
  // ...]. Where a property is declared exactly as `declared`, the published
  // inputSchema shows `published` (looser, described fully elsewhere once);
  // tools/call still checks the declared schema.
  json short_forms = json::array();
  // The outputSchema (PublishedOutputSchema). Without it a tool still
  // returns its structuredContent; clients just do not validate it.
  bool output_schemas = true;
  // Also the annotations whose value is the MCP default (readOnlyHint and
  // idempotentHint false, destructiveHint and openWorldHint true), which a
  // client assumes when they are absent.
  bool default_annotations = true;
};

// The tools/list entry of `tool` as `listing` says.
json ToolToJson(const Tool& tool, const ToolListing& listing = {});
// `schema` as `listing` publishes it: without the properties declared
// exactly as in listing.shared_arguments ({name: schema}, described
// elsewhere once), and with listing.short_forms applied; where an argument
// is left out, additionalProperties: false goes too, so that a client that
// checks its arguments against the published schema still sends them.
json PublishedInputSchema(const json& schema, const ToolListing& listing);
// `schema` reduced for tools/list: the root's type, required and
// properties; each property's type (and enum or const); nothing deeper and
// no descriptions. Anything valid under `schema` is valid under it.
json PublishedOutputSchema(const json& schema);
// The tools/call result of `result` (content blocks, structuredContent, isError).
json ToolResultToJson(const ToolResult& result);

}  // namespace uiscope::mcp
