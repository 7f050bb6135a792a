// The toolkit specialists' MCP tools (issue 19): `shortcuts` (an app's
// shortcut registry, engine/shortcuts.h), `discover` (its capabilities,
// engine/discover.h) and `menu` (a menu path walked through accessibility,
// engine/menu_path.h), and the lookup behind press_keys' `action`.
#pragma once

#include <memory>

#include "core/result.h"
#include "core/shortcuts.h"
#include "engine/act.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/confirm_tools.h"

namespace uiscope::mcp {

// `store` keeps the registries (null: read afresh, not kept); `confirmer`
// holds menu openings the safety policy asks a person about.
Status RegisterSpecialistTools(ToolRegistry& registry, Workspace& workspace,
                               std::shared_ptr<Confirmer> confirmer,
                               std::shared_ptr<ShortcutRegistryStore> store);

// press_keys {action, app}: fills `request` with the chord the app's
// registry gives `action` and the element to press it into
// (engine/shortcuts.h PlanShortcutPress), with what `store` keeps (a
// person's and learned entries; may be null). Returns the entry used.
Result<Shortcut> ResolveShortcutPress(Workspace& workspace, const std::string& session,
                                      const std::string& app, const std::string& action,
                                      ShortcutRegistryStore* store, ActionRequest& request);

}  // namespace uiscope::mcp
