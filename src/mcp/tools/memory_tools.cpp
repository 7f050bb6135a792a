#include "mcp/tools/memory_tools.h"

#include "core/escape.h"
#include "mcp/tools/schemas.h"

namespace uiscope::mcp {
namespace {

using schema::String;

struct MemoryTools {
  Workspace& workspace;
  std::shared_ptr<memory::TargetStore> store;
  std::shared_ptr<Learner> learner;
};
using MemoryToolsPtr = std::shared_ptr<MemoryTools>;

ToolResult Teach(const MemoryToolsPtr& tools, const json& args, ToolContext& ctx) {
  if (!tools->learner) {
    return ToolResult::Error(
        "learning is off in uiscope's configuration (\"memory\": {\"learning\": false}); a "
        "person can switch it on");
  }
  const std::string label = args.value("label", "");
  const int x = args.value("x", 0);
  const int y = args.value("y", 0);
  const int w = args.value("width", 50);
  const int h = args.value("height", 30);
  Role role = Role::kButton;
  if (args.contains("role")) {
    role = RoleFromName(args["role"].get<std::string>());
    if (role == Role::kUnknown) {
      return ToolResult::Error("unknown role \"" + args["role"].get<std::string>() +
                               "\" (button, label, text_field, link, ...)");
    }
  }
  auto lease = tools->workspace.Acquire(args.value("session", ""));
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  for (const auto& note : lease->notes) ctx.Log(LogLevel::kNotice, note);
  auto obs = lease->observer->Observe(ObserveRequest{});
  if (!obs.ok()) return ToolResult::FromError(obs.error());
  RegionCapture capture;
  if (lease->capture != nullptr) capture = RegionsOf(*lease->capture);
  const Rect bounds{x - w / 2, y - h / 2, w, h};
  auto taught = tools->learner->Teach(obs->snapshot.roots, label, bounds, role, capture);
  if (!taught.ok()) return ToolResult::FromError(taught.error());
  ToolResult out;
  out.structured = {{"id", taught->target.id},
                    {"app", taught->signature.app},
                    {"title_pattern", taught->signature.title_pattern},
                    {"toolkit", taught->signature.toolkit},
                    {"window", taught->window_id},
                    {"fingerprint", taught->target.visual_hash.has_value()},
                    {"target", memory::LearnedTargetToJson(taught->target)}};
  out.content.push_back(Content::Text("Learned " + QuoteForDisplay(taught->target.label, 80) +
                                      " as " + taught->target.id + " in " +
                                      EscapeForDisplay(taught->signature.app, 60) + " (" +
                                      QuoteForDisplay(taught->signature.title_pattern, 80) + ") at " +
                                      std::to_string(x) + "," + std::to_string(y) +
                                      ". observe and find show it from now on, across restarts."));
  return out;
}

ToolResult List(const MemoryToolsPtr& tools, const json& args) {
  ToolResult out;
  if (args.contains("app")) {
    auto exported = tools->store->Export(args["app"].get<std::string>());
    if (!exported.ok()) return ToolResult::FromError(exported.error());
    out.structured = *exported;
  } else {
    auto apps = tools->store->ListApps();
    if (!apps.ok()) return ToolResult::FromError(apps.error());
    json list = json::array();
    for (const memory::AppSummary& a : *apps) list.push_back(memory::AppSummaryToJson(a));
    out.structured = {{"apps", list}, {"learning", tools->learner != nullptr}};
  }
  out.content.push_back(Content::Text(out.structured.dump()));
  return out;
}

}  // namespace

Status RegisterMemoryTools(ToolRegistry& registry, Workspace& workspace,
                           std::shared_ptr<memory::TargetStore> store,
                           std::shared_ptr<Learner> learner) {
  auto tools =
      std::make_shared<MemoryTools>(MemoryTools{workspace, std::move(store), std::move(learner)});
  Tool teach;
  teach.name = "teach";
  teach.title = "Teach a target";
  teach.description =
      "Remembers an element a person names at a screen point, by its window and pixels; "
      "observe and find then show it (source learned), also after restarts. The same label "
      "again replaces it.";
  teach.input_schema = {{"type", "object"},
                        {"additionalProperties", false},
                        {"required", {"label", "x", "y"}},
                        {"properties",
                         {{"label", String("what the element is (\"Save button\")")},
                          {"x", {{"type", "integer"}, {"description", "centre, screen pixels"}}},
                          {"y", {{"type", "integer"}}},
                          {"width", schema::Integer("pixels (default 50)", 1)},
                          {"height", schema::Integer("pixels (default 30)", 1)},
                          {"role", String("button (default), label, text_field, ...")},
                          {"session", schema::SessionArgument()}}}};
  teach.output_schema = {{"type", "object"},
                         {"required", {"id", "app", "title_pattern", "toolkit", "target"}},
                         {"properties",
                          {{"id", String("the learned target's ID (lrn_...)")},
                           {"app", String("application")},
                           {"title_pattern", String("the window title's pattern")},
                           {"toolkit", String("atspi, or x11 for a window without accessibility")},
                           {"window", String("ID of the window it was taught in")},
                           {"fingerprint", {{"type", "boolean"}}},
                           {"target", {{"type", "object"}}}}}};
  teach.annotations = {
      .read_only = false, .destructive = false, .idempotent = true, .open_world = false};
  teach.handler = [tools](const json& args, ToolContext& ctx) { return Teach(tools, args, ctx); };
  if (auto st = registry.Add(std::move(teach)); !st.ok()) return st;

  Tool memory;
  memory.name = "memory";
  memory.title = "What uiscope learned";
  memory.description =
      "What uiscope learned: without app, the apps (targets, taught, last seen); with app, "
      "its targets (label, role, place in the window, source, confidence, hits, misses). "
      "Read-only.";
  memory.input_schema = {{"type", "object"},
                         {"additionalProperties", false},
                         {"properties", {{"app", String("an application's name")}}}};
  memory.output_schema = {{"type", "object"},
                          {"properties",
                           {{"apps", {{"type", "array"}}},
                            {"learning", {{"type", "boolean"}}},
                            {"app", String("the application (with app)")},
                            {"signatures", {{"type", "array"}}}}}};
  memory.annotations = {
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  memory.handler = [tools](const json& args, ToolContext&) { return List(tools, args); };
  return registry.Add(std::move(memory));
}

}  // namespace uiscope::mcp
