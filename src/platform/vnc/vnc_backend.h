// The VNC backend of the platform interfaces: ScreenCapture, Input and
// Clipboard over one VncConnection (vnc_connection.h), so that a remote
// desktop or a VM's console can be a session like a headless X display.
//
//   auto address = ParseVncAddress("vnc://127.0.0.1:5901");
//   auto connection = VncConnection::Connect(*address, {.password_file = "pw"});
//   auto capture = OpenVncCapture(*connection);
//   auto input = OpenVncInput(*connection);
//   auto clipboard = OpenVncClipboard(*connection);
//
// What differs from the X11 backend, stated here:
// - Windows are not known over VNC: CaptureWindow is Unsupported (the
//   engine finds windows from the pixels).
// - A capture right after input through the same connection waits for the
//   update that shows its effect (VncConnection::WaitFresh); Input calls
//   return once their events are written (RFB has no acknowledgement; TCP
//   keeps them in order), not once the server processed them.
// - PointerPosition() is where this backend last put the pointer; before
//   its first move, where the server reported it (x11vnc sends cursor
//   position updates; Xvnc does not: Unavailable there).
// - TypeOptions::wait_handled is never called: the server binds keysyms
//   itself (vnc_events.h), there is no keymap to restore.
// - Clipboard: RFB has one cut buffer, Latin-1 in the classic protocol
//   (libvncclient 0.9.14 has no UTF-8 extended clipboard). Both selections
//   name it; which X selection the server syncs with it is the server's
//   choice. Owner() knows no window or pid (both 0). Own() of text outside
//   Latin-1 is Unsupported; only text is carried.
// - x11vnc (0.9.16) applies pointer events only some hundred milliseconds
//   to seconds after a client connects (while it sets up polling and
//   XDamage), key events at once: input sent in that window lands late, and
//   out of order with keys. RFB gives no way to tell when the server applied
//   an event (x11vnc reports pointer positions only for moves made by other
//   clients), so the backend cannot wait for it; a caller that acts right
//   after Connect() on x11vnc should check the first action's effect.
//   TigerVNC's Xvnc applies input at once.
// - method() is "vnc".
#pragma once

#include <memory>

#include "platform/capture.h"
#include "platform/clipboard.h"
#include "platform/input.h"
#include "platform/vnc/vnc_connection.h"

namespace uiscope {

// The VNC connection's framebuffer as a ScreenCapture. `options.use_shm`
// and `use_damage` do not apply (damage always comes from the update
// rectangles); hashes and tile size do.
std::unique_ptr<ScreenCapture> OpenVncCapture(std::shared_ptr<VncConnection> connection,
                                              const CaptureOptions& options = {});

// Pointer and keyboard events over the VNC connection.
std::unique_ptr<Input> OpenVncInput(std::shared_ptr<VncConnection> connection);

// The VNC cut text as a Clipboard.
std::unique_ptr<Clipboard> OpenVncClipboard(std::shared_ptr<VncConnection> connection);

}  // namespace uiscope
