// Screen capture through XGetImage. (XShm, tile hashes and XDamage come with
// the pixels work; this is the portable path every X server supports.)
#pragma once

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "platform/x11/x11_display.h"

namespace uiscope::x11 {

// Captures `region` of the root window (clamped to the screen) as RGB.
Result<Image> CaptureRegion(const X11Display& display, const Rect& region);

}  // namespace uiscope::x11
