// `read_text`: OCR text with structuredContent (engine/read_text.h).
#include "mcp/tools/ocr_tools.h"

#include <cstdio>
#include <string>
#include <vector>

#include "mcp/tools/schemas.h"
#include "mcp/wire.h"
#include "ocr/recognizer.h"

namespace uiscope::mcp {
namespace {

using schema::Boolean;
using schema::String;
using schema::StringArray;

struct OcrTools {
  OcrTools(Workspace& w, std::shared_ptr<TextReader> r) : workspace(w), reader(std::move(r)) {}
  Workspace& workspace;
  std::shared_ptr<TextReader> reader;
};

ReadTextRequest RequestFrom(const json& args) {
  ReadTextRequest r;
  if (args.contains("region")) {
    const json& g = args["region"];
    r.region = Rect{g["x"].get<int>(), g["y"].get<int>(), g["w"].get<int>(), g["h"].get<int>()};
  }
  if (args.contains("window")) {
    const json& w = args["window"];
    r.window = w.is_string() ? w.get<std::string>() : std::to_string(w.get<uint64_t>());
  }
  r.scale = args.value("scale", 0.0);
  r.lang = args.value("lang", "eng");
  r.observe.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));
  return r;
}

std::string Summary(const ReadTextResult& r) {
  char line[320];
  std::snprintf(line, sizeof(line),
                "(%zu lines, confidence %.2f, region %d,%d,%d,%d on %s, %.1f ms: %s; %d text "
                "regions recognised, %d from the cache%s)\n",
                r.ocr.lines.size(), r.ocr.confidence, r.region.x, r.region.y, r.region.w,
                r.region.h, r.display.c_str(), r.total_ms, r.ocr.cached ? "cached" : "read",
                r.ocr.regions_read, r.ocr.regions_reused,
                r.masked_fields > 0 ? "; password fields masked" : "");
  std::string text = r.ocr.text;
  if (text.empty()) text = "(no text found)";
  text += "\n";
  text += line;
  for (const auto& w : r.warnings) text += "warning: " + w + "\n";
  return text;
}

json InputSchema(const std::string& languages) {
  const std::string lang_description =
      "Tesseract language(s), joined by '+'" +
      (languages.empty() ? std::string() : " (installed: " + languages + ")");
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"region", schema::ScreenRegion()},
            {"window",
             {{"type", {"string", "integer"}},
              {"description", "its element ID or X window ID; not with region"}}},
            {"scale",
             {{"type", "number"},
              {"minimum", 0},
              {"maximum", 4},
              {"default", 0},
              {"description", "magnification; 0: by text height"}}},
            {"lang", {{"type", "string"}, {"default", "eng"}, {"description", lang_description}}},
            {"timeout_ms", schema::AccessibilityTimeout()},
            {"session", schema::SessionArgument()}}}};
}

