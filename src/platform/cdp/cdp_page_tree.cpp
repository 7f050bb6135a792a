#include "platform/cdp/cdp_page_tree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
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

// A layout box of the snapshot ([x, y, w, h], CSS pixels of its document);
// nullopt for anything else.
std::optional<Box> ParseBounds(const json& b) {
  if (!b.is_array() || b.size() < 4) return std::nullopt;
  for (size_t i = 0; i < 4; ++i) {
    if (!b[i].is_number() || !std::isfinite(b[i].get<double>())) return std::nullopt;
  }
  return Box{b[0].get<double>(), b[1].get<double>(), b[2].get<double>(), b[3].get<double>()};
}

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
      const int64_t ni = Int(node_index[i]);
      std::optional<Box> parsed = ParseBounds(bounds[i]);
      if (!parsed || ni < 0 || static_cast<size_t>(ni) >= backend.size()) continue;
      Box box = *parsed;
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

// The main document's DOM as the snapshot gives it, with what a read of
// what is in view (PlanInViewRead) needs of each node, by snapshot index.
// The snapshot lists nodes in document order: a parent before its children
// (a node that names a later or missing parent is taken as a root).
struct DomLayout {
  std::vector<int64_t> backend;
  std::vector<int64_t> parent;  // -1 for a root
  std::vector<std::vector<int>> children;
  // The boxes of its subtree joined, viewport CSS pixels; 0x0 boxes left
  // out (Chromium gives empty pseudo-elements 0x0 at 0,0 wherever they are).
  std::vector<Box> extent;
  std::vector<char> sized;  // whether extent holds a box
  std::vector<char> boxed;  // whether anything in its subtree has a box, 0x0 too
  std::vector<int> size;    // nodes in its subtree, itself included
  std::vector<int> boxes;   // nodes with a box of their own in its subtree
  // Never in the accessibility tree when it has no box: text, comments,
  // elements never rendered (a <script>).
  std::vector<char> silent;
  // The snapshot follows the flat tree (a shadow host, then its shadow
  // root's children; a <slot>, then the nodes assigned to it), which
  // Accessibility.queryAXTree does not: asked for a node, it answers the
  // node's light-DOM subtree. Whether the subtree crosses into a shadow
  // root or through a slot below the node, so that it cannot be read whole.
  std::vector<char> crosses;
  double view_w = 0, view_h = 0;

  // Wholly outside the viewport (a zero-size box counts as its point).
  bool Outside(size_t i) const {
    if (!sized[i]) return false;
    const Box& b = extent[i];
    return !(b.x < view_w && b.x + std::max(b.w, 1.0) > 0 && b.y < view_h &&
             b.y + std::max(b.h, 1.0) > 0);
  }
  // Left out of a read in view: wholly outside the viewport, or never
  // shown and never in the accessibility tree (a <script>, a comment; not
  // an <option> of a closed <select>, which has no box either).
  bool LeftOut(size_t i) const { return Outside(i) || (!boxed[i] && silent[i]); }

  // Whether node `i`, with no box of its own, is in view: where the nearest
  // of it and its ancestors with boxes below is. nullopt when none has.
  std::optional<bool> InView(size_t i) const {
    for (int64_t at = static_cast<int64_t>(i); at >= 0; at = parent[static_cast<size_t>(at)]) {
      if (sized[static_cast<size_t>(at)]) return !Outside(static_cast<size_t>(at));
    }
    return std::nullopt;
  }
};

