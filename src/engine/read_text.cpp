#include "engine/read_text.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/clock.h"
#include "core/format.h"
#include "core/ids.h"
#include "engine/privacy.h"
#include "engine/screenshot.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

std::string RectText(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," +
         std::to_string(r.h);
}

std::string WindowIdText(unsigned long id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%lx", id);
  return buf;
}

Result<Rect> WindowBounds(const std::vector<WindowInfo>& windows, const std::string& display,
                          uint64_t id) {
  for (const WindowInfo& w : windows) {
    if (w.id == id) return w.bounds;
  }
  std::string known;
  for (size_t i = 0; i < windows.size() && i < 12; ++i) {
    known += (known.empty() ? "" : ", ") + WindowIdText(windows[i].id) + " \"" +
             windows[i].title + "\"";
  }
  return MakeError(ErrorCode::kNotFound,
                   "no top-level window " + WindowIdText(id) + " on " + display +
                       (known.empty() ? std::string(" (it has no top-level windows)")
                                      : "; top-level windows: " + known) +
                       ". A window element ID from observe (win_...) works too");
}

}  // namespace

TextReader::TextReader(ocr::TesseractOptions options) : options_(std::move(options)) {}
TextReader::~TextReader() {
  if (!engine_ || cache_file_.empty() || !engine_->cache().dirty()) return;
  const std::string identity = engine_->RecognizerIdentity();
  if (identity.empty()) return;
  // Unwritable (a read-only state directory): the next call reads again.
  (void)engine_->cache().SaveRegions(cache_file_, identity, kKeptRegions);
}

void TextReader::KeepCacheIn(std::string file) {
  std::lock_guard lock(mutex_);
  cache_file_ = std::move(file);
}

Result<ocr::OcrEngine*> TextReader::Engine() {
  std::lock_guard lock(mutex_);
  if (!engine_) {
    auto engine = ocr::OcrEngine::CreateTesseract(options_);
    if (!engine.ok()) return engine.error();
    engine_ = std::move(engine).value();
    if (!cache_file_.empty()) {
      const std::string identity = engine_->RecognizerIdentity();
      if (!identity.empty()) engine_->cache().LoadRegions(cache_file_, identity);
    }
  }
  return engine_.get();
}

std::string OcrCacheFile() { return SessionStateDir() + "/ocr-cache.bin"; }

Result<std::vector<std::string>> TextReader::Languages() {
  auto engine = Engine();
  if (!engine.ok()) return engine.error();
  return (*engine)->Languages();
}

Result<ocr::OcrResult> TextReader::ReadImage(const Image& image, Point origin,
                                             const ocr::OcrOptions& options,
                                             std::span<const Rect> masks) {
  auto engine = Engine();
  if (!engine.ok()) return engine.error();
  return (*engine)->Read(image, origin, options, masks);
}

