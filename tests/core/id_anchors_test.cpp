// ID anchoring (core/id_anchors.h) on plain trees: an object keeps its ID
// through what apps do to names, values and ancestors, across processes that
// share only the anchors (no previous snapshot), and with or without hidden
// nodes.
#include "core/id_anchors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/ids.h"
#include "test_trees.h"

namespace uiscope {
namespace {

using testing::CollectIds;
using testing::MakeNode;

constexpr char kOwner[] = ":1.42";

Node Obj(Role role, std::string name, std::string path, std::vector<Node> children = {}) {
  Node n = MakeNode(role, std::move(name), std::move(children));
  n.ref = BackendRef{kOwner, std::move(path)};
  return n;
}

// A calculator: app > window "Calc" > (display label, "1" and "=" buttons,
// a list of three unnamed-but-labelled rows).
std::vector<Node> CalcTree(const std::string& title = "Calc", const std::string& display = "0") {
  std::vector<Node> rows;
  for (int i = 1; i <= 3; ++i) {
    const std::string p = "/row" + std::to_string(i);
    rows.push_back(
        Obj(Role::kListItem, "", p, {Obj(Role::kLabel, "Row " + std::to_string(i), p + "/label")}));
  }
  Node window = Obj(
      Role::kWindow, title, "/win",
      {Obj(Role::kLabel, display, "/display"), Obj(Role::kButton, "1", "/one"),
       Obj(Role::kButton, "=", "/equals"), Obj(Role::kList, "History", "/list", std::move(rows))});
  std::vector<Node> roots;
  roots.push_back(Obj(Role::kApplication, "calc", "/root", {std::move(window)}));
  return roots;
}

Node& Window(std::vector<Node>& roots) { return roots[0].children[0]; }

std::vector<std::string> Assign(std::vector<Node>& roots, IdAnchors& anchors) {
  AssignIds(roots, nullptr, &anchors);
  return CollectIds(roots);
}

TEST(IdAnchorsTest, WithoutAnchorsTheHashIdsAreUnchanged) {
  std::vector<Node> plain = CalcTree();
  AssignIds(plain);
  std::vector<Node> anchored = CalcTree();
  IdAnchors anchors;
  EXPECT_EQ(Assign(anchored, anchors), CollectIds(plain));
}

TEST(IdAnchorsTest, ObjectKeepsItsIdWhenItsNameOrValueChanges) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Calc", "0");
  const std::vector<std::string> before = Assign(first, anchors);

  // A new process: no previous snapshot, only the anchors.
  std::vector<Node> second = CalcTree("Calc", "12");
  Window(second).children[1].value = "pressed";
  EXPECT_EQ(Assign(second, anchors), before);

  // The hash alone would have re-IDed the display.
  std::vector<Node> unanchored = CalcTree("Calc", "12");
  AssignIds(unanchored);
  EXPECT_NE(Window(unanchored).children[0].id, Window(first).children[0].id);
}

TEST(IdAnchorsTest, SubtreeKeepsItsIdsWhenAnAncestorIsRenamed) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Untitled - Calc");
  const std::vector<std::string> before = Assign(first, anchors);
  std::vector<Node> second = CalcTree("*Untitled - Calc");
  EXPECT_EQ(Assign(second, anchors), before);

  std::vector<Node> unanchored = CalcTree("*Untitled - Calc");
  AssignIds(unanchored);
  const std::vector<std::string> hashed = CollectIds(unanchored);
  int same = 0;
  for (size_t i = 0; i < before.size(); ++i) same += before[i] == hashed[i];
  EXPECT_EQ(same, 1) << "only the application's ID survives a retitle without anchors";
}

TEST(IdAnchorsTest, ReusedPathWithAnotherRoleGetsANewIdAndReplacesTheAnchor) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree();
  Assign(first, anchors);
  const std::string equals_id = Window(first).children[2].id;

  // The "=" button is gone; its path now holds a label (Qt reuses pointers).
  std::vector<Node> second = CalcTree();
  Window(second).children[2] = Obj(Role::kLabel, "Result", "/equals");
  Assign(second, anchors);
  const std::string label_id = Window(second).children[2].id;
  EXPECT_NE(label_id, equals_id);
  EXPECT_EQ(label_id.substr(0, 4), "lbl_");
  const IdAnchor* anchor = anchors.Find(BackendRef{kOwner, "/equals"});
  ASSERT_NE(anchor, nullptr);
  EXPECT_EQ(anchor->role, Role::kLabel);
  EXPECT_EQ(anchor->id, label_id);
}

