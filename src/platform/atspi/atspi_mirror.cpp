#include "platform/atspi/atspi_mirror.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

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
  // What the object shows changed (GTK 3 labels, a view scrolled): it and
  // what lies below it.
  if (member == "VisibleDataChanged") return EventChange::kSubtree;
  // The object moved or was resized. What lies around it may have moved
  // too: toolkits that send this event name each object that moved (GTK 3);
  // for those that do not, RefreshStored walks when a box it reads moved.
  if (member == "BoundsChanged") return EventChange::kBounds;
  // Unknown members: not sure what changed.
  return EventChange::kElsewhere;
}

bool IsLabelledControl(Role r) {
  return r == Role::kButton || r == Role::kToggleButton || r == Role::kCheckBox ||
         r == Role::kRadioButton || r == Role::kMenuItem || r == Role::kCheckMenuItem ||
         r == Role::kRadioMenuItem || r == Role::kTab || r == Role::kLink;
}

namespace {

// By position, top to bottom then left to right: the order a walk gives
// siblings that all have a box (BuildNode), except on Chromium.
bool ReadsInOrder(const std::vector<Node>& nodes) {
  return std::is_sorted(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) {
    if (a.bounds->y != b.bounds->y) return a.bounds->y < b.bounds->y;
    return a.bounds->x < b.bounds->x;
  });
}

bool AllPlaced(const std::vector<Node>& nodes) {
  return std::all_of(nodes.begin(), nodes.end(),
                     [](const Node& n) { return n.bounds.has_value(); });
}

bool OwnedBy(const Node& n, const std::string& bus) {
  return n.ref.owner == bus && std::all_of(n.children.begin(), n.children.end(),
                                           [&](const Node& c) { return OwnedBy(c, bus); });
}

bool IsPlainBox(const Node& n) {
  return n.role == Role::kPanel && n.name.empty() && n.actions.empty();
}

// The path of nodes from `root` down to the node at `path`, root first;
// empty when it is not in the tree.
bool FindPath(Node& n, const std::string& path, std::vector<Node*>& out) {
  out.push_back(&n);
  if (n.ref.path == path) return true;
  for (Node& c : n.children) {
    if (FindPath(c, path, out)) return true;
  }
  out.pop_back();
  return false;
}

}  // namespace

std::optional<Node> MergeRereads(const Node& stored, std::vector<Reread> reads,
                                 const MergeRules& rules) {
  Node copy = stored;
  const std::string& bus = stored.ref.owner;
  // Each read object's place, found before any is replaced.
  std::vector<std::vector<Node*>> places;
  for (const Reread& r : reads) {
    std::vector<Node*> path;
    if (!FindPath(copy, r.path, path) || path.size() < 3) return std::nullopt;
    places.push_back(std::move(path));
  }
  for (size_t k = 0; k < reads.size(); ++k) {
    for (size_t j = 0; j < reads.size(); ++j) {
      if (j != k && std::find(places[k].begin(), places[k].end() - 1, places[j].back()) !=
                        places[k].end() - 1) {
        return std::nullopt;  // read k lies inside read j
      }
    }
  }
  std::vector<Node*> removed;
  std::vector<std::pair<size_t, Node*>> parents;  // with their depth
  // Whether every child of each parent had a box before (so the walk
  // sorted them by position), read before anything is replaced.
  std::unordered_map<const Node*, bool> placed_before;
  for (const std::vector<Node*>& path : places) {
    const Node* parent = path[path.size() - 2];
    placed_before.emplace(parent, AllPlaced(parent->children));
  }
  for (size_t k = 0; k < reads.size(); ++k) {
    std::vector<Node*>& path = places[k];
    Node& old_node = *path.back();
    Node& parent = *path[path.size() - 2];
    for (size_t i = path.size() - 1; i-- > 0;) {
      if (IsLabelledControl(path[i]->role)) return std::nullopt;
      if (!IsPlainBox(*path[i])) break;
    }
    if (rules.chromium && parent.role == Role::kLabel) return std::nullopt;
    std::optional<Node>& fresh = reads[k].node;
    if (fresh && rules.chromium && fresh->role == Role::kPanel && fresh->name.empty() &&
        fresh->children.empty() && !fresh->bounds) {
      fresh.reset();
    }
    if (!fresh) {
      if (rules.chromium && parent.children.size() == 1) return std::nullopt;
      removed.push_back(&old_node);
    } else {
      if (fresh->ref.path != old_node.ref.path || !OwnedBy(*fresh, bus)) return std::nullopt;
      if (fresh->bounds != old_node.bounds && !rules.sends_bounds_events) return std::nullopt;
      // Its children come as the walk built them; itself in its place.
      old_node = std::move(*fresh);
    }
    parents.emplace_back(path.size() - 2, &parent);
  }
  // Removals and the siblings' order, once per parent, the deepest first:
  // erasing from a list moves the nodes after it (and what they hold), so
  // no pointer is used after a list it points into changed.
  std::sort(parents.begin(), parents.end(), std::greater<>());
  parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
  for (const auto& [depth, parent] : parents) {
    const bool sorted_before = placed_before.at(parent);
    std::erase_if(parent->children, [&](const Node& c) {
      return std::find(removed.begin(), removed.end(), &c) != removed.end();
    });
    if (rules.chromium || parent->children.size() < 2) continue;
    if (AllPlaced(parent->children) != sorted_before) return std::nullopt;
    if (sorted_before && !ReadsInOrder(parent->children)) return std::nullopt;
  }
  return copy;
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
  if (!app.has_tree || ActGuarded(app) || app.key != key || app.events != app.events_at_walk ||
      !StreamVouched(app)) {
    return std::nullopt;
  }
  return app.kept;
}

bool MirrorBook::ActGuarded(const App& app) {
  // A toolkit that reports every change (kToolkit) reports the action's
  // effect too: until its events come, the tree is what a walk would read
  // (the app has not changed yet), and a verification polling for the
  // effect reads the mirror instead of walking on every poll.
  return app.acted && app.stream != StreamTrust::kToolkit;
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
  return DirtyLocked(bus, key);
}

std::optional<MirrorBook::Refreshable> MirrorBook::ForRefresh(const std::string& bus,
                                                              const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto dirty = DirtyLocked(bus, key);
  if (!dirty) return std::nullopt;
  return Refreshable{std::move(*dirty), apps_.at(bus).kept};
}

std::optional<std::vector<MirrorBook::DirtyObject>> MirrorBook::DirtyLocked(
    const std::string& bus, const std::string& key) const {
  auto it = apps_.find(bus);
  if (it == apps_.end()) return std::nullopt;
  const App& app = it->second;
  if (!app.has_tree || app.key != key || !StreamVouched(app)) return std::nullopt;
  // Acted on: only once the app has answered the action with an event do
  // its events say what the action changed.
  if (ActGuarded(app) && app.events == app.events_at_act) return std::nullopt;
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
