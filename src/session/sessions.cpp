#include "session/sessions.h"

#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "platform/accessibility.h"
#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_connection.h"
#include "platform/vnc/vnc_desktop.h"
#include "session/x11_probe.h"

namespace uiscope {
namespace {

class RegistrySessions final : public SessionControl {
 public:
  explicit RegistrySessions(TitleReaderFactory title_reader)
      : title_reader_(std::move(title_reader)) {}
  Result<DesktopInfo> Start(const DesktopOptions& options) override {
    auto desktop = HeadlessDesktop::Start(options);
    if (!desktop.ok()) return desktop.error();
    (*desktop)->Detach();
    return (*desktop)->info();
  }
  Result<std::vector<DesktopInfo>> List() override { return ListSessions(); }
  Status Stop(const std::string& id) override { return StopSession(id); }
  std::vector<SessionHealth> Probe(const std::vector<DesktopInfo>& sessions) override {
    return ProbeSessions(sessions, kSessionProbeDeadline, title_reader_);
  }

 private:
  TitleReaderFactory title_reader_;
};

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

SessionHealth Unreachable(std::string error) {
  SessionHealth h;
  h.health = "unreachable";
  h.error = std::move(error);
  return h;
}

// A headless X desktop: its X server answers a connection set-up (asked
// without Xlib, so a stopped server cannot hang the probe), then its
// accessibility bus lists the applications.
SessionHealth ProbeX11(const DesktopInfo& info, Clock::time_point deadline) {
  const std::string x_problem =
      x11_probe::SetupAnswerWithin(info.display_name, static_cast<int>(Left(deadline).count()));
  if (!x_problem.empty())
    return Unreachable("the X server " + info.display_name + ": " + x_problem);
  AtspiOptions options;
  options.session_bus_address = info.dbus_address;
  options.display = info.display_name;
  options.connect_timeout = Left(deadline);
  options.peer_to_peer = false;  // only the registry and each app's name are asked
  auto ax = ConnectAtspi(options);
  if (!ax.ok()) return Unreachable(ax.error().message);
  auto apps = (*ax)->ListApps();
  if (!apps.ok()) return Unreachable(apps.error().message);
  SessionHealth h;
  h.health = "connected";
  for (const AppInfo& app : *apps) h.apps.push_back(app.name);
  h.width = info.width;
  h.height = info.height;
  return h;
}

// A VNC desktop: the RFB handshake and a full frame (then `*answered`),
// then the windows found from its title bars, titled by OCR.
SessionHealth ProbeVnc(const DesktopInfo& info, Clock::time_point deadline,
                       const TitleReaderFactory& title_reader, std::atomic<bool>* answered) {
  auto address = ParseVncAddress(info.url);
  if (!address.ok()) return Unreachable(address.error().message);
  VncOptions options;
  options.password_file = info.password_file;
  options.connect_timeout = Left(deadline);
  options.read_timeout = Left(deadline);
  options.reconnect = false;
  auto desktop = OpenVncDesktop(*address, options, title_reader ? title_reader() : TitleReader());
  if (!desktop.ok()) return Unreachable(desktop.error().message);
  answered->store(true);
  auto windows = (*desktop)->windows().ListWindows();
  if (!windows.ok()) return Unreachable(windows.error().message);
  SessionHealth h;
  h.health = "connected";
  for (const WindowInfo& w : *windows) {
    if (w.id != kVncScreenWindow) h.apps.push_back(w.title);
  }
  h.width = (*desktop)->capture().screen_width();
  h.height = (*desktop)->capture().screen_height();
  return h;
}

// `*answered` is set once the desktop has answered (VNC: before its titles
// are read), so a probe cut off after that is still "connected".
SessionHealth ProbeOne(const DesktopInfo& info, std::chrono::milliseconds deadline,
                       const TitleReaderFactory& title_reader, std::atomic<bool>* answered) {
  const Clock::time_point start = Clock::now();
  SessionHealth h;
  if (info.backend == "x11" && !info.alive) {
    h.health = "stale";
    h.error = info.problem;
  } else if (!info.alive) {  // a VNC address where nothing listens
    h = Unreachable(info.problem);
  } else if (info.backend == "vnc") {
    h = ProbeVnc(info, start + deadline, title_reader, answered);
  } else {
    h = ProbeX11(info, start + deadline);
  }
  if (h.health != "connected") {
    h.width = info.width;
    h.height = info.height;
  }
  return h;
}

}  // namespace

std::vector<SessionHealth> ProbeSessions(const std::vector<DesktopInfo>& sessions,
                                         std::chrono::milliseconds deadline,
                                         const TitleReaderFactory& title_reader) {
  // The probes keep to `deadline` with their own timeouts; the grace is for
  // the work after the last answer (reading titles), past which a probe
  // counts as hung.
  const Clock::time_point until = Clock::now() + deadline + std::chrono::milliseconds(500);
  // A thread still blocked at the deadline is detached; its task's shared
  // state outlives this call.
  std::vector<std::future<SessionHealth>> results;
  std::vector<std::thread> threads;
  // Shared with the probe's thread, which may outlive this call.
  std::vector<std::shared_ptr<std::atomic<bool>>> answered;
  for (const DesktopInfo& info : sessions) {
    auto flag = std::make_shared<std::atomic<bool>>(false);
    answered.push_back(flag);
    std::packaged_task<SessionHealth()> probe([info, deadline, title_reader, flag] {
      return ProbeOne(info, deadline, title_reader, flag.get());
    });
    results.push_back(probe.get_future());
    threads.emplace_back(std::move(probe));
  }
  std::vector<SessionHealth> out;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].wait_until(until) == std::future_status::ready) {
      out.push_back(results[i].get());
      threads[i].join();
    } else {
      threads[i].detach();
      SessionHealth h;
      if (answered[i]->load()) {
        // It answered; reading what it shows took longer.
        h.health = "connected";
        h.apps_read = false;
      } else {
        h = Unreachable("no answer within " + std::to_string(deadline.count()) +
                        " ms (a stopped or hung server?)");
      }
      h.width = sessions[i].width;
      h.height = sessions[i].height;
      out.push_back(std::move(h));
    }
  }
  return out;
}

