// Vision nodes in the tree (engine/vision_nodes.h) on hand-built snapshots.
#include "engine/vision_nodes.h"

#include <gtest/gtest.h>

#include "core/ids.h"
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

Detection Seen(Role role, Rect bounds, std::string name, float confidence = 0.6f) {
  Detection d;
  d.role = role;
  d.bounds = bounds;
  d.name = std::move(name);
  d.confidence = confidence;
  d.source = Source::kVision;
  return d;
}

// demo -> window "Main" holding a "Quit" button and an empty canvas.
Snapshot Demo() {
  Snapshot s;
  s.roots.push_back(MakeNode(Role::kApplication, "demo", Rect{},
                             {MakeNode(Role::kWindow, "Main", Rect{0, 0, 400, 300},
                                       {MakeNode(Role::kButton, "Quit", Rect{10, 10, 80, 30}),
                                        MakeNode(Role::kCanvas, "", Rect{10, 60, 300, 200})})}));
  s.roots[0].bounds.reset();
  s.stats.ax_nodes = 4;
  AssignIds(s.roots);
  return s;
}

TEST(VisionNodesTest, TargetsAreTheTreeWindowsAndTheMissingOnes) {
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
      top(0x100, "Main", 4242, Rect{0, 0, 400, 300}, true),        // in the tree
      top(0x200, "Calculator", 0, Rect{500, 0, 240, 320}, false),  // no accessibility
  };
  std::vector<OcrTarget> targets = FindVisionTargets(s, tops, ObserveRequest{});
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0}));
  EXPECT_TRUE(targets[1].path.empty());
  EXPECT_EQ(targets[1].x_window, 0x200u);
}

// Chromium lists two windows in its tree that X does not show (bubbles,
// "showing", over its main window): their pixels are the main window's, and
// each held a copy of its detections. Only windows X shows are targets.
TEST(VisionNodesTest, WindowsTheXServerDoesNotShowAreNoTargets) {
  Snapshot s = Demo();
  Node bubble = MakeNode(Role::kWindow, "", Rect{100, 25, 200, 40});
  bubble.states.Set(State::kShowing);
  s.roots[0].children.push_back(bubble);
  s.roots[0].children.push_back(bubble);
  WindowInfo main;
  main.id = 0x100;
  main.title = "Main";
  main.pid = 4242;
  main.bounds = main.frame = Rect{0, 0, 400, 300};
  const std::vector<OcrTarget> targets = FindVisionTargets(s, {main}, ObserveRequest{});
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].path, (std::vector<size_t>{0, 0}));
  // Without any listing (no window manager's client list) the tree decides.
  EXPECT_EQ(FindVisionTargets(s, {}, ObserveRequest{}).size(), 3u);
}

TEST(VisionNodesTest, MatchedAreMergedPaintedGoIntoTheCanvasWithIds) {
  Snapshot s = Demo();
  const std::string quit_id = test::FindNode(s.roots, Role::kButton, "Quit")->id;
  OcrTarget main;
  main.bounds = Rect{0, 0, 400, 300};
  main.path = {0, 0};
  VisionMergeStats stats =
      MergeVisionDetections(s, {{main,
                                 {Seen(Role::kButton, Rect{11, 11, 80, 30}, "Quit"),
                                  Seen(Role::kButton, Rect{30, 80, 90, 36}, "OK", 0.7f),
                                  Seen(Role::kSlider, Rect{30, 150, 160, 24}, "")}}});
  EXPECT_EQ(stats.merged_nodes, 1);
  EXPECT_EQ(stats.vision_nodes, 2);
  EXPECT_EQ(s.stats.vision_nodes, 2);
  EXPECT_EQ(s.stats.merged_nodes, 1);
  EXPECT_EQ(s.stats.ax_nodes, 4) << "accessible nodes are still counted as such";
  const Node* quit = test::FindNode(s.roots, Role::kButton, "Quit");
  EXPECT_EQ(quit->source, Source::kMerged);
  EXPECT_EQ(quit->id, quit_id);
  const Node& canvas = s.roots[0].children[0].children[1];
  ASSERT_EQ(canvas.children.size(), 2u);
  EXPECT_EQ(canvas.children[0].name, "OK");
  EXPECT_EQ(canvas.children[0].source, Source::kVision);
  EXPECT_FLOAT_EQ(canvas.children[0].confidence, 0.7f);
  EXPECT_EQ(canvas.children[0].id.rfind("btn_", 0), 0u);
  EXPECT_EQ(canvas.children[0].window, s.roots[0].children[0].id);
  EXPECT_EQ(canvas.children[1].role, Role::kSlider);
  EXPECT_EQ(canvas.children[1].id.rfind("sld_", 0), 0u);
}

TEST(VisionNodesTest, WindowsWithoutAccessibilityAreVisionOnly) {
  Snapshot s = Demo();
  OcrTarget xcalc;
  xcalc.bounds = Rect{500, 0, 240, 320};
  xcalc.x_window = 0x200;
  xcalc.title = "Calculator";
  xcalc.app = "xcalc";
  VisionMergeStats stats =
      MergeVisionDetections(s, {{xcalc,
                                 {Seen(Role::kButton, Rect{510, 60, 40, 28}, "7"),
                                  Seen(Role::kButton, Rect{552, 60, 40, 28}, "8")}}});
  EXPECT_EQ(stats.vision_nodes, 4) << "application, window and two buttons";
  ASSERT_EQ(stats.added_windows.size(), 1u);
  EXPECT_EQ(stats.added_windows[0].first, 0x200u);
  EXPECT_EQ(stats.added_windows[0].second, (std::vector<size_t>{1, 0}));
  ASSERT_EQ(s.roots.size(), 2u);
  const Node& app = s.roots[1];
  EXPECT_EQ(app.role, Role::kApplication);
  EXPECT_EQ(app.name, "xcalc");
  EXPECT_EQ(app.source, Source::kX11);
  const Node& window = app.children.at(0);
  EXPECT_EQ(window.name, "Calculator");
  EXPECT_EQ(window.source, Source::kX11);
  ASSERT_EQ(window.children.size(), 2u);
  EXPECT_EQ(window.children[0].name, "7");
  EXPECT_EQ(window.children[1].window, window.id);
}

}  // namespace
}  // namespace uiscope
