// `windows`, `app_launch`, `app_list`, `app_focus`, `app_close`: the
// windows and applications of a desktop (engine/apps.h).
#include <chrono>
#include <cstdio>

#include "core/escape.h"
#include "core/format.h"
#include "engine/act.h"
#include "engine/apps.h"
#include "mcp/tools/action_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::String;
using schema::StringArray;

struct AppTools {
  AppTools(Workspace& w, std::shared_ptr<Confirmer> c) : workspace(w), confirmer(std::move(c)) {}
  Workspace& workspace;
  std::shared_ptr<Confirmer> confirmer;
};
using AppToolsPtr = std::shared_ptr<AppTools>;

// A result that is a refusal by the gate: held (for the confirmer) or not.
Confirmer::Attempt Outcome(ToolResult result, const GateDecision& decision) {
  if (decision.verdict == GateVerdict::kNeedsConfirmation) {
    return Confirmer::Attempt::Held(decision, std::move(result));
  }
  return Confirmer::Attempt::Done(std::move(result));
}

json WindowSchema() {
  return {{"type", "object"},
          {"required",
           {"id", "title", "app_class", "app_instance", "pid", "bounds", "visible", "focused"}},
          {"properties",
           {{"id", String("X window ID (0x...)")},
            {"title", String("window title")},
            {"app", String("accessible name of its app, else its WM_CLASS instance")},
            {"app_class", String("WM_CLASS class")},
            {"app_instance", String("WM_CLASS instance")},
            {"pid", {{"type", "integer"}, {"description", "0 when the app does not say"}}},
            {"bounds", schema::Bounds()},
            {"visible", Boolean("mapped (false: minimised)")},
            {"focused", Boolean("the active window")}}}};
}

json AppSchema() {
  return {{"type", "object"},
          {"required", {"name", "pid", "toolkit", "accessible", "launched", "command", "windows"}},
          {"properties",
           {{"name", String("accessible name, else WM_CLASS instance, else program name")},
            {"pid", {{"type", "integer"}}},
            {"toolkit", String("GTK, Qt, Chromium, ... (\"\" when not accessible)")},
            {"accessible", Boolean("on the accessibility bus: observe sees its elements")},
            {"launched", Boolean("started by this server with app_launch")},
            {"command", String("its command line")},
            {"windows", {{"type", "array"}, {"items", WindowSchema()}}}}}};
}

json WithSession(json properties) {
  properties["session"] = schema::SessionArgument();
  return properties;
}

json AppArgument() {
  return String("name, WM_CLASS, pid, X window ID or element ID");
}

// Acquires the desktop with hands; notes (a started desktop) go to the log.
Result<Workspace::Lease> Acquire(AppTools& tools, const json& args, ToolContext& ctx,
                                 std::vector<std::string>* notes) {
  auto lease = tools.workspace.Acquire(args.value("session", ""), Workspace::Need::kHands);
  if (!lease.ok()) return lease.error();
  for (auto& note : lease->notes) {
    ctx.Log(LogLevel::kNotice, note);
    notes->push_back(std::move(note));
  }
  return lease;
}

ToolResult Finish(json structured, std::string text, const std::vector<std::string>& notes,
                  bool is_error = false) {
  ToolResult out;
  if (!notes.empty()) structured["notes"] = notes;
  for (const auto& n : notes) text += "note: " + n + "\n";
  out.structured = std::move(structured);
  out.content.push_back(Content::Text(std::move(text)));
  out.is_error = is_error;
  return out;
}

std::string RefusalText(const GateDecision& d, const std::string& what) {
  std::string text = what + ": not performed, " + std::string(GateVerdictName(d.verdict));
  if (!d.rule.empty()) text += " by rule " + EscapeForDisplay(d.rule);
  if (!d.reason.empty()) text += ": " + EscapeForDisplay(d.reason);
  if (!d.token.empty()) text += "\nconfirmation token: " + d.token;
  return text + "\n";
}

