// uiscope-hidden-environ-app: an X client whose /proc/PID/environ reads
// empty, as Chromium's does (its process-title rewrite writes over the
// environment strings). For tests of `session stop` and `app close`, which
// must find such a process without its environment. For tests only.
//
// It connects to $DISPLAY, maps a window (WM_CLASS "hidden-environ-app",
// _NET_WM_PID, WM_DELETE_WINDOW honoured), overwrites every environment
// string with zeros, starts `--children N` children that just wait, prints
// "ready PID" and serves X events until its window is deleted or its X
// connection breaks.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char** environ;

int main(int argc, char** argv) {
  int children = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--children") == 0 && i + 1 < argc) children = std::atoi(argv[++i]);
  }
  Display* display = XOpenDisplay(nullptr);
  if (display == nullptr) {
    std::fprintf(stderr, "hidden-environ-app: cannot open display\n");
    return 1;
  }
  const int screen = DefaultScreen(display);
  Window window = XCreateSimpleWindow(display, RootWindow(display, screen), 40, 40, 240, 120, 1,
                                      BlackPixel(display, screen), WhitePixel(display, screen));
  XStoreName(display, window, "Hidden environment");
  XClassHint class_hint;
  std::string instance = "hidden-environ-app";
  std::string app_class = "Hidden-environ-app";
  class_hint.res_name = instance.data();
  class_hint.res_class = app_class.data();
  XSetClassHint(display, window, &class_hint);
  const long pid = getpid();
  XChangeProperty(display, window, XInternAtom(display, "_NET_WM_PID", False), XA_CARDINAL, 32,
                  PropModeReplace, reinterpret_cast<const unsigned char*>(&pid), 1);
  Atom delete_window = XInternAtom(display, "WM_DELETE_WINDOW", False);
  XSetWMProtocols(display, window, &delete_window, 1);
  XMapWindow(display, window);
  XSync(display, False);

  // What Chromium's process title does to /proc/PID/environ. Before the
  // fork, so the children read empty too (Chromium's rewrite their own).
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::memset(*entry, 0, std::strlen(*entry));
  }
  for (int i = 0; i < children; ++i) {
    if (fork() == 0) {
      close(ConnectionNumber(display));  // the X connection is the parent's
      while (true) pause();
    }
  }
  std::printf("ready %ld\n", pid);
  std::fflush(stdout);

  while (true) {
    XEvent event;
    XNextEvent(display, &event);  // exits the process if the connection breaks
    if (event.type == ClientMessage &&
        static_cast<Atom>(event.xclient.data.l[0]) == delete_window) {
      XCloseDisplay(display);
      return 0;
    }
  }
}
