// The pixels the web page shows: live session tiles, whole screenshots, and
// the crop of a held action's target.
//
// Every capture is opened from the session's Desktop (platform/desktop.h),
// so a VNC session has tiles, screenshots and crops as a headless X11 one
// does.
//
// Tiles: TileFeed::Tick captures every session's screen (XShm on X11, the
// kept framebuffer over VNC) and, unless the capture's damage (XDamage, the
// VNC update rectangles) reports that nothing was drawn since the last grab, hashes it
// and compares the hash with the last one; only a changed screen is scaled
// and encoded (JPEG), and kept in the shared TileCache under a new version,
// which the page then fetches. An unchanged tile costs the grab (and at
// worst its hash) only (issue 22: at most 5 ms of server CPU; TileFeed
// measures it).
//
// Deny-listed apps (engine/privacy.h): every image here is given the screen
// areas of their windows (`masks`, screen pixels), painted black right after
// the capture, before anything is hashed, scaled or encoded, as screenshots
// do.
//
// Thread safety: TileCache is thread-safe; a TileFeed belongs to one
// thread (one event stream). The free functions may be called from any
// thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "platform/capture.h"

namespace uiscope::web {

struct Tile {
  uint64_t version = 0;
  std::string jpeg;
  int width = 0;  // image pixels
  int height = 0;
};

class TileCache {
 public:
  // Stores a new image for `session`; returns its version.
  uint64_t Put(const std::string& session, std::string jpeg, int width, int height);
  std::optional<Tile> Get(const std::string& session);

 private:
  std::mutex mutex_;
  uint64_t next_version_ = 1;
  std::map<std::string, Tile> tiles_;
};

// Opens a capture of one session's screen (from its Desktop).
using OpenCaptureFn =
    std::function<Result<std::unique_ptr<ScreenCapture>>(const CaptureOptions& options)>;

// One session as the feed sees it.
struct TileSource {
  std::string session;  // "s12", "v1"
  // Called when the feed has no capture of the session yet, or its last
  // capture failed (the server went away): at most once a tick.
  OpenCaptureFn open;
};

class TileFeed {
 public:
  TileFeed(TileCache& cache, int tile_width) : cache_(cache), tile_width_(tile_width) {}

  struct Changed {
    std::string session;
    uint64_t version = 0;
    int width = 0;
    int height = 0;
  };
  // The areas to black out on a session's screen now; asked only for a
  // screen something was drawn on since the last tick.
  using MaskFn = std::function<std::vector<Rect>(const std::string& session)>;

  // Captures each source; returns those whose pixels changed since the last
  // tick (all of them on the first). A source that cannot be captured is
  // skipped (and retried next tick); sources no longer listed are dropped.
  std::vector<Changed> Tick(const std::vector<TileSource>& sources, const MaskFn& masks = {});

  // Thread CPU time of the last tick in which nothing changed, per source,
  // ms (-1: none yet).
  double last_unchanged_cpu_ms() const { return last_unchanged_cpu_ms_; }

 private:
  struct Screen {
    std::unique_ptr<ScreenCapture> capture;
    uint64_t hash = 0;
  };
  TileCache& cache_;
  int tile_width_;
  std::map<std::string, Screen> screens_;  // by session
  double last_unchanged_cpu_ms_ = -1;
};

// The whole screen `capture` shows as PNG.
Result<std::string> ScreenPng(ScreenCapture& capture, const std::vector<Rect>& masks);

// A crop of the screen `capture` shows around `boxes` (screen pixels), each outlined and
// labelled with its label ("1", "2", ...), as PNG. InvalidArgument when no
// box lies on the screen.
struct CropBox {
  Rect box;
  std::string label;
};
Result<std::string> CropPng(ScreenCapture& capture, const std::vector<CropBox>& boxes,
                            const std::vector<Rect>& masks);

// Paints `masks` (screen pixels) black in `image`, which shows the screen
// from `origin`.
void BlackOut(Image& image, Point origin, const std::vector<Rect>& masks);

}  // namespace uiscope::web