ToolResult Windows(const AppToolsPtr& tools, const json& args, ToolContext& ctx) {
  std::vector<std::string> notes;
  auto lease = Acquire(*tools, args, ctx, &notes);
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  auto windows = ListDesktopWindows(*lease);
  if (!windows.ok()) return ToolResult::FromError(windows.error());
  json list = json::array();
  std::string text;
  for (const WindowEntry& e : *windows) {
    list.push_back(WindowEntryToJson(e));
    const WindowInfo& w = e.window;
    // Built whole, not in a fixed buffer: an escaped title is longer than
    // its characters, and a cut line would lose its newline.
    text += WindowIdText(w.id) + " " + EscapeForDisplay(e.app, 40) + " pid=" +
            std::to_string(w.pid) + " bounds=" + std::to_string(w.bounds.x) + "," +
            std::to_string(w.bounds.y) + "," + std::to_string(w.bounds.w) + "," +
            std::to_string(w.bounds.h) + (w.focused ? " focused" : "") +
            (w.visible ? "" : " hidden") + " " + QuoteForDisplay(w.title, 100) + "\n";
  }
  if (text.empty()) text = "no windows on " + lease->display + "\n";
  const bool wm = lease->hands->windows->has_window_manager();
  return Finish({{"windows", list}, {"window_manager", wm}, {"display", lease->display}}, text,
                notes);
}

ToolResult AppList(const AppToolsPtr& tools, const json& args, ToolContext& ctx) {
  std::vector<std::string> notes;
  auto lease = Acquire(*tools, args, ctx, &notes);
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  auto apps = ListDesktopApps(*lease);
  if (!apps.ok()) return ToolResult::FromError(apps.error());
  json list = json::array();
  std::string text;
  for (const AppEntry& a : *apps) {
    list.push_back(AppEntryToJson(a));
    text += EscapeForDisplay(a.name, 40) + " pid=" + std::to_string(a.pid) +
            (a.accessible ? " " + EscapeForDisplay(a.toolkit, 20) : std::string(" not-accessible")) +
            " windows=" + std::to_string(a.windows.size()) + (a.launched ? " launched" : "") + "\n";
  }
  if (text.empty()) text = "no apps on " + lease->display + "\n";
  return Finish({{"apps", list}, {"display", lease->display}}, text, notes);
}

ToolResult AppLaunch(const AppToolsPtr& tools, const json& args, ToolContext& ctx) {
  LaunchRequest r;
  const json& command = args["command"];
  if (command.is_string()) {
    auto argv = SplitCommandLine(command.get<std::string>());
    if (!argv.ok()) return ToolResult::FromError(argv.error());
    r.argv = std::move(argv).value();
  } else {
    for (const auto& a : command) r.argv.push_back(a.get<std::string>());
  }
  if (r.argv.empty()) return ToolResult::Error("app_launch needs a command line");
  r.timeout = std::chrono::milliseconds(args.value("timeout_ms", 15000));
  r.wait = args.value("wait", true);
  r.confirmation_token = args.value("confirmation_token", "");
  r.arguments = args;
  std::string what = "launch";
  for (const auto& a : r.argv) what += " " + EscapeForDisplay(a, 60);
  return tools->confirmer->Run(
      ctx, what, [tools, args, r](const std::string& token, ToolContext& now) {
        LaunchRequest request = r;
        if (!token.empty()) request.confirmation_token = token;
        request.cancelled = [&now] { return now.cancelled(); };
        int step = 0;
        request.progress = [&now, &step](const std::string& message) {
          now.Progress(++step, 3, message);
        };
        std::vector<std::string> notes;
        auto lease = Acquire(*tools, args, now, &notes);
        if (!lease.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(lease.error()));
        auto result = LaunchApp(*lease, request);
        if (!result.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(result.error()));
        for (const auto& w : result->warnings) now.Log(LogLevel::kWarning, w);
        if (!result->performed) {
          return Outcome(Finish(LaunchResultToJson(*result),
                                RefusalText(result->decision, "app_launch"), notes, true),
                         result->decision);
        }
        std::string text =
            "launched " + EscapeForDisplay(request.argv[0], 80) + ": pid " + std::to_string(result->pid);
        if (result->window) {
          const WindowInfo& w = *result->window;
          text += ", window " + WindowIdText(w.id) + " " + QuoteForDisplay(w.title, 80) +
                  " at " + std::to_string(w.bounds.x) + "," + std::to_string(w.bounds.y) + "," +
                  std::to_string(w.bounds.w) + "," + std::to_string(w.bounds.h);
        }
        if (result->accessible) {
          text += ", accessible as " + QuoteForDisplay(result->app_name, 80) + " (" +
                  EscapeForDisplay(result->toolkit, 40) + ")";
        }
        char ms[48];
        std::snprintf(ms, sizeof(ms), " after %.0f ms\n", result->waited_ms);
        text += ms;
        for (const auto& w : result->warnings) text += "warning: " + EscapeForDisplay(w) + "\n";
        return Confirmer::Attempt::Done(Finish(LaunchResultToJson(*result), text, notes));
      });
}

