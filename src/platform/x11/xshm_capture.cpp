#include "platform/x11/xshm_capture.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xdamage.h>
#include <X11/extensions/Xfixes.h>
#include <sys/ipc.h>
#include <sys/shm.h>

// Xlib #defines Status as int; below, Status is uiscope::Status.
#undef Status

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "platform/x11/x_free.h"
#include "platform/x11/ximage_capture.h"

namespace uiscope::x11 {
namespace {

constexpr size_t kSegmentGranularity = size_t{1} << 20;
// More damaged rectangles than this are reported as their bounding box.
constexpr size_t kMaxDamageRects = 64;

struct XImageDeleter {
  void operator()(XImage* image) const { XDestroyImage(image); }
};

// An XImage over our shared segment: XDestroyImage frees `data` and
// `obdata`, which here are the segment and its XShmSegmentInfo, owned
// elsewhere; detach both before destroying the header.
struct ShmImageDeleter {
  void operator()(XImage* image) const {
    image->data = nullptr;
    image->obdata = nullptr;
    XDestroyImage(image);
  }
};

// Catches X errors on this thread between construction and Finish().
// Xlib's error handler is process-wide; the previous one (X11Display's,
// which ignores errors) is put back in both paths.
thread_local int t_first_x_error = 0;
int TrapXError(Display*, XErrorEvent* event) {
  if (t_first_x_error == 0) t_first_x_error = event->error_code;
  return 0;
}
class XErrorTrap {
 public:
  explicit XErrorTrap(Display* display) : display_(display) {
    XSync(display_, False);  // errors of earlier requests are not ours
    t_first_x_error = 0;
    previous_ = XSetErrorHandler(TrapXError);
  }
  ~XErrorTrap() {
    if (previous_ != nullptr) XSetErrorHandler(previous_);
  }
  XErrorTrap(const XErrorTrap&) = delete;
  XErrorTrap& operator=(const XErrorTrap&) = delete;
  // The first error code since construction (0 = none), after a round trip.
  int Finish() {
    XSync(display_, False);
    XSetErrorHandler(previous_);
    previous_ = nullptr;
    return t_first_x_error;
  }

