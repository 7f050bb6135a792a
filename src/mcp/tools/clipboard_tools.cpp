// `clipboard_get` and `clipboard_set`: the desktop's X selections
// (engine/clipboard.h). An image comes back as MCP image content; text as
// text content and in structuredContent. clipboard_set runs through the
// confirmer like every action; neither the audit log nor a held
// confirmation keeps the content (mime and size only).
#include "mcp/tools/clipboard_tools.h"

#include <chrono>

#include "core/base64.h"
#include "core/escape.h"
#include "engine/act.h"
#include "engine/clipboard.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::String;

// What one answer may carry: base64 makes it a third larger, and the
// server refuses messages over 16 MiB by default.
constexpr size_t kMcpClipboardMaxBytes = size_t{8} << 20;

struct ClipboardTools {
  ClipboardTools(Workspace& w, std::shared_ptr<Confirmer> c)
      : workspace(w), confirmer(std::move(c)) {}
  Workspace& workspace;
  std::shared_ptr<Confirmer> confirmer;
};
using ClipboardToolsPtr = std::shared_ptr<ClipboardTools>;

Result<Workspace::Lease> Acquire(ClipboardTools& tools, const json& args, ToolContext& ctx) {
  auto lease = tools.workspace.Acquire(args.value("session", ""));
  if (!lease.ok()) return lease.error();
  for (const auto& note : lease->notes) ctx.Log(LogLevel::kNotice, note);
  return lease;
}

ToolResult Get(const ClipboardToolsPtr& tools, const json& args, ToolContext& ctx) {
  ClipboardGetRequest r;
  auto selection = ParseSelection(args.value("selection", "clipboard"));
  if (!selection.ok()) return ToolResult::FromError(selection.error());
  r.selection = *selection;
  r.mime = args.value("mime", std::string(kTextMime));
  r.timeout = std::chrono::milliseconds(args.value("timeout_ms", 5000));
  r.max_bytes = kMcpClipboardMaxBytes;
  const bool text = IsTextMime(r.mime);
  if (!text && !r.mime.starts_with("image/")) {
    return ToolResult::Error("clipboard_get returns text/plain or an image/* type; " + r.mime +
                             " is neither (use `uiscope clipboard get --mime " + r.mime +
                             " --out FILE`)");
  }
  auto lease = Acquire(*tools, args, ctx);
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  auto got = GetClipboard(*lease, r);
  if (!got.ok()) return ToolResult::FromError(got.error());
  ToolResult out;
  out.structured = {{"selection", SelectionName(r.selection)},
                    {"mime", got->data.mime},
                    {"bytes", got->data.bytes.size()},
                    {"owner", ClipboardOwnerToJson(*got)}};
  if (text) {
    out.structured["text"] = got->data.bytes;
    out.content.push_back(Content::Text(got->data.bytes));
  } else {
    out.content.push_back(Content::Image(got->data.mime, std::move(got->data.bytes)));
  }
  return out;
}

ToolResult Set(const ClipboardToolsPtr& tools, const json& args, ToolContext& ctx) {
  ClipboardSetRequest r;
  auto selection = ParseSelection(args.value("selection", "clipboard"));
  if (!selection.ok()) return ToolResult::FromError(selection.error());
  r.selection = *selection;
  const bool has_text = args.contains("text");
  const bool has_data = args.contains("data_base64");
  if (has_text == has_data) {
    return ToolResult::Error("clipboard_set needs exactly one of text and data_base64");
  }
  r.data.mime = args.value("mime", has_text ? std::string(kTextMime) : std::string());
  if (has_text) {
    r.data.bytes = args["text"].get<std::string>();
  } else {
    if (r.data.mime.empty()) return ToolResult::Error("data_base64 needs its mime (image/png)");
    auto bytes = Base64Decode(args["data_base64"].get<std::string>());
    if (!bytes) return ToolResult::Error("data_base64 is not valid base64");
    r.data.bytes = std::move(*bytes);
  }
  r.hold_for = std::chrono::hours(args.value("hold_hours", 8));
  r.confirmation_token = args.value("confirmation_token", "");
  const std::string what = "put " + std::to_string(r.data.bytes.size()) + " bytes of " +
                           r.data.mime + " on the " + std::string(SelectionName(r.selection));
  return tools->confirmer->Run(
      ctx, what, [tools, args, r](const std::string& token, ToolContext& now) {
        ClipboardSetRequest request = r;
        if (!token.empty()) request.confirmation_token = token;
        auto lease = Acquire(*tools, args, now);
        if (!lease.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(lease.error()));
        auto result = SetClipboard(*lease, request);
        if (!result.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(result.error()));
        ToolResult out;
        out.structured = ClipboardSetResultToJson(request, *result);
        if (!result->performed) {
          const GateDecision& d = result->decision;
          std::string text = "clipboard_set: not performed, " +
                             std::string(GateVerdictName(d.verdict)) +
                             (d.rule.empty() ? "" : " by rule " + EscapeForDisplay(d.rule)) +
                             (d.reason.empty() ? "" : ": " + EscapeForDisplay(d.reason)) + "\n";
          if (!d.token.empty()) text += "confirmation token: " + d.token + "\n";
          out.content.push_back(Content::Text(std::move(text)));
          out.is_error = true;
          if (d.verdict == GateVerdict::kNeedsConfirmation) {
            return Confirmer::Attempt::Held(d, std::move(out));
          }
          return Confirmer::Attempt::Done(std::move(out));
        }
        out.content.push_back(Content::Text(
            std::to_string(request.data.bytes.size()) + " bytes of " + request.data.mime +
            " on the " + std::string(SelectionName(request.selection)) + ", held by pid " +
            std::to_string(result->holder_pid) + " until another app copies, the session ends or " +
            std::to_string(request.hold_for.count() / 3600) + " h pass\n"));
        return Confirmer::Attempt::Done(std::move(out));
      });
}

