// Merge of pixel detections into the accessibility tree (core/merge.h) on
// hand-built trees.
#include "core/merge.h"

#include <gtest/gtest.h>

#include "core/ids.h"

namespace uiscope {
namespace {

Node Ax(Role role, std::string name, Rect bounds, std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  n.app = "demo";
  n.pid = 42;
  n.children = std::move(children);
  return n;
}

Detection Vision(Role role, Rect bounds, std::string name = "", float confidence = 0.7f) {
  Detection d;
  d.role = role;
  d.bounds = bounds;
  d.name = std::move(name);
  d.confidence = confidence;
  d.source = Source::kVision;
  return d;
}

Detection Ocr(Rect bounds, std::string text) {
  Detection d = Vision(Role::kText, bounds, std::move(text));
  d.source = Source::kOcr;
  return d;
}

// window 0,0,600,400
//   panel "form" 0,0,300,400: button "Login" 10,10,100,30; unnamed button
//     10,50,100,30; password field 10,90,200,30; check box "Remember" 10,130,200,20
//   canvas 300,0,300,200 (nothing inside: blind)
//   list 300,200,300,200: row 300,200,300,40 holding label "Row 1" and button "Open"
Node Window() {
  Node password = Ax(Role::kTextField, "Password", Rect{10, 90, 200, 30});
  password.states.Set(State::kPassword);
  Node row = Ax(Role::kListItem, "", Rect{300, 200, 300, 40},
                {Ax(Role::kLabel, "Row 1", Rect{305, 205, 200, 30}),
                 Ax(Role::kButton, "Open", Rect{520, 205, 70, 30})});
  return Ax(Role::kWindow, "Main", Rect{0, 0, 600, 400},
            {Ax(Role::kPanel, "", Rect{0, 0, 300, 400},
                {Ax(Role::kButton, "Login", Rect{10, 10, 100, 30}),
                 Ax(Role::kButton, "", Rect{10, 50, 100, 30}), std::move(password),
                 Ax(Role::kCheckBox, "Remember", Rect{10, 130, 200, 20})}),
             Ax(Role::kCanvas, "", Rect{300, 0, 300, 200}),
             Ax(Role::kList, "", Rect{300, 200, 300, 200}, {std::move(row)})});
}

const Node& At(const Node& root, std::initializer_list<size_t> path) {
  const Node* n = &root;
  for (size_t i : path) n = &n->children.at(i);
  return *n;
}

TEST(MergeTest, MatchedLeafBecomesMergedAndGetsTheMissingName) {
  Node w = Window();
  // IoU of 12,52,100,30 with 10,50,100,30 is 0.9; with "Login" 0.
  MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {12, 52, 100, 30}, "Send", 0.8f)});
  const Node& unnamed = At(w, {0, 1});
  EXPECT_EQ(unnamed.name, "Send");
  EXPECT_EQ(unnamed.source, Source::kMerged);
  EXPECT_FLOAT_EQ(unnamed.confidence, 0.8f) << "the name came from the pixels";
  EXPECT_EQ(unnamed.bounds, (Rect{10, 50, 100, 30})) << "accessible bounds are kept";
  EXPECT_EQ(stats.matched, 1);
  EXPECT_EQ(stats.merged, 1);
  EXPECT_EQ(stats.named, 1);
  EXPECT_EQ(stats.added, 0);
}

TEST(MergeTest, MatchedNamedLeafKeepsNameAndConfidence) {
  Node w = Window();
  MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {10, 10, 104, 32}, "Logn", 0.6f)});
  const Node& login = At(w, {0, 0});
  EXPECT_EQ(login.name, "Login") << "an accessible name is never overwritten";
  EXPECT_EQ(login.source, Source::kMerged);
  EXPECT_FLOAT_EQ(login.confidence, 1.0f);
  EXPECT_EQ(stats.merged, 1);
  EXPECT_EQ(stats.named, 0);
}

TEST(MergeTest, BelowHalfIoUIsNoMatch) {
  Node w = Window();
  // 10,10,100,30 against 75,10,100,30: 35*30 / (2*3000 - 1050) = 0.21.
  // Not inside anything, and only a third on it: an orphan under the panel.
  MergeStats stats = MergeDetections(w, std::vector{Vision(Role::kButton, {75, 10, 100, 30})});
  EXPECT_EQ(At(w, {0, 0}).source, Source::kAx);
  EXPECT_EQ(stats.matched, 0);
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(At(w, {0}).children.back().source, Source::kVision);
}

