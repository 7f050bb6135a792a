// Window nodes from the X server (source x11) for applications whose
// accessibility tree cannot be read: one that is not answering (the circuit
// breaker, engine/app_health.h) and one without accessibility at all
// (xterm, Tk). They carry what X knows — title, pid, bounds, whether shown
// and active — and nothing inside; OCR and vision fill them from pixels
// (engine/ocr_nodes.h, vision_nodes.h: an empty window is one of their
// targets), by default through engine/x11_windows_pixels.h. Input reaches them through the window
// system, never through accessibility.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/node.h"
#include "platform/windows.h"

namespace uiscope {

// The name of an app known only from X11, as `app list` and `windows` name
// it: its WM_CLASS instance, else its process name, else the window title.
std::string X11AppName(const WindowInfo& window);

// The windows of `windows` that `wanted` names by the shared rule
// (core/app_name.h): WM_CLASS instance or class, or the process's executable.
std::vector<WindowInfo> WindowsNamed(const std::vector<WindowInfo>& windows,
                                     std::string_view wanted);
// The windows of process `pid`.
std::vector<WindowInfo> WindowsOfPid(const std::vector<WindowInfo>& windows, int pid);

// Application nodes, one per process (or per WM_CLASS for windows without a
// pid), each holding its windows as window nodes with source x11, in the
// stacking order given. `app_name` names the app of a process when it is
// known otherwise (the accessible name of an app that is not answering);
// by default X11AppName. A window found from its title bar in pixels
// (FoundFromTitleBar) covers its frame: that bar may be the app's. IDs are
// left for AssignIds.
std::vector<Node> X11AppNodes(const std::vector<WindowInfo>& windows,
                              const std::function<std::string(const WindowInfo&)>& app_name = {});

// An accessible window and a top-level X11 window (of the same process, or
// without a pid) are one window when they overlap this much.
inline constexpr double kSameWindowIoU = 0.5;

// Gives each unnamed top-level window of `apps` (an accessible window
// without a name: kcalc's main window, gtk3-widget-factory's) the title
// of its X11 window: the same process's window that overlaps it most, at
// IoU 0.5 or more. Returns how many were named.
int NameUntitledWindows(std::vector<Node>& apps, const std::vector<WindowInfo>& windows);
// Whether `apps` has a top-level window NameUntitledWindows would name.
bool HasUntitledWindow(const std::vector<Node>& apps);

}  // namespace uiscope
