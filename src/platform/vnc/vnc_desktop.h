// A VNC server's screen as a uiscope Desktop (platform/desktop.h): the
// session backend behind `uiscope session attach vnc://HOST[:PORT]`.
//
// Capture, input and clipboard are the VNC backend's (vnc_backend.h), all
// over one VncConnection that keeps the framebuffer current. Windows are not
// known over VNC: the desktop's WindowSystem lists one window, the whole
// screen (id kVncScreenWindow, class "VNC", titled with the server's desktop
// name), so the engine reads it from its pixels (OCR and vision) as it reads
// any window without an accessibility tree, and acts on what it finds with
// pointer and keys. Closing or killing it is Unsupported; activating it is a
// no-op.
//
// broken() is true once the connection gave up (closed); while it is
// reconnecting after a drop, requests fail with the reason and the desktop
// is kept, so the session comes back by itself when the server does.
//
// Thread safety: as Desktop; the connection itself is thread-safe.
#pragma once

#include <memory>

#include "core/result.h"
#include "platform/desktop.h"
#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_connection.h"

namespace uiscope {

// The ID of the one window a VNC desktop lists.
inline constexpr uint64_t kVncScreenWindow = 1;

// Connects (VncConnection::Connect's errors: nothing listening, a refused
// password, a timeout, each naming the URL and never the password).
Result<std::unique_ptr<Desktop>> OpenVncDesktop(const VncAddress& address,
                                                const VncOptions& options = {});

}  // namespace uiscope