 private:
  Display* display_;
  XErrorHandler previous_ = nullptr;
};

std::string RectText(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," +
         std::to_string(r.h);
}

std::string WindowText(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

}  // namespace

struct XShmCapture::Segment {
  const X11Display* display = nullptr;
  XShmSegmentInfo info{};
  size_t size = 0;
  bool attached = false;
};

void XShmCapture::SegmentDeleter::operator()(Segment* segment) const {
  // A dead server has let go of the segment already; only our mapping is left.
  if (segment->attached && !segment->display->broken()) {
    Display* d = segment->display->raw();
    XShmDetach(d, &segment->info);
    XSync(d, False);
  }
  if (segment->info.shmaddr != nullptr) shmdt(segment->info.shmaddr);
  delete segment;
}

XShmCapture::XShmCapture(std::unique_ptr<X11Display> owned, X11Display& display,
                         const CaptureOptions& options)
    : owned_(std::move(owned)), display_(display), options_(options) {
  screen_width_ = display_.width();
  screen_height_ = display_.height();
}

std::unique_ptr<XShmCapture> XShmCapture::Create(X11Display& display,
                                                 const CaptureOptions& options) {
  std::unique_ptr<XShmCapture> capture(new XShmCapture(nullptr, display, options));
  capture->InitExtensions();
  return capture;
}

Result<std::unique_ptr<XShmCapture>> XShmCapture::Open(const std::string& display_name,
                                                       const CaptureOptions& options) {
  auto display = X11Display::Open(display_name);
  if (!display.ok()) return display.error();
  X11Display& ref = **display;
  std::unique_ptr<XShmCapture> capture(new XShmCapture(std::move(display).value(), ref, options));
  capture->InitExtensions();
  return capture;
}

XShmCapture::~XShmCapture() {
  segment_.reset();  // while the connection is still open
  if (damage_ != 0 && !display_.broken()) {
    XDamageDestroy(display_.raw(), damage_);
    XFixesDestroyRegion(display_.raw(), damage_parts_);
    XSync(display_.raw(), False);
  }
}

std::string_view XShmCapture::method() const { return shm_usable_ ? "xshm" : "xgetimage"; }

size_t XShmCapture::shm_capacity() const { return segment_ ? segment_->size : 0; }

void XShmCapture::InitExtensions() {
  Display* d = display_.raw();
  int major = 0, minor = 0;
  Bool pixmaps = False;
  shm_usable_ = options_.use_shm && XShmQueryVersion(d, &major, &minor, &pixmaps);
  if (!options_.use_damage) return;
  int event_base = 0, error_base = 0, fixes_event = 0, fixes_error = 0;
  if (!XDamageQueryExtension(d, &event_base, &error_base) ||
      !XFixesQueryExtension(d, &fixes_event, &fixes_error)) {
    return;
  }
  // Both extensions want the client's version announced before any request.
  int damage_major = 1, damage_minor = 1, fixes_major = 5, fixes_minor = 0;
  if (!XDamageQueryVersion(d, &damage_major, &damage_minor) ||
      !XFixesQueryVersion(d, &fixes_major, &fixes_minor) || fixes_major < 2) {
    return;
  }
  damage_event_base_ = event_base;
  // Damage on the root window covers every window drawn on the screen (what
  // x11vnc does). NonEmpty sends one event per empty->damaged transition;
  // the area itself is read with XDamageSubtract into a region, so no event
  // carries information we need: they are only drained.
  damage_ = XDamageCreate(d, DefaultRootWindow(d), XDamageReportNonEmpty);
  damage_parts_ = XFixesCreateRegion(d, nullptr, 0);
}

Error XShmCapture::Broken() const {
  return MakeError(ErrorCode::kUnavailable, "the X server of " + display_.name() +
                                                " went away (was its session stopped?); "
                                                "reconnect to capture");
}

Status XShmCapture::RefreshScreenSize() {
  // The size Xlib cached at connection time misses RandR changes; ask.
  Display* d = display_.raw();
  Window root_return = 0;
  int x = 0, y = 0;
  unsigned int w = 0, h = 0, border = 0, depth = 0;
  if (!XGetGeometry(d, DefaultRootWindow(d), &root_return, &x, &y, &w, &h, &border, &depth)) {
    if (display_.broken()) return Broken();
    return MakeError(ErrorCode::kInternal, "cannot read the screen size of " + display_.name());
  }
  screen_width_ = static_cast<int>(w);
  screen_height_ = static_cast<int>(h);
  return OkStatus();
}

Status XShmCapture::EnsureSegment(size_t bytes) {
  if (segment_ && segment_->size >= bytes) return OkStatus();
  segment_.reset();  // detach the smaller one first
  const size_t size = (bytes + kSegmentGranularity - 1) / kSegmentGranularity * kSegmentGranularity;
  std::unique_ptr<Segment, SegmentDeleter> segment(new Segment);
  segment->display = &display_;
  const int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
  if (id < 0) {
    return MakeError(ErrorCode::kUnavailable, std::string("shmget of ") + std::to_string(size) +
                                                  " bytes failed: " + std::strerror(errno));
  }
  void* addr = shmat(id, nullptr, 0);
  if (addr == reinterpret_cast<void*>(-1)) {
    const int err = errno;
    shmctl(id, IPC_RMID, nullptr);
    return MakeError(ErrorCode::kUnavailable, std::string("shmat failed: ") + std::strerror(err));
  }
  segment->info.shmid = id;
  segment->info.shmaddr = static_cast<char*>(addr);
  segment->info.readOnly = False;
  segment->size = size;

  Display* d = display_.raw();
  XErrorTrap trap(d);
  const Bool attached = XShmAttach(d, &segment->info);
  const int error = trap.Finish();
  // Marked for removal now that both sides have it mapped: the kernel frees
  // it when the last one detaches, even if this process crashes.
  shmctl(id, IPC_RMID, nullptr);
  if (!attached || error != 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "the X server cannot attach our shared memory (X error " +
                         std::to_string(error) + "; a remote display?)");
  }
  segment->attached = true;
  segment_ = std::move(segment);
  ++shm_allocations_;
  return OkStatus();
}

Status XShmCapture::GrabShm(const Rect& r, CapturedFrame* frame) {
  Display* d = display_.raw();
  const int screen = DefaultScreen(d);
  std::unique_ptr<XImage, ShmImageDeleter> image(
      XShmCreateImage(d, DefaultVisual(d, screen), DefaultDepth(d, screen), ZPixmap, nullptr,
                      nullptr, static_cast<unsigned>(r.w), static_cast<unsigned>(r.h)));
  if (!image) return MakeError(ErrorCode::kInternal, "XShmCreateImage failed");
  const size_t bytes = static_cast<size_t>(image->bytes_per_line) * image->height;
  if (auto st = EnsureSegment(bytes); !st.ok()) return st;
  image->obdata = reinterpret_cast<char*>(&segment_->info);
  image->data = segment_->info.shmaddr;
  if (!XShmGetImage(d, DefaultRootWindow(d), image.get(), r.x, r.y, AllPlanes)) {
    if (display_.broken()) return Broken();
    return MakeError(ErrorCode::kInternal, "XShmGetImage failed for " + RectText(r));
  }
  return XImageToRgb(*image, &frame->image);
}

Status XShmCapture::GrabXGetImage(const Rect& r, CapturedFrame* frame) {
  Display* d = display_.raw();
  std::unique_ptr<XImage, XImageDeleter> image(
      XGetImage(d, DefaultRootWindow(d), r.x, r.y, static_cast<unsigned>(r.w),
                static_cast<unsigned>(r.h), AllPlanes, ZPixmap));
  if (!image) {
    if (display_.broken()) return Broken();
    return MakeError(ErrorCode::kInternal,
                     "XGetImage failed for " + RectText(r) + " on " + display_.name());
  }
  return XImageToRgb(*image, &frame->image);
}

std::optional<std::vector<Rect>> XShmCapture::TakeDamage(const Rect& r) {
  if (damage_ == 0) return std::nullopt;
  Display* d = display_.raw();
  // Move the accumulated damage into damage_parts_ and empty it; the fetch
  // is a round trip, so the reset is done before the grab that follows.
  // Damage between the reset and the grab is in this image and reported
  // again next time: a change is never missed, at worst reported twice.
  XDamageSubtract(d, damage_, None, damage_parts_);
  int count = 0;
  XPtr<XRectangle> rects(XFixesFetchRegion(d, damage_parts_, &count));
  XEvent event;
  while (XCheckTypedEvent(d, damage_event_base_ + XDamageNotify, &event)) {
  }
  if (!damage_primed_) {
    damage_primed_ = true;  // damage since the Damage object was made means nothing
    return std::nullopt;
  }
  std::vector<Rect> out;
  for (int i = 0; rects && i < count; ++i) {
    const XRectangle& x = rects.get()[i];
    Rect c = Intersect(Rect{x.x, x.y, x.width, x.height}, r);
    if (!c.Empty()) out.push_back(c);
  }
  if (out.size() > kMaxDamageRects) {
    Rect all;
    for (const Rect& c : out) all = Union(all, c);
    out = {all};
  }
  return out;
}

Result<CapturedFrame> XShmCapture::CaptureScreen() {
  if (display_.broken()) return Broken();
  if (auto st = RefreshScreenSize(); !st.ok()) return st.error();
  return CaptureRegion(Rect{0, 0, screen_width_, screen_height_});
}

Result<CapturedFrame> XShmCapture::CaptureRegion(const Rect& region) {
  if (display_.broken()) return Broken();
  if (region.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the capture region " + RectText(region) + " is empty: w and h must be > 0");
  }
  if (auto st = RefreshScreenSize(); !st.ok()) return st.error();
  const Rect r = ClampToFrame(region, screen_width_, screen_height_);
  if (r.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the capture region " + RectText(region) +
                                                      " lies outside the " +
                                                      std::to_string(screen_width_) + "x" +
                                                      std::to_string(screen_height_) + " screen");
  }
  CapturedFrame frame;
  frame.region = r;
  frame.screen_width = screen_width_;
  frame.screen_height = screen_height_;
  frame.damage = TakeDamage(r);
  Status grabbed = OkStatus();
  if (shm_usable_) {
    grabbed = GrabShm(r, &frame);
    if (!grabbed.ok()) {
      if (display_.broken()) return Broken();
      // Shared memory failed (no segment, or the server refused it): when
      // XGetImage works, stop trying shared memory on this connection.
      Status fallback = GrabXGetImage(r, &frame);
      if (fallback.ok()) {
        shm_usable_ = false;
        segment_.reset();
        grabbed = fallback;
      }
    }
  } else {
    grabbed = GrabXGetImage(r, &frame);
  }
  if (!grabbed.ok()) return grabbed.error();
  frame.method = method();
  if (options_.hashes) {
    frame.tiles = HashTiles(frame.image, options_.tile_size);
    frame.frame_hash = FrameHash(frame.tiles);
  }
  return frame;
}