TEST(IdAnchorsTest, DeterministicWhateverTheAnchorsInsertionOrder) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Calc", "0");
  Assign(first, anchors);
  // The same anchors, inserted in reverse order.
  IdAnchors reversed;
  std::vector<std::pair<std::string, IdAnchor>> items(anchors.apps[kOwner].by_path.begin(),
                                                      anchors.apps[kOwner].by_path.end());
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    reversed.apps[kOwner].by_path.insert(*it);
  }
  std::vector<std::string> expected;
  for (int run = 0; run < 10; ++run) {
    IdAnchors a = run % 2 == 0 ? anchors : reversed;
    std::vector<Node> tree = CalcTree("*Calc", "7");
    const std::vector<std::string> ids = Assign(tree, a);
    if (run == 0) expected = ids;
    EXPECT_EQ(ids, expected) << "run " << run;
  }
}

TEST(IdAnchorsTest, NewNodeNeverTakesAnAnchoredId) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Calc", "0");
  Assign(first, anchors);
  const std::string display_id = Window(first).children[0].id;

  // The display now shows "5" (and keeps its ID); a new label "0" appears,
  // whose hash ID is the display's old one.
  std::vector<Node> second = CalcTree("Calc", "5");
  Window(second).children.push_back(Obj(Role::kLabel, "0", "/memory"));
  const std::vector<std::string> ids = Assign(second, anchors);
  EXPECT_EQ(Window(second).children[0].id, display_id);
  const std::string newcomer = Window(second).children.back().id;
  EXPECT_NE(newcomer, display_id);
  EXPECT_EQ(newcomer.substr(0, 4), "lbl_");
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());

  // The label "0" is built again as a new object: it takes its ID back.
  std::vector<Node> third = CalcTree("Calc", "5");
  Window(third).children.push_back(Obj(Role::kLabel, "0", "/memory2"));
  Assign(third, anchors);
  EXPECT_EQ(Window(third).children.back().id, newcomer);
}

TEST(IdAnchorsTest, AnIdAnchoredToAnObjectNotShownStaysReserved) {
  std::vector<Node> plain = CalcTree();
  AssignIds(plain);
  const std::string one_hash_id = Window(plain).children[1].id;
  // An object not in this tree (hidden, seen only by --all) holds that ID.
  IdAnchors anchors;
  anchors.apps[kOwner].by_path["/elsewhere"] =
      IdAnchor{one_hash_id, Role::kButton, 12345, 12345, 0, "/other", 0, ""};
  std::vector<Node> roots = CalcTree();
  Assign(roots, anchors);
  EXPECT_NE(Window(roots).children[1].id, one_hash_id);
  EXPECT_EQ(Window(roots).children[1].id.substr(0, 4), "btn_");
}

TEST(IdAnchorsTest, ALeafReplacedByANewObjectInItsPlaceKeepsTheId) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Calc", "0");
  Assign(first, anchors);
  const std::string display_id = Window(first).children[0].id;
  // Chromium builds a new text leaf when a page sets textContent.
  std::vector<Node> second = CalcTree("Calc", "42");
  Window(second).children[0].ref.path = "/display-2";
  Assign(second, anchors);
  EXPECT_EQ(Window(second).children[0].id, display_id);

  // Neither a control nor a container whose place another one takes (a
  // stack switching pages) is replaced: the new one gets its own ID.
  std::vector<Node> third = CalcTree("Calc", "42");
  Window(third).children[3].ref.path = "/list-2";
  Window(third).children[3].name = "Favourites";
  const std::string list_id = Window(first).children[3].id;
  Window(third).children[2].ref.path = "/equals-2";
  Window(third).children[2].name = "Equals";
  const std::string equals_id = Window(first).children[2].id;
  Assign(third, anchors);
  EXPECT_NE(Window(third).children[3].id, list_id);
  EXPECT_NE(Window(third).children[2].id, equals_id);
}

