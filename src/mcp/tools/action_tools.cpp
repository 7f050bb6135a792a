// `click`, `type_text`, `press_keys`, `scroll`, `drag`, `set_value`: acting
// by element ID or screen point, each verified (engine/act.h).
#include "mcp/tools/action_tools.h"

#include <chrono>
#include <string>

#include "core/escape.h"
#include "core/format.h"
#include "core/keys.h"
#include "core/shortcuts.h"
#include "engine/act.h"
#include "engine/find.h"
#include "engine/named_target.h"
#include "engine/shortcuts.h"
#include "mcp/tools/confirm_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/tools/specialist_tools.h"
#include "mcp/tools/tools.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace schema {

json ActionTarget(const char* description) {
  json target = {
      {"anyOf",
       {{{"type", "string"}, {"minLength", 1}},
        {{"type", "object"},
         {"additionalProperties", false},
         {"required", {"x", "y"}},
         {"properties", {{"x", {{"type", "integer"}}}, {"y", {{"type", "integer"}}}}}}}}};
  if (*description) target["description"] = description;
  return target;
}

json Diff() {
  const json field = {{"type", "object"},
                      {"required", {"field", "before", "after"}},
                      {"properties",
                       {{"field", String("name, value, description, states, actions or bounds")},
                        {"before", String("old value (bounds as x,y,w,h)")},
                        {"after", String("new value")}}}};
  return {{"type", "object"},
          {"required", {"added", "removed", "changed"}},
          {"properties",
           {{"added",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"parent_id", "subtree_size", "node"}},
                {"properties",
                 {{"parent_id", String("ID of the parent (\"\" for a root)")},
                  {"subtree_size", {{"type", "integer"}}},
                  {"node", Node()}}}}},
              {"description", "new elements (topmost of each new subtree, with its children)"}}},
            {"removed",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"id", "role", "name", "parent_id", "subtree_size"}},
                {"properties",
                 {{"id", String("the element's ID")},
                  {"role", String("its role")},
                  {"name", String("its name")},
                  {"parent_id", String("ID of its parent")},
                  {"subtree_size", {{"type", "integer"}}}}}}},
              {"description", "elements gone (topmost of each)"}}},
            {"changed",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"id", "role", "name", "fields", "states_added", "states_removed"}},
                {"properties",
                 {{"id", String("the element's ID")},
                  {"role", String("its role")},
                  {"name", String("its name now")},
                  {"fields", {{"type", "array"}, {"items", field}}},
                  {"states_added", StringArray("states it gained")},
                  {"states_removed", StringArray("states it lost")}}}}},
              {"description",
               "elements whose name, value, description, states, actions or "
               "bounds changed"}}}}}};
}

json PixelChange() {
  return {
      {"type", "object"},
      {"required", {"captured", "score", "changed_pixels"}},
      {"properties",
       {{"captured", Boolean("both captures were taken")},
        {"score", {{"type", "number"}, {"description", "changed pixels / pixels compared"}}},
        {"changed_pixels", {{"type", "integer"}}},
        {"compared_pixels",
         {{"type", "integer"}, {"description", "area of the windows compared (screen pixels)"}}},
        {"region", Bounds()},
        {"compared",
         {{"type", "array"},
          {"items", Bounds()},
          {"description",
           "the target's window and every window the action opened, closed or moved"}}},
        {"bounds", Bounds()},
        {"areas",
         {{"type", "array"},
          {"items", Bounds()},
          {"description", "where it changed, as separate boxes, largest first"}}}}}};
}

json Decision() {
  return {{"type", "object"},
          {"required", {"verdict", "rule", "reason", "token"}},
          {"properties",
           {{"verdict",
             {{"type", "string"}, {"enum", {"allow", "drop", "deny", "needs_confirmation"}}}},
            {"rule", String("the safety rule that decided (\"\" for a plain allow)")},
            {"reason", String("what happened and what to do")},
            {"token", String("needs_confirmation: approve it, then repeat the call with "
                             "confirmation_token")}}}};
}

}  // namespace schema

