#include "core/id_anchors.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace uiscope {

const IdAnchor* IdAnchors::Find(const BackendRef& ref) const {
  auto app = apps.find(ref.owner);
  if (app == apps.end()) return nullptr;
  auto it = app->second.by_path.find(ref.path);
  return it == app->second.by_path.end() ? nullptr : &it->second;
}

void IdAnchors::Trim(AppAnchors& app, size_t max) {
  if (app.by_path.size() <= max) return;
  std::vector<std::pair<uint64_t, const std::string*>> order;
  order.reserve(app.by_path.size());
  for (const auto& [path, anchor] : app.by_path) order.emplace_back(anchor.seen, &path);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, *a.second) < std::tie(b.first, *b.second);
  });
  std::vector<std::string> drop;
  for (size_t i = 0; i < order.size() - max; ++i) drop.push_back(*order[i].second);
  for (const std::string& path : drop) app.by_path.erase(path);
}

}  // namespace uiscope
