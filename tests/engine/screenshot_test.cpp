// Screenshots: unit tests over a fake screen serving a canned frame and the
// fake accessibility tree; desktop tests on the GTK3 fixture, decoding the
// image and checking the pixels of the drawn marks.
#include "engine/screenshot.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "engine/desktop.h"
#include "image/draw.h"
#include "image/test_decode.h"
#include "mcp/wire.h"
#include "support/desktop_fixture.h"
#include "support/fake_accessibility.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using test::FindNode;

Rgb PixelAt(const Image& image, int x, int y) {
  const uint8_t* p = image.Pixel(x, y);
  return {p[0], p[1], p[2]};
}

std::string HexAt(const Image& image, int x, int y) { return PixelAt(image, x, y).Hex(); }

// The share of the outermost ring of `box` drawn in `color` ("#rrggbb"):
// labels of neighbouring marks may cover parts of an outline, never most.
double OutlineShare(const Image& image, const Rect& box, const std::string& color) {
  int total = 0, hits = 0;
  auto visit = [&](int x, int y) {
    ++total;
    hits += HexAt(image, x, y) == color;
  };
  for (int x = box.x; x < box.Right(); ++x) {
    visit(x, box.y);
    visit(x, box.Bottom() - 1);
  }
  for (int y = box.y + 1; y < box.Bottom() - 1; ++y) {
    visit(box.x, y);
    visit(box.Right() - 1, y);
  }
  return total == 0 ? 0 : static_cast<double>(hits) / total;
}

// A ScreenCapture serving one canned frame (tests only): records what it was
// asked, crops regions, knows one X window.
class FakeScreen final : public ScreenCapture {
 public:
  static constexpr uint64_t kWindow = 0x42;
  static constexpr Rect kWindowRect{100, 80, 400, 300};

  explicit FakeScreen(Image frame) : frame_(std::move(frame)) {}

  int screen_width() const override { return frame_.width; }
  int screen_height() const override { return frame_.height; }
  std::string_view method() const override { return "fake"; }

  Result<CapturedFrame> CaptureScreen() override {
    return CaptureRegion({0, 0, frame_.width, frame_.height});
  }
  Result<CapturedFrame> CaptureRegion(const Rect& region) override {
    regions.push_back(region);
    Rect r = ClampToFrame(region, frame_.width, frame_.height);
    if (r.Empty()) return MakeError(ErrorCode::kInvalidArgument, "outside the screen");
    CapturedFrame f;
    f.region = r;
    f.screen_width = frame_.width;
    f.screen_height = frame_.height;
    f.image = MakeImage(r.w, r.h);
    for (int y = 0; y < r.h; ++y)
      std::copy_n(frame_.Pixel(r.x, r.y + y), static_cast<size_t>(r.w) * 3, f.image.Pixel(0, y));
    f.tiles = HashTiles(f.image);
    f.frame_hash = FrameHash(f.tiles);
    f.method = "fake";
    f.damage = std::vector<Rect>{};
    return f;
  }
  Result<CapturedFrame> CaptureWindow(uint64_t id) override {
    windows.push_back(id);
    if (id != kWindow) return MakeError(ErrorCode::kNotFound, "no X window");
    return CaptureRegion(kWindowRect);
  }

  std::vector<Rect> regions;
  std::vector<uint64_t> windows;

 private:
  Image frame_;
};

// An accessibility bus that is down.
class DeadAccessibility final : public Accessibility {
 public:
  Result<std::vector<AppInfo>> ListApps() override {
    return MakeError(ErrorCode::kUnavailable, "the accessibility bus is gone");
  }
  Result<TreeResult> Tree(const TreeRequest&) override {
    return MakeError(ErrorCode::kUnavailable, "the accessibility bus is gone");
  }
};

Image Canned() {
  Image image = MakeImage(800, 600);
  FillRect(image, {0, 0, 800, 600}, {246, 245, 244});
  FillRect(image, {180, 190, 80, 30}, {220, 220, 220});  // the Login button's face
  return image;
}

