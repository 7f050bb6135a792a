// Finding elements in a snapshot by name and role (`uiscope find`, the MCP
// `find` tool). Text matching only for now; fuzzy and visual matching come
// with the vision pipeline (DESIGN §5).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct FindQuery {
  std::string name;          // substring of the name, case-insensitive ("" = any name)
  std::optional<Role> role;  // only this role
  bool exact = false;        // the whole name, case-sensitive
  int limit = 20;            // at most this many matches (0 = all)
};

struct FindResult {
  // Best first: whole names, then prefixes, then the rest; within each,
  // interactive elements (buttons, fields, items) before the others, then
  // reading (preorder) order.
  std::vector<const Node*> matches;
  int total = 0;     // matches before the limit
  int searched = 0;  // nodes looked at
};

// InvalidArgument when the query has neither a name nor a role. The pointers
// point into `roots` and live as long as it.
Result<FindResult> FindNodes(const std::vector<Node>& roots, const FindQuery& query);

// {"matches": [node objects without children], "total", "searched"}: the
// part of `uiscope find --json` and the MCP find tool's result they share.
nlohmann::json FindResultToJson(const FindResult& result);

// "button" -> Role::kButton; InvalidArgument listing the role names otherwise.
Result<Role> ParseRole(std::string_view name);

}  // namespace uiscope
