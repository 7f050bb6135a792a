#include "core/top_levels.h"

namespace uiscope {

void NormaliseTopLevels(Node& app, const std::function<XWindowKind(const Node&)>& x_kind) {
  if (app.role != Role::kApplication) return;
  for (Node& top : app.children) {
    if (top.role == Role::kPanel || top.role == Role::kUnknown) top.role = Role::kWindow;
    if (top.role != Role::kWindow) continue;
    if (top.Has(State::kModal) || (x_kind && x_kind(top) == XWindowKind::kDialog)) {
      top.role = Role::kDialog;
    }
  }
}

}  // namespace uiscope
