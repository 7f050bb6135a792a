// `wait_for`: an element, a name, a text, an element gone or any change,
// with a deadline (engine/wait_for.h).
#include <chrono>
#include <cstdio>
#include <mutex>

#include "core/escape.h"
#include "core/format.h"
#include "engine/find.h"
#include "engine/wait_for.h"
#include "mcp/tools/action_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::String;
using schema::StringArray;

struct WaitTools {
  WaitTools(Workspace& w, std::shared_ptr<TextReader> r) : workspace(w), reader(std::move(r)) {}
  Workspace& workspace;
  std::mutex mutex;
  std::shared_ptr<TextReader> reader;  // created on first need when not shared

  TextReader* Reader() {
    std::lock_guard lock(mutex);
    if (!reader) reader = std::make_shared<TextReader>();
    return reader.get();
  }
};

json InputSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"id", String("this element ID shows")},
            {"name", String("an element whose name contains this shows")},
            {"role", String("with name, or alone")},
            {"exact", Boolean("with name: whole, case-sensitive")},
            {"text", String("this text shows (tree, else OCR)")},
            {"gone", String("this element ID is gone")},
            {"change", Boolean("anything changes")},
            {"ocr",
             {{"type", "boolean"},
              {"default", true},
              {"description", "with text"}}},
            {"app", String("only this application")},
            {"pid", schema::Integer("only this process", 1)},
            {"timeout_ms",
             {{"type", "integer"},
              {"minimum", 0},
              {"maximum", 600000},
              {"default", 5000}}},
            {"interval_ms",
             {{"type", "integer"},
              {"minimum", 0},
              {"maximum", 60000},
              {"default", 0},
              {"description", "between polls (0: fastest)"}}},
            {"session", schema::SessionArgument()}}}};
}

json OutputSchema() {
  return {{"type", "object"},
          {"required",
           {"satisfied", "condition", "seen_in", "waited_ms", "polls", "matches", "text_matches",
            "change", "pixels", "warnings", "display"}},
          {"properties",
           {{"satisfied", Boolean("the condition held before the deadline")},
            {"condition", String("what was waited for")},
            {"seen_in",
             {{"type", "string"},
              {"enum", {"tree", "ocr", "pixels", ""}},
              {"description", "where it was seen"}}},
            {"waited_ms", {{"type", "number"}}},
            {"polls", {{"type", "integer"}}},
            {"matches",
             {{"type", "array"},
              {"items", schema::Node()},
              {"description", "elements that satisfied id / name / text"}}},
            {"text_matches",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"text", "bounds", "confidence"}},
                {"properties",
                 {{"text", String("the OCR line")},
                  {"bounds", schema::Bounds()},
                  {"confidence", {{"type", "number"}}}}}}},
              {"description", "text found by OCR"}}},
            {"last_seen", schema::Node()},
            {"change", schema::Diff()},
            {"pixels", schema::PixelChange()},
            {"warnings", StringArray("polls that failed, OCR unavailable, ...")},
            {"not_answering",
             StringArray("applications (name and pid) the last poll could not read: busy or "
                         "hung, they may hide what was awaited")},
            {"display", String("the X display watched")},
            {"notes", StringArray("things the server did on the way")}}}};
}

ToolResult WaitForTool(WaitTools& tools, const json& args, ToolContext& ctx) {
  WaitForRequest r;
  WaitCondition& c = r.condition;
  int given = 0;
  if (args.contains("id")) {
    c.kind = WaitCondition::Kind::kElement;
    c.id = args["id"].get<std::string>();
    ++given;
  }
  if (args.contains("name") || (args.contains("role") && !args.contains("text"))) {
    c.kind = WaitCondition::Kind::kName;
    c.name = args.value("name", "");
    c.exact = args.value("exact", false);
    if (args.contains("role")) {
      auto role = ParseRole(args["role"].get<std::string>());
      if (!role.ok()) return ToolResult::FromError(role.error());
      c.role = *role;
    }
    ++given;
  }
  if (args.contains("text")) {
    c.kind = WaitCondition::Kind::kText;
    c.text = args["text"].get<std::string>();
    c.ocr = args.value("ocr", true);
    ++given;
  }
  if (args.contains("gone")) {
    c.kind = WaitCondition::Kind::kGone;
    c.id = args["gone"].get<std::string>();
    ++given;
  }
  if (args.value("change", false)) {
    c.kind = WaitCondition::Kind::kChange;
    ++given;
  }
  if (given != 1) {
    return ToolResult::Error(
        "InvalidArgument: give exactly one condition: id, name (with role), text, gone or "
        "change");
  }
  r.session = args.value("session", "");
  r.app = args.value("app", "");
  r.pid = args.value("pid", 0);
  r.timeout = std::chrono::milliseconds(args.value("timeout_ms", 5000));
  r.interval = std::chrono::milliseconds(args.value("interval_ms", 0));
  if (c.kind == WaitCondition::Kind::kText && c.ocr) r.reader = tools.Reader();
  r.cancelled = [&ctx] { return ctx.cancelled(); };
  const double total = static_cast<double>(r.timeout.count());
  r.progress = [&ctx, total](double elapsed_ms, int polls) {
    ctx.Progress(std::min(elapsed_ms, total), total,
                 "waiting (" + std::to_string(polls) + " polls)");
  };
  auto result = WaitFor(tools.workspace, r);
  if (!result.ok()) return ToolResult::FromError(result.error());
  for (const auto& w : result->warnings) ctx.Log(LogLevel::kWarning, w);

  ToolResult out;
  out.structured = WaitForResultToJson(*result);
  char head[200];
  if (result->satisfied) {
    std::snprintf(head, sizeof(head), "seen %s in the %s after %.0f ms (%d polls)\n",
                  result->condition.c_str(), result->seen_in.c_str(), result->waited_ms,
                  result->polls);
  } else {
    std::snprintf(head, sizeof(head),
                  "timed out after %.0f ms waiting for %s (%d polls); observe to see what is on "
                  "screen\n",
                  result->waited_ms, result->condition.c_str(), result->polls);
  }
  std::string text = head;
  if (!result->satisfied && !result->not_answering.empty()) {
    // The likely cause of the wait's failure: say which app and what to do.
    std::string apps;
    for (const std::string& app : result->not_answering) {
      apps += (apps.empty() ? "" : ", ") + EscapeForDisplay(app, 60);
    }
    text += "not answering: " + apps +
            " (busy or hung, so what it shows could not be read). Wait and retry, or close it "
            "(app_close)\n";
  }
  for (const Node& n : result->matches) text += FormatNodeLine(n) + "\n";
  for (const TextMatch& m : result->text_matches) {
    text += "[ocr \"" + SanitiseForDisplay(m.text, 200) + "\"]\n";
  }
  text += FormatDiff(result->change, 40);
  out.content.push_back(Content::Text(std::move(text)));
  out.is_error = !result->satisfied;
  return out;
}

}  // namespace

Status RegisterWaitTools(ToolRegistry& registry, Workspace& workspace,
                         std::shared_ptr<TextReader> reader) {
  auto tools = std::make_shared<WaitTools>(workspace, std::move(reader));
  Tool t;
  t.name = "wait_for";
  t.title = "Wait for something on screen";
  t.description =
      "Waits until an element (id, or name and role) or a text shows, an element is gone, or "
      "anything changes; returns what it saw.";
  t.input_schema = InputSchema();
  t.output_schema = OutputSchema();
  t.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = [tools](const json& args, ToolContext& ctx) {
    return WaitForTool(*tools, args, ctx);
  };
  return registry.Add(std::move(t));
}

}  // namespace uiscope::mcp