class ScreenshotTest : public ::testing::Test {
 protected:
  ScreenshotTest()
      : screen_(Canned()),
        fake_(test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/login.json")),
        observer_(fake_, Frame{800, 600, 1.0}) {}

  const ScreenshotMark* MarkOf(const ScreenshotResult& r, Role role, const std::string& name) {
    for (const ScreenshotMark& m : r.marks)
      if (m.role == role && m.name == name) return &m;
    return nullptr;
  }

  FakeScreen screen_;
  test::FakeAccessibility fake_;
  Observer observer_;
};

TEST_F(ScreenshotTest, FullScreenPngIsTheFrame) {
  auto shot = TakeScreenshot(screen_, nullptr, ScreenshotRequest{});
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  EXPECT_EQ(shot->width, 800);
  EXPECT_EQ(shot->height, 600);
  EXPECT_EQ(shot->scale, 1.0);
  EXPECT_EQ(shot->region, (Rect{0, 0, 800, 600}));
  EXPECT_EQ(shot->frame.width, 800);
  EXPECT_TRUE(shot->marks.empty());
  EXPECT_EQ(shot->changed, std::optional<bool>(false));
  EXPECT_EQ(shot->method, "fake");
  auto image = test::DecodePng(shot->bytes);
  ASSERT_TRUE(image.ok()) << image.error().ToString();
  EXPECT_EQ(image->rgb, Canned().rgb);
  EXPECT_EQ(shot->frame_hash, FrameHash(HashTiles(Canned())));
}

TEST_F(ScreenshotTest, MaskedAreasAreBlackBeforeHashingAndEncoding) {
  ScreenshotRequest request;
  request.region = Rect{100, 100, 200, 200};
  request.masked = {Rect{150, 120, 400, 30}, Rect{700, 500, 50, 50}};  // the 2nd is outside
  auto shot = TakeScreenshot(screen_, nullptr, request);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  auto image = test::DecodePng(shot->bytes);
  ASSERT_TRUE(image.ok()) << image.error().ToString();
  Image expected = Canned();
  int black = 0;
  for (int y = 0; y < 200; ++y) {
    for (int x = 0; x < 200; ++x) {
      const uint8_t* p = image->Pixel(x, y);
      const bool in_mask = x >= 50 && y >= 20 && y < 50;
      if (in_mask) {
        EXPECT_TRUE(p[0] == 0 && p[1] == 0 && p[2] == 0) << x << "," << y;
        ++black;
      } else {
        EXPECT_EQ(p[0], expected.Pixel(x + 100, y + 100)[0]) << x << "," << y;
      }
    }
  }
  EXPECT_EQ(black, 150 * 30);
  EXPECT_EQ(shot->frame_hash, FrameHash(HashTiles(*image)));  // of what was returned
}

TEST_F(ScreenshotTest, MarksOutlineElementsInScaledCoordinates) {
  ScreenshotRequest request;
  request.marks = true;
  request.max_width = 400;
  auto shot = TakeScreenshot(screen_, &observer_, request);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  EXPECT_EQ(shot->width, 400);
  EXPECT_EQ(shot->height, 300);
  EXPECT_DOUBLE_EQ(shot->scale, 0.5);
  EXPECT_DOUBLE_EQ(shot->frame.scale, 0.5);

  const ScreenshotMark* login = MarkOf(*shot, Role::kButton, "Login");
  ASSERT_NE(login, nullptr);
  EXPECT_EQ(login->id.rfind("btn_", 0), 0u);
  EXPECT_EQ(login->screen_bounds, (Rect{180, 190, 80, 30}));
  EXPECT_EQ(login->bounds, (Rect{90, 95, 40, 15}));
  // Interactive elements and named labels are marked; containers are not.
  EXPECT_NE(MarkOf(*shot, Role::kTextField, "Password"), nullptr);
  EXPECT_NE(MarkOf(*shot, Role::kCheckBox, "Remember me"), nullptr);
  EXPECT_NE(MarkOf(*shot, Role::kLabel, "Not logged in"), nullptr);
  for (const ScreenshotMark& m : shot->marks) {
    EXPECT_NE(m.role, Role::kWindow);
    EXPECT_NE(m.role, Role::kList);
    EXPECT_NE(m.role, Role::kApplication);
  }

  auto image = test::DecodePng(shot->bytes);
  ASSERT_TRUE(image.ok());
  // The Login button's outline has its colour (where no label covers it).
  const Rect& b = login->bounds;
  EXPECT_GE(OutlineShare(*image, b, login->color), 0.6);
  EXPECT_NE(HexAt(*image, b.x - 1, b.y + b.h / 2), login->color);  // drawn inside the box
  // Inside the outline (below any label), the button's face is still there.
  EXPECT_EQ(HexAt(*image, b.Right() - 4, b.Bottom() - 3), "#dcdcdc");
}

// Another window stacked over the form covers the Login button and half
// of "Remember me": the button gets no mark, the check box is marked where
// it shows, and a vision node of the perceived tree is marked like the rest.
TEST_F(ScreenshotTest, MarksShowOnlyWhatIsSeenVisionNodesIncluded) {
  auto obs = observer_.Observe(ObserveRequest{});
  ASSERT_TRUE(obs.ok());
  Observation perceived = *obs;
  Node* window = nullptr;
  ForEachNodeMutable(perceived.snapshot.roots, [&](Node& n, int) {
    if (n.role == Role::kWindow && !window) window = &n;
  });
  ASSERT_NE(window, nullptr);
  Node painted;
  painted.role = Role::kButton;
  painted.name = "Sync";
  painted.source = Source::kVision;
  painted.confidence = 0.8f;
  painted.bounds = Rect{400, 300, 60, 24};
  painted.pid = window->pid;
  painted.id = "btn_v001";
  painted.window = window->id;
  window->children.push_back(painted);

  ScreenshotRequest request;
  request.marks = true;
  request.windows = {{1, 4242, "Sign in", {100, 80, 400, 300}, {100, 60, 400, 320}},
                     {2, 999, "Other", {170, 190, 270, 70}, {170, 170, 270, 90}}};
  auto shot = TakeScreenshot(screen_, &observer_, request, &perceived);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  EXPECT_EQ(MarkOf(*shot, Role::kButton, "Login"), nullptr) << "covered whole";
  const ScreenshotMark* remember = MarkOf(*shot, Role::kCheckBox, "Remember me");
  ASSERT_NE(remember, nullptr);
  EXPECT_EQ(remember->screen_bounds, (Rect{180, 160, 120, 10})) << "its seen half";
  const ScreenshotMark* sync = MarkOf(*shot, Role::kButton, "Sync");
  ASSERT_NE(sync, nullptr) << "vision nodes are marked";
  EXPECT_EQ(sync->id, "btn_v001");
  EXPECT_EQ(sync->screen_bounds, (Rect{400, 300, 60, 24}));
  ASSERT_FALSE(shot->warnings.empty());
  EXPECT_NE(shot->warnings.back().find("other windows cover them"), std::string::npos);

  // Without the stacking, every box is drawn whole (as before).
  request.windows.clear();
  auto whole = TakeScreenshot(screen_, &observer_, request, &perceived);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(MarkOf(*whole, Role::kButton, "Login"), nullptr);
}

TEST_F(ScreenshotTest, RegionCropsAndOffsetsMarks) {
  ScreenshotRequest request;
  request.region = Rect{170, 180, 200, 100};
  request.marks = true;
  auto shot = TakeScreenshot(screen_, &observer_, request);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  EXPECT_EQ(shot->region, (Rect{170, 180, 200, 100}));
  EXPECT_EQ(shot->width, 200);
  const ScreenshotMark* login = MarkOf(*shot, Role::kButton, "Login");
  ASSERT_NE(login, nullptr);
  EXPECT_EQ(login->bounds, (Rect{10, 10, 80, 30}));
  // Elements outside the region are not marked; those cut by it are clipped.
  EXPECT_EQ(MarkOf(*shot, Role::kLabel, "Email"), nullptr);
  for (const ScreenshotMark& m : shot->marks) {
    EXPECT_TRUE(shot->region.Contains(m.screen_bounds)) << m.id;
  }
}

TEST_F(ScreenshotTest, WindowByElementIdOrXWindowId) {
  auto obs = observer_.Observe({});
  ASSERT_TRUE(obs.ok());
  const Node* window = FindNode(obs->snapshot.roots, Role::kWindow, "Sign in");
  ASSERT_NE(window, nullptr);

  ScreenshotRequest request;
  request.window = window->id;
  auto by_id = TakeScreenshot(screen_, &observer_, request);
  ASSERT_TRUE(by_id.ok()) << by_id.error().ToString();
  EXPECT_EQ(by_id->region, (Rect{100, 80, 400, 300}));
  EXPECT_EQ(screen_.regions.back(), (Rect{100, 80, 400, 300}));

  request.window = "0x42";
  auto by_x = TakeScreenshot(screen_, nullptr, request);
  ASSERT_TRUE(by_x.ok()) << by_x.error().ToString();
  EXPECT_EQ(screen_.windows.back(), 0x42u);
  request.window = "66";  // the same ID in decimal
  ASSERT_TRUE(TakeScreenshot(screen_, nullptr, request).ok());
  EXPECT_EQ(screen_.windows.back(), 66u);

  request.window = "0x43";
  EXPECT_EQ(TakeScreenshot(screen_, nullptr, request).error().code, ErrorCode::kNotFound);
  request.window = "win_0000";
  auto unknown = TakeScreenshot(screen_, &observer_, request);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("observe"), std::string::npos);
}

