// OCR nodes in the tree (engine/ocr_nodes.h) on hand-built snapshots.
#include "engine/ocr_nodes.h"

#include <gtest/gtest.h>

#include "core/ids.h"
#include "engine/x11_windows_nodes.h"
#include "ocr_test_support.h"
#include "platform/windows_from_pixels.h"
#include "support/fake_screen.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

Node MakeNode(Role role, std::string name, Rect bounds, std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  n.app = "demo";
  n.pid = 4242;
  n.children = std::move(children);
  return n;
}

ocr::OcrLine Line(std::string text, Rect bounds, float confidence = 0.9f) {
  ocr::OcrLine l;
  l.text = text;
  l.bounds = bounds;
  l.confidence = confidence;
  l.words.push_back({std::move(text), bounds, confidence});
  return l;
}

ocr::OcrResult Text(std::vector<ocr::OcrLine> lines) {
  ocr::OcrResult r;
  r.lines = std::move(lines);
  return r;
}

// demo → window "Main" (with a button) and window "Blank" (only an unnamed
// panel holding an unnamed button), and a canvas in "Main".
Snapshot Demo() {
  Snapshot s;
  Node main = MakeNode(Role::kWindow, "Main", Rect{0, 0, 400, 300},
                       {MakeNode(Role::kButton, "Quit", Rect{10, 10, 80, 30}),
                        MakeNode(Role::kCanvas, "", Rect{10, 60, 300, 200})});
  Node blank = MakeNode(Role::kWindow, "Blank", Rect{500, 0, 300, 200},
                        {MakeNode(Role::kPanel, "", Rect{500, 0, 300, 200},
                                  {MakeNode(Role::kButton, "", Rect{520, 20, 100, 30}),
                                   MakeNode(Role::kTextField, "", Rect{520, 80, 200, 30})})});
  blank.children[0].children[1].states.Set(State::kPassword);
  s.roots.push_back(
      MakeNode(Role::kApplication, "demo", Rect{}, {std::move(main), std::move(blank)}));
  s.roots[0].bounds.reset();
  AssignIds(s.roots);
  return s;
}

TEST(OcrNodesTest, TargetsAreBlindWindowsWidgetsAndMissingWindows) {
  Snapshot s = Demo();
  auto top = [](unsigned long window, const char* title, int pid, Rect bounds, bool focused) {
    WindowInfo t;
    t.id = window;
    t.title = title;
    t.pid = pid;
    t.bounds = bounds;
    t.frame = bounds;  // no window manager
    t.focused = focused;
    return t;
  };
  std::vector<WindowInfo> tops = {
      top(0x100, "Main", 4242, Rect{0, 0, 400, 300}, true),       // in the tree
      top(0x150, "Blank", 4242, Rect{500, 0, 300, 200}, false),   // in the tree
      top(0x200, "xterm", 777, Rect{100, 400, 600, 300}, false),  // missing
      top(0x300, "tiny", 888, Rect{0, 0, 4, 4}, false),           // too small to read
  };
  std::vector<OcrTarget> targets = FindOcrTargets(s, tops, ObserveRequest{});
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0, 1}));  // the canvas
  EXPECT_EQ(targets[0].bounds, (Rect{10, 60, 300, 200}));
  EXPECT_EQ(targets[1].path, (std::vector<size_t>{0, 1}));  // "Blank": no name or value inside
  EXPECT_TRUE(targets[2].path.empty());
  EXPECT_EQ(targets[2].x_window, 0x200u);
  EXPECT_EQ(targets[2].title, "xterm");
  EXPECT_EQ(targets[2].pid, 777);

  ObserveRequest only_demo;
  only_demo.pid = 4242;
  targets = FindOcrTargets(s, tops, only_demo);
  EXPECT_EQ(targets.size(), 2u) << "the xterm belongs to another process";
}

