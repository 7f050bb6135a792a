#include "engine/app_health.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/private_file.h"

namespace uiscope {
namespace {

using nlohmann::json;

int64_t ToMs(AppHealth::WallClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
AppHealth::WallClock::time_point FromMs(int64_t ms) {
  return AppHealth::WallClock::time_point(std::chrono::milliseconds(ms));
}

bool SameApp(const AppInfo& a, const std::string& bus_name, int pid) {
  if (!bus_name.empty()) return a.bus_name == bus_name;
  return pid > 0 && a.pid == pid;
}

}  // namespace

void AppHealth::Load(WallClock::time_point now) {
  if (file_.empty()) return;
  std::ifstream in(file_);
  std::vector<Record> loaded;
  if (in) {
    std::stringstream ss;
    ss << in.rdbuf();
    // Another process's file: anything unreadable is as good as no memory.
    try {
      const json j = json::parse(ss.str());
      for (const json& r : j.value("apps", json::array())) {
        Record rec;
        rec.app.name = r.value("name", "");
        rec.app.pid = r.value("pid", 0);
        rec.app.bus_name = r.value("bus_name", "");
        rec.app.toolkit = r.value("toolkit", "");
        rec.since = FromMs(r.value("since_ms", int64_t{0}));
        rec.checked = FromMs(r.value("checked_ms", int64_t{0}));
        if (rec.app.bus_name.empty() || now - rec.checked > kForgetAfter) continue;
        // Its process gone (a desktop stopped and another started on the
        // same display reuses bus names): the record names nothing.
        if (rec.app.pid > 0 && ::kill(rec.app.pid, 0) != 0 && errno == ESRCH) continue;
        loaded.push_back(std::move(rec));
      }
    } catch (const json::exception&) {
      loaded.clear();
    }
  }
  dirty_ = false;
  records_ = std::move(loaded);
}

void AppHealth::Save() {
  if (file_.empty() || !dirty_) return;
  json apps = json::array();
  for (const Record& r : records_) {
    apps.push_back({{"name", r.app.name},
                    {"pid", r.app.pid},
                    {"bus_name", r.app.bus_name},
                    {"toolkit", r.app.toolkit},
                    {"since_ms", ToMs(r.since)},
                    {"checked_ms", ToMs(r.checked)}});
  }
  // Unwritable: the breaker still works within this process, and the next
  // Save tries again.
  if (WritePrivateFile(
          file_,
          json{{"apps", std::move(apps)}}.dump(-1, ' ', false, json::error_handler_t::replace),
          "the apps not answering")
          .ok()) {
    dirty_ = false;
  }
}

void AppHealth::Trip(const AppInfo& app, WallClock::time_point now) {
  if (app.bus_name.empty() && app.pid <= 0) return;
  for (Record& r : records_) {
    if (SameApp(r.app, app.bus_name, app.pid)) {
      r.checked = now;
      if (r.app.name.empty()) r.app.name = app.name;
      dirty_ = true;
      return;
    }
  }
  records_.push_back(Record{app, now, now});
  dirty_ = true;
}

void AppHealth::Clear(const std::string& bus_name, int pid) {
  const size_t erased =
      std::erase_if(records_, [&](const Record& r) { return SameApp(r.app, bus_name, pid); });
  dirty_ = dirty_ || erased > 0;
}

std::vector<AppHealth::Record> AppHealth::ProbeTripped(
    Accessibility& accessibility, WallClock::time_point now, std::chrono::milliseconds timeout,
    const std::function<bool(const AppInfo&)>& which) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < records_.size(); ++i) {
    if (!which || which(records_[i].app)) selected.push_back(i);
  }
  if (selected.empty()) return {};
  std::vector<Record> silent;
  if (timeout.count() <= 0) {
    for (size_t i : selected) silent.push_back(records_[i]);
    return silent;
  }
  std::vector<AppInfo> apps;
  for (size_t i : selected) apps.push_back(records_[i].app);
  const std::vector<Accessibility::Liveness> alive = accessibility.Probe(apps, timeout);
  std::vector<bool> drop(records_.size(), false);
  for (size_t k = 0; k < selected.size(); ++k) {
    Record& r = records_[selected[k]];
    dirty_ = true;
    if (k < alive.size() && alive[k] != Accessibility::Liveness::kSilent) {
      drop[selected[k]] = true;
      continue;
    }
    r.checked = now;
    silent.push_back(r);
  }
  std::vector<Record> kept;
  for (size_t i = 0; i < records_.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(records_[i]));
  }
  records_ = std::move(kept);
  return silent;
}

std::string AppHealthFile(const std::string& dir, const std::string& display) {
  std::string key;
  for (char c : display) key += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // A folder of its own: the state dir's top level is the session registry.
  return dir + "/not-answering/" + key + ".json";
}

std::string DescribeSince(AppHealth::WallClock::time_point since,
                          AppHealth::WallClock::time_point now) {
  const std::time_t t = AppHealth::WallClock::to_time_t(since);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char clock[16];
  std::strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
  const auto ago = std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
  return std::string("since ") + clock + " UTC (" + std::to_string(std::max<int64_t>(0, ago)) +
         " s ago)";
}

}  // namespace uiscope
