// Screen capture through XGetImage, the portable path every X server
// supports (remote displays included), and the conversion of X images to
// RGB shared with the XShm backend (xshm_capture.h), which is the fast path.
#pragma once

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "platform/x11/x11_display.h"

struct _XImage;  // Xlib's XImage, kept out of this header

namespace uiscope::x11 {

// Captures `region` of the root window (clamped to the screen) as RGB.
// InvalidArgument when the region lies outside the screen.
Result<Image> CaptureRegion(const X11Display& display, const Rect& region);

// Converts a ZPixmap X image of a TrueColor visual to RGB in `out` (resized
// to the image). 32-bit BGRX (every common X server) takes a SIMD path;
// other 16/24/32-bit layouts a generic one. Unsupported for anything else.
Status XImageToRgb(const _XImage& ximage, Image* out);

}  // namespace uiscope::x11
