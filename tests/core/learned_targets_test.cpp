// The learning rules of the learned memory (core/learned_targets.h): each
// passive rule, the decay, the active rules, the bound, teaching and the
// merge priorities, on plain data.
#include "core/learned_targets.h"

#include <gtest/gtest.h>

namespace uiscope {
namespace {

SeenTarget Seen(const std::string& id, Rect bounds, const std::string& label = "OK") {
  SeenTarget s;
  s.id = id;
  s.role = Role::kButton;
  s.label = label;
  s.bounds = bounds;
  return s;
}

TEST(TitlePatternTest, KeepsTheAppPartAndHidesCounters) {
  EXPECT_EQ(TitlePattern("notes.txt - gedit"), "gedit");
  EXPECT_EQ(TitlePattern("Page 3 of 12"), "Page # of #");
  EXPECT_EQ(TitlePattern("Inbox (42) \xe2\x80\x94 Mail"), "Mail");
  EXPECT_EQ(TitlePattern("  Calculator  "), "Calculator");
  EXPECT_EQ(TitlePattern("Trailing - "), "Trailing -");
}

TEST(LearnedTargetsTest, ANewTargetStartsAtTheInitialConfidence) {
  std::vector<LearnedTarget> stored;
  LearnCounts c = LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30})}, false, 1000);
  EXPECT_EQ(c.added, 1);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_DOUBLE_EQ(stored[0].confidence, kInitialConfidence);
  EXPECT_EQ(stored[0].first_seen_ms, 1000);
  EXPECT_EQ(stored[0].click, (Point{50, 35}));
}

TEST(LearnedTargetsTest, SamePlaceRaisesConfidenceUpToTheCap) {
  std::vector<LearnedTarget> stored;
  LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30})}, false, 1000);
  // A pixel or two off is the same place (kSamePlaceTolerance).
  LearnCounts c = LearnFromObservation(stored, {Seen("btn_1", {12, 19, 80, 30})}, false, 2000);
  EXPECT_EQ(c.same, 1);
  EXPECT_DOUBLE_EQ(stored[0].confidence, 0.6);
  EXPECT_EQ(stored[0].last_seen_ms, 2000);
  EXPECT_EQ(stored[0].first_seen_ms, 1000);
  for (int i = 0; i < 10; ++i)
    LearnFromObservation(stored, {Seen("btn_1", {12, 19, 80, 30})}, false, 3000);
  EXPECT_DOUBLE_EQ(stored[0].confidence, kMaxConfidence);
}

TEST(LearnedTargetsTest, MovedUpdatesThePlaceAndKeepsConfidence) {
  std::vector<LearnedTarget> stored;
  LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30})}, false, 1000);
  LearnCounts c = LearnFromObservation(stored, {Seen("btn_1", {10, 120, 80, 30})}, false, 2000);
  EXPECT_EQ(c.moved, 1);
  EXPECT_EQ(stored[0].bounds, (Rect{10, 120, 80, 30}));
  EXPECT_EQ(stored[0].click, (Point{50, 135}));
  EXPECT_DOUBLE_EQ(stored[0].confidence, kInitialConfidence);
}

TEST(LearnedTargetsTest, GoneMarksStaleAndDecaysThenDrops) {
  std::vector<LearnedTarget> stored;
  LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30}), Seen("btn_2", {0, 0, 5, 5})},
                       false, 1000);
  LearnCounts c = LearnFromObservation(stored, {Seen("btn_2", {0, 0, 5, 5})}, false, 2000);
  EXPECT_EQ(c.stale, 1);
  EXPECT_TRUE(stored[0].stale);
  EXPECT_DOUBLE_EQ(stored[0].confidence, 0.4);
  EXPECT_EQ(stored[0].last_seen_ms, 1000);  // not seen since
  // Seen again: no longer stale.
  LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30}), Seen("btn_2", {0, 0, 5, 5})},
                       false, 3000);
  EXPECT_FALSE(stored[0].stale);
  EXPECT_DOUBLE_EQ(stored[0].confidence, 0.5);
  // Gone for good: 0.5 x 0.8^n falls under kForgetBelow after 11 observations.
  int dropped = 0;
  for (int i = 0; i < 11; ++i) {
    dropped += LearnFromObservation(stored, {Seen("btn_2", {0, 0, 5, 5})}, false, 4000).dropped;
  }
  EXPECT_EQ(dropped, 1);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, "btn_2");
}

