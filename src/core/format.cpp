#include "core/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/escape.h"

namespace uiscope {
namespace {

using nlohmann::json;

// Longest string printed in compact lines, in Unicode code points (the "…"
// included): long enough for any label, short enough that one paragraph of a
// document does not eat a model's budget.
constexpr size_t kMaxCompactChars = 80;
constexpr std::string_view kEllipsis = "…";
constexpr std::string_view kCursorPrefix = "n:";

// Accessibility text is untrusted and nlohmann::json refuses invalid UTF-8 by
// throwing, so every serialisation replaces bad bytes instead.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Strings going into JSON objects: the objects are handed to other modules,
// which may dump them without an error handler, so they must hold valid UTF-8.
std::string Utf8(std::string_view s) { return SanitiseUtf8(s); }

json Utf8Array(const std::vector<std::string>& strings) {
  json array = json::array();
  for (const std::string& s : strings) array.push_back(Utf8(s));
  return array;
}

// A name, description or value as a quoted compact field, escaped by the
// one printer for app text (core/escape.h).
void AppendQuoted(std::string& out, std::string_view s) {
  AppendQuotedForDisplay(out, s, kMaxCompactChars);
}

// The value an agent may see: never a password, even if a backend read one.
std::string_view VisibleValue(const Node& n) {
  if (n.Has(State::kPassword)) return {};
  return n.value;
}

std::string FixedDecimals(double v, int decimals) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, decimals);
  return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

// Confidence to 3 decimals: a float's 0.8299999833106995 is noise to a reader.
double RoundedConfidence(float c) { return std::round(static_cast<double>(c) * 1000.0) / 1000.0; }

struct FlatNode {
  const Node* node;
  int depth;
  int parent;    // preorder index; -1 for roots
  bool in_page;  // inside a web page (IsWebPageDocument): a page line
};

void Flatten(const std::vector<Node>& nodes, int depth, int parent, bool in_page,
             std::vector<FlatNode>& out) {
  for (const Node& n : nodes) {
    const int index = static_cast<int>(out.size());
    out.push_back(FlatNode{&n, depth, parent, in_page});
    Flatten(n.children, depth + 1, index, in_page || IsWebPageDocument(n), out);
  }
}

// An unnamed layout box (GtkBox, QWidget, <div>) with nothing to act on: the
// compact format prints its children in its place. On GTK forms a third of
// the nodes are such boxes, and the agent gains nothing from their lines.
bool IsAnonymousLayout(const Node& n) {
  if (n.role != Role::kPanel && n.role != Role::kUnknown) return false;
  if (n.children.empty() || !n.name.empty() || !n.description.empty() || !n.value.empty() ||
      !n.actions.empty()) {
    return false;
  }
  return !n.Has(State::kFocused) && !n.Has(State::kSelected) && !n.Has(State::kChecked) &&
         !n.Has(State::kExpanded);
}

void FlattenElidingLayout(const std::vector<Node>& nodes, int depth, int parent, bool in_page,
                          std::vector<FlatNode>& out) {
  for (const Node& n : nodes) {
    if (IsAnonymousLayout(n)) {
      FlattenElidingLayout(n.children, depth, parent, in_page, out);
      continue;
    }
    const int index = static_cast<int>(out.size());
    out.push_back(FlatNode{&n, depth, parent, in_page});
    FlattenElidingLayout(n.children, depth + 1, index, in_page || IsWebPageDocument(n), out);
  }
}

Result<size_t> ParseCursor(std::string_view cursor, size_t total) {
  if (cursor.empty()) return size_t{0};
  const std::string shown = EscapeForDisplay(cursor, 40);
  if (!cursor.starts_with(kCursorPrefix)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "malformed cursor \"" + shown +
                         "\": pass the next_cursor of the previous page, or \"\" for the first");
  }
  const std::string_view digits = cursor.substr(kCursorPrefix.size());
  uint64_t index = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "malformed cursor \"" + shown +
                         "\": pass the next_cursor of the previous page, or \"\" for the first");
  }
  if (index >= total) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cursor \"" + shown + "\" is out of range: the tree has " +
                         std::to_string(total) + " nodes; observe again and start from \"\"");
  }
  return static_cast<size_t>(index);
}

std::string MakeCursor(size_t index) { return std::string(kCursorPrefix) + std::to_string(index); }

