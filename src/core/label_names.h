// Names for fields that have none of their own: the text of the label that
// names them on screen.
//
// Toolkits leave many fields without an accessible name: GTK 3's file
// chooser entry carries only a LABELLED_BY relation to "Name:", and zenity
// forms, gedit's Find/Replace, GIMP's Width/Height and wxWidgets fields have
// no relation at all, only a label beside them. A person reads such a field
// by that label, and so must an agent that looks for it (`find Name --role
// text_field`). The backends resolve the relations they read; this file holds
// the rest, as pure functions over core::Node trees: a field named this way
// has Node::name_from = NameFrom::kLabel, which every format prints, because
// the name was inferred, not given.
//
// Thread safety: pure functions over the values passed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/node.h"

namespace uiscope {

// Roles of the fields a label can name: what a person types or sets a value
// in (text fields and areas, combo boxes, spin buttons, sliders).
bool IsLabelNamedRole(Role role);

// A label's text as the name of the field it labels: without surrounding
// space and one trailing colon ("Name:" -> "Name", "Width :" -> "Width").
std::string NameFromLabelText(std::string_view label);

// Names every unnamed, placed field (IsLabelNamedRole) in `roots` after the
// label beside it, within the field's container (its parent, else the
// grandparent, as a label and its field sit in one row of a grid or one box;
// past wrappers that hold nothing else, as a Swing text area's viewport and
// scroll pane, never past a window or a control):
// the nearest named label or static text on its left in the same row,
// else the nearest one just above it, left-aligned with it. No other
// control may sit between the two, a label names one field at most (the
// nearest wins), and a label whose text already names a field of the
// container is taken. The name is NameFromLabelText of the label's;
// name_from becomes kLabel. Fields without bounds are left as they are.
void NameFieldsByLabels(std::vector<Node>& roots);

}  // namespace uiscope
