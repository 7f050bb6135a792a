// `observe` and `find`: the tree of what is on screen, and elements in it.
#include <chrono>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "core/format.h"
#include "engine/find.h"
#include "engine/observe_diff.h"
#include "engine/perceive.h"
#include "mcp/tools/action_tools.h"
#include "mcp/tools/ocr_tools.h"
#include "mcp/tools/plan_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/tools/tools.h"
#include "mcp/wire.h"
#include "vision/detector.h"

namespace uiscope::mcp {
namespace schema {

json Bounds() {
  return {{"type", "object"},
          {"description", "screen pixels of the captured display"},
          {"required", {"x", "y", "w", "h"}},
          {"properties",
           {{"x", {{"type", "integer"}}},
            {"y", {{"type", "integer"}}},
            {"w", {{"type", "integer"}}},
            {"h", {{"type", "integer"}}}}}};
}

json Node() {
  return {
      {"type", "object"},
      {"required", {"id", "role", "name", "states", "actions", "source", "app", "pid", "window"}},
      {"properties",
       {{"id", String("stable ID, role-prefixed (btn_1a2b); pass it to action tools")},
        {"role", String("normalised role: button, text_field, check_box, ...")},
        {"name", String("label")},
        {"value", String("current value (never for password fields)")},
        {"description", String("accessible description")},
        {"bounds", Bounds()},
        {"states", StringArray("focused, checked, selected, expanded, password, ...")},
        {"actions", StringArray("accessibility actions (click, activate, ...)")},
        {"source",
         {{"type", "string"}, {"enum", {"ax", "ocr", "vision", "merged", "learned", "x11"}}}},
        {"confidence", {{"type", "number"}}},
        {"app", String("owning application")},
        {"pid", {{"type", "integer"}}},
        {"window", String("ID of the owning window")},
        {"parent_id", String("ID of the parent when the page starts below the root")},
        {"children", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}};
}

json Target() {
  return {{"type", "object"},
          {"required",
           {"id", "role", "label", "app", "window", "click", "confidence", "source", "learned",
            "hits"}},
          {"properties",
           {{"id", String("stable ID; pass it to action tools")},
            {"role", String("normalised role: button, text_field, check_box, ...")},
            {"label", String("its name, else its description")},
            {"app", String("owning application")},
            {"window", String("its window's title")},
            {"click",
             {{"type", "object"},
              {"required", {"x", "y"}},
              {"properties", {{"x", {{"type", "integer"}}}, {"y", {{"type", "integer"}}}}},
              {"description", "where a click lands, screen pixels"}}},
            {"confidence", {{"type", "number"}}},
            {"source",
             {{"type", "string"}, {"enum", {"ax", "ocr", "vision", "merged", "learned", "x11"}}}},
            {"learned",
             Boolean("memory knows it: taught or learned, or actions on it had their effect")},
            {"hits", Integer("actions on it that had their effect", 0)},
            {"disabled", Boolean("known to be disabled")},
            {"stale", Boolean("a learned target not confirmed on screen now")}}}};
}

json SessionArgument() {
  return String("session ID (default: the server's desktop)");
}

json AccessibilityTimeout() {
  return TimeoutMs(2000, "deadline of each application's accessibility calls");
}

json SettleMs() {
  return {{"type", "integer"},
          {"minimum", 0},
          {"maximum", 60000},
          {"default", 500},
          {"description", "wait this long for an effect"}};
}

json Via() {
  return {{"type", "string"}, {"enum", {"auto", "accessibility", "xtest"}}, {"default", "auto"}};
}

json ConfirmationToken() { return String("of a held call, once approved"); }

json NamedRole() { return String("with name: only this role"); }
json NamedExact() { return Boolean("with name: the whole label, exactly"); }
json NamedApp() { return String("with name: only this application"); }

json SharedArguments() {
  return {{"session", SessionArgument()},
          {"role", NamedRole()},
          {"exact", NamedExact()},
          {"app", NamedApp()},
          {"timeout_ms", AccessibilityTimeout()},
          {"settle_ms", SettleMs()},
          {"via", Via()},
          {"confirmation_token", ConfirmationToken()}};
}

json ScreenRegion() { return Region("default: the whole screen"); }

json ShortForms() {
  return json::array(
      {json::array({ActionTarget(""), {{"type", {"string", "object"}}}}),
       json::array({ScreenRegion(), {{"type", "object"}, {"description", "{x, y, w, h}"}}})});
}

}  // namespace schema

namespace {

using schema::Boolean;
using schema::Integer;
using schema::String;
using schema::StringArray;

constexpr int kDefaultMaxChars = 20000;

// The last observation of each scope, so that a cursor pages the snapshot it
// was cut from instead of a new one.
class SnapshotCache {
 public:
  struct Entry {
    std::string scope;
    Snapshot snapshot;
    std::vector<std::string> warnings;
    // What the learner knew of each element's hits when it was observed
    // (the targets format ranks by it, on every page alike).
    std::unordered_map<std::string, int> learned_hits;
  };
  void Put(Entry entry) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->scope == entry.scope) {
        entries_.erase(it);
        break;
      }
    }
    entries_.push_back(std::move(entry));
    if (entries_.size() > kKept) entries_.pop_front();
  }
  std::optional<Entry> Get(const std::string& scope) {
    std::lock_guard lock(mutex_);
    for (const Entry& e : entries_) {
      if (e.scope == scope) return e;
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kKept = 8;
  std::mutex mutex_;
  std::deque<Entry> entries_;
};

struct DesktopTools {
  DesktopTools(Workspace& w, std::shared_ptr<TextReader> r) : workspace(w), reader(std::move(r)) {}
  Workspace& workspace;
  std::shared_ptr<TextReader> reader;  // OCR for sources ["ax", "ocr"]
  SnapshotCache cache;
};

ObserveRequest ObserveRequestFrom(const json& args) {
  ObserveRequest r;
  r.app = args.value("app", "");
  r.pid = args.value("pid", 0);
  r.include_hidden = args.value("include_hidden", false);
  r.fresh = args.value("fresh", false);
  r.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));
  return r;
}

Result<Sources> SourcesFrom(const json& args) {
  std::vector<std::string> names;
  for (const auto& s : args.value("sources", json::array())) names.push_back(s.get<std::string>());
  return ParseSources(names);
}

// The cache key. With the workspace's generation: after Workspace::ResetFake
// (fuzzing) nothing cached before applies.
std::string ScopeOf(const Workspace& workspace, const std::string& display, const ObserveRequest& r,
                    const Sources& s) {
  return std::to_string(workspace.generation()) + "\x1f" + display + "\x1f" + r.app + "\x1f" +
         std::to_string(r.pid) + "\x1f" + (r.include_hidden ? "1" : "0") + (s.ocr ? "o" : "") +
         (s.vision ? "v" : "") + (s.pixels_where_blind ? "p" : "");
}

// Observes through the workspace; on a failure that means the desktop went
// away, forgets the connection so the next call reconnects.
// `learned_hits`, when given, receives a copy of what the learner knows of
// each element's hits (engine/learner.h), taken under the lease: find ranks
// by it after the lease is released.
Result<Observation> ObserveOnce(DesktopTools& tools, const json& args, const Sources& sources,
                                ToolContext& ctx, std::string* display,
                                std::vector<std::string>* notes,
                                std::unordered_map<std::string, int>* learned_hits = nullptr) {
  ctx.Progress(1, 3, "connecting to the desktop");
  auto lease = tools.workspace.Acquire(args.value("session", ""));
  if (!lease.ok()) return lease.error();
  *display = lease->display;
  for (auto& note : lease->notes) {
    ctx.Log(LogLevel::kNotice, note);
    notes->push_back(std::move(note));
  }
  ctx.Progress(2, 3,
               sources.vision
                   ? "reading the accessibility tree, then detecting elements in the pixels"
               : sources.ocr ? "reading the accessibility tree, then OCR where it is blind"
                             : "reading the accessibility tree");
  // Vision's detector: the one `detector` names, else the default.
  std::unique_ptr<vision::Detector> detector;
  if (sources.vision) {
    vision::DetectorOptions d;
    d.kind = args.value("detector", "");
    std::string warning;
    auto created = vision::CreateDetector(d, &warning);
    if (!created.ok()) return created.error();
    if (!warning.empty()) {
      ctx.Log(LogLevel::kWarning, warning);
      notes->push_back(std::move(warning));
    }
    detector = std::move(created).value();
  }
  auto perceived = Perceive(*lease, ObserveRequestFrom(args), sources, tools.reader.get(),
                            ocr::OcrOptions{}, detector.get());
  const bool display_gone = DesktopGone(*lease);
  if (!perceived.ok()) {
    if (perceived.error().code == ErrorCode::kUnavailable || display_gone) {
      lease->lock.unlock();
      tools.workspace.Invalidate(*display);
    }
    return perceived.error();
  }
  for (const auto& w : perceived->observation.warnings) ctx.Log(LogLevel::kWarning, w);
  if (learned_hits != nullptr && lease->learner != nullptr) {
    *learned_hits = lease->learner->AllHits();
  }
  return std::move(perceived->observation);
}

ToolResult WithNotes(ToolResult result, const std::vector<std::string>& notes) {
  for (const auto& note : notes) result.content.push_back(Content::Text("note: " + note));
  return result;
}

// observe's screenshot: true (seed 003's debug_ui mode "both"): the
// `screenshot` tool's image and its summary added to `result`, of the
// observed application's window when app or pid narrowed the observation,
// else of the whole screen. The screenshot tool is called, not copied; a
// failed capture leaves the tree and says why in warnings.
void AddScreenshot(const ToolRegistry& registry, const json& args, const Snapshot& snapshot,
                   ToolContext& ctx, ToolResult& result) {
  if (!args.value("screenshot", false)) return;
  const Tool* tool = registry.Find("screenshot");
  std::string failure;
  if (tool == nullptr) {
    failure = "this server has no screenshot tool";
  } else {
    json shot_args = json::object();
    for (const char* key :
         {"session", "marks", "max_width", "app", "pid", "sources", "timeout_ms"}) {
      if (args.contains(key)) shot_args[key] = args[key];
    }
    if (args.contains("app") || args.contains("pid")) {
      for (const Node& root : snapshot.roots) {
        for (const Node& child : root.children) {
          if (IsWindowRole(child.role)) {
            shot_args["window"] = child.id;
            break;
          }
        }
        if (shot_args.contains("window")) break;
      }
    }
    ToolResult shot = tool->handler(shot_args, ctx);
    if (shot.is_error) {
      for (const Content& c : shot.content) failure += c.text;
    } else {
      for (Content& c : shot.content) result.content.push_back(std::move(c));
      json described = std::move(shot.structured);
      // The marks are listed in the summary text; programs map IDs to
      // image pixels with region and scale.
      if (described.is_object()) {
        described["marks_drawn"] = described.value("marks", json::array()).size();
        described.erase("marks");
      }
      result.structured["screenshot"] = std::move(described);
    }
  }
  if (!failure.empty()) {
    const std::string warning = "screenshot: " + failure;
    result.structured["warnings"].push_back(warning);
    result.content.push_back(Content::Text("warning: " + warning + "\n"));
  }
}

// format "diff": what changed since this server's previous observation of
// the same scope (engine/observe_diff.h).
ToolResult ObserveDiff(DesktopTools& tools, const ToolRegistry& registry, const json& args,
                       ToolContext& ctx, const Sources& sources) {
  if (args.contains("cursor")) {
    return ToolResult::Error(
        "InvalidArgument: the diff format is not paged; call observe with format diff and "
        "without a cursor (max_nodes bounds the lines)");
  }
  std::vector<std::string> notes;
  std::string display;
  auto obs = ObserveOnce(tools, args, sources, ctx, &display, &notes);
  if (!obs.ok()) return WithNotes(ToolResult::FromError(obs.error()), notes);
  // The cache still holds the previous observation of the scope: observe
  // stores a new one only after formatting it.
  const std::string scope = ScopeOf(tools.workspace, display, ObserveRequestFrom(args), sources);
  std::optional<SnapshotCache::Entry> previous = tools.cache.Get(scope);
  FormatOptions baseline_page;
  baseline_page.max_nodes = args.value("max_nodes", 0);
  baseline_page.max_chars = args.value("max_chars", kDefaultMaxChars);
  auto d = DiffObservations(obs->snapshot, previous ? &previous->snapshot : nullptr, baseline_page,
                            args.value("max_nodes", 0));
  if (!d.ok()) return ToolResult::FromError(d.error());
  json structured = DiffObservationToJson(obs->snapshot, *d);
  // The text content carries the diff (or the baseline tree) for the model;
  // structuredContent keeps the machine-readable diff, not the text again.
  structured.erase("tree");
  structured["display"] = display;
  structured["warnings"] = obs->warnings;
  if (!notes.empty()) structured["notes"] = notes;
  std::string text = d->baseline ? "(first observation of this scope: the whole tree; the next "
                                   "diff shows only what changed)\n" +
                                       d->text
                                 : d->text;
  if (!d->baseline && d->diff.empty()) text = "(no change since the previous observation)\n";
  for (const auto& w : obs->warnings) text += "warning: " + w + "\n";
  ToolResult result;
  result.content.push_back(Content::Text(std::move(text)));
  result.structured = std::move(structured);
  AddScreenshot(registry, args, obs->snapshot, ctx, result);
  tools.cache.Put({scope, std::move(obs->snapshot), obs->warnings, {}});
  return WithNotes(std::move(result), notes);
}

ToolResult Observe(DesktopTools& tools, const ToolRegistry& registry, const json& args,
                   ToolContext& ctx) {
  auto sources = SourcesFrom(args);
  if (!sources.ok()) return ToolResult::FromError(sources.error());
  if (!args.value("screenshot", false) && (args.contains("marks") || args.contains("max_width"))) {
    return ToolResult::Error(
        "InvalidArgument: marks and max_width shape observe's screenshot; pass screenshot: true "
        "with them");
  }
  if (args.value("format", "compact") == "diff")
    return ObserveDiff(tools, registry, args, ctx, *sources);
  auto format = ParseFormat(args.value("format", "compact"));
  if (!format.ok()) return ToolResult::FromError(format.error());
  FormatOptions options;
  options.format = *format;
  options.max_nodes = args.value("max_nodes", 0);
  options.max_chars = args.value("max_chars", kDefaultMaxChars);
  options.cursor = args.value("cursor", "");

  std::vector<std::string> notes;
  std::string display;
  Snapshot snapshot;
  std::vector<std::string> warnings;
  std::unordered_map<std::string, int> hits;
  const ObserveRequest request = ObserveRequestFrom(args);
  if (!options.cursor.empty()) {
    // A cursor continues the observation it came from.
    auto lease = tools.workspace.Acquire(args.value("session", ""));
    if (!lease.ok()) return ToolResult::FromError(lease.error());
    display = lease->display;
    auto cached = tools.cache.Get(ScopeOf(tools.workspace, display, request, *sources));
    if (!cached) {
      return ToolResult::Error(
          "InvalidArgument: the cursor \"" + options.cursor +
          "\" continues an observation this server no longer has (or one with other app, pid, "
          "include_hidden, sources or session arguments); call observe without a cursor first");
    }
    snapshot = std::move(cached->snapshot);
    warnings = std::move(cached->warnings);
    hits = std::move(cached->learned_hits);
  } else {
    auto obs = ObserveOnce(tools, args, *sources, ctx, &display, &notes, &hits);
    if (!obs.ok()) return WithNotes(ToolResult::FromError(obs.error()), notes);
    snapshot = std::move(obs->snapshot);
    warnings = std::move(obs->warnings);
  }
  if (ctx.cancelled()) return ToolResult::Error("cancelled");
  if (!hits.empty()) {
    options.learned_hits = [&hits](const Node& n) {
      auto it = hits.find(n.id);
      return it == hits.end() ? 0 : it->second;
    };
  }

  auto out = FormatSnapshot(snapshot, options);
  if (!out.ok()) return ToolResult::FromError(out.error());
  // The compact tree goes once, as text content for the model;
  // structuredContent carries what programs need beside it (stats, page,
  // frame), not the tree again.
  json structured;
  if (out->json.is_null()) {
    structured = SnapshotEnvelope(snapshot, *out);
  } else {
    structured = out->json;
  }
  structured["format"] = std::string(FormatName(*format));
  structured["display"] = display;
  structured["warnings"] = warnings;
  if (!notes.empty()) structured["notes"] = notes;

  ToolResult result;
  std::string text = out->text;
  if (text.empty()) text = "(no applications with accessible content)\n";
  for (const auto& w : warnings) text += "warning: " + w + "\n";
  result.content.push_back(Content::Text(std::move(text)));
  result.structured = std::move(structured);
  AddScreenshot(registry, args, snapshot, ctx, result);
  if (options.cursor.empty()) {
    tools.cache.Put({ScopeOf(tools.workspace, display, request, *sources), std::move(snapshot),
                     warnings, std::move(hits)});
  }
  return WithNotes(std::move(result), notes);
}

ToolResult Find(DesktopTools& tools, const json& args, ToolContext& ctx) {
  FindQuery query;
  query.name = args.value("name", "");
  query.exact = args.value("exact", false);
  query.limit = args.value("limit", 20);
  if (args.contains("role")) {
    auto role = ParseRole(args["role"].get<std::string>());
    if (!role.ok()) return ToolResult::FromError(role.error());
    query.role = *role;
  }
  if (query.name.empty() && !query.role) {
    return ToolResult::Error("InvalidArgument: find needs a name, a role, or both");
  }
  auto sources = SourcesFrom(args);
  if (!sources.ok()) return ToolResult::FromError(sources.error());
  std::vector<std::string> notes;
  std::string display;
  std::unordered_map<std::string, int> hits;
  auto obs = ObserveOnce(tools, args, *sources, ctx, &display, &notes, &hits);
  if (!obs.ok()) return WithNotes(ToolResult::FromError(obs.error()), notes);
  if (!hits.empty()) {
    query.learned_hits = [&hits](const Node& n) {
      auto it = hits.find(n.id);
      return it == hits.end() ? 0 : it->second;
    };
  }
  // Matching gets its own timeout_ms after the observation (which had one
  // per application), and stops when the client cancels.
  query.deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(args.value("timeout_ms", 2000));
  query.cancelled = [&ctx] { return ctx.cancelled(); };
  auto found = FindNodes(obs->snapshot.roots, query, obs->snapshot.frame);
  if (!found.ok()) return ToolResult::FromError(found.error());

  std::string text;
  for (const FindMatch& m : found->matches) text += FormatFindMatch(m) + "\n";
  if (found->total == 0) {
    text = found->suggestion + " (" + std::to_string(found->searched) +
           " elements searched; observe to see what is on screen";
    if (!sources->vision)
      text += ", or add sources [\"ax\", \"ocr\", \"vision\"] for painted controls";
    text += ")\n";
  } else if (found->total > static_cast<int>(found->matches.size())) {
    text += std::to_string(found->total - static_cast<int>(found->matches.size())) +
            " more matches; raise limit or narrow the query\n";
  }
  for (const auto& w : obs->warnings) text += "warning: " + w + "\n";
  ToolResult result;
  result.content.push_back(Content::Text(std::move(text)));
  result.structured = FindResultToJson(*found);
  result.structured["display"] = display;
  result.structured["warnings"] = obs->warnings;
  if (!notes.empty()) result.structured["notes"] = notes;
  return WithNotes(std::move(result), notes);
}

json ObserveInputSchema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"app", String("only this application")},
        {"pid", Integer("only this process", 1)},
        {"format",
         {{"type", "string"},
          {"enum", {"compact", "json", "semantic", "diff", "targets"}},
          {"default", "compact"},
          {"description",
           "compact: a line per element; json: every field; semantic: by kind; diff: changes "
           "since the last observe; targets: what to act on, flat, with click points"}}},
        {"sources",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"enum", {"ax", "ocr", "vision"}}}},
          {"description",
           "ax: accessibility tree; ocr: text it misses; vision: controls in pixels (default "
           "ax; all three for apps without accessibility)"}}},
        {"detector",
         {{"type", "string"},
          {"enum", {"classical", "learned", "combined", "auto"}},
          {"description",
           "for vision; classical: most precise; learned: finds most, less precise; combined "
           "(the default): classical plus what learned finds elsewhere; auto: learned, else "
           "classical"}}},
        {"max_nodes",
         {{"type", "integer"},
          {"minimum", 0},
          {"default", 0},
          {"description", "per page (0 = no limit)"}}},
        {"max_chars",
         {{"type", "integer"},
          {"minimum", 0},
          {"default", kDefaultMaxChars},
          {"description", "per page (0 = no limit)"}}},
        {"cursor", String("page.next_cursor of the previous call")},
        {"include_hidden", Boolean("also elements not showing")},
        {"fresh", Boolean("bypass the event-fed cache")},
        {"timeout_ms", schema::AccessibilityTimeout()},
        {"screenshot", Boolean("also the image (the app's window with app or pid)")},
        {"marks", Boolean("with screenshot: boxes and IDs drawn on it")},
        {"max_width",
         {{"type", "integer"},
          {"minimum", 0},
          {"maximum", 16384},
          {"description", "with screenshot: max width (0 = full)"}}},
        {"session", schema::SessionArgument()}}}};
}

