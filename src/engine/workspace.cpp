#include "engine/workspace.h"

#include <cstdlib>

namespace uiscope {
namespace {

constexpr char kFakeDisplay[] = ":fake";

}  // namespace

Workspace::Workspace(WorkspaceOptions options) : options_(std::move(options)) {}

Workspace::Workspace(std::unique_ptr<Accessibility> accessibility, Frame frame) : fake_(true) {
  auto desktop = std::make_unique<Desktop>();
  desktop->connection.target.display = kFakeDisplay;
  desktop->connection.frame = frame;
  desktop->connection.accessibility = std::move(accessibility);
  desktop->observer =
      std::make_unique<Observer>(*desktop->connection.accessibility, desktop->connection.frame);
  desktops_[kFakeDisplay] = std::move(desktop);
}

Workspace::~Workspace() {
  std::lock_guard lock(mutex_);
  desktops_.clear();
  if (own_desktop_) (void)own_desktop_->Stop();
}

Result<DesktopTarget> Workspace::DefaultTarget(std::vector<std::string>* notes) {
  if (!options_.display.empty() || std::getenv("DISPLAY") != nullptr)
    return ResolveDesktop(options_.display);

  if (own_desktop_) {
    auto info = FindSession(own_desktop_->info().id);
    if (info.ok() && info->alive) {
      return DesktopTarget{info->display_name, info->dbus_address, info->id};
    }
    // It died under us: clean it up and start another.
    desktops_.erase(own_desktop_->info().display_name);
    (void)own_desktop_->Stop();
    own_desktop_.reset();
    notes->push_back("the server's headless desktop had stopped; a new one was started");
  }
  if (!options_.start_headless) return ResolveDesktop("");  // the "no display" error
  auto desktop = HeadlessDesktop::Start(options_.headless);
  if (!desktop.ok()) {
    return MakeError(
        desktop.error().code,
        "no DISPLAY is set, and starting a headless desktop failed: " + desktop.error().message);
  }
  own_desktop_ = std::move(desktop).value();
  const DesktopInfo& info = own_desktop_->info();
  notes->push_back("no DISPLAY was set, so uiscope started its own headless desktop " +
                   info.display_name + " (session " + info.id + ", " + std::to_string(info.width) +
                   "x" + std::to_string(info.height) + "); launch apps into it with session " +
                   info.id + "'s environment. It stops when the server exits.");
  return DesktopTarget{info.display_name, info.dbus_address, info.id};
}

Result<Workspace::Desktop*> Workspace::Open(const DesktopTarget& target) {
  if (auto it = desktops_.find(target.display); it != desktops_.end()) return it->second.get();
  auto connection = ConnectDesktop(target);
  if (!connection.ok()) return connection.error();
  auto desktop = std::make_unique<Desktop>();
  desktop->connection = std::move(connection).value();
  desktop->observer =
      std::make_unique<Observer>(*desktop->connection.accessibility, desktop->connection.frame);
  if (options_.hide_app) desktop->observer->set_hide_app(options_.hide_app);
  Desktop* raw = desktop.get();
  desktops_[target.display] = std::move(desktop);
  return raw;
}

Result<Workspace::Lease> Workspace::Acquire(const std::string& session_id) {
  Lease lease;
  lease.lock = std::unique_lock(mutex_);
  if (fake_) {
    if (!session_id.empty() && session_id != "fake") {
      return MakeError(ErrorCode::kNotFound, "no session \"" + session_id + "\" (sessions: fake)");
    }
    Desktop* d = desktops_.begin()->second.get();
    lease.observer = d->observer.get();
    lease.display = kFakeDisplay;
    lease.session_id = "fake";
    return lease;
  }
  Result<DesktopTarget> target = MakeError(ErrorCode::kInternal, "unresolved");
  if (session_id.empty()) {
    target = DefaultTarget(&lease.notes);
  } else {
    auto info = FindSession(session_id);
    if (!info.ok()) return info.error();
    if (!info->alive) {
      return MakeError(ErrorCode::kUnavailable, "session " + session_id +
                                                    " is dead (its Xvfb exited); stop it with "
                                                    "session_stop and start a new one");
    }
    target = DesktopTarget{info->display_name, info->dbus_address, info->id};
  }
  if (!target.ok()) return target.error();
  auto desktop = Open(*target);
  if (!desktop.ok()) return desktop.error();
  lease.observer = (*desktop)->observer.get();
  lease.display_connection = (*desktop)->connection.display.get();
  lease.display = target->display;
  lease.session_id = target->session_id;
  return lease;
}

void Workspace::Invalidate(const std::string& display) {
  std::lock_guard lock(mutex_);
  if (!fake_) desktops_.erase(display);
}

}  // namespace uiscope