TEST(MergeTest, OneToOneBestIoUWinsTheRestAreDuplicates) {
  Node w = Window();
  MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {14, 54, 100, 30}, "Second"),
                                     Vision(Role::kButton, {10, 50, 100, 30}, "Best")});
  EXPECT_EQ(At(w, {0, 1}).name, "Best");
  EXPECT_EQ(stats.matched, 1);
  EXPECT_EQ(stats.duplicates, 1);
  EXPECT_EQ(stats.added, 0);
}

// A title bar with accessible buttons, as gnome-calculator's (client-side
// decorations): the detector finds them a few pixels off, two of them as
// one box, and OCR reads their icons as "cr" and "x".
Node TitleBar() {
  return Ax(Role::kWindow, "Calculator", Rect{777, 304, 365, 496},
            {Ax(Role::kButton, "Minimize", Rect{1023, 315, 24, 24}),
             Ax(Role::kButton, "Maximize", Rect{1060, 315, 24, 24}),
             Ax(Role::kButton, "Close", Rect{1097, 315, 24, 24})});
}

TEST(MergeTest, VisionBoxesLyingMostlyOnElementsAreDuplicates) {
  Node w = TitleBar();
  // IoU with Maximize 0.47 and with Close 0.47: no match; 59 % of each box
  // on a button, and the wide one 58 % on Minimize and Maximize together.
  const std::vector<Detection> d = {Vision(Role::kRadioButton, {1027, 319, 52, 26}, "cr"),
                                    Vision(Role::kButton, {1064, 319, 26, 26}, "cr"),
                                    Vision(Role::kButton, {1101, 319, 26, 26}, "x")};
  const std::vector<PlannedDetection> plan = PlanMerge(w, d);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].placement, Placement::kDuplicate);
  EXPECT_EQ(plan[0].element, (std::vector<size_t>{0})) << "the button it lies on most";
  EXPECT_EQ(plan[2].element, (std::vector<size_t>{2}));
  const MergeStats stats = MergeDetections(w, d);
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(stats.duplicates, 3);
  EXPECT_EQ(w.children.size(), 3u) << "the tree's buttons are not repeated";
}

TEST(MergeTest, AMenuBarTakenForOneButtonIsADuplicate) {
  // kcalc: a menu bar of four menus; the detector saw the bar as a button.
  Node w = Ax(Role::kWindow, "KCalc", Rect{254, 403, 268, 288},
              {Ax(Role::kMenuBar, "", Rect{254, 403, 268, 22},
                  {Ax(Role::kMenu, "File", Rect{260, 403, 30, 22}),
                   Ax(Role::kMenu, "Edit", Rect{296, 403, 34, 22}),
                   Ax(Role::kMenu, "Settings", Rect{336, 403, 62, 22}),
                   Ax(Role::kMenu, "Help", Rect{404, 403, 38, 22})})});
  const MergeStats stats = MergeDetections(
      w, std::vector{Vision(Role::kButton, {254, 403, 268, 22}, "File Edit Settings Help")});
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(stats.duplicates, 1);
  EXPECT_EQ(At(w, {0}).children.size(), 4u);
}

TEST(MergeTest, AVisionBoxHoldingAnInteractiveElementIsADuplicate) {
  // gtk3-widget-factory's notebook tabs, the learned detector's boxes: a
  // tab with the gap beside it, and two tabs' labels taken for one button.
  Node w = Ax(Role::kWindow, "Factory", Rect{0, 0, 1200, 900},
              {Ax(Role::kTabList, "", Rect{300, 757, 300, 30},
                  {Ax(Role::kTab, "page 1", Rect{313, 757, 44, 30}),
                   Ax(Role::kTab, "page 2", Rect{389, 757, 44, 30}),
                   Ax(Role::kTab, "page 3", Rect{465, 757, 44, 30})})});
  const std::vector<Detection> d = {Vision(Role::kTab, {364, 753, 90, 41}, "page 2"),
                                    Vision(Role::kButton, {389, 754, 212, 41}, "page 2 page 3")};
  const std::vector<PlannedDetection> plan = PlanMerge(w, d);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].placement, Placement::kDuplicate);
  EXPECT_EQ(plan[0].element, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(plan[1].placement, Placement::kDuplicate);
  const MergeStats stats = MergeDetections(w, d);
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(At(w, {0}).children.size(), 3u);
}

