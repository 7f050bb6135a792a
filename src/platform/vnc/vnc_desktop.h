// A VNC server's screen as a uiscope Desktop (platform/desktop.h): the
// session backend behind `uiscope session attach vnc://HOST[:PORT]`.
//
// Capture, input and clipboard are the VNC backend's (vnc_backend.h), all
// over one VncConnection that keeps the framebuffer current. Windows are not
// known over VNC: the desktop's WindowSystem finds them from their title
// bars in the framebuffer (platform/windows_from_pixels.h), titled by the
// TitleReader given (OCR, from the engine; untitled without one), with IDs
// that stay while the window does, listed over the whole screen as the
// bottom window (id kVncScreenWindow, class "VNC", titled with the server's
// desktop name): what lies outside every window found (a panel, desktop
// icons, a window whose title bar is covered, a VM's text console with no
// window manager at all) is read as the screen's, and what a window found
// covers is masked there, so nothing is read twice or lost when a title bar
// is missed or a framed widget is taken for one. Activating a window clicks
// its title bar and waits until it is on top (the screen: nothing to do);
// closing one clicks the close button found in its title bar by its shape
// (FindCloseButton; Unsupported when the bar shows none). The
// engine reads every window from its pixels (OCR and vision) as it reads any
// window without an accessibility tree, and acts on what it finds with
// pointer and keys.
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
#include "platform/windows_from_pixels.h"
#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_connection.h"

namespace uiscope {

// The ID of the screen, a VNC desktop's bottom window.
inline constexpr uint64_t kVncScreenWindow = 1;

// Connects (VncConnection::Connect's errors: nothing listening, a refused
// password, a timeout, each naming the URL and never the password).
Result<std::unique_ptr<Desktop>> OpenVncDesktop(const VncAddress& address,
                                                const VncOptions& options = {},
                                                TitleReader read_title = {});

}  // namespace uiscope