// Fills the paging fields once a page stopped before node `next`.
void FinishPage(FormatOutput& out, size_t next, size_t total) {
  out.nodes_total = static_cast<int>(total);
  out.truncated = next < total;
  out.next_cursor = out.truncated ? MakeCursor(next) : std::string();
}

json PageJson(const FormatOutput& out) {
  return {{"nodes_total", out.nodes_total},
          {"nodes_emitted", out.nodes_emitted},
          {"truncated", out.truncated},
          {"next_cursor", out.next_cursor}};
}

// A page budget: a count and a size in bytes, each 0 for unlimited. The first
// item always fits, so every page makes progress.
class Budget {
 public:
  explicit Budget(const FormatOptions& options)
      : max_items_(static_cast<size_t>(options.max_nodes)),
        max_chars_(static_cast<size_t>(options.max_chars)) {}

  bool CountsChars() const { return max_chars_ > 0; }
  bool Fits(size_t chars) const {
    if (items_ == 0) return true;
    if (max_items_ > 0 && items_ >= max_items_) return false;
    return max_chars_ == 0 || chars_ + chars <= max_chars_;
  }
  void Take(size_t chars) {
    ++items_;
    chars_ += chars;
  }
  int items() const { return static_cast<int>(items_); }

 private:
  size_t max_items_;
  size_t max_chars_;
  size_t items_ = 0;
  size_t chars_ = 0;
};

// Whether a page line prints the node's ID: where the agent can do
// something with the element itself — act on it (actions, focus, editing,
// selection) or address what it holds (a container: scroll over it, wait
// for it, read the lines under it). A leaf with nothing of that (a text run,
// a plain table cell, a heading) is read, not addressed; like Playwright
// MCP's snapshot, which gives text no ref, its line is only its text. It
// keeps its ID: `find`, `click --name` and the json format give it.
bool PageLineNeedsId(const Node& n) {
  return !n.children.empty() || !n.actions.empty() || IsInteractiveRole(n.role) ||
         n.Has(State::kFocusable) || n.Has(State::kEditable) || n.Has(State::kSelected) ||
         n.Has(State::kFocused) || n.source != Source::kAx;
}

// `page_line`: a line inside a web page (IsWebPageDocument). Pages are where the
// lines are many and mostly text (a 30-row table is 120 lines), so a page
// line says only what an agent reads or acts by: no bounds (actions go by
// ID; the json format has every box), and an ID only where PageLineNeedsId.
std::string CompactLine(const Node& n, int depth, bool page_line = false) {
  std::string line(static_cast<size_t>(depth) * 2, ' ');
  line += '[';
  line += RoleName(n.role);
  if (!n.name.empty()) {
    line += ' ';
    AppendQuoted(line, n.name);
  } else if (!n.description.empty()) {
    // An element with no name but a description (an icon button's tooltip:
    // kcalc's "Clear Display [Escape]") is known by it, and `find` finds it
    // by it. It is printed as desc=, not as the name: a name is what the
    // element shows, and an agent that looks for "Clear Display" on screen
    // or in a later OCR reading would not see it.
    line += " desc=";
    AppendQuoted(line, n.description);
  }
  if (!n.id.empty() && (!page_line || PageLineNeedsId(n))) line += " id=" + n.id;
  if (n.name_from != NameFrom::kOwn && !n.name.empty()) {
    line += " name_from=";
    line += NameFromName(n.name_from);
  }
  if (n.role == Role::kApplication && n.pid > 0) line += " pid=" + std::to_string(n.pid);
  if (n.role == Role::kApplication && !n.toolkit.empty()) {
    line += " toolkit=" + EscapeForDisplay(n.toolkit, kMaxCompactChars);
  }
  if (const std::string_view value = VisibleValue(n); !value.empty()) {
    // Vision reads a knob's angle or a bar's fill: an estimate, not a reading.
    line += n.source == Source::kVision ? " value≈" : " value=";
    AppendQuoted(line, value);
  }
  if (n.bounds && !page_line) {
    const Rect& b = *n.bounds;
    line += " bounds=" + std::to_string(b.x) + ',' + std::to_string(b.y) + ',' +
            std::to_string(b.w) + ',' + std::to_string(b.h);
  }
  // Only states that change what an agent does; enabled, showing, focusable
  // and friends hold for nearly every node and would only cost tokens.
  if (KnownDisabled(n)) line += " disabled";
  if (n.Has(State::kFocused)) line += " focused";
  if (n.Has(State::kChecked)) line += " checked";
  if (n.Has(State::kSelected)) line += " selected";
  if (n.Has(State::kExpanded)) line += " expanded";
  if (n.Has(State::kPassword)) line += " password";
  if (n.Has(State::kModal)) line += " modal";
  if (IsWindowRole(n.role) && n.Has(State::kActive)) line += " active";
  if (n.source != Source::kAx) {
    line += " source=";
    line += SourceName(n.source);
    line += " conf=" + FixedDecimals(n.confidence, 2);
  }
  if (n.Has(State::kStale)) line += " stale";
  line += "]\n";
  return line;
}

