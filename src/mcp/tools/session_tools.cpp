// `session_start`, `session_list`, `session_stop`: headless desktops.
// Starting and stopping go through the safety policy like every action
// (audited, rate-limited, confirmable with confirm_tools).
#include "core/escape.h"
#include "engine/apps.h"
#include "mcp/tools/confirm_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/tools/tools.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::Integer;
using schema::String;

json SessionSchema() {
  return {{"type", "object"},
          {"required", {"id", "display_name", "dbus_address", "width", "height", "alive"}},
          {"properties",
           {{"id", String("session ID")},
            {"display", {{"type", "integer"}}},
            {"display_name", String("DISPLAY value, \":N\"")},
            {"dbus_address", String("DBUS_SESSION_BUS_ADDRESS of the session")},
            {"runtime_dir", String("XDG_RUNTIME_DIR of the session (logs live here)")},
            {"xvfb_pid", {{"type", "integer"}}},
            {"dbus_pid", {{"type", "integer"}}},
            {"wm_pid", {{"type", "integer"}}},
            {"width", {{"type", "integer"}}},
            {"height", {{"type", "integer"}}},
            {"started_at_ms", {{"type", "integer"}}},
            {"owner_pid", Integer("the process whose exit stops it; 0: session_stop does", 0)},
            {"owner_start_time", {{"type", "integer"}}},
            {"alive", {{"type", "boolean"}}},
            {"problem", String("why it is not alive: the parts that are gone")},
            {"env",
             {{"type", "object"},
              {"description", "environment to launch apps into the session"},
              {"additionalProperties", {{"type", "string"}}}}}}}};
}

// A session_list entry: the record and what asking it found.
json ListedSessionSchema() {
  json s = SessionSchema();
  s["properties"]["health"] = {{"enum", {"connected", "unreachable", "stale"}}};
  s["properties"]["error"] = String("why not connected");
  s["properties"]["apps"] = {{"type", "array"}, {"items", {{"type", "string"}}}};
  s["properties"]["apps_read"] = {
      {"type", "boolean"},
      {"description", "false: it answered, but its apps were not listed in time (apps is empty)"}};
  return s;
}

json SessionJson(const DesktopInfo& info) {
  json j = ToJson(info);
  json env = json::object();
  for (const auto& [k, v] : SessionEnvironment(info)) env[k] = v;
  j["env"] = std::move(env);
  return j;
}

ToolResult Start(SessionControl& sessions, const json& args, ToolContext& ctx) {
  DesktopOptions options;
  options.width = args.value("width", options.width);
  options.height = args.value("height", options.height);
  options.window_manager = args.value("window_manager", true);
  ctx.Progress(1, 2, "starting Xvfb, D-Bus and the window manager");
  auto info = sessions.Start(options);
  if (!info.ok()) return ToolResult::FromError(info.error());
  ToolResult result;
  result.structured = SessionJson(*info);
  result.content.push_back(Content::Text(
      "started session " + info->id + " on " + info->display_name + " (" +
      std::to_string(info->width) + "x" + std::to_string(info->height) + "). Pass session \"" +
      info->id + "\" to observe and find; launch apps with DISPLAY=" + info->display_name +
      " DBUS_SESSION_BUS_ADDRESS=" + info->dbus_address +
      ". It runs until session_stop, also after this server exits."));
  return result;
}

ToolResult List(SessionControl& sessions) {
  auto list = sessions.List();
  if (!list.ok()) return ToolResult::FromError(list.error());
  const std::vector<SessionHealth> health = sessions.Probe(*list);
  json arr = json::array();
  std::string text;
  for (size_t i = 0; i < list->size(); ++i) {
    const DesktopInfo& s = (*list)[i];
    json j = uiscope::SessionJson(s, health[i]);
    j["env"] = SessionJson(s)["env"];
    arr.push_back(std::move(j));
    text += SessionLine(s, health[i]) + (health[i].health == "stale" ? " (stop it)" : "") + "\n";
  }
  if (list->empty()) text = "no sessions; start one with session_start\n";
  ToolResult result;
  result.structured = {{"sessions", std::move(arr)}};
  result.content.push_back(Content::Text(std::move(text)));
  return result;
}

// `display`: the session's, read by the handler before it was held.
ToolResult Stop(SessionControl& sessions, Workspace& workspace, const json& args,
                const std::string& display) {
  const std::string id = args["id"].get<std::string>();
  if (!args.value("force", false)) {
    // Its apps are asked to close first: one that asks to save keeps the
    // session (and its work) until answered, or stopped with force.
    json asking = json::array();
    std::string text;
    for (const CloseResult& r : AskSessionAppsToClose(workspace, id, std::chrono::seconds(3))) {
      if (r.stage != "asking") continue;
      asking.push_back(CloseResultToJson(r));
      text += EscapeForDisplay(r.app.name, 80) + " (pid " + std::to_string(r.app.pid) + ") " +
              AppQuestionText(*r.question);
    }
    if (!asking.empty()) {
      ToolResult result;
      result.is_error = true;
      result.structured = {{"stopped", nullptr}, {"asking", asking}};
      result.content.push_back(Content::Text(
          "session " + id + " not stopped:\n" + text +
          "Answer (click a button; ask the user which when unsure), or call session_stop with "
          "force: true to end them and lose their unsaved work."));
      return result;
    }
  }
  if (auto st = sessions.Stop(id); !st.ok()) return ToolResult::FromError(st.error());
  if (!display.empty()) workspace.Invalidate(display);
  ToolResult result;
  result.structured = {{"stopped", id}};
  result.content.push_back(Content::Text("stopped session " + id + " and everything in it"));
  return result;
}

