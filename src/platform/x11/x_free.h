// What Xlib allocates (window properties, query results, atom names) held in
// a std::unique_ptr that XFrees it: the one deleter the X11 code shares.
//
// Include after <X11/Xlib.h> and before `#undef Status` where a file undoes
// Xlib's Status macro.
#pragma once

#include <X11/Xlib.h>

#include <memory>

namespace uiscope::x11 {

struct XFreeDeleter {
  void operator()(void* p) const {
    if (p) XFree(p);
  }
};

template <typename T>
using XPtr = std::unique_ptr<T, XFreeDeleter>;

}  // namespace uiscope::x11
