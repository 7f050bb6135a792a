// MCP wire structs (lifecycle, tools, resources, prompts, logging, cancellation) and their
// FromJson, in one place. FromJson throws ParamError naming the bad field;
// only the binder calls it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mcp/binder.h"

namespace uiscope::mcp {

// Protocol versions this server speaks, newest first.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
inline constexpr const char* kLatestProtocolVersion = kProtocolVersions[0];
bool IsSupportedProtocolVersion(std::string_view version);

struct EmptyParams {};

struct InitializeParams {
  std::string protocol_version;  // protocolVersion
  json capabilities = json::object();
  std::string client_name;  // clientInfo.name
  std::string client_version;
};

struct ListToolsParams {
  std::optional<std::string> cursor;
};

struct CallToolParams {
  std::string name;
  json arguments = json::object();
  json progress_token;  // _meta.progressToken (string or integer); null = none
};

struct ReadResourceParams {
  std::string uri;  // also resources/subscribe and unsubscribe
};

struct GetPromptParams {
  std::string name;
  json arguments = json::object();  // string values by argument name
};

struct SetLevelParams {
  std::string level;  // a LogLevel name
};

struct CancelledParams {
  json request_id;  // requestId
  std::string reason;
};

void FromJson(const json& j, EmptyParams& p);
void FromJson(const json& j, InitializeParams& p);
void FromJson(const json& j, ListToolsParams& p);
void FromJson(const json& j, CallToolParams& p);
void FromJson(const json& j, SetLevelParams& p);
void FromJson(const json& j, ReadResourceParams& p);
void FromJson(const json& j, GetPromptParams& p);
void FromJson(const json& j, CancelledParams& p);

}  // namespace uiscope::mcp
