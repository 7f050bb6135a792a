#include "core/ids.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace uiscope {
namespace {

constexpr int kShortDigits = 4;  // hex digits of an ID before any collision
constexpr int kMaxDigits = 16;   // all 64 bits of the hash
constexpr int kDerivedLabelDepth = 3;
constexpr size_t kDerivedLabelNames = 2;

// One node of a tree in preorder, with what its ID is derived from.
struct Entry {
  const Node* node = nullptr;
  int parent = -1;  // index of the parent entry; -1 for roots
  std::string identity;
  int dup_index = 0;        // rank among siblings with the same role and identity
  int role_index = 0;       // rank among siblings with the same role
  int shown_index = -1;     // rank among showing siblings with the same role; -1: not showing
  uint64_t hash = 0;        // IdentityHash(the parent's origin, role, identity, dup_index)
  uint64_t origin = 0;      // what the children's hashes derive from (IdAnchor::origin)
  std::string hash_id;      // ID from the hash alone, after collision resolution
  bool anchorable = false;  // see MarkAnchorable
  // The anchor whose ID the node claims, and why (see AnchorIndex). Points
  // into the anchors, which stay as they are until every ID is decided.
  const IdAnchor* claim = nullptr;
  enum class Claim { kNone, kObject, kSuccessor, kRebuilt } claim_kind = Claim::kNone;
};

void CollectNames(const std::vector<Node>& nodes, int levels_left,
                  std::vector<std::string_view>& names) {
  for (const Node& n : nodes) {
    if (names.size() >= kDerivedLabelNames) return;
    if (!n.name.empty()) names.push_back(n.name);
    if (levels_left > 1) CollectNames(n.children, levels_left - 1, names);
  }
}

// Appends `siblings` and their subtrees to `out` in preorder, a parent before
// its children. Identity names and ranks are computed per sibling group first
// because a node's dup index depends on the siblings before it. Hashes come
// later (DeriveHashes): they depend on what the anchors say about ancestors.
void Flatten(const std::vector<Node>& siblings, int parent, std::vector<Entry>& out) {
  struct Key {
    Role role;
    std::string_view identity;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string_view>()(k.identity) ^ static_cast<size_t>(k.role);
    }
  };

  std::vector<Entry> group(siblings.size());
  std::unordered_map<Key, int, KeyHash> dup_counts;
  std::array<int, 256> role_counts{};
  std::array<int, 256> shown_counts{};
  for (size_t i = 0; i < siblings.size(); ++i) {
    const Node& n = siblings[i];
    Entry& e = group[i];
    e.node = &n;
    e.parent = parent;
    e.identity = IdentityName(n);
    e.dup_index = dup_counts[Key{n.role, e.identity}]++;
    e.role_index = role_counts[static_cast<uint8_t>(n.role)]++;
    if (n.Has(State::kShowing)) e.shown_index = shown_counts[static_cast<uint8_t>(n.role)]++;
  }
  for (Entry& e : group) {
    const int index = static_cast<int>(out.size());
    const Node* node = e.node;
    out.push_back(std::move(e));
    Flatten(node->children, index, out);
  }
}

std::string HexDigits(uint64_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kHex[value & 0xf];
    value >>= 4;
  }
  return out;
}

// Gives each of `members` (entry indices in preorder) the shortest ID that is
// unique in the tree. Within a bucket of equal candidates, the smallest full
// hash wins the short form and the others retry with two more digits; only
// the set of hashes matters, never the order of the nodes.
void ResolveCollisions(std::vector<Entry>& entries, const std::vector<int>& members, int digits) {
  std::unordered_map<std::string, std::vector<int>> buckets;
  for (int i : members) {
    const Entry& e = entries[static_cast<size_t>(i)];
    std::string candidate(RolePrefix(e.node->role));
    candidate += '_';
    candidate += HexDigits(e.hash, digits);
    buckets[std::move(candidate)].push_back(i);
  }
  // Buckets are disjoint, so visiting them in hash-map order is harmless.
  for (auto& [candidate, bucket] : buckets) {
    uint64_t smallest = UINT64_MAX;
    for (int i : bucket) smallest = std::min(smallest, entries[static_cast<size_t>(i)].hash);
    std::vector<int> losers;
    int same_hash = 0;
    for (int i : bucket) {
      Entry& e = entries[static_cast<size_t>(i)];
      if (e.hash != smallest) {
        losers.push_back(i);
        continue;
      }
      // Identical full hashes mean an XXH3 collision between different
      // identities; a preorder suffix is the only deterministic tiebreak left.
      e.hash_id = same_hash == 0 ? candidate : candidate + "-" + std::to_string(same_hash + 1);
      ++same_hash;
    }
    // At kMaxDigits every candidate is the full hash, so no losers remain.
    if (!losers.empty() && digits < kMaxDigits) {
      ResolveCollisions(entries, losers, std::min(digits + 2, kMaxDigits));
    }
  }
}