FormatOutput FormatCompact(const std::vector<FlatNode>& flat, size_t start,
                           const FormatOptions& options) {
  FormatOutput out;
  Budget budget(options);
  std::vector<size_t> line_sizes;
  size_t next = start;
  for (; next < flat.size(); ++next) {
    std::string line = CompactLine(*flat[next].node, flat[next].depth, flat[next].in_page);
    if (!budget.Fits(line.size())) break;
    budget.Take(line.size());
    line_sizes.push_back(line.size());
    out.text += line;
  }
  auto trailer = [&](size_t at) {
    return std::string(kEllipsis) + ' ' + std::to_string(flat.size() - at) +
           " more nodes (cursor=" + MakeCursor(at) + ")\n";
  };
  // The trailer counts against max_chars too: give back nodes until it fits
  // (keeping the one node every page has).
  if (next < flat.size() && options.max_chars > 0) {
    const auto max = static_cast<size_t>(options.max_chars);
    while (line_sizes.size() > 1 && out.text.size() + trailer(next).size() > max) {
      out.text.resize(out.text.size() - line_sizes.back());
      line_sizes.pop_back();
      --next;
    }
  }
  out.nodes_emitted = static_cast<int>(line_sizes.size());
  FinishPage(out, next, flat.size());
  if (out.truncated) out.text += trailer(next);
  return out;
}

json FrameJson(const Frame& frame) {
  return {{"width", frame.width}, {"height", frame.height}, {"scale", frame.scale}};
}

json StatsJson(const ObserveStats& stats) {
  json out = {{"ax_nodes", stats.ax_nodes},
              {"ocr_nodes", stats.ocr_nodes},
              {"vision_nodes", stats.vision_nodes},
              {"merged_nodes", stats.merged_nodes},
              {"latency_ms", stats.latency_ms}};
  if (!stats.cache.empty()) out["cache"] = stats.cache;
  return out;
}

FormatOutput FormatJson(const Snapshot& snapshot, const std::vector<FlatNode>& flat, size_t start,
                        const FormatOptions& options) {
  FormatOutput out;
  Budget budget(options);
  std::vector<json> objects;
  size_t next = start;
  for (; next < flat.size(); ++next) {
    json object = NodeToJson(*flat[next].node, /*with_children=*/false);
    const size_t size = budget.CountsChars() ? Dump(object).size() + 1 : 0;  // + the comma
    if (!budget.Fits(size)) break;
    budget.Take(size);
    objects.push_back(std::move(object));
  }

  // The page is a contiguous preorder range [start, next): a node nests under
  // its parent when the parent is in the range, else it is a top-level entry
  // that names its parent, so a program can stitch pages together.
  const auto in_page = [&](int index) { return index >= 0 && static_cast<size_t>(index) >= start; };
  std::vector<std::vector<size_t>> kids(objects.size());
  std::vector<size_t> tops;
  for (size_t i = start; i < next; ++i) {
    const int parent = flat[i].parent;
    if (in_page(parent)) {
      kids[static_cast<size_t>(parent) - start].push_back(i - start);
    } else {
      tops.push_back(i - start);
    }
  }
  // Children come later in preorder, so walking backwards finds them complete.
  for (size_t k = objects.size(); k-- > 0;) {
    json children = json::array();
    for (size_t child : kids[k]) children.push_back(std::move(objects[child]));
    objects[k]["children"] = std::move(children);
  }
  json nodes = json::array();
  for (size_t k : tops) {
    const int parent = flat[start + k].parent;
    if (parent >= 0) objects[k]["parent_id"] = Utf8(flat[static_cast<size_t>(parent)].node->id);
    nodes.push_back(std::move(objects[k]));
  }

  out.nodes_emitted = budget.items();
  FinishPage(out, next, flat.size());
  out.json = SnapshotEnvelope(snapshot, out);
  out.json["nodes"] = std::move(nodes);
  out.text = Dump(out.json);
  return out;
}

