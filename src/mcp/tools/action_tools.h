// uiscope's hands over MCP (DESIGN §7, §9):
// - action_tools.cpp: `click`, `type_text`, `press_keys`, `scroll`, `drag`,
//   `set_value` — each resolved by ID, at a point, or by name (find-then-act,
//   engine/named_target.h: several matches are held for confirmation, R4),
//   passed through the
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
#include "core/shortcuts.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/confirm_tools.h"

namespace uiscope::mcp {

// The six action tools, on the workspace's desktops (which must outlive the
// registry). Each call runs through `confirmer` (confirm_tools.h): an
// action the workspace's gate holds is asked about (elicitation) or comes
// back as confirmation_required. `confirmer` should hold the workspace's
// gate; null: no policy of its own (a held action comes back as refused,
// with its token).
// `shortcuts` (may be null): the shortcut registries press_keys {action}
// looks in, and where a press that opened a named dialog is learned
// (engine/shortcuts.h LearnShortcut) while the workspace learns.
Status RegisterActionTools(ToolRegistry& registry, Workspace& workspace,
                           std::shared_ptr<Confirmer> confirmer = nullptr,
                           std::shared_ptr<ShortcutRegistryStore> shortcuts = nullptr);

// `wait_for`; `reader` reads text by OCR when the tree lacks it (null: the
// tool makes its own on first need).
Status RegisterWaitTools(ToolRegistry& registry, Workspace& workspace,
                         std::shared_ptr<TextReader> reader = nullptr);

// `windows`, `app_launch`, `app_list`, `app_focus`, `app_close`; the last
// three through `confirmer` like the action tools.
Status RegisterAppTools(ToolRegistry& registry, Workspace& workspace,
                        std::shared_ptr<Confirmer> confirmer = nullptr);

// All of the above.
Status RegisterHandsTools(ToolRegistry& registry, Workspace& workspace,
                          std::shared_ptr<TextReader> reader,
                          std::shared_ptr<Confirmer> confirmer = nullptr,
                          std::shared_ptr<ShortcutRegistryStore> shortcuts = nullptr);

}  // namespace uiscope::mcp