TEST(LearnedTargetsTest, PixelOnlyTargetsDecayOnlyWhenThePixelsWereLookedAt) {
  auto taught = TaughtTarget(AppSignature{"tk", "Tk", "x11"}, "Greeting", {20, 30, 100, 20},
                             Role::kLabel, 1000);
  ASSERT_TRUE(taught.ok());
  std::vector<LearnedTarget> stored = {*taught};
  LearnFromObservation(stored, {}, /*pixels_checked=*/false, 2000);
  EXPECT_FALSE(stored[0].stale);
  EXPECT_DOUBLE_EQ(stored[0].confidence, kTaughtConfidence);
  LearnFromObservation(stored, {}, /*pixels_checked=*/true, 3000);
  EXPECT_TRUE(stored[0].stale);
  EXPECT_DOUBLE_EQ(stored[0].confidence, 0.64);
  // A taught target is never dropped by decay: it keeps kMinConfidence.
  for (int i = 0; i < 50; ++i) LearnFromObservation(stored, {}, true, 4000);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_DOUBLE_EQ(stored[0].confidence, kMinConfidence);
}

TEST(LearnedTargetsTest, HitsAndMisses) {
  std::vector<LearnedTarget> stored;
  LearnFromObservation(stored, {Seen("btn_1", {10, 20, 80, 30})}, false, 1000);
  LearnedTarget& t = stored[0];
  for (int i = 0; i < 5; ++i) RecordHit(t, 2000);
  EXPECT_EQ(t.hits, 5);
  EXPECT_DOUBLE_EQ(t.confidence, 0.75);
  EXPECT_TRUE(t.Reliable());
  RecordMiss(t, 3000);
  EXPECT_EQ(t.misses, 1);
  EXPECT_DOUBLE_EQ(t.confidence, 0.6);
  EXPECT_FALSE(t.Reliable());
  for (int i = 0; i < 10; ++i) RecordMiss(t, 3000);
  EXPECT_DOUBLE_EQ(t.confidence, kMinConfidence);
  for (int i = 0; i < 20; ++i) RecordHit(t, 3000);
  EXPECT_DOUBLE_EQ(t.confidence, kMaxConfidence);
}

TEST(LearnedTargetsTest, TheBoundKeepsTaughtThenTheMostConfident) {
  std::vector<LearnedTarget> targets;
  for (int i = 0; i < 10; ++i) {
    LearnedTarget t;
    t.id = "btn_" + std::to_string(i);
    t.confidence = 0.1 * i;
    t.last_seen_ms = i;
    targets.push_back(t);
  }
  targets[0].source = LearnedSource::kTaught;
  ApplyBound(targets, 3);
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].id, "btn_0");
  EXPECT_EQ(targets[1].id, "btn_9");
  EXPECT_EQ(targets[2].id, "btn_8");
}

TEST(LearnedTargetsTest, ObservationsApplyTheBound) {
  std::vector<SeenTarget> many;
  for (int i = 0; i < kMaxTargetsPerApp + 50; ++i) {
    many.push_back(Seen("btn_" + std::to_string(i), {i, 0, 5, 5}));
  }
  std::vector<LearnedTarget> stored;
  LearnCounts c = LearnFromObservation(stored, many, false, 1);
  EXPECT_EQ(stored.size(), static_cast<size_t>(kMaxTargetsPerApp));
  EXPECT_EQ(c.dropped, 50);
}

TEST(LearnedTargetsTest, TeachingNeedsALabelAndASizeAndGivesAStableId) {
  AppSignature sig{"gedit", "gedit", "atspi"};
  EXPECT_FALSE(TaughtTarget(sig, "  ", {0, 0, 10, 10}, Role::kButton, 1).ok());
  EXPECT_FALSE(TaughtTarget(sig, "Save", {0, 0, 0, 10}, Role::kButton, 1).ok());
  auto a = TaughtTarget(sig, "Save", {0, 0, 10, 10}, Role::kButton, 1);
  auto b = TaughtTarget(sig, "Save", {5, 5, 10, 10}, Role::kButton, 2);
  auto c = TaughtTarget(AppSignature{"gedit", "other", "atspi"}, "Save", {0, 0, 10, 10},
                        Role::kButton, 1);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->id, b->id);
  EXPECT_NE(a->id, c->id);
  EXPECT_EQ(a->id.rfind("lrn_", 0), 0u);
  EXPECT_DOUBLE_EQ(a->confidence, kTaughtConfidence);
}

