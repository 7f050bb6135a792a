// Tools for protocol tests and the fuzzer: small, deterministic, no desktop.
//   echo      returns its `text` as text and structured {"text": ...}
//   fail      a tool failure (isError) with the given message
//   throws    a handler that throws (the server must contain it)
//   wait      waits until cancelled or `ms` passed, reporting progress; logs
//   bad_output  returns structuredContent that breaks its outputSchema
//   ask       asks the user through elicitation ({approve: boolean}) and
//             returns what came back: "accept {...}", "decline", "cancel",
//             or "cannot ask: ..." / the error
#pragma once

#include <chrono>
#include <stdexcept>
#include <thread>

#include "mcp/tool_registry.h"

namespace uiscope::mcp::test {

inline ToolRegistry MakeTestTools() {
  ToolRegistry r;
  auto add = [&](Tool t) {
    auto st = r.Add(std::move(t));
    if (!st.ok()) throw std::logic_error(st.error().message);
  };
  add(Tool{"echo",
           "Echo",
           "returns its text",
           {{"type", "object"},
            {"additionalProperties", false},
            {"required", {"text"}},
            {"properties",
             {{"text", {{"type", "string"}, {"maxLength", 1000}}},
              {"times", {{"type", "integer"}, {"minimum", 1}, {"maximum", 3}}}}}},
           {{"type", "object"},
            {"required", {"text"}},
            {"properties", {{"text", {{"type", "string"}}}}}},
           ToolAnnotations{
               .read_only = true, .destructive = false, .idempotent = true, .open_world = false},
           [](const json& args, ToolContext&) {
             std::string text;
             for (int i = 0; i < args.value("times", 1); ++i)
               text += args["text"].get<std::string>();
             ToolResult result;
             result.content.push_back(Content::Text(text));
             result.structured = {{"text", text}};
             return result;
           }});
  add(Tool{"fail",
           "Fail",
           "always fails",
           {{"type", "object"}, {"properties", {{"message", {{"type", "string"}}}}}},
           nullptr,
           ToolAnnotations{},
           [](const json& args, ToolContext&) {
             return ToolResult::Error(args.value("message", "it failed"));
           }});
  add(Tool{"throws",
           "Throws",
           "a buggy tool",
           {{"type", "object"}, {"properties", json::object()}},
           nullptr,
           ToolAnnotations{},
           [](const json&, ToolContext&) -> ToolResult { throw std::runtime_error("boom"); }});
  add(Tool{"wait",
           "Wait",
           "waits until cancelled or ms passed",
           {{"type", "object"},
            {"properties", {{"ms", {{"type", "integer"}, {"minimum", 0}, {"maximum", 60000}}}}}},
           nullptr,
           ToolAnnotations{},
           [](const json& args, ToolContext& ctx) {
             const int ms = args.value("ms", 0);
             ctx.Log(LogLevel::kDebug, "waiting");
             ctx.Log(LogLevel::kWarning, "this takes a while");
             ctx.Progress(0.5, 1, "halfway");
             auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
             while (!ctx.cancelled() && std::chrono::steady_clock::now() < until)
               std::this_thread::sleep_for(std::chrono::milliseconds(1));
             ctx.Progress(1, 1, "done");
             return ToolResult{
                 {Content::Text(ctx.cancelled() ? "cancelled" : "waited")}, nullptr, false};
           }});
  add(Tool{
      "bad_output",
      "Bad output",
      "breaks its outputSchema",
      {{"type", "object"}, {"properties", json::object()}},
      {{"type", "object"}, {"required", {"n"}}, {"properties", {{"n", {{"type", "integer"}}}}}},
      ToolAnnotations{},
      [](const json&, ToolContext&) {
        return ToolResult{{Content::Text("x")}, {{"n", "not a number"}}, false};
      }});
  add(Tool{"ask",
           "Ask",
           "asks the user a yes/no question through the client",
           {{"type", "object"},
            {"properties",
             {{"question", {{"type", "string"}}},
              {"timeout_ms", {{"type", "integer"}, {"minimum", 1}, {"maximum", 60000}}}}}},
           nullptr,
           ToolAnnotations{},
           [](const json& args, ToolContext& ctx) {
             if (!ctx.CanElicit()) {
               return ToolResult{{Content::Text("cannot ask: no elicitation")}, nullptr, false};
             }
             ElicitRequest request;
             request.message = args.value("question", "Proceed?");
             request.requested_schema = {
                 {"type", "object"},
                 {"properties", {{"approve", {{"type", "boolean"}, {"title", "Approve"}}}}},
                 {"required", {"approve"}}};
             request.timeout = std::chrono::milliseconds(args.value("timeout_ms", 10000));
             auto answer = ctx.Elicit(request);
             if (!answer.ok()) return ToolResult::FromError(answer.error());
             std::string text = answer->action;
             if (answer->action == "accept") text.append(" ").append(answer->content.dump());
             return ToolResult{{Content::Text(text)}, nullptr, false};
           }});
  return r;
}

}  // namespace uiscope::mcp::test
