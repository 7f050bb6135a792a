// The clipboard of a desktop under the safety policy (issue 15 part 10,
// DESIGN §6, §8), shared by `uiscope clipboard` and the MCP tools
// `clipboard_get` / `clipboard_set`:
//   - GetClipboard() reads a selection, unless its owner (the selection's
//     window → its process, its WM_CLASS; engine/privacy.h) is an app the
//     deny list hides: then kDenied, and nothing is read from it.
//   - SetClipboard() is an action: PlannedAction "clipboard_set" through the
//     lease's gate (deny list, confirm_tools, rate limit, audit log), then
//     a holder process owns the selection (session/clipboard_holder.h). The
//     gate sees only the MIME type, the size and the selection, never the
//     content, so neither the audit log nor a pending confirmation holds it.
#pragma once

#include <chrono>
#include <string>

#include "core/result.h"
#include "engine/action_gate.h"
#include "engine/workspace.h"
#include "platform/clipboard.h"

namespace uiscope {

struct ClipboardGetRequest {
  Selection selection = Selection::kClipboard;
  std::string mime = std::string(kTextMime);
  std::chrono::milliseconds timeout{5000};  // the whole transfer
  size_t max_bytes = kClipboardMaxBytes;
};

struct ClipboardGetResult {
  ClipboardData data;
  ClipboardOwner owner;
  std::string owner_app;  // the owner's process name, else its WM_CLASS instance; "" unknown
};

Result<ClipboardGetResult> GetClipboard(Workspace::Lease& lease, const ClipboardGetRequest& r);

struct ClipboardSetRequest {
  Selection selection = Selection::kClipboard;
  ClipboardData data;
  std::chrono::seconds hold_for = std::chrono::hours(8);  // <= kClipboardHoldLimit
  std::string confirmation_token;
};

struct ClipboardSetResult {
  bool performed = false;
  GateDecision decision;  // why not, when not performed
  int holder_pid = 0;     // the process serving the content
  // The selection's owner is the holder now (read back from the server).
  bool verified = false;
};

// Errors: InvalidArgument (empty MIME type, content over kClipboardMaxBytes),
// those of StartClipboardHolder(). A refusal by the gate is a result with
// performed = false.
Result<ClipboardSetResult> SetClipboard(Workspace::Lease& lease, const ClipboardSetRequest& r);

}  // namespace uiscope