// The toolkit removes the old leaf before it adds the new one: an
// observation walking in between sees the place empty, and the leaf that
// fills it in a later one still takes the ID — but not after many
// observations of the empty place.
TEST(IdAnchorsTest, ALeafReplacedAfterAnObservationOfTheEmptyPlaceKeepsTheId) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree("Calc", "0");
  Assign(first, anchors);
  const std::string display_id = Window(first).children[0].id;
  std::vector<Node> between = CalcTree("Calc", "0");
  auto& items = Window(between).children;
  items.erase(items.begin());
  Assign(between, anchors);
  std::vector<Node> after = CalcTree("Calc", "42");
  Window(after).children[0].ref.path = "/display-2";
  Assign(after, anchors);
  EXPECT_EQ(Window(after).children[0].id, display_id);

  // And again for the leaf after that.
  std::vector<Node> empty_again = CalcTree("Calc", "42");
  Window(empty_again).children.erase(Window(empty_again).children.begin());
  Assign(empty_again, anchors);
  std::vector<Node> refilled = CalcTree("Calc", "7");
  Window(refilled).children[0].ref.path = "/display-3";
  Assign(refilled, anchors);
  EXPECT_EQ(Window(refilled).children[0].id, display_id);

  // A place empty for many observations: what appears there later is new.
  for (int i = 0; i < 6; ++i) {
    std::vector<Node> empty = CalcTree("Calc", "7");
    Window(empty).children.erase(Window(empty).children.begin());
    Assign(empty, anchors);
  }
  std::vector<Node> later = CalcTree("Calc", "Ready");
  Window(later).children[0].ref.path = "/display-4";
  Assign(later, anchors);
  EXPECT_NE(Window(later).children[0].id, display_id);
}

// LibreOffice Calc builds a new object for a sheet cell each time it is
// asked for, and retitles its first window ("LibreOffice" -> "Untitled 1 -
// LibreOffice Calc") once the sheet is up: a cell keeps its ID by its
// address in the same table, not by its ancestors' names.
TEST(IdAnchorsTest, ATableCellBuiltAnewKeepsItsIdByItsAddress) {
  auto sheet = [](const std::string& title, const std::string& round) {
    std::vector<Node> cells;
    for (const char* address : {"A1", "B1", "A2", "B2"}) {
      cells.push_back(Obj(Role::kTableCell, address, "/cell-" + round + "-" + address));
    }
    std::vector<Node> roots;
    roots.push_back(Obj(Role::kApplication, "soffice", "/root",
                        {Obj(Role::kWindow, title, "/win",
                             {Obj(Role::kTable, "Sheet Sheet1", "/table", std::move(cells))})}));
    return roots;
  };
  IdAnchors anchors;
  std::vector<Node> first = sheet("LibreOffice", "1");
  Assign(first, anchors);
  std::vector<Node> second = sheet("Untitled 1 - LibreOffice Calc", "2");
  Assign(second, anchors);
  const std::vector<Node>& before = Window(first).children[0].children;
  const std::vector<Node>& after = Window(second).children[0].children;
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id) << after[i].name;
  }
  // Another cell at a vanished cell's place does not take its ID.
  std::vector<Node> third = sheet("Untitled 1 - LibreOffice Calc", "3");
  Window(third).children[0].children[3].name = "C2";
  Assign(third, anchors);
  EXPECT_NE(Window(third).children[0].children[3].id, before[3].id);
}

TEST(IdAnchorsTest, WidgetBuiltAgainWithNewObjectsTakesItsIdBack) {
  IdAnchors anchors;
  std::vector<Node> first = CalcTree();
  Window(first).children.push_back(
      Obj(Role::kDialog, "Confirm", "/dlg1", {Obj(Role::kButton, "OK", "/dlg1/ok")}));
  Assign(first, anchors);
  const std::string ok_id = Window(first).children.back().children[0].id;

  // Closed, then opened again: new objects, same widget.
  std::vector<Node> second = CalcTree();
  Window(second).children.push_back(
      Obj(Role::kDialog, "Confirm", "/dlg2", {Obj(Role::kButton, "OK", "/dlg2/ok")}));
  Assign(second, anchors);
  EXPECT_EQ(Window(second).children.back().children[0].id, ok_id);
  // The ID is anchored once: to the new object.
  EXPECT_EQ(anchors.Find(BackendRef{kOwner, "/dlg1/ok"}), nullptr);
  ASSERT_NE(anchors.Find(BackendRef{kOwner, "/dlg2/ok"}), nullptr);
}

