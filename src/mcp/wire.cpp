#include "mcp/wire.h"

#include <cmath>
#include <cstdio>

#include "core/diff.h"
#include "core/format.h"
#include "core/shortcuts.h"
#include "image/image.h"

namespace uiscope {
namespace {

using nlohmann::json;

// Milli-precision is all a confidence or a duration needs, and it keeps the
// JSON of a full screen (thousands of words) short.
double Round3(double v) { return std::round(v * 1000) / 1000; }

json PointJson(Point p) { return {{"x", p.x}, {"y", p.y}}; }

json WindowJson(const WindowInfo& w) {
  return {{"id", WindowIdText(w.id)},
          {"title", SanitiseUtf8(w.title, 500)},
          {"app_class", w.app_class},
          {"app_instance", w.app_instance},
          {"pid", w.pid},
          {"bounds", RectToJson(w.bounds)},
          {"visible", w.visible},
          {"focused", w.focused}};
}

json WordJson(const ocr::OcrWord& w) {
  return {{"text", w.text}, {"bounds", RectToJson(w.bounds)}, {"confidence", Round3(w.confidence)}};
}

}  // namespace

// --- engine/act.h ----------------------------------------------------------------

json GateDecisionToJson(const GateDecision& d) {
  return {{"verdict", GateVerdictName(d.verdict)},
          {"rule", d.rule},
          {"reason", d.reason},
          {"token", d.token}};
}

json ActionResultToJson(const ActionResult& r) {
  json j = {
      {"tool", r.tool},
      {"performed", r.performed},
      {"via", r.via},
      {"method", r.method},
      {"decision", GateDecisionToJson(r.decision)},
      {"notes", r.notes},
      {"resolution", r.resolution},
      {"display", r.display},
      {"timing", {{"resolve_ms", r.resolve_ms}, {"act_ms", r.act_ms}, {"total_ms", r.total_ms}}}};
  if (r.target) j["target"] = NodeToJson(*r.target, false);
  json points = json::array();
  for (const Point& p : r.points) points.push_back(PointJson(p));
  j["points"] = std::move(points);
  if (r.verification) {
    j["effect"] = r.verification->effect;
    j["verification"] = VerificationToJson(*r.verification);
  } else {
    j["effect"] = "";
  }
  return j;
}

// --- engine/verify.h -------------------------------------------------------------

json VerificationToJson(const Verification& v) {
  auto rects = [](const std::vector<Rect>& list) {
    json out = json::array();
    for (const Rect& r : list) out.push_back(RectToJson(r));
    return out;
  };
  auto windows = [](const std::vector<WindowChange>& list) {
    json out = json::array();
    for (const WindowChange& w : list) {
      out.push_back({{"id", XWindowText(w.id)},
                     {"title", w.title},
                     {"bounds", RectToJson(w.bounds)},
                     {"changed", w.changed}});
    }
    return out;
  };
  json pixels = {{"captured", v.pixels.captured},
                 {"score", v.pixels.score},
                 {"changed_pixels", v.pixels.changed_pixels},
                 {"compared_pixels", v.pixels.compared_pixels}};
  if (v.pixels.captured) {
    pixels["region"] = RectToJson(v.pixels.region);
    pixels["compared"] = rects(v.pixels.compared);
    pixels["areas"] = rects(v.pixels.areas);
  }
  if (v.pixels.bounds) pixels["bounds"] = RectToJson(*v.pixels.bounds);
  return {{"effect", v.effect},
          {"reason", v.reason},
          {"tree", DiffToJson(v.tree, 200)},
          {"pixels", std::move(pixels)},
          {"windows_opened", windows(v.windows_opened)},
          {"windows_closed", windows(v.windows_closed)},
          {"waited_ms", v.waited_ms},
          {"polls", v.polls},
          {"ended_by", v.ended_by},
          {"warnings", v.warnings}};
}

// --- engine/apps.h ---------------------------------------------------------------

json WindowEntryToJson(const WindowEntry& e) {
  json j = WindowJson(e.window);
  j["app"] = e.app;
  return j;
}

json AppEntryToJson(const AppEntry& a) {
  json windows = json::array();
  for (const WindowInfo& w : a.windows) windows.push_back(WindowJson(w));
  return {{"name", a.name},         {"pid", a.pid},
          {"toolkit", a.toolkit},   {"accessible", a.accessible},
          {"launched", a.launched}, {"command", SanitiseUtf8(a.command, 500)},
          {"windows", windows}};
}

json LaunchResultToJson(const LaunchResult& r) {
  json j = {{"performed", r.performed},
            {"decision", GateDecisionToJson(r.decision)},
            {"pid", r.pid},
            {"log_file", r.log_file},
            {"accessible", r.accessible},
            {"app", r.app_name},
            {"toolkit", r.toolkit},
            {"waited_ms", r.waited_ms},
            {"warnings", r.warnings}};
  if (r.devtools_port > 0) j["devtools_port"] = r.devtools_port;
  j["window"] = r.window ? WindowJson(*r.window) : json(nullptr);
  return j;
}

json FocusResultToJson(const FocusResult& r) {
  json j = {{"performed", r.performed},
            {"decision", GateDecisionToJson(r.decision)},
            {"app", AppEntryToJson(r.app)}};
  j["window"] = r.performed ? WindowJson(r.window) : json(nullptr);
  return j;
}

json CloseResultToJson(const CloseResult& r) {
  json j = {{"performed", r.performed},
            {"decision", GateDecisionToJson(r.decision)},
            {"app", AppEntryToJson(r.app)},
            {"stage", r.stage},
            {"waited_ms", r.waited_ms}};
  j["exit_code"] = r.exit_code ? json(*r.exit_code) : json(nullptr);
  if (r.question) {
    json buttons = json::array();
    for (const AppQuestion::Button& b : r.question->buttons) {
      buttons.push_back({{"id", b.id}, {"name", SanitiseUtf8(b.name, 200)}});
    }
    // JSON fields carry the app's real text, as every other field here:
    // the serialiser escapes, and the text's lines stay lines.
    j["question"] = {{"window", r.question->window ? json(WindowIdText(r.question->window))
                                                   : json(nullptr)},
                     {"title", SanitiseUtf8(r.question->title, 500)},
                     {"text", SanitiseUtf8(r.question->text, 2000)},
                     {"buttons", buttons}};
  }
  return j;
}

// --- engine/clipboard.h ----------------------------------------------------------

json ClipboardOwnerToJson(const ClipboardGetResult& r) {
  return {{"window", WindowIdText(r.owner.window)},
          {"pid", r.owner.pid},
          {"app", r.owner_app},
          {"app_class", r.owner.app_class}};
}

json ClipboardSetResultToJson(const ClipboardSetRequest& request,
                              const ClipboardSetResult& result) {
  json j = {{"performed", result.performed},
            {"selection", SelectionName(request.selection)},
            {"mime", request.data.mime},
            {"bytes", request.data.bytes.size()}};
  if (result.performed) {
    j["holder_pid"] = result.holder_pid;
    j["verified"] = result.verified;
    j["hold_s"] = request.hold_for.count();
  } else {
    j["decision"] = GateDecisionToJson(result.decision);
  }
  return j;
}

// --- engine/discover.h -----------------------------------------------------------

json DiscoveryToJson(const Discovery& d) {
  json shortcuts = json::array();
  for (const Shortcut& s : d.shortcuts) shortcuts.push_back(ShortcutToJson(s));
  json j = {{"app", d.app},
            {"pid", d.pid},
            {"toolkit", d.toolkit},
            {"toolkit_name", d.toolkit_name},
            {"toolkit_version", d.toolkit_version},
            {"windows", d.windows},
            {"menus", d.menus},
            {"shortcut_count", d.shortcuts.size()},
            {"shortcuts", shortcuts},
            {"roles", d.roles},
            {"custom_actions", d.custom_actions},
            {"schema_available", d.schema},
            {"exploration_confidence", std::round(d.confidence * 100) / 100},
            {"elapsed_ms", std::round(d.elapsed_ms * 10) / 10},
            {"notes", d.notes}};
  if (d.schema) j["schema_file"] = d.schema_file;
  if (d.state_unchanged) j["state_unchanged"] = *d.state_unchanged;
  return j;
}

// --- engine/find.h ---------------------------------------------------------------

json FindResultToJson(const FindResult& result) {
  json matches = json::array();
  for (const FindMatch& m : result.matches) {
    json j = NodeToJson(*m.node, /*with_children=*/false);
    j["score"] = Round3(m.score);
    j["confidence"] = Round3(m.node->source == Source::kAx ? 1.0 : m.node->confidence);
    if (m.click_point) j["click_point"] = {{"x", m.click_point->x}, {"y", m.click_point->y}};
    if (!m.line.empty()) j["line"] = m.line;
    matches.push_back(std::move(j));
  }
  json similar = json::array();
  for (const Suggestion& s : result.similar) {
    similar.push_back({{"name", s.name},
                       {"role", std::string(RoleName(s.role))},
                       {"id", s.id},
                       {"score", Round3(s.score)}});
  }
  json j = {{"found", result.total > 0},
            {"matches", std::move(matches)},
            {"total", result.total},
            {"searched", result.searched},
            {"similar", std::move(similar)}};
  if (!result.suggestion.empty()) j["suggestion"] = result.suggestion;
  return j;
}

// --- engine/menu_path.h ----------------------------------------------------------

json MenuResultToJson(const MenuResult& result) {
  json steps = json::array();
  for (const ActionResult& s : result.steps) steps.push_back(ActionResultToJson(s));
  std::string path;
  for (const std::string& p : result.path) path += (path.empty() ? "" : " > ") + p;
  return {{"app", result.app}, {"path", path}, {"performed", result.performed}, {"steps", steps}};
}

// --- engine/named_target.h -------------------------------------------------------

json NamedTargetToJson(const NamedTarget& target) {
  json j = {{"name", target.name}};
  if (target.role) j["role"] = std::string(RoleName(*target.role));
  if (target.exact) j["exact"] = true;
  if (!target.app.empty()) j["app"] = target.app;
  return j;
}

// --- engine/observe_diff.h -------------------------------------------------------

json DiffObservationToJson(const Snapshot& current, const DiffObservation& d) {
  return {{"format", "diff"},
          {"baseline", d.baseline},
          {"diff", DiffToJson(d.diff, 500)},
          {"tree", d.text},
          {"frame",
           {{"width", current.frame.width},
            {"height", current.frame.height},
            {"scale", current.frame.scale}}},
          {"stats",
           {{"ax_nodes", current.stats.ax_nodes},
            {"ocr_nodes", current.stats.ocr_nodes},
            {"vision_nodes", current.stats.vision_nodes},
            {"merged_nodes", current.stats.merged_nodes},
            {"latency_ms", current.stats.latency_ms}}},
          {"page",
           {{"nodes_total", static_cast<int>(CountNodes(current.roots))},
            {"nodes_emitted", d.lines},
            {"truncated", d.truncated},
            {"next_cursor", ""}}}};
}

// --- engine/read_text.h ----------------------------------------------------------

json ReadTextToJson(const ReadTextResult& r) {
  json lines = json::array();
  json words = json::array();
  for (const ocr::OcrLine& l : r.ocr.lines) {
    json line_words = json::array();
    for (const ocr::OcrWord& w : l.words) {
      line_words.push_back(WordJson(w));
      words.push_back(WordJson(w));
    }
    lines.push_back({{"text", l.text},
                     {"bounds", RectToJson(l.bounds)},
                     {"confidence", Round3(l.confidence)},
                     {"words", std::move(line_words)}});
  }
  return {{"text", r.ocr.text},
          {"confidence", Round3(r.ocr.confidence)},
          {"lines", std::move(lines)},
          {"words", std::move(words)},
          {"processing_time_ms", Round3(r.ocr.processing_time_ms)},
          {"cached", r.ocr.cached},
          {"regions_read", r.ocr.regions_read},
          {"regions_reused", r.ocr.regions_reused},
          {"region", RectToJson(r.region)},
          {"display", r.display},
          {"masked_fields", r.masked_fields},
          {"capture_ms", Round3(r.capture_ms)},
          {"observe_ms", Round3(r.observe_ms)},
          {"total_ms", Round3(r.total_ms)},
          {"warnings", r.warnings}};
}

// --- engine/screenshot.h ---------------------------------------------------------

json ScreenshotToJson(const ScreenshotResult& r) {
  json marks = json::array();
  for (const ScreenshotMark& m : r.marks) {
    marks.push_back({{"id", m.id},
                     {"role", std::string(RoleName(m.role))},
                     {"name", m.name},
                     {"bounds", RectToJson(m.bounds)},
                     {"screen_bounds", RectToJson(m.screen_bounds)},
                     {"color", m.color}});
  }
  char hash[17];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(r.frame_hash));
  json j = {
      {"width", r.width},
      {"height", r.height},
      {"scale", r.scale},
      {"mime_type", std::string(MimeType(r.encoding))},
      {"encoding", std::string(ImageEncodingName(r.encoding))},
      {"bytes", r.bytes.size()},
      {"region", RectToJson(r.region)},
      {"frame", {{"width", r.frame.width}, {"height", r.frame.height}, {"scale", r.frame.scale}}},
      {"display", r.display},
      {"frame_hash", hash},
      {"marks", std::move(marks)},
      {"warnings", r.warnings},
      {"method", r.method},
      {"timings",
       {{"capture_ms", r.capture_ms}, {"observe_ms", r.observe_ms}, {"encode_ms", r.encode_ms}}},
  };
  if (r.changed) j["changed"] = *r.changed;
  return j;
}