namespace {

using schema::Boolean;
using schema::Integer;
using schema::String;
using schema::StringArray;

constexpr int kDefaultSettleMs = 500;

struct ActionTools {
  ActionTools(Workspace& w, std::shared_ptr<Confirmer> c, std::shared_ptr<ShortcutRegistryStore> s)
      : workspace(w), confirmer(std::move(c)), shortcuts(std::move(s)) {}
  Workspace& workspace;
  std::shared_ptr<Confirmer> confirmer;
  std::shared_ptr<ShortcutRegistryStore> shortcuts;  // may be null
};
using ActionToolsPtr = std::shared_ptr<ActionTools>;

Result<ActionTarget> TargetFrom(const json& value) {
  if (value.is_object()) {
    ActionTarget t;
    t.point = Point{value["x"].get<int>(), value["y"].get<int>()};
    return t;
  }
  return ParseActionTarget(value.get<std::string>());
}

json WindowChanges(const std::string& what) {
  return {
      {"type", "array"},
      {"description", what},
      {"items",
       {{"type", "object"},
        {"required", {"id", "title", "bounds", "changed"}},
        {"properties",
         {{"id", String("X window ID, 0x...")},
          {"title", String("its title")},
          {"bounds", schema::Bounds()},
          {"changed", {{"type", "number"}, {"description", "share of it that changed, 0..1"}}}}}}}};
}

json VerificationOutputSchema() {
  return {{"type", "object"},
          {"required", {"effect", "reason", "tree", "pixels", "waited_ms", "polls", "warnings"}},
          {"properties",
           {{"effect", {{"type", "string"}, {"enum", {"observed", "none", "unverified"}}}},
            {"reason", String("why: the tree changed, pixels changed at the target, or nothing")},
            {"tree", schema::Diff()},
            {"pixels", schema::PixelChange()},
            {"windows_opened", WindowChanges("top-level windows the action opened")},
            {"windows_closed", WindowChanges("top-level windows the action closed")},
            {"waited_ms", {{"type", "number"}, {"description", "from the action to the verdict"}}},
            {"polls", {{"type", "integer"}}},
            {"ended_by",
             {{"type", "string"},
              {"enum", {"events+pixels", "pixels quiet", "tree", "deadline", "cancelled", ""}},
              {"description",
               "what ended the wait: the effect read from the app's events with its repaint "
               "seen, evidence then quiet pixels, evidence with no pixels compared, the "
               "deadline, a cancel"}}},
            {"warnings", StringArray("a poll or a capture that failed")}}}};
}

json ActionOutputSchema() {
  const json point = {{"type", "object"},
                      {"required", {"x", "y"}},
                      {"properties", {{"x", {{"type", "integer"}}}, {"y", {{"type", "integer"}}}}}};
  return {
      {"type", "object"},
      {"required",
       {"tool", "performed", "via", "method", "effect", "decision", "notes", "display", "points",
        "timing", "resolution"}},
      {"properties",
       {{"tool", String("the action")},
        {"performed", Boolean("the input or accessibility call reached the application")},
        {"via",
         {{"type", "string"},
          {"enum", {"accessibility", "editable_text", "value", "cdp", "xtest", "vnc", ""}},
          {"description",
           "how: an accessibility action, EditableText, the Value interface, Input.insertText "
           "over DevTools, XTest input, or pointer and key events over VNC (a VNC session) "
           "(\"\" when not performed)"}}},
        {"method", String("what exactly was done")},
        {"resolution",
         {{"type", "string"},
          {"enum", {"tree", "place", "perceived", "memory", ""}},
          {"description",
           "how the target ID was found: tree (this observation), place (a pixel ID acted on "
           "where it was seen), perceived (a pixel ID found again), memory (a learned target); "
           "\"\" for a point"}}},
        {"effect",
         {{"type", "string"},
          {"enum", {"observed", "none", "unverified", ""}},
          {"description",
           "observed: the tree or the target's pixels changed; none: nothing did within "
           "settle_ms; unverified: the field typed into reads back as before, so whether the "
           "text arrived is unknown; \"\" when not performed"}}},
        {"target", schema::Node()},
        {"points", {{"type", "array"}, {"items", point}, {"description", "where input touched"}}},
        {"verification", VerificationOutputSchema()},
        {"decision", schema::Decision()},
        {"notes", StringArray("raised a window first, an unconfirmed action, ...")},
        {"display", String("the X display acted on")},
        {"timing",
         {{"type", "object"},
          {"properties",
           {{"resolve_ms", {{"type", "number"}}},
            {"act_ms", {{"type", "number"}}},
            {"total_ms", {{"type", "number"}}}}}}},
        {"session_notes", StringArray("things the server did on the way (started a desktop)")}}}};
}

// Arguments every action tool takes.
json CommonProperties(bool with_via) {
  json p = {{"settle_ms", schema::SettleMs()},
            {"timeout_ms", schema::AccessibilityTimeout()},
            {"confirmation_token", schema::ConfirmationToken()},
            {"session", schema::SessionArgument()}};
  if (with_via) p["via"] = schema::Via();
  return p;
}

// find-then-act: the target named by label instead of target (R4 when
// several elements match).
json NamedProperties() {
  return {{"name",
           {{"type", "string"},
            {"minLength", 1},
            {"description",
             "instead of target: a label, as find matches it"}}},
          {"role", schema::NamedRole()},
          {"exact", schema::NamedExact()},
          {"app", schema::NamedApp()}};
}

json InputSchema(json properties, std::vector<std::string> required, bool with_via,
                 bool named = true) {
  json p = CommonProperties(with_via);
  if (named) {
    const json named_properties = NamedProperties();  // outlives the loop (C++20 range-for)
    for (auto& [k, v] : named_properties.items()) p[k] = v;
  }
  for (auto& [k, v] : properties.items()) p[k] = v;
  json s = {{"type", "object"}, {"additionalProperties", false}, {"properties", p}};
  if (!required.empty()) s["required"] = required;
  return s;
}

// The target named by label ({"name", "role", "exact", "app"}), when given.
Result<std::optional<NamedTarget>> NamedFrom(const json& args, bool has_target) {
  if (!args.contains("name")) {
    for (const char* key : {"role", "exact", "app"}) {
      if (args.contains(key)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         std::string(key) + " goes with name (find-then-act); give name too");
      }
    }
    return std::optional<NamedTarget>();
  }
  if (has_target) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give either target (an ID or a point) or name (a label), not both");
  }
  NamedTarget t;
  t.name = args["name"].get<std::string>();
  t.exact = args.value("exact", false);
  t.app = args.value("app", "");
  if (args.contains("role")) {
    auto role = ParseRole(args["role"].get<std::string>());
    if (!role.ok()) return role.error();
    t.role = *role;
  }
  return std::optional<NamedTarget>(std::move(t));
}

