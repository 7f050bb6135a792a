// Queries over node trees shared by the test suites (tests only).
#pragma once

#include <string>
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

// A tree as lines, one a node in preorder: depth, role, name, value, state
// bits and bounds (-1,-1,-1,-1 without), to compare two trees node for node.
inline std::vector<std::string> TreeLines(const std::vector<Node>& roots) {
  std::vector<std::string> lines;
  ForEachNode(roots, [&](const Node& n, int depth) {
    const Rect b = n.bounds.value_or(Rect{-1, -1, -1, -1});
    lines.push_back(std::to_string(depth) + " " + std::string(RoleName(n.role)) + " \"" + n.name +
                    "\" \"" + n.value + "\" " + std::to_string(n.states.bits()) + " " +
                    std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.w) +
                    "," + std::to_string(b.h));
  });
  return lines;
}

}  // namespace uiscope::test