ToolResult AppFocus(const AppToolsPtr& tools, const json& args, ToolContext& ctx) {
  const std::string app = args["app"].get<std::string>();
  const std::string given_token = args.value("confirmation_token", "");
  return tools->confirmer->Run(
      ctx, "focus " + EscapeForDisplay(app, 60),
      [tools, args, app, given_token](const std::string& token, ToolContext& now) {
        std::vector<std::string> notes;
        auto lease = Acquire(*tools, args, now, &notes);
        if (!lease.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(lease.error()));
        auto result = FocusApp(*lease, app, token.empty() ? given_token : token);
        if (!result.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(result.error()));
        if (!result->performed) {
          return Outcome(Finish(FocusResultToJson(*result),
                                RefusalText(result->decision, "app_focus"), notes, true),
                         result->decision);
        }
        return Confirmer::Attempt::Done(
            Finish(FocusResultToJson(*result),
                   "focused " + EscapeForDisplay(result->app.name, 80) + " (pid " +
                       std::to_string(result->app.pid) + "): window " +
                       WindowIdText(result->window.id) + " " +
                       QuoteForDisplay(result->window.title, 80) + "\n",
                   notes));
      });
}

ToolResult AppClose(const AppToolsPtr& tools, const json& args, ToolContext& ctx) {
  CloseRequest r;
  r.app = args["app"].get<std::string>();
  r.polite_timeout = std::chrono::milliseconds(args.value("polite_timeout_ms", 3000));
  r.term_timeout = std::chrono::milliseconds(args.value("term_timeout_ms", 2000));
  r.force = args.value("force", false);
  r.confirmation_token = args.value("confirmation_token", "");
  r.arguments = args;  // with force, so that the audit log records it
  return tools->confirmer->Run(
      ctx, "close " + EscapeForDisplay(r.app, 60),
      [tools, args, r](const std::string& token, ToolContext& now) {
        CloseRequest request = r;
        if (!token.empty()) request.confirmation_token = token;
        std::vector<std::string> notes;
        now.Progress(1, 2, "closing");
        auto lease = Acquire(*tools, args, now, &notes);
        if (!lease.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(lease.error()));
        auto result = CloseApp(*lease, request);
        if (!result.ok()) return Confirmer::Attempt::Done(ToolResult::FromError(result.error()));
        if (!result->performed) {
          return Outcome(Finish(CloseResultToJson(*result),
                                RefusalText(result->decision, "app_close"), notes, true),
                         result->decision);
        }
        now.Progress(2, 2, "done");
        if (result->stage == "asking") {
          // Not an end: the app waits for an answer, and its work is unsaved.
          std::string text = "not closed: " + EscapeForDisplay(result->app.name, 80) + " (pid " +
                             std::to_string(result->app.pid) + ") " +
                             AppQuestionText(*result->question);
          text += "It still runs. Answer it (click one of its buttons; ask the user which when "
                  "unsure), or call app_close again with force: true to end it and lose its "
                  "unsaved work.\n";
          return Confirmer::Attempt::Done(
              Finish(CloseResultToJson(*result), std::move(text), notes, true));
        }
        return Confirmer::Attempt::Done(
            Finish(CloseResultToJson(*result), CloseOutcomeText(*result), notes));
      });
}