// Bounds in the seed 000 spelling, {x, y, width, height}.
json SemanticBounds(const Rect& r) {
  return {{"x", r.x}, {"y", r.y}, {"width", r.w}, {"height", r.h}};
}

enum class SemanticKind { kNone, kWindow, kButton, kTextField, kLink, kText };

SemanticKind ClassifySemantic(const Node& n) {
  switch (n.role) {
    case Role::kWindow:
    case Role::kDialog:
    case Role::kAlert:
      return SemanticKind::kWindow;
    case Role::kButton:
    case Role::kToggleButton:
    case Role::kCheckBox:
    case Role::kRadioButton:
      return SemanticKind::kButton;
    case Role::kTextField:
    case Role::kTextArea:
      return SemanticKind::kTextField;
    case Role::kLink:
      return SemanticKind::kLink;
    case Role::kLabel:
    case Role::kText:
    case Role::kHeading:
      return n.name.empty() ? SemanticKind::kNone : SemanticKind::kText;
    default:
      return SemanticKind::kNone;
  }
}

json SemanticEntry(const Node& n, SemanticKind kind) {
  json e = {{"id", Utf8(n.id)}};
  switch (kind) {
    case SemanticKind::kWindow:
      e["title"] = Utf8(n.name);
      // A window has the focus when it is the active one; AT-SPI marks
      // windows active, not focused.
      e["focused"] = n.Has(State::kActive) || n.Has(State::kFocused);
      break;
    case SemanticKind::kButton:
      e["label"] = Utf8(n.name);
      e["role"] = std::string(RoleName(n.role));
      e["enabled"] = !KnownDisabled(n);
      if (n.role != Role::kButton) e["checked"] = n.Has(State::kChecked);
      break;
    case SemanticKind::kTextField:
      e["label"] = Utf8(n.name);
      e["value"] = Utf8(VisibleValue(n));
      e["focused"] = n.Has(State::kFocused);
      if (n.Has(State::kPassword)) e["password"] = true;
      break;
    case SemanticKind::kLink:
      e["label"] = Utf8(n.name);
      break;
    case SemanticKind::kText:
    case SemanticKind::kNone:
      break;
  }
  // As in the compact format: an unnamed control is known by its description.
  if (kind != SemanticKind::kWindow && n.name.empty() && !n.description.empty()) {
    e["description"] = Utf8(n.description);
  }
  if (n.bounds) e["bounds"] = SemanticBounds(*n.bounds);
  return e;
}

FormatOutput FormatSemantic(const Snapshot& snapshot, const std::vector<FlatNode>& flat,
                            size_t start, const FormatOptions& options) {
  FormatOutput out;
  Budget budget(options);
  json windows = json::array();
  json buttons = json::array();
  json text_fields = json::array();
  json links = json::array();
  std::string text_content;
  size_t next = start;
  for (; next < flat.size(); ++next) {
    const Node& n = *flat[next].node;
    const SemanticKind kind = ClassifySemantic(n);
    if (kind == SemanticKind::kNone) continue;
    if (kind == SemanticKind::kText) {
      const size_t size = n.name.size() + 1;  // + the "\n" separator
      if (!budget.Fits(size)) break;
      budget.Take(size);
      if (!text_content.empty()) text_content += '\n';
      text_content += Utf8(n.name);
      continue;
    }
    json entry = SemanticEntry(n, kind);
    const size_t size = budget.CountsChars() ? Dump(entry).size() + 1 : 0;
    if (!budget.Fits(size)) break;
    budget.Take(size);
    json& list = kind == SemanticKind::kWindow   ? windows
                 : kind == SemanticKind::kButton ? buttons
                 : kind == SemanticKind::kLink   ? links
                                                 : text_fields;
    list.push_back(std::move(entry));
  }

  out.nodes_emitted = budget.items();
  FinishPage(out, next, flat.size());
  out.json = {{"format", "semantic"},
              {"screen", {{"width", snapshot.frame.width}, {"height", snapshot.frame.height}}},
              {"windows", std::move(windows)},
              {"buttons", std::move(buttons)},
              {"text_fields", std::move(text_fields)},
              {"links", std::move(links)},
              {"text_content", std::move(text_content)},
              {"page", PageJson(out)}};
  out.text = Dump(out.json);
  return out;
}