// With and without hidden nodes: the siblings counted for duplicate ranks
// differ, the objects do not.
std::vector<Node> ToolbarTree(bool with_hidden) {
  std::vector<Node> buttons;
  if (with_hidden) buttons.push_back(Obj(Role::kButton, "OK", "/ok-hidden"));
  buttons.push_back(Obj(Role::kButton, "OK", "/ok-a"));
  buttons.push_back(Obj(Role::kButton, "OK", "/ok-b"));
  std::vector<Node> roots;
  roots.push_back(
      Obj(Role::kApplication, "tb", "/root",
          {Obj(Role::kWindow, "W", "/w", {Obj(Role::kToolBar, "", "/t", std::move(buttons))})}));
  return roots;
}

TEST(IdAnchorsTest, SameIdsWithAndWithoutHiddenNodesInEitherOrder) {
  for (bool all_first : {false, true}) {
    IdAnchors anchors;
    std::vector<Node> a = ToolbarTree(all_first);
    Assign(a, anchors);
    std::vector<Node> b = ToolbarTree(!all_first);
    Assign(b, anchors);
    std::vector<Node>& all = all_first ? a : b;
    std::vector<Node>& showing = all_first ? b : a;
    const auto& all_buttons = all[0].children[0].children[0].children;
    const auto& showing_buttons = showing[0].children[0].children[0].children;
    EXPECT_EQ(showing_buttons[0].id, all_buttons[1].id) << all_first;
    EXPECT_EQ(showing_buttons[1].id, all_buttons[2].id) << all_first;
    EXPECT_NE(all_buttons[0].id, all_buttons[1].id);
    EXPECT_NE(all_buttons[0].id, all_buttons[2].id);
  }
  // Without anchors the ranks shift the IDs (what the anchors fix).
  std::vector<Node> all = ToolbarTree(true);
  std::vector<Node> showing = ToolbarTree(false);
  AssignIds(all);
  AssignIds(showing);
  EXPECT_NE(showing[0].children[0].children[0].children[0].id,
            all[0].children[0].children[0].children[1].id);
}

TEST(IdAnchorsTest, NodesSharingOneObjectAreNotAnchored) {
  IdAnchors anchors;
  std::vector<Node> roots = CalcTree();
  Window(roots).children[1].ref.path = "/equals";  // "1" and "=" claim one object
  Assign(roots, anchors);
  EXPECT_EQ(anchors.Find(BackendRef{kOwner, "/equals"}), nullptr);
  std::vector<Node> again = CalcTree();
  Window(again).children[1].ref.path = "/equals";
  std::vector<Node> copy = again;
  EXPECT_EQ(Assign(again, anchors), Assign(copy, anchors));
}

// --- Descendants rebuilt under a renamed ancestor ---------------------------

// An editor as mousepad shows it: app > window `title` > (menu bar > menu
// "File" > items "Reload" and "Save"; an "Open" button; a list of unnamed
// rows known by their labels). `round` names the objects a toolkit rebuilds
// (mousepad's Reload item, a button, a row and its label): each round gives
// them new object paths, as a rebuilt widget has.
std::vector<Node> EditorTree(const std::string& title, int round) {
  const std::string r = "-" + std::to_string(round);
  std::vector<Node> rows;
  for (int i = 1; i <= 3; ++i) {
    // Row 2 is the one rebuilt, with its label.
    const std::string p = "/row" + std::to_string(i) + (i == 2 ? r : "");
    rows.push_back(
        Obj(Role::kListItem, "", p, {Obj(Role::kLabel, "Row " + std::to_string(i), p + "/label")}));
  }
  Node menu =
      Obj(Role::kMenu, "File", "/file",
          {Obj(Role::kMenuItem, "Reload", "/reload" + r), Obj(Role::kMenuItem, "Save", "/save")});
  Node window = Obj(Role::kWindow, title, "/win",
                    {Obj(Role::kMenuBar, "", "/menubar", {std::move(menu)}),
                     Obj(Role::kButton, "Open", "/open" + r),
                     Obj(Role::kList, "Files", "/files", std::move(rows))});
  std::vector<Node> roots;
  roots.push_back(Obj(Role::kApplication, "mousepad", "/root", {std::move(window)}));
  return roots;
}

// How many of `before`'s IDs `after` kept, position by position.
int Kept(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  int kept = 0;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) kept += before[i] == after[i];
  return kept;
}

