#include "mcp/protocol.h"

namespace uiscope::mcp {
namespace {

const json* Field(const json& j, const char* name) {
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

std::string RequireString(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f) throw ParamError(std::string("missing \"") + name + "\"");
  if (!f->is_string()) throw ParamError(std::string("\"") + name + "\" must be a string");
  return f->get<std::string>();
}

std::optional<std::string> OptionalString(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f || f->is_null()) return std::nullopt;
  if (!f->is_string()) throw ParamError(std::string("\"") + name + "\" must be a string");
  return f->get<std::string>();
}

void RequireObject(const json& j) {
  if (!j.is_object()) throw ParamError("params must be an object");
}

}  // namespace

bool IsSupportedProtocolVersion(std::string_view version) {
  for (const char* v : kProtocolVersions) {
    if (version == v) return true;
  }
  return false;
}

void FromJson(const json& j, EmptyParams&) { RequireObject(j); }

void FromJson(const json& j, InitializeParams& p) {
  RequireObject(j);
  p.protocol_version = RequireString(j, "protocolVersion");
  if (const json* c = Field(j, "capabilities")) {
    if (!c->is_object()) throw ParamError("\"capabilities\" must be an object");
    p.capabilities = *c;
  }
  if (const json* info = Field(j, "clientInfo")) {
    if (!info->is_object()) throw ParamError("\"clientInfo\" must be an object");
    p.client_name = OptionalString(*info, "name").value_or("");
    p.client_version = OptionalString(*info, "version").value_or("");
  }
}

void FromJson(const json& j, ListToolsParams& p) {
  RequireObject(j);
  p.cursor = OptionalString(j, "cursor");
}

void FromJson(const json& j, CallToolParams& p) {
  RequireObject(j);
  p.name = RequireString(j, "name");
  if (const json* a = Field(j, "arguments"); a && !a->is_null()) {
    if (!a->is_object()) throw ParamError("\"arguments\" must be an object");
    p.arguments = *a;
  }
  if (const json* meta = Field(j, "_meta"); meta && meta->is_object()) {
    if (const json* token = Field(*meta, "progressToken"); token && !token->is_null()) {
      if (!IsValidId(*token))
        throw ParamError("\"_meta.progressToken\" must be a string or an integer");
      p.progress_token = *token;
    }
  }
}

void FromJson(const json& j, SetLevelParams& p) {
  RequireObject(j);
  p.level = RequireString(j, "level");
}

void FromJson(const json& j, ReadResourceParams& p) {
  RequireObject(j);
  p.uri = RequireString(j, "uri");
}

void FromJson(const json& j, GetPromptParams& p) {
  RequireObject(j);
  p.name = RequireString(j, "name");
  if (const json* a = Field(j, "arguments"); a && !a->is_null()) {
    if (!a->is_object()) throw ParamError("\"arguments\" must be an object");
    for (const auto& [key, value] : a->items()) {
      if (!value.is_string())
        throw ParamError("\"arguments." + key + "\" must be a string (prompt arguments are)");
    }
    p.arguments = *a;
  }
}

void FromJson(const json& j, CancelledParams& p) {
  RequireObject(j);
  const json* id = Field(j, "requestId");
  if (!id || !IsValidId(*id)) throw ParamError("\"requestId\" must be a string or an integer");
  p.request_id = *id;
  p.reason = OptionalString(j, "reason").value_or("");
}

}  // namespace uiscope::mcp
