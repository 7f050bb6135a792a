#include "mcp/tools/specialist_tools.h"

#include "engine/discover.h"
#include "engine/menu_path.h"
#include "engine/shortcuts.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::String;

struct SpecialistTools {
  Workspace& workspace;
  std::shared_ptr<Confirmer> confirmer;
  std::shared_ptr<ShortcutRegistryStore> store;
};
using SpecialistToolsPtr = std::shared_ptr<SpecialistTools>;
using Attempt = Confirmer::Attempt;

std::chrono::milliseconds Timeout(const json& args) {
  return std::chrono::milliseconds(args.value("timeout_ms", 2000));
}

// --deep opens menus: each opening is an action the gate decides, so the
// whole read runs as one attempt of the confirmer, held like any action.
// shortcuts {app, teach: "Ctrl+Alt+X=Close All"}: a person's entry (in
// `category`); "Ctrl+Alt+X=" forgets the person's or learned entries of that
// chord (the app's own stay). The chord ends at the first '=' that is not its
// key ("Ctrl+==Zoom In").
ToolResult Teach(const SpecialistToolsPtr& tools, const json& args) {
  if (!tools->store) return ToolResult::Error("no shortcut registry is kept on this server");
  const std::string app = args.value("app", "");
  const std::string teach = args.value("teach", "");
  size_t eq = teach.find('=');
  while (eq != std::string::npos && eq > 0 && teach[eq - 1] == '+') eq = teach.find('=', eq + 1);
  if (eq == std::string::npos) {
    return ToolResult::Error(
        "teach is \"CHORD=ACTION\" (\"Ctrl+Alt+X=Close All\"), or "
        "\"CHORD=\" to forget it");
  }
  const std::string keys = teach.substr(0, eq);
  const std::string action = teach.substr(eq + 1);
  json done;
  if (action.empty()) {
    auto chord = NormaliseChord(keys);
    if (app.empty() || !chord) {
      return ToolResult::Error("forgetting needs app and a chord (\"Ctrl+Alt+X=\")");
    }
    auto removed = tools->store->Remove(app, {"user", "learned"}, *chord, "");
    if (!removed.ok()) return ToolResult::FromError(removed.error());
    if (*removed == 0) {
      return ToolResult::Error(app + " has no user or learned shortcut " + *chord);
    }
    done = {{"removed", *removed}};
  } else {
    auto entry = UserShortcut(app, keys, action, args.value("category", ""));
    if (!entry.ok()) return ToolResult::FromError(entry.error());
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    if (auto st = tools->store->Put(*entry, now_ms); !st.ok()) {
      return ToolResult::FromError(st.error());
    }
    done = {{"added", ShortcutToJson(*entry)}};
  }
  ToolResult out;
  out.structured = done;
  out.content.push_back(Content::Text(done.dump()));
  return out;
}

ToolResult Shortcuts(const SpecialistToolsPtr& tools, const json& args, ToolContext& ctx) {
  if (args.contains("teach")) return Teach(tools, args);
  const std::string app = args.value("app", "");
  const std::string category = args.value("category", "");
  if (app.empty()) {
    if (!tools->store) return ToolResult::Error("no shortcut registry is kept; name an app");
    auto all = tools->store->List("", category);
    if (!all.ok()) return ToolResult::FromError(all.error());
    json list = json::array();
    for (const Shortcut& s : *all) list.push_back(ShortcutToJson(s));
    ToolResult out;
    out.structured = {{"count", all->size()}, {"shortcuts", list}};
    out.content.push_back(Content::Text(out.structured.dump()));
    return out;
  }
  const bool deep = args.value("deep", false);
  const std::string session = args.value("session", "");
  auto attempt = [tools, app, category, deep, session, args](const std::string& token,
                                                             ToolContext&) -> Attempt {
    auto lease = tools->workspace.Acquire(
        session, deep ? Workspace::Need::kHands : Workspace::Need::kObserve);
    if (!lease.ok()) return Attempt::Done(ToolResult::FromError(lease.error()));
    ShortcutsRequest r;
    r.app = app;
    r.deep = deep;
    r.timeout = Timeout(args);
    r.confirmation_token = token;
    auto registry = AppShortcuts(*lease, r, tools->store.get(), category);
    if (!registry.ok()) return Attempt::Done(ToolResult::FromError(registry.error()));
    ToolResult out;
    out.structured = RegistryToJson(*registry);
    out.content.push_back(Content::Text(FormatRegistry(*registry)));
    out.is_error = registry->read.state_unchanged && !*registry->read.state_unchanged;
    return Attempt::Done(std::move(out));
  };
  if (!deep) return attempt("", ctx).result;
  return tools->confirmer->Run(ctx, "open each menu of " + app + " and close it again", attempt);
}

