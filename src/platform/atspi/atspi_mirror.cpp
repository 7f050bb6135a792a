#include "platform/atspi/atspi_mirror.h"

namespace uiscope::atspi {

MirrorBook::App& MirrorBook::AppOf(const std::string& bus) {
  auto [it, made] = apps_.try_emplace(bus);
  if (made) it->second.epoch = next_epoch_++;
  return it->second;
}

void MirrorBook::OnEvent(const std::string& bus, std::string_view /*path*/) {
  std::lock_guard lock(mutex_);
  ++AppOf(bus).events;
}

void MirrorBook::OnAppGone(const std::string& bus) {
  std::lock_guard lock(mutex_);
  apps_.erase(bus);
}

void MirrorBook::OnStreamLost() {
  std::lock_guard lock(mutex_);
  ++generation_;
  // The counts start again: an app must prove its stream works anew.
  apps_.clear();
}

void MirrorBook::NoteActed(const std::string& bus) {
  std::lock_guard lock(mutex_);
  App& app = AppOf(bus);
  app.acted = true;
  app.events_at_act = app.events;
}

MirrorBook::Mark MirrorBook::MarkOf(const std::string& bus) {
  std::lock_guard lock(mutex_);
  const App& app = AppOf(bus);
  return Mark{generation_, app.epoch, app.events};
}

std::optional<Node> MirrorBook::Lookup(const std::string& bus, const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(bus);
  if (it == apps_.end()) return std::nullopt;
  const App& app = it->second;
  // events_at_walk > 0: the stream has carried at least one event, so the
  // toolkit does emit them (to this listener).
  if (!app.has_tree || app.acted || app.key != key || app.events != app.events_at_walk ||
      app.events_at_walk == 0) {
    return std::nullopt;
  }
  return app.tree;
}

void MirrorBook::Store(const std::string& bus, const std::string& key, Mark mark, Node tree) {
  std::lock_guard lock(mutex_);
  if (mark.generation != generation_) return;
  // An app that left during the walk (OnAppGone) has a new record, if any:
  // its counts started again and say nothing of this walk.
  auto it = apps_.find(bus);
  if (it == apps_.end() || it->second.epoch != mark.epoch) return;
  App& app = it->second;
  app.has_tree = true;
  app.key = key;
  app.events_at_walk = mark.events;
  // Acted on and reacted (an event came after the action) before this walk
  // began: the walk saw the reaction's start, and its events vouch for it.
  if (app.acted && mark.events > app.events_at_act) app.acted = false;
  app.tree = std::move(tree);
}

void MirrorBook::Drop(const std::string& bus) {
  std::lock_guard lock(mutex_);
  if (auto it = apps_.find(bus); it != apps_.end()) {
    it->second.has_tree = false;
    it->second.tree = Node{};
  }
}

size_t MirrorBook::stored() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& [bus, app] : apps_) n += app.has_tree ? 1 : 0;
  return n;
}

uint64_t MirrorBook::events_of(const std::string& bus) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(bus);
  return it == apps_.end() ? 0 : it->second.events;
}

}  // namespace uiscope::atspi
