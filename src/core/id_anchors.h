// ID anchors (issue 15 §4): which ID each accessible object of a running app
// was given, so that the ID follows the object, not its name.
//
// The identity hash of ids.h names a widget by role, name and ancestors, so a
// window title gaining '*', a calculator display showing a new value or a tab
// retitled would re-ID the element (and, for a title, everything under it),
// and a process that starts afresh (each CLI call) has no previous snapshot
// to reconcile against. While an app runs, its accessible objects keep their
// BackendRef (AT-SPI: the app's unique bus name, which the bus never gives to
// another connection, and the object path), so that pair anchors the ID; the
// hash only names objects never seen.
//
// Some toolkits replace an object instead of changing it (Chromium builds a
// new text leaf when a page sets an element's textContent). An object that
// appears where one showing in one of the app's last few observations
// vanished — same parent object, same role, same rank among the showing
// siblings of that role — is taken to be its successor and inherits its ID, as the
// in-process reconciliation against the previous snapshot does for nodes
// without references. Only text leaves (labels, text runs): a container
// whose place another takes is more likely a stack page hidden (and shown
// again later) than destroyed, and a wrong guess on a control costs more.
//
// An ancestor's name changing must not change how new descendants are named
// either: mousepad rebuilds its Reload menu item, Chromium a page's subtree,
// after the window or document was retitled. So an anchor also records the
// origin of its ID — the identity hash the ID was first derived from — and a
// node whose ID comes from an anchor passes that origin, not its current
// identity hash, to its children's hashes (ids.h). A descendant built again
// then has the identity hash it had when its ID was given, and takes the ID
// back as the same widget built again (IdAnchor::hash).
//
// Paths can be reused for another object once the first is gone (Qt builds
// them from pointers), so an anchor holds only for a node of the role it was
// recorded with; a node of another role at that path gets a new ID and
// replaces the anchor. A reused path with the same role is indistinguishable
// from the same object and keeps the ID.
//
// Plain data, thread-compatible. AssignIds (ids.h) reads and updates it;
// engine/id_anchor_store.h keeps it on disk per app.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "core/node.h"

namespace uiscope {

struct IdAnchor {
  std::string id;
  Role role = Role::kUnknown;
  // The identity hash (ids.h) the node had when last seen: an object never
  // seen whose identity equals it is the same widget shown again (a dialog
  // closed and reopened builds new objects, a browser a retitled document)
  // and takes over the ID and its origin, once this object is gone.
  uint64_t hash = 0;
  // The identity hash the ID was first derived from, which the node's
  // children derive theirs from while it holds the ID. It equals `hash` for
  // an ID given by the hash and stays when the node is renamed (`hash`
  // follows the name); a successor's ID carries the origin of the ID it
  // took. A node that took an ID from the previous snapshot by place (ids.h)
  // starts from its own hash: the snapshot holds no origins, and its
  // children keep their IDs there by the same reconciliation. A new node
  // whose hash is an origin another node holds (a tab opened with the title
  // a renamed tab first had) passes on one derived from it instead, so the
  // two subtrees never share hashes (two instances of one app, identical
  // from the root, still do, as they share hashes without anchors). Files
  // written before origins existed load with origin = hash.
  uint64_t origin = 0;
  uint64_t seen = 0;  // the app's clock when last seen: the least recent go first
  // Where the object was when last seen: its parent's path ("" for a root or
  // a parent without a reference) and, for a showing text leaf, its rank
  // among its showing siblings of its role (-1 otherwise). A new text leaf
  // that replaced it there within the next few observations takes its ID.
  std::string parent;
  int shown_index = -1;
  // For a table cell, its name (its address, "B2"): sheets such as
  // LibreOffice Calc's build a new object for a cell each time it is asked
  // for, so a new cell object at that address in the same table takes its
  // ID, whatever its ancestors are called now. "" otherwise.
  std::string cell;
};

// The anchors of one application (one bus name).
struct AppAnchors {
  std::unordered_map<std::string, IdAnchor> by_path;
  uint64_t clock = 0;  // advanced by every assignment that saw the app
};

// Most anchors kept per application: the walk's own cap (TreeRequest's
// max_nodes), so one observation, even with --all, never loses its own
// anchors to the bound; the objects least recently seen are dropped first.
inline constexpr size_t kMaxAnchorsPerApp = 20000;

struct IdAnchors {
  std::map<std::string, AppAnchors> apps;  // by owner (BackendRef::owner)

  // The anchor of the object `ref`, or null.
  const IdAnchor* Find(const BackendRef& ref) const;
  // Drops the least recently seen anchors of `app` beyond `max` (ties: by
  // path, so the outcome is the same on every run).
  static void Trim(AppAnchors& app, size_t max = kMaxAnchorsPerApp);
};

}  // namespace uiscope
