#include "core/merge.h"

#include <algorithm>
#include <map>

#include "core/fuzzy.h"

namespace uiscope {
namespace {

// A node of the scope's subtree with bounds, found by its index path.
struct Located {
  std::vector<size_t> path;
  Rect bounds;
  int64_t area = 0;
  bool nested = false;       // inside another element (a row's button)
  bool interactive = false;  // IsInteractiveRole
  bool item = false;         // a row or cell of a list, table or tree (ItemRole)
};

struct ScopeIndex {
  std::vector<Located> elements;
  std::vector<Located> containers;  // the scope itself first (empty path) when it has bounds
};

bool HasBounds(const Node& n) { return n.bounds && !n.bounds->Empty(); }

// Rows and cells: interactive elements that hold widgets the tree may not
// list (an item view paints a row's buttons without accessible children).
bool ItemRole(Role role) {
  return role == Role::kListItem || role == Role::kTableCell || role == Role::kTreeItem;
}

void Collect(const Node& n, std::vector<size_t>& path, bool inside_element, ScopeIndex& index) {
  bool element = false;
  if (HasBounds(n)) {
    element = IsMergeElement(n);
    if (element) {
      index.elements.push_back({path, *n.bounds, n.bounds->Area(), inside_element,
                                IsInteractiveRole(n.role), ItemRole(n.role)});
    } else if (!inside_element) {
      // What lies inside an element is a part of it, never a container of
      // orphans (a combo box's popup list).
      index.containers.push_back({path, *n.bounds, n.bounds->Area()});
    }
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    path.push_back(i);
    Collect(n.children[i], path, inside_element || element, index);
    path.pop_back();
  }
}

ScopeIndex IndexScope(const Node& scope) {
  ScopeIndex index;
  if (HasBounds(scope)) index.containers.push_back({{}, *scope.bounds, scope.bounds->Area()});
  std::vector<size_t> path;
  for (size_t i = 0; i < scope.children.size(); ++i) {
    path.assign(1, i);
    Collect(scope.children[i], path, false, index);
  }
  return index;
}

Node* Resolve(Node& scope, const std::vector<size_t>& path) {
  Node* n = &scope;
  for (size_t i : path) n = &n->children[i];
  return n;
}
double ShareInside(const Rect& inner, const Rect& outer) {
  const int64_t area = inner.Area();
  return area == 0 ? 0 : static_cast<double>(Intersect(inner, outer).Area()) / area;
}

struct Plan {
  std::vector<PlannedDetection> entries;
  // Per element index (into ScopeIndex::elements): the detections paired or
  // held as parts.
  std::vector<int> matched_by;               // -1 = none
  std::map<size_t, std::vector<int>> parts;  // element index -> detections
  std::vector<int> part_of;                  // per detection: element index or -1
  std::vector<int> container_of;             // per orphan detection: container index or -1
};

// The share of `box` lying on the outermost elements (siblings do not
// overlap, so their intersections add up), and the element it lies on most.
double ShareOnElements(const Rect& box, const ScopeIndex& index, int* most) {
  const int64_t area = box.Area();
  if (area == 0) return 0;
  int64_t covered = 0;
  int64_t best = 0;
  for (size_t e = 0; e < index.elements.size(); ++e) {
    if (index.elements[e].nested) continue;
    const int64_t on = Intersect(box, index.elements[e].bounds).Area();
    covered += on;
    if (on > best) {
      best = on;
      *most = static_cast<int>(e);
    }
  }
  return std::min(1.0, static_cast<double>(covered) / static_cast<double>(area));
}

// The interactive element sharing the most of `box` among those sharing at
// least half of the smaller of the two; -1 for none.
int InteractiveSharingHalf(const Rect& box, const ScopeIndex& index) {
  int held = -1;
  int64_t held_area = 0;
  for (size_t e = 0; e < index.elements.size(); ++e) {
    const Located& element = index.elements[e];
    if (!element.interactive || !SharesHalfOfTheSmaller(box, element.bounds)) continue;
    const int64_t shared = Intersect(box, element.bounds).Area();
    if (shared > held_area) {
      held = static_cast<int>(e);
      held_area = shared;
    }
  }
  return held;
}

Plan MakePlan(const ScopeIndex& index, std::span<const Detection> detections,
              const MergeOptions& options) {
  Plan plan;
  const size_t n = detections.size();
  plan.entries.resize(n);
  plan.part_of.assign(n, -1);
  plan.container_of.assign(n, -1);
  plan.matched_by.assign(index.elements.size(), -1);

  // Rule 1: greedy one-to-one pairing by decreasing IoU.
  struct Pair {
    double iou;
    size_t detection;
    size_t element;
  };
  std::vector<Pair> pairs;
  for (size_t d = 0; d < n; ++d) {
    for (size_t e = 0; e < index.elements.size(); ++e) {
      const double iou = IoU(detections[d].bounds, index.elements[e].bounds);
      if (iou >= options.match_iou) pairs.push_back({iou, d, e});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const Pair& a, const Pair& b) { return a.iou > b.iou; });
  std::vector<bool> placed(n, false);
  for (const Pair& p : pairs) {
    if (placed[p.detection] || plan.matched_by[p.element] >= 0) continue;
    placed[p.detection] = true;
    plan.matched_by[p.element] = static_cast<int>(p.detection);
    plan.entries[p.detection] = {Placement::kMatched, index.elements[p.element].path};
  }
  // Rule 2: what still overlaps a paired element that much is a second view
  // of it.
  for (const Pair& p : pairs) {
    if (placed[p.detection]) continue;
    placed[p.detection] = true;
    plan.entries[p.detection] = {Placement::kDuplicate, index.elements[p.element].path};
  }
  for (size_t d = 0; d < n; ++d) {
    if (placed[d]) continue;
    const Rect& box = detections[d].bounds;
    // Rule 3: the smallest element holding most of it.
    int holder = -1;
    for (size_t e = 0; e < index.elements.size(); ++e) {
      if (ShareInside(box, index.elements[e].bounds) < options.inside_share) continue;
      if (holder < 0 || index.elements[e].area < index.elements[holder].area) {
        holder = static_cast<int>(e);
      }
    }
    if (holder >= 0) {
      plan.part_of[d] = holder;
      plan.parts[static_cast<size_t>(holder)].push_back(static_cast<int>(d));
      plan.entries[d] = {Placement::kPart, index.elements[holder].path};
      continue;
    }
    // Rule 2, a vision box lying mostly on elements (those elements seen
    // askew or together), or holding half of an interactive one (that
    // widget seen with its surroundings: a tab with its gap, a check box
    // with its whole allocation).
    if (detections[d].source == Source::kVision) {
      int seen = -1;
      if (ShareOnElements(box, index, &seen) < options.covered_share || seen < 0) {
        seen = InteractiveSharingHalf(box, index);
      }
      if (seen >= 0) {
        plan.entries[d] = {Placement::kDuplicate, index.elements[static_cast<size_t>(seen)].path};
        continue;
      }
    }
    // Rule 4: the smallest container holding its centre.
    const Point centre = box.Center();
    int container = -1;
    for (size_t c = 0; c < index.containers.size(); ++c) {
      if (!index.containers[c].bounds.Contains(centre)) continue;
      // Equal areas: the inner one (containers are listed parents first).
      if (container < 0 || index.containers[c].area <= index.containers[container].area) {
        container = static_cast<int>(c);
      }
    }
    plan.container_of[d] = container;
    plan.entries[d] = {Placement::kOrphan, {}};
  }
  return plan;
}

Node NodeFrom(const Detection& d, const Node& owner) {
  Node n;
  n.role = d.role;
  n.name = d.name;
  n.value = d.value;
  n.bounds = d.bounds;
  n.source = d.source;
  n.confidence = d.confidence;
  n.app = owner.app;
  n.pid = owner.pid;
  n.states.Set(State::kShowing);
  n.states.Set(State::kVisible);
  return n;
}

// Whether `d` carries a name read as text.
bool ReadName(const Detection& d, const MergeOptions& options) {
  return !d.name.empty() && d.name_confidence >= options.min_name_confidence;
}

// Fills what `element` lacks from `d`; returns whether its name was filled.
bool Fill(Node& element, const Detection& d, const MergeOptions& options, MergeStats& stats) {
  bool filled = false;
  bool named = false;
  if (!element.Has(State::kPassword)) {
    if (element.name.empty() && ReadName(d, options)) {
      element.name = d.name;
      filled = named = true;
    }
    if (element.value.empty() && !d.value.empty()) {
      element.value = d.value;
      filled = true;
    }
  }
  if (filled) element.confidence = d.confidence;
  if (element.source == Source::kAx) {
    element.source = Source::kMerged;
    ++stats.merged;
  }
  if (named) ++stats.named;
  return named;
}

bool ReadingOrder(const Detection* a, const Detection* b) {
  if (a->bounds.y != b->bounds.y) return a->bounds.y < b->bounds.y;
  return a->bounds.x < b->bounds.x;
}

void Append(Node& parent, std::vector<const Detection*> detections, MergeStats& stats) {
  std::stable_sort(detections.begin(), detections.end(), ReadingOrder);
  for (const Detection* d : detections) {
    parent.children.push_back(NodeFrom(*d, parent));
    ++stats.added;
  }
}

}  // namespace

bool IsContainerRole(Role role) {
  switch (role) {
    case Role::kUnknown:
    case Role::kApplication:
    case Role::kWindow:
    case Role::kDialog:
    case Role::kAlert:
    case Role::kPanel:
    case Role::kGroup:
    case Role::kScrollPane:
    case Role::kSplitPane:
    case Role::kList:
    case Role::kTable:
    case Role::kTableRow:
    case Role::kTree:
    case Role::kMenuBar:
    case Role::kTabList:
    case Role::kTabPanel:
    case Role::kToolBar:
    case Role::kDocument:
    case Role::kCanvas:
    case Role::kTerminal:
      return true;
    default:
      return false;
  }
}

bool IsMergeElement(const Node& node) {
  if (!HasBounds(node)) return false;
  if (IsInteractiveRole(node.role)) return true;
  return node.children.empty() && !IsContainerRole(node.role);
}

bool ShowsText(const Node& in, std::string_view text) {
  const std::string folded = FoldText(text);
  if (folded.empty()) return true;
  for (const std::string* shown : {&in.name, &in.value}) {
    const std::string f = FoldText(*shown);
    const size_t at = f.find(folded);
    if (at == std::string::npos) continue;
    // Whole words only: "in" is not shown by "Login".
    const size_t end = at + folded.size();
    if ((at == 0 || f[at - 1] == ' ') && (end == f.size() || f[end] == ' ')) return true;
  }
  return false;
}

std::vector<PlannedDetection> PlanMerge(const Node& scope, std::span<const Detection> detections,
                                        const MergeOptions& options) {
  const ScopeIndex index = IndexScope(scope);
  return MakePlan(index, detections, options).entries;
}

MergeStats MergeDetections(Node& scope, std::span<const Detection> detections,
                           const MergeOptions& options) {
  MergeStats stats;
  const ScopeIndex index = IndexScope(scope);
  const Plan plan = MakePlan(index, detections, options);

  // Paths stay valid while nodes are filled and children appended at the
  // end, because no index on any path changes; every change below is one of
  // those two.
  for (size_t e = 0; e < index.elements.size(); ++e) {
    if (plan.matched_by[e] < 0) continue;
    ++stats.matched;
    Fill(*Resolve(scope, index.elements[e].path),
         detections[static_cast<size_t>(plan.matched_by[e])], options, stats);
  }
  for (const PlannedDetection& p : plan.entries) {
    if (p.placement == Placement::kDuplicate) ++stats.duplicates;
  }

  for (const auto& [e, members] : plan.parts) {
    Node& element = *Resolve(scope, index.elements[e].path);
    std::vector<const Detection*> kept;
    int named_parts = 0;
    const Detection* only_named = nullptr;
    for (int d : members) {
      if (ReadName(detections[static_cast<size_t>(d)], options)) {
        ++named_parts;
        only_named = &detections[static_cast<size_t>(d)];
      }
    }
    const Detection* naming = nullptr;
    if (named_parts == 1 && element.name.empty() && !element.Has(State::kPassword)) {
      naming = only_named;
      Detection as_name = *naming;
      as_name.value.clear();
      Fill(element, as_name, options, stats);
    }
    for (int d : members) {
      const Detection& part = detections[static_cast<size_t>(d)];
      if (&part == naming) continue;
      // Password fields keep nothing: whatever was read there is not for the tree.
      // A widget seen inside an interactive element other than a row or cell
      // is a piece of it (a combo box's arrow, a spin button's steppers):
      // acting on it is acting on the element.
      const bool piece = part.source == Source::kVision && index.elements[e].interactive &&
                         !index.elements[e].item;
      if (element.Has(State::kPassword) || piece || !ReadName(part, options) ||
          ShowsText(element, part.name)) {
        ++stats.duplicates;
        continue;
      }
      kept.push_back(&part);
    }
    Append(element, std::move(kept), stats);
  }

  std::map<int, std::vector<const Detection*>> orphans;  // container index -> detections
  for (size_t d = 0; d < detections.size(); ++d) {
    if (plan.entries[d].placement == Placement::kOrphan) {
      orphans[plan.container_of[d]].push_back(&detections[d]);
    }
  }
  for (auto& [c, members] : orphans) {
    Node& parent = c < 0 ? scope : *Resolve(scope, index.containers[static_cast<size_t>(c)].path);
    Append(parent, std::move(members), stats);
  }
  return stats;
}

}  // namespace uiscope