json DecisionOutput() { return schema::Decision(); }

}  // namespace

Status RegisterAppTools(ToolRegistry& registry, Workspace& workspace,
                        std::shared_ptr<Confirmer> confirmer) {
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  auto tools = std::make_shared<AppTools>(workspace, std::move(confirmer));
  const ToolAnnotations read_only{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  auto add = [&](const char* name, const char* title, const char* description, json input,
                 json output, ToolAnnotations annotations,
                 ToolResult (*fn)(const AppToolsPtr&, const json&, ToolContext&)) {
    Tool t;
    t.name = name;
    t.title = title;
    t.description = description;
    t.input_schema = std::move(input);
    t.output_schema = std::move(output);
    t.annotations = annotations;
    t.handler = [tools, fn](const json& args, ToolContext& ctx) { return fn(tools, args, ctx); };
    return registry.Add(std::move(t));
  };
  const json no_args = {{"type", "object"},
                        {"additionalProperties", false},
                        {"properties", WithSession(json::object())}};
  const json token = schema::ConfirmationToken();

  if (auto st = add("windows", "List windows",
                    "The desktop's top-level windows, bottom to top: X window ID, title, app, "
                    "pid, bounds, visible, focused.",
                    no_args,
                    {{"type", "object"},
                     {"required", {"windows", "window_manager", "display"}},
                     {"properties",
                      {{"windows", {{"type", "array"}, {"items", WindowSchema()}}},
                       {"window_manager", Boolean("an EWMH window manager runs")},
                       {"display", String("the X display")},
                       {"notes", StringArray("things the server did on the way")}}}},
                    read_only, Windows);
      !st.ok()) {
    return st;
  }
  if (auto st = add(
          "app_launch", "Launch an app",
          "Starts a command in the session, accessibility switched on (GTK, Qt, Chromium), and "
          "waits for its window and accessibility app; returns them.",
          {{"type", "object"},
           {"additionalProperties", false},
           {"required", {"command"}},
           {"properties",
            WithSession(
                {{"command",
                  {{"anyOf",
                    {{{"type", "string"}, {"minLength", 1}},
                     {{"type", "array"}, {"minItems", 1}, {"items", {{"type", "string"}}}}}},
                   {"description", "argv, or one string split like a shell (no expansions)"}}},
                 {"timeout_ms",
                  {{"type", "integer"},
                   {"minimum", 0},
                   {"maximum", 600000},
                   {"default", 15000},
                   {"description", "wait this long for them"}}},
                 {"wait",
                  {{"type", "boolean"},
                   {"default", true},
                   {"description", "false: return as soon as the process started"}}},
                 {"confirmation_token", token}})}},
          {{"type", "object"},
           {"required",
            {"performed", "decision", "pid", "log_file", "accessible", "app", "toolkit",
             "waited_ms", "warnings", "window"}},
           {"properties",
            {{"performed", Boolean("the process was started")},
             {"decision", DecisionOutput()},
             {"pid", {{"type", "integer"}}},
             {"log_file", String("the app's stdout and stderr")},
             {"window", {{"anyOf", {WindowSchema(), {{"type", "null"}}}}}},
             {"accessible", Boolean("its accessibility app appeared")},
             {"app", String("its accessible name (else WM_CLASS)")},
             {"toolkit", String("GTK, Qt, Chromium, ...")},
             {"waited_ms", {{"type", "number"}}},
             {"warnings", StringArray("no accessibility app by the deadline, ...")},
             {"notes", StringArray("things the server did on the way")}}}},
          ToolAnnotations{
              .read_only = false, .destructive = false, .idempotent = false, .open_world = false},
          AppLaunch);
      !st.ok()) {
    return st;
  }
  if (auto st = add("app_list", "List apps",
                    "The desktop's apps (accessible or with windows): pid, toolkit, whether "
                    "observe sees its elements, whether launched here, command line, windows.",
                    no_args,
                    {{"type", "object"},
                     {"required", {"apps", "display"}},
                     {"properties",
                      {{"apps", {{"type", "array"}, {"items", AppSchema()}}},
                       {"display", String("the X display")},
                       {"notes", StringArray("things the server did on the way")}}}},
                    read_only, AppList);
      !st.ok()) {
    return st;
  }
  const json focus_close_output = {
      {"type", "object"},
      {"required", {"performed", "decision", "app"}},
      {"properties",
       {{"performed", Boolean("done")},
        {"decision", DecisionOutput()},
        {"app", AppSchema()},
        {"window", {{"anyOf", {WindowSchema(), {{"type", "null"}}}}}},
        {"stage",
         {{"type", "string"},
          {"enum", {"closed", "terminated", "killed", "asking", ""}},
          {"description",
           "app_close: closed by its close button, terminated (SIGTERM) or killed (SIGKILL); "
           "asking: it answered the close with a question (see question) and still runs"}}},
        {"question",
         {{"type", "object"},
          {"description",
           "app_close: the dialog the app put up when asked to close (\"Save changes?\")"},
          {"properties",
           {{"window", {{"type", {"string", "null"}}}},
            {"title", {{"type", "string"}}},
            {"text", {{"type", "string"}}},
            {"buttons",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"properties", {{"id", String("element ID to click")}, {"name", String("label")}}}}}}}}}}},
        {"exit_code", {{"type", {"integer", "null"}}}},
        {"waited_ms", {{"type", "number"}}},
        {"notes", StringArray("things the server did on the way")}}}};
  if (auto st = add(
          "app_focus", "Focus an app",
          "Raises and focuses the app's top-most window.",
          {{"type", "object"},
           {"additionalProperties", false},
           {"required", {"app"}},
           {"properties", WithSession({{"app", AppArgument()}, {"confirmation_token", token}})}},
          focus_close_output,
          ToolAnnotations{
              .read_only = false, .destructive = false, .idempotent = true, .open_world = false},
          AppFocus);
      !st.ok()) {
    return st;
  }
  return add(
      "app_close", "Close an app",
      "Closes the app as its close button would, then SIGTERM after polite_timeout_ms and "
      "SIGKILL after term_timeout_ms. An app asking to save runs on; its question and button "
      "IDs are returned (force ends it).",
      {{"type", "object"},
       {"additionalProperties", false},
       {"required", {"app"}},
       {"properties",
        WithSession({{"app", AppArgument()},
                     {"polite_timeout_ms",
                      {{"type", "integer"},
                       {"minimum", 0},
                       {"maximum", 600000},
                       {"default", 3000},
                       {"description", "wait this long after the polite close"}}},
                     {"term_timeout_ms",
                      {{"type", "integer"},
                       {"minimum", 0},
                       {"maximum", 600000},
                       {"default", 2000},
                       {"description", "wait this long after SIGTERM before SIGKILL"}}},
                     {"force", {{"type", "boolean"}, {"description", "even if it asks to save"}}},
                     {"confirmation_token", token}})}},
      focus_close_output,
      ToolAnnotations{
          .read_only = false, .destructive = true, .idempotent = false, .open_world = false},
      AppClose);
}

}  // namespace uiscope::mcp
