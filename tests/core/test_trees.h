// Test-only helpers to write node trees as nested expressions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/node.h"

namespace uiscope::testing {

inline Node MakeNode(Role role, std::string name = "", std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.children = std::move(children);
  n.states.Set(State::kEnabled);
  n.states.Set(State::kShowing);
  return n;
}

// IDs in preorder, for comparing whole trees.
inline std::vector<std::string> CollectIds(const std::vector<Node>& roots) {
  std::vector<std::string> ids;
  ForEachNode(roots, [&](const Node& n, int) { ids.push_back(n.id); });
  return ids;
}

}  // namespace uiscope::testing
