#include "platform/cdp/cdp_page_tree.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <span>
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
// A view of a string field, valid while `j` lives (no copy: a page's
// tree has thousands of nodes, each with several strings).
std::string_view View(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_string() ? std::string_view(f->get_ref<const std::string&>())
                                        : std::string_view();
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

// Whether `text` is empty or white space only (CollapseSpace gives "").
bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; });
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
  // Whether a string-table index names `text` (compared in place: a page
  // has thousands of attributes).
  auto IsString = [&](const json& index, std::string_view text) {
    const int64_t i = Int(index);
    if (i < 0 || static_cast<size_t>(i) >= strings.size() || !strings[i].is_string()) return false;
    return strings[i].get_ref<const std::string&>() == text;
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
        if (IsString(attrs[a], "type") && IsString(attrs[a + 1], "password")) {
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
  // Keys view the nodes' own "nodeId" strings.
  std::unordered_map<std::string_view, const json*> by_id;
  const json* root = nullptr;
};

AxFrame IndexFrame(const json& ax) {
  AxFrame frame;
  for (const json& n : Arr(ax, "nodes")) {
    const std::string_view id = View(n, "nodeId");
    if (id.empty()) continue;
    frame.by_id.emplace(id, &n);
    if (frame.root == nullptr && Field(n, "parentId") == nullptr) frame.root = &n;
  }
  return frame;
}

// The fields of an AXNode that a tree is built from, found in one pass
// over the node (a lookup by key per field was a third of the build).
struct AxFields {
  std::string_view role, name;
  bool ignored = false;
  const json* properties = nullptr;
  const json* value = nullptr;
  int64_t backend = -1;
  // Its properties by name (a node has a handful).
  std::vector<std::pair<std::string_view, const json*>> props;

  explicit AxFields(const json& n) {
    if (!n.is_object()) return;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string& key = it.key();
      const json& v = it.value();
      if (key == "role") {
        role = View(v, "value");
      } else if (key == "name") {
        name = View(v, "value");
      } else if (key == "ignored") {
        ignored = v.is_boolean() && v.get<bool>();
      } else if (key == "properties" && v.is_array()) {
        properties = &v;
      } else if (key == "value") {
        value = &v;
      } else if (key == "backendDOMNodeId") {
        backend = Int(v);
      }
    }
    if (properties == nullptr) return;
    props.reserve(properties->size());
    for (const json& p : *properties) {
      if (!p.is_object()) continue;
      auto name_at = p.find("name");
      auto value_at = p.find("value");
      if (name_at == p.end() || !name_at->is_string() || value_at == p.end()) continue;
      props.emplace_back(name_at->get_ref<const std::string&>(), &*value_at);
    }
  }

  // A property's value as text ("true", "France"); "" when absent.
  std::string Prop(std::string_view key) const {
    for (const auto& [name, v] : props) {
      if (name == key) return ValueText(*v);
    }
    return "";
  }
};

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

// Whether `snapshot` covers the answered accessibility subtrees: every
// node whose box a built tree uses (not a field's inner text, which
// Converter leaves out, nor an inline text box, which has no DOM node) has
// its DOM node there. A new DOM node (a new text run) is not there.
bool KeptBoxesCover(const json& snapshot, const std::vector<json>& subtrees) {
  std::unordered_set<int64_t> known;
  for (const json& doc : Arr(snapshot, "documents")) {
    for (const json& b : Arr(Obj(doc, "nodes"), "backendNodeId")) known.insert(Int(b));
  }
  for (const json& subtree : subtrees) {
    std::unordered_set<std::string_view> inside_field;  // IDs under a field
    for (const json& n : Arr(subtree, "nodes")) {
      const std::string_view role = View(Obj(n, "role"), "value");
      const bool field = IsFieldRole(RoleFromCdp(role, false));
      if (field || inside_field.contains(View(n, "nodeId"))) {
        for (const json& c : Arr(n, "childIds")) {
          if (c.is_string()) inside_field.insert(c.get_ref<const std::string&>());
        }
        if (!field) continue;
      }
      if (role == "InlineTextBox") continue;
      const json* backend = Field(n, "backendDOMNodeId");
      if (backend == nullptr || !known.contains(Int(*backend))) return false;
    }
  }
  return true;
}

class Converter {
 public:
  Converter(const CdpPageData& data, const PageTreeOptions& options, const DomFacts& facts,
            const Rect& viewport, double scale)
      : options_(options), facts_(facts), viewport_(viewport), scale_(scale) {
    for (const auto& [frame_id, ax] : data.frames) frames_.emplace(frame_id, IndexFrame(ax));
  }

  // The content of a frame's root (the root itself becomes the document
  // node the caller has).
  std::vector<Node> Root(const AxFrame& frame, const Node* parent) {
    std::vector<Node> out;
    if (frame.root == nullptr || !visited_.insert(frame.root).second) return out;
    Children(frame, *frame.root, 0, parent, out);
    return out;
  }