json OutputSchema() {
  const json word = {{"type", "object"},
                     {"required", {"text", "bounds", "confidence"}},
                     {"properties",
                      {{"text", String("the word")},
                       {"bounds", schema::Bounds()},
                       {"confidence", {{"type", "number"}, {"description", "0..1"}}}}}};
  const json line = {
      {"type", "object"},
      {"required", {"text", "bounds", "confidence", "words"}},
      {"properties",
       {{"text", String("the line's words joined by spaces")},
        {"bounds", schema::Bounds()},
        {"confidence", {{"type", "number"}, {"description", "0..1, mean over its words"}}},
        {"words", {{"type", "array"}, {"items", word}}}}}};
  const json region = {{"type", "object"},
                       {"required", {"x", "y", "w", "h"}},
                       {"properties",
                        {{"x", {{"type", "integer"}}},
                         {"y", {{"type", "integer"}}},
                         {"w", {{"type", "integer"}}},
                         {"h", {{"type", "integer"}}}}}};
  return {
      {"type", "object"},
      {"required",
       {"confidence", "lines", "words", "processing_time_ms", "cached", "regions_read",
        "regions_reused", "region", "display", "masked_fields", "warnings"}},
      {"properties",
       {{"confidence", {{"type", "number"}, {"description", "0..1, mean word confidence"}}},
        {"lines", {{"type", "array"}, {"items", line}}},
        {"words",
         {{"type", "array"},
          {"items", word},
          {"description",
           "every word, in "
           "reading order"}}},
        {"processing_time_ms",
         {{"type", "number"}, {"description", "OCR time (cache lookups and recognition)"}}},
        {"cached", Boolean("nothing had to be recognised: every text region came from the cache")},
        {"regions_read", {{"type", "integer"}, {"description", "text regions recognised"}}},
        {"regions_reused",
         {{"type", "integer"}, {"description", "text regions answered from the cache"}}},
        {"region", region},
        {"display", String("the X display read")},
        {"masked_fields",
         {{"type", "integer"}, {"description", "password fields blanked before OCR"}}},
        {"capture_ms", {{"type", "number"}}},
        {"observe_ms",
         {{"type", "number"}, {"description", "locating password fields in the tree"}}},
        {"total_ms", {{"type", "number"}, {"description", "the whole call"}}},
        {"warnings", StringArray("apps that did not answer, fields that could not be masked")},
        {"notes", StringArray("things the server did on the way (started a desktop)")}}}};
}

ToolResult ReadText(OcrTools& tools, const json& args, ToolContext& ctx) {
  const ReadTextRequest request = RequestFrom(args);
  ctx.Progress(1, 2, "capturing the screen");
  auto lease = tools.workspace.Acquire(args.value("session", ""));
  if (!lease.ok()) return ToolResult::FromError(lease.error());
  std::vector<std::string> notes;
  for (auto& note : lease->notes) {
    ctx.Log(LogLevel::kNotice, note);
    notes.push_back(std::move(note));
  }
  const std::string display = lease->display;
  bool display_gone = false;
  auto read = tools.reader->Read(std::move(lease).value(), request, &display_gone);
  if (!read.ok()) {
    // The desktop went away: forget its connection so the next call
    // reconnects (Read has released the lease).
    if (display_gone) tools.workspace.Invalidate(display);
    return ToolResult::FromError(read.error());
  }
  ctx.Progress(2, 2, "read");
  for (const auto& w : read->warnings) ctx.Log(LogLevel::kWarning, w);
  if (ctx.cancelled()) return ToolResult::Error("cancelled");

  ToolResult result;
  result.structured = ReadTextToJson(*read);
  // The text goes once, as text content for the model; programs have it
  // line by line with bounds in `lines` (issue 21: no double payload).
  result.structured.erase("text");
  if (!notes.empty()) result.structured["notes"] = notes;
  std::string text = Summary(*read);
  for (const auto& note : notes) text += "note: " + note + "\n";
  result.content.push_back(Content::Text(std::move(text)));
  return result;
}

}  // namespace

Status RegisterOcrTools(ToolRegistry& registry, Workspace& workspace) {
  return RegisterOcrTools(registry, workspace, std::make_shared<TextReader>());
}

Status RegisterOcrTools(ToolRegistry& registry, Workspace& workspace,
                        std::shared_ptr<TextReader> reader) {
  std::string languages;
  if (auto installed = ocr::InstalledLanguages(); installed.ok()) {
    for (const auto& l : *installed) languages += (languages.empty() ? "" : ", ") + l;
  }
  auto tools = std::make_shared<OcrTools>(workspace, std::move(reader));
  Tool tool;
  tool.name = "read_text";
  tool.title = "Read text on screen (OCR)";
  tool.description =
      "OCR of the screen, a region or a window (lines, words, bounds): for what the tree "
      "cannot see, e.g. terminals, canvases. Password fields are blanked.";
  tool.input_schema = InputSchema(languages);
  tool.output_schema = OutputSchema();
  tool.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  tool.handler = [tools](const json& args, ToolContext& ctx) {
    return ReadText(*tools, args, ctx);
  };
  return registry.Add(std::move(tool));
}

}  // namespace uiscope::mcp
