#include "engine/label_field.h"

namespace uiscope {
namespace {

// How far from its label a field may sit: to the right in the same row, or
// below it.
constexpr int kBesideReach = 400;
constexpr int kBelowReach = 80;
// Labels and fields touch or overlap by a few pixels in some layouts.
constexpr int kTouch = 4;

}  // namespace

bool IsLabelRole(Role r) { return r == Role::kLabel || r == Role::kText; }

bool TakesText(const Node& n) {
  return n.role == Role::kTextField || n.role == Role::kTextArea || n.role == Role::kTerminal ||
         n.role == Role::kComboBox || n.role == Role::kSpinButton || n.Has(State::kEditable);
}

bool TakesValue(const Node& n) {
  return TakesText(n) || n.role == Role::kSlider || n.role == Role::kScrollBar;
}

const Node* FieldOfLabel(const std::vector<Node>& roots, const Node& label,
                         const std::function<bool(const Node&)>& usable) {
  if (!label.bounds || label.bounds->Empty()) return nullptr;
  const Rect& l = *label.bounds;
  const int middle = l.y + l.h / 2;
  const Node* beside = nullptr;
  int beside_gap = 0;
  const Node* below = nullptr;
  int below_gap = 0;
  ForEachNode(roots, [&](const Node& n, int) {
    if (&n == &label || n.pid != label.pid || n.window != label.window || !n.bounds ||
        n.bounds->Empty() || IsLabelRole(n.role) || !usable(n) ||
        (label.Has(State::kShowing) && !n.Has(State::kShowing))) {
      return;
    }
    const Rect& f = *n.bounds;
    const int right_gap = f.x - (l.x + l.w);
    if (f.y <= middle && middle < f.y + f.h && right_gap >= -kTouch && right_gap <= kBesideReach &&
        (beside == nullptr || right_gap < beside_gap)) {
      beside = &n;
      beside_gap = right_gap;
    }
    const int down_gap = f.y - (l.y + l.h);
    const bool columns_overlap = f.x < l.x + l.w && l.x < f.x + f.w;
    if (columns_overlap && down_gap >= -kTouch && down_gap <= kBelowReach &&
        (below == nullptr || down_gap < below_gap)) {
      below = &n;
      below_gap = down_gap;
    }
  });
  return beside != nullptr ? beside : below;
}

}  // namespace uiscope