Node Window() {
  Node w;
  w.id = "win_1";
  w.role = Role::kWindow;
  w.name = "Form";
  w.bounds = Rect{100, 200, 400, 300};
  w.app = "form";
  return w;
}

TEST(LearnedNodesTest, AccessibilityFirstThenFoundThenReliableStale) {
  Node window = Window();
  Node ok;
  ok.id = "btn_ok";
  ok.role = Role::kButton;
  ok.name = "OK";
  ok.bounds = Rect{110, 210, 80, 30};
  window.children.push_back(ok);

  LearnedTarget in_tree;  // the tree has it: memory adds nothing
  in_tree.id = "btn_ok";
  in_tree.label = "OK";
  in_tree.bounds = Rect{10, 10, 80, 30};
  in_tree.hits = 9;
  in_tree.confidence = 0.9;
  LearnedTarget same_place = in_tree;  // another ID, same label and place
  same_place.id = "lrn_000001";
  LearnedTarget reliable;
  reliable.id = "btn_gone";
  reliable.role = Role::kButton;
  reliable.label = "Apply";
  reliable.bounds = Rect{200, 100, 60, 20};
  reliable.hits = 4;
  reliable.confidence = 0.8;
  LearnedTarget unreliable = reliable;
  unreliable.id = "btn_rare";
  unreliable.hits = 3;  // hits > 3 needed
  LearnedTarget taught = unreliable;
  taught.id = "lrn_abc";
  taught.label = "Canvas play";
  taught.source = LearnedSource::kTaught;

  std::vector<Node> added =
      LearnedNodes(window, {in_tree, same_place, reliable, unreliable, taught},
                   {FoundTarget{"lrn_abc", Rect{330, 305, 60, 20}}});
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].id, "btn_gone");
  EXPECT_EQ(added[0].source, Source::kLearned);
  EXPECT_TRUE(added[0].Has(State::kStale));
  EXPECT_EQ(added[0].bounds, (Rect{300, 300, 60, 20}));  // relative to the window now
  EXPECT_EQ(added[0].window, "win_1");
  EXPECT_EQ(added[1].id, "lrn_abc");
  EXPECT_FALSE(added[1].Has(State::kStale));
  EXPECT_EQ(added[1].bounds, (Rect{330, 305, 60, 20}));
  EXPECT_NEAR(added[1].confidence, 0.8, 1e-6);
}

TEST(SeenTargetsTest, InteractiveElementsRelativeToTheWindowWithoutPasswords) {
  Node window = Window();
  Node field;
  field.id = "txt_pw";
  field.role = Role::kTextField;
  field.name = "Password";
  field.value = "hunter2";
  field.bounds = Rect{120, 260, 100, 20};
  field.states.Set(State::kPassword);
  Node label;
  label.id = "lbl_1";
  label.role = Role::kLabel;
  label.name = "Status";
  label.bounds = Rect{120, 300, 100, 20};
  Node panel;
  panel.id = "pnl_1";
  panel.role = Role::kPanel;
  panel.bounds = Rect{100, 200, 400, 300};
  Node button;
  button.id = "btn_go";
  button.role = Role::kButton;
  button.name = "Go";
  button.bounds = Rect{150, 250, 50, 20};
  panel.children = {field, label, button};
  window.children = {panel};
  std::vector<SeenTarget> seen = SeenTargetsOf(window);
  ASSERT_EQ(seen.size(), 3u);  // the panel, the label, the button; no password field
  EXPECT_EQ(seen[0].id, "pnl_1");
  EXPECT_FALSE(seen[0].learn_new);
  EXPECT_EQ(seen[1].id, "lbl_1");
  EXPECT_FALSE(seen[1].learn_new);
  EXPECT_EQ(seen[2].id, "btn_go");
  EXPECT_TRUE(seen[2].learn_new);
  EXPECT_EQ(seen[2].bounds, (Rect{50, 50, 50, 20}));
  EXPECT_EQ(seen[2].parent, "pnl_1");
  // Only the button is learned from scratch; a stored label is kept current.
  std::vector<LearnedTarget> stored;
  LearnFromObservation(stored, seen, false, 1);
  ASSERT_EQ(stored.size(), 1u);
  LearnedTarget label_target;
  label_target.id = "lbl_1";
  label_target.bounds = Rect{20, 100, 100, 20};
  stored.push_back(label_target);
  LearnCounts c = LearnFromObservation(stored, seen, false, 2);
  EXPECT_EQ(c.stale, 0);
  EXPECT_EQ(c.same, 2);
}

}  // namespace
}  // namespace uiscope