// The window gains a title, then the toolkit rebuilds descendants: each CLI
// call is a new process with only the anchors, so the rebuilt objects are
// known by their identity hash alone, which must not follow the new title.
TEST(IdAnchorsTest, DescendantsRebuiltAfterTheWindowWasRetitledKeepTheirIds) {
  IdAnchors anchors;
  std::vector<Node> first = EditorTree("Untitled - Mousepad", 1);
  const std::vector<std::string> before = Assign(first, anchors);
  std::vector<Node> retitled = EditorTree("*Untitled - Mousepad", 1);
  EXPECT_EQ(Assign(retitled, anchors), before);
  std::vector<Node> rebuilt = EditorTree("*Untitled - Mousepad", 2);
  const std::vector<std::string> after_rebuild = Assign(rebuilt, anchors);
  EXPECT_EQ(after_rebuild, before) << Kept(before, after_rebuild) << " of " << before.size();
  // Retitled again and rebuilt again in one step.
  std::vector<Node> saved = EditorTree("doc.txt - Mousepad", 3);
  const std::vector<std::string> after_save = Assign(saved, anchors);
  EXPECT_EQ(after_save, before) << Kept(before, after_save) << " of " << before.size();
  // Every node was observed, so every object is anchored once.
  EXPECT_EQ(anchors.apps[kOwner].by_path.size(), before.size());
}

// The same in one process (an MCP server), reconciling against the previous
// snapshot too: a retitle and a rebuild seen in one observation.
TEST(IdAnchorsTest, DescendantsRebuiltWithTheRetitleKeepTheirIdsAgainstAPreviousSnapshot) {
  IdAnchors anchors;
  std::vector<Node> first = EditorTree("Untitled - Mousepad", 1);
  const std::vector<std::string> before = Assign(first, anchors);
  std::vector<Node> second = EditorTree("*Untitled - Mousepad", 2);
  AssignIds(second, &first, &anchors);
  EXPECT_EQ(CollectIds(second), before)
      << Kept(before, CollectIds(second)) << " of " << before.size();
  std::vector<Node> third = EditorTree("doc.txt - Mousepad", 3);
  AssignIds(third, &second, &anchors);
  EXPECT_EQ(CollectIds(third), before)
      << Kept(before, CollectIds(third)) << " of " << before.size();
}

// A tab retitled keeps its ID (its object is anchored); a new tab that opens
// with the first one's old title has the identity hash the first one's ID
// was derived from. Their subtrees must still get distinct IDs, the same
// whatever the order, and no collision suffix.
TEST(IdAnchorsTest, ANewLookAlikeOfARenamedNodeGetsItsOwnSubtreeIds) {
  auto browser = [](bool second_tab) {
    std::vector<Node> tabs;
    tabs.push_back(
        Obj(Role::kTab, second_tab ? "Example Domain" : "New Tab", "/tab1",
            {Obj(Role::kButton, "Close", "/tab1/close"), Obj(Role::kImage, "Icon", "/tab1/icon")}));
    if (second_tab) {
      tabs.push_back(Obj(
          Role::kTab, "New Tab", "/tab2",
          {Obj(Role::kButton, "Close", "/tab2/close"), Obj(Role::kImage, "Icon", "/tab2/icon")}));
    }
    std::vector<Node> roots;
    roots.push_back(Obj(Role::kApplication, "chromium", "/root",
                        {Obj(Role::kWindow, "Chromium", "/win",
                             {Obj(Role::kTabList, "", "/tabs", std::move(tabs))})}));
    return roots;
  };
  IdAnchors anchors;
  std::vector<Node> first = browser(false);
  const std::vector<std::string> one_tab = Assign(first, anchors);
  std::vector<std::string> expected;
  for (int run = 0; run < 4; ++run) {
    IdAnchors a = anchors;
    if (run % 2 == 1) {  // the same anchors, inserted in reverse order
      std::vector<std::pair<std::string, IdAnchor>> items(a.apps[kOwner].by_path.begin(),
                                                          a.apps[kOwner].by_path.end());
      a.apps[kOwner].by_path.clear();
      for (auto it = items.rbegin(); it != items.rend(); ++it) a.apps[kOwner].by_path.insert(*it);
    }
    std::vector<Node> two = browser(true);
    const std::vector<std::string> ids = Assign(two, a);
    EXPECT_EQ(
        std::vector<std::string>(ids.begin(), ids.begin() + static_cast<long>(one_tab.size())),
        one_tab);
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());
    for (const std::string& id : ids) EXPECT_EQ(id.find('-'), std::string::npos) << id;
    if (run == 0) expected = ids;
    EXPECT_EQ(ids, expected) << "run " << run;
    // Stable from then on, and the new tab's subtree rebuilt keeps its IDs.
    std::vector<Node> again = browser(true);
    EXPECT_EQ(Assign(again, a), ids);
    std::vector<Node> rebuilt = browser(true);
    Node& tab2 = rebuilt[0].children[0].children[0].children[1];
    tab2.children[0].ref.path = "/tab2/close-2";
    tab2.children[1].ref.path = "/tab2/icon-2";
    EXPECT_EQ(Assign(rebuilt, a), ids);
  }
}

