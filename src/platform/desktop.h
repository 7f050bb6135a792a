// Desktop: one session's screen as the engine reaches it (issue 20): its
// pixels (ScreenCapture), its top-level windows (WindowSystem), and the
// input, windows and capture an actor opens for itself, each through the
// platform interfaces only, so that no backend type reaches engine/.
//
// The accessibility tree is not part of it: a backend may have none (a VNC
// desktop shows pixels only), so the workspace connects it apart, when the
// desktop offers one. The clipboard interface (platform/clipboard.h) is
// opened the same way by OpenClipboard().
//
// One factory per backend: OpenX11Desktop below (X11 through Xlib: XShm
// capture on the desktop's own connection, EWMH windows, XTest input). A
// second backend adds its factory beside it.
//
// Thread safety: none; the workspace lease serialises all use. Ownership:
// the desktop owns its connections; what the Open* calls return is the
// caller's and may outlive the desktop.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "platform/capture.h"
#include "platform/clipboard.h"
#include "platform/input.h"
#include "platform/windows.h"

namespace uiscope {

class Desktop {
 public:
  virtual ~Desktop() = default;

  // The backend's name for the desktop (":N" for X11).
  virtual const std::string& name() const = 0;
  // "x11" or "vnc".
  virtual std::string_view backend() const = 0;
  // The server went away: every further request fails; open a new desktop.
  virtual bool broken() const = 0;

  // The screen's pixels, kept for the desktop's life (observing: OCR,
  // vision, read_text, memory).
  virtual ScreenCapture& capture() = 0;
  // Its top-level windows, kept for the desktop's life (observing).
  virtual WindowSystem& windows() = 0;

  // Parts of their own for acting (separate connections on X11, so that
  // acting never waits for observing). Unavailable when the server refuses
  // them (no XTEST, say).
  virtual Result<std::unique_ptr<Input>> OpenInput() = 0;
  virtual Result<std::unique_ptr<WindowSystem>> OpenWindows() = 0;
  virtual Result<std::unique_ptr<ScreenCapture>> OpenCapture(const CaptureOptions& options) = 0;
  virtual Result<std::unique_ptr<Clipboard>> OpenClipboard() = 0;
};

// The X display `display` ("" = $DISPLAY). Unavailable when it cannot be
// opened. The VNC factory is OpenVncDesktop (platform/vnc/vnc_desktop.h).
Result<std::unique_ptr<Desktop>> OpenX11Desktop(const std::string& display);

}  // namespace uiscope
