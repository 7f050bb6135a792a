// What a server offers beside its tools: MCP resources (resources/list,
// read, templates/list, subscribe / unsubscribe with
// notifications/resources/updated) and prompts (prompts/list, get).
//
// The server layer (server.cpp) speaks the protocol; a provider knows what
// the resources and prompts are (mcp/tools/context_provider.h binds them to
// uiscope's desktops). A server without a provider declares neither
// capability and answers those methods with "method not found".
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/result.h"
#include "mcp/json_rpc.h"

namespace uiscope::mcp {

// A watch on one resource; destroying it stops the watching (and waits for
// a `changed` call in progress to return).
class ResourceWatch {
 public:
  virtual ~ResourceWatch() = default;
};

class ResourceProvider {
 public:
  virtual ~ResourceProvider() = default;
  // The resources/list entries ({uri, name, mimeType, ...}) that exist now.
  virtual json List() = 0;
  // The resources/templates/list entries ({uriTemplate, name, ...}).
  virtual json Templates() = 0;
  // The resources/read `contents` of `uri`: NotFound for a URI that names
  // nothing (answered with -32002), other errors as they are.
  virtual Result<json> Read(const std::string& uri) = 0;
  // Starts watching `uri`: `changed` runs on a thread of the watch's own
  // each time the resource changed. NotFound / InvalidArgument for a URI
  // that cannot be watched.
  virtual Result<std::unique_ptr<ResourceWatch>> Watch(const std::string& uri,
                                                       std::function<void()> changed) = 0;
};

class PromptProvider {
 public:
  virtual ~PromptProvider() = default;
  // The prompts/list entries ({name, description, arguments}).
  virtual json List() = 0;
  // The prompts/get result ({description, messages}); InvalidArgument for an
  // unknown name or a missing required argument (answered with -32602).
  virtual Result<json> Get(const std::string& name, const json& arguments) = 0;
};

}  // namespace uiscope::mcp
