// Pixel IDs act where they were seen (issue 15): an OCR or vision ID from an
// earlier observation is acted on at its remembered place when its window
// has not moved and its pixels are unchanged (one small capture), and found
// by perceiving again otherwise — never clicked at a stale place. On a fake
// desktop: an in-memory screen showing tests/fixtures/images/ui.png in one
// window that no accessibility tree holds, and a recording input.
#include "engine/pixel_ids.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/perceive.h"
#include "ocr/ocr_test_support.h"
#include "support/desktop_fixture.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_input.h"
#include "support/fake_windows.h"

namespace uiscope {
namespace {

// Dark "text" on a light field: blocks standing in for glyphs.
Image Field(int width, int height) {
  Image image = MakeImage(width, height);
  std::fill(image.rgb.begin(), image.rgb.end(), uint8_t{235});
  return image;
}

void Paint(Image& image, const Rect& r, uint8_t grey) {
  for (int y = r.y; y < r.Bottom(); ++y) {
    for (int x = r.x; x < r.Right(); ++x) std::fill_n(image.Pixel(x, y), 3, grey);
  }
}

Image Text() {
  Image image = Field(200, 24);
  for (int i = 0; i < 8; ++i) Paint(image, Rect{6 + i * 10, 6, 6, 12}, 30);
  return image;
}

const Rect kWhole{0, 0, 200, 24};

TEST(PixelPatchTest, TheSamePixelsMatch) {
  const Image a = Text();
  const PatchComparison c = ComparePatches(PatchOf(a, kWhole), PatchOf(a, kWhole), 200);
  EXPECT_TRUE(c.same);
  EXPECT_EQ(c.changed_cells, 0);
}

TEST(PixelPatchTest, ACaretBlinkingIsNoChange) {
  const Image before = Text();
  Image after = Text();
  Paint(after, Rect{90, 4, 2, 16}, 0);  // a 2 px caret after the text
  const PatchComparison c = ComparePatches(PatchOf(before, kWhole), PatchOf(after, kWhole), 200);
  EXPECT_TRUE(c.same) << c.why;
  EXPECT_GT(c.changed_cells, 0) << "the caret shows in the patch, and is forgiven";
}

TEST(PixelPatchTest, AGlyphAddedOrChangedIsAChange) {
  const Image before = Text();
  Image added = Text();
  Paint(added, Rect{86, 6, 6, 12}, 30);  // one more glyph at the end
  EXPECT_FALSE(ComparePatches(PatchOf(before, kWhole), PatchOf(added, kWhole), 200).same);
  Image changed = Text();
  Paint(changed, Rect{26, 6, 6, 6}, 235);  // the third glyph loses its top half
  const PatchComparison c = ComparePatches(PatchOf(before, kWhole), PatchOf(changed, kWhole), 200);
  EXPECT_FALSE(c.same);
  EXPECT_NE(c.why.find("cells of its pixels changed"), std::string::npos) << c.why;
}

TEST(PixelPatchTest, ContentShiftedByOnePixelIsAChange) {
  const Image before = Text();
  Image shifted = Field(200, 24);
  for (int i = 0; i < 8; ++i) Paint(shifted, Rect{7 + i * 10, 6, 6, 12}, 30);
  EXPECT_FALSE(ComparePatches(PatchOf(before, kWhole), PatchOf(shifted, kWhole), 200).same);
}

TEST(PixelPatchTest, SmallElementsAndBoundsOutsideTheImage) {
  const Image a = Text();
  const PixelPatch tiny = PatchOf(a, Rect{6, 6, 2, 2});
  EXPECT_EQ(tiny.columns, 1);
  EXPECT_EQ(tiny.rows, 1);
  EXPECT_TRUE(PatchOf(a, Rect{190, 0, 20, 24}).Empty()) << "past the right edge";
  const PixelPatch big = PatchOf(Field(1000, 900), Rect{0, 0, 1000, 900});
  EXPECT_EQ(big.columns, kPatchMaxColumns);
  EXPECT_EQ(big.rows, kPatchMaxRows);
}

class PixelIdPlaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::TestStateDir();  // the records are kept there (UISCOPE_STATE_DIR)
    ui_ = test::LoadPng(std::string(UISCOPE_TEST_IMAGES) + "/ui.png");
    ASSERT_TRUE(ui_.Valid());
    auto capture = std::make_unique<test::FakeCapture>(1280, 800);
    capture_ = capture.get();
    auto input = std::make_unique<test::FakeInput>();
    input_ = input.get();
    WindowInfo w;
    w.id = 0x700;
    w.title = "Fixture";
    w.app_instance = "fixture";
    w.focused = true;
    auto windows = std::make_unique<test::FakeWindows>(std::vector<WindowInfo>{w});
    windows_ = windows.get();
    FakeDesktopParts parts;
    parts.accessibility = std::make_unique<test::FakeAccessibility>(std::vector<Node>{});
    parts.frame = Frame{1280, 800, 1.0};
    parts.input = std::move(input);
    parts.windows = std::move(windows);
    parts.capture = std::move(capture);
    workspace_ = std::make_unique<Workspace>(std::move(parts));
    Show(Rect{60, 40, ui_.width, ui_.height});
  }

