#include "engine/screenshot.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/clock.h"
#include "core/format.h"
#include "core/ids.h"
#include "core/merge.h"
#include "engine/privacy.h"
#include "image/resize.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// Elements worth a mark: what an agent acts on, and named leaves it reads
// (labels, links, images). Containers would outline everything twice.
bool IsMarkable(const Node& n) {
  if (!n.bounds || n.bounds->Empty()) return false;
  if (IsInteractiveRole(n.role)) return true;
  if (n.name.empty()) return false;
  // A named canvas or terminal shows its own content; other containers,
  // status bars and separators do not.
  if (n.role == Role::kCanvas || n.role == Role::kTerminal) return true;
  return !IsContainerRole(n.role) && n.role != Role::kStatusBar && n.role != Role::kSeparator;
}

// Screen rectangle -> image pixels (outward rounding, at least one pixel).
Rect ToImage(const Rect& screen, const Rect& region, double scale) {
  const int x0 = static_cast<int>(std::floor((screen.x - region.x) * scale));
  const int y0 = static_cast<int>(std::floor((screen.y - region.y) * scale));
  const int x1 = static_cast<int>(std::ceil((screen.Right() - region.x) * scale));
  const int y1 = static_cast<int>(std::ceil((screen.Bottom() - region.y) * scale));
  return {x0, y0, std::max(1, x1 - x0), std::max(1, y1 - y0)};
}

std::string RectText(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," +
         std::to_string(r.h);
}

// The layer (index into `windows`, bottom to top) showing window node `w`:
// same process, then same title, then the largest overlap. nullopt when no
// window overlaps it.
std::optional<size_t> LayerOf(const Node& w, const std::vector<StackedWindow>& windows) {
  std::optional<size_t> best;
  int64_t best_score = 0;
  for (size_t i = 0; i < windows.size(); ++i) {
    const StackedWindow& s = windows[i];
    if (w.pid != 0 && s.pid != 0 && s.pid != w.pid) continue;
    const int64_t overlap = w.bounds ? Intersect(s.bounds, *w.bounds).Area() : 0;
    if (overlap == 0) continue;
    int64_t score = overlap;
    if (w.pid != 0 && s.pid == w.pid) score += int64_t{1} << 40;
    if (!w.name.empty() && s.title == w.name) score += int64_t{1} << 39;
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

// What of `box` (screen pixels) is seen: its largest part that no window
// above layer `layer` covers; empty when they cover all of it.
Rect SeenPart(const Rect& box, const std::vector<Rect>& frames, size_t layer) {
  Rect best;
  for (const Rect& part : UncoveredParts(box, frames, layer)) {
    if (part.Area() > best.Area()) best = part;
  }
  return best;
}

Status Validate(const ScreenshotRequest& request) {
  if (request.region && !request.window.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give a region or a window, not both (the window's area is its region)");
  }
  if (request.region && request.region->Empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the region " + RectText(*request.region) + " is empty: w and h must be > 0");
  }
  if (request.max_width < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "max_width must be >= 0 (0 = full size)");
  }
  if (request.jpeg_quality < 1 || request.jpeg_quality > 100) {
    return MakeError(ErrorCode::kInvalidArgument, "jpeg quality must be 1-100");
  }
  if (request.max_marks < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "max_marks must be >= 0");
  }
  return OkStatus();
}

}  // namespace

std::vector<StackedWindow> StackedWindows(const std::vector<WindowInfo>& windows) {
  std::vector<StackedWindow> out;
  out.reserve(windows.size());
  for (const WindowInfo& w : windows) out.push_back({w.id, w.pid, w.title, w.bounds, w.Covers()});
  return out;
}

