// `screenshot`: image content plus structuredContent (engine/screenshot.h).
#include "mcp/tools/screenshot_tool.h"

#include <cstdio>
#include <memory>

#include "core/escape.h"
#include "engine/screenshot.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::Integer;
using schema::String;
using schema::StringArray;

struct ScreenshotTools {
  explicit ScreenshotTools(Workspace& w) : workspace(w) {}
  Workspace& workspace;
  ScreenshotService service;  // keeps each desktop's capture (XShm segment) between calls
};

Result<ScreenshotRequest> RequestFrom(const json& args) {
  ScreenshotRequest r;
  if (args.contains("region")) {
    const json& g = args["region"];
    r.region = Rect{g["x"].get<int>(), g["y"].get<int>(), g["w"].get<int>(), g["h"].get<int>()};
  }
  if (args.contains("window")) {
    const json& w = args["window"];
    r.window = w.is_string() ? w.get<std::string>() : std::to_string(w.get<uint64_t>());
  }
  auto encoding = ParseImageEncoding(args.value("encoding", "png"));
  if (!encoding.ok()) return encoding.error();
  r.encoding = *encoding;
  r.max_width = args.value("max_width", 0);
  r.jpeg_quality = args.value("quality", 80);
  r.marks = args.value("marks", false);
  r.max_marks = args.value("max_marks", 500);
  r.observe.app = args.value("app", "");
  r.observe.pid = args.value("pid", 0);
  r.observe.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));
  std::vector<std::string> sources;
  for (const auto& name : args.value("sources", json::array())) {
    sources.push_back(name.get<std::string>());
  }
  auto parsed = ParseSources(sources);
  if (!parsed.ok()) return parsed.error();
  r.sources = *parsed;
  return r;
}

std::string Summary(const ScreenshotResult& r) {
  char head[256];
  std::snprintf(head, sizeof(head),
                "%dx%d %s, %zu bytes, of screen region %d,%d,%d,%d on %s (scale %.4g: screen = "
                "region origin + image / scale)\n",
                r.width, r.height, std::string(ImageEncodingName(r.encoding)).c_str(),
                r.bytes.size(), r.region.x, r.region.y, r.region.w, r.region.h, r.display.c_str(),
                r.scale);
  std::string text = head;
  if (!r.marks.empty()) {
    text += std::to_string(r.marks.size()) + " marks (image pixels):\n";
    for (const ScreenshotMark& m : r.marks) {
      text += "[" + m.id + " " + std::string(RoleName(m.role));
      if (!m.name.empty()) text += " " + QuoteForDisplay(m.name, 80);
      text += " at " + std::to_string(m.bounds.x) + "," + std::to_string(m.bounds.y) + "," +
              std::to_string(m.bounds.w) + "," + std::to_string(m.bounds.h) + "]\n";
    }
  }
  for (const auto& w : r.warnings) text += "warning: " + w + "\n";
  return text;
}

json InputSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"region", schema::ScreenRegion()},
            {"window",
             {{"type", {"string", "integer"}},
              {"description", "its element ID or X window ID; not with region"}}},
            {"encoding",
             {{"type", "string"},
              {"enum", {"png", "webp", "jpeg"}},
              {"default", "png"},
              {"description", "webp: lossless, smaller; jpeg: lossy"}}},
            {"max_width",
             {{"type", "integer"},
              {"minimum", 0},
              {"maximum", 16384},
              {"default", 0},
              {"description", "at most this wide (0 = full size); scale maps back"}}},
            {"quality",
             {{"type", "integer"},
              {"minimum", 1},
              {"maximum", 100},
              {"default", 80}}},
            {"marks", Boolean("draw element boxes and IDs")},
            {"max_marks",
             {{"type", "integer"},
              {"minimum", 0},
              {"maximum", 5000},
              {"default", 500}}},
            {"app", String("marks: only this app")},
            {"sources",
             {{"type", "array"},
              {"items", {{"type", "string"}, {"enum", {"ax", "ocr", "vision"}}}},
              {"description", "marks: as observe's; default [\"ax\"]"}}},
            {"pid", Integer("marks: only this process", 1)},
            {"timeout_ms", schema::AccessibilityTimeout()},
            {"session", schema::SessionArgument()}}}};
}