  // Appends the nodes of `n`'s children to `into` (built in place: a page
  // has thousands of nodes).
  void Children(const AxFrame& frame, const json& n, int depth, const Node* parent,
                std::vector<Node>& into) {
    if (depth >= options_.max_depth) return;
    const size_t first = into.size();
    for (const json& c : Arr(n, "childIds")) {
      if (!c.is_string()) continue;
      auto it = frame.by_id.find(std::string_view(c.get_ref<const std::string&>()));
      if (it == frame.by_id.end()) continue;
      Convert(frame, *it->second, depth + 1, parent, into);
    }
    DropRepeats(into, first, parent);
  }

  // Appends the nodes that `n` becomes: none (left out), itself, or its
  // children (a container left out gives them its place).
  void Convert(const AxFrame& frame, const json& n, int depth, const Node* parent,
               std::vector<Node>& into) {
    if (capped_ || !visited_.insert(&n).second) return;
    const AxFields fields(n);
    const std::string_view role = fields.role, name = fields.name;
    if (role == "InlineTextBox") return;
    if (fields.ignored || ((IsLayoutOnly(role) || role.empty()) && IsBlank(name))) {
      Children(frame, n, depth, parent, into);
      return;
    }
    if (++count_ > options_.max_nodes) {
      capped_ = true;
      return;
    }
    Node out;
    out.toolkit_role = std::string(role);
    out.source = Source::kAx;
    auto prop = [&](std::string_view key) { return fields.Prop(key); };
    const bool multi_line = prop("multiline") == "true";
    out.role = RoleFromCdp(role, multi_line);
    if (out.role == Role::kUnknown) out.role = Role::kPanel;
    if (out.role == Role::kButton && !prop("pressed").empty()) out.role = Role::kToggleButton;
    out.name = role == "StaticText" ? std::string(name) : CollapseSpace(name);
    const int64_t backend = fields.backend;

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
      if (backend >= 0) places_.push_back(PagePlace{out.role, r, backend});
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
      Children(frame, n, depth, &out, out.children);
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
    if (out.role == Role::kText && out.name.empty()) {
      for (Node& c : out.children) into.push_back(std::move(c));
      return;
    }

    if (!on_screen && !options_.include_hidden && out.children.empty()) {
      ++off_screen_;
      return;
    }
    into.push_back(std::move(out));
  }

  // Text runs whose text the parent's name already says ("Send order"
  // under the button "Send order"), and labels naming the control beside
  // them ("Name" before the text field "Name").
  void DropRepeats(std::vector<Node>& nodes, size_t first, const Node* parent) {
    const std::string_view parent_name = parent != nullptr ? parent->name : std::string_view();
    const auto siblings = std::span(nodes).subspan(first);
    const bool labels = std::any_of(siblings.begin(), siblings.end(),
                                    [](const Node& s) { return s.role == Role::kLabel; });
    if (parent_name.empty() && !labels) return;
    std::unordered_set<std::string_view> control_names;
    for (const Node& s : siblings) {
      if (labels && IsInteractiveRole(s.role) && !s.name.empty()) control_names.insert(s.name);
    }
    auto repeats = [&](const Node& s) {
      if (!s.children.empty()) return false;
      if (s.role == Role::kText && !parent_name.empty()) {
        const std::string text = CollapseSpace(s.name);
        if (text.empty() || parent_name.find(text) != std::string::npos) return true;
      }
      return s.role == Role::kLabel && control_names.contains(s.name);
    };
    // control_names views names of these nodes: decided before any moves.
    std::vector<bool> drop;
    drop.reserve(siblings.size());
    for (const Node& s : siblings) drop.push_back(repeats(s));
    size_t kept = first;
    for (size_t i = first; i < nodes.size(); ++i) {
      if (drop[i - first]) continue;
      if (kept != i) nodes[kept] = std::move(nodes[i]);
      ++kept;
    }
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(kept), nodes.end());
  }

  int off_screen() const { return off_screen_; }
  bool capped() const { return capped_; }
  std::vector<PagePlace> TakePlaces() { return std::move(places_); }

 private:
  const PageTreeOptions& options_;
  const DomFacts& facts_;
  Rect viewport_;
  double scale_;
  std::unordered_map<std::string, AxFrame> frames_;
  std::unordered_set<const json*> visited_;
  int count_ = 0;
  int off_screen_ = 0;
  bool capped_ = false;
  std::vector<PagePlace> places_;
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
  tree.places = converter.TakePlaces();
  return tree;
}

