// Stable, role-prefixed node IDs (DESIGN §4).
//
// An agent reads "btn_a3f2" in one observation and clicks it in the next, so an
// ID must name the same widget across re-observations, window moves, typing,
// sibling insertions and app restarts. It is therefore derived only from what
// identifies a widget to a person — its role, its name (or, for an unnamed
// row, the text it holds), its ancestors, and its rank among look-alike
// siblings — never from bounds, value, states or pid.
//
// IDs are RolePrefix + "_" + 4 lowercase hex digits of a 64-bit XXH3 identity
// hash. When two different nodes of one tree share those 4 digits, the
// smallest full hash keeps them and the others get 6 (then 8, ...) digits, so
// the outcome depends on the set of nodes, not on their order.
//
// Reconciliation against the previous snapshot keeps an ID when the identity
// changed but the node stayed in place (a renamed label, a retitled window and
// everything under it).
//
// All functions are pure and thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/id_anchors.h"
#include "core/node.h"

namespace uiscope {

// Assigns a stable ID to every node in `roots` (in place) and fills Node::window
// with the ID of the nearest window/dialog/alert ancestor-or-self ("" when
// none). The same input always yields the same IDs.
//
// With `previous` (the previous snapshot's roots, as returned by an earlier
// AssignIds), IDs are reconciled top-down. A node keeps the ID its identity
// hash gives it when the previous node with that ID was the same widget (same
// role, identity name and rank). Otherwise, under the same parent (by final
// ID), it takes the ID of the previous sibling with the same role, identity
// name and rank (the children of a renamed node), else of the previous
// sibling with the same role and index among same-role siblings (the renamed
// label, the retitled window). Each ID goes to one node; a node that matches
// nothing gets an ID that the previous snapshot did not use, so an old ID never
// silently moves to a different widget. `previous` is read in full before
// `roots` is written, so it may even be `&roots`.
//
// With `anchors` (id_anchors.h), a node whose object (Node::ref) is anchored
// with the node's role takes the anchored ID before anything else, and no
// other node takes an ID anchored to an object missing from `roots` unless
// it has the identity that object had; then `anchors` is updated to the IDs
// given (each app's anchors bounded by kMaxAnchorsPerApp). The outcome is a
// function of `roots`, `previous` and `anchors` alone.
//
// A node's identity hash is IdentityHash of its parent's origin
// (IdAnchor::origin): the hash its parent's ID was first derived from, so
// that a descendant built again after an ancestor was renamed (a window
// retitled, then a menu item rebuilt) has the hash it had when its ID was
// given. Without anchors, or with anchors that hold none of the tree's
// objects, every origin is the node's own hash: the hash of the plain
// ancestor chain, and the IDs are those AssignIds gave before origins.
void AssignIds(std::vector<Node>& roots, const std::vector<Node>* previous = nullptr,
               IdAnchors* anchors = nullptr);

// The identity hash of a node whose parent has origin `parent_hash` (0 for
// roots; without anchors, the parent's own identity hash). `identity_name` is
// the node's name, or the label derived from its descendants when it has none;
// `dup_index` its rank among siblings with the same role and identity name.
// Exposed for tests and for memory/, which stores targets by identity.
uint64_t IdentityHash(uint64_t parent_hash, Role role, std::string_view identity_name,
                      int dup_index);

// The name AssignIds identifies `node` by: its name, or when that is empty the
// first two non-empty names among its descendants at most 3 levels down
// (depth-first, joined by " "), or "" when there are none.
std::string IdentityName(const Node& node);

// Finds a node by ID, depth-first; nullptr if absent.
const Node* FindById(const std::vector<Node>& roots, std::string_view id);

}  // namespace uiscope