// The outcome to record of a tool that ran (its first text line is the
// error when it failed).
ActionOutcome OutcomeOf(const ToolResult& r, const json& verification) {
  ActionOutcome o;
  o.performed = !r.is_error;
  o.via = "session";
  if (r.is_error && !r.content.empty()) o.error = r.content.front().text;
  if (!r.is_error) o.verification = verification;
  return o;
}

}  // namespace

Status RegisterSessionTools(ToolRegistry& registry, SessionControl& sessions,
                            Workspace& workspace) {
  return RegisterSessionTools(registry, sessions, workspace, std::make_shared<Confirmer>(nullptr));
}

Status RegisterSessionTools(ToolRegistry& registry, SessionControl& sessions, Workspace& workspace,
                            std::shared_ptr<Confirmer> confirmer) {
  Tool start;
  start.name = "session_start";
  start.title = "Start a headless desktop";
  start.description =
      "Starts an isolated headless desktop (Xvfb, D-Bus, accessibility, window manager) "
      "until session_stop; returns its ID and environment.";
  start.input_schema = {{"type", "object"},
                        {"additionalProperties", false},
                        {"properties",
                         {{"width",
                           {{"type", "integer"},
                            {"minimum", 64},
                            {"maximum", 16384},
                            {"default", 1920},
                            {"description", "screen width in pixels"}}},
                          {"height",
                           {{"type", "integer"},
                            {"minimum", 64},
                            {"maximum", 16384},
                            {"default", 1080},
                            {"description", "screen height in pixels"}}},
                          {"window_manager", Boolean("run openbox for EWMH (default true)")}}}};
  start.output_schema = SessionSchema();
  start.annotations = ToolAnnotations{
      .read_only = false, .destructive = false, .idempotent = false, .open_world = false};
  start.handler = [&sessions, confirmer](const json& args, ToolContext& ctx) {
    return confirmer->Run(
        ctx, "start a headless desktop",
        [&sessions, gate = &confirmer->gate(), args](const std::string& token, ToolContext& now) {
          PlannedAction action;
          action.tool = "session_start";
          action.arguments = args;
          action.confirmation_token = token;
          return Confirmer::GatedAttempt(*gate, action, [&](ActionOutcome* outcome) {
            ToolResult r = Start(sessions, args, now);
            *outcome = OutcomeOf(r, r.is_error ? json() : json{{"session", r.structured["id"]}});
            return r;
          });
        });
  };
  if (auto st = registry.Add(std::move(start)); !st.ok()) return st;

  Tool list;
  list.name = "session_list";
  list.title = "List headless desktops";
  list.description = "The sessions on this machine, each asked now: health, size, apps.";
  list.input_schema = {
      {"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}};
  list.output_schema = {
      {"type", "object"},
      {"required", {"sessions"}},
      {"properties", {{"sessions", {{"type", "array"}, {"items", ListedSessionSchema()}}}}}};
  list.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  list.handler = [&sessions](const json&, ToolContext&) { return List(sessions); };
  if (auto st = registry.Add(std::move(list)); !st.ok()) return st;

  Tool stop;
  stop.name = "session_stop";
  stop.title = "Stop a headless desktop";
  stop.description =
      "Stops a session and every app in it; an app asking to save stops it (its question is "
      "returned) unless force.";
  stop.input_schema = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"id"}},
      {"properties",
       {{"id", String("session ID from session_list")},
        {"force", {{"type", "boolean"}, {"description", "even if an app asks to save"}}}}}};
  stop.output_schema = {
      {"type", "object"},
      {"required", {"stopped"}},
      {"properties",
       {{"stopped", {{"type", {"string", "null"}}, {"description", "the ID of the stopped session"}}},
        {"asking",
         {{"type", "array"}, {"description", "apps that asked to save (app_close's result each)"}}}}}};
  stop.annotations = ToolAnnotations{
      .read_only = false, .destructive = true, .idempotent = false, .open_world = false};
  stop.handler = [&sessions, &workspace, confirmer](const json& args, ToolContext& ctx) {
    const std::string id = args["id"].get<std::string>();
    std::string display;
    if (auto list = sessions.List(); list.ok()) {
      for (const DesktopInfo& s : *list) {
        if (s.id == id) display = s.display_name;
      }
    }
    // Copied into the attempt: a held stop may run later, from `confirm`.
    return confirmer->Run(ctx, "stop session " + id + " and every app in it",
                          [&sessions, &workspace, gate = &confirmer->gate(), args, id, display](
                              const std::string& token, ToolContext&) {
                            PlannedAction action;
                            action.tool = "session_stop";
                            action.session = id;
                            action.display = display;
                            action.arguments = args;
                            action.confirmation_token = token;
                            return Confirmer::GatedAttempt(
                                *gate, action, [&](ActionOutcome* outcome) {
                                  ToolResult r = Stop(sessions, workspace, args, display);
                                  *outcome = OutcomeOf(r, json{{"stopped", id}});
                                  return r;
                                });
                          });
  };
  return registry.Add(std::move(stop));
}

}  // namespace uiscope::mcp
