// `clipboard_get` / `clipboard_set` over MCP (issue 15 part 10); see
// engine/clipboard.h for the policy they run under.
#pragma once

#include <memory>

#include "core/result.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/confirm_tools.h"

namespace uiscope::mcp {

// Both tools, on the workspace's desktops (which must outlive the registry);
// clipboard_set through `confirmer` like the action tools (null: no policy
// of its own).
Status RegisterClipboardTools(ToolRegistry& registry, Workspace& workspace,
                              std::shared_ptr<Confirmer> confirmer = nullptr);

}  // namespace uiscope::mcp
