#include "core/ids.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "test_trees.h"

namespace uiscope {
namespace {

using testing::CollectIds;
using testing::MakeNode;

// An editor-like tree: application > window > (tool bar, list of unnamed rows
// each holding a label, text field, two "OK" buttons).
std::vector<Node> EditorTree(const std::string& title = "Notes - Editor") {
  std::vector<Node> rows;
  for (int i = 1; i <= 5; ++i) {
    rows.push_back(
        MakeNode(Role::kListItem, "", {MakeNode(Role::kLabel, "Row " + std::to_string(i))}));
  }
  Node field = MakeNode(Role::kTextField, "Search");
  field.value = "hello";
  Node window =
      MakeNode(Role::kWindow, title,
               {MakeNode(Role::kToolBar, "",
                         {MakeNode(Role::kButton, "Open"), MakeNode(Role::kButton, "Save")}),
                MakeNode(Role::kList, "Files", std::move(rows)), std::move(field),
                MakeNode(Role::kButton, "OK"), MakeNode(Role::kButton, "OK")});
  window.bounds = Rect{10, 20, 800, 600};
  Node app = MakeNode(Role::kApplication, "notes", {std::move(window)});
  app.pid = 4242;
  std::vector<Node> roots;
  roots.push_back(std::move(app));
  return roots;
}

std::vector<Node> Assigned(std::vector<Node> roots, const std::vector<Node>* previous = nullptr) {
  AssignIds(roots, previous);
  return roots;
}

// The list of EditorTree: app > window > list.
Node& FileList(std::vector<Node>& roots) { return roots[0].children[0].children[1]; }

TEST(IdsTest, EveryNodeGetsAWellFormedUniqueId) {
  const std::vector<Node> roots = Assigned(EditorTree());
  const std::regex well_formed("[a-z]+_[0-9a-f]{4}");
  std::set<std::string> seen;
  for (const std::string& id : CollectIds(roots)) {
    EXPECT_TRUE(std::regex_match(id, well_formed)) << id;
    EXPECT_TRUE(seen.insert(id).second) << "duplicate " << id;
  }
  EXPECT_EQ(roots[0].id.substr(0, 4), "app_");
  EXPECT_EQ(roots[0].children[0].id.substr(0, 4), "win_");
}

TEST(IdsTest, DeterministicOverTenRuns) {
  const std::vector<std::string> first = CollectIds(Assigned(EditorTree()));
  for (int run = 0; run < 10; ++run) {
    EXPECT_EQ(CollectIds(Assigned(EditorTree())), first);
    // Reconciling against itself changes nothing either.
    const std::vector<Node> previous = Assigned(EditorTree());
    EXPECT_EQ(CollectIds(Assigned(EditorTree(), &previous)), first);
  }
}

TEST(IdsTest, UnchangedByBoundsValueStatesAndPid) {
  const std::vector<std::string> before = CollectIds(Assigned(EditorTree()));
  std::vector<Node> moved = EditorTree();
  ForEachNodeMutable(moved, [](Node& n, int depth) {
    n.bounds = Rect{100 + depth, 200, 30, 40};
    n.value = "typed " + std::to_string(depth);
    n.states.Set(State::kFocused);
    n.states.Set(State::kEnabled, false);
    n.pid = 9999;
    n.description = "changed";
  });
  EXPECT_EQ(CollectIds(Assigned(std::move(moved))), before);
}

TEST(IdsTest, RowsKeepIdsWhenARowIsInsertedAbove) {
  const std::vector<Node> before = Assigned(EditorTree());
  std::vector<Node> after = EditorTree();
  auto& rows = FileList(after).children;
  rows.insert(rows.begin(), MakeNode(Role::kListItem, "", {MakeNode(Role::kLabel, "Row 0")}));

  for (const std::vector<Node>* previous :
       {static_cast<const std::vector<Node>*>(nullptr), &before}) {
    const std::vector<Node> assigned = Assigned(after, previous);
    const auto& old_rows = before[0].children[0].children[1].children;
    const auto& new_rows = assigned[0].children[0].children[1].children;
    ASSERT_EQ(new_rows.size(), 6u);
    for (size_t i = 0; i < old_rows.size(); ++i) {
      EXPECT_EQ(new_rows[i + 1].id, old_rows[i].id) << "row " << i + 1;
      EXPECT_EQ(new_rows[i + 1].children[0].id, old_rows[i].children[0].id);
    }
    // The new row is new: it must not inherit the first row's ID.
    EXPECT_EQ(FindById(before, new_rows[0].id), nullptr);
    // Everything outside the list is untouched.
    EXPECT_EQ(assigned[0].children[0].children[2].id, before[0].children[0].children[2].id);
  }
}

TEST(IdsTest, DuplicateNamesGetDistinctIds) {
  const std::vector<Node> roots = Assigned(EditorTree());
  const Node& window = roots[0].children[0];
  EXPECT_EQ(window.children[3].name, "OK");
  EXPECT_EQ(window.children[4].name, "OK");
  EXPECT_NE(window.children[3].id, window.children[4].id);
  // The same name under different parents is a different widget too.
  std::vector<Node> two_windows = {MakeNode(Role::kWindow, "A", {MakeNode(Role::kButton, "OK")}),
                                   MakeNode(Role::kWindow, "B", {MakeNode(Role::kButton, "OK")})};
  AssignIds(two_windows);
  EXPECT_NE(two_windows[0].children[0].id, two_windows[1].children[0].id);
}

TEST(IdsTest, IdentityHashDependsOnEachPart) {
  const uint64_t base = IdentityHash(1, Role::kButton, "OK", 0);
  EXPECT_EQ(IdentityHash(1, Role::kButton, "OK", 0), base);
  EXPECT_NE(IdentityHash(2, Role::kButton, "OK", 0), base);
  EXPECT_NE(IdentityHash(1, Role::kLink, "OK", 0), base);
  EXPECT_NE(IdentityHash(1, Role::kButton, "Ok", 0), base);
  EXPECT_NE(IdentityHash(1, Role::kButton, "OK", 1), base);
}

TEST(IdsTest, IdentityNameFallsBackToDescendantNames) {
  EXPECT_EQ(IdentityName(MakeNode(Role::kButton, "Play")), "Play");
  const Node row = MakeNode(
      Role::kTableRow, "",
      {MakeNode(Role::kTableCell, "", {MakeNode(Role::kLabel, "Alice")}),
       MakeNode(Role::kTableCell, "42"), MakeNode(Role::kTableCell, "ignored: third name")});
  EXPECT_EQ(IdentityName(row), "Alice 42");
  // Names deeper than 3 levels do not identify the node.
  const Node deep = MakeNode(
      Role::kPanel, "",
      {MakeNode(Role::kPanel, "",
                {MakeNode(Role::kPanel, "",
                          {MakeNode(Role::kPanel, "", {MakeNode(Role::kLabel, "deep")})})})});
  EXPECT_EQ(IdentityName(deep), "");
}

// Finds two names whose button IDs share the 4 short digits, by brute force:
// with 65536 buckets a birthday collision shows up after a few hundred names.
std::pair<std::string, std::string> CollidingNames() {
  std::unordered_map<uint64_t, std::string> seen;
  for (int i = 0;; ++i) {
    std::string name = "Button " + std::to_string(i);
    const uint64_t low = IdentityHash(0, Role::kButton, name, 0) & 0xffff;
    auto [it, inserted] = seen.emplace(low, name);
    if (!inserted) return {it->second, name};
  }
}

TEST(IdsTest, CollisionsResolvedIndependentOfOrder) {
  const auto [a, b] = CollidingNames();
  const uint64_t hash_a = IdentityHash(0, Role::kButton, a, 0);
  const uint64_t hash_b = IdentityHash(0, Role::kButton, b, 0);
  ASSERT_EQ(hash_a & 0xffff, hash_b & 0xffff);
  ASSERT_NE(hash_a, hash_b);

  std::vector<Node> ab = {MakeNode(Role::kButton, a), MakeNode(Role::kButton, b)};
  std::vector<Node> ba = {MakeNode(Role::kButton, b), MakeNode(Role::kButton, a)};
  AssignIds(ab);
  AssignIds(ba);
  EXPECT_EQ(ab[0].id, ba[1].id);
  EXPECT_EQ(ab[1].id, ba[0].id);
  EXPECT_NE(ab[0].id, ab[1].id);

  // The smaller full hash keeps 4 digits, the other gets 6.
  const std::string& small_id = hash_a < hash_b ? ab[0].id : ab[1].id;
  const std::string& large_id = hash_a < hash_b ? ab[1].id : ab[0].id;
  EXPECT_TRUE(std::regex_match(small_id, std::regex("btn_[0-9a-f]{4}"))) << small_id;
  EXPECT_TRUE(std::regex_match(large_id, std::regex("btn_[0-9a-f]{6}"))) << large_id;
  // Alone, a node keeps its 4 digits.
  std::vector<Node> alone = {MakeNode(Role::kButton, hash_a < hash_b ? b : a)};
  AssignIds(alone);
  EXPECT_EQ(alone[0].id.size(), 8u);
}

TEST(IdsTest, NewcomerWinningACollisionDoesNotTakeAnExistingId) {
  // Without a previous snapshot the smaller hash gets the short ID; with one,
  // the widget already known by that short ID keeps it, and the newcomer gets
  // an ID no previous widget had.
  const auto [a, b] = CollidingNames();
  const bool a_smaller =
      IdentityHash(0, Role::kButton, a, 0) < IdentityHash(0, Role::kButton, b, 0);
  const std::string& small = a_smaller ? a : b;
  const std::string& large = a_smaller ? b : a;

  const std::vector<Node> before = Assigned({MakeNode(Role::kButton, large)});
  ASSERT_EQ(before[0].id.size(), 8u);
  const std::vector<Node> after =
      Assigned({MakeNode(Role::kButton, large), MakeNode(Role::kButton, small)}, &before);
  EXPECT_EQ(after[0].id, before[0].id);
  EXPECT_NE(after[1].id, before[0].id);
  EXPECT_EQ(after[1].id.substr(0, 4), "btn_");
  // And both hold on from then on.
  const std::vector<Node> later =
      Assigned({MakeNode(Role::kButton, small), MakeNode(Role::kButton, large)}, &after);
  EXPECT_EQ(later[0].id, after[1].id);
  EXPECT_EQ(later[1].id, after[0].id);
}

TEST(IdsTest, ReconciliationKeepsRenamedLabelId) {
  std::vector<Node> tree = {
      MakeNode(Role::kWindow, "Counter",
               {MakeNode(Role::kLabel, "Count: 1"), MakeNode(Role::kButton, "Add")})};
  const std::vector<Node> before = Assigned(tree);
  tree[0].children[0].name = "Count: 2";

  const std::vector<Node> reconciled = Assigned(tree, &before);
  EXPECT_EQ(reconciled[0].children[0].id, before[0].children[0].id);
  EXPECT_EQ(CollectIds(reconciled), CollectIds(before));

  // Without a previous snapshot there is nothing to reconcile with.
  const std::vector<Node> fresh = Assigned(tree);
  EXPECT_NE(fresh[0].children[0].id, before[0].children[0].id);
  EXPECT_EQ(fresh[0].children[1].id, before[0].children[1].id);
}

TEST(IdsTest, ReconciliationKeepsRetitledWindowSubtree) {
  const std::vector<Node> first = Assigned(EditorTree("Notes - Editor"));
  const std::vector<Node> second = Assigned(EditorTree("Notes* - Editor"), &first);
  EXPECT_EQ(CollectIds(second), CollectIds(first));
  EXPECT_EQ(second[0].children[0].name, "Notes* - Editor");

  // Fresh hashing changes the whole subtree, which is why reconciliation exists.
  const std::vector<std::string> fresh = CollectIds(Assigned(EditorTree("Notes* - Editor")));
  EXPECT_NE(fresh[1], CollectIds(first)[1]);
  EXPECT_NE(fresh[2], CollectIds(first)[2]);

  // The subtree still holds on the next observations, whose previous snapshot
  // is itself reconciled, and still tracks rows by name under the new title.
  const std::vector<Node> third = Assigned(EditorTree("Notes* - Editor"), &second);
  EXPECT_EQ(CollectIds(third), CollectIds(first));
  std::vector<Node> inserted = EditorTree("Notes* - Editor");
  auto& rows = FileList(inserted).children;
  rows.insert(rows.begin(), MakeNode(Role::kListItem, "", {MakeNode(Role::kLabel, "Row 0")}));
  const std::vector<Node> fourth = Assigned(inserted, &third);
  const auto& old_rows = first[0].children[0].children[1].children;
  const auto& new_rows = fourth[0].children[0].children[1].children;
  for (size_t i = 0; i < old_rows.size(); ++i) EXPECT_EQ(new_rows[i + 1].id, old_rows[i].id);
  EXPECT_EQ(FindById(first, new_rows[0].id), nullptr);
}

TEST(IdsTest, ReconciliationNeverReusesAnIdHeldByIdentity) {
  // "A" stays; "B" appears in front of it. "B" sits where "A" was, but "A"'s
  // ID belongs to "A", so "B" must get a new one.
  const std::vector<Node> before =
      Assigned({MakeNode(Role::kWindow, "W", {MakeNode(Role::kLabel, "A")})});
  const std::vector<Node> after = Assigned(
      {MakeNode(Role::kWindow, "W", {MakeNode(Role::kLabel, "B"), MakeNode(Role::kLabel, "A")})},
      &before);
  EXPECT_EQ(after[0].children[1].id, before[0].children[0].id);
  EXPECT_NE(after[0].children[0].id, before[0].children[0].id);
}

TEST(IdsTest, ReconciliationNeedsSameRoleAndParent) {
  const std::vector<Node> before =
      Assigned({MakeNode(Role::kWindow, "W", {MakeNode(Role::kLabel, "A")}),
                MakeNode(Role::kWindow, "V", {MakeNode(Role::kButton, "Go")})});
  // The label turned into a button with another name: not the same widget.
  const std::vector<Node> role_changed =
      Assigned({MakeNode(Role::kWindow, "W", {MakeNode(Role::kButton, "A2")}),
                MakeNode(Role::kWindow, "V", {MakeNode(Role::kButton, "Go")})},
               &before);
  EXPECT_EQ(FindById(before, role_changed[0].children[0].id), nullptr);
  // A renamed button under another parent does not take "Go"'s ID either.
  const std::vector<Node> moved = Assigned(
      {MakeNode(Role::kWindow, "W", {MakeNode(Role::kLabel, "A"), MakeNode(Role::kButton, "Went")}),
       MakeNode(Role::kWindow, "V")},
      &before);
  EXPECT_NE(moved[0].children[1].id, before[1].children[0].id);
}

TEST(IdsTest, WindowFieldNamesNearestWindowLikeAncestor) {
  std::vector<Node> roots = {
      MakeNode(Role::kApplication, "app",
               {MakeNode(Role::kWindow, "Main",
                         {MakeNode(Role::kButton, "Go"),
                          MakeNode(Role::kDialog, "Confirm", {MakeNode(Role::kButton, "Yes")})}),
                MakeNode(Role::kAlert, "Oops", {MakeNode(Role::kLabel, "Failed")})})};
  AssignIds(roots);
  const Node& app = roots[0];
  const Node& main = app.children[0];
  const Node& dialog = main.children[1];
  const Node& alert = app.children[1];
  EXPECT_EQ(app.window, "");
  EXPECT_EQ(main.window, main.id);
  EXPECT_EQ(main.children[0].window, main.id);
  EXPECT_EQ(dialog.window, dialog.id);
  EXPECT_EQ(dialog.children[0].window, dialog.id);
  EXPECT_EQ(alert.children[0].window, alert.id);
}

TEST(IdsTest, FindById) {
  const std::vector<Node> roots = Assigned(EditorTree());
  const Node& save = roots[0].children[0].children[0].children[1];
  EXPECT_EQ(FindById(roots, save.id), &save);
  EXPECT_EQ(FindById(roots, "btn_zzzz"), nullptr);
  EXPECT_EQ(FindById({}, save.id), nullptr);
}

TEST(IdsTest, PreviousMayAliasRoots) {
  std::vector<Node> roots = Assigned(EditorTree());
  const std::vector<std::string> before = CollectIds(roots);
  AssignIds(roots, &roots);
  EXPECT_EQ(CollectIds(roots), before);
}

}  // namespace
}  // namespace uiscope