Result<ScreenshotResult> TakeScreenshot(ScreenCapture& capture, Observer* observer,
                                        const ScreenshotRequest& request,
                                        const Observation* perceived) {
  if (auto st = Validate(request); !st.ok()) return st.error();
  const std::optional<uint64_t> x_window =
      request.window.empty() ? std::nullopt : ParseXWindowId(request.window);
  const bool window_node = !request.window.empty() && !x_window;
  if ((request.marks || window_node) && observer == nullptr && perceived == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     request.marks ? "marks need the accessibility tree, which this desktop does "
                                     "not offer; take the screenshot without marks"
                                   : "window \"" + request.window +
                                         "\" is not an X window ID, and this desktop has no "
                                         "accessibility tree to look element IDs up in");
  }
  ScreenshotResult result;
  result.encoding = request.encoding;

  // The tree first: a window given by element ID needs its bounds, and the
  // marks should describe the screen as captured just after.
  std::optional<Observation> observation;
  if (perceived != nullptr) {
    observation = *perceived;
    result.warnings = observation->warnings;
  } else if (request.marks || window_node) {
    const auto start = Clock::now();
    auto obs = observer->Observe(request.observe);
    result.observe_ms = MsSince(start);
    if (obs.ok()) {
      observation = std::move(obs).value();
      result.warnings = observation->warnings;
    } else if (window_node || obs.error().code == ErrorCode::kNotFound ||
               obs.error().code == ErrorCode::kInvalidArgument) {
      return obs.error();
    } else {
      // The pixels are still worth having without their marks.
      result.warnings.push_back("marks left out: " + obs.error().message);
    }
  }

  const auto capture_start = Clock::now();
  Result<CapturedFrame> frame = MakeError(ErrorCode::kInternal, "not captured");
  if (x_window) {
    frame = capture.CaptureWindow(*x_window);
  } else if (window_node) {
    const Node* node = FindById(observation->snapshot.roots, request.window);
    if (node == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       "no element with ID \"" + request.window +
                           "\" on screen now; observe to see the current IDs (or pass an X "
                           "window ID such as 0x1e00007)");
    }
    if (!node->bounds || node->bounds->Empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "element \"" + request.window + "\" has no bounds on screen");
    }
    frame = capture.CaptureRegion(*node->bounds);
  } else if (request.region) {
    frame = capture.CaptureRegion(*request.region);
  } else {
    frame = capture.CaptureScreen();
  }
  if (!frame.ok()) return frame.error();
  result.capture_ms = MsSince(capture_start);
  result.region = frame->region;
  bool masked = false;
  for (const Rect& area : request.masked) {
    const Rect cut = Intersect(area, frame->region);
    if (cut.Empty() || !frame->image.Valid()) continue;
    for (int y = cut.y; y < cut.Bottom(); ++y) {
      const int row = y - frame->region.y;
      if (row < 0 || row >= frame->image.height) continue;
      const int x0 = std::max(0, cut.x - frame->region.x);
      const int x1 = std::min(frame->image.width, cut.Right() - frame->region.x);
      if (x1 > x0) std::fill_n(frame->image.Pixel(x0, row), static_cast<size_t>(x1 - x0) * 3, 0);
    }
    masked = true;
  }
  // The capture's own hash is of the pixels before masking.
  result.frame_hash =
      frame->frame_hash != 0 && !masked ? frame->frame_hash : FrameHash(HashTiles(frame->image));
  result.method = std::string(frame->method);
  if (frame->damage) result.changed = !frame->damage->empty();

  const auto encode_start = Clock::now();
  auto scaled = DownscaleToWidth(std::move(frame->image), request.max_width);
  if (!scaled.ok()) return scaled.error();
  Image& image = scaled->image;
  result.scale = scaled->scale;
  result.width = image.width;
  result.height = image.height;
  result.frame = Frame{frame->screen_width, frame->screen_height, result.scale};

  if (request.marks && observation) {
    std::vector<Rect> frames;
    for (const StackedWindow& w : request.windows) frames.push_back(w.frame);
    // Per window node ID: its layer in the stacking order.
    std::map<std::string, std::optional<size_t>> layers;
    auto layer_of = [&](const Node& n) -> std::optional<size_t> {
      const std::string& window_id = n.role == Role::kWindow ? n.id : n.window;
      auto it = layers.find(window_id);
      if (it != layers.end()) return it->second;
      const Node* w = FindById(observation->snapshot.roots, window_id);
      std::optional<size_t> layer = w ? LayerOf(*w, request.windows) : std::nullopt;
      layers[window_id] = layer;
      return layer;
    };
    std::vector<const Node*> nodes;
    std::vector<Rect> seen_boxes;  // screen pixels
    std::vector<MarkToDraw> to_draw;
    int skipped = 0;
    int covered = 0;
    ForEachNode(observation->snapshot.roots, [&](const Node& n, int) {
      if (!IsMarkable(n)) return;
      Rect seen = Intersect(*n.bounds, result.region);
      if (seen.Empty()) return;
      if (const auto layer = layer_of(n)) {
        seen = SeenPart(seen, frames, *layer);
        if (seen.Empty()) {
          ++covered;
          return;
        }
      }
      if (static_cast<int>(nodes.size()) >= request.max_marks) {
        ++skipped;
        return;
      }
      nodes.push_back(&n);
      seen_boxes.push_back(seen);
      to_draw.push_back({ToImage(seen, result.region, result.scale), n.id});
    });
    if (covered > 0) {
      result.warnings.push_back(std::to_string(covered) +
                                " elements left unmarked: other windows cover them");
    }
    if (skipped > 0) {
      result.warnings.push_back(std::to_string(skipped) +
                                " more elements left unmarked (max_marks " +
                                std::to_string(request.max_marks) + ")");
    }
    const std::vector<DrawnMark> drawn = DrawMarks(image, to_draw);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!drawn[i].drawn) continue;
      ScreenshotMark m;
      m.id = nodes[i]->id;
      m.role = nodes[i]->role;
      m.name = nodes[i]->name;
      m.bounds = drawn[i].box;
      m.screen_bounds = seen_boxes[i];
      m.color = drawn[i].color.Hex();
      result.marks.push_back(std::move(m));
    }
  }

  EncodeOptions options;
  options.encoding = request.encoding;
  options.jpeg.quality = request.jpeg_quality;
  auto bytes = EncodeImage(image, options);
  if (!bytes.ok()) return bytes.error();
  result.bytes = std::move(bytes).value();
  result.encode_ms = MsSince(encode_start);
  return result;
}