// What the action does, for the person asked to confirm it. Never the
// typed text: it may be a secret, and the element is not resolved yet.
std::string Describe(const ActionRequest& r, const std::optional<NamedTarget>& named) {
  std::string what = std::string(ActionToolName(r.kind));
  std::string on = named ? "\"" + SanitiseForDisplay(named->name, 60) + "\"" : r.target.ToString();
  if (r.kind == ActionKind::kTypeText) {
    auto chars = DecodeUtf8(r.text);
    what = "type " + std::to_string(chars.ok() ? chars->size() : r.text.size()) + " characters";
    return what + (on.empty() ? " into the focused element" : " into " + on);
  }
  if (r.kind == ActionKind::kPressKeys) {
    // The target is not resolved yet, so it may be a password field: keys
    // that type characters ("g", "shift+p") are counted, not named, like
    // typed text; shortcuts and named keys ("ctrl+s", "Return") are named.
    std::string keys;
    bool types = false;
    for (const auto& k : r.keys) {
      auto chord = ParseKeyChord(k);
      types = types || !chord.ok() || TypesACharacter(*chord);
      keys += (keys.empty() ? "" : " ") + k;
    }
    if (types) keys = std::to_string(r.keys.size()) + (r.keys.size() == 1 ? " key" : " keys");
    return "press " + keys + (on.empty() ? "" : " on " + on);
  }
  if (r.kind == ActionKind::kSetValue) return "set the value of " + on;
  if (r.kind == ActionKind::kDrag) return "drag from " + on + " to " + r.to.ToString();
  return what + " " + on;
}

