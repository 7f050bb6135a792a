// uiscope's hands over MCP (DESIGN §7, §9):
// - action_tools.cpp: `click`, `type_text`, `press_keys`, `scroll`, `drag`,
//   `set_value` — each resolved by ID (or at a point), passed through the
//   workspace's ActionGate, performed and verified; the result says how it
//   was done (via), what changed in the tree, the pixel change and whether
//   an effect was observed.
// - wait_tools.cpp: `wait_for` an element, a name, a text, an element gone
//   or any change, with a deadline and progress.
// - app_tools.cpp: `windows`, `app_launch`, `app_list`, `app_focus`,
//   `app_close`.
// Every tool declares inputSchema, outputSchema (structuredContent) and
// annotations. A refusal by the safety policy is a result with isError and
// the decision (verdict, rule, reason, confirmation token) in
// structuredContent.
#pragma once

#include <memory>

#include "core/result.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

// The six action tools, on the workspace's desktops (which must outlive the
// registry).
Status RegisterActionTools(ToolRegistry& registry, Workspace& workspace);

// `wait_for`; `reader` reads text by OCR when the tree lacks it (null: the
// tool makes its own on first need).
Status RegisterWaitTools(ToolRegistry& registry, Workspace& workspace,
                         std::shared_ptr<TextReader> reader = nullptr);

// `windows`, `app_launch`, `app_list`, `app_focus`, `app_close`.
Status RegisterAppTools(ToolRegistry& registry, Workspace& workspace);

// All of the above.
Status RegisterHandsTools(ToolRegistry& registry, Workspace& workspace,
                          std::shared_ptr<TextReader> reader);

}  // namespace uiscope::mcp
