// uiscope's MCP resources and prompts (mcp/resources.h), bound to its
// desktops through the registered tools: a resource or a prompt's context is
// what `observe`, `screenshot`, `read_text` and `session_list` give, so the
// redaction of password fields and the deny list apply to them unchanged.
//
// Resources:
//   uiscope://sessions                          the sessions (JSON)
//   uiscope://session/{id}/tree                 the compact tree (text)
//   uiscope://session/{id}/screenshot           the screen (PNG blob)
//   uiscope://session/{id}/audit                recent audit entries (JSON,
//                                               redacted as recorded)
//   uiscope://session/{id}/memory/{app}         what was learned of an app
//                                               (JSON; listed when it exists)
// {id} is a session ID from session_list, or "default" for the server's own
// desktop. A subscription to a tree watches its desktop on a thread of its
// own every kWatchIntervalMs and notifies when seed 001's R1 says the screen
// changed: a pixel difference of kR1DiffThreshold or more, or the focus
// moved (engine/plan.h).
//
// Prompts:
//   plan_actions {goal, session?}  seed 001's system instruction and wrapper:
//       the screen context (OCR text + compact tree + metadata, password
//       fields redacted), the goal, and execute_plan's strict JSON schema.
//   describe_screen {session?}     the same context, asking for a
//       description of the screen.
#pragma once

#include <memory>

#include "engine/workspace.h"
#include "mcp/resources.h"
#include "mcp/tool_registry.h"
#include "memory/audit_log.h"
#include "memory/target_store.h"

namespace uiscope::mcp {

inline constexpr int kWatchIntervalMs = 500;

struct ContextSources {
  const ToolRegistry* tools = nullptr;          // observe, screenshot, read_text, session_list
  Workspace* workspace = nullptr;               // for the watches' captures
  std::shared_ptr<memory::AuditLog> audit;      // null: the audit resources say so
  std::shared_ptr<memory::TargetStore> memory;  // null: no memory resources
};

// `sources.tools` and `sources.workspace` must outlive the providers.
std::shared_ptr<ResourceProvider> MakeResourceProvider(ContextSources sources);
std::shared_ptr<PromptProvider> MakePromptProvider(ContextSources sources);

}  // namespace uiscope::mcp