// Issue 17: Chromium lists two empty windows X never maps over its main
// window; OCR read the main window's pixels into each. A top-level window of
// the tree that no X top-level shows is no target, nor what it holds.
TEST(OcrNodesTest, WindowsTheXServerDoesNotShowAreNotRead) {
  Snapshot s;
  Node main = MakeNode(Role::kWindow, "Page", Rect{0, 0, 800, 600},
                       {MakeNode(Role::kButton, "Reload", Rect{10, 220, 80, 30}),
                        MakeNode(Role::kCanvas, "", Rect{10, 10, 300, 200})});
  Node bubble = MakeNode(Role::kWindow, "", Rect{100, 25, 460, 88},
                         {MakeNode(Role::kPanel, "", Rect{100, 25, 460, 88})});
  s.roots.push_back(MakeNode(Role::kApplication, "chromium", Rect{}, {main, bubble, bubble}));
  s.roots[0].bounds.reset();
  WindowInfo shown;
  shown.id = 0x100;
  shown.title = "Page";
  shown.pid = 4242;
  shown.bounds = shown.frame = Rect{0, 0, 800, 600};
  std::vector<OcrTarget> targets = FindOcrTargets(s, {shown}, ObserveRequest{});
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0, 1})) << "the canvas of the shown window";
  EXPECT_EQ(FindOcrTargets(s, {}, ObserveRequest{}).size(), 3u) << "no listing: the tree decides";
}

// Issue 17: a window missing from the tree is in scope of --app by the rule
// `windows` names apps by (its WM_CLASS), and its app is named that way, not
// by the process name the kernel cuts at 15 characters ("gnome-calculato").
TEST(OcrNodesTest, MissingWindowsAreScopedAndNamedByTheirWmClass) {
  Snapshot s;
  WindowInfo calc;
  calc.id = 0x500;
  calc.title = "Calculator";
  calc.pid = 0;  // no process to name it: only WM_CLASS can
  calc.bounds = calc.frame = Rect{100, 100, 360, 500};
  calc.app_instance = "gnome-calculator";
  calc.app_class = "Gnome-calculator";
  ObserveRequest scope;
  scope.app = "gnome-calculator";
  std::vector<OcrTarget> targets = FindOcrTargets(s, {calc}, scope);
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].app, "gnome-calculator");
  scope.app = "Gnome-Calculator";  // the class, any case
  EXPECT_EQ(FindOcrTargets(s, {calc}, scope).size(), 1u);
  scope.app = "kcalc";
  EXPECT_TRUE(FindOcrTargets(s, {calc}, scope).empty());
}

// A VNC desktop's windows are found from their title bars in pixels
// (platform/windows_from_pixels.h), and such a bar may be the app's own: a
// GTK header bar holding Open, Save, a menu and a close button (gedit 43
// under openbox). Its window's node covers the frame, bar included, so that
// OCR and vision read those controls; X still shows it, its target is the
// frame, and the window above it is masked. A window X lists itself keeps
// its client area.
TEST(OcrNodesTest, AWindowFoundFromItsTitleBarIsReadWithItsBar) {
  WindowInfo header;  // a 47-row header bar over a client area of 40 rows
  header.id = kTitleBarWindowBit | 0x1234;
  header.title = "Untitled Document 1";
  header.app_class = "VNC";
  header.app_instance = "vnc";
  header.frame = Rect{64, 84, 300, 87};
  header.bounds = Rect{64, 131, 300, 40};
  WindowInfo above = header;  // another one, over its lower right part
  above.id = kTitleBarWindowBit | 0x5678;
  above.title = "Untitled 1 - Mousepad";
  above.frame = Rect{300, 150, 200, 100};
  above.bounds = Rect{300, 169, 200, 81};
  WindowInfo x11;  // a client window X lists, framed by its window manager
  x11.id = 0x4000f8;
  x11.title = "xterm";
  x11.pid = 777;
  x11.app_instance = "xterm";
  x11.frame = Rect{600, 100, 402, 326};
  x11.bounds = Rect{601, 120, 400, 300};
  ASSERT_TRUE(FoundFromTitleBar(header));
  ASSERT_FALSE(FoundFromTitleBar(x11));

  Snapshot s;
  s.roots = X11AppNodes({header, above, x11});
  AssignIds(s.roots);
  ASSERT_EQ(s.roots.size(), 2u);  // "vnc" (pid 0) and xterm
  ASSERT_EQ(s.roots[0].children.size(), 2u);
  EXPECT_EQ(s.roots[0].children[0].bounds, header.frame);
  EXPECT_EQ(s.roots[0].children[1].bounds, above.frame);
  EXPECT_EQ(s.roots[1].children[0].bounds, x11.bounds);
  // The client area alone is less than half of the frame: X shows the node
  // through the frame.
  EXPECT_LT(IoU(header.bounds, header.frame), kSameWindowIoU);
  EXPECT_TRUE(ShownByX(header.frame, {header, above, x11}));
  EXPECT_FALSE(ShownByX(Rect{1200, 600, 300, 87}, {header, above, x11}));

  const std::vector<WindowInfo> tops = {header, above, x11};
  const std::vector<OcrTarget> targets = FindOcrTargets(s, tops, ObserveRequest{});
  // The three empty windows, each once (none again as missing from the
  // tree), the header bar's window by its frame.
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0}));
  EXPECT_EQ(targets[0].bounds, header.frame);
  EXPECT_EQ(targets[2].bounds, x11.bounds);
  const std::vector<Rect> covered = CoveredParts(targets[0], tops, {header.id, above.id, x11.id});
  EXPECT_EQ(covered, (std::vector<Rect>{Intersect(above.frame, header.frame)}));
}

