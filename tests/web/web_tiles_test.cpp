// The web page's pixels (web/web_tiles.h) come from each session's own
// capture, opened by the caller from the session's Desktop (any backend):
// a tile per session, none again while nothing changed, a new one when the
// screen changes, masks painted before encoding, and a capture that failed
// opened again on a later tick. In-memory screens (FakeCapture) stand in
// for an X11 and a VNC session.
#include "web/web_tiles.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/fake_capture.h"

namespace uiscope::web {
namespace {

// Opens a new in-memory screen of `width` x `height` painted `grey`,
// counting the opens; fails while `*refuse` is set.
OpenCaptureFn Opener(int width, int height, uint8_t* grey, int* opens, bool* refuse = nullptr) {
  return [=](const CaptureOptions&) -> Result<std::unique_ptr<ScreenCapture>> {
    ++*opens;
    if (refuse != nullptr && *refuse) {
      return MakeError(ErrorCode::kUnavailable, "nothing answers at vnc://127.0.0.1:1");
    }
    auto screen = std::make_unique<test::FakeCapture>(width, height);
    screen->before_capture = [=](test::FakeCapture& s) {
      s.Fill(Rect{0, 0, width, height}, *grey, *grey, *grey);
    };
    return std::unique_ptr<ScreenCapture>(std::move(screen));
  };
}

TEST(TileFeedTest, EachSessionsTileComesFromTheCaptureItsDesktopOpens) {
  TileCache cache;
  TileFeed feed(cache, 160);
  uint8_t x11_grey = 200;
  uint8_t vnc_grey = 90;
  int x11_opens = 0;
  int vnc_opens = 0;
  bool vnc_down = true;
  const std::vector<TileSource> sources = {
      {"s3", Opener(640, 400, &x11_grey, &x11_opens)},
      {"v1", Opener(800, 500, &vnc_grey, &vnc_opens, &vnc_down)},
  };

  // The VNC server does not answer yet: no tile of it, and no harm to the other.
  auto changed = feed.Tick(sources);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].session, "s3");
  EXPECT_EQ(changed[0].width, 160);
  EXPECT_EQ(changed[0].height, 100);
  EXPECT_FALSE(cache.Get("v1"));

  // It answers: opened again, its tile made from its own screen.
  vnc_down = false;
  changed = feed.Tick(sources);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].session, "v1");
  EXPECT_EQ(changed[0].height, 100);
  EXPECT_EQ(vnc_opens, 2);
  auto tile = cache.Get("v1");
  ASSERT_TRUE(tile);
  EXPECT_FALSE(tile->jpeg.empty());

  // Nothing changed: no tile, no new capture opened.
  EXPECT_TRUE(feed.Tick(sources).empty());
  EXPECT_EQ(x11_opens, 1);
  EXPECT_EQ(vnc_opens, 2);

  // The VNC screen changes: a new version of its tile only.
  vnc_grey = 30;
  changed = feed.Tick(sources);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].session, "v1");
  EXPECT_GT(changed[0].version, tile->version);

  // A mask (a deny-listed window) changes what is hashed: the whole screen
  // blacked out is a new tile.
  changed = feed.Tick(sources, [](const std::string& session) {
    return session == "v1" ? std::vector<Rect>{Rect{0, 0, 800, 500}} : std::vector<Rect>{};
  });
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].session, "v1");
}

TEST(TileFeedTest, ScreenshotsAndCropsReadTheCaptureGiven) {
  test::FakeCapture screen(300, 200);
  screen.Fill(Rect{0, 0, 300, 200}, 250, 250, 250);
  auto png = ScreenPng(screen, {Rect{0, 0, 10, 10}});
  ASSERT_TRUE(png.ok()) << png.error().message;
  EXPECT_EQ(png->substr(1, 3), "PNG");
  EXPECT_EQ(screen.captures(), 1);
  auto crop = CropPng(screen, {{Rect{100, 80, 20, 10}, "1"}}, {});
  ASSERT_TRUE(crop.ok()) << crop.error().message;
  EXPECT_EQ(screen.captures(), 2);
  EXPECT_FALSE(CropPng(screen, {{Rect{400, 300, 5, 5}, "1"}}, {}).ok());
}

}  // namespace
}  // namespace uiscope::web