DomLayout ReadDomLayout(const json& snapshot, const json& metrics) {
  DomLayout dom;
  const json& css = Obj(metrics, "cssLayoutViewport");
  dom.view_w = Num(css, "clientWidth");
  dom.view_h = Num(css, "clientHeight");
  const json& documents = Arr(snapshot, "documents");
  if (documents.empty()) return dom;
  const json& doc = documents[0];
  const json& nodes = Obj(doc, "nodes");
  const json& backend = Arr(nodes, "backendNodeId");
  const json& parents = Arr(nodes, "parentIndex");
  const size_t n = backend.size();
  dom.backend.resize(n);
  dom.children.resize(n);
  dom.extent.resize(n);
  dom.sized.assign(n, 0);
  dom.boxed.assign(n, 0);
  dom.size.assign(n, 1);
  dom.boxes.assign(n, 0);
  for (size_t i = 0; i < n; ++i) dom.backend[i] = Int(backend[i]);
  // Text without a box is white space or in a hidden element.
  const json& types = Arr(nodes, "nodeType");
  const json& names = Arr(nodes, "nodeName");
  const json& strings = Arr(snapshot, "strings");
  dom.silent.assign(n, 0);
  dom.crosses.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t type = i < types.size() ? Int(types[i]) : -1;
    if (type != 1) {
      dom.silent[i] = type != 9 && type != 11;  // not a document or fragment
      continue;
    }
    const int64_t name = i < names.size() ? Int(names[i]) : -1;
    if (name < 0 || static_cast<size_t>(name) >= strings.size() || !strings[name].is_string()) {
      continue;
    }
    const std::string& tag = strings[name].get_ref<const std::string&>();
    if (tag == "SLOT") dom.crosses[i] = 1;  // until it turns out to have no children
    for (const char* never :
         {"SCRIPT", "STYLE", "HEAD", "TEMPLATE", "NOSCRIPT", "META", "LINK", "TITLE", "BASE"}) {
      if (tag == never) dom.silent[i] = 1;
    }
  }
  // shadowRootType: rare data ({"index": [...], "value": [...]}), set on
  // the children of a shadow root.
  std::vector<char> in_shadow_root(n, 0);
  for (const json& i : Arr(Obj(nodes, "shadowRootType"), "index")) {
    const int64_t at = Int(i);
    if (at >= 0 && static_cast<size_t>(at) < n) in_shadow_root[static_cast<size_t>(at)] = 1;
  }
  const double scroll_x = Num(doc, "scrollOffsetX"), scroll_y = Num(doc, "scrollOffsetY");
  auto join = [&](size_t i, const Box& b) {
    if (!dom.sized[i]) {
      dom.extent[i] = b;
      dom.sized[i] = 1;
      return;
    }
    Box& e = dom.extent[i];
    const double right = std::max(e.x + e.w, b.x + b.w), bottom = std::max(e.y + e.h, b.y + b.h);
    e.x = std::min(e.x, b.x);
    e.y = std::min(e.y, b.y);
    e.w = right - e.x;
    e.h = bottom - e.y;
  };
  const json& layout = Obj(doc, "layout");
  const json& node_index = Arr(layout, "nodeIndex");
  const json& bounds = Arr(layout, "bounds");
  for (size_t k = 0; k < node_index.size() && k < bounds.size(); ++k) {
    const int64_t i = Int(node_index[k]);
    std::optional<Box> parsed = ParseBounds(bounds[k]);
    if (!parsed || i < 0 || static_cast<size_t>(i) >= n) continue;
    const Box box{parsed->x - scroll_x, parsed->y - scroll_y, parsed->w, parsed->h};
    dom.boxes[i] = 1;
    dom.boxed[i] = 1;
    if (box.w > 0 || box.h > 0) join(static_cast<size_t>(i), box);
  }
  std::vector<int64_t>& parent = dom.parent;
  parent.assign(n, -1);
  for (size_t i = 1; i < n && i < parents.size(); ++i) {
    const int64_t p = Int(parents[i]);
    if (p >= 0 && static_cast<size_t>(p) < i) parent[i] = p;
  }
  for (size_t i = n; i-- > 1;) {
    if (parent[i] < 0) continue;
    const auto p = static_cast<size_t>(parent[i]);
    dom.size[p] += dom.size[i];
    dom.boxes[p] += dom.boxes[i];
    dom.boxed[p] |= dom.boxed[i];
    if (dom.sized[i]) join(p, dom.extent[i]);
  }
  // A slot crosses only when something is assigned to it; a node crosses
  // when a child is a shadow root's or crosses itself.
  std::vector<char> has_children(n, 0);
  for (size_t i = 1; i < n; ++i) {
    if (parent[i] >= 0) has_children[static_cast<size_t>(parent[i])] = 1;
  }
  for (size_t i = 0; i < n; ++i) dom.crosses[i] = dom.crosses[i] && has_children[i];
  for (size_t i = n; i-- > 1;) {
    if (parent[i] < 0) continue;
    if (in_shadow_root[i] || dom.crosses[i]) dom.crosses[static_cast<size_t>(parent[i])] = 1;
  }
  for (size_t i = 1; i < n; ++i) {
    if (parent[i] >= 0) dom.children[static_cast<size_t>(parent[i])].push_back(static_cast<int>(i));
  }
  return dom;
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
      : data_(data), options_(options), facts_(facts), viewport_(viewport), scale_(scale) {
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
      const bool shown = shown_;
      if (auto it = facts_.boxes.find(fields.backend); it != facts_.boxes.end()) {
        shown_ = OnScreen(ScreenRect(it->second));
      }
      Children(frame, n, depth, parent, into);
      shown_ = shown;
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

    // Bounds. A node without a box of its own (an SVG image, a select's
    // option, generated content) is where the boxes of its DOM subtree
    // are, or else its nearest DOM ancestor's with boxes below it (as a
    // read in view decides what to leave out); without a DOM node in the
    // main frame, where its nearest accessibility ancestor with a box is.
    bool on_screen = shown_;
    if (auto it = facts_.boxes.find(backend); backend >= 0 && it != facts_.boxes.end()) {
      const Rect r = ScreenRect(it->second);
      out.bounds = r;
      places_.push_back(PagePlace{out.role, r, backend});
      on_screen = OnScreen(r);
    } else if (std::optional<bool> in_view = DomInView(backend)) {
      on_screen = *in_view;
    }
    if (on_screen) {
      out.states.Set(State::kShowing);
      out.states.Set(State::kVisible);
    }

    // Children: a field's text is its value; an iframe holds its frame's
    // document; a select keeps its options.
    const bool shown = shown_;
    shown_ = on_screen;
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
    shown_ = shown;

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

  // The enclosing pixel rectangle of a fractional box on the screen, as
  // Chromium gives its AT-SPI extents (gfx::ToEnclosingRect): the AT-SPI
  // twin of a node (engine/cdp_pages.h) then has the very same bounds.
  Rect ScreenRect(const Box& b) const {
    const double left = std::floor(b.x * scale_), top = std::floor(b.y * scale_);
    const double right = std::ceil((b.x + b.w) * scale_ - 1e-6);
    const double bottom = std::ceil((b.y + b.h) * scale_ - 1e-6);
    return Rect{options_.origin.x + static_cast<int>(left),
                options_.origin.y + static_cast<int>(top),
                static_cast<int>(std::max(0.0, right - left)),
                static_cast<int>(std::max(0.0, bottom - top))};
  }
  // A zero-size box (an empty text run, a collapsed element) is where its
  // content would be: on screen when that point is.
  bool OnScreen(const Rect& r) const {
    const Rect probe{r.x, r.y, std::max(r.w, 1), std::max(r.h, 1)};
    return !Intersect(probe, viewport_).Empty();
  }

  // Where the main frame's DOM puts node `backend` (DomLayout::InView),
  // the layout read once, on the first node that asks.
  std::optional<bool> DomInView(int64_t backend) {
    if (backend < 0) return std::nullopt;
    if (!dom_) {
      dom_ = ReadDomLayout(data_.snapshot, data_.metrics);
      for (size_t i = 0; i < dom_->backend.size(); ++i) dom_index_.emplace(dom_->backend[i], i);
    }
    auto it = dom_index_.find(backend);
    if (it == dom_index_.end()) return std::nullopt;
    return dom_->InView(it->second);
  }

  int off_screen() const { return off_screen_; }
  bool capped() const { return capped_; }
  std::vector<PagePlace> TakePlaces() { return std::move(places_); }

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
  bool shown_ = true;  // whether the nearest ancestor with a box is on screen
  std::optional<DomLayout> dom_;
  std::unordered_map<int64_t, size_t> dom_index_;
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

std::optional<InViewPlan> PlanInViewRead(const json& snapshot, const json& metrics,
                                         int request_cost, size_t max_requests) {
  const DomLayout dom = ReadDomLayout(snapshot, metrics);
  const size_t n = dom.backend.size();
  if (n == 0 || dom.view_w <= 0 || dom.view_h <= 0) return std::nullopt;
  // The cheapest read of each subtree in view, in nodes answered plus
  // `request_cost` per request: whole (one request; never a subtree that
  // crosses into a shadow root or through a slot), or descended into (the
  // node alone, then each child in view read its cheapest way, the children
  // outside left out).
  const double per_request = std::max(request_cost, 1);
  std::vector<double> cheapest(n);
  std::vector<char> descend(n, 0);
  for (size_t i = n; i-- > 0;) {
    const double whole =
        dom.crosses[i] ? std::numeric_limits<double>::infinity() : dom.size[i] + per_request;
    double split = per_request + 1;
    for (int c : dom.children[i]) {
      if (!dom.LeftOut(static_cast<size_t>(c))) split += cheapest[static_cast<size_t>(c)];
    }
    descend[i] = !dom.children[i].empty() && split < whole;
    cheapest[i] = std::min(whole, split);
  }
  // Worth the requests only when it reads a good deal less than the whole
  // tree in one request.
  if (!descend[0] || cheapest[0] > 0.75 * dom.size[0]) return std::nullopt;
  InViewPlan plan;
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const auto i = static_cast<size_t>(stack.back());
    stack.pop_back();
    if (!descend[i]) {
      plan.subtrees.push_back(dom.backend[i]);
      continue;
    }
    plan.ancestors.push_back(dom.backend[i]);
    for (auto c = dom.children[i].rbegin(); c != dom.children[i].rend(); ++c) {
      const auto child = static_cast<size_t>(*c);
      if (dom.LeftOut(child)) {
        plan.left_out.push_back(dom.backend[child]);
        plan.left_out_boxed += dom.boxes[child];
        // Every node under it: the accessibility tree skips DOM nodes that
        // have no node of their own (a <span>), so a read node's child may
        // be a left-out node's descendant.
        std::vector<size_t> under = {child};
        while (!under.empty()) {
          const size_t u = under.back();
          under.pop_back();
          plan.left_out_nodes.push_back(dom.backend[u]);
          for (int g : dom.children[u]) under.push_back(static_cast<size_t>(g));
        }
      } else {
        stack.push_back(*c);
      }
    }
    if (plan.ancestors.size() + plan.subtrees.size() + stack.size() > max_requests) {
      return std::nullopt;
    }
  }
  return plan;
}

