// Queries over node trees shared by the test suites (tests only).
#pragma once

#include <string_view>
#include <vector>

#include "core/node.h"

namespace uiscope::test {

// The first node (preorder) with `role` and exactly `name`; nullptr if none.
inline const Node* FindNode(const std::vector<Node>& roots, Role role, std::string_view name) {
  const Node* found = nullptr;
  ForEachNode(roots, [&](const Node& n, int) {
    if (!found && n.role == role && n.name == name) found = &n;
  });
  return found;
}

inline int CountRole(const std::vector<Node>& roots, Role role) {
  int count = 0;
  ForEachNode(roots, [&](const Node& n, int) { count += n.role == role; });
  return count;
}

}  // namespace uiscope::test