// One entry of the targets format: an element an agent can act on.
struct TargetEntry {
  const Node* node = nullptr;
  const Node* app = nullptr;
  const Node* window = nullptr;
  Point click;
  int hits = 0;
  size_t window_rank = 0;  // 0 for the active window, then in tree order
  size_t order = 0;        // preorder
};

// Where a click on `n` lands: the centre of its part inside its window and
// the frame (as actions aim, engine/act.cpp); nullopt when none shows.
std::optional<Point> TargetClick(const Node& n, const Node& window, const Frame& frame) {
  if (!n.bounds || n.bounds->Empty()) return std::nullopt;
  Rect r = *n.bounds;
  if (window.bounds) r = Intersect(r, *window.bounds);
  if (frame.width > 0 && frame.height > 0) r = ClampToFrame(r, frame.width, frame.height);
  if (r.Empty()) return std::nullopt;
  return r.Center();
}

// The elements of every window an agent can act on (an interactive role, or
// a target memory holds), most relevant first: the active window's, then
// more learned hits, higher confidence, reading order.
std::vector<TargetEntry> CollectTargets(const Snapshot& snapshot, const FormatOptions& options) {
  std::vector<TargetEntry> out;
  std::vector<const Node*> windows;
  size_t order = 0;
  for (const Node& app : snapshot.roots) {
    for (const Node& window : app.children) {
      if (!IsWindowRole(window.role)) continue;
      windows.push_back(&window);
      ForEachNode(window.children, [&](const Node& n, int) {
        ++order;
        if (!IsInteractiveRole(n.role) && n.source != Source::kLearned) return;
        auto click = TargetClick(n, window, snapshot.frame);
        if (!click) return;
        TargetEntry e;
        e.node = &n;
        e.app = &app;
        e.window = &window;
        e.click = *click;
        e.hits = options.learned_hits ? options.learned_hits(n) : 0;
        e.order = order;
        out.push_back(e);
      });
    }
  }
  auto active = std::find_if(windows.begin(), windows.end(),
                             [](const Node* w) { return w->Has(State::kActive); });
  for (TargetEntry& e : out) {
    const auto at =
        static_cast<size_t>(std::find(windows.begin(), windows.end(), e.window) - windows.begin());
    e.window_rank = active == windows.end() ? at : e.window == *active ? 0 : at + 1;
  }
  std::stable_sort(out.begin(), out.end(), [](const TargetEntry& a, const TargetEntry& b) {
    if (a.window_rank != b.window_rank) return a.window_rank < b.window_rank;
    if (a.hits != b.hits) return a.hits > b.hits;
    if (a.node->confidence != b.node->confidence) return a.node->confidence > b.node->confidence;
    return a.order < b.order;
  });
  return out;
}

bool Learned(const TargetEntry& e) { return e.hits > 0 || e.node->source == Source::kLearned; }

std::string_view LabelOf(const Node& n) { return n.name.empty() ? n.description : n.name; }

std::string WindowLine(const TargetEntry& e) {
  std::string line = "app ";
  AppendQuoted(line, e.app->name);
  line += " window ";
  AppendQuoted(line, e.window->name);
  if (e.window->Has(State::kActive)) line += " active";
  line += '\n';
  return line;
}

// `  [button "Submit" id=btn_1a2b click=842,567 conf=0.95 learned]`
std::string TargetLine(const TargetEntry& e) {
  const Node& n = *e.node;
  std::string line = "  [";
  line += RoleName(n.role);
  line += ' ';
  AppendQuoted(line, LabelOf(n));
  line += " id=" + n.id;
  line += " click=" + std::to_string(e.click.x) + ',' + std::to_string(e.click.y);
  line += " conf=" + FixedDecimals(n.confidence, 2);
  if (Learned(e)) line += " learned";
  if (e.hits > 0) line += " hits=" + std::to_string(e.hits);
  if (KnownDisabled(n)) line += " disabled";
  if (n.Has(State::kFocused)) line += " focused";
  if (n.Has(State::kPassword)) line += " password";
  if (n.Has(State::kStale)) line += " stale";
  line += "]\n";
  return line;
}