Result<InViewJoin> JoinInViewTree(const InViewPlan& plan, const std::vector<json>& ancestors,
                                  const std::vector<json>& subtrees,
                                  const std::vector<json>& relatives) {
  auto stale = [](const std::string& why) {
    return MakeError(ErrorCode::kStale, "the page's tree in view does not hold together: " + why);
  };
  if (ancestors.size() != plan.ancestors.size() || subtrees.size() != plan.subtrees.size()) {
    return MakeError(ErrorCode::kInvalidArgument, "an answer for each request of the plan");
  }
  std::vector<const json*> nodes;
  std::unordered_map<std::string_view, size_t> at;  // nodeId -> index in nodes
  auto add = [&](const json& answer) {
    for (const json& n : Arr(answer, "nodes")) {
      const std::string_view id = View(n, "nodeId");
      // "0": a DOM node without an accessibility node (a <script>).
      if (id.empty() || id == "0" || at.contains(id)) continue;
      at.emplace(id, nodes.size());
      nodes.push_back(&n);
    }
  };
  for (const json& a : ancestors) add(a);
  for (const json& s : subtrees) add(s);
  for (const json& r : relatives) add(r);
  auto backend_of = [](const json& n) {
    const json* b = Field(n, "backendDOMNodeId");
    return b != nullptr ? Int(*b) : int64_t{-1};
  };
  if (nodes.empty() || plan.ancestors.empty() || backend_of(*nodes[0]) != plan.ancestors[0] ||
      Field(*nodes[0], "parentId") != nullptr) {
    return stale("the document has no root node");
  }
  const std::unordered_set<int64_t> left_out(plan.left_out_nodes.begin(),
                                             plan.left_out_nodes.end());
  auto is_left_out = [&](std::string_view id) {
    int64_t backend = 0;
    auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), backend);
    return error == std::errc() && end == id.data() + id.size() && left_out.contains(backend);
  };
  // Reached from the root by child IDs, each once.
  InViewJoin join;
  std::set<int64_t> wanting;
  auto dom_id = [](std::string_view id) -> std::optional<int64_t> {
    int64_t backend = 0;
    auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), backend);
    if (error != std::errc() || end != id.data() + id.size() || backend <= 0) return std::nullopt;
    return backend;
  };
  std::vector<char> reached(nodes.size(), 0);
  std::vector<size_t> order, stack = {0};
  reached[0] = 1;
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    order.push_back(i);
    // A text run's children are its inline text boxes, which no tree keeps.
    const bool text_run = View(Obj(*nodes[i], "role"), "value") == "StaticText";
    for (const json& c : Arr(*nodes[i], "childIds")) {
      if (!c.is_string()) continue;
      const std::string& id = c.get_ref<const std::string&>();
      auto it = at.find(id);
      if (it != at.end()) {
        if (!reached[it->second]) {
          reached[it->second] = 1;
          stack.push_back(it->second);
        }
      } else if (!text_run && !is_left_out(id)) {
        const std::optional<int64_t> missing = dom_id(id);
        if (!missing) {
          return stale("node " + id + " under node " + Str(*nodes[i], "nodeId") +
                       " was neither read nor left out, and has no DOM node to ask by");
        }
        wanting.insert(*missing);
      }
    }
  }
  if (!wanting.empty()) {
    join.wanting.assign(wanting.begin(), wanting.end());
    return join;
  }
  for (size_t s = 0; s < subtrees.size(); ++s) {
    for (const json& n : Arr(subtrees[s], "nodes")) {
      if (backend_of(n) != plan.subtrees[s]) continue;
      auto it = at.find(View(n, "nodeId"));
      if (it != at.end() && !reached[it->second]) {
        return stale("node " + std::to_string(plan.subtrees[s]) +
                     " is not under its DOM parent's accessibility node");
      }
      break;
    }
  }
  std::sort(order.begin(), order.end());  // the answers' order: the document first
  join.tree = {{"nodes", json::array()}};
  json& kept = join.tree["nodes"];
  for (size_t i : order) kept.push_back(*nodes[i]);
  return join;
}

