// uiscope's MCP tools: each Register* function adds one family of tools to a
// registry, binding it to the engine objects it works on (which must outlive
// the registry). Later capabilities add their own Register* here.
#pragma once

#include "core/result.h"
#include "engine/sessions.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/screenshot_tool.h"

namespace uiscope::mcp {

// `observe` and `find`, on the workspace's desktops.
Status RegisterDesktopTools(ToolRegistry& registry, Workspace& workspace);

// `session_start`, `session_list`, `session_stop`.
Status RegisterSessionTools(ToolRegistry& registry, SessionControl& sessions, Workspace& workspace);

// Every tool above, and `screenshot` (screenshot_tool.h).
Status RegisterAllTools(ToolRegistry& registry, Workspace& workspace, SessionControl& sessions);

}  // namespace uiscope::mcp