ToolResult DiscoverTool(const SpecialistToolsPtr& tools, const json& args, ToolContext& ctx) {
  const std::string app = args.value("app", "");
  const bool deep = args.value("deep", false);
  const std::string session = args.value("session", "");
  auto attempt = [tools, app, deep, session, args](const std::string& token,
                                                   ToolContext&) -> Attempt {
    auto lease = tools->workspace.Acquire(
        session, deep ? Workspace::Need::kHands : Workspace::Need::kObserve);
    if (!lease.ok()) return Attempt::Done(ToolResult::FromError(lease.error()));
    DiscoverRequest r;
    r.app = app;
    r.deep = deep;
    r.timeout = Timeout(args);
    r.confirmation_token = token;
    auto found = Discover(*lease, r);
    if (!found.ok()) return Attempt::Done(ToolResult::FromError(found.error()));
    ToolResult out;
    out.structured = DiscoveryToJson(*found);
    out.content.push_back(Content::Text(FormatDiscovery(*found)));
    return Attempt::Done(std::move(out));
  };
  if (!deep) return attempt("", ctx).result;
  return tools->confirmer->Run(ctx, "open each menu of " + app + " and close it again", attempt);
}

ToolResult Menu(const SpecialistToolsPtr& tools, const json& args, ToolContext& ctx) {
  const std::string app = args.value("app", "");
  const std::string path = args.value("path", "");
  auto steps = ParseMenuPath(path);
  if (!steps.ok()) return ToolResult::FromError(steps.error());
  MenuRequest request;
  request.app = app;
  request.steps = *steps;
  request.timeout = Timeout(args);
  request.verify.settle = std::chrono::milliseconds(args.value("settle_ms", 500));
  auto via = ParseVia(args.value("via", "auto"));
  if (!via.ok()) return ToolResult::FromError(via.error());
  request.via = *via;
  request.arguments = args;
  const std::string session = args.value("session", "");
  return tools->confirmer->Run(
      ctx, "choose \"" + path + "\" in " + app,
      [tools, request, session](const std::string& token, ToolContext&) -> Attempt {
        auto lease = tools->workspace.Acquire(session, Workspace::Need::kHands);
        if (!lease.ok()) return Attempt::Done(ToolResult::FromError(lease.error()));
        MenuRequest r = request;
        r.confirmation_token = token;
        auto walked = WalkMenuPath(*lease, r);
        if (!walked.ok()) return Attempt::Done(ToolResult::FromError(walked.error()));
        ToolResult out;
        out.structured = MenuResultToJson(*walked);
        std::string text;
        for (const ActionResult& s : walked->steps) text += FormatActionResult(s);
        out.content.push_back(Content::Text(text));
        out.is_error = !walked->performed;
        if (!walked->steps.empty() &&
            walked->steps.back().decision.verdict == GateVerdict::kNeedsConfirmation) {
          return Attempt::Held(walked->steps.back().decision, std::move(out));
        }
        return Attempt::Done(std::move(out));
      });
}

json ObjectSchema(json properties, std::vector<std::string> required) {
  properties["session"] = schema::SessionArgument();
  properties["timeout_ms"] = schema::AccessibilityTimeout();
  json s = {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
  if (!required.empty()) s["required"] = required;
  return s;
}

}  // namespace

Result<Shortcut> ResolveShortcutPress(Workspace& workspace, const std::string& session,
                                      const std::string& app, const std::string& action,
                                      ShortcutRegistryStore* store, ActionRequest& request) {
  if (app.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "press_keys with action needs app (whose shortcut registry to look in)");
  }
  auto lease = workspace.Acquire(session, Workspace::Need::kObserve);
  if (!lease.ok()) return lease.error();
  return PlanShortcutPress(*lease, app, action, store, request.timeout, request);
}