// "Role, identity name and rank": what makes two nodes under one parent the
// same widget, spelled as a map key.
std::string IdentityKey(Role role, int dup_index, const std::string& identity) {
  return std::to_string(static_cast<int>(role)) + ':' + std::to_string(dup_index) + ':' + identity;
}

std::string PositionKey(Role role, int role_index) {
  return std::to_string(static_cast<int>(role)) + ':' + std::to_string(role_index);
}

// What reconciliation needs to know about a node of the previous snapshot.
struct PreviousNode {
  std::string id;
  std::string identity_key;
  std::string position_key;
};

// The previous snapshot, indexed by ID and by parent ID. Copied out of
// `previous` so that AssignIds may be handed a `previous` it is about to
// overwrite.
struct PreviousIndex {
  std::unordered_map<std::string, std::string> identity_by_id;
  std::vector<PreviousNode> roots;
  std::unordered_map<std::string, std::vector<PreviousNode>> children;  // by parent ID

  explicit PreviousIndex(const std::vector<Node>& previous) {
    std::vector<Entry> entries;
    Flatten(previous, -1, entries);
    for (const Entry& e : entries) {
      // A node without an ID (never assigned) can neither lend one nor locate
      // its children.
      if (e.node->id.empty()) continue;
      PreviousNode p{e.node->id, IdentityKey(e.node->role, e.dup_index, e.identity),
                     PositionKey(e.node->role, e.role_index)};
      identity_by_id.emplace(p.id, p.identity_key);
      if (e.parent < 0) {
        roots.push_back(std::move(p));
      } else {
        const std::string& parent_id = entries[static_cast<size_t>(e.parent)].node->id;
        if (!parent_id.empty()) children[parent_id].push_back(std::move(p));
      }
    }
  }

  bool Contains(const std::string& id) const { return identity_by_id.contains(id); }

  // The previous children of the node now called `parent_id`; the previous
  // roots for parent -1; nullptr when that parent did not exist before.
  const std::vector<PreviousNode>* ChildrenOf(int parent, const std::string& parent_id) const {
    if (parent < 0) return &roots;
    auto it = children.find(parent_id);
    return it == children.end() ? nullptr : &it->second;
  }
};

// How many of the app's observations back an object may have vanished and
// still pass its ID to a successor in its place. Not only the last one: a
// toolkit that rebuilds a leaf removes the old one before it adds the new
// one, and an observation that walks between the two (a verification poll
// racing the page's update) sees the place empty.
constexpr uint64_t kSuccessorWindow = 4;

// Whether a new object may inherit the ID of one that vanished from its
// place (id_anchors.h): text leaves only, which pages rebuild when their text
// changes. A container whose place another takes is more likely a stack
// page hidden than one destroyed, and a wrong guess on a text costs less
// than on a control.
bool CanSucceed(const Node& node) {
  return node.children.empty() && (node.role == Role::kLabel || node.role == Role::kText);
}

// The address by which a table cell's new object succeeds its old one (see
// IdAnchor::cell): its name, the address the walk gave it.
std::string CellAddress(const Node& node) {
  return node.role == Role::kTableCell ? node.name : std::string();
}

bool HasPrefix(const std::string& id, Role role) {
  const std::string_view prefix = RolePrefix(role);
  return id.size() > prefix.size() && id.compare(0, prefix.size(), prefix) == 0 &&
         id[prefix.size()] == '_';
}

