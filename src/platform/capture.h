// ScreenCapture: the pixels of a desktop, as RGB images in screen pixels,
// with content hashes so later stages know what changed.
//
// Abstract so the engine never sees a backend header and tests can serve
// canned frames. The real implementation is the X11 backend
// (platform/x11/xshm_capture.h: MIT-SHM with a persistent shared segment,
// XGetImage when shared memory is unavailable, XDamage for change reports);
// a VNC backend can implement the same interface.
//
// Coordinates: screen pixels of the captured display, the frame of the
// accessibility tree and of input (DESIGN §3). A capture's image pixel
// (0, 0) is screen pixel (region.x, region.y); images are never scaled here.
//
// Thread safety: none. One capture object per thread, or serialise calls
// (the workspace lease does). Ownership: the frames returned are owned by
// the caller; the capture keeps its shared memory and connection.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "image/image_hash.h"

namespace uiscope {

struct CaptureOptions {
  // Use MIT-SHM when the server offers it. false forces the XGetImage path
  // (tests, benchmarks, or a server whose shared memory misbehaves).
  bool use_shm = true;
  // Track damage (XDamage) to report what changed between captures.
  bool use_damage = true;
  // Compute the frame hash and tile hashes of every capture.
  bool hashes = true;
  int tile_size = kDefaultTileSize;  // pixels a side
};

struct CapturedFrame {
  Image image;           // RGB, region.w x region.h
  Rect region;           // screen pixels the image covers
  int screen_width = 0;  // of the whole display, when captured
  int screen_height = 0;
  uint64_t frame_hash = 0;  // FrameHash(tiles); 0 when hashes are off
  TileHashes tiles;         // HashTiles(image, tile_size); empty when hashes are off
  std::string_view method;  // "xshm" or "xgetimage": which path served it
  // Screen rectangles (clipped to `region`) the server reported damaged
  // since the previous capture by this object, anywhere on screen; empty =
  // nothing changed. nullopt when unknown: the first capture, or no XDamage.
  std::optional<std::vector<Rect>> damage;
};

class ScreenCapture {
 public:
  virtual ~ScreenCapture() = default;

  // The display's size now (it may change with RandR).
  virtual int screen_width() const = 0;
  virtual int screen_height() const = 0;
  // "xshm" when shared memory is in use, else "xgetimage".
  virtual std::string_view method() const = 0;

  // The whole screen.
  virtual Result<CapturedFrame> CaptureScreen() = 0;
  // `region` clipped to the screen. InvalidArgument (naming the screen size)
  // when it is empty or lies wholly outside the screen.
  virtual Result<CapturedFrame> CaptureRegion(const Rect& region) = 0;
  // What is on screen where the window is (its client area, including
  // whatever overlaps it), clipped to the screen. NotFound for an unknown
  // window ID, InvalidArgument for one that is not viewable or off screen.
  virtual Result<CapturedFrame> CaptureWindow(uint64_t window_id) = 0;
};

// The screen of X display `display` ("" = $DISPLAY) through its own X
// connection, so the capture owns everything it holds and may outlive any
// other connection to the display. Unavailable when the display cannot be
// opened.
Result<std::unique_ptr<ScreenCapture>> OpenScreenCapture(const std::string& display,
                                                         const CaptureOptions& options = {});

}  // namespace uiscope