TEST_F(ScreenshotTest, BadRequestsAreRefused) {
  ScreenshotRequest both;
  both.region = Rect{0, 0, 10, 10};
  both.window = "0x42";
  EXPECT_EQ(TakeScreenshot(screen_, nullptr, both).error().code, ErrorCode::kInvalidArgument);
  ScreenshotRequest marks;
  marks.marks = true;
  EXPECT_EQ(TakeScreenshot(screen_, nullptr, marks).error().code, ErrorCode::kUnsupported);
  ScreenshotRequest wide;
  wide.max_width = -1;
  EXPECT_EQ(TakeScreenshot(screen_, nullptr, wide).error().code, ErrorCode::kInvalidArgument);
  ScreenshotRequest quality;
  quality.jpeg_quality = 101;
  EXPECT_EQ(TakeScreenshot(screen_, nullptr, quality).error().code, ErrorCode::kInvalidArgument);
  ScreenshotRequest app;
  app.marks = true;
  app.observe.app = "no-such-app";
  EXPECT_EQ(TakeScreenshot(screen_, &observer_, app).error().code, ErrorCode::kNotFound);
}

TEST_F(ScreenshotTest, MarksAreLeftOutWithAWarningWhenTheTreeIsUnavailable) {
  DeadAccessibility dead;
  Observer observer(dead, Frame{800, 600, 1.0});
  ScreenshotRequest request;
  request.marks = true;
  auto shot = TakeScreenshot(screen_, &observer, request);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  EXPECT_TRUE(shot->marks.empty());
  ASSERT_EQ(shot->warnings.size(), 1u);
  EXPECT_NE(shot->warnings[0].find("marks left out"), std::string::npos);
}

