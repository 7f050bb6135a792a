#include "core/diff.h"

#include <gtest/gtest.h>

#include "core/format.h"
#include "core/ids.h"
#include "test_trees.h"

namespace uiscope {
namespace {

using testing::MakeNode;

Node WithBounds(Node n, Rect r) {
  n.bounds = r;
  return n;
}

// app > window > (label status, check box, text field, password, list of rows)
std::vector<Node> Form() {
  Node field = WithBounds(MakeNode(Role::kTextField, "Email"), {10, 10, 100, 20});
  field.value = "ada";
  Node password = WithBounds(MakeNode(Role::kTextField, "Password"), {10, 40, 100, 20});
  password.states.Set(State::kPassword);
  Node list = WithBounds(MakeNode(Role::kList, "Rows"), {200, 10, 100, 200});
  for (int i = 1; i <= 3; ++i) {
    list.children.push_back(WithBounds(MakeNode(Role::kListItem, "Row " + std::to_string(i)),
                                       {200, 10 + 30 * i, 100, 30}));
  }
  Node window =
      WithBounds(MakeNode(Role::kWindow, "Form",
                          {WithBounds(MakeNode(Role::kLabel, "Not logged in"), {10, 100, 80, 20}),
                           WithBounds(MakeNode(Role::kCheckBox, "Remember me"), {10, 70, 80, 20}),
                           std::move(field), std::move(password), std::move(list)}),
                 {0, 0, 400, 300});
  Node app = MakeNode(Role::kApplication, "form", {std::move(window)});
  std::vector<Node> roots;
  roots.push_back(std::move(app));
  AssignIds(roots);
  return roots;
}

Node& Window(std::vector<Node>& roots) { return roots[0].children[0]; }

// `after` with IDs reconciled against `before`, as the observer does.
std::vector<Node> Reconciled(std::vector<Node> after, const std::vector<Node>& before) {
  AssignIds(after, &before);
  return after;
}

TEST(DiffTest, SameTreeIsEmpty) {
  auto a = Form();
  TreeDiff d = DiffTrees(a, a);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(FormatDiff(d), "");
}

TEST(DiffTest, ARenamedLabelIsAChangeNotARemovalAndAnAddition) {
  auto before = Form();
  auto after = before;
  Window(after).children[0].name = "Logged in as ada";
  after = Reconciled(after, before);
  TreeDiff d = DiffTrees(before, after);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.removed.empty());
  const NodeChange& c = d.changed[0];
  EXPECT_EQ(c.id, Window(before).children[0].id);
  ASSERT_EQ(c.fields.size(), 1u);
  EXPECT_EQ(c.fields[0].field, "name");
  EXPECT_EQ(c.fields[0].before, "Not logged in");
  EXPECT_EQ(c.fields[0].after, "Logged in as ada");
  EXPECT_NE(FormatDiff(d).find("name \"Not logged in\" → \"Logged in as ada\""), std::string::npos)
      << FormatDiff(d);
}

TEST(DiffTest, StatesValuesAndBoundsChanges) {
  auto before = Form();
  auto after = before;
  Window(after).children[1].states.Set(State::kChecked);
  Window(after).children[2].value = "ada@example.org";
  Window(after).children[2].bounds = Rect{10, 10, 120, 20};
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  ASSERT_EQ(d.changed.size(), 2u);
  EXPECT_EQ(d.changed[0].states_added, std::vector<std::string>{"checked"});
  EXPECT_TRUE(d.changed[0].states_removed.empty());
  ASSERT_EQ(d.changed[1].fields.size(), 2u);
  EXPECT_EQ(d.changed[1].fields[0].field, "value");
  EXPECT_EQ(d.changed[1].fields[1].field, "bounds");
  EXPECT_EQ(d.changed[1].fields[1].before, "10,10,100,20");
  EXPECT_EQ(d.changed[1].fields[1].after, "10,10,120,20");
  const std::string text = FormatDiff(d);
  EXPECT_NE(text.find("states +checked"), std::string::npos) << text;
  DiffOptions no_bounds;
  no_bounds.bounds = false;
  EXPECT_EQ(DiffTrees(before, Reconciled(after, before), no_bounds).changed[1].fields.size(), 1u);
}

TEST(DiffTest, PasswordValuesNeverAppear) {
  auto before = Form();
  auto after = before;
  Window(after).children[3].value = "hunter2";  // a backend bug: the diff still hides it
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(DiffToJson(d).dump().find("hunter2"), std::string::npos);
}

TEST(DiffTest, AddedAndRemovedSubtreesAreListedOnceAtTheirTop) {
  auto before = Form();
  auto after = before;
  Node& list = Window(after).children[4];
  list.children.erase(list.children.begin());  // Row 1 scrolled out
  Node dialog = MakeNode(Role::kDialog, "Saved", {MakeNode(Role::kButton, "OK")});
  dialog.bounds = Rect{50, 50, 100, 60};
  after[0].children.push_back(std::move(dialog));
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0].node.name, "Saved");
  EXPECT_EQ(d.added[0].subtree_size, 2);
  EXPECT_EQ(d.added[0].parent_id, before[0].id);
  ASSERT_EQ(d.removed.size(), 1u);
  EXPECT_EQ(d.removed[0].name, "Row 1");
  EXPECT_EQ(d.removed[0].parent_id, Window(before).children[4].id);
  EXPECT_EQ(d.Ids().size(), 3u);  // the dialog, its button, the row
  const std::string text = FormatDiff(d);
  EXPECT_NE(text.find("+ [dialog \"Saved\""), std::string::npos) << text;
  EXPECT_NE(text.find("    [button \"OK\""), std::string::npos) << text;
  EXPECT_NE(text.find("- [list_item \"Row 1\""), std::string::npos) << text;
  nlohmann::json j = DiffToJson(d);
  EXPECT_EQ(j["added"][0]["node"]["children"][0]["name"], "OK");
  EXPECT_EQ(j["removed"][0]["subtree_size"], 1);
  EXPECT_EQ(DiffToJson(d, 1)["added"][0]["node"].count("children"), 0u);
}