// One run of the action under the lease (the confirmer may run it again
// with an approval).
Confirmer::Attempt RunOnce(ActionTools& tools, const json& args, ToolContext& ctx,
                           const ActionRequest& request, const std::optional<NamedTarget>& named) {
  using Attempt = Confirmer::Attempt;
  ctx.Progress(1, 3, named ? "finding " + QuoteForDisplay(named->name, 80) : "resolving the target");
  auto lease = tools.workspace.Acquire(args.value("session", ""), Workspace::Need::kHands);
  if (!lease.ok()) return Attempt::Done(ToolResult::FromError(lease.error()));
  std::vector<std::string> notes;
  for (auto& note : lease->notes) {
    ctx.Log(LogLevel::kNotice, note);
    notes.push_back(std::move(note));
  }
  const std::string display = lease->display;
  ctx.Progress(2, 3, "acting and verifying");
  auto result =
      named ? PerformActionOnNamed(*lease, request, *named) : PerformAction(*lease, request);
  if (!result.ok()) {
    const bool gone = DesktopGone(*lease);
    if (result.error().code == ErrorCode::kUnavailable || gone) {
      lease->lock.unlock();
      tools.workspace.Invalidate(display);
    }
    return Attempt::Done(ToolResult::FromError(result.error()));
  }
  ctx.Progress(3, 3, "done");
  if (lease->learner != nullptr) LearnShortcut(request, *result, tools.shortcuts.get());
  ToolResult out;
  out.structured = ActionResultToJson(*result);
  if (named) out.structured["named"] = NamedTargetToJson(*named);
  if (!notes.empty()) out.structured["session_notes"] = notes;
  std::string text = FormatActionResult(*result);
  for (const auto& note : notes) text += "note: " + note + "\n";
  out.content.push_back(Content::Text(std::move(text)));
  // A refusal is the caller's to act on (observe again, ask for approval).
  out.is_error = !result->performed;
  if (result->decision.verdict == GateVerdict::kNeedsConfirmation) {
    return Attempt::Held(result->decision, std::move(out));
  }
  return Attempt::Done(std::move(out));
}

ToolResult Run(const ActionToolsPtr& tools, const json& args, ToolContext& ctx,
               ActionRequest request) {
  auto via = ParseVia(args.value("via", "auto"));
  if (!via.ok()) return ToolResult::FromError(via.error());
  request.via = *via;
  request.verify.settle = std::chrono::milliseconds(args.value("settle_ms", kDefaultSettleMs));
  request.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));
  request.verify.tree_timeout = request.timeout;
  request.confirmation_token = args.value("confirmation_token", "");
  // The arguments as given, typed text included: the gate masks it in the
  // audit log when it goes into a password field (safety/redact.h).
  request.arguments = args;
  auto named = NamedFrom(args, !request.target.empty());
  if (!named.ok()) return ToolResult::FromError(named.error());
  const bool needs_target = request.kind == ActionKind::kClick ||
                            request.kind == ActionKind::kScroll ||
                            request.kind == ActionKind::kSetValue;
  if (needs_target && request.target.empty() && !*named) {
    return ToolResult::Error(std::string(ActionToolName(request.kind)) +
                             " needs a target: an element ID (from observe or find), a screen "
                             "point, or name (the element's label)");
  }
  return tools->confirmer->Run(
      ctx, Describe(request, *named),
      [tools, args, request, named = *named](const std::string& token, ToolContext& now) {
        ActionRequest r = request;
        if (!token.empty()) r.confirmation_token = token;
        r.cancelled = [&now] { return now.cancelled(); };
        return RunOnce(*tools, args, now, r, named);
      });
}

ToolResult Click(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kClick;
  if (args.contains("target")) {
    auto target = TargetFrom(args["target"]);
    if (!target.ok()) return ToolResult::FromError(target.error());
    r.target = *target;
  }
  auto button = ParseMouseButton(args.value("button", "left"));
  if (!button.ok()) return ToolResult::FromError(button.error());
  r.button = *button;
  r.count = args.value("double", false) ? 2 : args.value("count", 1);
  r.action = args.value("action", "");
  return Run(tools, args, ctx, std::move(r));
}

ToolResult TypeText(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  if (args.contains("target")) {
    auto target = TargetFrom(args["target"]);
    if (!target.ok()) return ToolResult::FromError(target.error());
    r.target = *target;
  }
  r.text = args["text"].get<std::string>();
  r.replace = args.value("replace", false);
  return Run(tools, args, ctx, std::move(r));
}