// What the anchors (id_anchors.h) say about a tree, read before any hash is
// derived: which node claims which anchor, which IDs stay reserved for
// objects not in the tree, and which origins are taken.
class AnchorIndex {
 public:
  // Sets Entry::claim for every node of `entries` that claims an anchor.
  AnchorIndex(const IdAnchors& anchors, std::vector<Entry>& entries) {
    for (const auto& [owner, app] : anchors.apps) {
      for (const auto& [path, anchor] : app.by_path) {
        // A file edited by hand may name one ID twice: the smallest hash
        // keeps it, whatever the map's order.
        auto [it, added] = reserved_.emplace(anchor.id, anchor.hash);
        if (!added) it->second = std::min(it->second, anchor.hash);
      }
    }
    std::unordered_set<std::string> in_tree;
    for (const Entry& e : entries) {
      if (e.anchorable) in_tree.insert(e.node->ref.owner + '\n' + e.node->ref.path);
    }
    for (const auto& [owner, app] : anchors.apps) {
      for (const auto& [path, anchor] : app.by_path) {
        if (anchor.parent.empty() || (anchor.shown_index < 0 && anchor.cell.empty()) ||
            app.clock - anchor.seen >= kSuccessorWindow || in_tree.contains(owner + '\n' + path)) {
          continue;
        }
        // Of two objects that vanished from one place, the one seen last has
        // the successor; seen in the same observation (a file edited by
        // hand), neither has.
        const std::string place =
            anchor.cell.empty() ? PlaceKey(owner, anchor.parent, anchor.role, anchor.shown_index)
                                : CellKey(owner, anchor.parent, anchor.cell);
        auto [it, added] = vanished_.emplace(place, Vanished{&anchor, anchor.seen});
        if (added || anchor.seen < it->second.seen) continue;
        it->second.anchor = anchor.seen > it->second.seen ? &anchor : nullptr;
        it->second.seen = anchor.seen;
      }
    }
    Claim(anchors, entries);
    std::unordered_set<const IdAnchor*> claimed;
    for (const Entry& e : entries) {
      if (e.claim == nullptr) continue;
      claimed.insert(e.claim);
      origins_[e.claim->origin] = Holder{0, /*exclusive=*/true};
    }
    for (const auto& [owner, app] : anchors.apps) {
      for (const auto& [path, anchor] : app.by_path) {
        if (claimed.contains(&anchor)) continue;
        auto [it, added] = origins_.emplace(anchor.origin, Holder{anchor.hash, false});
        if (!added && it->second.hash != anchor.hash) it->second.exclusive = true;
        // Of two absent objects last seen with one hash, the one seen last
        // is the widget; seen in the same observation, neither is.
        auto [r, fresh] = rebuilt_[owner].emplace(anchor.hash, Vanished{&anchor, anchor.seen});
        if (fresh || anchor.seen < r->second.seen) continue;
        r->second.anchor = anchor.seen > r->second.seen ? &anchor : nullptr;
        r->second.seen = anchor.seen;
      }
    }
  }

  // Claims for `e`, which claims nothing yet and whose hash is now known,
  // the anchor of an object absent from the tree that had e's hash when last
  // seen: the same widget built again (a menu item rebuilt, a dialog
  // reopened), renamed since its ID was given or not. Each anchor once.
  void ClaimRebuilt(Entry& e) {
    if (!e.anchorable) return;
    auto app = rebuilt_.find(e.node->ref.owner);
    if (app == rebuilt_.end()) return;
    auto it = app->second.find(e.hash);
    if (it == app->second.end() || it->second.anchor == nullptr) return;
    const IdAnchor* a = it->second.anchor;
    if (a->role != e.node->role || !HasPrefix(a->id, e.node->role) ||
        !OriginFree(a->origin, e.hash)) {
      return;
    }
    e.claim = a;
    e.claim_kind = Entry::Claim::kRebuilt;
    origins_[a->origin] = Holder{0, /*exclusive=*/true};
    it->second.anchor = nullptr;
  }

  // Whether a node whose hash is `hash` may pass `origin` to its children:
  // no node of the tree claims it, and every object absent from the tree
  // that holds it had that hash (the same widget, built again).
  bool OriginFree(uint64_t origin, uint64_t hash) const {
    auto it = origins_.find(origin);
    return it == origins_.end() || (!it->second.exclusive && it->second.hash == hash);
  }

