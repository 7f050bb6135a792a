#include "engine/observe_diff.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/private_file.h"
#include "session/headless_desktop.h"

namespace uiscope {
namespace {

using nlohmann::json;

std::string SafeName(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace

Result<DiffObservation> DiffObservations(const Snapshot& current, const Snapshot* previous,
                                         const FormatOptions& baseline_page, int max_lines) {
  DiffObservation d;
  if (previous == nullptr) {
    d.baseline = true;
    FormatOptions page = baseline_page;
    page.format = Format::kCompact;
    auto out = FormatSnapshot(current, page);
    if (!out.ok()) return out.error();
    d.text = out->text;
    d.lines = out->nodes_emitted;
    d.truncated = out->truncated;
    return d;
  }
  d.diff = DiffTrees(previous->roots, current.roots);
  d.text = FormatDiff(d.diff, max_lines);
  const int entries =
      static_cast<int>(d.diff.added.size() + d.diff.removed.size() + d.diff.changed.size());
  d.lines = max_lines > 0 ? std::min(entries, max_lines) : entries;
  d.truncated = max_lines > 0 && entries > max_lines;
  return d;
}

std::string BaselinePath(const std::string& display, const std::string& runtime_dir,
                         const std::string& scope) {
  const std::string dir = runtime_dir.empty() ? SessionStateDir() + "/observations" : runtime_dir;
  return dir + "/observe-baseline-" + SafeName(display) + "-" + SafeName(scope) + ".json";
}

std::optional<Snapshot> LoadBaseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto roots = NodesFromJson(j.value("nodes", json::array()));
  if (!roots.ok()) return std::nullopt;
  Snapshot s;
  s.roots = std::move(roots).value();
  s.frame.width = j.value("width", 0);
  s.frame.height = j.value("height", 0);
  return s;
}

Status SaveBaseline(const std::string& path, const Snapshot& snapshot) {
  json nodes = json::array();
  for (const Node& n : snapshot.roots) nodes.push_back(NodeToJson(n, true));
  const json j = {{"width", snapshot.frame.width},
                  {"height", snapshot.frame.height},
                  {"nodes", std::move(nodes)}};
  return WritePrivateFile(path, j.dump(-1, ' ', false, json::error_handler_t::replace),
                          "the observation baseline");
}

}  // namespace uiscope