json OutputSchema() {
  const json frame = {{"type", "object"},
                      {"required", {"width", "height", "scale"}},
                      {"properties",
                       {{"width", {{"type", "integer"}}},
                        {"height", {{"type", "integer"}}},
                        {"scale", {{"type", "number"}}}}}};
  const json mark = {
      {"type", "object"},
      {"required", {"id", "role", "name", "bounds", "screen_bounds", "color"}},
      {"properties",
       {{"id", String("the element's stable ID (the label drawn); pass it to action tools")},
        {"role", String("normalised role")},
        {"name", String("the element's name")},
        {"bounds", schema::Bounds()},
        {"screen_bounds", schema::Bounds()},
        {"color", String("#rrggbb of the outline and label")}}}};
  return {{"type", "object"},
          {"required",
           {"width", "height", "scale", "mime_type", "encoding", "bytes", "region", "frame",
            "display", "frame_hash", "marks", "warnings", "method", "timings"}},
          {"properties",
           {{"width", {{"type", "integer"}, {"description", "image pixels"}}},
            {"height", {{"type", "integer"}, {"description", "image pixels"}}},
            {"scale",
             {{"type", "number"},
              {"description",
               "image pixels per screen pixel: screen = region origin + image / "
               "scale"}}},
            {"mime_type", String("of the image content")},
            {"encoding", {{"type", "string"}, {"enum", {"png", "webp", "jpeg"}}}},
            {"bytes", {{"type", "integer"}, {"description", "size of the encoded image"}}},
            {"region", schema::Region("the screen rectangle captured (screen pixels)")},
            {"frame", frame},
            {"display", String("the X display captured")},
            {"frame_hash", String("xxHash3 of the captured pixels (16 hex digits)")},
            {"changed",
             Boolean("whether the region changed since the previous screenshot of this desktop "
                     "(XDamage); absent when unknown")},
            {"marks", {{"type", "array"}, {"items", mark}}},
            {"warnings", StringArray("marks left out, apps that did not answer, ...")},
            {"method", String("capture path: xshm or xgetimage")},
            {"timings",
             {{"type", "object"},
              {"properties",
               {{"capture_ms", {{"type", "number"}}},
                {"observe_ms", {{"type", "number"}}},
                {"encode_ms", {{"type", "number"}}}}}}},
            {"notes", StringArray("things the server did on the way (started a desktop)")}}}};
}

ToolResult Screenshot(ScreenshotTools& tools, const json& args, ToolContext& ctx) {
  auto request = RequestFrom(args);
  if (!request.ok()) return ToolResult::FromError(request.error());
  auto lease = tools.workspace.Acquire(args.value("session", ""));
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  std::vector<std::string> notes;
  for (auto& note : lease->notes) {
    ctx.Log(LogLevel::kNotice, note);
    notes.push_back(std::move(note));
  }
  const std::string display = lease->display;
  auto shot = tools.service.Take(*lease, *request);
  if (!shot.ok()) {
    if (shot.error().code == ErrorCode::kUnavailable) {
      lease->lock.unlock();
      tools.workspace.Invalidate(display);
    }
    return ToolResult::FromError(shot.error());
  }
  for (const auto& w : shot->warnings) ctx.Log(LogLevel::kWarning, w);
  if (ctx.cancelled()) return ToolResult::Error("cancelled");

  ToolResult result;
  result.structured = ScreenshotToJson(*shot);
  if (!notes.empty()) result.structured["notes"] = notes;
  std::string text = Summary(*shot);
  for (const auto& note : notes) text += "note: " + note + "\n";
  result.content.push_back(
      Content::Image(std::string(MimeType(shot->encoding)), std::move(shot->bytes)));
  result.content.push_back(Content::Text(std::move(text)));
  return result;
}

}  // namespace

Status RegisterScreenshotTools(ToolRegistry& registry, Workspace& workspace) {
  auto tools = std::make_shared<ScreenshotTools>(workspace);
  Tool tool;
  tool.name = "screenshot";
  tool.title = "Screenshot";
  tool.description =
      "An image of the screen, a region or a window; marks draws element boxes and IDs on it. "
      "Prefer observe: far cheaper than pixels.";
  tool.input_schema = InputSchema();
  tool.output_schema = OutputSchema();
  tool.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  tool.handler = [tools](const json& args, ToolContext& ctx) {
    return Screenshot(*tools, args, ctx);
  };
  return registry.Add(std::move(tool));
}

}  // namespace uiscope::mcp
