#include "platform/atspi/atspi_mirror.h"

#include <algorithm>

namespace uiscope::atspi {

EventChange ClassifyEvent(std::string_view iface, std::string_view member,
                          std::string_view detail) {
  // Window (created, moved, activated...), Focus and Document (a page
  // loaded or changed) events speak of more than one object.
  if (iface != "Object") return EventChange::kElsewhere;
  if (member == "PropertyChange") {
    if (detail == "accessible-name" || detail == "accessible-description" ||
        detail == "accessible-value") {
      return EventChange::kAttributes;
    }
    // A new role re-normalises the node and the toolkit quirks that read
    // it decide for its children; a new parent moves the object elsewhere;
    // table captions, summaries, headers and unknown properties: elsewhere.
    return detail == "accessible-role" ? EventChange::kSubtree : EventChange::kElsewhere;
  }
  if (member == "StateChanged") {
    // Whether the object and its subtree are shown at all, or what its
    // children are (an expanded row shows its children; a container that
    // starts managing its descendants is read by what is in view).
    if (detail == "showing" || detail == "visible" || detail == "defunct" || detail == "expanded" ||
        detail == "collapsed" || detail == "expandable" || detail == "manages-descendants") {
      return EventChange::kSubtree;
    }
    return EventChange::kAttributes;
  }
  if (member == "TextChanged" || member == "TextCaretMoved" || member == "TextSelectionChanged" ||
      member == "TextAttributesChanged" || member == "AttributesChanged" ||
      member == "Announcement" || member == "LinkSelected") {
    return EventChange::kAttributes;
  }
  // The event names the parent (ChildrenChanged) or the container whose
  // children changed their states or rows.
  if (member == "ChildrenChanged" || member == "SelectionChanged" ||
      member == "ActiveDescendantChanged" || member == "ModelChanged" || member == "RowInserted" ||
      member == "RowDeleted" || member == "RowReordered" || member == "ColumnInserted" ||
      member == "ColumnDeleted" || member == "ColumnReordered") {
    return EventChange::kSubtree;
  }
  // BoundsChanged moves what lies around the object; VisibleDataChanged
  // and unknown members: not sure what changed.
  return EventChange::kElsewhere;
}

MirrorBook::App& MirrorBook::AppOf(const std::string& bus) {
  auto [it, made] = apps_.try_emplace(bus);
  if (made) it->second.epoch = next_epoch_++;
  return it->second;
}

void MirrorBook::OnEvent(const std::string& bus, std::string_view path, EventChange change) {
  std::lock_guard lock(mutex_);
  App& app = AppOf(bus);
  const uint64_t count = ++app.events;
  auto it = std::find_if(app.log.begin(), app.log.end(),
                         [&](const App::Logged& l) { return l.object.path == path; });
  if (it != app.log.end()) {
    it->object.change = std::max(it->object.change, change);
    it->last = count;
  } else if (app.log.size() < kMaxDirtyObjects) {
    app.log.push_back({DirtyObject{std::string(path), change}, count});
  } else {
    app.lost_at = count;
  }
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

std::optional<MirrorBook::Kept> MirrorBook::Lookup(const std::string& bus, const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(bus);
  if (it == apps_.end()) return std::nullopt;
  const App& app = it->second;
  if (!app.has_tree || app.acted || app.key != key || app.events != app.events_at_walk ||
      !StreamVouched(app)) {
    return std::nullopt;
  }
  return app.kept;
}

bool MirrorBook::StreamVouched(const App& app) {
  // events_at_walk > 0: the stream has carried at least one event, so the
  // toolkit does emit them (to this listener).
  return app.events_at_walk > 0 || app.stream == StreamTrust::kToolkit;
}

void MirrorBook::Store(const std::string& bus, const std::string& key, Mark mark, Node tree,
                       StreamTrust stream, std::vector<std::string> warnings) {
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
  app.stream = stream;
  // Acted on and reacted (an event came after the action) before this walk
  // began: the walk saw the reaction's start, and its events vouch for it.
  if (app.acted && mark.events > app.events_at_act) app.acted = false;
  app.kept = Kept{std::move(tree), std::move(warnings)};
  // What the walk saw is no longer dirty; what came during it still is.
  std::erase_if(app.log, [&](const App::Logged& l) { return l.last <= mark.events; });
}

std::optional<std::vector<MirrorBook::DirtyObject>> MirrorBook::Dirty(
    const std::string& bus, const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(bus);
  if (it == apps_.end()) return std::nullopt;
  const App& app = it->second;
  if (!app.has_tree || app.key != key || !StreamVouched(app)) return std::nullopt;
  // Acted on: only once the app has answered the action with an event do
  // its events say what the action changed.
  if (app.acted && app.events == app.events_at_act) return std::nullopt;
  if (app.lost_at > app.events_at_walk) return std::nullopt;
  std::vector<DirtyObject> dirty;
  for (const App::Logged& l : app.log) {
    if (l.last <= app.events_at_walk) continue;
    if (l.object.change == EventChange::kElsewhere) return std::nullopt;
    dirty.push_back(l.object);
  }
  return dirty;
}

void MirrorBook::Drop(const std::string& bus) {
  std::lock_guard lock(mutex_);
  if (auto it = apps_.find(bus); it != apps_.end()) {
    it->second.has_tree = false;
    it->second.kept = Kept{};
  }
}

size_t MirrorBook::stored() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& [bus, app] : apps_) n += app.has_tree ? 1 : 0;
  return n;
}

namespace {

constexpr size_t kAllocationOverhead = 16;

size_t StringBytes(const std::string& s) {
  // Within the inline buffer (libstdc++: 15 characters) nothing is allocated.
  return s.capacity() > 15 ? s.capacity() + 1 + kAllocationOverhead : 0;
}

size_t NodeBytes(const Node& n) {
  size_t bytes = sizeof(Node);
  for (const std::string* s : {&n.id, &n.toolkit_role, &n.name, &n.value, &n.description, &n.app,
                               &n.window, &n.toolkit, &n.ref.owner, &n.ref.path}) {
    bytes += StringBytes(*s);
  }
  if (n.actions.capacity() > 0) {
    bytes += n.actions.capacity() * sizeof(std::string) + kAllocationOverhead;
    for (const std::string& a : n.actions) bytes += StringBytes(a);
  }
  if (n.children.capacity() > 0) {
    // The children's structs are counted by their own NodeBytes.
    bytes += (n.children.capacity() - n.children.size()) * sizeof(Node) + kAllocationOverhead;
    for (const Node& c : n.children) bytes += NodeBytes(c);
  }
  return bytes;
}

}  // namespace

size_t MirrorBook::bytes() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& [bus, app] : apps_) {
    if (!app.has_tree) continue;
    n += NodeBytes(app.kept.tree);
    for (const std::string& w : app.kept.warnings) n += sizeof(std::string) + StringBytes(w);
  }
  return n;
}

uint64_t MirrorBook::events_of(const std::string& bus) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(bus);
  return it == apps_.end() ? 0 : it->second.events;
}

}  // namespace uiscope::atspi