json TargetJson(const TargetEntry& e) {
  const Node& n = *e.node;
  json j = {{"id", Utf8(n.id)},
            {"role", std::string(RoleName(n.role))},
            {"label", Utf8(LabelOf(n))},
            {"app", Utf8(e.app->name)},
            {"window", Utf8(e.window->name)},
            {"click", {{"x", e.click.x}, {"y", e.click.y}}},
            {"confidence", n.confidence},
            {"source", std::string(SourceName(n.source))},
            {"learned", Learned(e)},
            {"hits", e.hits}};
  if (KnownDisabled(n)) j["disabled"] = true;
  if (n.Has(State::kStale)) j["stale"] = true;
  return j;
}

Result<FormatOutput> FormatTargets(const Snapshot& snapshot, const FormatOptions& options) {
  const std::vector<TargetEntry> targets = CollectTargets(snapshot, options);
  Result<size_t> start = ParseCursor(options.cursor, targets.size());
  if (!start.ok()) return start.error();
  FormatOutput out;
  Budget budget(options);
  json list = json::array();
  const Node* window = nullptr;
  size_t next = *start;
  for (; next < targets.size(); ++next) {
    const TargetEntry& e = targets[next];
    std::string lines = e.window == window ? std::string() : WindowLine(e);
    lines += TargetLine(e);
    if (!budget.Fits(lines.size())) break;
    budget.Take(lines.size());
    out.text += lines;
    window = e.window;
    list.push_back(TargetJson(e));
  }
  out.nodes_emitted = budget.items();
  FinishPage(out, next, targets.size());
  if (out.truncated) {
    out.text += std::string(kEllipsis) + ' ' + std::to_string(targets.size() - next) +
                " more targets (cursor=" + out.next_cursor + ")\n";
  }
  // The seed's context: the active application and window (else the first
  // that has targets).
  const TargetEntry* head = nullptr;
  for (const TargetEntry& e : targets) {
    if (e.window->Has(State::kActive)) {
      head = &e;
      break;
    }
  }
  if (head == nullptr && !targets.empty()) head = &targets.front();
  out.json = {{"app", head ? Utf8(head->app->name) : std::string()},
              {"window", head ? Utf8(head->window->name) : std::string()},
              {"targets", std::move(list)},
              {"frame", FrameJson(snapshot.frame)},
              {"page", PageJson(out)}};
  return out;
}

}  // namespace

Result<Format> ParseFormat(std::string_view name) {
  if (name == "compact") return Format::kCompact;
  if (name == "json") return Format::kJson;
  if (name == "semantic") return Format::kSemantic;
  if (name == "targets") return Format::kTargets;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown format \"" + EscapeForDisplay(name, 40) +
                       "\": valid formats are compact, json, semantic, targets");
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kCompact:
      return "compact";
    case Format::kJson:
      return "json";
    case Format::kSemantic:
      return "semantic";
    case Format::kTargets:
      return "targets";
  }
  return "compact";
}

json RectToJson(const Rect& r) { return {{"x", r.x}, {"y", r.y}, {"w", r.w}, {"h", r.h}}; }

json NodeToJson(const Node& node, bool with_children) {
  json j = {
      {"id", Utf8(node.id)}, {"role", std::string(RoleName(node.role))}, {"name", Utf8(node.name)}};
  if (const std::string_view value = VisibleValue(node); !value.empty()) {
    j["value"] = Utf8(value);
  }
  if (node.name_from != NameFrom::kOwn) j["name_from"] = std::string(NameFromName(node.name_from));
  if (!node.description.empty()) j["description"] = Utf8(node.description);
  if (node.bounds) {
    const Rect& b = *node.bounds;
    j["bounds"] = RectToJson(b);
  }
  json states = json::array();
  for (std::string_view s : StateNames(node.states)) states.push_back(std::string(s));
  j["states"] = std::move(states);
  j["actions"] = Utf8Array(node.actions);
  j["source"] = std::string(SourceName(node.source));
  if (node.source != Source::kAx) j["confidence"] = RoundedConfidence(node.confidence);
  j["app"] = Utf8(node.app);
  j["pid"] = node.pid;
  if (!node.toolkit.empty()) j["toolkit"] = Utf8(node.toolkit);
  j["window"] = Utf8(node.window);
  if (with_children) {
    json children = json::array();
    for (const Node& child : node.children) children.push_back(NodeToJson(child, true));
    j["children"] = std::move(children);
  }
  return j;
}

