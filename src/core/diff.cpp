#include "core/diff.h"

#include <string>
#include <unordered_map>
#include <utility>

#include "core/format.h"

namespace uiscope {
namespace {

using nlohmann::json;

// Field values in JSON and text are cut to this many code points: a diff
// says what changed, the tree holds the full text.
constexpr size_t kMaxJsonChars = 1000;
constexpr size_t kMaxTextChars = 80;

struct Indexed {
  const Node* node = nullptr;
  const Node* parent = nullptr;
};

void Index(const std::vector<Node>& nodes, const Node* parent,
           std::unordered_map<std::string_view, Indexed>& out) {
  for (const Node& n : nodes) {
    if (!n.id.empty()) out.emplace(n.id, Indexed{&n, parent});
    Index(n.children, &n, out);
  }
}

std::string BoundsText(const std::optional<Rect>& r) {
  if (!r) return "";
  return std::to_string(r->x) + "," + std::to_string(r->y) + "," + std::to_string(r->w) + "," +
         std::to_string(r->h);
}

std::string Join(const std::vector<std::string_view>& parts) {
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

std::string JoinStrings(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

// How far a node moved, when its size stayed: the offset its children share
// when they moved with it.
std::optional<Point> Offset(const Node& before, const Node& after) {
  if (!before.bounds || !after.bounds) return std::nullopt;
  if (before.bounds->w != after.bounds->w || before.bounds->h != after.bounds->h) {
    return std::nullopt;
  }
  return Point{after.bounds->x - before.bounds->x, after.bounds->y - before.bounds->y};
}

struct Differ {
  const DiffOptions& options;
  std::unordered_map<std::string_view, Indexed> before;
  std::unordered_map<std::string_view, Indexed> after;
  TreeDiff diff;

  // `parent_offset`: how the parent moved (nullopt when it is new, resized
  // or unplaced), so children that moved with it are not listed.
  void Walk(const std::vector<Node>& nodes, const Node* parent,
            std::optional<Point> parent_offset) {
    for (const Node& n : nodes) {
      auto it = before.find(n.id);
      if (n.id.empty() || it == before.end()) {
        AddedNode added;
        added.parent_id = parent ? parent->id : "";
        added.node = n;
        added.subtree_size = static_cast<int>(CountNodes({n}));
        diff.added.push_back(std::move(added));
        continue;  // its subtree is part of it
      }
      const Node& old = *it->second.node;
      std::optional<Point> offset = Offset(old, n);
      Compare(old, n, parent_offset);
      Walk(n.children, &n, offset);
    }
  }

  void Compare(const Node& old, const Node& now, std::optional<Point> parent_offset) {
    NodeChange change;
    auto field = [&](const char* name, std::string a, std::string b) {
      if (a != b) change.fields.push_back({name, std::move(a), std::move(b)});
    };
    field("name", old.name, now.name);
    // Never a password's value: backends leave it empty, and this keeps it so.
    if (!old.Has(State::kPassword) && !now.Has(State::kPassword)) {
      field("value", old.value, now.value);
    }
    field("description", old.description, now.description);
    if (old.states != now.states) {
      for (uint32_t bit = 1; bit != 0 && bit <= static_cast<uint32_t>(State::kStale); bit <<= 1) {
        const State s = static_cast<State>(bit);
        if (now.Has(s) && !old.Has(s)) change.states_added.emplace_back(StateName(s));
        if (!now.Has(s) && old.Has(s)) change.states_removed.emplace_back(StateName(s));
      }
      field("states", Join(StateNames(old.states)), Join(StateNames(now.states)));
    }
    if (options.actions) field("actions", JoinStrings(old.actions), JoinStrings(now.actions));
    if (options.bounds && old.bounds != now.bounds) {
      std::optional<Point> offset = Offset(old, now);
      const bool moved_with_parent = offset && parent_offset && *offset == *parent_offset;
      if (!moved_with_parent) field("bounds", BoundsText(old.bounds), BoundsText(now.bounds));
    }
    if (change.fields.empty()) return;
    change.id = now.id;
    change.role = now.role;
    change.name = now.name;
    diff.changed.push_back(std::move(change));
  }

  void FindRemoved(const std::vector<Node>& nodes, const Node* parent) {
    for (const Node& n : nodes) {
      if (!n.id.empty() && after.count(n.id) == 0) {
        RemovedNode removed;
        removed.id = n.id;
        removed.role = n.role;
        removed.name = n.name;
        removed.parent_id = parent ? parent->id : "";
        removed.subtree_size = static_cast<int>(CountNodes({n}));
        diff.removed.push_back(std::move(removed));
        continue;
      }
      FindRemoved(n.children, &n);
    }
  }
};

json AddedJson(const Node& node, int* budget) {
  json j = NodeToJson(node, /*with_children=*/false);
  if (*budget == 0) return j;
  --*budget;
  if (!node.children.empty() && *budget != 0) {
    json children = json::array();
    for (const Node& c : node.children) {
      if (*budget == 0) break;
      children.push_back(AddedJson(c, budget));
    }
    j["children"] = std::move(children);
  }
  return j;
}

void AddedLines(const Node& node, int depth, std::vector<std::string>& lines) {
  lines.push_back(std::string(static_cast<size_t>(depth) * 2 + 2, ' ') + FormatNodeLine(node));
  for (const Node& c : node.children) AddedLines(c, depth + 1, lines);
}

void CollectIdsOf(const Node& n, std::vector<std::string>& out) {
  out.push_back(n.id);
  for (const Node& c : n.children) CollectIdsOf(c, out);
}

}  // namespace

std::vector<std::string> TreeDiff::Ids() const {
  std::vector<std::string> out;
  for (const AddedNode& a : added) CollectIdsOf(a.node, out);
  for (const RemovedNode& r : removed) out.push_back(r.id);
  for (const NodeChange& c : changed) out.push_back(c.id);
  return out;
}

TreeDiff DiffTrees(const std::vector<Node>& before, const std::vector<Node>& after,
                   const DiffOptions& options) {
  Differ d{options, {}, {}, {}};
  Index(before, nullptr, d.before);
  Index(after, nullptr, d.after);
  d.Walk(after, nullptr, Point{0, 0});
  d.FindRemoved(before, nullptr);
  return std::move(d.diff);
}

json DiffToJson(const TreeDiff& diff, int max_added_nodes) {
  json added = json::array();
  int budget = max_added_nodes > 0 ? max_added_nodes : -1;
  for (const AddedNode& a : diff.added) {
    if (budget == 0) break;
    added.push_back({{"parent_id", a.parent_id},
                     {"subtree_size", a.subtree_size},
                     {"node", AddedJson(a.node, &budget)}});
  }
  json removed = json::array();
  for (const RemovedNode& r : diff.removed) {
    removed.push_back({{"id", r.id},
                       {"role", RoleName(r.role)},
                       {"name", SanitiseUtf8(r.name, kMaxJsonChars)},
                       {"parent_id", r.parent_id},
                       {"subtree_size", r.subtree_size}});
  }
  json changed = json::array();
  for (const NodeChange& c : diff.changed) {
    json fields = json::array();
    for (const FieldChange& f : c.fields) {
      fields.push_back({{"field", f.field},
                        {"before", SanitiseUtf8(f.before, kMaxJsonChars)},
                        {"after", SanitiseUtf8(f.after, kMaxJsonChars)}});
    }
    changed.push_back({{"id", c.id},
                       {"role", RoleName(c.role)},
                       {"name", SanitiseUtf8(c.name, kMaxJsonChars)},
                       {"fields", std::move(fields)},
                       {"states_added", c.states_added},
                       {"states_removed", c.states_removed}});
  }
  return {{"added", std::move(added)},
          {"removed", std::move(removed)},
          {"changed", std::move(changed)}};
}

std::string FormatDiff(const TreeDiff& diff, int max_lines) {
  std::vector<std::string> lines;
  for (const AddedNode& a : diff.added) {
    std::vector<std::string> sub;
    AddedLines(a.node, 0, sub);
    sub[0][0] = '+';
    if (!a.parent_id.empty()) sub[0] += " in " + a.parent_id;
    for (auto& l : sub) lines.push_back(std::move(l));
  }
  for (const RemovedNode& r : diff.removed) {
    std::string line = "- [" + std::string(RoleName(r.role));
    if (!r.name.empty()) line += " \"" + SanitiseForDisplay(r.name, kMaxTextChars) + "\"";
    line += " id=" + r.id + "]";
    if (r.subtree_size > 1) line += " (" + std::to_string(r.subtree_size) + " nodes)";
    lines.push_back(std::move(line));
  }
  for (const NodeChange& c : diff.changed) {
    std::string line = "~ " + c.id + " " + std::string(RoleName(c.role));
    if (!c.name.empty()) line += " \"" + SanitiseForDisplay(c.name, kMaxTextChars) + "\"";
    line += ":";
    bool first = true;
    for (const FieldChange& f : c.fields) {
      line += first ? " " : "; ";
      first = false;
      if (f.field == "states") {
        line += "states";
        for (const auto& s : c.states_added) line += " +" + s;
        for (const auto& s : c.states_removed) line += " -" + s;
        continue;
      }
      line += f.field + " \"" + SanitiseForDisplay(f.before, kMaxTextChars) + "\" → \"" +
              SanitiseForDisplay(f.after, kMaxTextChars) + "\"";
    }
    lines.push_back(std::move(line));
  }
  std::string out;
  size_t shown = lines.size();
  if (max_lines > 0 && lines.size() > static_cast<size_t>(max_lines)) {
    shown = static_cast<size_t>(max_lines);
  }
  for (size_t i = 0; i < shown; ++i) out += lines[i] + "\n";
  if (shown < lines.size()) out += "… " + std::to_string(lines.size() - shown) + " more\n";
  return out;
}

}  // namespace uiscope
