#include "engine/clipboard.h"

#include "core/keys.h"
#include "engine/act.h"
#include "engine/apps.h"
#include "engine/gated_action.h"
#include "engine/privacy.h"
#include "platform/process_name.h"
#include "session/clipboard_holder.h"

namespace uiscope {
namespace {

std::string OwnerApp(const ClipboardOwner& owner) {
  std::string name = ProcessName(owner.pid);
  return name.empty() ? owner.app_instance : name;
}

// A fake desktop (tests, the fuzzer) has no selections, and no holder
// process may be started for one.
Status NeedsDisplay(const Workspace::Lease& lease) {
  if (lease.desktop != nullptr) return OkStatus();
  return MakeError(ErrorCode::kUnavailable,
                   "desktop " + lease.display + " has no X display, so no clipboard");
}

std::string SelectionUpper(Selection s) {
  return s == Selection::kPrimary ? "PRIMARY" : "CLIPBOARD";
}

}  // namespace

Result<ClipboardGetResult> GetClipboard(Workspace::Lease& lease, const ClipboardGetRequest& r) {
  if (Status st = NeedsDisplay(lease); !st.ok()) return st.error();
  auto clipboard = lease.desktop->OpenClipboard();
  if (!clipboard.ok()) return clipboard.error();
  auto owner = (*clipboard)->Owner(r.selection);
  if (!owner.ok()) return owner.error();
  ClipboardGetResult result;
  result.owner = *owner;
  result.owner_app = OwnerApp(*owner);
  // DESIGN §8: what a denied app holds is not read, whichever way it shows.
  if (lease.observer != nullptr) {
    const HiddenWindows hidden = HiddenWindows::Of(*lease.observer);
    if (hidden.IsHidden(owner->pid, owner->app_class, owner->app_instance)) {
      return MakeError(ErrorCode::kDenied,
                       "the " + SelectionUpper(r.selection) + " selection belongs to " +
                           (result.owner_app.empty() ? "an app" : result.owner_app) +
                           (owner->pid > 0 ? " (pid " + std::to_string(owner->pid) + ")" : "") +
                           ", which the safety policy's deny list (deny_apps) hides; its "
                           "content is not read");
    }
  }
  auto data = (*clipboard)->Get(r.selection, r.mime, r.timeout, r.max_bytes);
  if (!data.ok()) return data.error();
  result.data = std::move(data).value();
  return result;
}

Result<ClipboardSetResult> SetClipboard(Workspace::Lease& lease, const ClipboardSetRequest& r) {
  if (Status st = NeedsDisplay(lease); !st.ok()) return st.error();
  if (r.data.mime.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "clipboard set needs a MIME type");
  }
  if (r.data.bytes.size() > kClipboardMaxBytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the content (" + std::to_string(r.data.bytes.size()) +
                         " bytes) is larger than the clipboard limit of " +
                         std::to_string(kClipboardMaxBytes) + " bytes");
  }
  // Apps trust what a selection says it is: text that is no UTF-8 or a PNG
  // that is none would reach them as garbage.
  if (IsTextMime(r.data.mime) && !DecodeUtf8(r.data.bytes).ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the text is not valid UTF-8; give another --mime for other bytes");
  }
  static constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";
  if (r.data.mime == "image/png" && !std::string_view(r.data.bytes).starts_with(kPngSignature)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the content is not a PNG image (no PNG signature)");
  }
  PlannedAction planned;
  planned.tool = "clipboard_set";
  planned.display = lease.display;
  planned.session = lease.session_id;
  planned.frame = lease.frame;
  // Never the content: the audit log and the confirmation store see what
  // kind of thing and how much (issue 15: "values redacted in the audit log").
  planned.arguments = {{"selection", SelectionName(r.selection)},
                       {"mime", r.data.mime},
                       {"bytes", r.data.bytes.size()}};
  planned.confirmation_token = r.confirmation_token;
  ActionGate& gate = *lease.gate;
  ClipboardSetResult result;
  GatedAction action(gate, std::move(planned));
  result.decision = action.decision();
  ActionOutcome& outcome = action.outcome();
  if (result.decision.verdict != GateVerdict::kAllow) {
    action.Record();
    return result;
  }
  std::optional<DesktopInfo> session;
  if (!lease.session_id.empty()) {
    if (auto info = FindSession(lease.session_id); info.ok()) session = std::move(info).value();
  }
  ClipboardHoldRequest hold;
  hold.display = lease.display;
  hold.session = session ? &*session : nullptr;
  hold.selection = r.selection;
  hold.data = r.data;
  hold.hold_for = r.hold_for;
  auto pid = StartClipboardHolder(hold);
  if (!pid.ok()) {
    outcome.error = pid.error().message;
    action.Record();
    return pid.error();
  }
  result.performed = true;
  result.holder_pid = *pid;
  outcome.performed = true;
  outcome.via = "x11_selection";
  // Read back who owns the selection now: the holder, unless an app took it
  // in the meantime.
  if (auto clipboard = lease.desktop->OpenClipboard(); clipboard.ok()) {
    if (auto owner = (*clipboard)->Owner(r.selection); owner.ok()) {
      result.verified = owner->pid == *pid;
    }
  }
  outcome.effect = result.verified ? "observed" : "none";
  outcome.verification = {{"holder_pid", *pid}, {"owner_is_holder", result.verified}};
  action.Record();
  return result;
}

}  // namespace uiscope