TEST(MergeTest, AWidgetSeenInsideAnInteractiveElementIsAPieceOfIt) {
  // A combo box's arrow found as a button, its text read as "w".
  Node w = Ax(Role::kWindow, "Factory", Rect{0, 0, 1200, 900},
              {Ax(Role::kComboBox, "Size", Rect{669, 450, 144, 34})});
  const MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {763, 455, 47, 33}, "w")});
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(stats.duplicates, 1);
  EXPECT_TRUE(At(w, {0}).children.empty());
}

TEST(MergeTest, AButtonPaintedInARowStaysAsItsChild) {
  // An item view paints its rows' buttons: the tree lists the row only.
  Node w = Ax(Role::kWindow, "Files", Rect{0, 0, 400, 300},
              {Ax(Role::kList, "", Rect{0, 0, 400, 300},
                  {Ax(Role::kListItem, "report.txt", Rect{0, 0, 400, 40})})});
  const MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {320, 5, 70, 30}, "Delete")});
  EXPECT_EQ(stats.added, 1);
  ASSERT_EQ(At(w, {0, 0}).children.size(), 1u);
  EXPECT_EQ(At(w, {0, 0, 0}).name, "Delete");
}

TEST(MergeTest, AVisionBoxMostlyBesideElementsStays) {
  Node w = TitleBar();
  // A painted button next to Close, a quarter of it on Close: new.
  const MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {1115, 315, 24, 24}, "Help")});
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(w.children.back().name, "Help");
}

TEST(MergeTest, TextLinesAreNotDroppedForLyingOnElements) {
  Node w = TitleBar();
  // "Minimize Maximize" read across two buttons and beyond: text, whose
  // words past the buttons the tree does not have.
  Detection line = Vision(Role::kText, {1023, 315, 70, 24}, "status Ready");
  line.source = Source::kOcr;
  const MergeStats stats = MergeDetections(w, std::vector{line});
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(stats.duplicates, 0);
}

TEST(MergeTest, AReadingTooUnsureToBeTextNamesNothing) {
  // gnome-calculator's π read as "Tl" at 0.64: neither a match nor a part
  // names the unnamed button, and the part is not kept as text.
  for (const Rect& box : {Rect{12, 52, 100, 30}, Rect{30, 57, 50, 14}}) {
    Node w = Window();
    Detection junk = Vision(Role::kText, box, "Tl", 0.64f);
    junk.source = Source::kOcr;
    junk.name_confidence = 0.64f;
    const MergeStats stats = MergeDetections(w, std::vector{junk});
    EXPECT_TRUE(At(w, {0, 1}).name.empty()) << box.x;
    EXPECT_TRUE(At(w, {0, 1}).children.empty()) << box.x;
    EXPECT_EQ(stats.named, 0);
    EXPECT_EQ(stats.added, 0);
  }
  Node w = Window();
  Detection read = Vision(Role::kText, {30, 57, 50, 14}, "Send", 0.91f);
  read.source = Source::kOcr;
  read.name_confidence = 0.91f;
  MergeDetections(w, std::vector{read});
  EXPECT_EQ(At(w, {0, 1}).name, "Send");
}

TEST(MergeTest, PasswordFieldIsNeverNamedOrValuedFromPixels) {
  Node w = Window();
  Detection d = Vision(Role::kTextField, {10, 90, 200, 30}, "hunter2");
  d.value = "hunter2";
  Node blank_password = Ax(Role::kTextField, "", Rect{10, 90, 200, 30});
  blank_password.states.Set(State::kPassword);
  w.children[0].children[2] = blank_password;
  MergeDetections(w, std::vector{d, Vision(Role::kText, {20, 95, 60, 16}, "hunter2")});
  const Node& field = At(w, {0, 2});
  EXPECT_TRUE(field.name.empty());
  EXPECT_TRUE(field.value.empty());
  EXPECT_TRUE(field.children.empty()) << "nothing read there stays in the tree";
}

