// Window properties read through Xlib, for the display's root strings and
// the window list (client lists, titles, pids, frame extents). The
// clipboard reads its transfers in two steps of its own (x11_clipboard.cpp).
//
// Include after <X11/Xlib.h> and before `#undef Status` where a file undoes
// Xlib's Status macro.
#pragma once

#include <X11/Xlib.h>

#include <cstddef>
#include <vector>

#include "platform/x11/x_free.h"

namespace uiscope::x11 {

// A property as the server holds it. Xlib hands 32-bit items back as longs.
struct Property {
  Atom type = None;          // None: unset, of another type, or unreadable
  int format = 0;            // 8, 16 or 32
  unsigned long count = 0;   // items
  XPtr<unsigned char> data;  // count items of format bits (32: longs)
};

// Property `name` of `w` of `type` (AnyPropertyType allowed), at most
// `max_units` 32-bit units of it; type None when unset.
inline Property ReadProperty(Display* d, Window w, const char* name, Atom type,
                             long max_units = 1 << 20) {
  Property p;
  const Atom atom = XInternAtom(d, name, True);
  if (atom == None) return p;
  unsigned long after = 0;
  unsigned char* raw = nullptr;
  if (XGetWindowProperty(d, w, atom, 0, max_units, False, type, &p.type, &p.format, &p.count,
                         &after, &raw) != Success ||
      raw == nullptr) {
    p.type = None;
    return p;
  }
  p.data.reset(raw);
  return p;
}

// A property of 32-bit items (windows, cardinals) as longs; empty when unset
// or of another format.
inline std::vector<long> LongProperty(Display* d, Window w, const char* name, Atom type) {
  const Property p = ReadProperty(d, w, name, type, 1 << 16);
  if (p.type == None || p.format != 32) return {};
  const long* items = reinterpret_cast<const long*>(p.data.get());
  return std::vector<long>(items, items + p.count);
}

// A property's bytes as Xlib holds them (32-bit items as longs); empty when
// unset.
inline std::vector<unsigned char> PropertyBytes(Display* d, Window w, const char* name, Atom type) {
  const Property p = ReadProperty(d, w, name, type);
  if (p.type == None) return {};
  const size_t unit = p.format == 32 ? sizeof(long) : static_cast<size_t>(p.format) / 8;
  return std::vector<unsigned char>(p.data.get(), p.data.get() + p.count * unit);
}

}  // namespace uiscope::x11
