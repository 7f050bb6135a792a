#include "mcp/tool_registry.h"

#include <algorithm>
#include <array>

#include "core/base64.h"
#include "mcp/json_schema.h"

namespace uiscope::mcp {
namespace {

constexpr std::array<std::string_view, 8> kLevelNames = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

bool ValidToolName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// The outputSchema tools/list publishes: the declared one with everything
// below the result's top-level properties reduced to its type, and no
// descriptions (issue 21: the full schemas were 70 % of tools/list, the same
// verification schema repeated in every action tool). It is looser than the
// declared schema, so whatever satisfies the declared one (which the server
// checks under ServerOptions::validate_output) satisfies it.
json PublishedSchema(const json& schema, int depth) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  if (schema.contains("type")) out["type"] = schema["type"];
  if (depth == 0) {
    if (schema.contains("required")) out["required"] = schema["required"];
    if (schema.contains("properties")) {
      json props = json::object();
      for (const auto& [key, value] : schema["properties"].items()) {
        props[key] = PublishedSchema(value, depth + 1);
      }
      out["properties"] = std::move(props);
    }
  } else if (depth == 1 && schema.contains("enum")) {
    out["enum"] = schema["enum"];
  } else if (depth == 1 && schema.contains("const")) {
    out["const"] = schema["const"];
  }
  return out;
}

}  // namespace

json PublishedOutputSchema(const json& schema) { return PublishedSchema(schema, 0); }

json PublishedInputSchema(const json& schema, const ToolListing& listing) {
  const json& shared_arguments = listing.shared_arguments;
  if (!schema.contains("properties")) return schema;
  json out = schema;
  json& properties = out["properties"];
  for (auto& [name, property] : properties.items()) {
    for (const json& form : listing.short_forms) {
      if (property == form.at(0)) {
        property = form.at(1);
        break;
      }
    }
  }
  if (!shared_arguments.is_object()) return out;
  const json required = schema.value("required", json::array());
  bool folded = false;
  for (const auto& [name, shared] : shared_arguments.items()) {
    auto it = properties.find(name);
    if (it == properties.end() || *it != shared) continue;
    if (std::find(required.begin(), required.end(), name) != required.end()) continue;
    properties.erase(it);
    folded = true;
  }
  if (folded && out.value("additionalProperties", json()) == false)
    out.erase("additionalProperties");
  return out;
}

ToolResult ToolResult::Error(std::string message) {
  ToolResult r;
  r.content.push_back(Content::Text(std::move(message)));
  r.is_error = true;
  return r;
}

ToolResult ToolResult::FromError(const uiscope::Error& error) {
  return Error(std::string(ErrorCodeName(error.code)) + ": " + error.message);
}

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (kLevelNames[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

std::string_view LogLevelName(LogLevel level) { return kLevelNames[static_cast<size_t>(level)]; }

Status ToolRegistry::Add(Tool tool) {
  auto invalid = [&](const std::string& what) {
    return MakeError(ErrorCode::kInvalidArgument, "tool \"" + tool.name + "\": " + what);
  };
  if (!ValidToolName(tool.name)) return invalid("names are 1-64 characters of [a-z0-9_]");
  if (Find(tool.name)) return invalid("registered twice");
  if (!tool.handler) return invalid("has no handler");
  if (!tool.input_schema.is_object() || tool.input_schema.value("type", "") != "object")
    return invalid("inputSchema must be a JSON Schema of type \"object\"");
  if (auto err = CheckSchema(tool.input_schema)) return invalid("inputSchema: " + *err);
  if (!tool.output_schema.is_null()) {
    if (!tool.output_schema.is_object() || tool.output_schema.value("type", "") != "object")
      return invalid("outputSchema must be a JSON Schema of type \"object\"");
    if (auto err = CheckSchema(tool.output_schema)) return invalid("outputSchema: " + *err);
  }
  tools_.push_back(std::move(tool));
  return OkStatus();
}

const Tool* ToolRegistry::Find(std::string_view name) const {
  for (const Tool& t : tools_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

json ToolToJson(const Tool& tool, const ToolListing& listing) {
  json j = {{"name", tool.name},
            {"title", tool.title},
            {"description", tool.description},
            {"inputSchema", PublishedInputSchema(tool.input_schema, listing)}};
  if (listing.output_schemas && !tool.output_schema.is_null())
    j["outputSchema"] = PublishedOutputSchema(tool.output_schema);
  // The title once, at the top (annotations.title is its older place).
  const ToolAnnotations& hints = tool.annotations;
  const bool all = listing.default_annotations;
  json a = json::object();
  if (all || hints.read_only) a["readOnlyHint"] = hints.read_only;
  if (all || hints.idempotent) a["idempotentHint"] = hints.idempotent;
  if (all || !hints.open_world) a["openWorldHint"] = hints.open_world;
  // destructiveHint is meaningful only for tools that change things.
  if (!hints.read_only && (all || !hints.destructive)) a["destructiveHint"] = hints.destructive;
  j["annotations"] = std::move(a);
  return j;
}

json ToolResultToJson(const ToolResult& result) {
  json content = json::array();
  for (const Content& c : result.content) {
    if (c.kind == Content::Kind::kText) {
      content.push_back({{"type", "text"}, {"text", c.text}});
    } else {
      content.push_back({{"type", "image"}, {"data", Base64Encode(c.data)}, {"mimeType", c.mime_type}});
    }
  }
  json j = {{"content", std::move(content)}, {"isError", result.is_error}};
  if (!result.structured.is_null()) j["structuredContent"] = result.structured;
  return j;
}

}  // namespace uiscope::mcp