json ObserveOutputSchema() {
  const json page = {{"type", "object"},
                     {"required", {"nodes_total", "nodes_emitted", "truncated", "next_cursor"}},
                     {"properties",
                      {{"nodes_total", {{"type", "integer"}}},
                       {"nodes_emitted", {{"type", "integer"}}},
                       {"truncated", {{"type", "boolean"}}},
                       {"next_cursor", String("pass as cursor for the next page; \"\" = last")}}}};
  const json frame = {{"type", "object"},
                      {"required", {"width", "height", "scale"}},
                      {"properties",
                       {{"width", {{"type", "integer"}}},
                        {"height", {{"type", "integer"}}},
                        {"scale", {{"type", "number"}}}}}};
  const json entries = {{"type", "array"}, {"items", {{"type", "object"}}}};
  return {{"type", "object"},
          {"required", {"format", "display", "page", "warnings"}},
          {"properties",
           {{"format",
             {{"type", "string"}, {"enum", {"compact", "json", "semantic", "diff", "targets"}}}},
            {"display", String("the X display observed")},
            {"frame", frame},
            {"stats", {{"type", "object"}}},
            {"page", page},
            {"nodes",
             {{"type", "array"},
              {"items", schema::Node()},
              {"description", "json format: the roots of the page"}}},
            {"screen", {{"type", "object"}}},
            {"windows", entries},
            {"buttons", entries},
            {"text_fields", entries},
            {"links", entries},
            {"text_content", String("semantic format: visible text, one line per element")},
            {"app", String("targets format: the active application (else the first)")},
            {"window", String("targets format: its window's title")},
            {"targets",
             {{"type", "array"},
              {"items", schema::Target()},
              {"description", "targets format: the elements to act on, most relevant first"}}},
            {"baseline",
             Boolean("diff format: no previous observation to compare with; the text content "
                     "is the whole tree")},
            {"diff", schema::Diff()},
            {"warnings", StringArray("apps that did not answer, capped walks, ...")},
            {"screenshot",
             {{"type", "object"},
              {"description",
               "screenshot: true: the image's description (width, height, scale, region; "
               "marks_drawn) as the screenshot tool gives it, its marks listed in the text"}}},
            {"notes", StringArray("things the server did on the way (started a desktop)")}}}};
}

json FindInputSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"name", String("the label, matched fuzzily (case, accents, word order, typos)")},
            {"role", String("button, text_field, ...")},
            {"exact", Boolean("the whole name, case-sensitive")},
            {"app", String("only this application")},
            {"sources",
             {{"type", "array"},
              {"items", {{"type", "string"}, {"enum", {"ax", "ocr", "vision"}}}},
              {"description", "as observe's; default [\"ax\"]"}}},
            {"limit",
             {{"type", "integer"},
              {"minimum", 1},
              {"maximum", 1000},
              {"default", 20}}},
            {"timeout_ms", schema::AccessibilityTimeout()},
            {"session", schema::SessionArgument()}}}};
}

json FindOutputSchema() {
  json match = schema::Node();
  match["required"].push_back("score");
  match["required"].push_back("confidence");
  match["properties"]["score"] = {
      {"type", "number"}, {"description", "how well the label matched, 0..1 (1 = the same text)"}};
  match["properties"]["confidence"] = {
      {"type", "number"},
      {"description", "1 for accessible elements; the detector's or OCR's for pixel-only ones"}};
  match["properties"]["click_point"] = {
      {"type", "object"},
      {"description", "where a click on it lands, screen pixels (the centre of its bounds)"},
      {"required", {"x", "y"}},
      {"properties", {{"x", {{"type", "integer"}}}, {"y", {{"type", "integer"}}}}}};
  match["properties"]["line"] = String("the line of its value or text that matched");
  const json similar = {{"type", "object"},
                        {"required", {"name", "role", "id", "score"}},
                        {"properties",
                         {{"name", String("a name on screen")},
                          {"role", String("its role")},
                          {"id", String("the element with that name")},
                          {"score", {{"type", "number"}}}}}};
  return {
      {"type", "object"},
      {"required", {"found", "matches", "total", "searched", "similar", "display", "warnings"}},
      {"properties",
       {{"found", Boolean("at least one element matched")},
        {"matches",
         {{"type", "array"},
          {"items", match},
          {"description", "best first: label score, then interactive elements, then confidence"}}},
        {"total", {{"type", "integer"}, {"description", "matches before the limit"}}},
        {"searched", {{"type", "integer"}, {"description", "nodes looked at"}}},
        {"similar",
         {{"type", "array"},
          {"items", similar},
          {"description", "when nothing matched: the closest names on screen"}}},
        {"suggestion",
         String("when nothing matched: \"No elements matching 'X' found. Similar: ...\"")},
        {"display", String("the X display searched")},
        {"warnings", StringArray("apps that did not answer, capped walks, ...")},
        {"notes", StringArray("things the server did on the way")}}}};
}

}  // namespace