  // The window at `at`, painted there on a dark screen.
  void Show(const Rect& at) {
    capture_->Fill(Rect{0, 0, 1280, 800}, 40, 40, 40);
    for (int y = 0; y < ui_.height; ++y) {
      std::copy_n(ui_.Pixel(0, y), static_cast<size_t>(ui_.width) * 3,
                  capture_->screen().Pixel(at.x, at.y + y));
    }
    windows_->windows()[0].bounds = windows_->windows()[0].frame = at;
  }

  // The vision node of the Login button, as `observe --sources vision`
  // gives it (and records it).
  Node SeeLogin() {
    auto lease = workspace_->Acquire();
    EXPECT_TRUE(lease.ok());
    Sources sources;
    sources.vision = true;
    sources.pixels_where_blind = false;
    auto seen = Perceive(*lease, ObserveRequest{}, sources, &reader_);
    EXPECT_TRUE(seen.ok()) << seen.error().ToString();
    Node login;
    ForEachNode(seen->observation.snapshot.roots, [&](const Node& n, int) {
      if (login.id.empty() && n.source == Source::kVision && n.role == Role::kButton &&
          n.name == "Login") {
        login = n;
      }
    });
    EXPECT_FALSE(login.id.empty()) << "vision finds the Login button of ui.png";
    return login;
  }

  Result<ActionResult> Click(const std::string& id) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    ActionRequest r;
    r.kind = ActionKind::kClick;
    r.target.id = id;
    r.verify.settle = std::chrono::milliseconds(60);
    return PerformAction(*lease, r);
  }

  std::string Clicks() const {
    std::string out;
    for (const std::string& e : input_->events()) {
      if (e.starts_with("click")) out += e + "\n";
    }
    return out;
  }

  Image ui_;
  TextReader reader_;
  test::FakeCapture* capture_ = nullptr;
  test::FakeInput* input_ = nullptr;
  test::FakeWindows* windows_ = nullptr;
  std::unique_ptr<Workspace> workspace_;
};

TEST_F(PixelIdPlaceTest, TheRecordKeepsWhereANodeWasAndHowItLooked) {
  const Node login = SeeLogin();
  ASSERT_FALSE(login.id.empty());
  auto record = PixelIds(PixelIdsFile(SessionStateDir(), ":fake")).Lookup(login.id);
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->origin.vision);
  ASSERT_TRUE(record->place.has_value());
  EXPECT_EQ(record->place->node.bounds, login.bounds);
  EXPECT_EQ(record->place->node.window, login.window);
  EXPECT_EQ(record->place->window, 0x700u);
  EXPECT_EQ(record->place->window_bounds, (Rect{60, 40, ui_.width, ui_.height}));
  EXPECT_EQ(record->place->patch.grey, PatchOf(capture_->screen(), *login.bounds).grey);
}

TEST_F(PixelIdPlaceTest, AnUnchangedElementIsActedOnWhereItWasWithoutPerceivingAgain) {
  const Node login = SeeLogin();
  ASSERT_FALSE(login.id.empty());
  auto clicked = Click(login.id);
  ASSERT_TRUE(clicked.ok()) << clicked.error().ToString();
  EXPECT_EQ(clicked->resolution, "place") << ::testing::PrintToString(clicked->notes);
  EXPECT_EQ(clicked->via, "xtest");
  const Point c = login.bounds->Center();
  EXPECT_EQ(Clicks(), "click left " + std::to_string(c.x) + "," + std::to_string(c.y) + " x1\n");
  const std::string notes = ::testing::PrintToString(clicked->notes);
  EXPECT_EQ(notes.find("perceiving again"), std::string::npos) << notes;
}

TEST_F(PixelIdPlaceTest, AMovedWindowIsPerceivedAgainAndClickedWhereItIsNow) {
  const Node login = SeeLogin();
  ASSERT_FALSE(login.id.empty());
  Show(Rect{60 + 40, 40 + 30, ui_.width, ui_.height});
  auto clicked = Click(login.id);
  ASSERT_TRUE(clicked.ok()) << clicked.error().ToString();
  EXPECT_EQ(clicked->resolution, "perceived") << ::testing::PrintToString(clicked->notes);
  const std::string notes = ::testing::PrintToString(clicked->notes);
  EXPECT_NE(notes.find("its window moved"), std::string::npos) << notes;
  ASSERT_EQ(clicked->points.size(), 1u);
  EXPECT_TRUE(login.bounds->Translated(40, 30).Contains(clicked->points[0]))
      << "clicked at " << clicked->points[0].x << "," << clicked->points[0].y;
}

TEST_F(PixelIdPlaceTest, AnElementWhosePixelsChangedIsNeverClickedAtItsOldPlace) {
  const Node login = SeeLogin();
  ASSERT_FALSE(login.id.empty());
  // The app repainted: the button is gone, the window is where it was.
  const Rect b = *login.bounds;
  capture_->Fill(Rect{b.x - 2, b.y - 2, b.w + 4, b.h + 4}, 200, 200, 200);
  auto clicked = Click(login.id);
  ASSERT_FALSE(clicked.ok()) << "the old place was clicked: " << Clicks();
  EXPECT_EQ(clicked.error().code, ErrorCode::kNotFound) << clicked.error().ToString();
  EXPECT_EQ(Clicks(), "");
}

}  // namespace
}  // namespace uiscope
