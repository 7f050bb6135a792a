#include "platform/cdp/cdp_page_tree.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace uiscope {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Accessors that never throw on data of the wrong shape: the protocol's
// answers are untrusted input like any accessibility data.
const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
std::string Str(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}
double Num(const json& j, const char* key, double fallback = 0) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_number() ? f->get<double>() : fallback;
}
const json& Arr(const json& j, const char* key) {
  static const json kEmpty = json::array();
  const json* f = Field(j, key);
  return f != nullptr && f->is_array() ? *f : kEmpty;
}
const json& Obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  const json* f = Field(j, key);
  return f != nullptr && f->is_object() ? *f : kEmpty;
}
int64_t Int(const json& j, int64_t fallback = -1) {
  return j.is_number_integer() ? j.get<int64_t>() : fallback;
}

// A property's value as text: "France", "true", "3".
std::string ValueText(const json& value_object) {
  const json* v = Field(value_object, "value");
  if (v == nullptr) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  if (v->is_number_integer()) return std::to_string(v->get<int64_t>());
  if (v->is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v->get<double>());
    return buf;
  }
  return "";
}

// Collapses runs of white space to one space and trims the ends (text runs
// keep the spaces of their source).
std::string CollapseSpace(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// A snapshot document's frame ID: an index into the snapshot's string table
// (DOMSnapshot.StringIndex), like every string of captureSnapshot.
std::string DocumentFrameId(const json& snapshot, const json& document) {
  const json* f = Field(document, "frameId");
  if (f == nullptr) return "";
  if (f->is_string()) return f->get<std::string>();
  const json& strings = Arr(snapshot, "strings");
  const int64_t i = Int(*f);
  if (i < 0 || static_cast<size_t>(i) >= strings.size() || !strings[i].is_string()) return "";
  return strings[i].get<std::string>();
}

struct Box {
  double x = 0, y = 0, w = 0, h = 0;  // viewport CSS pixels
};

// What the snapshot says about each DOM node, by backend node ID.
struct DomFacts {
  std::unordered_map<int64_t, Box> boxes;
  std::unordered_set<int64_t> passwords;
  std::unordered_map<int64_t, std::string> iframe_frames;  // iframe element -> frame ID
};

DomFacts ReadSnapshot(const json& snapshot) {
  DomFacts facts;
  const json& strings = Arr(snapshot, "strings");
  auto string_at = [&](const json& index) -> std::string {
    const int64_t i = Int(index);
    if (i < 0 || static_cast<size_t>(i) >= strings.size() || !strings[i].is_string()) return "";
    return strings[i].get<std::string>();
  };
  const json& documents = Arr(snapshot, "documents");
  // Offset of each document's CSS pixels in the main viewport's; unknown
  // (no entry) for a document whose iframe has no box.
  std::unordered_map<size_t, std::pair<double, double>> offsets;
  if (!documents.empty()) {
    offsets[0] = {-Num(documents[0], "scrollOffsetX"), -Num(documents[0], "scrollOffsetY")};
  }
  for (size_t d = 0; d < documents.size(); ++d) {
    const json& doc = documents[d];
    const json& nodes = Obj(doc, "nodes");
    const json& backend = Arr(nodes, "backendNodeId");
    const json& attributes = Arr(nodes, "attributes");
    const json& layout = Obj(doc, "layout");
    const json& node_index = Arr(layout, "nodeIndex");
    const json& bounds = Arr(layout, "bounds");
    auto offset = offsets.find(d);
    // Boxes of this document by node index (for its iframes' documents).
    std::unordered_map<int64_t, Box> by_index;
    for (size_t i = 0; i < node_index.size() && i < bounds.size(); ++i) {
      const json& b = bounds[i];
      const int64_t ni = Int(node_index[i]);
      if (!b.is_array() || b.size() < 4 || ni < 0 || static_cast<size_t>(ni) >= backend.size()) {
        continue;
      }
      if (!b[0].is_number() || !b[1].is_number() || !b[2].is_number() || !b[3].is_number()) {
        continue;
      }
      Box box{b[0].get<double>(), b[1].get<double>(), b[2].get<double>(), b[3].get<double>()};
      by_index[ni] = box;
      if (offset == offsets.end()) continue;
      box.x += offset->second.first;
      box.y += offset->second.second;
      facts.boxes.emplace(Int(backend[ni]), box);
    }
    // <input type=password>: its value is never read.
    for (size_t i = 0; i < attributes.size() && i < backend.size(); ++i) {
      const json& attrs = attributes[i];
      if (!attrs.is_array()) continue;
      for (size_t a = 0; a + 1 < attrs.size(); a += 2) {
        if (string_at(attrs[a]) == "type" && string_at(attrs[a + 1]) == "password") {
          facts.passwords.insert(Int(backend[i]));
        }
      }
    }
    // Iframes: their documents' offsets and frame IDs.
    const json& content = Obj(nodes, "contentDocumentIndex");
    const json& owners = Arr(content, "index");
    const json& children = Arr(content, "value");
    for (size_t i = 0; i < owners.size() && i < children.size(); ++i) {
      const int64_t owner = Int(owners[i]);
      const int64_t child = Int(children[i]);
      if (owner < 0 || static_cast<size_t>(owner) >= backend.size() || child <= 0 ||
          static_cast<size_t>(child) >= documents.size() || static_cast<size_t>(child) <= d) {
        continue;  // a document listed before its owner would be a cycle
      }
      const json& child_doc = documents[child];
      facts.iframe_frames[Int(backend[owner])] = DocumentFrameId(snapshot, child_doc);
      auto owner_box = by_index.find(owner);
      if (offset == offsets.end() || owner_box == by_index.end()) continue;
      // The child document's own box (its #document node) gives the inset.
      double doc_w = owner_box->second.w, doc_h = owner_box->second.h;
      const json& child_layout = Obj(child_doc, "layout");
      const json& child_index = Arr(child_layout, "nodeIndex");
      const json& child_bounds = Arr(child_layout, "bounds");
      for (size_t k = 0; k < child_index.size() && k < child_bounds.size(); ++k) {
        if (Int(child_index[k]) != 0) continue;
        const json& b = child_bounds[k];
        if (b.is_array() && b.size() >= 4 && b[2].is_number() && b[3].is_number()) {
          doc_w = b[2].get<double>();
          doc_h = b[3].get<double>();
        }
        break;
      }
      const Box& o = owner_box->second;
      offsets[static_cast<size_t>(child)] = {
          offset->second.first + o.x + (o.w - doc_w) / 2 - Num(child_doc, "scrollOffsetX"),
          offset->second.second + o.y + (o.h - doc_h) / 2 - Num(child_doc, "scrollOffsetY")};
    }
  }
  return facts;
}

struct AxNode {
  const json* node = nullptr;
  std::string role;
};

// One frame's accessibility nodes by ID, and its root.
struct AxFrame {
  std::unordered_map<std::string, const json*> by_id;
  const json* root = nullptr;
};

AxFrame IndexFrame(const json& ax) {
  AxFrame frame;
  for (const json& n : Arr(ax, "nodes")) {
    std::string id = Str(n, "nodeId");
    if (id.empty()) continue;
    frame.by_id.emplace(id, &n);
    if (frame.root == nullptr && Field(n, "parentId") == nullptr) frame.root = &n;
  }
  return frame;
}

bool IsLayoutOnly(std::string_view role) {
  return role == "generic" || role == "none" || role == "presentation" || role == "rowgroup" ||
         role == "MenuListPopup" || role == "LineBreak" || role == "group" || role == "form" ||
         role == "region" || role == "navigation" || role == "main" || role == "banner" ||
         role == "contentinfo" || role == "complementary" || role == "search" ||
         role == "article" || role == "section" || role == "Section" || role == "figure" ||
         role == "blockquote" || role == "strong" || role == "emphasis" || role == "code" ||
         role == "time" || role == "mark" || role == "subscript" || role == "superscript" ||
         role == "Abbr" || role == "Ruby" || role == "Pre" || role == "DescriptionList" ||
         role == "Canvas" || role == "Details" || role == "Legend" || role == "ListMarker";
}

bool IsFieldRole(Role role) {
  return role == Role::kTextField || role == Role::kTextArea || role == Role::kSpinButton ||
         role == Role::kSlider;
}

class Converter {
 public:
  Converter(const CdpPageData& data, const PageTreeOptions& options, const DomFacts& facts,
            const Rect& viewport, double scale)
      : data_(data), options_(options), facts_(facts), viewport_(viewport), scale_(scale) {
    for (const auto& [frame_id, ax] : data.frames) frames_.emplace(frame_id, IndexFrame(ax));
  }

  // The content of a frame's root (the root itself becomes the document
  // node the caller has).
  std::vector<Node> Root(const AxFrame& frame, const Node* parent) {
    if (frame.root == nullptr || !visited_.insert(frame.root).second) return {};
    return Children(frame, *frame.root, 0, parent);
  }

  std::vector<Node> Children(const AxFrame& frame, const json& n, int depth, const Node* parent) {
    std::vector<Node> out;
    if (depth >= options_.max_depth) return out;
    for (const json& c : Arr(n, "childIds")) {
      if (!c.is_string()) continue;
      auto it = frame.by_id.find(c.get<std::string>());
      if (it == frame.by_id.end()) continue;
      for (Node& child : Convert(frame, *it->second, depth + 1, parent)) {
        out.push_back(std::move(child));
      }
    }
    DropRepeats(out, parent);
    return out;
  }

  // The nodes that `n` becomes: none (left out), itself, or its children
  // (a container left out gives them its place).
  std::vector<Node> Convert(const AxFrame& frame, const json& n, int depth, const Node* parent) {
    if (capped_ || !visited_.insert(&n).second) return {};
    const std::string role = Str(Obj(n, "role"), "value");
    const bool ignored = Field(n, "ignored") != nullptr && Field(n, "ignored")->is_boolean() &&
                         Field(n, "ignored")->get<bool>();
    const std::string name = Str(Obj(n, "name"), "value");
    if (role == "InlineTextBox") return {};
    if (ignored || ((IsLayoutOnly(role) || role.empty()) && CollapseSpace(name).empty())) {
      return Children(frame, n, depth, parent);
    }
    if (++count_ > options_.max_nodes) {
      capped_ = true;
      return {};
    }
    Node out;
    out.toolkit_role = role;
    out.source = Source::kAx;
    std::unordered_map<std::string, const json*> props;
    for (const json& p : Arr(n, "properties")) {
      std::string pname = Str(p, "name");
      if (!pname.empty()) props.emplace(std::move(pname), &Obj(p, "value"));
    }
    auto prop = [&](const char* key) {
      auto it = props.find(key);
      return it == props.end() ? std::string() : ValueText(*it->second);
    };
    const bool multi_line = prop("multiline") == "true";
    out.role = RoleFromCdp(role, multi_line);
    if (out.role == Role::kUnknown) out.role = Role::kPanel;
    if (out.role == Role::kButton && !prop("pressed").empty()) out.role = Role::kToggleButton;
    out.name = role == "StaticText" ? std::string(name) : CollapseSpace(name);
    const int64_t backend = Int(n.contains("backendDOMNodeId") ? n["backendDOMNodeId"] : json());

    // States.
    if (prop("disabled") != "true") out.states.Set(State::kEnabled);
    if (prop("focusable") == "true") out.states.Set(State::kFocusable);
    if (prop("focused") == "true") out.states.Set(State::kFocused);
    if (const std::string checked = prop("checked"); checked == "true") {
      out.states.Set(State::kChecked);
    } else if (checked == "mixed") {
      out.states.Set(State::kIndeterminate);
    }
    if (prop("pressed") == "true") out.states.Set(State::kPressed);
    if (prop("selected") == "true") out.states.Set(State::kSelected);
    if (const std::string expanded = prop("expanded"); !expanded.empty()) {
      out.states.Set(State::kExpandable);
      out.states.Set(State::kExpanded, expanded == "true");
    }
    if (!prop("editable").empty() && prop("readonly") != "true") out.states.Set(State::kEditable);
    if (multi_line) out.states.Set(State::kMultiLine);
    if (prop("modal") == "true") out.states.Set(State::kModal);
    const bool password = backend >= 0 && facts_.passwords.contains(backend);
    if (password) out.states.Set(State::kPassword);

    // Value: a field's text, a select's chosen option, a slider's number;
    // a link's target. Never a password's.
    if (!password) {
      out.value = ValueText(Obj(n, "value"));
      if (out.role == Role::kLink) out.value = prop("url");
    }

    // Bounds.
    bool on_screen = true;
    if (auto it = facts_.boxes.find(backend); backend >= 0 && it != facts_.boxes.end()) {
      // The enclosing pixel rectangle of the fractional box, as Chromium
      // gives its AT-SPI extents (gfx::ToEnclosingRect): the AT-SPI twin of
      // a node (engine/cdp_pages.h) then has the very same bounds.
      const Box& b = it->second;
      const double left = std::floor(b.x * scale_), top = std::floor(b.y * scale_);
      const double right = std::ceil((b.x + b.w) * scale_ - 1e-6);
      const double bottom = std::ceil((b.y + b.h) * scale_ - 1e-6);
      Rect r{options_.origin.x + static_cast<int>(left), options_.origin.y + static_cast<int>(top),
             static_cast<int>(std::max(0.0, right - left)),
             static_cast<int>(std::max(0.0, bottom - top))};
      out.bounds = r;
      // A zero-size box (an empty text run, a collapsed element) is where
      // its content would be: it counts as on screen when that point is.
      const Rect probe{r.x, r.y, std::max(r.w, 1), std::max(r.h, 1)};
      on_screen = !Intersect(probe, viewport_).Empty();
    }
    if (on_screen) {
      out.states.Set(State::kShowing);
      out.states.Set(State::kVisible);
    }

    // Children: a field's text is its value; an iframe holds its frame's
    // document; a select keeps its options.
    if (IsFieldRole(out.role)) {
      // Left out: the field's inner text runs repeat its value.
    } else if (role == "Iframe") {
      auto frame_id = facts_.iframe_frames.find(backend);
      if (frame_id != facts_.iframe_frames.end()) {
        auto child = frames_.find(frame_id->second);
        if (child != frames_.end()) out.children = Root(child->second, &out);
      }
    } else {
      out.children = Children(frame, n, depth, &out);
    }

    // A text container without a name of its own (a label, a paragraph, a
    // cell) is named by its text runs, which then go.
    if (out.name.empty() && !out.children.empty() &&
        std::all_of(out.children.begin(), out.children.end(),
                    [](const Node& c) { return c.role == Role::kText && c.children.empty(); })) {
      std::string text;
      for (const Node& c : out.children) text += c.name;
      out.name = CollapseSpace(text);
      out.children.clear();
    }
    if (out.role == Role::kText) out.name = CollapseSpace(out.name);
    // An unnamed paragraph of mixed content ("Read the", a link, "first.")
    // gives its place to its children.
    if (out.role == Role::kText && out.name.empty()) return std::move(out.children);

    if (!on_screen && !options_.include_hidden && out.children.empty()) {
      ++off_screen_;
      return {};
    }
    std::vector<Node> result;
    result.push_back(std::move(out));
    return result;
  }

  // Text runs whose text the parent's name already says ("Send order"
  // under the button "Send order"), and labels naming the control beside
  // them ("Name" before the text field "Name").
  void DropRepeats(std::vector<Node>& siblings, const Node* parent) {
    const std::string parent_name = parent != nullptr ? parent->name : std::string();
    std::unordered_set<std::string> control_names;
    for (const Node& s : siblings) {
      if (IsInteractiveRole(s.role) && !s.name.empty()) control_names.insert(s.name);
    }
    std::erase_if(siblings, [&](const Node& s) {
      if (!s.children.empty()) return false;
      if (s.role == Role::kText && !parent_name.empty()) {
        const std::string text = CollapseSpace(s.name);
        if (text.empty() || parent_name.find(text) != std::string::npos) return true;
      }
      return s.role == Role::kLabel && control_names.contains(s.name);
    });
  }

  int off_screen() const { return off_screen_; }
  bool capped() const { return capped_; }

 private:
  const CdpPageData& data_;
  const PageTreeOptions& options_;
  const DomFacts& facts_;
  Rect viewport_;
  double scale_;
  std::unordered_map<std::string, AxFrame> frames_;
  std::unordered_set<const json*> visited_;
  int count_ = 0;
  int off_screen_ = 0;
  bool capped_ = false;
};

}  // namespace