Status RegisterDesktopTools(ToolRegistry& registry, Workspace& workspace) {
  return RegisterDesktopTools(registry, workspace, std::make_shared<TextReader>());
}

Status RegisterDesktopTools(ToolRegistry& registry, Workspace& workspace,
                            std::shared_ptr<TextReader> reader) {
  auto tools = std::make_shared<DesktopTools>(workspace, std::move(reader));
  Tool observe;
  observe.name = "observe";
  observe.title = "Observe the screen";
  observe.description =
      "What is on screen as a tree: apps, windows and their elements, each with a stable ID to "
      "act on, role, name, value, bounds and states. Compact and paged (max_chars, cursor).";
  observe.input_schema = ObserveInputSchema();
  observe.output_schema = ObserveOutputSchema();
  observe.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  observe.handler = [tools, &registry](const json& args, ToolContext& ctx) {
    return Observe(*tools, registry, args, ctx);
  };
  if (auto st = registry.Add(std::move(observe)); !st.ok()) return st;

  Tool find;
  find.name = "find";
  find.title = "Find elements";
  find.description =
      "Elements by label and/or role, best first, with ID, bounds and click point; if none "
      "matches, the closest names. Cheaper than observe.";
  find.input_schema = FindInputSchema();
  find.output_schema = FindOutputSchema();
  find.annotations = ToolAnnotations{
      .read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  find.handler = [tools](const json& args, ToolContext& ctx) { return Find(*tools, args, ctx); };
  return registry.Add(std::move(find));
}

Status RegisterAllTools(ToolRegistry& registry, Workspace& workspace, SessionControl& sessions) {
  return RegisterAllTools(registry, workspace, sessions, nullptr);
}

Status RegisterAllTools(ToolRegistry& registry, Workspace& workspace, SessionControl& sessions,
                        std::shared_ptr<Confirmer> confirmer,
                        std::shared_ptr<ShortcutRegistryStore> shortcut_store) {
  const bool policy = confirmer != nullptr;
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  // One OCR engine (Tesseract pool and cache) for observe and read_text.
  auto reader = std::make_shared<TextReader>();
  if (auto st = RegisterDesktopTools(registry, workspace, reader); !st.ok()) return st;
  if (auto st = RegisterScreenshotTools(registry, workspace); !st.ok()) return st;
  if (auto st = RegisterOcrTools(registry, workspace, reader); !st.ok()) return st;
  if (auto st = RegisterHandsTools(registry, workspace, reader, confirmer, shortcut_store);
      !st.ok()) {
    return st;
  }
  if (auto st = RegisterSessionTools(registry, sessions, workspace, confirmer); !st.ok()) return st;
  if (auto st = RegisterPlanTools(registry, workspace, confirmer); !st.ok()) return st;
  if (auto st = RegisterClipboardTools(registry, workspace, confirmer); !st.ok()) return st;
  if (auto st = RegisterSpecialistTools(registry, workspace, confirmer, shortcut_store); !st.ok()) {
    return st;
  }
  if (policy) return RegisterConfirmTools(registry, confirmer);
  return OkStatus();
}

}  // namespace uiscope::mcp
