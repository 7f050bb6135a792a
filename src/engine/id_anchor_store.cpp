#include "engine/id_anchor_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/private_file.h"
#include "session/headless_desktop.h"

namespace uiscope {
namespace {

using nlohmann::json;

// Version 2 added each anchor's origin (IdAnchor::origin); version 1 files
// still load, their origins taken to be their hashes.
constexpr int kFormatVersion = 2;
constexpr int kFormatWithoutOrigins = 1;
constexpr char kSuffix[] = ".json";

std::string FileName(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

bool StatFile(const std::string& path, long long& mtime_ns, long long& size,
              unsigned long long& inode) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  size = static_cast<long long>(st.st_size);
  inode = static_cast<unsigned long long>(st.st_ino);
  return true;
}

// Parses a file's anchors; an error message when it is not one of ours.
Result<AppAnchors> ParseAnchors(const json& j, const AnchoredApp& app, bool* foreign) {
  *foreign = false;
  const int version = j.is_object() ? j.value("version", 0) : 0;
  if ((version != kFormatVersion && version != kFormatWithoutOrigins) || !j.contains("anchors") ||
      !j["anchors"].is_array()) {
    return MakeError(ErrorCode::kInvalidArgument, "not an ID anchor file of this version");
  }
  const bool origins = version == kFormatVersion;
  if (j.value("owner", "") != app.owner || j.value("pid", -1) != app.pid ||
      j.value("app", "") != app.name) {
    *foreign = true;  // an earlier bus's app that had the same bus name
    return MakeError(ErrorCode::kStale, "another application's anchors");
  }
  AppAnchors out;
  out.clock = j.value("clock", uint64_t{0});
  // Fields after the hash: version 1 has no origin.
  const size_t o = origins ? 1 : 0;
  for (const json& a : j["anchors"]) {
    // Eight fields (seven in version 1), one more with a table cell's address.
    if (!a.is_array() || (a.size() != 7 + o && a.size() != 8 + o) || !a[0].is_string() ||
        !a[1].is_string() || !a[2].is_string() || !a[3].is_number_unsigned() ||
        !a[4].is_number_unsigned() || !a[4 + o].is_number_unsigned() || !a[5 + o].is_string() ||
        !a[6 + o].is_number_integer() || (a.size() == 8 + o && !a[7 + o].is_string())) {
      return MakeError(ErrorCode::kInvalidArgument, "malformed anchor " + a.dump());
    }
    const Role role = RoleFromName(a[2].get<std::string>());
    const uint64_t hash = a[3].get<uint64_t>();
    IdAnchor anchor{a[1].get<std::string>(),
                    role,
                    hash,
                    origins ? a[4].get<uint64_t>() : hash,
                    a[4 + o].get<uint64_t>(),
                    a[5 + o].get<std::string>(),
                    a[6 + o].get<int>(),
                    a.size() == 8 + o ? a[7 + o].get<std::string>() : std::string()};
    out.by_path.emplace(a[0].get<std::string>(), std::move(anchor));
  }
  IdAnchors::Trim(out);
  return out;
}

}  // namespace

std::string IdAnchorStore::DirFor(const std::string& display) {
  return SessionStateDir() + "/ids/" + FileName(display.empty() ? "default" : display);
}

std::string IdAnchorStore::PathFor(const std::string& owner) const {
  return dir_ + "/" + FileName(owner) + kSuffix;
}

void IdAnchorStore::Load(const AnchoredApp& app, IdAnchors& anchors,
                         std::vector<std::string>& warnings) {
  const std::string path = PathFor(app.owner);
  Stamp stamp;
  if (!StatFile(path, stamp.mtime_ns, stamp.size, stamp.inode)) return;
  if (auto it = stamps_.find(app.owner); it != stamps_.end() && it->second == stamp) return;
  stamps_[app.owner] = stamp;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  bool foreign = false;
  auto parsed = j.is_discarded()
                    ? Result<AppAnchors>(MakeError(ErrorCode::kInvalidArgument, "not JSON"))
                    : ParseAnchors(j, app, &foreign);
  if (parsed.ok()) {
    anchors.apps[app.owner] = std::move(parsed).value();
  } else if (!foreign) {
    warnings.push_back("ignored the ID anchors of " + app.name + " in " + path + " (" +
                       parsed.error().message +
                       "): its elements may get other IDs than earlier calls printed");
  }
}

Status IdAnchorStore::Save(const AnchoredApp& app, const AppAnchors& anchors) {
  json list = json::array();
  for (const auto& [path, a] : anchors.by_path) {
    json entry = json::array(
        {path, a.id, RoleName(a.role), a.hash, a.origin, a.seen, a.parent, a.shown_index});
    if (!a.cell.empty()) entry.push_back(a.cell);
    list.push_back(std::move(entry));
  }
  // Each anchor: [path, id, role, identity hash, origin, seen, parent path,
  // shown index] and, for a table cell, its address.
  const json j = {{"version", kFormatVersion}, {"owner", app.owner},
                  {"app", app.name},           {"pid", app.pid},
                  {"clock", anchors.clock},    {"anchors", list}};
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string path = PathFor(app.owner);
  if (auto st = WritePrivateFile(path, text, "the ID anchors"); !st.ok()) return st;
  Stamp stamp;
  if (StatFile(path, stamp.mtime_ns, stamp.size, stamp.inode)) stamps_[app.owner] = stamp;
  return OkStatus();
}

// The anchor files of bus names not in `alive` (temporaries of a save in
// progress are the saver's to rename, so they are not listed).
static std::vector<std::filesystem::path> FilesOfOthers(const std::string& dir,
                                                        const std::set<std::string>& alive) {
  std::set<std::string> keep;
  for (const std::string& owner : alive) keep.insert(FileName(owner) + kSuffix);
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= sizeof(kSuffix) - 1 ||
        name.compare(name.size() - (sizeof(kSuffix) - 1), std::string::npos, kSuffix) != 0) {
      continue;
    }
    if (!keep.contains(name)) out.push_back(entry.path());
  }
  return out;
}

bool IdAnchorStore::HoldsOthers(const std::set<std::string>& alive) const {
  return !FilesOfOthers(dir_, alive).empty();
}

void IdAnchorStore::Forget(const std::set<std::string>& alive) {
  std::error_code ec;
  for (const auto& path : FilesOfOthers(dir_, alive)) std::filesystem::remove(path, ec);
  std::erase_if(stamps_, [&](const auto& kv) { return !alive.contains(kv.first); });
}

}  // namespace uiscope
