// What a box's pixels show beyond text (issue 17): whether a box a detector
// calls a control holds anything a control paints, or only a line of text
// on the window's ground.
//
// The learned detector reads captions ("Email" left of a field, a status
// line, a frame's title) as buttons, check boxes and radio buttons: text
// with space around it looks like a flat button to it. A caption takes the
// OCR text that would have named the field beside it and hides the text
// node an agent would read, so the learned detector drops such boxes
// (learned_detector.h). A control paints at least one of: a frame (a line
// along a side of the box), a fill (a ground of its own), an indicator (a
// check box's square or a radio button's circle at one end, hollow or
// solid, set apart from the text), an underline (a link) or an icon (ink
// that is not a row of glyphs). A box on the window's plain ground that
// holds a row of glyphs and none of those is bare text. A flat text button
// (a link without its underline, a borderless toolbar label) is bare text
// by this test: its text stays in the tree as an OCR text node, which an
// agent clicks the same way.
//
// Works on any theme: ink is what differs from the ground around the box
// (the most common colour of a ring just outside it), light on dark as
// well as dark on light. Sizes are relative to the box and its glyphs, not
// to a DPI. When the ground is not plain (a photo, a gradient, a box
// straddling two panes) the answer is kUnknown.
//
// Thread safety: a pure function. Cost: O(box area).
#pragma once

#include "core/geometry.h"
#include "image/image.h"

namespace uiscope::vision {

enum class Painted {
  kUnknown,  // the box is not on a plain ground (or too small to tell)
  kControl,  // a frame, a fill, an indicator, an underline or an icon
  kText,     // a row of glyphs on the ground and nothing else
};

// What `box` (image pixels; clipped to the image) shows.
Painted WhatIsPainted(const Image& image, const Rect& box);

}  // namespace uiscope::vision