namespace uiscope {
namespace {

Node Leaf(Role role, std::string name) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  return n;
}

// A form box holding a status line: when the status text changes, the box
// and its other children keep their IDs even without a previous snapshot
// (only collection items are named after the text they hold).
TEST(IdsTest, ContainerIdDoesNotFollowItsFirstLabel) {
  auto tree = [](const std::string& status) {
    Node panel;
    panel.role = Role::kPanel;
    panel.children.push_back(Leaf(Role::kLabel, status));
    panel.children.push_back(Leaf(Role::kButton, "Login"));
    Node window = Leaf(Role::kWindow, "Form");
    window.children.push_back(std::move(panel));
    std::vector<Node> roots;
    roots.push_back(std::move(window));
    AssignIds(roots);
    return roots;
  };
  auto before = tree("Not logged in");
  auto after = tree("Logged in as ada@example.org");
  EXPECT_EQ(before[0].children[0].id, after[0].children[0].id);
  EXPECT_EQ(before[0].children[0].children[1].id, after[0].children[0].children[1].id);
}

// The IDs of a tree without anchors and without a previous snapshot are a
// contract: memory/ and agents' notes hold them across versions. Pinned here
// so that a change to how hashes are derived cannot move them silently.
TEST(IdsTest, HashIdsArePinned) {
  const std::vector<std::string> pinned = {
      "app_9293", "win_07bb", "tb_fbc3",  "btn_974a", "btn_9319", "lst_2688", "itm_cc2f",
      "lbl_18b8", "itm_d28b", "lbl_b87b", "itm_f7be", "lbl_7c64", "itm_65f0", "lbl_1c66",
      "itm_fa33", "lbl_fdd9", "txt_4468", "btn_cc0d", "btn_815d"};
  EXPECT_EQ(CollectIds(Assigned(EditorTree())), pinned);
  // Reconciled against a previous snapshot, without anchors: the same too.
  const std::vector<Node> before = Assigned(EditorTree());
  std::vector<Node> retitled = EditorTree("*Notes - Editor");
  FileList(retitled).children.insert(
      FileList(retitled).children.begin(),
      MakeNode(Role::kListItem, "", {MakeNode(Role::kLabel, "Row 0")}));
  const std::vector<std::string> pinned_reconciled = {
      "app_9293", "win_07bb", "tb_fbc3",  "btn_974a", "btn_9319", "lst_2688", "itm_c280",
      "lbl_f281", "itm_cc2f", "lbl_18b8", "itm_d28b", "lbl_b87b", "itm_f7be", "lbl_7c64",
      "itm_65f0", "lbl_1c66", "itm_fa33", "lbl_fdd9", "txt_4468", "btn_cc0d", "btn_815d"};
  EXPECT_EQ(CollectIds(Assigned(retitled, &before)), pinned_reconciled);
}

}  // namespace
}  // namespace uiscope
