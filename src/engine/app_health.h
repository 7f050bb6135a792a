// AppHealth: the circuit breaker for applications that stop answering
// (issue 15 §3). An app that let its deadline pass in one observation is
// remembered here; before the next walk it is probed with one cheap request
// (Accessibility::Probe, kProbeTimeout) and, while it stays silent, skipped
// at once — the caller shows its windows from X11 and names it in a warning
// ("not answering since 20:31:05 UTC"). When it answers it is cleared and
// walked as before.
//
// Records are keyed by the app's unique bus name and pid; the file, when
// there is one, by display (AppHealthFile), so that CLI calls — each a new
// process — share what the previous one learnt. A record nobody probed for
// kForgetAfter is dropped: the file is a short memory, not a registry.
//
// Not thread-safe: owned by one Observer.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "platform/accessibility.h"

namespace uiscope {

class AppHealth {
 public:
  using WallClock = std::chrono::system_clock;
  // How long a probe waits for an answer: an app that runs answers its
  // name in a few milliseconds; this is the whole cost of a skipped app.
  static constexpr std::chrono::milliseconds kProbeTimeout{150};
  static constexpr std::chrono::minutes kForgetAfter{10};

  struct Record {
    AppInfo app;
    WallClock::time_point since;    // when it first missed a deadline
    WallClock::time_point checked;  // when it was last found silent
  };

  // In memory only when `file` is empty.
  explicit AppHealth(std::string file = {}) : file_(std::move(file)) {}

  // Re-reads the file (what other processes recorded since), dropping
  // records not checked within kForgetAfter of `now`. No-op without a file.
  void Load(WallClock::time_point now);
  // Writes the records when they changed since Load; an unwritable file
  // only loses the memory between processes.
  void Save();

  // `app` missed its deadline: remembered (the first time's `since` kept).
  void Trip(const AppInfo& app, WallClock::time_point now);
  // The app with this bus name (or, when empty, pid) answered or is gone.
  void Clear(const std::string& bus_name, int pid);

  // Probes the records `which` selects (all by default) with
  // `accessibility`, in one round waiting `timeout` at most, and returns
  // those still silent; those that answer or have gone are cleared. With no
  // time to probe (timeout <= 0) the selected records are returned as they
  // are: still silent as far as anyone knows.
  std::vector<Record> ProbeTripped(Accessibility& accessibility, WallClock::time_point now,
                                   std::chrono::milliseconds timeout = kProbeTimeout,
                                   const std::function<bool(const AppInfo&)>& which = {});

  const std::vector<Record>& records() const { return records_; }

 private:
  std::string file_;
  std::vector<Record> records_;
  bool dirty_ = false;
};

// The breaker's file for display `display` (":3") in state directory `dir`.
std::string AppHealthFile(const std::string& dir, const std::string& display);

// "since 20:31:05 UTC (12 s ago)", for warnings.
std::string DescribeSince(AppHealth::WallClock::time_point since,
                          AppHealth::WallClock::time_point now);

}  // namespace uiscope