ToolResult PressKeys(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kPressKeys;
  if (args.contains("action")) {
    // The chord of a named action in the app's registry (specialist_tools.h).
    if (args.contains("keys") || args.contains("target")) {
      return ToolResult::Error("give either keys (and target) or action with app, not both");
    }
    r.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));
    auto hit =
        ResolveShortcutPress(tools->workspace, args.value("session", ""), args.value("app", ""),
                             args["action"].get<std::string>(), tools->shortcuts.get(), r);
    if (!hit.ok()) return ToolResult::FromError(hit.error());
    json rest = args;
    rest.erase("action");
    rest.erase("app");
    rest["shortcut"] = ShortcutToJson(*hit);
    return Run(tools, rest, ctx, std::move(r));
  }
  if (!args.contains("keys")) {
    return ToolResult::Error("press_keys needs keys (\"ctrl+s\") or action with app (\"Save As\")");
  }
  const json& keys = args["keys"];
  if (keys.is_string()) {
    // "ctrl+a Delete": chords separated by spaces.
    std::string s = keys.get<std::string>();
    size_t at = 0;
    while (at < s.size()) {
      size_t end = s.find(' ', at);
      if (end == std::string::npos) end = s.size();
      if (end > at) r.keys.push_back(s.substr(at, end - at));
      at = end + 1;
    }
  } else {
    for (const auto& k : keys) r.keys.push_back(k.get<std::string>());
  }
  if (args.contains("target")) {
    auto target = TargetFrom(args["target"]);
    if (!target.ok()) return ToolResult::FromError(target.error());
    r.target = *target;
  }
  return Run(tools, args, ctx, std::move(r));
}

ToolResult Scroll(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kScroll;
  if (args.contains("target")) {
    auto target = TargetFrom(args["target"]);
    if (!target.ok()) return ToolResult::FromError(target.error());
    r.target = *target;
  }
  r.dx = args.value("dx", 0);
  r.dy = args.value("dy", 0);
  return Run(tools, args, ctx, std::move(r));
}

ToolResult Drag(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kDrag;
  auto from = TargetFrom(args["from"]);
  if (!from.ok()) return ToolResult::FromError(from.error());
  auto to = TargetFrom(args["to"]);
  if (!to.ok()) return ToolResult::FromError(to.error());
  r.target = *from;
  r.to = *to;
  auto button = ParseMouseButton(args.value("button", "left"));
  if (!button.ok()) return ToolResult::FromError(button.error());
  r.button = *button;
  return Run(tools, args, ctx, std::move(r));
}

ToolResult SetValue(const ActionToolsPtr& tools, const json& args, ToolContext& ctx) {
  ActionRequest r;
  r.kind = ActionKind::kSetValue;
  if (args.contains("target")) {
    auto target = ParseActionTarget(args["target"].get<std::string>());
    if (!target.ok()) return ToolResult::FromError(target.error());
    r.target = *target;
  }
  const json& value = args["value"];
  if (value.is_string()) {
    r.text = value.get<std::string>();
  } else {
    r.text = value.dump();  // a number, as JSON spells it
  }
  return Run(tools, args, ctx, std::move(r));
}

const ToolAnnotations kChangesApps{
    .read_only = false, .destructive = true, .idempotent = false, .open_world = false};
const ToolAnnotations kMovesView{
    .read_only = false, .destructive = false, .idempotent = false, .open_world = false};

}  // namespace