// gedit's status bar shows "Ln 2, Col 9" in a label that exposes no text.
TEST(OcrNodesTest, ATextLeafThatExposesNoTextIsRead) {
  Snapshot s;
  Node status = MakeNode(Role::kLabel, "", Rect{300, 280, 100, 20});
  Node named = MakeNode(Role::kLabel, "Ready", Rect{10, 280, 100, 20});
  Node filled = MakeNode(Role::kText, "", Rect{120, 280, 100, 20});
  filled.value = "typed";
  Node tiny = MakeNode(Role::kLabel, "", Rect{230, 280, 4, 4});
  s.roots.push_back(MakeNode(Role::kApplication, "demo", Rect{},
                             {MakeNode(Role::kWindow, "Editor", Rect{0, 0, 400, 300},
                                       {MakeNode(Role::kButton, "Save", Rect{10, 10, 80, 30}),
                                        named, filled, tiny, status})}));
  s.roots[0].bounds.reset();
  AssignIds(s.roots);
  const std::vector<OcrTarget> targets = FindOcrTargets(s, {}, ObserveRequest{});
  ASSERT_EQ(targets.size(), 1u) << "only the unnamed, empty, readable label";
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0, 4}));
  const std::string id = s.roots[0].children[0].children[4].id;
  MergeOcrText(s, {{targets[0], Text({Line("Ln 2, Col 9", Rect{304, 282, 80, 16})})}});
  // The line is a part of the label with text it does not show (core/merge.h
  // rule 3): it becomes the label's child.
  const Node& label = s.roots[0].children[0].children[4];
  ASSERT_EQ(label.children.size(), 1u);
  EXPECT_EQ(label.children[0].name, "Ln 2, Col 9");
  EXPECT_EQ(label.children[0].source, Source::kOcr);
  EXPECT_EQ(label.id, id);
}

TEST(OcrNodesTest, TextGoesUnderItsHolderAndExistingIdsStay) {
  Snapshot s = Demo();
  const std::string quit_id = test::FindNode(s.roots, Role::kButton, "Quit")->id;
  const std::string main_id = s.roots[0].children[0].id;
  OcrTarget canvas;
  canvas.bounds = Rect{10, 60, 300, 200};
  canvas.path = {0, 0, 1};
  OcrMergeStats stats =
      MergeOcrText(s, {{canvas, Text({Line("OK", Rect{20, 70, 40, 20}, 0.95f),
                                      Line("Cancel", Rect{80, 70, 60, 20}, 0.9f)})}});
  EXPECT_EQ(stats.ocr_nodes, 2);
  EXPECT_EQ(stats.merged_nodes, 0);
  EXPECT_EQ(s.stats.ocr_nodes, 2);
  const Node& canvas_node = s.roots[0].children[0].children[1];
  ASSERT_EQ(canvas_node.children.size(), 2u);
  const Node& ok = canvas_node.children[0];
  EXPECT_EQ(ok.role, Role::kText);
  EXPECT_EQ(ok.name, "OK");
  EXPECT_EQ(ok.source, Source::kOcr);
  EXPECT_FLOAT_EQ(ok.confidence, 0.95f);
  EXPECT_EQ(ok.bounds, (Rect{20, 70, 40, 20}));
  EXPECT_EQ(ok.id.rfind("tx_", 0), 0u) << ok.id;
  EXPECT_EQ(ok.window, main_id);
  EXPECT_EQ(ok.pid, 4242);
  EXPECT_EQ(test::FindNode(s.roots, Role::kButton, "Quit")->id, quit_id);
  EXPECT_EQ(s.roots[0].children[0].id, main_id);
}