Role RoleFromCdp(std::string_view r, bool multi_line) {
  struct Entry {
    std::string_view cdp;
    Role role;
  };
  static constexpr Entry kRoles[] = {
      {"button", Role::kButton},
      {"PopUpButton", Role::kComboBox},
      {"checkbox", Role::kCheckBox},
      {"switch", Role::kToggleButton},
      {"radio", Role::kRadioButton},
      {"searchbox", Role::kTextField},
      {"combobox", Role::kComboBox},
      {"ComboBoxMenuButton", Role::kComboBox},
      {"ComboBoxSelect", Role::kComboBox},
      {"listbox", Role::kList},
      {"option", Role::kListItem},
      {"MenuListOption", Role::kListItem},
      {"link", Role::kLink},
      {"heading", Role::kHeading},
      {"paragraph", Role::kText},
      {"StaticText", Role::kText},
      {"LabelText", Role::kLabel},
      {"label", Role::kLabel},
      {"image", Role::kImage},
      {"img", Role::kImage},
      {"list", Role::kList},
      {"listitem", Role::kListItem},
      {"table", Role::kTable},
      {"grid", Role::kTable},
      {"treegrid", Role::kTable},
      {"LayoutTable", Role::kTable},
      {"row", Role::kTableRow},
      {"LayoutTableRow", Role::kTableRow},
      {"cell", Role::kTableCell},
      {"gridcell", Role::kTableCell},
      {"LayoutTableCell", Role::kTableCell},
      {"columnheader", Role::kColumnHeader},
      {"rowheader", Role::kColumnHeader},
      {"tab", Role::kTab},
      {"tablist", Role::kTabList},
      {"tabpanel", Role::kTabPanel},
      {"slider", Role::kSlider},
      {"spinbutton", Role::kSpinButton},
      {"progressbar", Role::kProgressBar},
      {"meter", Role::kProgressBar},
      {"scrollbar", Role::kScrollBar},
      {"menu", Role::kMenu},
      {"menubar", Role::kMenuBar},
      {"menuitem", Role::kMenuItem},
      {"menuitemcheckbox", Role::kCheckMenuItem},
      {"menuitemradio", Role::kRadioMenuItem},
      {"tree", Role::kTree},
      {"treeitem", Role::kTreeItem},
      {"toolbar", Role::kToolBar},
      {"status", Role::kStatusBar},
      {"separator", Role::kSeparator},
      {"dialog", Role::kDialog},
      {"alertdialog", Role::kDialog},
      {"alert", Role::kAlert},
      {"tooltip", Role::kToolTip},
      {"RootWebArea", Role::kDocument},
      {"WebArea", Role::kDocument},
      {"document", Role::kDocument},
      {"Iframe", Role::kDocument},
      {"IframePresentational", Role::kDocument},
      {"group", Role::kGroup},
      {"form", Role::kGroup},
      {"region", Role::kGroup},
      {"navigation", Role::kGroup},
      {"main", Role::kGroup},
      {"banner", Role::kGroup},
      {"contentinfo", Role::kGroup},
      {"complementary", Role::kGroup},
      {"search", Role::kGroup},
      {"article", Role::kGroup},
      {"figure", Role::kGroup},
      {"generic", Role::kPanel},
      {"Canvas", Role::kCanvas},
  };
  if (r == "textbox") return multi_line ? Role::kTextArea : Role::kTextField;
  for (const Entry& e : kRoles) {
    if (e.cdp == r) return e.role;
  }
  return Role::kUnknown;
}