  // Whether the node with hash `hash` may take `id` as far as the anchors
  // go: no object absent from the tree is anchored to it, unless that
  // object had that hash.
  bool Reserves(const std::string& id, uint64_t hash) const {
    auto it = reserved_.find(id);
    return it != reserved_.end() && it->second != hash;
  }

 private:
  static std::string PlaceKey(const std::string& owner, const std::string& parent, Role role,
                              int shown_index) {
    return owner + '\n' + parent + '\n' + std::to_string(static_cast<int>(role)) + ':' +
           std::to_string(shown_index);
  }

  static std::string CellKey(const std::string& owner, const std::string& table,
                             const std::string& address) {
    return owner + '\n' + table + "\ncell:" + address;
  }

  // A node claims the anchor of its object when the anchor has the node's
  // role; else, for a text leaf or a table cell, the anchor of an object
  // that vanished from its place (id_anchors.h).
  void Claim(const IdAnchors& anchors, std::vector<Entry>& entries) const {
    for (Entry& e : entries) {
      if (!e.anchorable) continue;
      const IdAnchor* a = anchors.Find(e.node->ref);
      if (a != nullptr && a->role == e.node->role && HasPrefix(a->id, e.node->role)) {
        e.claim = a;
        e.claim_kind = Entry::Claim::kObject;
      }
    }
    for (Entry& e : entries) {
      const std::string cell = CellAddress(*e.node);
      if (e.claim != nullptr || !e.anchorable || e.parent < 0 ||
          (cell.empty() && (e.shown_index < 0 || !CanSucceed(*e.node)))) {
        continue;
      }
      const Entry& parent = entries[static_cast<size_t>(e.parent)];
      if (!parent.anchorable || parent.node->ref.owner != e.node->ref.owner) continue;
      auto it =
          vanished_.find(cell.empty() ? PlaceKey(e.node->ref.owner, parent.node->ref.path,
                                                 e.node->role, e.shown_index)
                                      : CellKey(e.node->ref.owner, parent.node->ref.path, cell));
      if (it != vanished_.end() && it->second.anchor != nullptr &&
          HasPrefix(it->second.anchor->id, e.node->role)) {
        e.claim = it->second.anchor;
        e.claim_kind = Entry::Claim::kSuccessor;
      }
    }
  }

  std::unordered_map<std::string, uint64_t> reserved_;  // anchored ID -> its object's hash
  // An object that vanished from a place (PlaceKey or CellKey) in the app's
  // last kSuccessorWindow observations: its anchor (null: two vanished from
  // there in the same observation) and when it was last seen.
  struct Vanished {
    const IdAnchor* anchor;
    uint64_t seen;
  };
  std::unordered_map<std::string, Vanished> vanished_;
  // The objects absent from the tree by owner, then by their hash when last
  // seen; null: two were last seen with that hash at once.
  std::unordered_map<std::string, std::unordered_map<uint64_t, Vanished>> rebuilt_;
  // Who holds an origin: a node of the tree (exclusive), or objects absent
  // from it, which a node with `hash` may succeed (exclusive when they had
  // different hashes).
  struct Holder {
    uint64_t hash;
    bool exclusive;
  };
  std::unordered_map<uint64_t, Holder> origins_;
};

// The origin a node passes on when `origin` is taken by another: a function
// of `origin` alone, so the node's subtree derives the same hashes in every
// run until its own anchor holds the origin. A seed keeps it apart from
// every IdentityHash.
uint64_t NextOrigin(uint64_t origin) {
  constexpr XXH64_hash_t kSeed = 0x6f726967696e;  // "origin"
  std::array<unsigned char, 8> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(origin >> (8 * i));
  }
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), kSeed);
}

