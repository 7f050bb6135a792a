// The field a label names, found by place.
//
// Trees rarely say which field a label names (AT-SPI's LABELLED_BY is read
// where toolkits set it; OCR and vision nodes carry no relation at all), so a
// label stands for the nearest element beside it that can take the action:
// to its right in the same row, else below it. Used when text is given to a
// label, by name (`type --name City`) or by the label's own ID, so that it
// goes into the field and never into whatever held the focus.
//
// Pure functions over plain nodes; safe from any thread.
#pragma once

#include <functional>
#include <vector>

#include "core/node.h"

namespace uiscope {

// A label or a run of text: what names a field rather than taking input.
bool IsLabelRole(Role role);

// Whether typed text goes into `n` (type_text): a text field or area, a
// terminal, a combo box, a spin button, or anything editable.
bool TakesText(const Node& n);
// Whether a value can be set on `n` (set_value): what takes text, a slider
// or a scroll bar.
bool TakesValue(const Node& n);

// The element `label` labels among `roots`: the nearest node for which
// `usable` is true, of the same process and window, whose box spans the
// label's middle row and starts at or past its right edge (up to 400 px
// away), else the nearest whose columns overlap the label's and which starts
// at or below its bottom (up to 80 px). Labels themselves never qualify, nor
// a hidden node for a showing label. Null when there is none.
const Node* FieldOfLabel(const std::vector<Node>& roots, const Node& label,
                         const std::function<bool(const Node&)>& usable);

}  // namespace uiscope
