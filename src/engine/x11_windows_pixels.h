// The windows of applications whose accessibility tree cannot be read, read
// from their own pixels without being asked (issue 15 §3, §5).
//
// An app that is not answering (the circuit breaker, engine/app_health.h)
// or has no accessibility at all (xterm, Tk) appears in an observation as
// application and window nodes with source x11 (engine/x11_windows_nodes.h)
// and nothing inside. Unless the caller named its sources (`--sources ax`
// names them), Perceive fills each such app's windows with vision elements
// and OCR text from their pixels — exactly what `--sources ax,ocr,vision`
// scoped to that app gives, through the same AddPixelSources, so the IDs are
// the ones an action finds when it perceives again (engine/pixel_ids.h:
// each app's nodes are recorded with that scope).
//
// Bounded: apps are read one after the other, in the observation's order,
// and none is started once kX11PixelsBudget (or the request's deadline) has
// passed; the ones left out are named in a warning. Not thread-safe: call under the workspace
// lease the observation was made with.
#pragma once

#include <chrono>

#include "core/result.h"
#include "engine/perceive.h"

namespace uiscope {

// Time after which no further app is read from its pixels in one
// observation. Measured on a loaded 2-core machine (CLI, Tesseract started
// in the call): a stopped 900×700 GTK fixture window 0.2–0.55 s, a
// 1908×1160 xterm full of text 1.35 s. 800 ms reads one or two usual
// windows, so a desktop observation with one stopped app stays within its
// per-app deadline plus about half a second; an app that is started is
// finished, so the budget can be overrun by one app's read.
inline constexpr std::chrono::milliseconds kX11PixelsBudget{800};

// Fills the x11-sourced application nodes of `perception` in scope of
// `request` from their pixels (see the top of this file), adds their counts
// to the snapshot's stats and a warning per app saying why it was read from
// pixels. `reader` and `detector` may be null (made here when needed).
// Nothing happens on a desktop without a screen. Errors only when the X
// server went away; an app that cannot be read is a warning.
Status AddPixelsOfX11Windows(Perception& perception, Workspace::Lease& lease,
                             const ObserveRequest& request, TextReader* reader,
                             const ocr::OcrOptions& ocr_options = {},
                             const vision::Detector* detector = nullptr);

}  // namespace uiscope