Result<ReadTextResult> TextReader::Read(Workspace::Lease lease, const ReadTextRequest& request,
                                        bool* display_gone) {
  const auto start = Clock::now();
  if (display_gone != nullptr) *display_gone = false;
  if (request.region && !request.window.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give a region or a window, not both (the window's area is its region)");
  }
  if (request.region && request.region->Empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the region " + RectText(*request.region) + " is empty: w and h must be > 0");
  }
  auto engine = Engine();
  if (!engine.ok()) return engine.error();
  ocr::OcrOptions options;
  options.scale = request.scale;
  options.lang = request.lang;
  if (auto st = ocr::ValidateOptions(options, (*engine)->Languages()); !st.ok()) return st.error();
  if (lease.capture == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "desktop " + lease.display +
                                                  " has no screen to read (it is a fake desktop); "
                                                  "read_text needs an X display");
  }
  if (DesktopGone(lease)) {
    if (display_gone != nullptr) *display_gone = true;
    return MakeError(ErrorCode::kUnavailable,
                     "the X server of " + lease.display + " went away; try again to reconnect");
  }

  ReadTextResult result;
  result.display = lease.display;

  // Password fields (and a window element's bounds) come from the tree, read
  // before the pixels so the masks describe the screen as captured.
  const std::optional<uint64_t> x_window =
      request.window.empty() ? std::nullopt : ParseXWindowId(request.window);
  const bool window_element = !request.window.empty() && !x_window;
  std::vector<Rect> masks;
  std::optional<Observation> observation;
  if (lease.observer != nullptr) {
    const auto observe_start = Clock::now();
    auto obs = lease.observer->Observe(request.observe);
    result.observe_ms = MsSince(observe_start);
    if (obs.ok()) {
      observation = std::move(obs).value();
      masks = PasswordFieldBounds(observation->snapshot.roots);
      result.warnings = observation->warnings;
    } else if (window_element) {
      return obs.error();
    } else {
      // Nothing to mask can be known without the tree. Password entries show
      // bullets, not their text, so reading on is safe; say so.
      result.warnings.push_back("password fields could not be located (" + obs.error().message +
                                "); only what an entry draws (bullets) can have been read there");
    }
  } else if (window_element) {
    return MakeError(ErrorCode::kUnsupported,
                     "window \"" + request.window +
                         "\" is not an X window ID, and this desktop has no accessibility tree "
                         "to look element IDs up in");
  } else {
    result.warnings.push_back(
        "no accessibility tree on this desktop, so password fields could not be located; only "
        "what an entry draws (bullets) can have been read there");
  }

  const Rect screen{0, 0, lease.capture->screen_width(), lease.capture->screen_height()};
  Rect target = screen;
  if (request.region) {
    target = Intersect(*request.region, screen);
    if (target.Empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the region " + RectText(*request.region) + " lies outside the " +
                           std::to_string(screen.w) + "x" + std::to_string(screen.h) + " screen");
    }
  } else if (x_window) {
    const uint64_t wanted = *x_window;
    auto windows = TopLevelWindows(lease);
    if (!windows.ok()) return windows.error();
    auto bounds = WindowBounds(*windows, lease.display, wanted);
    if (!bounds.ok()) return bounds.error();
    if (lease.observer != nullptr && lease.observer->hides_anything()) {
      const HiddenWindows hidden = HiddenWindows::Of(*lease.observer);
      for (const WindowInfo& w : *windows) {
        if (w.id == wanted && hidden.IsHidden(w)) {
          return MakeError(ErrorCode::kDenied,
                           "window " + request.window +
                               " belongs to an application on the deny list (deny_apps of the "
                               "configuration): uiscope does not read it");
        }
      }
    }
    target = Intersect(*bounds, screen);
  } else if (window_element) {
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
    target = Intersect(*node->bounds, screen);
  }
  if (target.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "window " + request.window + " is not on the " +
                                                      std::to_string(screen.w) + "x" +
                                                      std::to_string(screen.h) + " screen");
  }

  std::vector<Rect> denied;
  if (lease.observer != nullptr && lease.observer->hides_anything()) {
    // Deny-listed apps (engine/privacy.h): never read, even by their pixels.
    const HiddenWindows hidden = HiddenWindows::Of(*lease.observer);
    auto windows = TopLevelWindows(lease);
    if (!windows.ok()) return windows.error();
    denied = hidden.Regions(*windows);
  }

  const auto capture_start = Clock::now();
  auto frame = lease.capture->CaptureRegion(target);
  if (!frame.ok()) {
    if (DesktopGone(lease)) {
      if (display_gone != nullptr) *display_gone = true;
      return MakeError(ErrorCode::kUnavailable,
                       "the X server of " + lease.display +
                           " went away during capture: " + frame.error().message);
    }
    return frame.error();
  }
  result.capture_ms = MsSince(capture_start);
  result.region = target;
  for (const Rect& m : masks) result.masked_fields += !Intersect(m, target).Empty();
  masks.insert(masks.end(), denied.begin(), denied.end());
  // The desktop is not needed for recognition: let other tools at it.
  if (lease.lock.owns_lock()) lease.lock.unlock();

  auto text = (*engine)->Read(frame->image, Point{target.x, target.y}, options, masks);
  if (!text.ok()) return text.error();
  result.ocr = std::move(text).value();
  result.total_ms = MsSince(start);
  return result;
}

std::vector<Rect> PasswordFieldBounds(const std::vector<Node>& roots) {
  std::vector<Rect> out;
  ForEachNode(roots, [&](const Node& n, int) {
    if (n.Has(State::kPassword) && n.bounds && !n.bounds->Empty()) out.push_back(*n.bounds);
  });
  return out;
}

}  // namespace uiscope