TEST(OcrNodesTest, FillsTheNameOfAnElementHoldingOneLineNeverAPasswordField) {
  Snapshot s = Demo();
  const std::string button_id = s.roots[0].children[1].children[0].children[0].id;
  OcrTarget blank;
  blank.bounds = Rect{500, 0, 300, 200};
  blank.path = {0, 1};
  MergeOcrText(
      s, {{blank, Text({Line("Send", Rect{540, 25, 50, 18}), Line("hunter2", Rect{530, 85, 80, 18}),
                        Line("Status: idle", Rect{520, 150, 120, 18})})}});
  const Node& panel = s.roots[0].children[1].children[0];
  const Node& button = panel.children[0];
  EXPECT_EQ(button.name, "Send");
  EXPECT_EQ(button.source, Source::kMerged);
  EXPECT_EQ(button.id, button_id) << "a named element keeps its ID";
  EXPECT_EQ(s.stats.merged_nodes, 1);
  const Node& password = panel.children[1];
  EXPECT_TRUE(password.name.empty());
  EXPECT_TRUE(password.children.empty()) << "what was read in a password field is dropped";
  // The last line became a text node under the smallest container holding
  // it (core/merge.h), the panel.
  const Node& window = s.roots[0].children[1];
  ASSERT_EQ(window.children.size(), 1u);
  ASSERT_EQ(panel.children.size(), 3u);
  EXPECT_EQ(panel.children[2].name, "Status: idle");
  EXPECT_EQ(panel.children[2].source, Source::kOcr);
  EXPECT_EQ(s.stats.ocr_nodes, 1);
}

TEST(OcrNodesTest, ALineAcrossSeveralElementsIsCutPerElement) {
  // Two unnamed buttons in a canvas (as vision adds them) and a third word
  // outside both, read by OCR as one line "OK Cancel later".
  Snapshot s = Demo();
  Node& canvas = s.roots[0].children[0].children[1];
  canvas.children.push_back(MakeNode(Role::kButton, "", Rect{20, 70, 60, 30}));
  canvas.children.push_back(MakeNode(Role::kButton, "Cancel", Rect{100, 70, 80, 30}));
  const std::vector<Node> before = s.roots;
  AssignIds(s.roots, &before);
  ocr::OcrLine line = Line("OK", Rect{35, 77, 20, 16});
  line.text = "OK Cancel later";
  line.words.push_back({"Cancel", Rect{110, 77, 60, 16}, 0.9f});
  line.words.push_back({"later", Rect{220, 77, 50, 16}, 0.8f});
  line.bounds = Rect{35, 77, 235, 16};
  OcrTarget target;
  target.bounds = Rect{10, 60, 300, 200};
  target.path = {0, 0, 1};
  OcrMergeStats stats = MergeOcrText(s, {{target, Text({line})}});
  const Node& c = s.roots[0].children[0].children[1];
  ASSERT_EQ(c.children.size(), 3u);
  EXPECT_EQ(c.children[0].name, "OK") << "the unnamed button takes its word";
  EXPECT_EQ(c.children[1].name, "Cancel");
  EXPECT_TRUE(c.children[1].children.empty()) << "its word repeats its name";
  EXPECT_EQ(c.children[2].name, "later");
  EXPECT_EQ(c.children[2].source, Source::kOcr);
  EXPECT_EQ(stats.ocr_nodes, 1);
}

