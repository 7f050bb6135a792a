// `execute_plan` (issue 7, seed 001; plan_tools.cpp): a JSON array of steps
// (engine/plan.h) validated as a whole (R2: nothing runs when any step is
// invalid), then run in order. Every action step is the matching action
// (click, type_text, press_keys, app_launch) through the workspace's gate
// and `confirmer` (confirm_tools.h) and verified; a step's label is
// resolved by find-then-act (R4 when several elements match);
// requireConfirmation and confirm_tools' "execute_plan" hold a step for a
// person. The plan stops at the first step refused, failed or held (the
// held step's token is in its report; `confirm` performs that step only).
// After each action the desktop is observed again unless the pixel diff is
// below 0.01 and the focus did not move (R1, reported as skipped).
#pragma once

#include <memory>

#include "engine/workspace.h"
#include "mcp/tool_registry.h"
#include "mcp/tools/confirm_tools.h"

namespace uiscope::mcp {

// `confirmer` null: no policy of its own (AllowAllGate; nothing is held).
Status RegisterPlanTools(ToolRegistry& registry, Workspace& workspace,
                         std::shared_ptr<Confirmer> confirmer = nullptr);

}  // namespace uiscope::mcp