namespace {

Status NodeFromJson(const json& j, Node* out, int depth) {
  if (!j.is_object() || depth > 512) {
    return MakeError(ErrorCode::kInvalidArgument, "a stored node is not an object");
  }
  try {
    out->id = j.value("id", "");
    out->role = RoleFromName(j.value("role", "unknown"));
    out->name = j.value("name", "");
    if (j.value("name_from", "") == NameFromName(NameFrom::kLabel)) out->name_from = NameFrom::kLabel;
    out->value = j.value("value", "");
    out->description = j.value("description", "");
    if (j.contains("bounds")) {
      const json& b = j["bounds"];
      out->bounds = Rect{b.at("x").get<int>(), b.at("y").get<int>(), b.at("w").get<int>(),
                         b.at("h").get<int>()};
    }
    for (const json& s : j.value("states", json::array())) {
      const std::string name = s.get<std::string>();
      for (uint32_t bit = 1; bit != 0 && bit <= static_cast<uint32_t>(State::kStale); bit <<= 1) {
        if (StateName(static_cast<State>(bit)) == name) out->states.Set(static_cast<State>(bit));
      }
    }
    for (const json& a : j.value("actions", json::array())) {
      out->actions.push_back(a.get<std::string>());
    }
    const std::string source = j.value("source", "ax");
    for (Source s : {Source::kAx, Source::kOcr, Source::kVision, Source::kMerged, Source::kLearned,
                     Source::kX11}) {
      if (SourceName(s) == source) out->source = s;
    }
    out->confidence = j.value("confidence", 1.0f);
    out->app = j.value("app", "");
    out->pid = j.value("pid", 0);
    out->toolkit = j.value("toolkit", "");
    out->window = j.value("window", "");
    for (const json& c : j.value("children", json::array())) {
      Node child;
      if (auto st = NodeFromJson(c, &child, depth + 1); !st.ok()) return st;
      out->children.push_back(std::move(child));
    }
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string("a stored node is malformed: ") + e.what());
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<Node>> NodesFromJson(const json& nodes) {
  if (!nodes.is_array()) {
    return MakeError(ErrorCode::kInvalidArgument, "stored nodes are not an array");
  }
  std::vector<Node> out;
  for (const json& j : nodes) {
    Node n;
    if (auto st = NodeFromJson(j, &n, 0); !st.ok()) return st.error();
    out.push_back(std::move(n));
  }
  return out;
}

std::string SanitiseForDisplay(std::string_view s, size_t max_chars) {
  return EscapeForDisplay(s, max_chars);
}

std::string FormatNodeLine(const Node& node) {
  std::string line = CompactLine(node, 0);
  line.pop_back();  // the newline
  return line;
}

json SnapshotEnvelope(const Snapshot& snapshot, const FormatOutput& page) {
  return {{"frame", FrameJson(snapshot.frame)},
          {"stats", StatsJson(snapshot.stats)},
          {"page", PageJson(page)}};
}

Result<FormatOutput> FormatSnapshot(const Snapshot& snapshot, const FormatOptions& options) {
  if (options.max_nodes < 0 || options.max_chars < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "max_nodes and max_chars must be 0 (unlimited) or positive");
  }
  // nlohmann::json throws on misuse and std::string on exhaustion; the caller
  // is promised a Result, so those become an Internal error here.
  try {
    if (options.format == Format::kTargets) return FormatTargets(snapshot, options);
    std::vector<FlatNode> flat;
    flat.reserve(CountNodes(snapshot.roots));
    if (options.format == Format::kCompact && options.elide_layout) {
      FlattenElidingLayout(snapshot.roots, 0, -1, /*in_page=*/false, flat);
    } else {
      Flatten(snapshot.roots, 0, -1, /*in_page=*/false, flat);
    }
    Result<size_t> start = ParseCursor(options.cursor, flat.size());
    if (!start.ok()) return start.error();
    switch (options.format) {
      case Format::kCompact:
        return FormatCompact(flat, *start, options);
      case Format::kJson:
        return FormatJson(snapshot, flat, *start, options);
      case Format::kSemantic:
        return FormatSemantic(snapshot, flat, *start, options);
      case Format::kTargets:
        break;  // above
    }
    return MakeError(ErrorCode::kInvalidArgument, "unknown format");
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("formatting failed: ") + e.what());
  }
}

}  // namespace uiscope