// Derives each node's identity hash from its parent's origin, top-down, and
// its own origin (IdAnchor::origin): the claimed anchor's (a node claiming
// none may claim a rebuilt widget's now that its hash is known), else its
// hash, else (when that is taken, see AnchorIndex::OriginFree) the next free
// one after it. Without anchors every origin is the node's hash, so the
// hashes are those of a plain ancestor chain, the same as before origins.
void DeriveHashes(std::vector<Entry>& entries, AnchorIndex* index) {
  // A node whose hash collides with one origin after another: only many
  // XXH3 collisions at once could take this many steps.
  constexpr int kMaxOriginSteps = 64;
  for (Entry& e : entries) {
    const uint64_t parent_origin = e.parent < 0 ? 0 : entries[static_cast<size_t>(e.parent)].origin;
    e.hash = IdentityHash(parent_origin, e.node->role, e.identity, e.dup_index);
    if (e.claim == nullptr && index != nullptr) index->ClaimRebuilt(e);
    if (e.claim != nullptr) {
      e.origin = e.claim->origin;
      continue;
    }
    e.origin = e.hash;
    for (int step = 0;
         index != nullptr && !index->OriginFree(e.origin, e.hash) && step < kMaxOriginSteps;
         ++step) {
      e.origin = NextOrigin(e.origin);
    }
  }
}

// Decides final IDs against the anchors and the previous snapshot, top-down,
// so that a node's parent always has its final ID when the node is matched
// under it.
//
// In order of preference a node gets:
//  0. the ID of the anchor it claims (AnchorIndex): its object's anchor, when
//     the anchor has the node's role: the object is the widget, whatever it
//     is called now; then a successor's; then that of an absent object that
//     had the node's identity hash (the same widget built again);
//  1. its hash ID, when the previous node with that ID had the same role,
//     identity name and rank (the same widget, wherever it now sits);
//  2. under the same parent, the ID of the previous sibling with the same
//     role, identity name and rank: the children of a renamed node, whose
//     hashes changed with their parent's;
//  3. under the same parent, the ID of the previous sibling with the same role
//     and index among same-role siblings: the renamed node itself;
//  4. a fresh ID: its hash ID, or a longer form of it when that collides with
//     an ID the previous snapshot used for another widget.
// An ID is handed out once. Rule 1 is checked against identity, not just the
// ID string, so that a newcomer whose hash wins a short-ID collision cannot
// take the short ID an existing widget was known by. An ID anchored to an
// object that is not in this tree (hidden, or seen only with --all) stays
// reserved for it: rules 1-4 give it only to a node with the identity hash
// that object had, i.e. the same widget built again.
class Reconciler {
 public:
  Reconciler(const std::vector<Entry>& entries, const std::vector<Node>& previous,
             const AnchorIndex* index)
      : entries_(entries), prev_(previous), index_(index), final_ids_(entries.size()) {
    for (const Entry& e : entries_) hash_ids_.insert(e.hash_id);
  }

