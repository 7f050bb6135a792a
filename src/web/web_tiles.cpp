#include "web/web_tiles.h"

#include <time.h>

#include <algorithm>

#include "image/draw.h"
#include "image/image.h"
#include "image/image_hash.h"
#include "image/resize.h"

namespace uiscope::web {
namespace {

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Room around a crop's boxes, screen pixels, so a person sees what is near
// the target (its label, its window) and not the box alone.
constexpr int kCropMargin = 48;

}  // namespace

uint64_t TileCache::Put(const std::string& session, std::string jpeg, int width, int height) {
  std::lock_guard lock(mutex_);
  Tile& t = tiles_[session];
  t.version = next_version_++;
  t.jpeg = std::move(jpeg);
  t.width = width;
  t.height = height;
  return t.version;
}

std::optional<Tile> TileCache::Get(const std::string& session) {
  std::lock_guard lock(mutex_);
  auto it = tiles_.find(session);
  if (it == tiles_.end()) return std::nullopt;
  return it->second;
}

void BlackOut(Image& image, Point origin, const std::vector<Rect>& masks) {
  for (const Rect& m : masks) {
    FillRect(image, Rect{m.x - origin.x, m.y - origin.y, m.w, m.h}, Rgb{0, 0, 0});
  }
}

std::vector<TileFeed::Changed> TileFeed::Tick(const std::vector<TileSource>& sources,
                                              const MaskFn& masks) {
  const double start = ThreadCpuMs();
  std::vector<Changed> changed;
  std::map<std::string, Screen> kept;
  for (const TileSource& source : sources) {
    Screen screen;
    if (auto it = screens_.find(source.session); it != screens_.end()) {
      screen = std::move(it->second);
    }
    if (!screen.capture) {
      // Hashes are computed here, only when the damage does not say that
      // nothing changed: an unchanged tick costs the grab alone.
      CaptureOptions options;
      options.hashes = false;
      options.use_damage = true;
      if (!source.open) continue;
      auto opened = source.open(options);
      if (!opened.ok()) continue;
      screen.capture = std::move(*opened);
    }
    auto frame = screen.capture->CaptureScreen();
    if (!frame.ok()) {
      screen.capture.reset();  // the display went: reopen next tick
      kept[source.session] = std::move(screen);
      continue;
    }
    if (screen.hash != 0 && frame->damage && frame->damage->empty()) {
      kept[source.session] = std::move(screen);
      continue;
    }
    if (masks) BlackOut(frame->image, {frame->region.x, frame->region.y}, masks(source.session));
    const uint64_t hash = FrameHash(HashTiles(frame->image));
    if (hash == screen.hash) {
      kept[source.session] = std::move(screen);
      continue;
    }
    auto small = DownscaleToWidth(std::move(frame->image), tile_width_);
    if (!small.ok()) continue;
    JpegOptions jpeg;
    jpeg.quality = 70;
    auto bytes = EncodeJpeg(small->image, jpeg);
    if (!bytes.ok()) continue;
    screen.hash = hash;
    const int w = small->image.width;
    const int h = small->image.height;
    const uint64_t version = cache_.Put(source.session, std::move(*bytes), w, h);
    changed.push_back({source.session, version, w, h});
    kept[source.session] = std::move(screen);
  }
  screens_ = std::move(kept);
  if (changed.empty() && !sources.empty()) {
    last_unchanged_cpu_ms_ = (ThreadCpuMs() - start) / static_cast<double>(sources.size());
  }
  return changed;
}

Result<std::string> ScreenPng(ScreenCapture& capture, const std::vector<Rect>& masks) {
  auto frame = capture.CaptureScreen();
  if (!frame.ok()) return frame.error();
  BlackOut(frame->image, {0, 0}, masks);
  return EncodePng(frame->image);
}

Result<std::string> CropPng(ScreenCapture& capture, const std::vector<CropBox>& boxes,
                            const std::vector<Rect>& masks) {
  const Rect screen{0, 0, capture.screen_width(), capture.screen_height()};
  Rect area;
  for (const CropBox& b : boxes) {
    const Rect on = Intersect(b.box, screen);
    if (on.Empty()) continue;
    area = area.Empty() ? on : Union(area, on);
  }
  if (area.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the target lies outside the screen");
  }
  area = Intersect(Rect{area.x - kCropMargin, area.y - kCropMargin, area.w + 2 * kCropMargin,
                        area.h + 2 * kCropMargin},
                   screen);
  auto frame = capture.CaptureRegion(area);
  if (!frame.ok()) return frame.error();
  BlackOut(frame->image, {frame->region.x, frame->region.y}, masks);
  std::vector<MarkToDraw> marks;
  for (const CropBox& b : boxes) {
    marks.push_back(
        {Rect{b.box.x - frame->region.x, b.box.y - frame->region.y, b.box.w, b.box.h}, b.label});
  }
  DrawMarks(frame->image, marks);
  return EncodePng(frame->image);
}

}  // namespace uiscope::web