TEST(DiffTest, AWindowMovedIsOneChangeNotOnePerDescendant) {
  auto before = Form();
  auto after = before;
  ForEachNodeMutable(after, [](Node& n, int) {
    if (n.bounds) n.bounds = n.bounds->Translated(50, 20);
  });
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  ASSERT_EQ(d.changed.size(), 1u) << FormatDiff(d);
  EXPECT_EQ(d.changed[0].role, Role::kWindow);
}

TEST(DiffTest, ScrollingAListReportsItsRowsButNotTheirChildren) {
  auto before = Form();
  auto after = before;
  for (Node& row : Window(after).children[4].children) {
    row.bounds = row.bounds->Translated(0, -30);
    for (Node& c : row.children) c.bounds = c.bounds->Translated(0, -30);
  }
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  EXPECT_EQ(d.changed.size(), 3u) << FormatDiff(d);
}

TEST(DiffTest, FormatDiffCapsItsLines) {
  auto before = Form();
  auto after = before;
  for (Node& row : Window(after).children[4].children) row.name += "!";
  TreeDiff d = DiffTrees(before, Reconciled(after, before));
  const std::string text = FormatDiff(d, 2);
  EXPECT_NE(text.find("… 1 more"), std::string::npos) << text;
}

}  // namespace
}  // namespace uiscope

namespace uiscope {
namespace {

TEST(NodesFromJsonTest, RoundTripsTheJsonFormat) {
  auto roots = Form();
  Window(roots).children[1].states.Set(State::kChecked);
  Window(roots).children[1].actions = {"click"};
  Window(roots).children[0].source = Source::kOcr;
  Window(roots).children[0].confidence = 0.5f;
  nlohmann::json j = nlohmann::json::array();
  for (const Node& n : roots) j.push_back(NodeToJson(n));
  auto back = NodesFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  nlohmann::json again = nlohmann::json::array();
  for (const Node& n : *back) again.push_back(NodeToJson(n));
  EXPECT_EQ(again, j);
  EXPECT_TRUE(DiffTrees(roots, *back).empty());
  EXPECT_FALSE(NodesFromJson(nlohmann::json::object()).ok());
  EXPECT_FALSE(NodesFromJson(nlohmann::json::array({{{"bounds", {{"x", "a"}}}}})).ok());
}

}  // namespace
}  // namespace uiscope
