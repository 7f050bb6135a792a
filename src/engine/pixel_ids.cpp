#include "engine/pixel_ids.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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
                          {"ids", std::move(ids)}});
  while (observations.size() > kKept) observations.erase(observations.begin());
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(file_).parent_path(), ec);
  // Written aside and renamed, so a reader never sees half a file.
  const std::string tmp = file_ + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << json{{"observations", std::move(observations)}}.dump(-1, ' ', false,
                                                                json::error_handler_t::replace);
    if (!out) {
      std::remove(tmp.c_str());
      return;
    }
  }
  ::chmod(tmp.c_str(), 0600);
  if (std::rename(tmp.c_str(), file_.c_str()) != 0) std::remove(tmp.c_str());
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