// A page retitled keeps its document's ID through the document's anchor;
// then the browser builds the document again, under its new title, with new
// objects for everything in it: the same widget built again, it takes its
// ID back, and its subtree with it.
TEST(IdAnchorsTest, ARenamedNodeBuiltAgainTakesItsIdAndItsSubtreesIdsBack) {
  auto page = [](const std::string& title, const std::string& round) {
    const std::string doc = "/doc" + round;
    std::vector<Node> roots;
    roots.push_back(Obj(Role::kApplication, "chromium", "/root",
                        {Obj(Role::kWindow, "Chromium", "/win",
                             {Obj(Role::kDocument, title, doc,
                                  {Obj(Role::kButton, "Buy", doc + "/buy"),
                                   Obj(Role::kLink, "Home", doc + "/home")})})}));
    return roots;
  };
  IdAnchors anchors;
  std::vector<Node> first = page("Cart (0)", "1");
  const std::vector<std::string> before = Assign(first, anchors);
  std::vector<Node> retitled = page("Cart (1)", "1");
  EXPECT_EQ(Assign(retitled, anchors), before);
  std::vector<Node> rebuilt = page("Cart (1)", "2");
  const std::vector<std::string> after = Assign(rebuilt, anchors);
  EXPECT_EQ(after, before) << Kept(before, after) << " of " << before.size();
  EXPECT_EQ(anchors.Find(BackendRef{kOwner, "/doc1"}), nullptr) << "each ID anchored once";
  // Built again under yet another title, it is a new page.
  std::vector<Node> other = page("Checkout", "3");
  EXPECT_NE(Assign(other, anchors)[2], before[2]);
}

TEST(IdAnchorsTest, AnAnchorRecordsTheOriginOfItsId) {
  IdAnchors anchors;
  std::vector<Node> first = EditorTree("Untitled - Mousepad", 1);
  Assign(first, anchors);
  const IdAnchor* window = anchors.Find(BackendRef{kOwner, "/win"});
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->origin, window->hash) << "an ID given by hash";
  const uint64_t origin = window->origin;
  std::vector<Node> retitled = EditorTree("doc.txt - Mousepad", 1);
  Assign(retitled, anchors);
  window = anchors.Find(BackendRef{kOwner, "/win"});
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->origin, origin) << "the ID, and so its origin, came from the anchor";
  EXPECT_NE(window->hash, origin) << "the identity hash follows the title";
}

TEST(IdAnchorsTest, TrimDropsTheLeastRecentlySeen) {
  AppAnchors app;
  for (int i = 0; i < 10; ++i) {
    app.by_path["/p" + std::to_string(i)] = IdAnchor{
        "btn_" + std::to_string(i), Role::kButton, 0, 0, static_cast<uint64_t>(i / 2), "", -1, ""};
  }
  IdAnchors::Trim(app, 5);
  ASSERT_EQ(app.by_path.size(), 5u);
  for (int i = 5; i < 10; ++i) EXPECT_TRUE(app.by_path.contains("/p" + std::to_string(i))) << i;
}

TEST(IdAnchorsTest, AnchorsStayBoundedAndKeepTheCurrentTree) {
  IdAnchors anchors;
  std::vector<Node> roots = CalcTree();
  Assign(roots, anchors);
  AppAnchors& app = anchors.apps[kOwner];
  for (size_t i = 0; i < kMaxAnchorsPerApp; ++i) {
    app.by_path["/gone" + std::to_string(i)] =
        IdAnchor{"btn_g" + std::to_string(i), Role::kButton, 0, 0, 0, "", -1, ""};
  }
  std::vector<Node> again = CalcTree();
  const std::vector<std::string> ids = Assign(again, anchors);
  EXPECT_EQ(anchors.apps[kOwner].by_path.size(), kMaxAnchorsPerApp);
  EXPECT_EQ(ids, CollectIds(roots));
  EXPECT_NE(anchors.Find(BackendRef{kOwner, "/display"}), nullptr);
}

}  // namespace
}  // namespace uiscope