Status RefreshPageData(CdpConnection& page, CdpPageData& data,
                       const std::vector<int64_t>& backend_ids, bool boxes_moved,
                       std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto stale = [](const std::string& why) {
    return MakeError(ErrorCode::kStale,
                     "the page's kept tree cannot be brought up to date: " + why);
  };
  // One round trip: every subtree and the metrics pipelined, and the
  // snapshot when boxes moved.
  std::vector<int> queries;
  for (int64_t backend : backend_ids) {
    auto id = page.Send("Accessibility.queryAXTree", {{"backendNodeId", backend}});
    if (!id.ok()) return id.error();
    queries.push_back(*id);
  }
  auto snapshot_request = [&] {
    return page.Send("DOMSnapshot.captureSnapshot", {{"computedStyles", json::array()}});
  };
  std::optional<Result<int>> snapshot_id;
  if (boxes_moved) snapshot_id = snapshot_request();
  auto metrics_id = page.Send("Page.getLayoutMetrics");
  if (!metrics_id.ok()) return metrics_id.error();
  std::vector<json> subtrees;
  for (int id : queries) {
    auto answer = page.Await(id, deadline);
    if (!answer.ok()) {
      // The node left the page (removed, or no longer in its tree).
      if (answer.error().code == ErrorCode::kInternal) return stale(answer.error().message);
      return answer.error();
    }
    subtrees.push_back(std::move(answer).value());
  }
  auto metrics = page.Await(*metrics_id, deadline);
  if (!metrics.ok()) return metrics.error();
  // The kept snapshot still holds every box when none moved, the page
  // did not scroll or resize, and each answered node whose box is used has
  // one there (a new DOM node has none: a new text run).
  if (!snapshot_id && (*metrics != data.metrics || !KeptBoxesCover(data.snapshot, subtrees))) {
    snapshot_id = snapshot_request();
  }
  json snapshot = data.snapshot;
  if (snapshot_id) {
    if (!snapshot_id->ok()) return snapshot_id->error();
    auto answer = page.Await(**snapshot_id, deadline);
    if (!answer.ok()) return answer.error();
    snapshot = std::move(answer).value();
  }

  // The same child frames, in the same order: a frame added, removed or
  // navigated needs its whole tree.
  auto frame_ids = [](const json& snap) {
    std::vector<std::string> ids;
    const json& documents = Arr(snap, "documents");
    for (size_t d = 1; d < documents.size(); ++d)
      ids.push_back(DocumentFrameId(snap, documents[d]));
    return ids;
  };
  if (snapshot_id && frame_ids(data.snapshot) != frame_ids(snapshot)) {
    return stale("its frames changed");
  }

  // Where each answered node is kept: its tree (the main frame's, then the
  // child frames') and its place in that tree's "nodes". Only the answered
  // IDs are looked for (a page's trees hold thousands of nodes).
  std::vector<json*> trees = {&data.ax};
  for (auto& [frame, ax] : data.frames) trees.push_back(&ax);
  std::map<std::string, std::pair<size_t, size_t>, std::less<>> kept;
  for (const json& subtree : subtrees) {
    for (const json& n : Arr(subtree, "nodes")) kept.emplace(Str(n, "nodeId"), std::pair{0, 0});
  }
  std::set<std::string, std::less<>> found;
  for (size_t t = 0; t < trees.size(); ++t) {
    json* nodes = trees[t]->is_object() ? &(*trees[t])["nodes"] : nullptr;
    if (nodes == nullptr || !nodes->is_array()) return stale("a kept tree has no nodes");
    for (size_t i = 0; i < nodes->size(); ++i) {
      auto at = kept.find(View((*nodes)[i], "nodeId"));
      if (at == kept.end()) continue;
      if (!found.insert(at->first).second) return stale("a node ID is in two frames");
      at->second = {t, i};
    }
  }
  for (size_t q = 0; q < subtrees.size(); ++q) {
    const json& answered = Arr(subtrees[q], "nodes");
    std::set<std::string_view> ids;
    const json* root = nullptr;
    for (const json& n : answered) {
      ids.insert(View(n, "nodeId"));
      const json* b = Field(n, "backendDOMNodeId");
      if (root == nullptr && b != nullptr && Int(*b) == backend_ids[q]) root = &n;
    }
    if (root == nullptr)
      return stale("node " + std::to_string(backend_ids[q]) + " answered no tree");
    const std::string_view root_id = View(*root, "nodeId");
    if (!found.contains(root_id))
      return stale("node " + std::to_string(backend_ids[q]) + " is new");
    const auto [tree, root_at] = kept.find(root_id)->second;
    json& tree_nodes = (*trees[tree])["nodes"];
    if (View(tree_nodes[root_at], "parentId") != View(*root, "parentId")) {
      return stale("node " + std::to_string(backend_ids[q]) + " moved");
    }
    // Every child an answered node names is answered too: a subtree with a
    // hole (a child the query skipped) would keep that child as it was.
    for (const json& n : answered) {
      for (const json& c : Arr(n, "childIds")) {
        if (!c.is_string() || !ids.contains(c.get_ref<const std::string&>())) {
          return stale("node " + Str(n, "nodeId") + "'s children were not all answered");
        }
      }
    }
    for (const json& n : answered) {
      auto at = kept.find(View(n, "nodeId"));
      if (found.contains(at->first)) {
        if (at->second.first != tree) return stale("a node changed frames");
        tree_nodes[at->second.second] = n;
      } else {
        at->second = {tree, tree_nodes.size()};
        found.insert(at->first);
        tree_nodes.push_back(n);
      }
    }
  }
  if (snapshot_id) data.snapshot = std::move(snapshot);
  data.metrics = std::move(metrics).value();
  return OkStatus();
}

}  // namespace uiscope
