// The roles of an application's top levels, from facts the tree and the
// window system hold.
//
// AT-SPI lists an application's top levels as its children, and the toolkit
// picks their roles: GTK 3 says "frame", "dialog", "file chooser", "alert";
// GTK 4 (4.8) calls every GtkWindow a "frame", a modal dialog built from a
// plain window included, and Qt 6 and apps with their own window classes
// give "filler" or "panel" to a top level. A top level shown as a panel is
// not found as a window (`wait-for --role dialog` times out on a Save As
// dialog). The role is decided here from what the tree says (a child of the
// application, the modal state) and what the X server says of the window
// (_NET_WM_WINDOW_TYPE_DIALOG, WM_TRANSIENT_FOR), never from its title.
//
// Thread safety: pure functions over the values passed.
#pragma once

#include <functional>

#include "core/node.h"

namespace uiscope {

// What the window system says of a top level's window.
enum class XWindowKind { kUnknown, kNormal, kDialog };

// Gives the top levels of `app` (an application node: its children) the
// roles of windows: a generic container (panel, unknown) becomes a window;
// a window that is modal, or whose X window is a dialog (`x_kind`, asked for
// each top level that is not a dialog yet), becomes a dialog. Alerts and
// dialogs stay as they are; nothing below the top levels changes.
void NormaliseTopLevels(Node& app, const std::function<XWindowKind(const Node&)>& x_kind);

}  // namespace uiscope
