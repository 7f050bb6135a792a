// uiscope's MCP tools: each Register* function adds one family of tools to a
// registry, binding it to the engine objects it works on (which must outlive
// the registry). Later capabilities add their own Register* here.
#pragma once

#include <memory>

#include "core/result.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/clipboard_tools.h"
#include "mcp/tools/confirm_tools.h"
#include "mcp/tools/screenshot_tool.h"
#include "mcp/tools/specialist_tools.h"
#include "session/sessions.h"

namespace uiscope::mcp {

// `observe` and `find`, on the workspace's desktops; `reader` is the OCR of
// observe's sources ["ax", "ocr"] (the first form makes its own).
Status RegisterDesktopTools(ToolRegistry& registry, Workspace& workspace);
Status RegisterDesktopTools(ToolRegistry& registry, Workspace& workspace,
                            std::shared_ptr<TextReader> reader);

// `session_start`, `session_list`, `session_stop`; starting and stopping go
// through `confirmer`'s gate (the first form: no policy, AllowAllGate).
Status RegisterSessionTools(ToolRegistry& registry, SessionControl& sessions, Workspace& workspace);
Status RegisterSessionTools(ToolRegistry& registry, SessionControl& sessions, Workspace& workspace,
                            std::shared_ptr<Confirmer> confirmer);

// Every tool above, `screenshot` (screenshot_tool.h), `read_text`
// (ocr_tools.h), the hands (action_tools.h), the clipboard
// (clipboard_tools.h) and the toolkit specialists (specialist_tools.h:
// shortcuts, discover, menu), sharing one OCR engine. The
// second form puts the tools that act behind `confirmer`'s safety policy and
// adds `confirm` (confirm_tools.h); the first has no policy (tests,
// embedders).
Status RegisterAllTools(ToolRegistry& registry, Workspace& workspace, SessionControl& sessions);
// `shortcut_store` keeps the `shortcuts` tool's registries (null: not kept).
Status RegisterAllTools(ToolRegistry& registry, Workspace& workspace, SessionControl& sessions,
                        std::shared_ptr<Confirmer> confirmer,
                        std::shared_ptr<ShortcutRegistryStore> shortcut_store = nullptr);

}  // namespace uiscope::mcp