Status RegisterActionTools(ToolRegistry& registry, Workspace& workspace,
                           std::shared_ptr<Confirmer> confirmer,
                           std::shared_ptr<ShortcutRegistryStore> shortcuts) {
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  auto tools = std::make_shared<ActionTools>(workspace, std::move(confirmer), std::move(shortcuts));
  const json output = ActionOutputSchema();
  auto add = [&](const char* name, const char* title, const char* description, json input,
                 ToolAnnotations annotations,
                 ToolResult (*fn)(const ActionToolsPtr&, const json&, ToolContext&)) {
    Tool t;
    t.name = name;
    t.title = title;
    t.description = description;
    t.input_schema = std::move(input);
    t.output_schema = output;
    t.annotations = annotations;
    t.handler = [tools, fn](const json& args, ToolContext& ctx) { return fn(tools, args, ctx); };
    return registry.Add(std::move(t));
  };

  if (auto st = add(
          "click", "Click an element",
          "Clicks target (or name) and verifies it: what changed in the tree and the pixels, "
          "effect observed or none.",
          InputSchema(
              {{"target", schema::ActionTarget("")},
               {"button",
                {{"type", "string"}, {"enum", {"left", "middle", "right"}}, {"default", "left"}}},
               {"double", Boolean("a double click")},
               {"count",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"maximum", 3},
                 {"default", 1},
                 {"description", "clicks in a row (2 = double)"}}},
               {"action",
                String("accessibility action to use (default: click/press)")}},
              {}, true),
          kChangesApps, Click);
      !st.ok()) {
    return st;
  }
  if (auto st = add(
          "type_text", "Type text",
          "Types Unicode text into target (focused first) or the focused element; appends "
          "unless replace. Verified like click.",
          InputSchema({{"target", schema::ActionTarget("")},
                       {"text", String("newlines press Return")},
                       {"replace", {{"type", "boolean"}}}},
                      {"text"}, true),
          kChangesApps, TypeText);
      !st.ok()) {
    return st;
  }
  if (auto st = add(
          "press_keys", "Press keys",
          "Presses key chords in order (\"ctrl+a\", \"Return\") to target or the focused "
          "element; or, with action and app, the app's shortcut for that action. Verified like "
          "click.",
          InputSchema(
              {{"keys",
                {{"anyOf",
                  {{{"type", "array"},
                    {"minItems", 1},
                    {"maxItems", 100},
                    {"items", {{"type", "string"}, {"minLength", 1}}}},
                   {{"type", "string"}, {"minLength", 1}}}},
                 {"description", "an array, or chords separated by spaces"}}},
               {"target", schema::ActionTarget("")},
               {"action", String("instead of keys (\"Save As\")")},
               {"app", String("with action")}},
              {}, false),
          kChangesApps, PressKeys);
      !st.ok()) {
    return st;
  }
  if (auto st = add("scroll", "Scroll",
                    "Turns the mouse wheel over an element or point, in wheel steps (dy > 0: "
                    "down, dx > 0: right). Verified like click.",
                    InputSchema({{"target", schema::ActionTarget("")},
                                 {"dx",
                                  {{"type", "integer"},
                                   {"minimum", -100},
                                   {"maximum", 100},
                                   {"default", 0}}},
                                 {"dy",
                                  {{"type", "integer"},
                                   {"minimum", -100},
                                   {"maximum", 100},
                                   {"default", 0}}}},
                                {}, false),
                    kMovesView, Scroll);
      !st.ok()) {
    return st;
  }
  if (auto st = add(
          "drag", "Drag",
          "Drags from `from` to `to` (element IDs or points). Verified like click.",
          InputSchema(
              {{"from", schema::ActionTarget("")},
               {"to", schema::ActionTarget("")},
               {"button",
                {{"type", "string"}, {"enum", {"left", "middle", "right"}}, {"default", "left"}}}},
              {"from", "to"}, false, /*named=*/false),
          kChangesApps, Drag);
      !st.ok()) {
    return st;
  }
  return add("set_value", "Set a value",
             "Sets a slider's or spin button's number (in range), a text field's whole text, or "
             "a combo box's or list's option by name (read back). Verified like click.",
             InputSchema({{"target", {{"type", "string"}}},
                          {"value", {{"type", {"string", "number"}}}}},
                         {"value"}, true),
             kChangesApps, SetValue);
}

Status RegisterHandsTools(ToolRegistry& registry, Workspace& workspace,
                          std::shared_ptr<TextReader> reader, std::shared_ptr<Confirmer> confirmer,
                          std::shared_ptr<ShortcutRegistryStore> shortcuts) {
  if (auto st = RegisterActionTools(registry, workspace, confirmer, std::move(shortcuts));
      !st.ok()) {
    return st;
  }
  if (auto st = RegisterWaitTools(registry, workspace, std::move(reader)); !st.ok()) return st;
  return RegisterAppTools(registry, workspace, std::move(confirmer));
}

}  // namespace uiscope::mcp