  std::vector<std::string> Run() {
    using enum Entry::Claim;
    for (Entry::Claim kind : {kObject, kSuccessor, kRebuilt}) {
      for (size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        if (e.claim_kind == kind && final_ids_[i].empty() && !used_.contains(e.claim->id)) {
          Give(i, e.claim->id);
        }
      }
    }
    for (size_t i = 0; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      if (!final_ids_[i].empty()) continue;
      auto it = prev_.identity_by_id.find(e.hash_id);
      if (it != prev_.identity_by_id.end() &&
          it->second == IdentityKey(e.node->role, e.dup_index, e.identity) &&
          Claimable(e, e.hash_id)) {
        Give(i, e.hash_id);
      }
    }
    std::vector<size_t> roots;
    std::vector<std::vector<size_t>> children(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      const int parent = entries_[i].parent;
      (parent < 0 ? roots : children[static_cast<size_t>(parent)]).push_back(i);
    }
    ReconcileGroup(roots, prev_.ChildrenOf(-1, ""));
    // Preorder: a parent's final ID is decided before its children's group.
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (!children[i].empty()) {
        ReconcileGroup(children[i], prev_.ChildrenOf(static_cast<int>(i), final_ids_[i]));
      }
    }
    return std::move(final_ids_);
  }

 private:
  void Give(size_t i, const std::string& id) {
    final_ids_[i] = id;
    used_.insert(id);
  }

  // Whether `e` may take `id`: nobody here holds it, and no object absent
  // from this tree is anchored to it, unless that object had e's identity.
  bool Claimable(const Entry& e, const std::string& id) const {
    return !used_.contains(id) && (index_ == nullptr || !index_->Reserves(id, e.hash));
  }

  void ReconcileGroup(const std::vector<size_t>& group,
                      const std::vector<PreviousNode>* previous_siblings) {
    std::vector<size_t> open;
    for (size_t i : group) {
      if (final_ids_[i].empty()) open.push_back(i);
    }
    if (open.empty()) return;
    if (previous_siblings != nullptr) {
      std::unordered_map<std::string, const std::string*> by_identity;
      std::unordered_map<std::string, const std::string*> by_position;
      for (const PreviousNode& p : *previous_siblings) {
        by_identity.emplace(p.identity_key, &p.id);
        by_position.emplace(p.position_key, &p.id);
      }
      const auto take = [&](size_t i, const auto& map, const std::string& key) {
        auto it = map.find(key);
        if (it != map.end() && Claimable(entries_[i], *it->second)) Give(i, *it->second);
      };
      for (size_t i : open) {
        const Entry& e = entries_[i];
        take(i, by_identity, IdentityKey(e.node->role, e.dup_index, e.identity));
      }
      for (size_t i : open) {
        const Entry& e = entries_[i];
        if (final_ids_[i].empty()) take(i, by_position, PositionKey(e.node->role, e.role_index));
      }
    }
    for (size_t i : open) {
      if (final_ids_[i].empty()) Give(i, FreshId(entries_[i]));
    }
  }

  // An ID nobody holds now and nobody held in the previous snapshot, so an
  // agent's old reference never silently lands on a different widget.
  std::string FreshId(const Entry& e) const {
    const auto is_free = [&](const std::string& id) {
      return !prev_.Contains(id) && Claimable(e, id) &&
             (id == e.hash_id || !hash_ids_.contains(id));
    };
    if (is_free(e.hash_id)) return e.hash_id;
    const std::string prefix = std::string(RolePrefix(e.node->role)) + '_';
    for (int digits = kShortDigits; digits <= kMaxDigits; digits += 2) {
      std::string id = prefix + HexDigits(e.hash, digits);
      if (is_free(id)) return id;
    }
    for (int suffix = 2;; ++suffix) {
      std::string id = prefix + HexDigits(e.hash, kMaxDigits) + '-' + std::to_string(suffix);
      if (is_free(id)) return id;
    }
  }

  const std::vector<Entry>& entries_;
  const PreviousIndex prev_;
  const AnchorIndex* index_;  // null without anchors
  std::unordered_set<std::string> hash_ids_;
  std::unordered_set<std::string> used_;
  std::vector<std::string> final_ids_;
};

// Marks the nodes whose object can anchor an ID: those with a BackendRef that
// no other node of the tree shares. Two nodes claiming one object (a broken
// bridge) would trade the anchor back and forth between runs.
void MarkAnchorable(std::vector<Entry>& entries) {
  std::unordered_map<std::string, int> count;
  const auto key = [](const BackendRef& r) { return r.owner + '\n' + r.path; };
  for (const Entry& e : entries) {
    if (!e.node->ref.empty() && !e.node->ref.owner.empty()) ++count[key(e.node->ref)];
  }
  for (Entry& e : entries) {
    e.anchorable =
        !e.node->ref.empty() && !e.node->ref.owner.empty() && count[key(e.node->ref)] == 1;
  }
}

// Anchors every anchorable node's object to its final ID. An ID that moved
// to another object (the same widget built again) leaves its old object, so
// each ID stays anchored once per app.
void RecordAnchors(const std::vector<Entry>& entries, const std::vector<std::string>& ids,
                   IdAnchors& anchors) {
  std::map<std::string, std::vector<size_t>> by_owner;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].anchorable) by_owner[entries[i].node->ref.owner].push_back(i);
  }
  for (const auto& [owner, members] : by_owner) {
    AppAnchors& app = anchors.apps[owner];
    ++app.clock;
    std::unordered_map<std::string, const std::string*> path_of_id;
    for (size_t i : members) path_of_id.emplace(ids[i], &entries[i].node->ref.path);
    std::erase_if(app.by_path, [&](const auto& kv) {
      auto it = path_of_id.find(kv.second.id);
      return it != path_of_id.end() && *it->second != kv.first;
    });
    for (size_t i : members) {
      const Entry& e = entries[i];
      std::string parent;
      if (e.parent >= 0) {
        const Entry& p = entries[static_cast<size_t>(e.parent)];
        if (p.anchorable && p.node->ref.owner == owner) parent = p.node->ref.path;
      }
      const int leaf_index = CanSucceed(*e.node) ? e.shown_index : -1;
      app.by_path[e.node->ref.path] =
          IdAnchor{ids[i],    e.node->role,      e.hash,     e.origin,
                   app.clock, std::move(parent), leaf_index, CellAddress(*e.node)};
    }
    IdAnchors::Trim(app);
  }
}