Result<CdpPageData> ReadPageData(CdpConnection& page, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  CdpPageData data;
  // Round trip 1, pipelined.
  auto ax = page.Send("Accessibility.getFullAXTree");
  if (!ax.ok()) return ax.error();
  auto snapshot = page.Send("DOMSnapshot.captureSnapshot", {{"computedStyles", json::array()}});
  if (!snapshot.ok()) return snapshot.error();
  auto metrics = page.Send("Page.getLayoutMetrics");
  if (!metrics.ok()) return metrics.error();
  for (auto [id, into] : {std::pair{*ax, &data.ax}, std::pair{*snapshot, &data.snapshot},
                          std::pair{*metrics, &data.metrics}}) {
    auto answer = page.Await(id, deadline);
    if (!answer.ok()) return answer.error();
    *into = std::move(answer).value();
  }
  // Round trip 2: the child frames' trees.
  std::vector<std::pair<std::string, int>> pending;
  const json& documents = Arr(data.snapshot, "documents");
  for (size_t d = 1; d < documents.size(); ++d) {
    std::string frame = DocumentFrameId(data.snapshot, documents[d]);
    if (frame.empty()) continue;
    auto id = page.Send("Accessibility.getFullAXTree", {{"frameId", frame}});
    if (!id.ok()) return id.error();
    pending.emplace_back(std::move(frame), *id);
  }
  for (auto& [frame, id] : pending) {
    auto answer = page.Await(id, deadline);
    // A frame that went away in between is left out, not an error.
    if (!answer.ok() && answer.error().code != ErrorCode::kInternal) return answer.error();
    if (answer.ok()) data.frames.emplace_back(std::move(frame), std::move(answer).value());
  }
  return data;
}