TEST(OcrNodesTest, MissingWindowsGetAnApplicationAndAWindow) {
  Snapshot s = Demo();
  OcrTarget xterm;
  xterm.bounds = Rect{100, 400, 600, 300};
  xterm.x_window = 0x200;
  xterm.title = "user@host: ~";
  xterm.pid = 777;
  xterm.app = "xterm";
  OcrMergeStats stats =
      MergeOcrText(s, {{xterm, Text({Line("$ make test", Rect{104, 404, 100, 14})})}});
  EXPECT_EQ(stats.ocr_nodes, 3);
  ASSERT_EQ(s.roots.size(), 2u);
  const Node& app = s.roots[1];
  EXPECT_EQ(app.role, Role::kApplication);
  EXPECT_EQ(app.name, "xterm");
  EXPECT_EQ(app.pid, 777);
  ASSERT_EQ(app.children.size(), 1u);
  const Node& window = app.children[0];
  EXPECT_EQ(window.role, Role::kWindow);
  EXPECT_EQ(window.name, "user@host: ~");
  EXPECT_EQ(window.source, Source::kX11);
  EXPECT_EQ(window.bounds, (Rect{100, 400, 600, 300}));
  ASSERT_EQ(window.children.size(), 1u);
  EXPECT_EQ(window.children[0].name, "$ make test");
  EXPECT_EQ(window.children[0].window, window.id);
  EXPECT_EQ(window.children[0].app, "xterm");
}

// Issue 20: OCR nodes are read through the desktop's ScreenCapture and
// WindowSystem alone, so a fake desktop (in-memory screen, listed windows)
// serves them as X11 does: a window the tree lacks is captured, read and
// merged, with the text of the pixels under it.
TEST(OcrNodesTest, AWindowMissingFromTheTreeIsReadOnAFakeScreen) {
  const Image ui = test::LoadPng(std::string(UISCOPE_TEST_IMAGES) + "/ui.png");
  ASSERT_TRUE(ui.Valid());
  const Rect at{60, 40, ui.width, ui.height};
  WindowInfo window;
  window.id = 0x700;
  window.title = "Fixture";
  window.app_instance = "fixture";
  window.bounds = window.frame = at;
  auto workspace = test::WorkspaceShowing(ui, window);
  auto lease = workspace->Acquire();
  ASSERT_TRUE(lease.ok()) << lease.error().ToString();
  auto observed = lease->observer->Observe(ObserveRequest{});
  ASSERT_TRUE(observed.ok()) << observed.error().ToString();
  Snapshot snapshot = observed->snapshot;

  TextReader reader;
  auto read = AddOcrSource(snapshot, *lease, reader, ObserveRequest{}, ocr::OcrOptions{});
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  EXPECT_EQ(read->targets, 1);
  const Node* found = nullptr;
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.role == Role::kWindow && n.name == "Fixture") found = &n;
  });
  ASSERT_NE(found, nullptr) << "the window missing from the tree is added";
  EXPECT_EQ(found->bounds, at);
  std::string text;
  ForEachNode(found->children, [&](const Node& n, int) { text += n.name + " " + n.value + "\n"; });
  for (const char* label : {"Login", "Password", "Cancel"}) {
    EXPECT_NE(text.find(label), std::string::npos) << label << " missing from:\n" << text;
  }
}