json OwnerSchema() {
  return {{"type", "object"},
          {"properties",
           {{"window", String("the owner's X window (0x...)")},
            {"pid", {{"type", "integer"}, {"description", "its process; 0 when unknown"}}},
            {"app", String("its process name, else WM_CLASS instance")},
            {"app_class", String("WM_CLASS class")}}}};
}

}  // namespace

Status RegisterClipboardTools(ToolRegistry& registry, Workspace& workspace,
                              std::shared_ptr<Confirmer> confirmer) {
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  auto tools = std::make_shared<ClipboardTools>(workspace, std::move(confirmer));
  const json selection = {
      {"type", "string"},
      {"enum", {"clipboard", "primary"}},
      {"default", "clipboard"},
      {"description", "primary: the mouse selection"}};
  Tool get;
  get.name = "clipboard_get";
  get.title = "Read the clipboard";
  get.description =
      "What was copied, with its owner: text, or an image (mime image/png). Refused when the "
      "owner is on the deny list.";
  get.input_schema = {{"type", "object"},
                      {"additionalProperties", false},
                      {"properties",
                       {{"selection", selection},
                        {"mime", String("the type to ask for: text/plain (default), image/png")},
                        {"timeout_ms", schema::TimeoutMs(5000, "for the whole transfer")},
                        {"session", schema::SessionArgument()}}}};
  get.output_schema = {{"type", "object"},
                       {"required", {"selection", "mime", "bytes", "owner"}},
                       {"properties",
                        {{"selection", String("clipboard or primary")},
                         {"mime", String("the content's type")},
                         {"bytes", {{"type", "integer"}}},
                         {"text", String("the text, for text/plain")},
                         {"owner", OwnerSchema()}}}};
  get.annotations = {
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  get.handler = [tools](const json& args, ToolContext& ctx) { return Get(tools, args, ctx); };
  if (auto st = registry.Add(std::move(get)); !st.ok()) return st;

  Tool set;
  set.name = "clipboard_set";
  set.title = "Put content on the clipboard";
  set.description =
      "Puts text (or data_base64 with mime) on the clipboard for apps to paste, until another "
      "app copies or hold_hours pass; under the safety policy.";
  set.input_schema = {{"type", "object"},
                      {"additionalProperties", false},
                      {"properties",
                       {{"text", String("the text (UTF-8)")},
                        {"data_base64", String("instead of text: the bytes, base64 (with mime)")},
                        {"mime", String("text/plain (default for text), image/png, ...")},
                        {"selection", selection},
                        {"hold_hours",
                         {{"type", "integer"},
                          {"minimum", 1},
                          {"maximum", 8},
                          {"default", 8},
                          {"description", "offer it at most this long"}}},
                        {"confirmation_token", schema::ConfirmationToken()},
                        {"session", schema::SessionArgument()}}}};
  set.output_schema = {{"type", "object"},
                       {"required", {"performed", "selection", "mime", "bytes"}},
                       {"properties",
                        {{"performed", Boolean("the content is on the selection")},
                         {"selection", String("clipboard or primary")},
                         {"mime", String("its type")},
                         {"bytes", {{"type", "integer"}}},
                         {"holder_pid", {{"type", "integer"}}},
                         {"verified", Boolean("the server names the holder as the owner")},
                         {"hold_s", {{"type", "integer"}}},
                         {"decision", schema::Decision()}}}};
  set.annotations = {
      .read_only = false, .destructive = true, .idempotent = true, .open_world = false};
  set.handler = [tools](const json& args, ToolContext& ctx) { return Set(tools, args, ctx); };
  return registry.Add(std::move(set));
}

}  // namespace uiscope::mcp