namespace {

// Rounds of asking again for children the DOM does not show, and the most
// nodes asked for in one.
constexpr int kRepairRounds = 3;
constexpr size_t kMaxRepairs = 64;

// Appends the accessibility trees of `frames` (frame IDs) to data.frames,
// pipelined; a frame that went away in between is left out.
Status ReadFrames(CdpConnection& page, CdpPageData& data, const std::vector<std::string>& frames,
                  Clock::time_point deadline) {
  std::vector<std::pair<std::string, Result<int>>> pending;
  for (const std::string& frame : frames) {
    pending.emplace_back(frame, page.Send("Accessibility.getFullAXTree", {{"frameId", frame}}));
  }
  Status status = OkStatus();
  for (auto& [frame, id] : pending) {
    if (!id.ok()) {
      if (status.ok()) status = id.error();
      continue;
    }
    auto answer = page.Await(*id, deadline);
    if (!answer.ok() && answer.error().code != ErrorCode::kInternal && status.ok()) {
      status = answer.error();
    }
    if (answer.ok()) data.frames.emplace_back(frame, std::move(answer).value());
  }
  return status;
}

// The frame IDs of the child documents of `snapshot`.
std::vector<std::string> ChildFrames(const json& snapshot) {
  std::vector<std::string> frames;
  const json& documents = Arr(snapshot, "documents");
  for (size_t d = 1; d < documents.size(); ++d) {
    std::string frame = DocumentFrameId(snapshot, documents[d]);
    if (!frame.empty()) frames.push_back(std::move(frame));
  }
  return frames;
}

// The child frames whose iframe element has a box in the viewport.
std::vector<std::string> ChildFramesInView(const json& snapshot, const json& metrics) {
  if (Arr(snapshot, "documents").size() < 2) return {};  // no frame: no parse
  const DomFacts facts = ReadSnapshot(snapshot);
  const json& css = Obj(metrics, "cssLayoutViewport");
  const double w = Num(css, "clientWidth"), h = Num(css, "clientHeight");
  std::vector<std::string> frames;
  for (const std::string& frame : ChildFrames(snapshot)) {
    for (const auto& [owner, id] : facts.iframe_frames) {
      if (id != frame) continue;
      auto box = facts.boxes.find(owner);
      if (box == facts.boxes.end()) continue;
      const Box& b = box->second;
      if (b.x < w && b.x + b.w > 0 && b.y < h && b.y + b.h > 0) frames.push_back(frame);
    }
  }
  return frames;
}

// Sends each request, then awaits every answer (none is left behind on
// the connection); the first error, if any.
Result<std::vector<json>> SendAll(CdpConnection& page,
                                  const std::vector<std::pair<const char*, json>>& requests,
                                  Clock::time_point deadline) {
  std::vector<Result<int>> ids;
  ids.reserve(requests.size());
  for (const auto& [method, params] : requests) ids.push_back(page.Send(method, params));
  std::vector<json> answers;
  std::optional<Error> error;
  for (auto& id : ids) {
    if (!id.ok()) {
      if (!error) error = id.error();
      continue;
    }
    auto answer = page.Await(*id, deadline);
    if (!answer.ok()) {
      if (!error) error = answer.error();
      // A timeout leaves the rest unanswered too.
      if (answer.error().code == ErrorCode::kTimeout) break;
      continue;
    }
    answers.push_back(std::move(answer).value());
  }
  if (error) return *error;
  return answers;
}

// The accessibility of what is in view, joined into data.ax: true when it
// holds together; false with data.whole_why when the page must be read
// whole; an error of the endpoint otherwise.
Result<bool> ReadInView(CdpConnection& page, CdpPageData& data, Clock::time_point deadline) {
  std::optional<InViewPlan> plan = PlanInViewRead(data.snapshot, data.metrics);
  if (!plan) {
    data.whole_why = "most of the page is in view, or it would take too many requests";
    return false;
  }
  std::vector<std::pair<const char*, json>> requests;
  for (int64_t b : plan->ancestors) {
    requests.emplace_back("Accessibility.getPartialAXTree",
                          json{{"backendNodeId", b}, {"fetchRelatives", false}});
  }
  for (int64_t b : plan->subtrees) {
    requests.emplace_back("Accessibility.queryAXTree", json{{"backendNodeId", b}});
  }
  const std::vector<std::string> frames = ChildFramesInView(data.snapshot, data.metrics);
  for (const std::string& frame : frames) {
    requests.emplace_back("Accessibility.getFullAXTree", json{{"frameId", frame}});
  }
  auto answers = SendAll(page, requests, deadline);
  if (!answers.ok()) {
    // A node that went away in between (the page changed): read it whole.
    if (answers.error().code != ErrorCode::kInternal) return answers.error();
    data.whole_why = answers.error().message;
    return false;
  }
  auto& all = *answers;
  const auto subtrees_at = static_cast<std::ptrdiff_t>(plan->ancestors.size());
  const auto frames_at = subtrees_at + static_cast<std::ptrdiff_t>(plan->subtrees.size());
  std::vector<json> ancestors(std::make_move_iterator(all.begin()),
                              std::make_move_iterator(all.begin() + subtrees_at));
  std::vector<json> subtrees(std::make_move_iterator(all.begin() + subtrees_at),
                             std::make_move_iterator(all.begin() + frames_at));
  // Nodes the DOM snapshot does not show (a <details>' slots, generated
  // content) are asked for by their IDs, which are DOM node IDs: a level a
  // round trip (a millisecond or two each).
  std::vector<json> relatives;
  Result<InViewJoin> joined = JoinInViewTree(*plan, ancestors, subtrees, relatives);
  for (int round = 0; joined.ok() && !joined->wanting.empty(); ++round) {
    if (round == kRepairRounds || joined->wanting.size() > kMaxRepairs) {
      std::string ids;
      for (size_t k = 0; k < joined->wanting.size() && k < 5; ++k) {
        ids += (k > 0 ? ", " : "") + std::to_string(joined->wanting[k]);
      }
      data.whole_why = "the page's tree in view does not hold together: " +
                       std::to_string(joined->wanting.size()) +
                       " nodes the DOM snapshot does not show are still missing (" + ids +
                       (joined->wanting.size() > 5 ? ", ..." : "") + ")";
      return false;
    }
    std::vector<std::pair<const char*, json>> repairs;
    for (int64_t b : joined->wanting) {
      repairs.emplace_back("Accessibility.getPartialAXTree",
                           json{{"backendNodeId", b}, {"fetchRelatives", false}});
    }
    auto more = SendAll(page, repairs, deadline);
    if (!more.ok()) {
      if (more.error().code != ErrorCode::kInternal) return more.error();
      data.whole_why = more.error().message;
      return false;
    }
    for (json& answer : *more) relatives.push_back(std::move(answer));
    joined = JoinInViewTree(*plan, ancestors, subtrees, relatives);
  }
  if (!joined.ok()) {
    data.whole_why = joined.error().message;
    return false;
  }
  data.ax = std::move(joined->tree);
  for (size_t f = 0; f < frames.size(); ++f) {
    data.frames.emplace_back(frames[f], std::move(all[static_cast<size_t>(frames_at) + f]));
  }
  data.extent = PageExtent::kInView;
  data.left_out = std::move(plan->left_out);
  data.left_out_boxed = plan->left_out_boxed;
  return true;
}

}  // namespace

