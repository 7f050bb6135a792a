#include "core/label_names.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>

namespace uiscope {
namespace {

// How far a label may sit from its field. A form's label column is as wide
// as its longest label, so a short label on the left may be far from its
// field; a label above a field sits just over it.
constexpr int kMaxLeftGap = 320;
constexpr int kMinAboveGap = 32;
// Pixels a label may overlap its field, or stand out of line with it: the
// boxes of a GTK label and the entry beside it touch or overlap by a pixel.
constexpr int kSlack = 4;
constexpr int kAlignSlack = 16;
// How deep below the container labels and controls are looked for: a row's
// label may be wrapped in a box or two.
constexpr int kMaxSearchDepth = 3;

bool IsLabelCandidate(const Node& n) {
  return (n.role == Role::kLabel || n.role == Role::kText) && n.children.empty() &&
         !n.name.empty() && n.bounds && !n.bounds->Empty();
}

bool IsUnnamedField(const Node& n) {
  return IsLabelNamedRole(n.role) && n.name.empty() && n.bounds && !n.bounds->Empty();
}

// What lies in a container, down to kMaxSearchDepth through layout boxes:
// labels, and the controls that may stand between a label and a field.
// Controls, windows and documents are not entered: their labels are theirs.
struct Contents {
  std::vector<Node*> labels;
  std::vector<const Node*> controls;
};

void Collect(Node& n, int depth, Contents& out) {
  for (Node& c : n.children) {
    if (IsLabelCandidate(c)) {
      out.labels.push_back(&c);
      continue;
    }
    if (IsInteractiveRole(c.role) || IsLabelNamedRole(c.role)) {
      if (c.bounds && !c.bounds->Empty()) out.controls.push_back(&c);
      continue;
    }
    if (IsWindowRole(c.role) || c.role == Role::kDocument || depth >= kMaxSearchDepth) continue;
    Collect(c, depth + 1, out);
  }
}

int VerticalOverlap(const Rect& a, const Rect& b) {
  return std::min(a.Bottom(), b.Bottom()) - std::max(a.y, b.y);
}
int HorizontalOverlap(const Rect& a, const Rect& b) {
  return std::min(a.Right(), b.Right()) - std::max(a.x, b.x);
}

// One way a label may name a field: on its left (kind 0) or above it (kind
// 1), `gap` pixels away. Left is preferred, then the nearest.
struct Claim {
  int kind = 0;
  int gap = 0;
  Node* field = nullptr;
  Node* label = nullptr;
  auto Key() const { return std::tie(kind, gap); }
};

// Whether a control other than `field` lies between the label and it.
bool Blocked(const Rect& label, const Rect& field, int kind, const Node* self,
             const std::vector<const Node*>& controls) {
  for (const Node* c : controls) {
    if (c == self) continue;
    const Rect& b = *c->bounds;
    if (kind == 0) {
      if (VerticalOverlap(b, field) > 0 && b.Center().x > label.Right() &&
          b.Center().x < field.x) {
        return true;
      }
    } else if (HorizontalOverlap(b, field) > 0 && b.Center().y > label.Bottom() &&
               b.Center().y < field.y) {
      return true;
    }
  }
  return false;
}

std::optional<Claim> ClaimOf(Node& field, Node& label, const std::vector<const Node*>& controls) {
  const Rect& f = *field.bounds;
  const Rect& l = *label.bounds;
  const int row_overlap = VerticalOverlap(l, f);
  const bool same_row = row_overlap > 0 && (row_overlap * 2 >= std::min(l.h, f.h) ||
                                            (l.Center().y >= f.y && l.Center().y < f.Bottom()));
  if (same_row && l.Right() <= f.x + kSlack && f.x - l.Right() <= kMaxLeftGap) {
    if (!Blocked(l, f, 0, &field, controls)) {
      return Claim{0, std::max(0, f.x - l.Right()), &field, &label};
    }
  }
  const int max_above = std::max(kMinAboveGap, f.h);
  const bool aligned = l.x >= f.x - kAlignSlack && l.x < f.x + std::max(kAlignSlack, f.w / 2);
  if (aligned && l.Bottom() <= f.y + kSlack && f.y - l.Bottom() <= max_above) {
    if (!Blocked(l, f, 1, &field, controls)) {
      return Claim{1, std::max(0, f.y - l.Bottom()), &field, &label};
    }
  }
  return std::nullopt;
}

// Names the unnamed fields among `container`'s children by the labels in
// `scope` (the container itself or its parent). `used`: labels that named a
// field already.
void NameIn(Node& container, Node& scope, std::set<const Node*>& used) {
  std::vector<Node*> fields;
  for (Node& c : container.children) {
    if (IsUnnamedField(c)) fields.push_back(&c);
  }
  if (fields.empty()) return;
  Contents contents;
  Collect(scope, 0, contents);
  // A label that repeats the name of a named field there is that field's.
  std::set<std::string> taken;
  for (const Node* c : contents.controls) {
    if (IsLabelNamedRole(c->role) && !c->name.empty()) taken.insert(NameFromLabelText(c->name));
  }
  std::vector<Claim> claims;
  for (Node* field : fields) {
    for (Node* label : contents.labels) {
      if (used.count(label) || taken.count(NameFromLabelText(label->name))) continue;
      if (auto claim = ClaimOf(*field, *label, contents.controls)) claims.push_back(*claim);
    }
  }
  std::stable_sort(claims.begin(), claims.end(),
                   [](const Claim& a, const Claim& b) { return a.Key() < b.Key(); });
  for (const Claim& claim : claims) {
    if (!claim.field->name.empty() || used.count(claim.label)) continue;
    std::string name = NameFromLabelText(claim.label->name);
    if (name.empty()) continue;
    claim.field->name = std::move(name);
    claim.field->name_from = NameFrom::kLabel;
    used.insert(claim.label);
  }
}

// The container around `node` (its ancestors, root first): its parent, or
// above wrappers that hold nothing else, the first ancestor that does — a
// Swing text area sits in a viewport in a scroll pane, and its label beside
// the scroll pane. Never past a window, nor past a control: what is inside
// a control (a spin button's own entry) is its part, not a field of the form.
Node* Around(const std::vector<Node*>& ancestors) {
  for (size_t i = ancestors.size(); i-- > 0;) {
    Node* a = ancestors[i];
    if (i == 0 || a->children.size() > 1 || IsWindowRole(a->role) || IsInteractiveRole(a->role) ||
        IsLabelNamedRole(a->role)) {
      return a;
    }
  }
  return nullptr;
}

void Visit(Node& node, std::vector<Node*>& ancestors, std::set<const Node*>& used) {
  if (node.children.empty()) return;
  ancestors.push_back(&node);
  for (Node& c : node.children) Visit(c, ancestors, used);
  ancestors.pop_back();
  NameIn(node, node, used);
  if (Node* scope = Around(ancestors)) NameIn(node, *scope, used);
}

}  // namespace

bool IsLabelNamedRole(Role role) {
  return role == Role::kTextField || role == Role::kTextArea || role == Role::kComboBox ||
         role == Role::kSpinButton || role == Role::kSlider;
}

std::string NameFromLabelText(std::string_view label) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!label.empty() && is_space(label.front())) label.remove_prefix(1);
  while (!label.empty() && is_space(label.back())) label.remove_suffix(1);
  if (label.ends_with(':')) {
    label.remove_suffix(1);
  } else if (label.ends_with("\xEF\xBC\x9A")) {  // U+FF1A FULLWIDTH COLON (CJK labels)
    label.remove_suffix(3);
  }
  while (!label.empty() && is_space(label.back())) label.remove_suffix(1);
  return std::string(label);
}

void NameFieldsByLabels(std::vector<Node>& roots) {
  std::set<const Node*> used;
  std::vector<Node*> ancestors;
  for (Node& root : roots) Visit(root, ancestors, used);
}

}  // namespace uiscope