// --- engine/shortcuts.h ----------------------------------------------------------

json RegistryToJson(const Registry& registry) {
  json list = json::array();
  for (const Shortcut& s : registry.shortcuts) list.push_back(ShortcutToJson(s));
  json j = {{"app", registry.read.app},
            {"pid", registry.read.pid},
            {"count", registry.shortcuts.size()},
            {"shortcuts", list},
            {"tree_ms", std::round(registry.read.tree_ms * 10) / 10},
            {"schema_file", registry.schema_file},
            {"notes", registry.read.notes}};
  if (registry.read.state_unchanged) {
    j["menus_opened"] = registry.read.menus_opened;
    j["state_unchanged"] = *registry.read.state_unchanged;
  }
  return j;
}

// --- engine/wait_for.h -----------------------------------------------------------

json WaitForResultToJson(const WaitForResult& r) {
  json matches = json::array();
  for (const Node& n : r.matches) matches.push_back(NodeToJson(n, false));
  json text_matches = json::array();
  for (const TextMatch& m : r.text_matches) {
    text_matches.push_back({{"text", SanitiseUtf8(m.text, 1000)},
                            {"bounds", RectToJson(m.bounds)},
                            {"confidence", m.confidence}});
  }
  json pixels = {{"captured", r.pixels.captured},
                 {"score", r.pixels.score},
                 {"changed_pixels", r.pixels.changed_pixels}};
  if (r.pixels.bounds) pixels["bounds"] = RectToJson(*r.pixels.bounds);
  json j = {{"satisfied", r.satisfied},
            {"condition", r.condition},
            {"seen_in", r.seen_in},
            {"waited_ms", r.waited_ms},
            {"polls", r.polls},
            {"matches", std::move(matches)},
            {"text_matches", std::move(text_matches)},
            {"change", DiffToJson(r.change, 200)},
            {"pixels", std::move(pixels)},
            {"warnings", r.warnings},
            {"not_answering", r.not_answering},
            {"display", r.display}};
  if (r.last_seen) j["last_seen"] = NodeToJson(*r.last_seen, false);
  return j;
}

}  // namespace uiscope
