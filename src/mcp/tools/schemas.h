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

// Hands (action_tools.cpp): an action's target (an element ID or "X,Y", or
// {x, y}); a tree diff {added, removed, changed}; a pixel change {captured,
// score, changed_pixels, region, bounds}; a safety decision {verdict, rule,
// reason, token}.
json ActionTarget(const char* description);
json Diff();
json PixelChange();
json Decision();

}  // namespace uiscope::mcp::schema
