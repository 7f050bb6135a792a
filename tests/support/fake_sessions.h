// FakeSessions (tests and fuzzing): a SessionControl that keeps sessions in
// memory and starts nothing.
#pragma once

#include <string>
#include <vector>

#include "session/sessions.h"

namespace uiscope::test {

class FakeSessions final : public SessionControl {
 public:
  Result<DesktopInfo> Start(const DesktopOptions& options) override {
    DesktopInfo info;
    info.display = next_display_++;
    // std::string(...) first: GCC 12 warns (-Wrestrict, falsely) on "x" + string.
    info.id = std::string("s") + std::to_string(info.display);
    info.display_name = std::string(":") + std::to_string(info.display);
    info.dbus_address = "unix:path=/nonexistent/bus-" + info.id;
    info.runtime_dir = "/nonexistent/" + info.id;
    info.width = options.width;
    info.height = options.height;
    info.alive = true;
    sessions_.push_back(info);
    return info;
  }
  Result<std::vector<DesktopInfo>> List() override { return sessions_; }
  // Nothing runs to be asked: each is as Start left it, with no apps.
  std::vector<SessionHealth> Probe(const std::vector<DesktopInfo>& sessions) override {
    std::vector<SessionHealth> out;
    for (const DesktopInfo& s : sessions) {
      SessionHealth h;
      h.health = "connected";
      h.width = s.width;
      h.height = s.height;
      out.push_back(h);
    }
    return out;
  }
  Status Stop(const std::string& id) override {
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->id == id) {
        sessions_.erase(it);
        return OkStatus();
      }
    }
    return MakeError(ErrorCode::kNotFound, "no session \"" + id + "\"");
  }

 private:
  int next_display_ = 90;
  std::vector<DesktopInfo> sessions_;
};

}  // namespace uiscope::test