nlohmann::json SessionJson(const DesktopInfo& info, const SessionHealth& health) {
  nlohmann::json j = ToJson(info);
  j["health"] = health.health;
  if (!health.error.empty()) j["error"] = health.error;
  j["apps"] = health.apps;
  if (!health.apps_read) j["apps_read"] = false;
  j["width"] = health.width;
  j["height"] = health.height;
  return j;
}

std::string SessionLine(const DesktopInfo& info, const SessionHealth& health) {
  std::string line = info.id + "  " + info.backend + "  " + info.display_name + "  " +
                     std::to_string(health.width) + "x" + std::to_string(health.height) + "  " +
                     health.health;
  // A stale record's desktop is dead: said in the word `session list`
  // always used for it.
  if (!health.error.empty())
    line += (health.health == "stale" ? " (DEAD: " : " (") + health.error + ")";
  if (health.health == "connected" && !health.apps_read) {
    line += "  apps: not read in time (ask again)";
  } else if (health.health == "connected") {
    line += "  apps: ";
    if (health.apps.empty()) line += "none";
    for (size_t i = 0; i < health.apps.size(); ++i) {
      if (i > 0) line += ", ";
      line += health.apps[i].empty() ? "(untitled)" : health.apps[i];
    }
  }
  return line;
}

std::unique_ptr<SessionControl> MakeSessionControl(TitleReaderFactory title_reader) {
  return std::make_unique<RegistrySessions>(std::move(title_reader));
}

Result<DesktopInfo> AttachVncSession(std::string_view address, const std::string& password_file) {
  auto parsed = ParseVncAddress(address);
  if (!parsed.ok()) return parsed.error();
  VncOptions options;
  if (!password_file.empty()) {
    std::error_code error;
    options.password_file = std::filesystem::absolute(password_file, error).string();
    if (error) options.password_file = password_file;
  }
  const std::string url = parsed->Url();
  if (auto sessions = ListSessions(); sessions.ok()) {
    for (const DesktopInfo& s : *sessions) {
      if (s.backend == "vnc" && s.url == url && s.alive) return s;
    }
  }
  auto connection = VncConnection::Connect(*parsed, options);
  if (!connection.ok()) return connection.error();
  DesktopInfo info;
  info.backend = "vnc";
  info.url = url;
  info.password_file = options.password_file;
  info.width = (*connection)->width();
  info.height = (*connection)->height();
  if (auto st = RegisterRemoteSession(&info); !st.ok()) return st.error();
  return info;
}

}  // namespace uiscope