Result<ScreenCapture*> ScreenshotService::CaptureFor(const std::string& display, Desktop& desktop) {
  std::lock_guard lock(mutex_);
  auto it = captures_.find(display);
  if (it != captures_.end()) return it->second.get();
  auto capture = desktop.OpenCapture(options_);
  if (!capture.ok()) return capture.error();
  ScreenCapture* raw = capture->get();
  captures_[display] = std::move(capture).value();
  return raw;
}

Result<ScreenshotResult> ScreenshotService::Take(Workspace::Lease& lease,
                                                 const ScreenshotRequest& request) {
  if (lease.desktop == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "screen capture is not available on this desktop (" +
                                                  lease.display + " has no X display)");
  }
  auto capture = CaptureFor(lease.display, *lease.desktop);
  if (!capture.ok()) return capture.error();
  ScreenshotRequest masked_request = request;
  auto listed = TopLevelWindows(lease);
  if (!listed.ok()) return listed.error();
  const std::vector<WindowInfo>& windows = *listed;
  if (masked_request.windows.empty()) masked_request.windows = StackedWindows(windows);
  if (lease.observer != nullptr && lease.observer->hides_anything()) {
    // Deny-listed apps: their windows are blacked out, and one of them is
    // no window to capture (engine/privacy.h).
    const HiddenWindows hidden = HiddenWindows::Of(*lease.observer);
    if (auto id = request.window.empty() ? std::nullopt : ParseXWindowId(request.window)) {
      for (const WindowInfo& w : windows) {
        if (w.id == *id && hidden.IsHidden(w)) {
          return MakeError(ErrorCode::kDenied,
                           "window " + request.window +
                               " belongs to an application on the deny list (deny_apps of the "
                               "configuration): uiscope does not look at it");
        }
      }
    }
    std::vector<Rect> areas = hidden.Regions(windows);
    masked_request.masked.insert(masked_request.masked.end(), areas.begin(), areas.end());
  }
  // The marks (and a window named by element ID) come from the same
  // perception as `observe --sources`.
  std::optional<Perception> perception;
  const bool window_node = !request.window.empty() && !ParseXWindowId(request.window);
  if ((request.marks || window_node) && lease.observer != nullptr) {
    std::unique_lock reader_lock(reader_mutex_, std::defer_lock);
    TextReader* reader = nullptr;
    if (request.sources.ocr || request.sources.vision) {
      reader_lock.lock();
      if (!reader_) reader_ = std::make_unique<TextReader>();
      reader = reader_.get();
    }
    auto perceived = Perceive(lease, request.observe, request.sources, reader, ocr::OcrOptions{},
                              request.detector);
    if (perceived.ok()) {
      perception = std::move(perceived).value();
    } else if (window_node || request.sources.ocr || request.sources.vision ||
               perceived.error().code == ErrorCode::kNotFound ||
               perceived.error().code == ErrorCode::kInvalidArgument) {
      return perceived.error();
    }
    // Otherwise TakeScreenshot observes again, and leaves the marks out
    // with a warning if that fails too.
  }
  auto result = TakeScreenshot(**capture, lease.observer, masked_request,
                               perception ? &perception->observation : nullptr);
  if (result.ok() && perception)
    result->observe_ms = perception->observation.snapshot.stats.latency_ms;
  if (!result.ok()) {
    if (result.error().code == ErrorCode::kUnavailable) {
      // The X server (or the bus) went away: reconnect next time.
      std::lock_guard lock(mutex_);
      captures_.erase(lease.display);
    }
    return result.error();
  }
  result->display = lease.display;
  return result;
}

std::optional<uint64_t> ParseXWindowId(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

Result<Rect> ParseRegion(std::string_view text) {
  Rect r;
  int* fields[] = {&r.x, &r.y, &r.w, &r.h};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 4; ++i) {
    auto [next, ec] = std::from_chars(p, end, *fields[i]);
    const bool last = i == 3;
    if (ec != std::errc() || (last ? next != end : (next == end || *next != ','))) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "region must be X,Y,W,H (four integers, screen pixels), got \"" +
                           std::string(text) + "\"");
    }
    p = next + (last ? 0 : 1);
  }
  if (r.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "region " + std::string(text) + " is empty: W and H must be > 0");
  }
  return r;
}

}  // namespace uiscope