Result<CapturedFrame> XShmCapture::CaptureWindow(uint64_t window_id) {
  if (display_.broken()) return Broken();
  Display* d = display_.raw();
  const auto window = static_cast<Window>(window_id);
  XWindowAttributes attrs;
  // A bad ID is an X error (ignored by X11Display's handler) and a 0 return.
  if (window_id == 0 || !XGetWindowAttributes(d, window, &attrs)) {
    if (display_.broken()) return Broken();
    return MakeError(ErrorCode::kNotFound, "no X window " + WindowText(window_id) + " on " +
                                               display_.name() + " (it may have closed)");
  }
  if (attrs.map_state != IsViewable) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "window " + WindowText(window_id) +
                         " is not viewable (unmapped, minimised or on another desktop)");
  }
  int x = 0, y = 0;
  Window child = 0;
  XTranslateCoordinates(d, window, DefaultRootWindow(d), 0, 0, &x, &y, &child);
  auto frame = CaptureRegion(Rect{x, y, attrs.width, attrs.height});
  if (!frame.ok() && frame.error().code == ErrorCode::kInvalidArgument) {
    return MakeError(ErrorCode::kInvalidArgument, "window " + WindowText(window_id) +
                                                      " is off screen: " + frame.error().message);
  }
  return frame;
}

}  // namespace uiscope::x11

namespace uiscope {

Result<std::unique_ptr<ScreenCapture>> OpenScreenCapture(const std::string& display,
                                                         const CaptureOptions& options) {
  auto capture = x11::XShmCapture::Open(display, options);
  if (!capture.ok()) return capture.error();
  return std::unique_ptr<ScreenCapture>(std::move(capture).value());
}

}  // namespace uiscope
