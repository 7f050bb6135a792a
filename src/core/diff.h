// Tree diff: what changed between two observations, matched by stable ID
// (DESIGN §3 `diff` format, §7 verification of actions).
//
// Both trees must carry IDs from AssignIds, the later one reconciled against
// the earlier (core/ids.h), so a renamed label keeps its ID and shows up as
// a change of name rather than as one node removed and another added.
//
// What counts:
// - added: nodes whose ID the earlier tree lacks. Only the topmost node of
//   an added subtree is listed; it carries its subtree.
// - removed: nodes whose ID the later tree lacks, topmost only, with the
//   number of nodes that went with them.
// - changed: nodes in both whose name, value, description, states, actions
//   or bounds differ, with the old and new value of each field. A node that
//   moved by the same offset as its parent (a window dragged, a list
//   scrolled as a whole) is not listed: the topmost moved node stands for
//   its subtree.
// Password fields never carry a value (Node::value is empty for them and the
// formats drop it), so a diff never reveals what was typed into one.
//
// Pure and thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"

namespace uiscope {

struct FieldChange {
  std::string field;   // "name", "value", "description", "states", "actions", "bounds"
  std::string before;  // bounds as "x,y,w,h" ("" when absent); states / actions space-separated
  std::string after;
};

struct NodeChange {
  std::string id;
  Role role = Role::kUnknown;
  std::string name;  // the name after the change
  std::vector<FieldChange> fields;
  // states: the ones that appeared and the ones that went ("checked", "focused").
  std::vector<std::string> states_added;
  std::vector<std::string> states_removed;
};

struct RemovedNode {
  std::string id;
  Role role = Role::kUnknown;
  std::string name;
  std::string parent_id;  // "" for a root
  int subtree_size = 1;   // this node and its descendants
};

struct AddedNode {
  std::string parent_id;  // "" for a root
  Node node;              // with its subtree
  int subtree_size = 1;
};

struct TreeDiff {
  std::vector<AddedNode> added;
  std::vector<RemovedNode> removed;
  std::vector<NodeChange> changed;

  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
  // Every ID mentioned: added subtrees in full, removed topmost nodes, changed nodes.
  std::vector<std::string> Ids() const;
};

struct DiffOptions {
  bool bounds = true;   // report bounds changes
  bool actions = true;  // report changes of the action list
};

TreeDiff DiffTrees(const std::vector<Node>& before, const std::vector<Node>& after,
                   const DiffOptions& options = {});

// {"added": [{"parent_id", "subtree_size", "node": NodeToJson}], "removed":
// [{"id", "role", "name", "parent_id", "subtree_size"}], "changed": [{"id",
// "role", "name", "fields": [{"field", "before", "after"}], "states_added",
// "states_removed"}]}. `max_added_nodes` bounds the nodes serialised under
// "added" (0 = all); subtrees beyond it are cut (their subtree_size stays).
nlohmann::json DiffToJson(const TreeDiff& diff, int max_added_nodes = 0);

// One line per entry, for people and models:
//   + [button "OK" id=btn_1a2b bounds=10,5,80,30] in win_b253
//   - [label "Not logged in" id=lbl_443d] (3 nodes)
//   ~ lbl_443d label "Logged in as a@b.c": name "Not logged in" → "Logged in as a@b.c"
//   ~ chk_7850 check_box "Remember me": states +checked
// Added subtrees are indented below their topmost node; at most `max_lines`
// lines (0 = all), then "… N more".
std::string FormatDiff(const TreeDiff& diff, int max_lines = 0);

}  // namespace uiscope
