// X11Display: an owned Xlib connection and the few queries the other
// backends need (screen size, root-window properties, open popups). The
// top-level windows are listed by ListClientWindows (x11_windows.h).
//
// Thread safety: one instance per thread (Xlib without XInitThreads).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"

struct _XDisplay;  // Xlib's Display, kept out of this header

namespace uiscope::x11 {

class X11Display {
 public:
  // `name` "" means $DISPLAY. Unavailable error when it cannot be opened.
  static Result<std::unique_ptr<X11Display>> Open(const std::string& name);
  ~X11Display();
  X11Display(const X11Display&) = delete;
  X11Display& operator=(const X11Display&) = delete;

  _XDisplay* raw() const { return display_; }
  // The X server went away: every further request fails; open a new one.
  bool broken() const { return broken_; }
  const std::string& name() const { return name_; }
  int width() const;
  int height() const;

  // A STRING / UTF8_STRING property of the root window; nullopt when unset.
  std::optional<std::string> RootStringProperty(const char* atom_name) const;
  // The boxes (root coordinates) of the mapped override-redirect children of
  // the root window: open menus, combo popups, tooltips. GTK 2 never marks
  // the items of an open menu "showing"; being inside one of these says so.
  std::vector<Rect> MappedPopups() const;

 private:
  X11Display(_XDisplay* display, std::string name) : display_(display), name_(std::move(name)) {}
  _XDisplay* display_;
  std::string name_;
  bool broken_ = false;
};

}  // namespace uiscope::x11
