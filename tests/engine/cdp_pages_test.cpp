// The Chromium specialist's glue without a browser: AT-SPI twins lend their
// references and actions to the page's nodes, and an app without a DevTools
// endpoint keeps its AT-SPI page with a warning.
#include "engine/cdp_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace uiscope {
namespace {

Node Make(Role role, std::string name, Rect bounds, std::string path = "") {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  if (!path.empty()) n.ref = BackendRef{":1.42", path};
  return n;
}

TEST(CdpPagesTest, TwinsWithinAPixelLendReferenceAndActions) {
  std::vector<Node> atspi = {Make(Role::kButton, "Send", {100, 200, 80, 24}, "/a/1"),
                             Make(Role::kComboBox, "", {300, 200, 77, 19}, "/a/2"),
                             Make(Role::kTextField, "Far", {10, 10, 50, 20}, "/a/3")};
  atspi[0].actions = {"click"};
  std::vector<Node> cdp = {Make(Role::kButton, "Send order", {101, 199, 80, 25}),
                           Make(Role::kComboBox, "Country", {300, 200, 77, 19}),
                           Make(Role::kButton, "Far", {10, 10, 50, 20}),        // role differs
                           Make(Role::kTextField, "Moved", {10, 13, 50, 20})};  // 3 px away
  JoinAtspiTwins(atspi, cdp);
  EXPECT_EQ(cdp[0].ref.path, "/a/1");
  EXPECT_EQ(cdp[0].actions, std::vector<std::string>{"click"});
  EXPECT_EQ(cdp[0].name, "Send order") << "the page's name stays";
  EXPECT_EQ(cdp[1].ref.path, "/a/2");
  EXPECT_TRUE(cdp[2].ref.empty());
  EXPECT_TRUE(cdp[3].ref.empty());
}

TEST(CdpPagesTest, WithoutAnEndpointThePageStaysWithAWarning) {
  Node doc = Make(Role::kDocument, "Shop", {0, 0, 800, 600}, "/doc");
  doc.toolkit_role = "document web";
  doc.children.push_back(Make(Role::kComboBox, "Country", {10, 10, 70, 20}, "/sel"));
  Node app;
  app.role = Role::kApplication;
  app.name = "Chromium";
  app.toolkit = "chromium";
  app.pid = getpid();  // this test: no --remote-debugging-port on its command line
  app.children.push_back(doc);
  Node gtk = app;
  gtk.toolkit = "gtk3";
  std::vector<Node> roots = {app, gtk};
  std::vector<std::string> warnings;
  CdpPages pages;
  EXPECT_EQ(pages.Apply(roots, CdpPagesOptions{}, warnings), 0);
  ASSERT_EQ(warnings.size(), 1u) << "the GTK app is none of its business";
  EXPECT_NE(warnings[0].find("AT-SPI only"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("--remote-debugging-port"), std::string::npos) << warnings[0];
  EXPECT_EQ(roots[0].children[0].children[0].ref.path, "/sel");
}

// The DOM node an AT-SPI object stands for: the one page node at its place.
TEST(CdpPagesTest, AtspiObjectsStandForTheDomNodeAtTheirPlaceWhenItIsTheOnlyOne) {
  std::vector<Node> atspi = {Make(Role::kTextField, "City", {270, 106, 186, 22}, "/a/city"),
                             Make(Role::kListItem, "Germany", {508, 107, 78, 11}, "/a/de"),
                             Make(Role::kListItem, "France", {508, 107, 78, 11}, "/a/fr"),
                             Make(Role::kButton, "Send", {18, 127, 82, 22}, "/a/send")};
  const std::vector<PagePlace> places = {{Role::kTextField, {271, 106, 186, 22}, 41},
                                         {Role::kListItem, {508, 107, 78, 11}, 50},
                                         {Role::kListItem, {508, 107, 78, 11}, 51},
                                         {Role::kButton, {18, 127, 82, 22}, 60},
                                         {Role::kButton, {18, 127, 82, 22}, 61}};
  const auto dom = DomNodesByPlace(atspi, places);
  EXPECT_EQ(dom.size(), 1u);
  ASSERT_TRUE(dom.contains("/a/city"));
  EXPECT_EQ(dom.at("/a/city"), 41);
  // Two options at one place, two buttons at one place: told apart by
  // nothing, so left to their ancestors.
  EXPECT_FALSE(dom.contains("/a/de"));
  EXPECT_FALSE(dom.contains("/a/send"));
}

// A page's AT-SPI content: a form with a field and a cell whose text is a
// text run (no DOM node of its own in the map).
std::vector<Node> Form() {
  Node field = Make(Role::kTextField, "City", {270, 106, 186, 22}, "/a/city");
  field.value = "Paris";
  Node cell = Make(Role::kTableCell, "", {18, 283, 57, 19}, "/a/cell");
  cell.children.push_back(Make(Role::kLabel, "Item 1", {33, 284, 28, 16}, "/a/run"));
  Node row = Make(Role::kTableRow, "", {18, 283, 182, 19}, "/a/row");
  row.children.push_back(cell);
  return {field, row};
}

TEST(CdpPagesTest, AChangeIsTracedToTheDomNodesWhoseSubtreesHoldIt) {
  const std::unordered_map<std::string, int64_t> dom = {{"/a/city", 41}, {"/a/cell", 70}};
  const std::vector<Node> before = Form();
  auto same = ChangeOfPage(before, Form(), dom);
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(same->dom_nodes.empty());
  EXPECT_FALSE(same->boxes_moved);

  std::vector<Node> typed = Form();
  typed[0].value = "Lyon";
  typed[1].children[0].children[0].name = "Item 9";  // the cell's text run
  auto change = ChangeOfPage(before, typed, dom);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->dom_nodes, (std::vector<int64_t>{41, 70}));
  EXPECT_FALSE(change->boxes_moved);

  std::vector<Node> moved = Form();
  moved[0].bounds->y += 20;
  change = ChangeOfPage(before, moved, dom);
  ASSERT_TRUE(change.has_value());
  EXPECT_TRUE(change->dom_nodes.empty());
  EXPECT_TRUE(change->boxes_moved);
}

TEST(CdpPagesTest, ObjectsAddedRemovedOrMovedAreTracedToTheirParents) {
  const std::unordered_map<std::string, int64_t> dom = {
      {"/a/city", 41}, {"/a/row", 60}, {"/a/cell", 70}};
  const std::vector<Node> before = Form();
  std::vector<Node> added = Form();
  added[1].children.push_back(Make(Role::kTableCell, "new", {74, 283, 78, 19}, "/a/new"));
  auto change = ChangeOfPage(before, added, dom);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->dom_nodes, std::vector<int64_t>{60});
  // A text run replaced by a new object (Chromium does that on new text).
  std::vector<Node> replaced = Form();
  replaced[1].children[0].children[0].ref.path = "/a/run2";
  change = ChangeOfPage(before, replaced, dom);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->dom_nodes, std::vector<int64_t>{70});
}