Result<PageTree> BuildPageTree(const CdpPageData& data, const PageTreeOptions& options) {
  AxFrame main = IndexFrame(data.ax);
  if (main.root == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the page's accessibility tree has no root node (Accessibility.getFullAXTree "
                     "answered " +
                         std::to_string(Arr(data.ax, "nodes").size()) + " nodes)");
  }
  PageTree tree;
  // Device pixels per CSS pixel: the deprecated device-pixel viewport over
  // the CSS one (both answered since Chromium 92).
  const json& css = Obj(data.metrics, "cssLayoutViewport");
  const json& device = Obj(data.metrics, "layoutViewport");
  const double css_w = Num(css, "clientWidth"), device_w = Num(device, "clientWidth");
  tree.scale = css_w > 0 && device_w > 0 ? device_w / css_w : 1.0;
  if (!std::isfinite(tree.scale) || tree.scale <= 0 || tree.scale > 16) tree.scale = 1.0;
  tree.viewport = Rect{options.origin.x, options.origin.y,
                       static_cast<int>(std::lround(Num(css, "clientWidth", 1e6) * tree.scale)),
                       static_cast<int>(std::lround(Num(css, "clientHeight", 1e6) * tree.scale))};
  DomFacts facts = ReadSnapshot(data.snapshot);
  tree.title = CollapseSpace(Str(Obj(*main.root, "name"), "value"));
  for (const json& p : Arr(*main.root, "properties")) {
    if (Str(p, "name") == "url") tree.url = ValueText(Obj(p, "value"));
  }
  Converter converter(data, options, facts, tree.viewport, tree.scale);
  tree.nodes = converter.Root(main, nullptr);
  tree.off_screen = converter.off_screen();
  tree.capped = converter.capped();
  return tree;
}

}  // namespace uiscope