TEST_F(ScreenshotTest, MaxMarksCapsWithAWarning) {
  ScreenshotRequest request;
  request.marks = true;
  request.max_marks = 2;
  auto shot = TakeScreenshot(screen_, &observer_, request);
  ASSERT_TRUE(shot.ok());
  EXPECT_EQ(shot->marks.size(), 2u);
  ASSERT_FALSE(shot->warnings.empty());
  EXPECT_NE(shot->warnings.back().find("max_marks 2"), std::string::npos);
}

TEST_F(ScreenshotTest, EveryEncodingDecodes) {
  for (ImageEncoding e : {ImageEncoding::kPng, ImageEncoding::kWebp, ImageEncoding::kJpeg}) {
    ScreenshotRequest request;
    request.encoding = e;
    request.max_width = 640;
    auto shot = TakeScreenshot(screen_, nullptr, request);
    ASSERT_TRUE(shot.ok()) << ImageEncodingName(e);
    auto image = test::DecodeAny(shot->bytes);
    ASSERT_TRUE(image.ok()) << ImageEncodingName(e);
    EXPECT_EQ(image->width, 640);
    EXPECT_EQ(image->height, 480);
    EXPECT_EQ(ScreenshotToJson(*shot)["mime_type"], std::string(MimeType(e)));
  }
}