TEST(CdpPagesTest, AChangeThatTracesToTheTopIsTheWholePages) {
  const std::unordered_map<std::string, int64_t> dom = {{"/a/city", 41}, {"/a/cell", 70}};
  const std::vector<Node> before = Form();
  std::vector<Node> reordered = Form();
  std::swap(reordered[0], reordered[1]);
  EXPECT_FALSE(ChangeOfPage(before, reordered, dom).has_value());
  std::vector<Node> added = Form();
  added.push_back(Make(Role::kButton, "New", {0, 0, 10, 10}, "/a/new"));
  EXPECT_FALSE(ChangeOfPage(before, added, dom).has_value());
  std::vector<Node> removed = Form();
  removed.pop_back();
  EXPECT_FALSE(ChangeOfPage(before, removed, dom).has_value());
  // A changed row with no DOM node up to the top.
  std::vector<Node> row = Form();
  row[1].states.Set(State::kSelected);
  EXPECT_FALSE(ChangeOfPage(before, row, dom).has_value());
  // A cell's new child, with the cell's row not known: traced to the cell.
  std::vector<Node> grown = Form();
  grown[1].children[0].children.push_back(Make(Role::kLink, "more", {40, 284, 20, 16}, "/a/l"));
  auto change = ChangeOfPage(before, grown, dom);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->dom_nodes, std::vector<int64_t>{70});
  // Objects without a path cannot be told apart.
  std::vector<Node> pathless = Form();
  pathless[0].ref = BackendRef{};
  EXPECT_FALSE(ChangeOfPage(pathless, pathless, dom).has_value());
}
}  // namespace
}  // namespace uiscope
