// Screenshots (DESIGN §5.2, §9): the pixels of the whole screen, a region or
// a window, optionally shrunk to a maximum width and overlaid with
// set-of-marks (each element's box and ID from the current tree), encoded
// as PNG, WebP or JPEG.
//
// Marks show what is seen: an element of a window that another window
// covers is marked only where it shows (its largest uncovered part), or not
// at all, by the windows' stacking order. The tree is perceived with the
// sources asked for (engine/perceive.h), so vision and OCR nodes are marked
// like accessible ones.
//
// Coordinates: the image's pixel (ix, iy) shows screen pixel
//   (region.x + ix / scale, region.y + iy / scale),
// where region is the screen rectangle captured and scale = image width /
// region width (1 unless max_width shrank it). Mark bounds are given in
// both frames: image pixels (what the model sees) and screen pixels (what
// input and the tree use).
//
// The engine takes the ScreenCapture and Observer interfaces, never a
// backend, so it is tested with canned frames and a fake tree. Not
// thread-safe: call under the workspace lease.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"
#include "engine/observe.h"
#include "engine/perceive.h"
#include "engine/workspace.h"
#include "image/draw.h"
#include "image/image.h"
#include "platform/capture.h"

namespace uiscope {

// A top-level window as stacking sees it (for what covers what).
struct StackedWindow {
  uint64_t id = 0;  // X window ID
  int pid = 0;      // 0 when unknown
  std::string title;
  Rect bounds;  // client area, screen pixels (what window nodes report)
  Rect frame;   // with the window manager's decorations: what it covers
};

// `windows` (bottom to top, as WindowSystem::ListWindows lists them) as
// stacking sees them.
std::vector<StackedWindow> StackedWindows(const std::vector<WindowInfo>& windows);

struct ScreenshotRequest {
  std::optional<Rect> region;  // screen pixels; clipped to the screen
  // A window: an X window ID ("0x1e00007" or decimal) or the ID of a window
  // node from observe ("win_b253"). "" = none. Exclusive with region.
  std::string window;
  ImageEncoding encoding = ImageEncoding::kPng;
  int max_width = 0;       // shrink wider images to this many pixels (0 = never)
  int jpeg_quality = 80;   // 1–100, for jpeg
  bool marks = false;      // draw set-of-marks from the current tree
  int max_marks = 500;     // at most this many marks, in tree order
  ObserveRequest observe;  // scope of the tree the marks come from (app, pid, timeout)
  // What perceives the marked elements (ScreenshotService::Take): the
  // accessibility tree, and with vision / ocr their nodes too.
  Sources sources;
  // Vision's detector for those nodes (not owned; must outlive Take);
  // null: the default one.
  const vision::Detector* detector = nullptr;
  // The top-level windows, bottom to top: a mark is drawn only where its
  // window is not covered. Empty = no stacking known, boxes drawn whole
  // (ScreenshotService::Take fills it in).
  std::vector<StackedWindow> windows;
  // Screen areas painted black right after the capture, before anything
  // is hashed, scaled or encoded: the windows of deny-listed apps
  // (engine/privacy.h; ScreenshotService::Take fills it in).
  std::vector<Rect> masked;
};

struct ScreenshotMark {
  std::string id;  // the element's stable ID, also the label drawn
  Role role = Role::kUnknown;
  std::string name;    // its name (never a value: password fields show nothing extra)
  Rect bounds;         // image pixels of the drawn box
  Rect screen_bounds;  // screen pixels of the element (clipped to the region)
  std::string color;   // "#rrggbb" of its outline and label
};

struct ScreenshotResult {
  std::string bytes;  // the encoded image
  ImageEncoding encoding = ImageEncoding::kPng;
  int width = 0;  // image pixels
  int height = 0;
  double scale = 1.0;   // image pixels per screen pixel
  Rect region;          // screen pixels captured
  Frame frame;          // the whole screen: width, height, scale (the image's)
  std::string display;  // ":N", when known
  uint64_t frame_hash =
      0;  // FrameHash of the captured pixels (64-pixel tiles), before scaling and marks
  // Whether the region changed since the previous capture through the same
  // ScreenCapture (XDamage); nullopt when unknown.
  std::optional<bool> changed;
  std::vector<ScreenshotMark> marks;
  std::vector<std::string> warnings;
  double capture_ms = 0;
  double observe_ms = 0;
  double encode_ms = 0;  // resize, marks and encoding
  std::string method;    // capture path: "xshm" or "xgetimage"
};

// Takes a screenshot through `capture`. The marks and a window given by
// element ID come from `perceived` when the caller perceived the tree
// already (with other sources), else from `observer`, which observes the
// accessibility tree now (null: neither is possible). Errors:
// InvalidArgument for a bad request (region outside the screen, region and
// window together), NotFound for an unknown window, Unsupported for marks
// without an observer, and whatever capture and observation report.
Result<ScreenshotResult> TakeScreenshot(ScreenCapture& capture, Observer* observer,
                                        const ScreenshotRequest& request,
                                        const Observation* perceived = nullptr);

// One ScreenCapture per desktop, kept between calls so the shared memory
// segment and the damage tracking persist. Each is opened from the lease's
// Desktop and owns its connection (its own X connection; a share of the VNC
// connection), so nothing here dangles when the workspace reconnects; a
// capture whose server went away is replaced on the next call. Thread-safe.
class ScreenshotService {
 public:
  explicit ScreenshotService(CaptureOptions options = {}) : options_(options) {}

  // A screenshot of the lease's desktop: marks perceived with
  // `request.sources`, drawn only where they are seen. Unsupported when the
  // desktop has no screen to capture (a fake desktop).
  Result<ScreenshotResult> Take(Workspace::Lease& lease, const ScreenshotRequest& request);

 private:
  Result<ScreenCapture*> CaptureFor(const std::string& display, Desktop& desktop);

  CaptureOptions options_;
  std::mutex reader_mutex_;             // held while reader_ perceives
  std::unique_ptr<TextReader> reader_;  // OCR for ocr / vision marks, made on first use
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<ScreenCapture>> captures_;  // by display
};

// "0x1e00007" or "31457287" -> that X window ID; nullopt for anything else
// (then a `window` argument is an element ID).
std::optional<uint64_t> ParseXWindowId(std::string_view text);

// "x,y,w,h" -> Rect; InvalidArgument unless four integers with w, h > 0.
Result<Rect> ParseRegion(std::string_view text);

}  // namespace uiscope