TEST(MergeTest, PartsOfAnElementAreNotDuplicated) {
  Node w = Window();
  // The box of the check box, labelled by the text beside it, and the text
  // of the "Login" button: both already in the tree.
  MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kCheckBox, {12, 132, 16, 16}, "Remember"),
                                     Vision(Role::kText, {40, 17, 40, 14}, "Login")});
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(stats.duplicates, 2);
  EXPECT_TRUE(At(w, {0, 3}).children.empty());
  EXPECT_EQ(At(w, {0, 3}).source, Source::kAx) << "a part does not confirm the element";
}

TEST(MergeTest, UnnamedElementTakesItsOnlyNamedPart) {
  Node w = Window();
  MergeStats stats = MergeDetections(w, std::vector{Vision(Role::kText, {30, 57, 50, 14}, "Send")});
  EXPECT_EQ(At(w, {0, 1}).name, "Send");
  EXPECT_EQ(At(w, {0, 1}).source, Source::kMerged);
  EXPECT_EQ(stats.named, 1);
  EXPECT_EQ(stats.added, 0);
}

TEST(MergeTest, TwoNamedPartsNameNothingAndStayAsChildren) {
  Node w = Window();
  MergeStats stats =
      MergeDetections(w, std::vector{Ocr({55, 57, 40, 14}, "now"), Ocr({12, 57, 40, 14}, "Send")});
  const Node& button = At(w, {0, 1});
  EXPECT_TRUE(button.name.empty());
  ASSERT_EQ(button.children.size(), 2u);
  EXPECT_EQ(button.children[0].name, "Send") << "reading order";
  EXPECT_EQ(button.children[1].name, "now");
  EXPECT_EQ(stats.added, 2);
}

TEST(MergeTest, OrphansGoUnderTheSmallestContainerHoldingTheirCentre) {
  Node w = Window();
  MergeStats stats =
      MergeDetections(w, std::vector{Vision(Role::kButton, {420, 20, 90, 36}, "Cancel", 0.9f),
                                     Vision(Role::kButton, {320, 20, 90, 36}, "OK", 0.9f),
                                     // Centre in the list, below the row: the list holds it.
                                     Vision(Role::kIcon, {310, 300, 24, 24}),
                                     // Straddles panel and canvas; centre 298,150 is in the panel.
                                     Vision(Role::kSlider, {250, 140, 96, 20})});
  EXPECT_EQ(stats.added, 4);
  const Node& canvas = At(w, {1});
  ASSERT_EQ(canvas.children.size(), 2u);
  EXPECT_EQ(canvas.children[0].name, "OK") << "reading order: left first on one row";
  EXPECT_EQ(canvas.children[1].name, "Cancel");
  EXPECT_EQ(canvas.children[0].source, Source::kVision);
  EXPECT_FLOAT_EQ(canvas.children[0].confidence, 0.9f);
  EXPECT_EQ(canvas.children[0].role, Role::kButton);
  EXPECT_EQ(canvas.children[0].app, "demo");
  EXPECT_EQ(canvas.children[0].pid, 42);
  EXPECT_EQ(At(w, {2}).children.back().role, Role::kIcon);
  EXPECT_EQ(At(w, {0}).children.back().role, Role::kSlider);
}

TEST(MergeTest, NothingHoldsItThenTheScopeDoes) {
  Node w = Window();
  MergeStats stats = MergeDetections(w, std::vector{Vision(Role::kButton, {590, 390, 40, 40})});
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(w.children.back().role, Role::kButton) << "centre 610,410 is outside the window";
}

TEST(MergeTest, AccessibleOnlyNodesAreKeptAsTheyWere) {
  Node w = Window();
  const Node before = w;
  MergeDetections(w, std::vector{Vision(Role::kButton, {320, 20, 90, 36}, "OK")});
  // Everything but the canvas (which gained a child) is unchanged.
  ASSERT_EQ(w.children.size(), before.children.size());
  EXPECT_EQ(w.children[0].children.size(), before.children[0].children.size());
  for (size_t i = 0; i < before.children[0].children.size(); ++i) {
    const Node& a = w.children[0].children[i];
    const Node& b = before.children[0].children[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.source, Source::kAx);
    EXPECT_EQ(a.bounds, b.bounds);
  }
  EXPECT_EQ(w.children[2].children[0].children.size(), 2u);
}