void WriteIds(std::vector<Node>& nodes, const std::vector<std::string>& ids, size_t& next,
              const std::string& window) {
  for (Node& n : nodes) {
    n.id = ids[next++];
    n.window = IsWindowRole(n.role) ? n.id : window;
    WriteIds(n.children, ids, next, n.window);
  }
}

}  // namespace

uint64_t IdentityHash(uint64_t parent_hash, Role role, std::string_view identity_name,
                      int dup_index) {
  // Fixed little-endian layout, so IDs stored by memory/ are the same on every
  // host: parent hash (8 bytes), role (1), dup index (4), then the name.
  std::string buffer;
  buffer.reserve(13 + identity_name.size());
  for (int i = 0; i < 8; ++i) buffer.push_back(static_cast<char>((parent_hash >> (8 * i)) & 0xff));
  buffer.push_back(static_cast<char>(role));
  const auto dup = static_cast<uint32_t>(dup_index);
  for (int i = 0; i < 4; ++i) buffer.push_back(static_cast<char>((dup >> (8 * i)) & 0xff));
  buffer.append(identity_name);
  return XXH3_64bits(buffer.data(), buffer.size());
}

// Roles whose unnamed instances are known by the text they hold. Only items
// of collections: a generic container named after its first label would
// change ID (and re-ID its whole subtree) whenever that label's text changes,
// e.g. a status line inside a form.
static bool DerivesLabel(Role role) {
  switch (role) {
    case Role::kListItem:
    case Role::kTableRow:
    case Role::kTableCell:
    case Role::kTreeItem:
    case Role::kMenuItem:
    case Role::kCheckMenuItem:
    case Role::kRadioMenuItem:
    case Role::kTab:
    case Role::kButton:
    case Role::kToggleButton:
    case Role::kLink:
      return true;
    default:
      return false;
  }
}

std::string IdentityName(const Node& node) {
  if (!node.name.empty() || !DerivesLabel(node.role)) return node.name;
  // An unnamed row is known by the text it holds ("Row 7"), so it keeps its ID
  // when a row is inserted above it; its index would not.
  std::vector<std::string_view> names;
  CollectNames(node.children, kDerivedLabelDepth, names);
  std::string label;
  for (std::string_view name : names) {
    if (!label.empty()) label += ' ';
    label += name;
  }
  return label;
}

void AssignIds(std::vector<Node>& roots, const std::vector<Node>* previous, IdAnchors* anchors) {
  std::vector<Entry> entries;
  entries.reserve(CountNodes(roots));
  Flatten(roots, -1, entries);
  std::optional<AnchorIndex> index;
  if (anchors != nullptr) {
    MarkAnchorable(entries);
    index.emplace(*anchors, entries);
  }
  DeriveHashes(entries, index ? &*index : nullptr);

  std::vector<int> all(entries.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  ResolveCollisions(entries, all, kShortDigits);

  std::vector<std::string> final_ids;
  if (previous != nullptr || anchors != nullptr) {
    static const std::vector<Node> kNothing;
    final_ids =
        Reconciler(entries, previous != nullptr ? *previous : kNothing, index ? &*index : nullptr)
            .Run();
  } else {
    final_ids.reserve(entries.size());
    for (Entry& e : entries) final_ids.push_back(std::move(e.hash_id));
  }
  // The claims point into `anchors`: recorded only once nothing reads them.
  index.reset();
  if (anchors != nullptr) RecordAnchors(entries, final_ids, *anchors);
  // `entries` points into `roots`; it must not be used once the nodes change.
  entries.clear();
  size_t next = 0;
  WriteIds(roots, final_ids, next, "");
}

const Node* FindById(const std::vector<Node>& roots, std::string_view id) {
  for (const Node& n : roots) {
    if (n.id == id) return &n;
    if (const Node* found = FindById(n.children, id)) return found;
  }
  return nullptr;
}

}  // namespace uiscope