Status RegisterSpecialistTools(ToolRegistry& registry, Workspace& workspace,
                               std::shared_ptr<Confirmer> confirmer,
                               std::shared_ptr<ShortcutRegistryStore> store) {
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  auto tools = std::make_shared<SpecialistTools>(
      SpecialistTools{workspace, std::move(confirmer), std::move(store)});

  Tool shortcuts;
  shortcuts.name = "shortcuts";
  shortcuts.title = "An app's keyboard shortcuts";
  shortcuts.description =
      "App shortcuts (chord, action, category, source) read from its menus unopened; "
      "press_keys {action, app} presses one. No app: all kept. teach 'Ctrl+Alt+X=Name' adds "
      "one, 'Ctrl+Alt+X=' forgets it.";
  shortcuts.input_schema = ObjectSchema({{"app", String("the application's name")},
                                         {"category", String("only this category")},
                                         {"deep", Boolean("also open each top menu (slower)")},
                                         {"teach", {{"type", "string"}}}},
                                        {});
  shortcuts.output_schema = {{"type", "object"},
                             {"properties",
                              {{"app", String("the application")},
                               {"count", {{"type", "integer"}}},
                               {"shortcuts", {{"type", "array"}}},
                               {"tree_ms", {{"type", "number"}}},
                               {"state_unchanged", {{"type", "boolean"}}}}}};
  shortcuts.annotations = {
      .read_only = false, .destructive = false, .idempotent = true, .open_world = false};
  shortcuts.handler = [tools](const json& args, ToolContext& ctx) {
    return Shortcuts(tools, args, ctx);
  };
  if (auto st = registry.Add(std::move(shortcuts)); !st.ok()) return st;

  Tool discover;
  discover.name = "discover";
  discover.title = "Discover an app";
  discover.description =
      "What an app offers: toolkit, windows, menus, shortcuts, widgets by role, custom "
      "actions, and a confidence (0-1).";
  discover.input_schema =
      ObjectSchema({{"app", String("the application's name")},
                    {"deep", Boolean("also open each top menu (slower)")}},
                   {"app"});
  discover.output_schema = {{"type", "object"},
                            {"required", {"app", "toolkit"}},
                            {"properties",
                             {{"app", String("the application")},
                              {"toolkit", String("gtk3, qt5, chromium, ...")},
                              {"windows", {{"type", "array"}}},
                              {"menus", {{"type", "array"}}},
                              {"shortcut_count", {{"type", "integer"}}},
                              {"roles", {{"type", "object"}}},
                              {"custom_actions", {{"type", "array"}}},
                              {"schema_available", {{"type", "boolean"}}},
                              {"exploration_confidence", {{"type", "number"}}}}}};
  discover.annotations = {
      .read_only = false, .destructive = false, .idempotent = true, .open_world = false};
  discover.handler = [tools](const json& args, ToolContext& ctx) {
    return DiscoverTool(tools, args, ctx);
  };
  if (auto st = registry.Add(std::move(discover)); !st.ok()) return st;

  Tool menu;
  menu.name = "menu";
  menu.title = "Choose a menu item";
  menu.description =
      "Walks a menu path (\"File > Save As…\"): opens each level, activates the last, each "
      "step verified and under the safety policy. A missing step lists the items there.";
  menu.input_schema =
      ObjectSchema({{"app", String("the application's name")},
                    {"path", String("the menu path, steps separated by '>'")},
                    {"settle_ms", schema::Integer("how long the last step waits for an effect", 0)},
                    {"via",
                     {{"type", "string"},
                      {"enum", {"auto", "accessibility", "xtest"}},
                      {"description", "auto: menu items by pointer"}}},
                    {"confirmation_token", schema::ConfirmationToken()}},
                   {"app", "path"});
  menu.output_schema = {{"type", "object"},
                        {"properties",
                         {{"app", String("the application")},
                          {"path", String("the path as the app names it")},
                          {"performed", {{"type", "boolean"}}},
                          {"steps", {{"type", "array"}}}}}};
  menu.annotations = {
      .read_only = false, .destructive = true, .idempotent = false, .open_world = false};
  menu.handler = [tools](const json& args, ToolContext& ctx) { return Menu(tools, args, ctx); };
  return registry.Add(std::move(menu));
}

}  // namespace uiscope::mcp