TEST(MergeTest, ARowAndTheButtonInsideItAreMatchedSeparately) {
  Node w = Window();
  MergeStats stats = MergeDetections(w, std::vector{Vision(Role::kListItem, {300, 201, 300, 38}),
                                                    Vision(Role::kButton, {521, 206, 68, 28})});
  EXPECT_EQ(stats.matched, 2);
  EXPECT_EQ(At(w, {2, 0}).source, Source::kMerged);
  EXPECT_EQ(At(w, {2, 0, 1}).source, Source::kMerged);
  EXPECT_EQ(stats.added, 0);
}

TEST(MergeTest, PlanSaysWhatMergeDoes) {
  Node w = Window();
  std::vector<Detection> d = {
      Vision(Role::kButton, {10, 50, 100, 30}), Vision(Role::kButton, {11, 50, 100, 30}),
      Vision(Role::kCheckBox, {12, 132, 16, 16}), Vision(Role::kButton, {320, 20, 90, 36})};
  std::vector<PlannedDetection> plan = PlanMerge(w, d);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].placement, Placement::kMatched);
  EXPECT_EQ(plan[0].element, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(plan[1].placement, Placement::kDuplicate);
  EXPECT_EQ(plan[2].placement, Placement::kPart);
  EXPECT_EQ(plan[2].element, (std::vector<size_t>{0, 3}));
  EXPECT_EQ(plan[3].placement, Placement::kOrphan);
}

TEST(MergeTest, NewNodesGetStableIdsAndOldIdsStay) {
  std::vector<Node> roots = {Ax(Role::kApplication, "demo", Rect{}, {Window()})};
  roots[0].bounds.reset();
  AssignIds(roots);
  const std::vector<Node> before = roots;
  const std::vector<Detection> d = {Vision(Role::kButton, {320, 20, 90, 36}, "OK"),
                                    Vision(Role::kIcon, {420, 20, 24, 24})};
  MergeDetections(roots[0].children[0], d);
  AssignIds(roots, &before);
  const Node& canvas = roots[0].children[0].children[1];
  ASSERT_EQ(canvas.children.size(), 2u);
  EXPECT_EQ(canvas.id, before[0].children[0].children[1].id);
  EXPECT_EQ(canvas.children[0].id.rfind("btn_", 0), 0u) << canvas.children[0].id;
  EXPECT_EQ(canvas.children[1].id.rfind("ico_", 0), 0u) << canvas.children[1].id;
  EXPECT_EQ(canvas.children[0].window, roots[0].children[0].id);

  // The same pixels observed again give the same IDs.
  std::vector<Node> again = {Ax(Role::kApplication, "demo", Rect{}, {Window()})};
  again[0].bounds.reset();
  AssignIds(again);
  MergeDetections(again[0].children[0], d);
  AssignIds(again);
  EXPECT_EQ(again[0].children[0].children[1].children[0].id, canvas.children[0].id);
  EXPECT_EQ(again[0].children[0].children[1].children[1].id, canvas.children[1].id);
}

TEST(MergeTest, ElementsAndContainers) {
  EXPECT_TRUE(IsMergeElement(Ax(Role::kButton, "", Rect{0, 0, 5, 5})));
  EXPECT_TRUE(IsMergeElement(Ax(Role::kLabel, "x", Rect{0, 0, 5, 5})));
  EXPECT_FALSE(IsMergeElement(Ax(Role::kCanvas, "", Rect{0, 0, 5, 5})));
  EXPECT_FALSE(IsMergeElement(Ax(Role::kButton, "", Rect{0, 0, 0, 5})));
  EXPECT_TRUE(IsMergeElement(
      Ax(Role::kListItem, "", Rect{0, 0, 5, 5}, {Ax(Role::kLabel, "a", Rect{0, 0, 2, 2})})));
  EXPECT_FALSE(IsMergeElement(
      Ax(Role::kPanel, "", Rect{0, 0, 5, 5}, {Ax(Role::kLabel, "a", Rect{0, 0, 2, 2})})));
}

TEST(MergeTest, ShowsTextWholeWordsCaseAndAccentInsensitive) {
  Node n = Ax(Role::kButton, "Créer le compte", Rect{0, 0, 5, 5});
  EXPECT_TRUE(ShowsText(n, "creer"));
  EXPECT_TRUE(ShowsText(n, "LE COMPTE"));
  EXPECT_FALSE(ShowsText(n, "comp"));
  EXPECT_TRUE(ShowsText(n, ""));
}

}  // namespace
}  // namespace uiscope
