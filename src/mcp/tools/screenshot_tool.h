// The `screenshot` tool: the pixels of a session's screen, a region or a
// window as MCP image content (PNG, WebP or JPEG), optionally shrunk and
// overlaid with set-of-marks, plus structuredContent describing the image,
// its coordinate mapping and the marks drawn.
#pragma once

#include "core/result.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

// `screenshot`, on the workspace's desktops (which must outlive the registry).
Status RegisterScreenshotTools(ToolRegistry& registry, Workspace& workspace);

}  // namespace uiscope::mcp
