// XShmCapture: ScreenCapture for X11 (platform/capture.h).
//
// Fast path: MIT-SHM. The server copies the pixels straight into a shared
// memory segment that lives as long as the capture object, reallocated only
// when a capture needs more than it holds, so a repeated capture costs one
// round trip and one BGRX->RGB pass. Fallback (Sunshine's x11grab does the
// same): XGetImage, used when the server has no MIT-SHM, when attaching the
// segment fails (a remote display: the server cannot map our memory), or
// when a shared-memory read fails once and XGetImage then works; the switch
// is permanent for the object and method() reports it.
//
// XDamage, when the server has it: every capture reports the screen areas
// damaged since the previous one (CapturedFrame::damage), so a caller can
// skip work on unchanged frames without comparing pixels.
//
// Thread safety: none (Xlib without XInitThreads); one thread at a time.
// Attaching the segment briefly installs a process-wide X error handler to
// detect failure; the previous handler is restored before returning.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "platform/capture.h"
#include "platform/x11/x11_display.h"

namespace uiscope::x11 {

class XShmCapture final : public ScreenCapture {
 public:
  // Captures through `display`, which must outlive the capture and not be
  // used by another thread meanwhile.
  static std::unique_ptr<XShmCapture> Create(X11Display& display,
                                             const CaptureOptions& options = {});
  // Opens its own connection to `display_name` ("" = $DISPLAY).
  static Result<std::unique_ptr<XShmCapture>> Open(const std::string& display_name,
                                                   const CaptureOptions& options = {});
  ~XShmCapture() override;
  XShmCapture(const XShmCapture&) = delete;
  XShmCapture& operator=(const XShmCapture&) = delete;

  int screen_width() const override { return screen_width_; }
  int screen_height() const override { return screen_height_; }
  std::string_view method() const override;

  Result<CapturedFrame> CaptureScreen() override;
  Result<CapturedFrame> CaptureRegion(const Rect& region) override;
  Result<CapturedFrame> CaptureWindow(uint64_t window_id) override;

  // For tests and benchmarks: bytes of the shared segment (0 when none),
  // and how many segments were allocated over the object's life.
  size_t shm_capacity() const;
  int shm_allocations() const { return shm_allocations_; }
  bool damage_tracking() const { return damage_ != 0; }

 private:
  struct Segment;
  struct SegmentDeleter {
    void operator()(Segment* segment) const;
  };

  XShmCapture(std::unique_ptr<X11Display> owned, X11Display& display,
              const CaptureOptions& options);
  void InitExtensions();
  Status RefreshScreenSize();
  Status EnsureSegment(size_t bytes);
  // The pixels of `r` (inside the screen) into frame->image. A GrabShm
  // error means "fall back to XGetImage", not a final failure.
  Status GrabShm(const Rect& r, CapturedFrame* frame);
  Status GrabXGetImage(const Rect& r, CapturedFrame* frame);
  std::optional<std::vector<Rect>> TakeDamage(const Rect& r);
  Error Broken() const;

  std::unique_ptr<X11Display> owned_;  // when Open() made the connection
  X11Display& display_;
  CaptureOptions options_;
  int screen_width_ = 0;
  int screen_height_ = 0;
  bool shm_usable_ = false;
  std::unique_ptr<Segment, SegmentDeleter> segment_;
  int shm_allocations_ = 0;
  unsigned long damage_ = 0;        // XDamage Damage, 0 when not tracking
  unsigned long damage_parts_ = 0;  // XFixes region receiving the damaged area
  int damage_event_base_ = 0;
  bool damage_primed_ = false;  // a capture has reset the damage once
};

}  // namespace uiscope::x11
