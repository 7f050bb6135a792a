#include "engine/workspace.h"

#include <cstdlib>

namespace uiscope {
namespace {

constexpr char kFakeDisplay[] = ":fake";

}  // namespace

Workspace::Workspace(WorkspaceOptions options) : options_(std::move(options)) {
  SetActionGate(options_.gate);
}

Workspace::Workspace(std::unique_ptr<Accessibility> accessibility, Frame frame)
    : Workspace(
          FakeDesktopParts{std::move(accessibility), frame, nullptr, nullptr, nullptr, false}) {}

Workspace::Workspace(FakeDesktopParts parts) : fake_(true) {
  SetActionGate(nullptr);
  auto desktop = std::make_unique<Entry>();
  desktop->connection.target.display = kFakeDisplay;
  desktop->connection.frame = parts.frame;
  desktop->connection.accessibility = std::move(parts.accessibility);
  desktop->observer =
      std::make_unique<Observer>(*desktop->connection.accessibility, desktop->connection.frame);
  desktop->hands = std::make_unique<Hands>();
  desktop->hands->input = std::move(parts.input);
  desktop->hands->windows = std::move(parts.windows);
  desktop->hands->capture = std::move(parts.capture);
  desktop->hands->can_launch = parts.allow_launch;
  desktop->observer->set_windows(desktop->hands->windows.get());
  desktops_[kFakeDisplay] = std::move(desktop);
}

Workspace::Entry::~Entry() {
  // Apps launched into the desktop belong to its user, not to this server:
  // they keep running (a stopped headless desktop ends them anyway).
  if (hands) {
    for (auto& [pid, process] : hands->launched) process->Release();
  }
}

void Workspace::SetActionGate(std::shared_ptr<ActionGate> gate) {
  gate_ = gate ? std::move(gate) : std::make_shared<AllowAllGate>();
}

Status Workspace::OpenHands(Entry& desktop) {
  if (desktop.hands) return OkStatus();
  Desktop& screen = *desktop.connection.desktop;
  auto hands = std::make_unique<Hands>();
  auto input = screen.OpenInput();
  if (!input.ok()) return input.error();
  hands->input = std::move(input).value();
  auto windows = screen.OpenWindows();
  if (!windows.ok()) return windows.error();
  hands->windows = std::move(windows).value();
  auto capture = screen.OpenCapture(CaptureOptions{});
  if (!capture.ok()) return capture.error();
  hands->capture = std::move(capture).value();
  desktop.hands = std::move(hands);
  return OkStatus();
}

void Workspace::Fill(Lease& lease, Entry& desktop) const {
  lease.observer = desktop.observer.get();
  lease.accessibility = desktop.connection.accessibility.get();
  lease.frame = desktop.connection.frame;
  Desktop* screen = desktop.connection.desktop.get();
  Hands* hands = desktop.hands.get();
  lease.desktop = screen;
  lease.capture = screen != nullptr  ? &screen->capture()
                  : hands != nullptr ? hands->capture.get()
                                     : nullptr;
  lease.windows = screen != nullptr  ? &screen->windows()
                  : hands != nullptr ? hands->windows.get()
                                     : nullptr;
  lease.gate = gate_.get();
  lease.learner = options_.learner.get();
}

Workspace::~Workspace() {
  std::lock_guard lock(mutex_);
  desktops_.clear();
  if (own_desktop_) (void)own_desktop_->Stop();
}

Result<DesktopTarget> Workspace::DefaultTarget(std::vector<std::string>* notes) {
  if (!options_.display.empty() || !options_.session.empty() ||
      std::getenv("UISCOPE_SESSION") != nullptr || std::getenv("DISPLAY") != nullptr) {
    return ResolveDesktop(options_.display, options_.session);
  }

  if (own_desktop_) {
    auto info = FindSession(own_desktop_->info().id);
    if (info.ok() && info->alive) {
      return TargetOf(*info);
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
  return TargetOf(info);
}

Result<Workspace::Entry*> Workspace::Open(const DesktopTarget& target) {
  if (auto it = desktops_.find(target.display); it != desktops_.end()) return it->second.get();
  auto connection = ConnectDesktop(target, options_.accessibility_mirror);
  if (!connection.ok()) return connection.error();
  auto desktop = std::make_unique<Entry>();
  desktop->connection = std::move(connection).value();
  desktop->observer =
      std::make_unique<Observer>(*desktop->connection.accessibility, desktop->connection.frame);
  if (options_.hide_app) desktop->observer->set_hide_app(options_.hide_app);
  // Shared with every uiscope process on this desktop, CLI calls included.
  desktop->observer->set_anchor_store(
      std::make_unique<IdAnchorStore>(IdAnchorStore::DirFor(target.display)));
  // Without its windows an app that does not answer is only named, not shown.
  desktop->observer->set_windows(&desktop->connection.desktop->windows());
  desktop->observer->set_app_health_file(AppHealthFile(SessionStateDir(), target.display));
  Entry* raw = desktop.get();
  desktops_[target.display] = std::move(desktop);
  return raw;
}

Result<Workspace::Lease> Workspace::Acquire(const std::string& session_id, Need need) {
  Lease lease;
  lease.lock = std::unique_lock(mutex_);
  if (fake_) {
    if (!session_id.empty() && session_id != "fake") {
      return MakeError(ErrorCode::kNotFound, "no session \"" + session_id + "\" (sessions: fake)");
    }
    Entry* d = desktops_.begin()->second.get();
    Fill(lease, *d);
    if (need == Need::kHands) lease.hands = d->hands.get();
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
    if (!info->alive) return DeadSession(*info);
    target = TargetOf(*info);
  }
  if (!target.ok()) return target.error();
  auto desktop = Open(*target);
  if (!desktop.ok()) return desktop.error();
  Fill(lease, **desktop);
  if (need == Need::kHands) {
    if (auto st = OpenHands(**desktop); !st.ok()) return st.error();
    lease.hands = (*desktop)->hands.get();
  }
  lease.display = target->display;
  lease.session_id = target->session_id;
  return lease;
}

void Workspace::ResetFake(std::unique_ptr<Accessibility> accessibility) {
  std::lock_guard lock(mutex_);
  if (!fake_) return;
  Entry& d = *desktops_.begin()->second;
  d.observer = std::make_unique<Observer>(*accessibility, d.connection.frame);
  d.observer->set_windows(d.hands ? d.hands->windows.get() : nullptr);
  d.connection.accessibility = std::move(accessibility);
  generation_.fetch_add(1);
}

void Workspace::Invalidate(const std::string& display) {
  std::lock_guard lock(mutex_);
  if (!fake_) desktops_.erase(display);
}

Result<std::vector<WindowInfo>> TopLevelWindows(const Workspace::Lease& lease) {
  if (lease.pinned_windows) return *lease.pinned_windows;
  if (lease.windows == nullptr) return std::vector<WindowInfo>{};
  return lease.windows->ListWindows();
}

PinnedWindows::PinnedWindows(Workspace::Lease& lease) : lease_(lease) {
  if (lease_.pinned_windows) return;
  // A failure is left to the passes, which report it as before.
  auto listed = TopLevelWindows(lease_);
  if (!listed.ok()) return;
  lease_.pinned_windows = std::move(listed).value();
  pinned_ = true;
}

PinnedWindows::~PinnedWindows() {
  if (pinned_) lease_.pinned_windows.reset();
}

}  // namespace uiscope