// A large container that the tree leaves empty — a grid drawn without cell
// objects, a document page, an icon view — is read by OCR under it; a small
// one, one with a readable descendant, or a toolbar of unnamed buttons is not.
TEST(OcrNodesTest, BlindAreasAreLargeContainersWithoutReadableDescendants) {
  Node grid = MakeNode(Role::kTable, "", Rect{10, 60, 600, 400});
  EXPECT_TRUE(IsBlindArea(grid));
  Node unnamed_rows = MakeNode(Role::kList, "", Rect{10, 60, 600, 400},
                               {MakeNode(Role::kListItem, "", Rect{10, 60, 600, 20})});
  EXPECT_TRUE(IsBlindArea(unnamed_rows)) << "rows without names show nothing readable";
  Node named_rows = MakeNode(Role::kList, "", Rect{10, 60, 600, 400},
                             {MakeNode(Role::kListItem, "report.txt", Rect{10, 60, 600, 20})});
  EXPECT_FALSE(IsBlindArea(named_rows));
  Node page = MakeNode(Role::kDocument, "page 1", Rect{10, 60, 600, 800});
  EXPECT_TRUE(IsBlindArea(page)) << "a name says what it is, not what it shows";
  page.value = "PAPAYA";
  EXPECT_FALSE(IsBlindArea(page)) << "its text is in the tree";
  EXPECT_FALSE(IsBlindArea(MakeNode(Role::kPanel, "", Rect{10, 60, 119, 400})));
  EXPECT_FALSE(IsBlindArea(MakeNode(Role::kPanel, "", Rect{10, 60, 600, 59})));
  EXPECT_FALSE(IsBlindArea(MakeNode(Role::kButton, "", Rect{10, 60, 600, 400})));
  EXPECT_FALSE(IsBlindArea(MakeNode(Role::kToolBar, "", Rect{10, 60, 600, 400})));
  Node vision = grid;
  vision.source = Source::kVision;
  EXPECT_FALSE(IsBlindArea(vision)) << "only the tree's own containers";
}

// Blind areas are OCR targets under their container; the one that covers the
// app's main area is read without being asked, the small one only with
// --sources ax,ocr.
TEST(OcrNodesTest, BlindAreasAreTargetsAndTheMainOneIsReadByDefault) {
  Snapshot s;
  Node sheet = MakeNode(
      Role::kWindow, "Sheet", Rect{0, 0, 800, 600},
      {MakeNode(Role::kMenuBar, "", Rect{0, 0, 800, 25},
                {MakeNode(Role::kMenu, "File", Rect{0, 0, 40, 25})}),
       MakeNode(Role::kPanel, "", Rect{0, 25, 800, 40},
                {MakeNode(Role::kButton, "", Rect{0, 25, 40, 40})}),  // icons: too low
       MakeNode(Role::kScrollPane, "", Rect{0, 65, 800, 500},
                {MakeNode(Role::kTable, "", Rect{0, 65, 780, 500})}),  // the grid
       MakeNode(Role::kPanel, "", Rect{600, 565, 200, 35},
                {MakeNode(Role::kLabel, "Sum=0", Rect{600, 565, 200, 35})})});
  Node side = MakeNode(Role::kWindow, "Side", Rect{900, 0, 400, 600},
                       {MakeNode(Role::kLabel, "Pages", Rect{900, 0, 400, 20}),
                        MakeNode(Role::kList, "", Rect{900, 20, 150, 100})});
  s.roots.push_back(MakeNode(Role::kApplication, "demo", Rect{}, {sheet, side}));
  s.roots[0].bounds.reset();
  AssignIds(s.roots);

  std::vector<OcrTarget> targets = FindOcrTargets(s, {}, ObserveRequest{});
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0, 2})) << "the outermost blind container";
  EXPECT_TRUE(targets[0].blind_area);
  EXPECT_EQ(targets[0].window, (Rect{0, 0, 800, 600}));
  EXPECT_EQ(targets[1].path, (std::vector<size_t>{0, 1, 1}));
  EXPECT_EQ(targets[1].window, (Rect{900, 0, 400, 600}));

  std::vector<OcrTarget> main = FindBlindMainAreas(s, {}, ObserveRequest{});
  ASSERT_EQ(main.size(), 1u) << "the side list covers 6% of its window";
  EXPECT_EQ(main[0].path, (std::vector<size_t>{0, 0, 2}));

  // An app whose tree shows its content pays nothing.
  s.roots[0].children[0].children[2].children[0].children.push_back(
      MakeNode(Role::kTableCell, "A1", Rect{0, 65, 80, 20}));
  EXPECT_TRUE(FindBlindMainAreas(s, {}, ObserveRequest{}).empty());
}

}  // namespace
}  // namespace uiscope