Result<CdpPageData> ReadPageData(CdpConnection& page, std::chrono::milliseconds timeout,
                                 PageExtent extent) {
  const auto deadline = Clock::now() + timeout;
  CdpPageData data;
  // Round trip 1, pipelined: the whole tree too unless only what is in
  // view is asked for.
  std::vector<std::pair<const char*, json>> first = {
      {"DOMSnapshot.captureSnapshot", json{{"computedStyles", json::array()}}},
      {"Page.getLayoutMetrics", json::object()}};
  if (extent == PageExtent::kWhole)
    first.emplace_back("Accessibility.getFullAXTree", json::object());
  auto answers = SendAll(page, first, deadline);
  if (!answers.ok()) return answers.error();
  data.snapshot = std::move((*answers)[0]);
  data.metrics = std::move((*answers)[1]);
  std::optional<int> ax_id;  // the whole tree, asked for after all
  if (extent == PageExtent::kWhole) {
    data.ax = std::move((*answers)[2]);
  } else {
    // Round trip 2: what is in view.
    auto in_view = ReadInView(page, data, deadline);
    if (!in_view.ok()) return in_view.error();
    if (*in_view) return data;
    auto id = page.Send("Accessibility.getFullAXTree");
    if (!id.ok()) return id.error();
    ax_id = *id;
  }
  // The child frames' trees (with the whole tree, pipelined, when that was
  // asked for after all).
  Status frames = ReadFrames(page, data, ChildFrames(data.snapshot), deadline);
  if (ax_id) {
    auto ax = page.Await(*ax_id, deadline);
    if (!ax.ok()) return ax.error();
    data.ax = std::move(ax).value();
  }
  if (!frames.ok()) return frames.error();
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
  if (options.include_hidden && data.extent == PageExtent::kInView) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the page was read for what is in view only: read it whole for "
                     "include_hidden");
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
  tree.off_screen = converter.off_screen() + data.left_out_boxed;
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
  const bool in_view = data.extent == PageExtent::kInView;
  if (in_view && *metrics != data.metrics) {
    if (snapshot_id && snapshot_id->ok()) (void)page.Await(**snapshot_id, deadline);
    return stale("the page scrolled, resized or grew since what was in view was read");
  }
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
  // What was left out as outside the view is still outside it.
  if (snapshot_id && in_view) {
    const DomLayout dom = ReadDomLayout(snapshot, data.metrics);
    std::unordered_map<int64_t, size_t> index;
    for (size_t i = 0; i < dom.backend.size(); ++i) index.emplace(dom.backend[i], i);
    for (int64_t b : data.left_out) {
      auto it = index.find(b);
      if (it != index.end() && !dom.LeftOut(it->second)) {
        return stale("node " + std::to_string(b) + " came into view");
      }
    }
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
