#include "engine/find.h"

#include <algorithm>

#include "core/format.h"

namespace uiscope {
namespace {

// ASCII case folding: names are UTF-8, and folding only ASCII keeps every
// other byte intact, so a match never splits a character.
std::string Fold(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

Result<Role> ParseRole(std::string_view name) {
  Role role = RoleFromName(name);
  if (role != Role::kUnknown || name == "unknown") return role;
  std::string names;
  for (std::string_view n : AllRoleNames()) names += (names.empty() ? "" : ", ") + std::string(n);
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown role \"" + std::string(name) + "\" (roles: " + names + ")");
}

Result<FindResult> FindNodes(const std::vector<Node>& roots, const FindQuery& query) {
  if (query.name.empty() && !query.role) {
    return MakeError(ErrorCode::kInvalidArgument, "find needs a name, a role, or both");
  }
  const std::string needle = Fold(query.name);
  // Text rank 0: the whole name; 1: a prefix; 2: anywhere.
  std::vector<std::pair<int, const Node*>> found;
  FindResult result;
  ForEachNode(roots, [&](const Node& n, int) {
    ++result.searched;
    if (query.role && n.role != *query.role) return;
    int rank = 0;
    if (query.exact) {
      if (n.name != query.name) return;
    } else if (!needle.empty()) {
      const std::string hay = Fold(n.name);
      const size_t at = hay.find(needle);
      if (at == std::string::npos) return;
      rank = hay.size() == needle.size() ? 0 : at == 0 ? 1 : 2;
    }
    // Among equal matches, what an agent can act on comes first.
    rank = rank * 2 + (IsInteractiveRole(n.role) ? 0 : 1);
    found.emplace_back(rank, &n);
  });
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  result.total = static_cast<int>(found.size());
  const size_t keep =
      query.limit > 0 ? std::min(found.size(), static_cast<size_t>(query.limit)) : found.size();
  for (size_t i = 0; i < keep; ++i) result.matches.push_back(found[i].second);
  return result;
}

nlohmann::json FindResultToJson(const FindResult& result) {
  nlohmann::json matches = nlohmann::json::array();
  for (const Node* n : result.matches) matches.push_back(NodeToJson(*n, /*with_children=*/false));
  return {{"matches", std::move(matches)}, {"total", result.total}, {"searched", result.searched}};
}

}  // namespace uiscope