TEST_F(ScreenshotTest, JsonCarriesEverythingButTheBytes) {
  ScreenshotRequest request;
  request.marks = true;
  auto shot = TakeScreenshot(screen_, &observer_, request);
  ASSERT_TRUE(shot.ok());
  auto j = ScreenshotToJson(*shot);
  EXPECT_EQ(j["width"], 800);
  EXPECT_EQ(j["bytes"], shot->bytes.size());
  EXPECT_EQ(j["frame_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["region"]["w"], 800);
  EXPECT_EQ(j["changed"], false);
  ASSERT_FALSE(j["marks"].empty());
  const auto& m = j["marks"][0];
  for (const char* key : {"id", "role", "name", "bounds", "screen_bounds", "color"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_LT(j.dump().size(), 20000u);  // no image in it
}

TEST(ParseRegionTest, FourIntegersWithPositiveSize) {
  EXPECT_EQ(*ParseRegion("1,2,3,4"), (Rect{1, 2, 3, 4}));
  EXPECT_EQ(*ParseRegion("-5,0,10,10"), (Rect{-5, 0, 10, 10}));
  for (const char* bad : {"1,2,3", "1,2,3,4,5", "a,b,c,d", "1,2,0,4", "", "1, 2,3,4", "1,2,3,4x"}) {
    auto r = ParseRegion(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
  }
}

// --- Desktop: the GTK3 fixture ------------------------------------------------

class ScreenshotDesktopTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // No blinking caret: an unchanged screen must capture identically.
    const std::string config = test::TestStateDir() + "/gtk-config";
    std::filesystem::create_directories(config + "/gtk-3.0");
    std::ofstream(config + "/gtk-3.0/settings.ini") << "[Settings]\ngtk-cursor-blink=false\n";
    setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  }

  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    fixture_ = desktop_.LaunchFixture({"--position", "200,150"});
    ASSERT_NE(fixture_, nullptr);
    DesktopTarget target{desktop_.info().display_name, desktop_.info().dbus_address, ""};
    auto conn = ConnectDesktop(target);
    ASSERT_TRUE(conn.ok()) << conn.error().ToString();
    conn_ = std::move(conn).value();
    observer_ = std::make_unique<Observer>(*conn_.accessibility, conn_.frame);
    request_.observe.pid = fixture_->pid();
    ASSERT_TRUE(test::WaitUntil([&] {
      auto obs = observer_->Observe(request_.observe);
      return obs.ok() && FindNode(obs->snapshot.roots, Role::kButton, "Login") != nullptr;
    })) << "the fixture's Login button never appeared in the tree";
  }

  void TearDown() override {
    if (fixture_) (void)fixture_->Terminate();
  }

  test::TestDesktop& desktop_ = test::TestDesktop::Shared();
  std::unique_ptr<Process> fixture_;
  DesktopConnection conn_;
  std::unique_ptr<Observer> observer_;
  ScreenshotRequest request_;
};

TEST_F(ScreenshotDesktopTest, MarksAreDrawnOnTheLoginButton) {
  auto login_box = test::FixtureBox(*fixture_, "widget login");
  ASSERT_TRUE(login_box.ok()) << login_box.error().ToString();
  auto opened = conn_.desktop->OpenCapture(CaptureOptions{});
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  ScreenCapture* capture = opened->get();
  for (int max_width : {0, 960}) {
    SCOPED_TRACE("max_width " + std::to_string(max_width));
    ScreenshotRequest request = request_;
    request.marks = true;
    request.max_width = max_width;
    auto shot = TakeScreenshot(*capture, observer_.get(), request);
    ASSERT_TRUE(shot.ok()) << shot.error().ToString();
    EXPECT_EQ(shot->method, "xshm");
    EXPECT_EQ(shot->width, max_width == 0 ? 1920 : 960);
    const ScreenshotMark* login = nullptr;
    for (const ScreenshotMark& m : shot->marks)
      if (m.role == Role::kButton && m.name == "Login") login = &m;
    ASSERT_NE(login, nullptr) << shot->marks.size() << " marks, none for Login";
    // The tree and the fixture agree on where the button is (GTK's
    // accessible extents may include a pixel of border).
    EXPECT_NEAR(login->screen_bounds.x, login_box->x, 2);
    EXPECT_NEAR(login->screen_bounds.y, login_box->y, 2);
    EXPECT_NEAR(login->screen_bounds.w, login_box->w, 4);
    EXPECT_NEAR(login->screen_bounds.h, login_box->h, 4);

    auto image = test::DecodePng(shot->bytes);
    ASSERT_TRUE(image.ok()) << image.error().ToString();
    ASSERT_EQ(image->width, shot->width);
    const Rect& b = login->bounds;
    EXPECT_NEAR(b.x, login_box->x * shot->scale, 2);
    // The outline has the mark's colour, apart from what labels cover.
    EXPECT_GE(OutlineShare(*image, b, login->color), 0.6);
    EXPECT_EQ(HexAt(*image, b.Right() - 1, b.y + b.h / 2), login->color);
    // The middle of the button is the button, not the mark.
    EXPECT_NE(HexAt(*image, b.x + b.w / 2, b.y + b.h / 2), login->color);
  }
}

TEST_F(ScreenshotDesktopTest, ServiceOnAWorkspaceLeaseReportsChanges) {
  WorkspaceOptions options;
  options.display = desktop_.info().display_name;
  options.start_headless = false;
  Workspace workspace(options);
  ScreenshotService service;
  ScreenshotRequest request = request_;
  request.encoding = ImageEncoding::kWebp;
  auto take = [&]() -> Result<ScreenshotResult> {
    auto lease = workspace.Acquire();
    if (!lease.ok()) return lease.error();
    return service.Take(*lease, request);
  };
  auto first = take();
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(first->display, desktop_.info().display_name);
  EXPECT_FALSE(first->changed.has_value()) << "the first capture knows no previous frame";
  ASSERT_TRUE(test::DecodeWebp(first->bytes).ok());
  // Once the screen is still, the capture (kept between calls) says so.
  ASSERT_TRUE(test::WaitUntil([&] {
    auto again = take();
    return again.ok() && again->changed == std::optional<bool>(false);
  }));
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email changed@example.org").ok());
  ASSERT_TRUE(test::WaitUntil([&] {
    auto again = take();
    return again.ok() && again->changed == std::optional<bool>(true);
  }));

  // A fake desktop has no screen.
  Workspace fake(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                 Frame{800, 600, 1.0});
  auto lease = fake.Acquire();
  ASSERT_TRUE(lease.ok());
  auto none = service.Take(*lease, ScreenshotRequest{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(none.error().message.find("screen capture is not available"), std::string::npos);
}

}  // namespace
}  // namespace uiscope
