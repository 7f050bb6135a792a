#include "engine/pixel_ids.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/private_file.h"

namespace uiscope {
namespace {

using nlohmann::json;

json Read(const std::string& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  // Another process's file: anything unreadable is as good as none.
  try {
    json j = json::parse(ss.str());
    if (j.is_object() && j.contains("observations") && j["observations"].is_array()) return j;
  } catch (const json::exception&) {
  }
  return json::object();
}

}  // namespace

void PixelIds::Remember(const std::vector<Node>& roots, const PixelIdOrigin& origin) {
  json ids = json::array();
  ForEachNode(roots, [&](const Node& n, int) {
    // Merged nodes are accessible ones: any observation finds them.
    if ((n.source == Source::kOcr || n.source == Source::kVision) && !n.id.empty()) {
      ids.push_back(n.id);
    }
  });
  if (ids.empty() || file_.empty()) return;
  json j = Read(file_);
  json observations = j.value("observations", json::array());
  observations.push_back({{"ocr", origin.ocr},
                          {"vision", origin.vision},
                          {"app", origin.app},
                          {"pid", origin.pid},
                          {"ax", origin.ax},
                          {"ids", std::move(ids)}});
  while (observations.size() > kKept) observations.erase(observations.begin());
  // Unwritable: an OCR or vision ID is then found only within this process.
  (void)WritePrivateFile(file_,
                         json{{"observations", std::move(observations)}}.dump(
                             -1, ' ', false, json::error_handler_t::replace),
                         "the pixel IDs");
}

std::optional<PixelIdOrigin> PixelIds::Lookup(const std::string& id) const {
  if (file_.empty()) return std::nullopt;
  const json j = Read(file_);
  if (!j.contains("observations")) return std::nullopt;
  const json& observations = j["observations"];
  for (auto it = observations.rbegin(); it != observations.rend(); ++it) {
    const json& ids = (*it)["ids"];
    if (!ids.is_array()) continue;
    for (const json& known : ids) {
      if (!known.is_string() || known.get<std::string>() != id) continue;
      PixelIdOrigin origin;
      origin.ocr = it->value("ocr", false);
      origin.vision = it->value("vision", false);
      origin.app = it->value("app", "");
      origin.pid = it->value("pid", 0);
      origin.ax = it->value("ax", true);
      return origin;
    }
  }
  return std::nullopt;
}

std::string PixelIdsFile(const std::string& dir, const std::string& display) {
  std::string key;
  for (char c : display) key += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // A folder of its own: the state dir's top level is the session registry.
  return dir + "/pixel-ids/" + key + ".json";
}

}  // namespace uiscope
