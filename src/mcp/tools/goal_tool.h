// `execute_goal {goal, session?, max_steps}` (issue 21 part 6, seed 001's
// planner through MCP sampling): listed only for clients that declared the
// `sampling` capability. Each round observes (the plan_actions prompt: OCR
// text, compact tree, metadata; password fields redacted; never pixels),
// asks the client's model for a plan with sampling/createMessage, validates
// it (R2: one retry with a stricter prompt, then stop with the model's
// output in the error) and runs it through `execute_plan` (safety,
// confirmations, verification). The model answers [] when the goal is
// reached; the tool stops there, at the first plan that does not finish, or
// after max_steps rounds. One progress notification per round.
#pragma once

#include <memory>

#include "mcp/resources.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

inline constexpr int kMaxGoalSteps = 20;

// `registry` must hold `execute_plan` when the tool is called and outlive
// it; `prompts` supplies plan_actions.
Status RegisterGoalTool(ToolRegistry& registry, std::shared_ptr<PromptProvider> prompts);

}  // namespace uiscope::mcp
