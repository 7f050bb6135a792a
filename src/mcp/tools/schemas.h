// JSON Schema fragments shared by the tools' input and output schemas.
#pragma once

#include <nlohmann/json.hpp>

namespace uiscope::mcp::schema {

using nlohmann::json;

inline json String(const char* description) {
  return {{"type", "string"}, {"description", description}};
}
inline json Integer(const char* description, int minimum) {
  return {{"type", "integer"}, {"minimum", minimum}, {"description", description}};
}
inline json Boolean(const char* description) {
  return {{"type", "boolean"}, {"description", description}};
}
inline json StringArray(const char* description) {
  return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}

// bounds {x, y, w, h} in screen pixels of the captured display.
json Bounds();
// An argument {x, y, w, h} (w, h >= 1) naming a screen rectangle.
inline json Region(const char* description) {
  return {{"type", "object"},
          {"description", description},
          {"additionalProperties", false},
          {"required", {"x", "y", "w", "h"}},
          {"properties",
           {{"x", {{"type", "integer"}}},
            {"y", {{"type", "integer"}}},
            {"w", {{"type", "integer"}, {"minimum", 1}}},
            {"h", {{"type", "integer"}, {"minimum", 1}}}}}};
}
// A `timeout_ms` argument, 10 ms to 10 minutes.
inline json TimeoutMs(int default_ms, const char* description) {
  return {{"type", "integer"},
          {"minimum", 10},
          {"maximum", 600000},
          {"default", default_ms},
          {"description", description}};
}
// A node of the json format (core/format.h NodeToJson); `children` nests
// the same shape.
json Node();
// A target of the targets format (core/format.h).
json Target();
// The `session` argument every desktop tool takes.
json SessionArgument();

// Arguments many tools share with one meaning (issue 21: they were repeated
// in 23 of 28 tools). tools/list leaves them out of each tool's published
// inputSchema (ServerOptions::listing) and the server's
// instructions (mcp/serve.h Instructions()) describe them once; a tool that
// declares one with exactly its schema here still accepts and checks it. A
// tool whose argument of that name means something else (wait_for's
// timeout_ms, menu's settle_ms) declares its own schema and keeps it listed.
// timeout_ms: the deadline of each application's accessibility calls.
json AccessibilityTimeout();
// settle_ms: how long an action waits for an effect before reporting none.
json SettleMs();
// via: auto | accessibility | xtest.
json Via();
// confirmation_token: the token of a held call, once a person approved it.
json ConfirmationToken();
// role, exact, app: with an action's `name` (find-then-act), narrowing the
// label's match as find does.
json NamedRole();
json NamedExact();
json NamedApp();
// {name: schema} of the arguments above and `session`.
json SharedArguments();
// The `region` argument of screenshot and read_text.
json ScreenRegion();
// Argument schemas tools/list publishes in a short form, the instructions
// describing them once ([[declared, published], ...], ToolListing): an
// action's target (ActionTarget("")) and ScreenRegion().
json ShortForms();

// Hands (action_tools.cpp): an action's target (an element ID or "X,Y", or
// {x, y}); a tree diff {added, removed, changed}; a pixel change {captured,
// score, changed_pixels, region, bounds}; a safety decision {verdict, rule,
// reason, token}.
json ActionTarget(const char* description);
json Diff();
json PixelChange();
json Decision();

}  // namespace uiscope::mcp::schema
