// `teach` and `memory` over MCP (issue 18, seed 002 §4.3 and §11): a person
// (or an agent on their behalf) teaches a target by its label at a screen
// point; `memory` lists what uiscope learned, per app, read-only (forgetting
// is the person's: `uiscope memory forget`).
#pragma once

#include <memory>

#include "core/result.h"
#include "engine/learner.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "memory/target_store.h"

namespace uiscope::mcp {

// Both tools on `store` (must not be null); `teach` teaches through
// `learner` (null when learning is off: teach then says so).
Status RegisterMemoryTools(ToolRegistry& registry, Workspace& workspace,
                           std::shared_ptr<memory::TargetStore> store,
                           std::shared_ptr<Learner> learner);

}  // namespace uiscope::mcp
